//! The judge's decision, from the four runs: pure, so every rule has a test.
//!
//! Inputs per check: the results at base (B) and head (H), and — when the change touched the
//! check's test-owned files — the original tests on the new code (O) and the new tests on the
//! old code (N). Tests are matched across B and H by identity ([`super::identity`]). For each test:
//!
//! | B | H | rule |
//! |---|---|---|
//! | passed or skipped | failed | `newly_failing` (after a rerun on the base: a test that fails there too is flaky, not the change's fault) |
//! | failed | failed | pre-existing failure, not a finding |
//! | absent | failed | `new_test_failing` |
//! | passed or failed | skipped | `newly_skipped` |
//! | passed, skipped | passed | when O ran it and it does not pass there, the edit to the test was needed for it to pass: N passes → `weakened_test` (the new form accepts the old behaviour), N fails → `expectation_changed`, to declare (a behaviour change intent must name); N could not run it → cannot judge |
//! | failed, or could not report (its group failed) | passed | when O ran it and it does not pass there: `weakened_test` without N (no behaviour it checked existed to be changed: the edit moved the target instead of the code meeting it) |
//! | passed or failed | absent | O passes → accounted for (a move, a split, a table), unless the check runs fewer tests than at base; O fails → `test_deleted` (its original fails on the new code; the judge turns it into a removal to declare when the code it calls was removed too, [`super::declare`]); not in O → `test_deleted` (it no longer runs) |
//!
//! A group that failed as a whole is marked by a synthetic failed test, not a test of its own
//! ([`is_group_mark`](loki_runner::ids::is_group_mark): a pytest file that could not be
//! collected, a Go package that did not build or crashed, a JS file that could not run, a cargo
//! test binary that ended mid-run or a cargo test target that did not compile). A mark at base that is gone at head is a fix (the file collects
//! now, the package builds), never a deleted test; a mark only at head is `new_test_failing` (a
//! crashed cargo binary: `newly_failing`, named by the binary), and the tests of its group that
//! no longer report are not deleted (not proven). A run with nothing but marks reported no test. The test that crashed a cargo binary, when the runtime named it, failed; the
//! binary's other tests that did not report are unknown in that run ([`Probe::Unknown`]): an extra
//! run that could not tell is not proven. A test skipped now that could not report at base because
//! its group failed or crashed is `newly_skipped` (skipping the test that crashes the binary is how
//! the crash goes away).
//!
//! "O does not pass" includes a test O could not load at all: its file, package or binary failed
//! as a whole ([`Probe::GroupFailed`]). A suite that proved something at base (it passed, or its
//! tests reported) and reports no test at head (it cannot run, build or finish) is one
//! `suite_broken`, and its tests get no per-test findings. Which tests count as O's is decided by the caller: O runs only the
//! test-owned files the change modified or deleted, so a test O did not run kept its form.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use loki_protocol::CheckStatus;
use serde::{Deserialize, Serialize};

use super::identity::pair;
use crate::baseline::statuses;
use loki_protocol::CheckKind;
use loki_protocol::{Finding, FindingKind};
use loki_runner::TestStatus;
use loki_runner::exec::CheckResult;
use loki_runner::ids::{group, is_group_mark};
use loki_runner::reports::cargo::{CRASHED, NOT_COMPILED};

mod decide;
pub use decide::decide;

// The fact's kind is vocabulary: the receipt records it, so it lives with the other words.
pub use loki_protocol::FactKind;

/// One fact.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Fact {
    pub kind: FactKind,
    pub check: String,
    pub test: String,
    pub detail: String,
}

/// A test seen on both sides, on one, or matched across a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub check: String,
    pub base_id: Option<String>,
    pub head_id: Option<String>,
    pub base: Option<TestStatus>,
    pub head: Option<TestStatus>,
}

impl Item {
    /// The id to name the test by: its head id, else its base id.
    #[must_use]
    pub fn id(&self) -> &str {
        self.head_id
            .as_deref()
            .or(self.base_id.as_deref())
            .unwrap_or("")
    }
}

