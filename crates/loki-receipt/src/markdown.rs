//! `receipt.md`: the receipt for people. Derived from `receipt.json`, never hashed or signed; the
//! JSON is the record.
//!
//! Text from the run (task refs, check names, findings) is escaped for Markdown tables so a
//! crafted name cannot break the layout. A cost of `null` prints "not measured", never `$0.00`.

use std::fmt::Write as _;

use loki_core::time::human_duration;

use crate::schema::{Cost, DeclarationKind, Declared, Receipt, Time};

/// What the signature line of `receipt.md` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureLine {
    /// Signed with the key `keyid` (DSSE envelope beside the receipt).
    Signed { keyid: String },
    /// Not signed.
    Unsigned,
}

/// Renders `receipt.md`: the sections in the order a reader checks them, the header first and
/// the command that verifies the receipt last.
#[must_use]
pub fn render_markdown(r: &Receipt, signature: &SignatureLine) -> String {
    let mut s = String::new();
    header(&mut s, r, signature);
    checks(&mut s, r);
    wall(&mut s, r);
    contract(&mut s, r);
    integrity(&mut s, r);
    if let Some(d) = &r.declared {
        declared(&mut s, d);
    }
    facts(&mut s, r);
    visual_evidence(&mut s, r);
    assessments(&mut s, r);
    not_proven(&mut s, r);
    s
}

/// The title and the summary table: verdict, run, task, repository, commits, diff, signature,
/// provider, instructions, cost, time, events and the receipt's own hash.
fn header(s: &mut String, r: &Receipt, signature: &SignatureLine) {
    let _ = writeln!(s, "# Evidence receipt: {}\n", r.verdict);
    s.push_str("| | |\n|---|---|\n");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(s, "| {k} | {v} |");
    };
    row("Verdict", format!("**{}**", r.verdict));
    row(
        "Run",
        format!("`{}` ({})", cell(&r.run_id), r.kind.as_str()),
    );
    let task_ref = r
        .task
        .reference
        .as_deref()
        .map(|x| format!(" {}", cell(x)))
        .unwrap_or_default();
    row(
        "Task",
        format!(
            "{}{task_ref}, sha256 `{}`",
            cell(&r.task.source),
            short(&r.task.sha256)
        ),
    );
    if let Some(origin) = &r.repo.origin {
        row("Repository", cell(origin));
    }
    if let Some(main) = &r.main_receipt {
        row("Deep verify of", format!("receipt sha256 `{}`", cell(main)));
    }
    row("Base", format!("`{}`", cell(&r.repo.base_sha)));
    row(
        "Head",
        format!(
            "`{}` (tree `{}`)",
            cell(&r.repo.head_sha),
            cell(&r.repo.tree)
        ),
    );
    row(
        "Diff",
        format!(
            "{} files, +{} -{}, sha256 `{}`",
            r.diff.files,
            r.diff.insertions,
            r.diff.deletions,
            short(&r.diff.sha256)
        ),
    );
    row(
        "Signature",
        match signature {
            SignatureLine::Signed { keyid } => format!(
                "Ed25519, keyid `{}` (DSSE envelope `receipt.dsse.json`)",
                short(keyid)
            ),
            SignatureLine::Unsigned => "unsigned".to_string(),
        },
    );
    row(
        "Provider",
        format!("{} / {}", cell(&r.provider), cell(&r.model)),
    );
    if let Some(rev) = &r.agent_revision {
        row(
            "Instructions",
            format!(
                "revision `{}`",
                short(rev.strip_prefix("sha256:").unwrap_or(rev))
            ),
        );
    }
    row("Cost", describe_cost(&r.cost));
    row("Time", describe_time(&r.time));
    row(
        "Events",
        format!("{} (head `{}`)", r.events.count, short(&r.events.head)),
    );
    row("Receipt", format!("sha256 `{}`", r.receipt_sha256));
}

/// The checks that ran, one table row each with its counts and time; says so when none ran.
fn checks(s: &mut String, r: &Receipt) {
    s.push_str("\n## Checks\n\n");
    if r.checks.is_empty() {
        s.push_str("_No checks ran._\n");
        return;
    }
    s.push_str("| Check | Kind | Result | Executed | Passed | Failed | Skipped | Time |\n");
    s.push_str("|---|---|---|---:|---:|---:|---:|---:|\n");
    for c in &r.checks {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(&c.name),
            cell(c.kind.as_str()),
            c.result.describe(),
            c.executed,
            c.passed,
            c.failed,
            c.skipped,
            human_duration(c.duration_s)
        );
    }
}

