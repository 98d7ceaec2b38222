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
    /// Every runner, in declaration order.
    pub const ALL: [CheckKind; 9] = [
        CheckKind::Cargo,
        CheckKind::Nextest,
        CheckKind::Pytest,
        CheckKind::Vitest,
        CheckKind::Jest,
        CheckKind::Node,
        CheckKind::Npm,
        CheckKind::Go,
        CheckKind::Maven,
    ];

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

/// The part a check played in a run: the receipt's `checks[].kind` and the `role` of a
/// `check.result` event. One word per part, as receipts have always spelled it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckRole {
    /// The repository's own test suite (a build's verify stage, a seal judgement, `deep`).
    Tests,
    /// The sealed acceptance tests written from the contract (the gate and verify stages).
    Wall,
    /// The linters on the lines the change touched.
    Lint,
    /// A crash's reproduction (`loki fix`'s verifying replay).
    Repro,
    /// Building and starting the program to see it come up (`loki deep`).
    Boot,
    /// The scan of the change's added lines for secrets (`loki deep`).
    Secrets,
    /// Recorded cases replayed to score a proposed change to the agent's instructions
    /// (`loki improve`).
    Replay,
}

impl CheckRole {
    /// The role's word (`wall`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckRole::Tests => "tests",
            CheckRole::Wall => "wall",
            CheckRole::Lint => "lint",
            CheckRole::Repro => "repro",
            CheckRole::Boot => "boot",
            CheckRole::Secrets => "secrets",
            CheckRole::Replay => "replay",
        }
    }
}

/// What ran a check: a test runner, the linters, or a crash's reproduction (the `kind` of a
/// `check.result` event). On the wire it is one word: the runner's ([`CheckKind::as_str`]),
/// `lint` or `repro`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum CheckOrigin {
    Runner(CheckKind),
    Lint,
    Repro,
}

impl CheckOrigin {
    /// The origin's word (`pytest`, `lint`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckOrigin::Runner(k) => k.as_str(),
            CheckOrigin::Lint => "lint",
            CheckOrigin::Repro => "repro",
        }
    }
}

impl From<CheckOrigin> for &'static str {
    fn from(o: CheckOrigin) -> Self {
        o.as_str()
    }
}

/// A word that names no runner, nor `lint`, nor `repro`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownOrigin(pub String);

impl std::fmt::Display for UnknownOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown check origin `{}`: expected a runner (cargo, nextest, pytest, vitest, jest, node, npm, go, maven), lint or repro",
            self.0
        )
    }
}

impl TryFrom<String> for CheckOrigin {
    type Error = UnknownOrigin;

    fn try_from(word: String) -> Result<Self, Self::Error> {
        match word.as_str() {
            "lint" => return Ok(CheckOrigin::Lint),
            "repro" => return Ok(CheckOrigin::Repro),
            _ => {}
        }
        CheckKind::ALL
            .into_iter()
            .find(|k| k.as_str() == word)
            .map(CheckOrigin::Runner)
            .ok_or(UnknownOrigin(word))
    }
}

// `pad`, not `write_str`: terminal tables align these words in columns.
impl std::fmt::Display for CheckRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

impl std::fmt::Display for CheckOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
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

    #[test]
    fn a_check_origin_is_one_word_and_reads_back_every_runner_lint_and_repro() {
        let origins = CheckKind::ALL
            .into_iter()
            .map(CheckOrigin::Runner)
            .chain([CheckOrigin::Lint, CheckOrigin::Repro]);
        for o in origins {
            let json = serde_json::to_string(&o).unwrap();
            assert_eq!(json, format!("\"{}\"", o.as_str()));
            assert_eq!(serde_json::from_str::<CheckOrigin>(&json).unwrap(), o);
        }
        let err = serde_json::from_str::<CheckOrigin>("\"tests\"").unwrap_err();
        assert!(
            err.to_string().contains("unknown check origin `tests`"),
            "{err}"
        );
    }

    #[test]
    fn a_check_role_is_the_word_receipts_carry() {
        for (role, word) in [
            (CheckRole::Tests, "tests"),
            (CheckRole::Wall, "wall"),
            (CheckRole::Lint, "lint"),
            (CheckRole::Repro, "repro"),
            (CheckRole::Boot, "boot"),
            (CheckRole::Secrets, "secrets"),
            (CheckRole::Replay, "replay"),
        ] {
            assert_eq!(role.as_str(), word);
            assert_eq!(serde_json::to_string(&role).unwrap(), format!("\"{word}\""));
        }
    }

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
