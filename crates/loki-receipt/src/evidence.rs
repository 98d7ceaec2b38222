//! How the facts of `loki-checks` and `loki-lint` are recorded in a receipt.
//!
//! The receipt is built from those facts, so it knows their types; they do not know the receipt.
//! One mapping per fact, used by every producer (the build engine, the seal hook):
//! - a suite's [`loki_checks::CheckResult`] → [`Check`] with the role it played (`tests`, `wall`,
//!   `impacted`, …) as its kind ([`Check::of_suite`]);
//! - a [`loki_lint::LintRun`] → [`Check`] of kind `lint` whose counts are files
//!   ([`loki_lint::LintRun::counts`]);
//! - the status is the one [`loki_protocol::CheckStatus`]; the receipt writes it in its own words
//!   (`passed`, `timed_out`) through [`loki_protocol::check::receipt_words`];
//! - an integrity finding maps through `loki-findings` (its event payload is the receipt entry);
//! - a judge [`loki_checks::judge::Fact`] → [`JudgeFact`] about one test.

use crate::schema::{Check, JudgeFact};

impl Check {
    /// A suite's result as the receipt records it; `role` is its kind there (`tests`, `wall`, …).
    #[must_use]
    pub fn of_suite(r: &loki_checks::CheckResult, role: &str) -> Check {
        Check {
            name: r.name.clone(),
            kind: role.to_string(),
            cmd: r.cmd.clone(),
            result: r.result,
            executed: r.executed,
            passed: r.passed,
            failed: r.failed,
            skipped: r.skipped,
            duration_s: r.duration_s,
            log_sha256: r.log_sha256.clone(),
        }
    }
}

impl From<&loki_lint::LintRun> for Check {
    fn from(r: &loki_lint::LintRun) -> Self {
        let counts = r.counts();
        Check {
            name: r.name.clone(),
            kind: "lint".to_owned(),
            cmd: r.cmd.clone(),
            result: r.result,
            executed: counts.executed,
            passed: counts.passed,
            failed: counts.failed,
            skipped: 0,
            duration_s: r.duration_s,
            log_sha256: r.log_sha256.clone(),
        }
    }
}

impl From<&loki_checks::judge::Fact> for JudgeFact {
    fn from(f: &loki_checks::judge::Fact) -> Self {
        JudgeFact {
            kind: f.kind.as_str().to_owned(),
            test: Some(f.test.clone()),
            path: None,
            detail: f.detail.clone(),
        }
    }
}
