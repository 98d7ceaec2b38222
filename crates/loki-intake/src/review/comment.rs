//! The verdict in Markdown: the one comment (GitHub) or note (GitLab) on a request, the check
//! run's summary and the job summary, all from a `seal check --json` report.
//!
//! # Shape
//! ```text
//! <!-- loki:judge:<name> -->            the marker the next run finds the comment by
//! ## <mark> loki: <VERDICT>             ✅ CLEAN, ❌ FINDINGS, ⚠️ DECLARE, ❔ CANNOT JUDGE
//! <what the verdict means> <what the check does with it, and the fail-on list>
//! Judged <head> against <base> …
//! ### Findings (n)          kind, test, where, evidence, what to do instead
//! ### To declare (n)        kind, test, where, what it expected, what it expects now
//! ### Declared (n)          test, kind, reason
//! ### Could not judge (n)   suite, why, what to do
//! ### Suites                result and counts of each suite on the head
//! <details> Not proven (n)  what, why, the command that proves it
//! Receipt sha256:…          its outcome, run, and how to check it
//! ```
//! A section with nothing in it is left out, but Suites, which always shows.
//!
//! # Bounds and escaping
//! Text from the change (test names, evidence) is data: table cells have `|` escaped, line
//! breaks folded, `<` `>` as entities and `@` kept from mentioning anyone; code spans pick a
//! fence their text cannot close. A section shows at most [`MAX_ROWS`] rows and a cell at most
//! [`MAX_CELL`] characters, each cut saying so; the whole body stays under [`MAX_BODY`]
//! characters (GitHub refuses comments and check summaries over 65,536).

use std::fmt::Write as _;

use loki_protocol::outcome::Verdict;
use loki_seal::report::Report;

use super::context::Request;
use super::gate::{Conclusion, FailOn};

/// Rows shown per section.
pub const MAX_ROWS: usize = 30;
/// Characters shown per table cell.
pub const MAX_CELL: usize = 240;
/// The most characters a body has.
pub const MAX_BODY: usize = 60_000;
/// Characters of a commit id shown.
const SHORT: usize = 12;

/// A rendered verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The comment's body, the marker first.
    pub body: String,
    /// One line: the check run's title, the commit status's description.
    pub title: String,
    /// The body without the marker: the check run's summary and the job summary.
    pub summary: String,
}

/// The hidden first line a comment is found by: one per check `name`.
#[must_use]
pub fn marker(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ' ') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("<!-- loki:judge:{safe} -->")
}

/// The verdict of `report` in Markdown, as check `name` concludes it under `gate`; `request`
/// (when known) gives the links.
#[must_use]
pub fn render(report: &Report, request: Option<&Request>, gate: &FailOn, name: &str) -> Rendered {
    let conclusion = gate.conclusion(report.verdict);
    let mut s = String::new();
    let (mark, meaning) = headline(report);
    let _ = writeln!(s, "## {mark} {name}: {}\n", report.verdict.as_str());
    let _ = writeln!(s, "{meaning} {}\n", gate_line(conclusion, gate));
    let head = request.map_or_else(
        || "the working tree".to_string(),
        |r| code(short(&r.head_sha)),
    );
    let target = request.map_or(String::new(), |r| format!(" (`{}`)", r.target));
    let _ = writeln!(
        s,
        "Judged {head} against {}{target} with `loki seal check`: the repository's own suites on both, the original tests on the new code, and the static rules.\n",
        code(short(&report.base))
    );
    findings(&mut s, report);
    to_declare(&mut s, report);
    declared(&mut s, report);
    cannot_judge(&mut s, report);
    suites(&mut s, report);
    not_proven(&mut s, report);
    receipt(&mut s, report, request);
    let summary = bounded(s);
    Rendered {
        body: format!("{}\n{summary}", marker(name)),
        title: title(report),
        summary,
    }
}

fn headline(report: &Report) -> (&'static str, String) {
    match report.verdict {
        Verdict::Clean => (
            "✅",
            "No test newly failing, deleted, skipped or weakened, and every question settled."
                .to_string(),
        ),
        Verdict::Findings => (
            "❌",
            format!(
                "The change games its tests: {}.",
                count(report.findings.len(), "finding")
            ),
        ),
        Verdict::Declare => (
            "⚠️",
            format!(
                "The change alters what existing tests expect ({}): a tree cannot show whether that was asked for, so someone must declare it.",
                count(report.declare.len(), "change")
            ),
        ),
        Verdict::CannotJudge => (
            "❔",
            "The change could not be judged, so it is not proven clean.".to_string(),
        ),
    }
}

