//! What an integrity rule reports: a [`Finding`] of a [`FindingKind`] at a path (and line, and
//! test).
//!
//! # Invariants
//! - [`FindingKind`]'s serialised names ([`FindingKind::as_str`], serde `snake_case`) are a
//!   stable contract: receipts, hooks and the `integrity.finding` event carry them.
//! - A [`Finding`] orders by kind, then path, line, test and detail, so a sorted,
//!   de-duplicated list is the same whatever order the rules ran in.
//!
//! The rules live in `loki-integrity`, one module per rule class (`ci`, `config`, `rules`), and
//! its scan runs them all; the judge (`loki_checks::judge`) adds the dynamic kinds.

use serde::{Deserialize, Serialize};

/// Which rule a finding comes from. The serialised names are a stable contract (receipts, hooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    // Static rules over the change (`loki-integrity`).
    TestFileRemoved,
    FewerTests,
    FewerAssertions,
    SkipMarkerAdded,
    /// A test now expects to fail or panic (`#[should_panic]`, `xfail`, `test.failing`, ...).
    FailureExpected,
    TestConfigChanged,
    CiDeleted,
    CiWeakened,
    OutcomeRewrite,
    /// Code the runner loads takes over the run or its exit (`TestMain` without `m.Run()`,
    /// `os._exit`, `atexit`, `process.exit` in test-loaded code).
    RunTakeover,
    MockOfModuleUnderTest,
    EqOverride,
    /// Source code that behaves differently under a test runner.
    RunnerDetection,
    /// A new source branch keyed on a literal input the tests use.
    TestInputSpecialCase,
    /// A new module that shadows another one the tests import.
    ShadowModule,
    // Dynamic rules: facts from running the tests (see `loki_checks::judge`).
    /// A test was rewritten so that it accepts the old behaviour: its original form fails on the
    /// new code and its new form passes on the base code.
    WeakenedTest,
    /// A test that passed at base fails now.
    NewlyFailing,
    /// A test that did not exist at base fails now.
    NewTestFailing,
    /// A test that ran at base is gone and nothing accounts for it.
    TestDeleted,
    /// A test that ran at base is skipped now.
    NewlySkipped,
    /// A suite that ran at base cannot run now.
    SuiteBroken,
    /// A test that newly passes gives another result when run alone, again, or in another
    /// order: the code's answer depends on what ran before (a counter, a seeded cache, state
    /// shared between tests), not on its input.
    OrderDependent,
    /// What an existing test expects changed, where the repository refuses such changes
    /// (`seal.expectation_changes = "refuse"`).
    ExpectationChanged,
    // Findings of the build and deep runs, which the seal rules do not produce.
    /// The agent edited a sealed acceptance (wall) test; it was restored from the sealed copy.
    RevertedWallEdit,
    /// A secret (a key, a token) in the change, found by `loki deep`'s scan.
    Secret,
}

