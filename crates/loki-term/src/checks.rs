//! `loki checks run` (and the suites' lines of `loki seal check` and `loki ci judge`).
//!
//! One line per check: its status (`PASS` green, `FAIL` and `TIMEOUT` red, `FLAKY` and `NOT RUN`
//! yellow), its name, the counts executed, passed, failed and skipped, and the time it took,
//! then ` — <reason>` when it has one; under it the first 20 failing test ids, and
//! `… and <n> more` past them.

use std::fmt::Write as _;

use loki_protocol::CheckStatus;
use loki_runner::CheckResult;

use crate::style::{GREEN, RED, YELLOW, paint};

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