/// Every test of every check, base and head matched by identity.
#[must_use]
pub fn items<'a>(
    kinds: &BTreeMap<String, CheckKind>,
    base: &'a [CheckResult],
    head: &'a [CheckResult],
) -> Vec<Item> {
    let mut names: BTreeSet<&str> = base.iter().map(|r| r.run.name.as_str()).collect();
    names.extend(head.iter().map(|r| r.run.name.as_str()));
    let mut out = Vec::new();
    for name in names {
        let kind = super::identity::kind_of(kinds, name);
        let tests = |rs: &'a [CheckResult]| {
            rs.iter()
                .find(|r| r.run.name == name)
                .map(|r| statuses(&r.tests))
                .unwrap_or_default()
        };
        let (b, h) = (tests(base), tests(head));
        // A group's mark is matched by its exact id only, never paired with a test.
        let missing: Vec<&str> = b
            .keys()
            .filter(|id| !h.contains_key(*id) && !is_group_mark(kind, id))
            .copied()
            .collect();
        let new: Vec<&str> = h
            .keys()
            .filter(|id| !b.contains_key(*id) && !is_group_mark(kind, id))
            .copied()
            .collect();
        let pairs = pair(kind, &missing, &new);
        let paired_base: BTreeSet<&str> = pairs.iter().map(|(b, _)| b.as_str()).collect();
        let paired_head: BTreeSet<&str> = pairs.iter().map(|(_, h)| h.as_str()).collect();
        for (id, st) in &b {
            if paired_base.contains(id) {
                continue;
            }
            out.push(Item {
                check: name.to_owned(),
                base_id: Some((*id).to_owned()),
                head_id: h.contains_key(id).then(|| (*id).to_owned()),
                base: Some(*st),
                head: h.get(id).copied(),
            });
        }
        for (id, st) in &h {
            if b.contains_key(id) || paired_head.contains(id) {
                continue;
            }
            out.push(Item {
                check: name.to_owned(),
                base_id: None,
                head_id: Some((*id).to_owned()),
                base: None,
                head: Some(*st),
            });
        }
        for (bid, hid) in pairs {
            out.push(Item {
                check: name.to_owned(),
                base: b.get(bid.as_str()).copied(),
                head: h.get(hid.as_str()).copied(),
                base_id: Some(bid),
                head_id: Some(hid),
            });
        }
    }
    out.sort_by(|a, b| (a.check.as_str(), a.id()).cmp(&(b.check.as_str(), b.id())));
    out
}

/// How a test fared in an extra run (O or N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    Passed,
    Failed,
    Skipped,
    /// Not reported, but its file, package or binary failed as a whole (it could not load).
    GroupFailed,
    /// The run covered the test's file, package or binary, and the test was not in it.
    Absent,
    /// The run did not cover the test's group (it was narrowed to other files).
    NotCovered,
    /// Not reported because its test binary crashed before it did: the run cannot tell.
    Unknown,
    /// There was no such run for this check.
    NoRun,
}

/// Looks tests up in one extra run. Each check's tests are indexed on the first lookup, so
/// probing every test of a large suite (a deleted table of thousands of subtests) stays linear.
#[derive(Debug, Clone)]
pub struct Runs<'a> {
    results: &'a [CheckResult],
    index: RefCell<BTreeMap<&'a str, Index<'a>>>,
}

/// One check's tests of one run, by id and by group.
#[derive(Debug, Clone)]
struct Index<'a> {
    kind: CheckKind,
    statuses: BTreeMap<&'a str, TestStatus>,
    /// Test binaries that crashed mid-run (the `<binary>` of `<binary> (binary crashed)`).
    crashed: Vec<&'a str>,
    /// What failed tests name as a whole, their group marks' suffixes taken off.
    failed_wholes: BTreeSet<&'a str>,
    /// The group of every reported test.
    groups: BTreeSet<String>,
    /// Each id's run-independent form ([`super::identity::normalized`]) when exactly one id
    /// has it: a test whose id holds a timestamp or an address is found in another run.
    normalized: BTreeMap<String, Option<&'a str>>,
    /// How many tests (not group marks) reported.
    count: usize,
}