fn gate_line(c: Conclusion, gate: &FailOn) -> String {
    match c {
        Conclusion::Success => "The check passes.".to_string(),
        Conclusion::Failure => format!("**The check fails** (fail-on: {gate})."),
        Conclusion::Neutral => {
            format!("The check is neutral: this verdict is reported, not failed (fail-on: {gate}).")
        }
    }
}

/// The check run's title.
fn title(report: &Report) -> String {
    let v = report.verdict.as_str();
    match report.verdict {
        Verdict::Findings => format!("{v}: {}", count(report.findings.len(), "finding")),
        Verdict::Declare => format!("{v}: {} to declare", count(report.declare.len(), "change")),
        Verdict::CannotJudge => format!(
            "{v}: {} could not be judged",
            count(report.cannot_judge.len().max(1), "suite")
        ),
        Verdict::Clean => {
            let executed: u64 = report.checks.iter().map(|c| c.run.executed).sum();
            format!(
                "{v}: {}, {executed} tests executed",
                count(report.checks.len(), "suite")
            )
        }
    }
}

fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn short(sha: &str) -> &str {
    sha.get(..SHORT).unwrap_or(sha)
}

/// Starts a table section titled `title` with `n` items and the column `heads`.
fn section(s: &mut String, title: &str, n: usize, heads: &[&str]) {
    let _ = writeln!(s, "### {title} ({n})\n");
    let _ = writeln!(s, "| {} |", heads.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(heads.len()));
}

/// Ends a table of `n` items of which [`MAX_ROWS`] were shown.
fn more(s: &mut String, n: usize) {
    if n > MAX_ROWS {
        let _ = writeln!(
            s,
            "\n… and {} more: the receipt lists every one.",
            n - MAX_ROWS
        );
    }
    s.push('\n');
}

fn row(s: &mut String, cells: &[String]) {
    let _ = writeln!(s, "| {} |", cells.join(" | "));
}

fn place(path: &str, line: Option<u32>) -> String {
    match line {
        Some(l) => code_cell(&format!("{path}:{l}")),
        None => code_cell(path),
    }
}

fn findings(s: &mut String, r: &Report) {
    if r.findings.is_empty() {
        return;
    }
    let n = r.findings.len();
    section(
        s,
        "Findings",
        n,
        &["Kind", "Test", "Where", "Evidence", "What to do instead"],
    );
    for f in r.findings.iter().take(MAX_ROWS) {
        let x = &f.finding;
        row(
            s,
            &[
                code_cell(x.kind.as_str()),
                x.test.as_deref().map_or_else(|| "—".to_string(), code_cell),
                place(&x.path, x.line),
                cell(&x.detail),
                cell(&f.advice),
            ],
        );
    }
    more(s, n);
}

fn to_declare(s: &mut String, r: &Report) {
    if r.declare.is_empty() {
        return;
    }
    let n = r.declare.len();
    section(
        s,
        "To declare",
        n,
        &["Kind", "Test", "Where", "It expected", "It expects now"],
    );
    for d in r.declare.iter().take(MAX_ROWS) {
        row(
            s,
            &[
                code_cell(d.kind.as_str()),
                code_cell(&d.test),
                place(&d.path, d.line),
                lines_cell(&d.was),
                lines_cell(&d.now),
            ],
        );
    }
    more(s, n);
    s.push_str("If the change was asked for, declare it (`loki seal check --declared FILE`, or `loki seal declare` in an agent's session): the declaration is signed into the receipt.\n\n");
}

fn declared(s: &mut String, r: &Report) {
    if r.declared.is_empty() {
        return;
    }
    let n = r.declared.len();
    section(s, "Declared", n, &["Test", "Kind", "Reason"]);
    for d in r.declared.iter().take(MAX_ROWS) {
        row(
            s,
            &[
                code_cell(&d.test),
                code_cell(d.kind.as_str()),
                cell(&d.reason),
            ],
        );
    }
    more(s, n);
}