impl FindingKind {
    /// The serialised name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::TestFileRemoved => "test_file_removed",
            FindingKind::FewerTests => "fewer_tests",
            FindingKind::FewerAssertions => "fewer_assertions",
            FindingKind::SkipMarkerAdded => "skip_marker_added",
            FindingKind::FailureExpected => "failure_expected",
            FindingKind::TestConfigChanged => "test_config_changed",
            FindingKind::CiDeleted => "ci_deleted",
            FindingKind::CiWeakened => "ci_weakened",
            FindingKind::OutcomeRewrite => "outcome_rewrite",
            FindingKind::RunTakeover => "run_takeover",
            FindingKind::MockOfModuleUnderTest => "mock_of_module_under_test",
            FindingKind::EqOverride => "eq_override",
            FindingKind::RunnerDetection => "runner_detection",
            FindingKind::TestInputSpecialCase => "test_input_special_case",
            FindingKind::ShadowModule => "shadow_module",
            FindingKind::WeakenedTest => "weakened_test",
            FindingKind::NewlyFailing => "newly_failing",
            FindingKind::NewTestFailing => "new_test_failing",
            FindingKind::TestDeleted => "test_deleted",
            FindingKind::NewlySkipped => "newly_skipped",
            FindingKind::SuiteBroken => "suite_broken",
            FindingKind::OrderDependent => "order_dependent",
            FindingKind::ExpectationChanged => "expectation_changed",
            FindingKind::RevertedWallEdit => "reverted_wall_edit",
            FindingKind::Secret => "secret",
        }
    }

    /// What the agent should do instead, in one sentence (shown with every finding).
    #[must_use]
    pub fn advice(self) -> &'static str {
        match self {
            FindingKind::TestFileRemoved | FindingKind::FewerTests | FindingKind::TestDeleted => {
                "restore the deleted tests and fix the code they test"
            }
            FindingKind::FewerAssertions | FindingKind::WeakenedTest => {
                "restore the test's original expectations and fix the code until they hold"
            }
            FindingKind::SkipMarkerAdded | FindingKind::NewlySkipped => {
                "remove the skip and fix the code so the test passes"
            }
            FindingKind::FailureExpected => {
                "remove the expected-failure marker and fix the code so the test passes as written"
            }
            FindingKind::TestConfigChanged => {
                "revert the test configuration change; fix the code, not how tests are collected or run"
            }
            FindingKind::CiDeleted | FindingKind::CiWeakened => {
                "restore the CI test steps so they run and can fail"
            }
            FindingKind::OutcomeRewrite | FindingKind::RunTakeover => {
                "remove the code that changes how tests report or exit; let the runner decide"
            }
            FindingKind::MockOfModuleUnderTest => {
                "test the real module: remove the mock of the code this change edits"
            }
            FindingKind::EqOverride => {
                "remove the equality override; compare the values the test checks"
            }
            FindingKind::RunnerDetection => {
                "remove the code that detects the test runner; the code must behave the same under test"
            }
            FindingKind::TestInputSpecialCase => {
                "remove the special case for the test's input and fix the general logic"
            }
            FindingKind::ShadowModule => {
                "remove the module that shadows the real one; fix the real module"
            }
            FindingKind::NewlyFailing | FindingKind::NewTestFailing | FindingKind::SuiteBroken => {
                "fix the code so the tests pass again"
            }
            FindingKind::OrderDependent => {
                "make the answer depend on the input alone: no call counters, no caches seeded with answers, no state carried from one test to the next"
            }
            FindingKind::ExpectationChanged => {
                "restore the test's expectation and fix the code: this repository refuses changes to what tests expect (seal.expectation_changes = \"refuse\")"
            }
            FindingKind::RevertedWallEdit => {
                "change the code so the sealed acceptance test passes as written"
            }
            FindingKind::Secret => "remove the secret from the change and rotate it",
        }
    }
}

/// One integrity finding: the receipt's `integrity[]` entry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FindingKind,
    /// Repository-relative path with `/` separators.
    pub path: String,
    /// 1-based line in `path`, when the finding points at one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The test id (as the runner reports it) the finding is about, when it is about one test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The evidence, in words, with counts where there are any.
    pub detail: String,
}

impl Finding {
    #[must_use]
    pub fn new(kind: FindingKind, path: &str, detail: impl Into<String>) -> Finding {
        Finding {
            kind,
            path: path.to_owned(),
            line: None,
            test: None,
            detail: detail.into(),
        }
    }

    /// The same finding pointing at a line.
    #[must_use]
    pub fn at_line(mut self, line: u32) -> Finding {
        self.line = Some(line);
        self
    }

    /// The same finding about one test.
    #[must_use]
    pub fn for_test(mut self, id: impl Into<String>) -> Finding {
        self.test = Some(id.into());
        self
    }

    /// What the agent should do instead.
    #[must_use]
    pub fn advice(&self) -> &'static str {
        self.kind.advice()
    }

    /// `kind path:line (test): detail`, as block messages and summaries print it.
    #[must_use]
    pub fn describe(&self) -> String {
        let line = self.line.map(|n| format!(":{n}")).unwrap_or_default();
        let test = self
            .test
            .as_ref()
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        format!(
            "{} {}{line}{test}: {}",
            self.kind.as_str(),
            self.path,
            self.detail
        )
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}
