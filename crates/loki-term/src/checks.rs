//! `loki checks detect` and `loki checks run` (and the suites' lines of `loki seal check` and
//! `loki ci judge`).
//!
//! One line per check: its status (`PASS` green, `FAIL` and `TIMEOUT` red, `FLAKY` and `NOT RUN`
//! yellow), its name, the counts executed, passed, failed and skipped, and the time it took,
//! then ` — <reason>` when it has one; under it the first 20 failing test ids, and
//! `… and <n> more` past them.

use std::fmt::Write as _;

use loki_protocol::CheckStatus;
use loki_runner::{Check, CheckResult};

use crate::style::{DIM, GREEN, RED, YELLOW, paint};

/// Failing test ids listed under a check; the rest are counted.
const FAILING_SHOWN: usize = 20;

/// One line per check, with the failing ids and the reason when it did not pass.
#[must_use]
pub fn results(results: &[CheckResult]) -> String {
    let mut out = String::new();
    for r in results {
        let (tag, style) = match r.run.result {
            CheckStatus::Pass => ("PASS", GREEN),
            CheckStatus::Fail => ("FAIL", RED),
            CheckStatus::Flaky => ("FLAKY", YELLOW),
            CheckStatus::Timeout => ("TIMEOUT", RED),
            CheckStatus::NotRun => ("NOT RUN", YELLOW),
            CheckStatus::Unparseable => ("UNPARSEABLE", RED),
        };
        let _ = write!(
            out,
            "{} {}: {} executed, {} passed, {} failed, {} skipped ({})",
            paint(style, tag),
            r.run.name,
            r.run.executed,
            r.run.passed,
            r.run.failed,
            r.run.skipped,
            loki_core::time::human_duration(r.duration_s)
        );
        if let Some(reason) = &r.reason {
            let _ = write!(out, " — {reason}");
        }
        out.push('\n');
        for id in r.failing_ids.iter().take(FAILING_SHOWN) {
            let _ = writeln!(out, "    failing: {id}");
        }
        if r.failing_ids.len() > FAILING_SHOWN {
            let _ = writeln!(
                out,
                "    … and {} more",
                r.failing_ids.len() - FAILING_SHOWN
            );
        }
    }
    out
}

/// The text `loki checks run` prints: each suite's lines, then the run and where its logs are
/// (left out with `-q`).
#[must_use]
pub fn ran(run: &loki_workspace::checks::ChecksRun, quiet: bool) -> String {
    let mut out = results(&run.results);
    if run.results.is_empty() {
        out.push_str(
            "no test suites found: nothing is proven (`loki checks detect` says what it looked for)\n",
        );
    }
    if !quiet {
        let line = format!("run {} · logs in {}", run.run_id, run.logs.display());
        let _ = writeln!(out, "{}", paint(DIM, &line));
    }
    out
}

/// The text `loki checks detect` prints.
#[must_use]
pub fn detect(checks: &[Check]) -> String {
    if checks.is_empty() {
        return "No test suites found (looked for Cargo.toml, pytest projects and test_*.py, \
                package.json test scripts, node test files and go.mod).\n"
            .to_owned();
    }
    let mut out = format!(
        "{} check{} found:\n",
        checks.len(),
        if checks.len() == 1 { "" } else { "s" }
    );
    for c in checks {
        out.push_str(&format!(
            "\n  {}\n    in:   {}\n    run:  {}\n    why:  {}\n",
            c.name,
            c.dir,
            c.command_line(),
            c.why
        ));
    }
    out
}
