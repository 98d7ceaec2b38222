//! What one run of a check established: [`CheckRun`], the facts every record of a check's run
//! starts with.
//!
//! A check's run is recorded in three places: the runner's result (the baseline, the seal's
//! state, `--json`), the `check.result` event, and the receipt's `checks[]`. The first two embed
//! this type with `#[serde(flatten)]`, as their first field, so both write the keys they always
//! wrote, in the same order: `name, kind, cmd, result, executed, passed, failed, skipped`, then
//! each record's own (the runner's failing ids, log and attempts; the event's stage and role).
//! What ran the check is the type parameter: a runner ([`CheckKind`]) in the runner's result,
//! a [`crate::CheckOrigin`] in the event log, where the linters and a crash's reproduction file
//! checks too.
//!
//! The receipt does not embed it: its `checks[]` entry names the role the check played
//! ([`crate::CheckRole`]), spells the status in the receipt's words ([`crate::check::receipt_words`])
//! and is read strictly by `loki verify`, whose errors point at the byte that is wrong; a
//! flattened field is read through a buffered map and its errors lose that position. It is built
//! from the event's facts in one place (`loki_receipt::schema::Check::of_event`) and keeps the
//! same rule for what proves something ([`CheckRun::proves`]).
//!
//! Flattening has serde read the record through a buffered map: fine for JSON, the only format
//! these records are written in (a format that does not describe itself could not read them back).

use serde::{Deserialize, Serialize};

use crate::{CheckKind, CheckStatus};

/// The facts of one run of a check; `K` says what ran it (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRun<K = CheckKind> {
    pub name: String,
    /// What ran it: the runner, or (in the event log) `lint` or `repro`.
    pub kind: K,
    /// The check's command line (without the temporary report flags, which the log shows).
    pub cmd: String,
    /// How it ended, in the checks' words (`pass`, `fail`, `not_run`, `flaky`, `timeout`).
    pub result: CheckStatus,
    pub executed: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl<K> CheckRun<K> {
    /// The same facts with what ran the check said another way (a runner's [`CheckKind`] as the
    /// event's [`crate::CheckOrigin`]).
    #[must_use]
    pub fn map_kind<L>(self, f: impl FnOnce(K) -> L) -> CheckRun<L> {
        CheckRun {
            name: self.name,
            kind: f(self.kind),
            cmd: self.cmd,
            result: self.result,
            executed: self.executed,
            passed: self.passed,
            failed: self.failed,
            skipped: self.skipped,
        }
    }

    /// No silent pass: a run proves something only when it passed, ran more than zero tests and
    /// none failed.
    #[must_use]
    pub fn proves(&self) -> bool {
        self.result == CheckStatus::Pass && self.executed > 0 && self.failed == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckOrigin;

    fn run() -> CheckRun {
        CheckRun {
            name: "pytest".into(),
            kind: CheckKind::Pytest,
            cmd: "python -m pytest".into(),
            result: CheckStatus::Pass,
            executed: 3,
            passed: 3,
            failed: 0,
            skipped: 0,
        }
    }

    #[test]
    fn the_facts_keep_their_order_and_read_back() {
        let json = serde_json::to_string(&run()).unwrap();
        assert_eq!(
            json,
            r#"{"name":"pytest","kind":"pytest","cmd":"python -m pytest","result":"pass","executed":3,"passed":3,"failed":0,"skipped":0}"#
        );
        assert_eq!(serde_json::from_str::<CheckRun>(&json).unwrap(), run());
        let origin = run().map_kind(CheckOrigin::Runner);
        assert_eq!(serde_json::to_string(&origin).unwrap(), json);
    }

    #[test]
    fn only_a_pass_that_ran_tests_and_failed_none_proves_anything() {
        assert!(run().proves());
        let none_ran = CheckRun {
            executed: 0,
            passed: 0,
            ..run()
        };
        let failed = CheckRun {
            result: CheckStatus::Fail,
            failed: 1,
            ..run()
        };
        let flaky = CheckRun {
            result: CheckStatus::Flaky,
            ..run()
        };
        assert!(!none_ran.proves() && !failed.proves() && !flaky.proves());
    }
}
