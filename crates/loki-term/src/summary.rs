//! The summary printed at the end of a run (DESIGN.md), as text and as one JSON object.
//!
//! ```text
//! Outcome:    VERIFIED
//! Reason:     <only when the exit code is non-zero>
//! Receipt:    sha256:<64 hex>
//! NOT PROVEN: full suite: only the tests the change impacts ran (prove: loki deep <run>)
//!             app boot: a build run … never starts the app (prove: loki deep <run>)
//! Council:    security pass, tests block (tests/a.rs:3 assertion loosened)   | only when held
//! Cost:       $0.42 (anthropic, 212k tokens)        | not measured (never $0.00 for unknown)
//! Time:       1m12s (intake 1s, plan 8s, implement 51s, verify 9s, ...)
//! Run:        run_20260101_000000_abcd on branch loki/run_20260101_000000_abcd
//! Next:       loki apply run_20260101_000000_abcd   | loki answer <run> --text "…" when BLOCKED
//!                                                   | loki logs <run> otherwise
//! ```
//! Labels are padded to 12 columns. Pure: the same report always renders the same text. The cost
//! is printed with [`loki_agent::cost::usd`], so it reads as recorded (`$0.0028`, not `$0.00`).

use loki_core::time::human_duration as duration;
use loki_engine::BuildReport;
use loki_protocol::outcome::Outcome;

/// Column where values start.
const LABEL_WIDTH: usize = 12;

/// Tokens as `212k`, `1.2M`, `950`.
#[must_use]
pub fn tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else if n >= 1000 {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

fn line(out: &mut String, label: &str, value: &str) {
    out.push_str(&format!("{label:<LABEL_WIDTH$}{value}\n"));
}

/// The text summary.
#[must_use]
pub fn render(r: &BuildReport) -> String {
    render_for(r, Place::Kept)
}

/// Whether the run's repository is still there once the summary is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Kept,
    /// A throwaway repository (`loki demo` without `--keep`) removed after the summary: there is
    /// no run left to apply or inspect, so the summary does not point at one.
    Removed,
}

/// The one line `-q` prints: the outcome.
#[must_use]
pub fn outcome_line(r: &BuildReport) -> String {
    let mut s = String::new();
    line(&mut s, "Outcome:", r.outcome.as_str());
    s
}

/// What a build prints on stdout when it ends: the summary, or with `-q` its outcome line.
#[must_use]
pub fn text(r: &BuildReport, quiet: bool) -> String {
    if quiet { outcome_line(r) } else { render(r) }
}

/// The text summary, for a run whose repository is at `place`.
#[must_use]
pub fn render_for(r: &BuildReport, place: Place) -> String {
    let mut s = outcome_line(r);
    if r.exit_code != 0
        && let Some(reason) = &r.reason
    {
        line(&mut s, "Reason:", reason);
    }
    line(&mut s, "Receipt:", &format!("sha256:{}", r.receipt_sha256));
    s.push_str(&loki_receipt::not_proven::summary_lines(
        "NOT PROVEN:",
        LABEL_WIDTH,
        &r.not_proven,
    ));
    if !r.council.is_empty() {
        line(&mut s, "Council:", &r.council.join(", "));
    }
    let cost = match r.cost_usd {
        Some(usd) => format!(
            "{} ({}, {} tokens)",
            loki_agent::cost::usd(usd),
            r.provider,
            tokens(r.tokens)
        ),
        None => format!("not measured ({}, {} tokens)", r.provider, tokens(r.tokens)),
    };
    line(&mut s, "Cost:", &cost);
    let stages: Vec<String> = r
        .stages
        .iter()
        .map(|(name, secs)| format!("{name} {}", duration(*secs)))
        .collect();
    line(
        &mut s,
        "Time:",
        &format!("{} ({})", duration(r.wall_s), stages.join(", ")),
    );
    if place == Place::Removed {
        line(
            &mut s,
            "Run:",
            &format!("{} (its repository is removed with the demo)", r.run_id),
        );
        line(
            &mut s,
            "Next:",
            "loki demo --keep, to keep the repository and apply the run",
        );
    } else if !r.run_id.is_empty() {
        let run = if r.branch.is_empty() {
            r.run_id.clone()
        } else {
            format!("{} on branch {}", r.run_id, r.branch)
        };
        line(&mut s, "Run:", &run);
        let next = match r.outcome {
            Outcome::Verified if !r.branch.is_empty() => format!("loki apply {}", r.run_id),
            // The run asked a question (its Reason:); the answer starts the follow-up build.
            Outcome::Blocked => format!("loki answer {} --text \"<your answer>\"", r.run_id),
            _ => format!("loki logs {}", r.run_id),
        };
        line(&mut s, "Next:", &next);
    }
    s
}