/// The sealed acceptance checks (the wall): how many files, whether they pass on the final head,
/// and how they ran on the unchanged base. Absent when nothing was sealed.
fn wall(s: &mut String, r: &Receipt) {
    if r.wall.files.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Acceptance checks (wall)\n\n{} sealed file(s), {} on the final head; on the unchanged base: {} passed, {} failed, {} not run.",
        r.wall.files.len(),
        if r.wall.passed {
            "passed"
        } else {
            "did not pass"
        },
        r.wall.base_run.pass,
        r.wall.base_run.fail,
        r.wall.base_run.not_run
    );
}

/// The contract's acceptance criteria: each with its status (and why, and whether advisory) and
/// the evidence cited for it. Absent when the run had no contract.
fn contract(s: &mut String, r: &Receipt) {
    let Some(contract) = &r.contract else {
        return;
    };
    s.push_str("\n## Contract (acceptance criteria)\n\n");
    s.push_str("| AC | Criterion | Status | Evidence |\n|---|---|---|---|\n");
    for c in &contract.criteria {
        let mut status = c.status.describe().to_string();
        if let Some(reason) = &c.reason {
            status.push_str(&format!(": {}", cell(reason)));
        }
        if c.advisory {
            status.push_str(" (advisory)");
        }
        let evidence: Vec<String> = c
            .evidence
            .iter()
            .map(|e| format!("`{}`", cell(e)))
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {status} | {} |",
            cell(&c.id),
            cell(&c.text),
            if evidence.is_empty() {
                "-".to_string()
            } else {
                evidence.join(", ")
            }
        );
    }
}

/// The integrity findings, each with where it is, the test it concerns and the advice; then the
/// judgement on them, when one was made. Always present: "None." when nothing was found.
fn integrity(s: &mut String, r: &Receipt) {
    s.push_str("\n## Integrity findings\n\n");
    if r.integrity.is_empty() {
        s.push_str("_None._\n");
    }
    for i in &r.integrity {
        let line = i.line.map(|n| format!(":{n}")).unwrap_or_default();
        let test = i
            .test
            .as_ref()
            .map(|t| format!(" (test `{}`)", cell(t)))
            .unwrap_or_default();
        let advice = i
            .advice
            .as_ref()
            .map(|a| format!(" — {}", cell(a)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "- **{}** `{}{line}`{test}: {}{advice}",
            cell(i.kind.as_str()),
            cell(&i.path),
            cell(&i.detail)
        );
    }
    if let Some(v) = r.judgement {
        let _ = writeln!(s, "\nJudgement: **{v}**");
    }
}

/// The facts established during the run, each with the test or path it is about. Absent when
/// there are none.
fn facts(s: &mut String, r: &Receipt) {
    if r.facts.is_empty() {
        return;
    }
    s.push_str("\n## Facts\n\n");
    for f in &r.facts {
        let about = f
            .test
            .as_ref()
            .or(f.path.as_ref())
            .map(|t| format!(" `{}`", cell(t)))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "- **{}**{about}: {}",
            cell(f.kind.as_str()),
            cell(&f.detail)
        );
    }
}

/// The screenshots taken as visual evidence: route, a link to the file, its size and hash.
/// Absent when there are none.
fn visual_evidence(s: &mut String, r: &Receipt) {
    let Some(e) = r.evidence.as_ref().filter(|e| !e.screens.is_empty()) else {
        return;
    };
    s.push_str("\n## Visual evidence\n\n");
    s.push_str("| Route | Screenshot | Bytes | SHA-256 |\n|---|---|---:|---|\n");
    for sc in &e.screens {
        // The path is relative to the run directory, where receipt.md is: the link resolves.
        let _ = writeln!(
            s,
            "| `{}` | [{file}]({file}) | {} | `{}` |",
            cell(&sc.route),
            sc.bytes,
            cell(&sc.sha256),
            file = cell(&sc.file).replace(['(', ')', '[', ']'], "_"),
        );
    }
}

/// The assessments (judgment, not proof): who assessed, with which model, what they concluded,
/// and the verdict it lowers to. Absent when there are none.
fn assessments(s: &mut String, r: &Receipt) {
    if r.assessments.is_empty() {
        return;
    }
    s.push_str("\n## Assessments (judgment, not proof)\n\n");
    for a in &r.assessments {
        let model = a
            .model
            .as_deref()
            .map(|m| format!(" ({})", cell(m)))
            .unwrap_or_default();
        let lowers = a
            .lowers_to
            .map(|o| format!("; lowers the verdict to {o}"))
            .unwrap_or_default();
        let _ = writeln!(s, "- {}{model}: {}{lowers}", cell(&a.by), cell(&a.summary));
    }
}