fn cannot_judge(s: &mut String, r: &Report) {
    if r.cannot_judge.is_empty() {
        return;
    }
    let n = r.cannot_judge.len();
    section(s, "Could not judge", n, &["Suite", "Why", "What to do"]);
    for c in r.cannot_judge.iter().take(MAX_ROWS) {
        row(s, &[code_cell(&c.check), cell(&c.reason), cell(&c.fix)]);
    }
    more(s, n);
}

fn suites(s: &mut String, r: &Report) {
    let n = r.checks.len();
    if n == 0 {
        s.push_str("### Suites (0)\n\nNo suite ran on the head.\n\n");
        return;
    }
    section(
        s,
        "Suites",
        n,
        &["Suite", "Result", "Executed", "Passed", "Failed", "Skipped"],
    );
    for c in r.checks.iter().take(MAX_ROWS) {
        row(
            s,
            &[
                code_cell(&c.run.name),
                c.run.result.as_str().to_string(),
                c.run.executed.to_string(),
                c.run.passed.to_string(),
                c.run.failed.to_string(),
                c.run.skipped.to_string(),
            ],
        );
    }
    more(s, n);
}

fn not_proven(s: &mut String, r: &Report) {
    if r.not_proven.is_empty() {
        return;
    }
    let n = r.not_proven.len();
    let _ = writeln!(s, "<details><summary>Not proven ({n})</summary>\n");
    for p in r.not_proven.iter().take(MAX_ROWS) {
        let _ = write!(s, "- **{}**", cell(p.what()));
        if !p.why().is_empty() {
            let _ = write!(s, ": {}", cell(p.why()));
        }
        if !p.prove().is_empty() {
            let _ = write!(s, ". Prove it: {}", code(p.prove()));
        }
        s.push('\n');
    }
    if n > MAX_ROWS {
        let _ = writeln!(s, "- … and {} more in the receipt", n - MAX_ROWS);
    }
    s.push_str("\n</details>\n\n");
}

fn receipt(s: &mut String, r: &Report, request: Option<&Request>) {
    let Some(rc) = &r.receipt else {
        s.push_str("No receipt was sealed for this check.\n");
        return;
    };
    let job = request
        .and_then(|q| q.job_url.as_deref())
        .map_or(String::new(), |u| format!(" of [this job]({u})"));
    let _ = writeln!(
        s,
        "---\nReceipt `sha256:{}` ({}, run `{}`), signed. It is in the artifacts{job}: check it with `loki verify receipt.dsse.json --pubkey pubkey.pem`, or with your team's published key.",
        rc.receipt_sha256, rc.outcome, rc.run_id
    );
}

/// Cuts a body over [`MAX_BODY`] characters, saying so.
fn bounded(mut s: String) -> String {
    if s.len() <= MAX_BODY {
        return s;
    }
    let mut end = MAX_BODY;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    s.push_str(
        "\n\n… (cut: the verdict is longer than a comment may be; the receipt has all of it)\n",
    );
    s
}

/// `text` cut to [`MAX_CELL`] characters on one line.
fn one_line(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if flat.chars().count() <= MAX_CELL {
        return flat;
    }
    let cut: String = flat.chars().take(MAX_CELL).collect();
    format!("{cut}…")
}

/// Text as a table cell: one line, `|` escaped, no HTML, no mentions.
#[must_use]
pub fn cell(text: &str) -> String {
    one_line(text)
        .replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('@', "@\u{200b}")
}