/// The `--json` object.
#[must_use]
pub fn to_json(r: &BuildReport) -> serde_json::Value {
    let mut v =
        serde_json::to_value(r).unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}));
    // `--json` says unknown as null: a run stopped before sealing has no receipt, one stopped
    // before intake no worktree or commits, and no reason when its exit code is 0.
    if let Some(m) = v.as_object_mut() {
        for key in UNKNOWN_WHEN_EMPTY {
            if m.get(*key).is_some_and(|x| x.as_str() == Some("")) {
                m.insert((*key).into(), serde_json::Value::Null);
            }
        }
        m.entry("reason").or_insert(serde_json::Value::Null);
    }
    v
}

/// The report's strings that are empty when the run never got that far.
const UNKNOWN_WHEN_EMPTY: &[&str] = &[
    "run_id",
    "receipt_sha256",
    "receipt_path",
    "signed_keyid",
    "branch",
    "worktree",
    "head_sha",
    "base_sha",
];

#[cfg(test)]
mod tests {
    use super::*;
    use loki_protocol::Stage;

    fn report(outcome: Outcome, exit_code: u8) -> BuildReport {
        BuildReport {
            run_id: "run_20260101_000000_abcd".into(),
            outcome,
            interrupted: false,
            exit_code,
            reason: Some("the wall did not pass".into()),
            receipt_sha256: "ab".repeat(32),
            receipt_path: String::new(),
            signed_keyid: String::new(),
            not_proven: ["full suite", "app boot", "security scan"]
                .into_iter()
                .map(|w| {
                    loki_receipt::NotProven::new(w, "why", "loki deep run_20260101_000000_abcd")
                })
                .collect(),
            cost_usd: None,
            provider: "scripted".into(),
            tokens: 212_345,
            wall_s: 72.4,
            stages: vec![
                (Stage::Intake, 0.6),
                (Stage::Implement, 51.0),
                (Stage::Verify, 9.2),
            ],
            branch: "loki/run_20260101_000000_abcd".into(),
            worktree: String::new(),
            head_sha: String::new(),
            base_sha: String::new(),
            changed_files: vec![],
            agent_s: 0.0,
            checks_s: 0.0,
            council: vec![],
        }
    }

    #[test]
    fn the_summary_has_the_design_format() {
        let ok = render(&report(Outcome::Verified, 0));
        let want = format!(
            "Outcome:    VERIFIED\nReceipt:    sha256:{}\nNOT PROVEN: full suite: why (prove: loki deep run_20260101_000000_abcd)\n            app boot: why (prove: loki deep run_20260101_000000_abcd)\n            security scan: why (prove: loki deep run_20260101_000000_abcd)\nCost:       not measured (scripted, 212k tokens)\nTime:       1m12s (intake 600ms, implement 51s, verify 9s)\nRun:        run_20260101_000000_abcd on branch loki/run_20260101_000000_abcd\nNext:       loki apply run_20260101_000000_abcd\n",
            "ab".repeat(32)
        );
        assert_eq!(ok, want);
        let failed = render(&report(Outcome::Failed, 1));
        assert!(
            failed.contains("\nReason:     the wall did not pass\n"),
            "{failed}"
        );
        // Not VERIFIED: nothing to apply, the log says why.
        assert!(
            failed.ends_with("\nNext:       loki logs run_20260101_000000_abcd\n"),
            "{failed}"
        );
        // A run whose checkout was removed names no branch.
        // BLOCKED: the question is the reason, the answer is next.
        let blocked = render(&report(Outcome::Blocked, 4));
        assert!(
            blocked.ends_with(
                "\nNext:       loki answer run_20260101_000000_abcd --text \"<your answer>\"\n"
            ),
            "{blocked}"
        );
        let mut gone = report(Outcome::Failed, 1);
        gone.branch.clear();
        assert!(render(&gone).contains("\nRun:        run_20260101_000000_abcd\n"));
    }

    #[test]
    fn costs_print_as_recorded() {
        let mut r = report(Outcome::Failed, 1);
        r.cost_usd = Some(0.0028);
        assert!(render(&r).contains("\nCost:       $0.0028 (scripted, 212k tokens)\n"));
        r.cost_usd = Some(-0.0);
        assert!(render(&r).contains("\nCost:       $0.00 (scripted, "));
    }

    #[test]
    fn durations_and_tokens_read_naturally() {
        assert_eq!(duration(0.42), "420ms");
        assert_eq!(duration(9.4), "9s");
        assert_eq!(duration(3725.0), "1h02m");
        assert_eq!(tokens(950), "950");
        assert_eq!(tokens(1_234_567), "1.2M");
    }
}
