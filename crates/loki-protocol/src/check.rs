//! How one check ended: [`CheckStatus`], and its two wire spellings.
//!
//! The checks' words are the type's own serde form: `pass`, `fail`, `not_run`, `flaky`,
//! `timeout`, `unparseable` (the runner's results, the `check.result` event, the baseline,
//! `--json`). The receipt keeps the words it was first signed with — `passed`, `failed`, `flaky`,
//! `not_run`, `timed_out`, `unparseable` — through `#[serde(with = "receipt_words")]` on its field
//! ([`receipt_words`]): a receipt's bytes are signed, so its spelling never changes.

use serde::{Deserialize, Serialize};

/// Which runner a check uses; it decides the command, the structured report and the parsers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    Cargo,
    Nextest,
    Pytest,
    Vitest,
    Jest,
    Node,
    Npm,
    Go,
    /// Maven (`mvn test`): JUnit 5 through Surefire, one JUnit XML report per test class.
    Maven,
}

impl CheckKind {
    /// The word used in check names, logs and receipts.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Cargo => "cargo",
            CheckKind::Nextest => "nextest",
            CheckKind::Pytest => "pytest",
            CheckKind::Vitest => "vitest",
            CheckKind::Jest => "jest",
            CheckKind::Node => "node",
            CheckKind::Npm => "npm",
            CheckKind::Go => "go",
            CheckKind::Maven => "maven",
        }
    }
}

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Fail,
    /// It never ran (the tool is missing, the machine refused, nothing was selected).
    NotRun,
    /// Failed, then passed on a rerun: not a pass.
    Flaky,
    Timeout,
    /// The runner's output could not be parsed into test counts. The runner itself reports such a
    /// run as a failure with a reason; older receipts may carry this word.
    Unparseable,
}

impl CheckStatus {
    /// The checks' word, as serialised (`pass`, `not_run`, `timeout`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::NotRun => "not_run",
            CheckStatus::Flaky => "flaky",
            CheckStatus::Timeout => "timeout",
            CheckStatus::Unparseable => "unparseable",
        }
    }

    /// The receipt's word, as a receipt serialises it (`passed`, `not_run`, `timed_out`).
    #[must_use]
    pub fn receipt_word(self) -> &'static str {
        receipt_words::Word::from(self).as_str()
    }

    /// The word as printed in receipts and messages (`not run`, `timed out`).
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            CheckStatus::Pass => "passed",
            CheckStatus::Fail => "failed",
            CheckStatus::Flaky => "flaky",
            CheckStatus::NotRun => "not run",
            CheckStatus::Timeout => "timed out",
            CheckStatus::Unparseable => "unparseable output",
        }
    }
}

/// The receipt's spelling of a [`CheckStatus`], for `#[serde(with = "…")]`.
///
/// A private mirror enum carries the receipt's words, so serialising writes exactly what the
/// receipt's own enum wrote and reading rejects anything else with the same message.
pub mod receipt_words {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::CheckStatus;

    #[derive(Debug, Clone, Copy, Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    pub(super) enum Word {
        Passed,
        Failed,
        Flaky,
        NotRun,
        TimedOut,
        Unparseable,
    }

    impl Word {
        pub(super) fn as_str(self) -> &'static str {
            match self {
                Word::Passed => "passed",
                Word::Failed => "failed",
                Word::Flaky => "flaky",
                Word::NotRun => "not_run",
                Word::TimedOut => "timed_out",
                Word::Unparseable => "unparseable",
            }
        }
    }

    impl From<CheckStatus> for Word {
        fn from(s: CheckStatus) -> Self {
            match s {
                CheckStatus::Pass => Word::Passed,
                CheckStatus::Fail => Word::Failed,
                CheckStatus::Flaky => Word::Flaky,
                CheckStatus::NotRun => Word::NotRun,
                CheckStatus::Timeout => Word::TimedOut,
                CheckStatus::Unparseable => Word::Unparseable,
            }
        }
    }

    impl From<Word> for CheckStatus {
        fn from(w: Word) -> Self {
            match w {
                Word::Passed => CheckStatus::Pass,
                Word::Failed => CheckStatus::Fail,
                Word::Flaky => CheckStatus::Flaky,
                Word::NotRun => CheckStatus::NotRun,
                Word::TimedOut => CheckStatus::Timeout,
                Word::Unparseable => CheckStatus::Unparseable,
            }
        }
    }

    /// Writes the receipt's word.
    ///
    /// # Errors
    /// Those of the serializer.
    pub fn serialize<S: Serializer>(s: &CheckStatus, ser: S) -> Result<S::Ok, S::Error> {
        Word::from(*s).serialize(ser)
    }

    /// Reads the receipt's word; any other word (the checks' `pass` included) is an error.
    ///
    /// # Errors
    /// An unknown word, with the receipt's variants listed.
    pub fn deserialize<'de, D: Deserializer<'de>>(de: D) -> Result<CheckStatus, D::Error> {
        Word::deserialize(de).map(CheckStatus::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [CheckStatus; 6] = [
        CheckStatus::Pass,
        CheckStatus::Fail,
        CheckStatus::NotRun,
        CheckStatus::Flaky,
        CheckStatus::Timeout,
        CheckStatus::Unparseable,
    ];

    #[derive(Serialize, Deserialize)]
    struct InReceipt {
        #[serde(with = "receipt_words")]
        result: CheckStatus,
    }

    #[test]
    fn each_place_keeps_its_spelling_and_reads_back_what_it_wrote() {
        let checks: Vec<String> = ALL
            .iter()
            .map(|s| serde_json::to_string(s).unwrap())
            .collect();
        assert_eq!(
            checks,
            [
                "\"pass\"",
                "\"fail\"",
                "\"not_run\"",
                "\"flaky\"",
                "\"timeout\"",
                "\"unparseable\""
            ]
        );
        let receipt: Vec<String> = ALL
            .iter()
            .map(|&result| serde_json::to_string(&InReceipt { result }).unwrap())
            .collect();
        assert_eq!(
            receipt,
            [
                r#"{"result":"passed"}"#,
                r#"{"result":"failed"}"#,
                r#"{"result":"not_run"}"#,
                r#"{"result":"flaky"}"#,
                r#"{"result":"timed_out"}"#,
                r#"{"result":"unparseable"}"#
            ]
        );
        for s in ALL {
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
            assert_eq!(
                serde_json::to_string(&InReceipt { result: s }).unwrap(),
                format!(r#"{{"result":"{}"}}"#, s.receipt_word())
            );
            let back: InReceipt =
                serde_json::from_str(&serde_json::to_string(&InReceipt { result: s }).unwrap())
                    .unwrap();
            assert_eq!(back.result, s);
        }
    }

    #[test]
    fn a_receipt_does_not_read_the_checks_words() {
        let err = serde_json::from_str::<InReceipt>(r#"{"result":"pass"}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("unknown variant `pass`"), "{err}");
        assert!(err.contains("`timed_out`"), "{err}");
    }
}