/// `text` as an inline code span: the fence is one backtick longer than any run in it.
#[must_use]
pub fn code(text: &str) -> String {
    let text = one_line(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    // A span whose text starts or ends with a backtick needs a space inside the fence.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// A code span inside a table cell: GitHub splits cells on `|` even inside code.
fn code_cell(text: &str) -> String {
    code(text).replace('|', "\\|")
}

/// Source lines in a cell, each a code span.
fn lines_cell(lines: &[String]) -> String {
    if lines.is_empty() {
        return "—".to_string();
    }
    let shown: Vec<String> = lines.iter().take(5).map(|l| code_cell(l.trim())).collect();
    let mut out = shown.join("<br>");
    if lines.len() > 5 {
        let _ = write!(out, "<br>… {} more lines", lines.len() - 5);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_code_spans_keep_the_change_s_text_as_data() {
        assert_eq!(cell("a|b\nc <b>@team"), "a\\|b c &lt;b&gt;@\u{200b}team");
        assert_eq!(code("x"), "`x`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`a"), "`` `a ``");
        assert_eq!(code_cell("a|b"), "`a\\|b`");
        let long = "x".repeat(MAX_CELL + 10);
        assert_eq!(cell(&long).chars().count(), MAX_CELL + 1);
        assert_eq!(marker("loki <x> --"), "<!-- loki:judge:loki _x_ __ -->");
    }

    /// A report with something in every section, and text that tries to break out of a cell.
    fn report() -> Report {
        let check = |name: &str, result: &str, executed: u64, failed: u64| {
            serde_json::json!({"name": name, "kind": "pytest", "cmd": "python3 -m pytest",
                "result": result, "executed": executed, "passed": executed - failed,
                "failed": failed, "skipped": 0, "failing_ids": [], "duration_s": 1.5,
                "log_sha256": "ab", "log_path": "/x/pytest.log", "attempts": 1})
        };
        serde_json::from_value(serde_json::json!({
            "base": "0123456789abcdef0123456789abcdef01234567",
            "verdict": "findings",
            "findings": [{"kind": "weakened_test", "path": "test_calc.py", "line": 8,
                "test": "test_calc.py::test_sub", "detail": "its original form fails | on the new code <b>@team</b>",
                "advice": "restore the test's original expectations"}],
            "declare": [{"kind": "expectation_changed", "check": "pytest", "test": "test_calc.py::test_add",
                "path": "test_calc.py", "line": 4, "was": ["assert add(2, 2) == 4"], "now": ["assert add(2, 2) == 5"],
                "detail": "the expected value changed"}],
            "declared": [{"kind": "expectation_changed", "test": "test_calc.py::test_mul", "reason": "the issue asks for it"}],
            "cannot_judge": [{"check": "go", "reason": "go is not installed", "fix": "install go"}],
            "checks": [check("pytest", "pass", 3, 0), check("pytest:api", "fail", 2, 1)],
            "not_proven": [{"what": "app boot", "why": "a check runs the tests only", "prove": "loki deep"}],
            "receipt": {"run_id": "run_20261207_011442_03a0", "receipt_sha256": "ff00",
                "outcome": "PARTIAL", "dir": "/x/.loki/runs/run_20261207_011442_03a0"}
        }))
        .unwrap()
    }

    #[test]
    fn the_comment_shows_every_section_with_the_gate_and_the_links() {
        let req = Request {
            forge: crate::pr::Forge::Github {
                owner: "octo".into(),
                repo: "widgets".into(),
            },
            number: 7,
            head_sha: "fedcba9876543210fedcba9876543210fedcba98".into(),
            target: "main".into(),
            url: Some("https://github.com/octo/widgets/pull/7".into()),
            job_url: Some("https://github.com/octo/widgets/actions/runs/42".into()),
            fork: false,
        };
        let r = render(&report(), Some(&req), &FailOn::default(), "loki");
        assert!(r.body.starts_with("<!-- loki:judge:loki -->\n"));
        assert_eq!(r.body, format!("{}\n{}", marker("loki"), r.summary));
        assert_eq!(r.title, "FINDINGS: 1 finding");
        insta::assert_snapshot!(r.body);
        // Neutral under a gate that does not list the verdict; the title is the same.
        let none: FailOn = "none".parse().unwrap();
        let n = render(&report(), None, &none, "loki");
        assert!(n.body.contains("The check is neutral"), "{}", n.body);
        assert!(
            n.body
                .contains("Judged the working tree against `0123456789ab`")
        );
    }

    #[test]
    fn a_long_list_shows_its_first_rows_and_says_how_many_more() {
        let mut r = report();
        let one = r.findings[0].clone();
        r.findings = vec![one; MAX_ROWS + 5];
        let body = render(&r, None, &FailOn::default(), "loki").body;
        assert_eq!(body.matches("| `weakened_test` |").count(), MAX_ROWS);
        assert!(body.contains("… and 5 more: the receipt lists every one."));
    }

    #[test]
    fn a_body_over_the_limit_is_cut_saying_so() {
        let body = bounded("é".repeat(MAX_BODY));
        assert!(body.len() < MAX_BODY + 200);
        assert!(body.ends_with("the receipt has all of it)\n"));
    }
}
