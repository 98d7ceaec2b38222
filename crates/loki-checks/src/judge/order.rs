//! Answers must not depend on order or repetition. Every test that newly passes (it failed at
//! base, or could not report there, and passes at head) is run again at head:
//! - **alone, in a fresh process**, by name (pytest's node id, `cargo test -- --exact`, go's
//!   `-run '^(TestX)$'`, vitest's and jest's `-t`, node's `--test-name-pattern`), and where the
//!   runner repeats tests in one process (pytest's `--loki-repeat`, go's `-count`), **twice in a
//!   row**: a counter, a seen-set or a first-call flag answers the second time differently;
//! - for pytest, **after its neighbours in reverse order** (its file, `--loki-reverse`): a test
//!   that passes only because another ran first leans on what that one left behind.
//!
//! A test that fails in any of these runs and fails again when that run is repeated is an
//! `order_dependent` finding naming both runs; one that fails once and then passes is flaky (not
//! proven). A run that could not say (the test did not report) is not proven. At most
//! [`MAX_TESTS`] tests are checked per judgement; the others are named in NOT PROVEN.

use std::collections::BTreeMap;

use super::JudgeInput;
use super::matrix::{self, Probe, Runs};
use loki_protocol::CheckKind;
use loki_protocol::{Finding, FindingKind};
use loki_runner::ChecksError;
use loki_runner::TestStatus;
use loki_runner::exec::{CheckResult, RunOptions, run_check};
use loki_runner::select::{Selection, narrowed, repeats_in_one_run, reverses};

/// Newly passing tests checked per judgement: a feature's new tests can be many, the tests a
/// cheat targets are few, and each check is a process start.
pub const MAX_TESTS: usize = 12;

/// What the order checks found.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub results: Vec<CheckResult>,
    pub findings: Vec<Finding>,
    pub not_proven: Vec<String>,
}

/// The tests that newly pass: `(check, head id)`.
pub(super) fn newly_passing(
    kinds: &BTreeMap<String, CheckKind>,
    base: &[CheckResult],
    head: &[CheckResult],
) -> Vec<(String, String)> {
    let base_runs = Runs::new(base);
    matrix::items(kinds, base, head)
        .into_iter()
        .filter(|it| it.head == Some(TestStatus::Passed))
        .filter(|it| {
            let kind = super::identity::kind_of(kinds, &it.check);
            !loki_runner::ids::is_group_mark(kind, it.id())
                && match it.base {
                    Some(TestStatus::Failed) => true,
                    None => matches!(
                        base_runs.probe(&it.check, kind, it.id()),
                        Probe::GroupFailed | Probe::Unknown
                    ),
                    _ => false,
                }
        })
        .map(|it| (it.check.clone(), it.id().to_owned()))
        .collect()
}

/// One way of running a test again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Alone in a fresh process (twice in a row where the runner repeats).
    Alone,
    /// After its file's other tests, in reverse order.
    Reversed,
}

impl Way {
    fn describe(self, kind: CheckKind) -> &'static str {
        match (self, repeats_in_one_run(kind)) {
            (Way::Alone, true) => "alone, twice in a row in one fresh process",
            (Way::Alone, false) => "alone in a fresh process",
            (Way::Reversed, _) => "after the other tests of its file, in reverse order",
        }
    }

    fn selection(self, kind: CheckKind, id: &str) -> Option<Selection> {
        match self {
            Way::Alone => {
                let sel = Selection::tests([id.to_owned()]).exact();
                Some(if repeats_in_one_run(kind) {
                    sel.repeated(2)
                } else {
                    sel
                })
            }
            Way::Reversed if reverses(kind) => {
                let file = loki_runner::ids::home(kind, id);
                Some(Selection::files([file.to_owned()]).reversed())
            }
            Way::Reversed => None,
        }
    }
}

/// Runs the order checks (see the module doc).
pub(super) fn check(
    input: &JudgeInput<'_>,
    kinds: &BTreeMap<String, CheckKind>,
    candidates: &[(String, String)],
) -> Result<Outcome, ChecksError> {
    let mut out = Outcome::default();
    if candidates.len() > MAX_TESTS {
        out.not_proven.push(format!(
            "order independence of {} newly passing tests: only the first {MAX_TESTS} were run alone and in another order",
            candidates.len()
        ));
    }
    let opts = RunOptions {
        rerun_failed: false,
        log_dir: input.opts.log_dir.join("order"),
        ..input.opts.clone()
    };
    for (check, id) in candidates.iter().take(MAX_TESTS) {
        let Some(c) = input.checks.iter().find(|c| c.name == *check) else {
            continue;
        };
        let kind = super::identity::kind_of(kinds, check);
        for way in [Way::Alone, Way::Reversed] {
            let Some(sel) = way.selection(kind, id) else {
                continue;
            };
            let at_root = c.at_root(input.head_root);
            let Some(to_run) = narrowed(&at_root, input.head_root, &sel) else {
                out.not_proven.push(format!(
                    "{check}: whether {id} passes {}: the test command cannot be narrowed to it",
                    way.describe(kind)
                ));
                continue;
            };
            let first = run_check(&to_run, &opts)?;
            let probe = Runs::new(std::slice::from_ref(&first)).probe(check, kind, id);
            let verdict = match probe {
                Probe::Passed => None,
                Probe::Failed => {
                    // A failure the same run does not repeat is flakiness, not order.
                    let again = run_check(&to_run, &opts)?;
                    let repeat = Runs::new(std::slice::from_ref(&again)).probe(check, kind, id);
                    out.results.push(again);
                    Some(repeat == Probe::Failed)
                }
                _ => {
                    out.not_proven.push(format!(
                        "{check}: whether {id} passes {}: it did not report in that run",
                        way.describe(kind)
                    ));
                    None
                }
            };
            let log = first.log_path.display().to_string();
            out.results.push(first);
            match verdict {
                Some(true) => {
                    out.findings.push(
                        Finding::new(
                            FindingKind::OrderDependent,
                            check,
                            format!(
                                "{id} passes in the suite's run at head but fails when run {} (twice; log {log}): its answer depends on what ran before it or on how often it was called",
                                way.describe(kind)
                            ),
                        )
                        .for_test(id.clone()),
                    );
                    break;
                }
                Some(false) => out.not_proven.push(format!(
                    "{check}: {id} failed once when run {} and passed when that run was repeated: flaky",
                    way.describe(kind)
                )),
                None => {}
            }
        }
    }
    Ok(out)
}