impl<'a> Index<'a> {
    fn new(kind: CheckKind, r: &'a CheckResult) -> Self {
        let mut ix = Index {
            kind,
            statuses: statuses(&r.tests),
            crashed: Vec::new(),
            failed_wholes: BTreeSet::new(),
            groups: BTreeSet::new(),
            normalized: BTreeMap::new(),
            count: 0,
        };
        for id in ix.statuses.keys() {
            ix.normalized
                .entry(super::identity::normalized(id))
                .and_modify(|v| *v = None)
                .or_insert(Some(id));
        }
        // Tests, not tables: a Go test or a JS suite whose rows report as subtests is their
        // container, so a table split into functions (or merged from them) keeps its count.
        let holds = |id: &str| {
            ["/", " > "].iter().any(|sep| {
                let prefix = format!("{id}{sep}");
                ix.statuses
                    .range(prefix.as_str()..)
                    .next()
                    .is_some_and(|(k, _)| k.starts_with(&prefix))
            })
        };
        ix.count = ix
            .statuses
            .keys()
            .filter(|id| !is_group_mark(kind, id) && !holds(id))
            .count();
        for t in &r.tests {
            if let Some(bin) = t.id.strip_suffix(CRASHED) {
                ix.crashed.push(bin);
            }
            if t.status == TestStatus::Failed {
                ix.failed_wholes.insert(
                    t.id.strip_suffix(" (package failed)")
                        .or_else(|| t.id.strip_suffix(" (file failed to run)"))
                        .or_else(|| t.id.strip_suffix(NOT_COMPILED))
                        .unwrap_or(&t.id),
                );
            }
            ix.groups.insert(group(kind, &t.id));
        }
        ix
    }
}

impl<'a> Runs<'a> {
    #[must_use]
    pub fn new(results: &'a [CheckResult]) -> Self {
        Runs {
            results,
            index: RefCell::new(BTreeMap::new()),
        }
    }

    /// `f` of check `check`'s index, built on first use; `None` when this run has no such check.
    fn with_index<T>(
        &self,
        check: &str,
        kind: CheckKind,
        f: impl FnOnce(&CheckResult, &Index<'a>) -> T,
    ) -> Option<T> {
        let r = self.results.iter().find(|r| r.run.name == check)?;
        let mut index = self.index.borrow_mut();
        let ix = index
            .entry(r.run.name.as_str())
            .and_modify(|ix| {
                if ix.kind != kind {
                    *ix = Index::new(kind, r);
                }
            })
            .or_insert_with(|| Index::new(kind, r));
        Some(f(r, ix))
    }

    /// How many tests (not group marks) check `check` reported; 0 without a run.
    #[must_use]
    pub fn count(&self, check: &str, kind: CheckKind) -> usize {
        self.with_index(check, kind, |_, ix| ix.count).unwrap_or(0)
    }

    /// How `id` of check `check` (of `kind`) fared.
    #[must_use]
    pub fn probe(&self, check: &str, kind: CheckKind, id: &str) -> Probe {
        self.with_index(check, kind, |r, ix| Self::probe_in(r, ix, kind, id))
            .unwrap_or(Probe::NoRun)
    }

    fn probe_in(r: &CheckResult, ix: &Index<'_>, kind: CheckKind, id: &str) -> Probe {
        let same = ix.statuses.get(id).or_else(|| {
            ix.normalized
                .get(&super::identity::normalized(id))
                .copied()
                .flatten()
                .and_then(|other| ix.statuses.get(other))
        });
        match same {
            Some(TestStatus::Passed) => return Probe::Passed,
            Some(TestStatus::Failed) => return Probe::Failed,
            Some(TestStatus::Skipped) => return Probe::Skipped,
            None => {}
        }
        if ix.crashed.iter().any(|bin| in_binary(id, bin)) {
            return Probe::Unknown;
        }
        let g = group(kind, id);
        // pytest names a collection error by its file, go a failed package `<pkg> (package
        // failed)`, jest/vitest a file that crashed `<file> (file failed to run)`.
        if ix.failed_wholes.contains(g.as_str()) {
            return Probe::GroupFailed;
        }
        if ix.groups.contains(&g) {
            return Probe::Absent;
        }
        // Nothing ran at all: the run failed before any test (a compile error).
        if r.run.result == CheckStatus::Fail && r.tests.is_empty() {
            return Probe::GroupFailed;
        }
        Probe::NotCovered
    }
}

/// Whether run `r` reported no test, only the marks of groups that failed as a whole.
fn only_marks(kinds: &BTreeMap<String, CheckKind>, r: &CheckResult) -> bool {
    let kind = super::identity::kind_of(kinds, &r.run.name);
    r.tests.iter().all(|t| is_group_mark(kind, &t.id))
}

/// Whether test `id` is one of test binary `bin`'s (`<bin>::…`).
fn in_binary(id: &str, bin: &str) -> bool {
    id.strip_prefix(bin).is_some_and(|r| r.starts_with("::"))
}

/// Everything the decision needs for all checks.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    pub kinds: &'a BTreeMap<String, CheckKind>,
    pub base: &'a [CheckResult],
    pub head: &'a [CheckResult],
    pub original: Runs<'a>,
    pub new_on_base: Runs<'a>,
    /// Checks whose test-owned files the change modified or deleted (O ran for them).
    pub in_original: &'a BTreeSet<String>,
}