/// What the run did not prove, each with why and the command that would prove it; then the
/// command that verifies this receipt (a deep receipt's lives below its run's directory).
fn not_proven(s: &mut String, r: &Receipt) {
    s.push_str("\n## NOT PROVEN\n\n");
    for n in &r.not_proven {
        if n.is_bare() {
            let _ = writeln!(s, "- {}", cell(n.what()));
        } else {
            let _ = writeln!(
                s,
                "- **{}**: {}. Prove: `{}`",
                cell(n.what()),
                cell(n.why()),
                cell(n.prove())
            );
        }
    }
    if r.kind == loki_core::run::RunKind::Deep {
        // A deep receipt lives below its run's directory, beside the run's own receipt.
        let _ = writeln!(
            s,
            "\nCheck this receipt with `loki verify .loki/runs/{}/deep`.",
            cell(&r.run_id)
        );
    } else {
        let _ = writeln!(
            s,
            "\nCheck this receipt with `loki verify {}`.",
            cell(&r.run_id)
        );
    }
}

/// `$0.42 (212,345 tokens)`, or `not measured` when the cost is unknown (never `$0.00`).
#[must_use]
pub fn describe_cost(c: &Cost) -> String {
    let tokens = c.input_tokens + c.output_tokens + c.cache_read_tokens + c.cache_write_tokens;
    let partial = if c.measured_sessions < c.total_sessions {
        format!(
            ", {} of {} sessions measured",
            c.measured_sessions, c.total_sessions
        )
    } else {
        String::new()
    };
    match c.usd {
        Some(usd) => format!("${usd:.2} ({} tokens{partial})", group_thousands(tokens)),
        None => format!("not measured ({} tokens{partial})", group_thousands(tokens)),
    }
}

/// `1m12s (intake 1s, plan 8s, ...)`.
#[must_use]
pub fn describe_time(t: &Time) -> String {
    let stages: Vec<String> = t
        .stages
        .iter()
        .map(|s| format!("{} {}", s.stage, human_duration(s.wall_s)))
        .collect();
    if stages.is_empty() {
        human_duration(t.wall_s)
    } else {
        format!("{} ({})", human_duration(t.wall_s), stages.join(", "))
    }
}

fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The first 12 hex digits, enough to recognise a hash in a table.
fn short(hash: &str) -> String {
    const SHORT_HASH_CHARS: usize = 12;
    cell(hash.get(..SHORT_HASH_CHARS).unwrap_or(hash))
}

/// Escapes text for one Markdown table cell: one line, no unescaped pipes or backticks.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace('`', "'")
        .replace(['\n', '\r'], " ")
}

/// The declarations: each test with what it expected and expects now, and who said why.
fn declared(s: &mut String, d: &Declared) {
    s.push_str("\n## Declared\n\n");
    if let Some(req) = &d.request {
        let _ = writeln!(s, "Request: {}\n", cell(req));
    }
    for i in &d.items {
        let what = match i.kind {
            DeclarationKind::ExpectationChanged => "expectation changed on purpose",
            DeclarationKind::RemovedWithCode => "removed with the code it tests",
            DeclarationKind::Contradiction => "contradicts the task",
            DeclarationKind::Undeclared => "NOT DECLARED: what it expects changed",
        };
        let reason = if i.reason.is_empty() {
            String::new()
        } else {
            format!(": \"{}\"", cell(&i.reason))
        };
        let _ = writeln!(s, "- `{}` {what}{reason}", cell(&i.test));
        for w in &i.was {
            let _ = writeln!(s, "  - was: `{}`", cell(w));
        }
        for n in &i.now {
            let _ = writeln!(s, "  - now: `{}`", cell(n));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_cost_is_never_zero_dollars() {
        let c = Cost::default();
        assert_eq!(describe_cost(&c), "not measured (0 tokens)");
        let c = Cost {
            usd: Some(0.4213),
            input_tokens: 200_000,
            output_tokens: 12_345,
            measured_sessions: 1,
            total_sessions: 1,
            ..Cost::default()
        };
        assert_eq!(describe_cost(&c), "$0.42 (212,345 tokens)");
    }

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\nc`d"), "a\\|b c'd");
    }
}