/// What the decision found before reruns: findings, facts, tests to rerun on the base (newly
/// failing candidates), tests whose form changed that need N (weakened or behaviour change),
/// and what stayed unproven.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    pub findings: Vec<Finding>,
    pub facts: Vec<Fact>,
    /// (check, base id, head id) that newly fail and must be rerun on the base before blame.
    pub newly_failing: Vec<(String, String, String)>,
    /// (check, head id): tests O says needed their edit, so N must decide.
    pub needs_new_on_base: Vec<(String, String)>,
    pub pre_existing: Vec<String>,
    pub not_proven: Vec<String>,
    /// Integrity questions this decision could not settle, each with the test it is about:
    /// never clean.
    pub open: Vec<(String, super::CannotJudge)>,
}

fn finding(kind: FindingKind, check: &str, id: &str, detail: String) -> Finding {
    Finding::new(kind, check, detail).for_test(id)
}

/// What N said about the tests O said needed their edit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewOnBase {
    pub findings: Vec<Finding>,
    /// Expectation changes to declare (their old and new forms are filled in later,
    /// [`super::declare::describe`]).
    pub declare: Vec<super::declare::Declarable>,
    /// Tests N could not run: whether their edit weakened them stays open.
    pub open: Vec<super::CannotJudge>,
}

/// N's verdict on the tests O said needed their edit.
#[must_use]
pub fn decide_new_on_base(
    kinds: &BTreeMap<String, CheckKind>,
    suspects: &[(String, String)],
    new_on_base: &Runs<'_>,
) -> NewOnBase {
    let mut out = NewOnBase::default();
    for (check, id) in suspects {
        let kind = super::identity::kind_of(kinds, check);
        match new_on_base.probe(check, kind, id) {
            Probe::Passed => out.findings.push(finding(
                FindingKind::WeakenedTest,
                check,
                id,
                format!(
                    "{id} was changed to accept the old behaviour: its original form fails on the new code, and its new form passes on the base code too"
                ),
            )),
            Probe::Failed | Probe::GroupFailed => {
                out.declare.push(super::declare::Declarable::new(
                    super::declare::DeclareKind::ExpectationChanged,
                    check,
                    id,
                    format!(
                        "what {id} expects changed: its original form fails on the new code and its new form fails on the base code"
                    ),
                ));
            }
            Probe::Absent | Probe::Skipped | Probe::NoRun | Probe::NotCovered | Probe::Unknown => {
                out.open.push(super::CannotJudge {
                    check: check.clone(),
                    reason: format!(
                        "whether the edit to {id} weakened it: its original form fails on the new code, and its new form could not be run on the base code ({})",
                        match new_on_base.probe(check, kind, id) {
                            Probe::Skipped => "it was skipped there",
                            Probe::Unknown => "the run crashed before it reported",
                            Probe::Absent => "its file ran there but the test was not in it",
                            _ => "the run did not reach it",
                        }
                    ),
                    fix: format!(
                        "restore {id} and the test files it uses to their original form, or make its new form runnable on the base code"
                    ),
                });
            }
        }
    }
    out.findings.sort();
    out.declare.sort();
    out
}

fn word(s: Option<TestStatus>) -> &'static str {
    match s {
        Some(TestStatus::Passed) => "passed",
        Some(TestStatus::Failed) => "failed",
        Some(TestStatus::Skipped) => "skipped",
        None => "absent",
    }
}

/// A judge fact as the receipt records it: a fact about one test.
impl From<&Fact> for loki_receipt::schema::JudgeFact {
    fn from(f: &Fact) -> Self {
        loki_receipt::schema::JudgeFact {
            kind: f.kind,
            test: Some(f.test.clone()),
            path: None,
            detail: f.detail.clone(),
        }
    }
}
