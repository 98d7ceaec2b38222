//! Baseline classification and the judge's decision table, as pure functions.

use std::collections::BTreeMap;

use std::collections::BTreeSet;

use loki_checks::judge::matrix::{self, Runs};
use loki_checks::judge::{DeclareKind, FactKind};
use loki_checks::{TestClass, classify};
use loki_protocol::CheckKind;
use loki_protocol::CheckStatus;
use loki_protocol::FindingKind;
use loki_runner::detect::checks_for;
use loki_runner::{Check, CheckResult, TestCase, TestStatus};
use proptest::prelude::*;

fn result(name: &str, status: CheckStatus, tests: &[(&str, TestStatus)]) -> CheckResult {
    let tests: Vec<TestCase> = tests
        .iter()
        .map(|(id, s)| TestCase {
            id: (*id).into(),
            status: *s,
        })
        .collect();
    let count = |s| tests.iter().filter(|t| t.status == s).count() as u64;
    let (passed, failed, skipped) = (
        count(TestStatus::Passed),
        count(TestStatus::Failed),
        count(TestStatus::Skipped),
    );
    CheckResult {
        run: loki_protocol::CheckRun {
            name: name.into(),
            kind: CheckKind::Pytest,
            cmd: "python3 -m pytest".into(),
            result: status,
            executed: passed + failed,
            passed,
            failed,
            skipped,
        },
        failing_ids: Vec::new(),
        duration_s: 0.0,
        log_sha256: String::new(),
        log_path: "x.log".into(),
        reason: None,
        exit_code: Some(0),
        attempts: 1,
        report_source: Some("junit".into()),
        tests,
        environment: None,
    }
}

use TestStatus::{Failed as F, Passed as P, Skipped as S};

#[test]
fn every_transition_has_its_class() {
    let base = [result(
        "pytest",
        CheckStatus::Fail,
        &[
            ("pp", P),
            ("pf", P),
            ("ps", P),
            ("fp", F),
            ("ff", F),
            ("sf", S),
            ("ss", S),
            ("gone", P),
            ("dup", P),
            ("dup", F),
        ],
    )];
    let head = [result(
        "pytest",
        CheckStatus::Fail,
        &[
            ("pp", P),
            ("pf", F),
            ("ps", S),
            ("fp", P),
            ("ff", F),
            ("sf", F),
            ("ss", S),
            ("added", F),
            ("dup", F),
        ],
    )];
    let c = classify(&base, &head);
    assert_eq!(c.ids(TestClass::NewlyFailing), ["pf", "sf"]);
    assert_eq!(c.ids(TestClass::Fixed), ["fp"]);
    assert_eq!(c.ids(TestClass::StillFailing), ["dup", "ff"]);
    assert_eq!(c.ids(TestClass::Missing), ["gone"]);
    assert_eq!(c.ids(TestClass::New), ["added"]);
    assert_eq!(c.ids(TestClass::NewlySkipped), ["ps"]);
    assert_eq!(c.ids(TestClass::Passing), ["pp"]);
    assert_eq!(c.ids(TestClass::Skipped), ["ss"]);
    assert!(c.uncompared.is_empty(), "{:?}", c.uncompared);
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["tests"][0]["id"], "added");
    assert_eq!(json["tests"][0]["class"], "new");
    assert!(json["tests"][0].get("base").is_none());
}

#[test]
fn checks_without_per_test_results_are_named_uncompared() {
    let mut summary_only = result("cargo", CheckStatus::Pass, &[]);
    summary_only.run.executed = 3;
    summary_only.run.passed = 3;
    let mut timeout = result("go", CheckStatus::Timeout, &[]);
    timeout.reason = Some("timed out after 60s".into());
    let base = [
        result("go", CheckStatus::Pass, &[("a", P)]),
        summary_only.clone(),
    ];
    let head = [timeout, summary_only];
    let c = classify(&base, &head);
    assert_eq!(c.ids(TestClass::Missing), ["a"]);
    let reasons: BTreeMap<_, _> = c
        .uncompared
        .iter()
        .map(|u| (u.check.as_str(), u.reason.as_str()))
        .collect();
    assert_eq!(reasons["go"], "head: timed out (timed out after 60s)");
    assert!(
        reasons["cargo"].starts_with("base: no per-test results"),
        "{reasons:?}"
    );
}

#[test]
fn a_check_new_at_head_has_only_new_tests() {
    let c = classify(&[], &[result("node", CheckStatus::Pass, &[("t", P)])]);
    assert_eq!(c.ids(TestClass::New), ["t"]);
    assert_eq!(c.tests[0].check, "node");
}

fn check(name: &str, dir: &str) -> Check {
    Check {
        name: name.into(),
        kind: CheckKind::Pytest,
        dir: dir.into(),
        cwd: format!("/r/{dir}").into(),
        command: vec!["pytest".into()],
        script: None,
        why: String::new(),
    }
}

/// Every row of the judge's table (`judge::matrix`), on one pytest check: B and H, the original
/// tests on the new code (O), the new tests on the old code (N).
#[test]
fn the_decision_table() {
    let name = "pytest";
    let kinds: BTreeMap<String, CheckKind> = [(name.to_owned(), CheckKind::Pytest)].into();
    let t = |id: &str| format!("tests/test_calc.py::{id}");
    let base = result(
        name,
        CheckStatus::Fail,
        &[
            (&t("regressed"), P),
            (&t("still_failing"), F),
            (&t("target_swapped"), F),
            (&t("weakened"), P),
            (&t("behaviour_changed"), P),
            (&t("skipped_now"), P),
            (&t("deleted_hiding"), P),
            (&t("deleted_clean"), P),
            (&t("refactored"), P),
            ("tests/test_old.py::test_moved", P),
        ],
    );
    let head = result(
        name,
        CheckStatus::Fail,
        &[
            (&t("regressed"), F),
            (&t("still_failing"), F),
            (&t("target_swapped"), P),
            (&t("weakened"), P),
            (&t("behaviour_changed"), P),
            (&t("skipped_now"), S),
            (&t("refactored"), P),
            (&t("new_failing"), F),
            ("tests/test_new.py::test_moved", P),
        ],
    );
    let original = result(
        name,
        CheckStatus::Fail,
        &[
            (&t("regressed"), F),
            (&t("still_failing"), F),
            (&t("target_swapped"), F),
            (&t("weakened"), F),
            (&t("behaviour_changed"), F),
            (&t("skipped_now"), P),
            (&t("deleted_hiding"), F),
            (&t("deleted_clean"), P),
            (&t("refactored"), P),
            ("tests/test_old.py::test_moved", P),
        ],
    );
    let in_original: BTreeSet<String> = [name.to_owned()].into();
    let d = matrix::decide(&matrix::Input {
        kinds: &kinds,
        base: std::slice::from_ref(&base),
        head: std::slice::from_ref(&head),
        original: Runs::new(std::slice::from_ref(&original)),
        new_on_base: Runs::new(&[]),
        in_original: &in_original,
    });
    let found: Vec<(FindingKind, String)> = d
        .findings
        .iter()
        .map(|f| (f.kind, f.test.clone().unwrap_or_default()))
        .collect();
    // One fewer test at head than at base, so the clean deletion is named too. The target test
    // that failed at base and passes only in its edited form needs no N.
    assert_eq!(
        found,
        [
            (FindingKind::WeakenedTest, t("target_swapped")),
            (FindingKind::NewTestFailing, t("new_failing")),
            (FindingKind::TestDeleted, t("deleted_clean")),
            (FindingKind::TestDeleted, t("deleted_hiding")),
            (FindingKind::NewlySkipped, t("skipped_now")),
        ]
    );
    assert!(d.findings.iter().any(|f| f.kind == FindingKind::TestDeleted
        && f.detail.contains("its original form fails on the new code")));
    assert_eq!(
        d.newly_failing,
        [(name.to_owned(), t("regressed"), t("regressed"))]
    );
    assert_eq!(d.pre_existing, [format!("{name}: {}", t("still_failing"))]);
    let moved: Vec<&str> = d
        .facts
        .iter()
        .filter(|f| f.kind == FactKind::TestMoved)
        .map(|f| f.test.as_str())
        .collect();
    assert_eq!(moved, ["tests/test_new.py::test_moved"]);
    // O failed for two more tests that passed at base and pass at head: N decides.
    let suspects: Vec<&str> = d
        .needs_new_on_base
        .iter()
        .map(|(_, id)| id.as_str())
        .collect();
    assert_eq!(suspects, [t("behaviour_changed"), t("weakened")]);
    let new_on_base = result(
        name,
        CheckStatus::Fail,
        &[
            (&t("behaviour_changed"), F),
            (&t("target_swapped"), P),
            (&t("weakened"), P),
        ],
    );
    let nb = matrix::decide_new_on_base(
        &kinds,
        &d.needs_new_on_base,
        &Runs::new(std::slice::from_ref(&new_on_base)),
    );
    let weakened: Vec<&str> = nb
        .findings
        .iter()
        .map(|f| {
            assert_eq!(f.kind, FindingKind::WeakenedTest);
            f.test.as_deref().unwrap()
        })
        .collect();
    assert_eq!(weakened, [t("weakened")]);
    // A behaviour change is a change to declare, with no fact and no open question.
    assert_eq!(nb.declare.len(), 1);
    assert_eq!(nb.declare[0].kind, DeclareKind::ExpectationChanged);
    assert_eq!(nb.declare[0].test, t("behaviour_changed"));
    assert!(nb.open.is_empty());

    // The original file cannot be collected on the new code: every test in it "does not pass".
    let collect_error = result(name, CheckStatus::Fail, &[("tests/test_calc.py", F)]);
    let d = matrix::decide(&matrix::Input {
        kinds: &kinds,
        base: std::slice::from_ref(&base),
        head: std::slice::from_ref(&head),
        original: Runs::new(std::slice::from_ref(&collect_error)),
        new_on_base: Runs::new(&[]),
        in_original: &in_original,
    });
    assert!(
        d.needs_new_on_base
            .iter()
            .any(|(_, id)| *id == t("refactored"))
    );
    // A suite that passed at base and cannot run now broke.
    let passing = result(name, CheckStatus::Pass, &[(&t("a"), P)]);
    let mut not_run = result(name, CheckStatus::NotRun, &[]);
    not_run.reason = Some("no tests executed".into());
    let d = matrix::decide(&matrix::Input {
        kinds: &kinds,
        base: std::slice::from_ref(&passing),
        head: std::slice::from_ref(&not_run),
        original: Runs::new(&[]),
        new_on_base: Runs::new(&[]),
        in_original: &BTreeSet::new(),
    });
    assert!(
        d.findings
            .iter()
            .any(|f| f.kind == FindingKind::SuiteBroken),
        "{d:#?}"
    );
    // A suite with a failing test at base that reports nothing at head broke too, once, and
    // none of its tests reads as deleted.
    let mixed = result(name, CheckStatus::Fail, &[(&t("a"), P), (&t("b"), F)]);
    for head in [
        not_run.clone(),
        result(name, CheckStatus::Timeout, &[]),
        result(name, CheckStatus::Fail, &[]),
    ] {
        let d = matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: std::slice::from_ref(&mixed),
            head: std::slice::from_ref(&head),
            original: Runs::new(&[]),
            new_on_base: Runs::new(&[]),
            in_original: &BTreeSet::new(),
        });
        let kinds_found: Vec<FindingKind> = d.findings.iter().map(|f| f.kind).collect();
        assert_eq!(kinds_found, [FindingKind::SuiteBroken], "{d:#?}");
        assert!(
            d.findings[0].detail.contains("ran 2 tests at base"),
            "{d:#?}"
        );
    }
}

#[test]
fn a_file_belongs_to_the_deepest_package() {
    let checks = [
        check("cargo", "."),
        check("pytest:py", "py"),
        check("npm:py", "py"),
        check("go:pyx", "pyx"),
    ];
    let names = |p| {
        checks_for(&checks, p)
            .iter()
            .map(|c| c.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(names("py/tests/test_a.py"), ["pytest:py", "npm:py"]);
    assert_eq!(names("tests/it.rs"), ["cargo"]);
    assert_eq!(names("pyx/a_test.go"), ["go:pyx"]);
}

fn status() -> impl Strategy<Value = TestStatus> {
    prop::sample::select(vec![P, F, S])
}

fn run() -> impl Strategy<Value = Vec<(String, Vec<(String, TestStatus)>)>> {
    prop::collection::vec(
        (
            prop::sample::select(vec!["a".to_owned(), "b".to_owned(), "c".to_owned()]),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "t1".to_owned(),
                        "t2".to_owned(),
                        "t3".to_owned(),
                        "t4".to_owned(),
                    ]),
                    status(),
                ),
                0..6,
            ),
        ),
        0..3,
    )
}

/// The kinds and tests of a decision's findings.
fn found(d: &matrix::Decision) -> Vec<(FindingKind, String)> {
    d.findings
        .iter()
        .map(|f| (f.kind, f.test.clone().unwrap_or_default()))
        .collect()
}

/// A cargo test target that does not compile is marked `<package>::<binary> (did not compile)`
/// and the other targets still report: at base (a test written before its code) its tests are
/// new at head, never a finding when they pass; at head (the change broke it) the mark is the
/// finding, and its tests are not deleted.
#[test]
fn a_test_target_that_did_not_compile_in_the_decision_table() {
    let name = "cargo";
    let kinds: BTreeMap<String, CheckKind> = [(name.to_owned(), CheckKind::Cargo)].into();
    let none = BTreeSet::new();
    let decide = |base: &CheckResult, head: &CheckResult| {
        matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: std::slice::from_ref(base),
            head: std::slice::from_ref(head),
            original: Runs::new(&[]),
            new_on_base: Runs::new(&[]),
            in_original: &none,
        })
    };
    let broken = result(
        name,
        CheckStatus::Fail,
        &[
            ("calc::triple (did not compile)", F),
            ("calc::calc::adds", P),
        ],
    );
    let whole = result(
        name,
        CheckStatus::Pass,
        &[("calc::triple::triples", P), ("calc::calc::adds", P)],
    );
    let d = decide(&broken, &whole);
    assert!(d.findings.is_empty(), "{d:#?}");
    let failing = result(
        name,
        CheckStatus::Fail,
        &[("calc::triple::triples", F), ("calc::calc::adds", P)],
    );
    let d = decide(&broken, &failing);
    assert_eq!(
        found(&d),
        [(
            FindingKind::NewTestFailing,
            "calc::triple::triples".to_owned()
        )],
        "{d:#?}"
    );
    // The change breaks the target: one finding, on the mark.
    let d = decide(&whole, &broken);
    assert_eq!(
        found(&d),
        [(
            FindingKind::NewTestFailing,
            "calc::triple (did not compile)".to_owned()
        )],
        "{d:#?}"
    );
    assert!(
        d.not_proven
            .iter()
            .any(|n| n.contains("calc::triple::triples")),
        "{d:#?}"
    );
    // Nothing but marks at head: the suite broke.
    let only = result(
        name,
        CheckStatus::Fail,
        &[
            ("calc::triple (did not compile)", F),
            ("calc::calc (did not compile)", F),
        ],
    );
    let d = decide(&whole, &only);
    assert_eq!(
        d.findings.iter().map(|f| f.kind).collect::<Vec<_>>(),
        [FindingKind::SuiteBroken],
        "{d:#?}"
    );
}

/// A cargo test binary that crashed mid-run (a test aborted the process): the test the runtime
/// named failed, the binary's mark `<binary> (binary crashed)` is not a test, and the tests that
/// did not report are unknown in that run, never deleted, new or passing.
#[test]
fn a_crashed_test_binary_in_the_decision_table() {
    let name = "cargo";
    let kinds: BTreeMap<String, CheckKind> = [(name.to_owned(), CheckKind::Cargo)].into();
    let crashed = "calc (binary crashed)";
    let decide = |base: &CheckResult, head: &CheckResult, original: Option<&CheckResult>| {
        let in_original: BTreeSet<String> = original.iter().map(|_| name.to_owned()).collect();
        matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: std::slice::from_ref(base),
            head: std::slice::from_ref(head),
            original: Runs::new(original.map_or(&[][..], std::slice::from_ref)),
            new_on_base: Runs::new(&[]),
            in_original: &in_original,
        })
    };
    // The base crashed in `crasher`, before `b` and `c` reported. Skipping the test that crashed
    // it, or one that could not report, is how the crash goes away; one failing now that could not
    // report at base is rerun there before it is blamed.
    let base = result(
        name,
        CheckStatus::Fail,
        &[("calc::a", P), ("calc::crasher", F), (crashed, F)],
    );
    let head = result(
        name,
        CheckStatus::Fail,
        &[
            ("calc::a", P),
            ("calc::crasher", S),
            ("calc::b", S),
            ("calc::c", F),
            ("calc::d", P),
        ],
    );
    let d = decide(&base, &head, None);
    assert_eq!(
        found(&d),
        [
            (FindingKind::NewlySkipped, "calc::b".to_owned()),
            (FindingKind::NewlySkipped, "calc::crasher".to_owned()),
        ],
        "{d:#?}"
    );
    assert!(d.findings[0].detail.contains("crashed"), "{d:#?}");
    assert_eq!(
        d.newly_failing,
        [(name.to_owned(), "calc::c".to_owned(), "calc::c".to_owned())]
    );
    // A binary that crashes only at head is a finding of its own, whoever crashed it; the tests
    // it did not reach are not proven, not deleted.
    let base = result(name, CheckStatus::Pass, &[("calc::a", P), ("calc::b", P)]);
    let head = result(name, CheckStatus::Fail, &[("calc::a", P), (crashed, F)]);
    let d = decide(&base, &head, None);
    assert_eq!(
        found(&d),
        [(FindingKind::NewlyFailing, String::new())],
        "{d:#?}"
    );
    assert!(d.findings[0].detail.contains("test binary calc"), "{d:#?}");
    assert!(d.not_proven.iter().any(|n| n.contains("calc::b")), "{d:#?}");
    // The same crash on both sides is a pre-existing failure, not a finding.
    let base = result(name, CheckStatus::Fail, &[("calc::a", P), (crashed, F)]);
    let d = decide(&base, &head, None);
    assert!(d.findings.is_empty(), "{d:#?}");
    // The original tests' run crashed before `b` reported: whether its edit was needed stays an
    // open question (CANNOT JUDGE, never clean), and N is not asked (a test O could not tell
    // about is not a suspect).
    let both = result(name, CheckStatus::Pass, &[("calc::a", P), ("calc::b", P)]);
    let original = result(name, CheckStatus::Fail, &[("calc::a", P), (crashed, F)]);
    let d = decide(&both, &both, Some(&original));
    assert!(d.needs_new_on_base.is_empty(), "{d:#?}");
    assert!(d.findings.is_empty(), "{d:#?}");
    assert_eq!(d.open.len(), 1, "{d:#?}");
    assert_eq!(d.open[0].0, "calc::b", "{d:#?}");
    assert!(d.open[0].1.reason.contains("crashed"), "{d:#?}");
}

/// A group that failed as a whole (a file that could not be collected) is not a test: fixed at
/// head it is not deleted, broken only at head it fails. A test that did not pass at base, or could
/// not report there, and passes now only in its edited form moved its target: `weakened_test`,
/// whatever N would say.
#[test]
fn group_marks_and_moved_targets_in_the_decision_table() {
    let name = "pytest";
    let kinds: BTreeMap<String, CheckKind> = [(name.to_owned(), CheckKind::Pytest)].into();
    let in_original: BTreeSet<String> = [name.to_owned()].into();
    let decide = |base: &CheckResult, head: &CheckResult, original: &CheckResult| {
        matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: std::slice::from_ref(base),
            head: std::slice::from_ref(head),
            original: Runs::new(std::slice::from_ref(original)),
            new_on_base: Runs::new(&[]),
            in_original: &in_original,
        })
    };
    // Test first: at base `tests/test_new.py` cannot be collected; the change writes the code.
    let base = result(
        name,
        CheckStatus::Fail,
        &[("tests/test_new.py", F), ("tests/test_a.py::test_a", P)],
    );
    let head = result(
        name,
        CheckStatus::Pass,
        &[
            ("tests/test_new.py::test_new", P),
            ("tests/test_a.py::test_a", P),
        ],
    );
    let untouched = result(name, CheckStatus::Pass, &[]);
    let d = decide(&base, &head, &untouched);
    assert!(d.findings.is_empty(), "{d:#?}");
    // ... and the original of the test that could not load still fails on the new code.
    let original = result(
        name,
        CheckStatus::Fail,
        &[
            ("tests/test_new.py::test_new", F),
            ("tests/test_a.py::test_a", P),
        ],
    );
    let d = decide(&base, &head, &original);
    assert_eq!(
        found(&d),
        [(
            FindingKind::WeakenedTest,
            "tests/test_new.py::test_new".to_owned()
        )],
        "{d:#?}"
    );
    assert!(d.needs_new_on_base.is_empty(), "{d:#?}");
    // A target test failing at base, edited, passing now, its original failing on the new code.
    let base = result(name, CheckStatus::Fail, &[("tests/test_a.py::test_a", F)]);
    let head = result(name, CheckStatus::Pass, &[("tests/test_a.py::test_a", P)]);
    let original = result(name, CheckStatus::Fail, &[("tests/test_a.py::test_a", F)]);
    let d = decide(&base, &head, &original);
    assert_eq!(
        found(&d),
        [(
            FindingKind::WeakenedTest,
            "tests/test_a.py::test_a".to_owned()
        )],
        "{d:#?}"
    );
    // A file that cannot be collected only at head broke there.
    let base = result(name, CheckStatus::Pass, &[("tests/test_a.py::test_a", P)]);
    let head = result(
        name,
        CheckStatus::Fail,
        &[("tests/test_a.py::test_a", P), ("tests/test_b.py", F)],
    );
    let d = decide(&base, &head, &untouched);
    assert_eq!(
        found(&d),
        [(FindingKind::NewTestFailing, "tests/test_b.py".to_owned())],
        "{d:#?}"
    );
}

fn results(spec: &[(String, Vec<(String, TestStatus)>)]) -> Vec<CheckResult> {
    let mut seen = std::collections::BTreeSet::new();
    spec.iter()
        .filter(|(name, _)| seen.insert(name.clone()))
        .map(|(name, tests)| {
            let t: Vec<(&str, TestStatus)> = tests.iter().map(|(i, s)| (i.as_str(), *s)).collect();
            result(name, CheckStatus::Pass, &t)
        })
        .collect()
}

proptest! {
    #[test]
    fn each_test_id_lands_in_exactly_one_class(b in run(), h in run()) {
        let (base, head) = (results(&b), results(&h));
        let c = classify(&base, &head);
        let mut expected = std::collections::BTreeSet::new();
        for r in base.iter().chain(&head) {
            for t in &r.tests {
                expected.insert((r.run.name.clone(), t.id.clone()));
            }
        }
        let got: Vec<(String, String)> = c.tests.iter().map(|t| (t.check.clone(), t.id.clone())).collect();
        let unique: std::collections::BTreeSet<_> = got.iter().cloned().collect();
        prop_assert_eq!(got.len(), unique.len(), "an id was classified twice");
        prop_assert_eq!(unique, expected);
        for t in &c.tests {
            prop_assert_eq!(Some(t.class), loki_checks::baseline::class_of(t.base, t.head));
            prop_assert_eq!(t.class == TestClass::NewlyFailing, t.head == Some(F) && t.base.is_some_and(|s| s != F));
        }
    }

    /// The decision never panics, and a change that changed nothing (head and the original tests
    /// on the new code as at base) is never a finding, whatever the statuses.
    #[test]
    fn an_unchanged_outcome_is_never_a_finding(b in run(), o in run()) {
        let base = results(&b);
        let kinds: BTreeMap<String, CheckKind> =
            base.iter().map(|r| (r.run.name.clone(), CheckKind::Pytest)).collect();
        let in_original: BTreeSet<String> = base.iter().map(|r| r.run.name.clone()).collect();
        let d = matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: &base,
            head: &base,
            original: Runs::new(&base),
            new_on_base: Runs::new(&[]),
            in_original: &in_original,
        });
        let base_passed_suites = base.iter().filter(|r| r.run.result == CheckStatus::Pass).count();
        prop_assert!(d.findings.is_empty() || base_passed_suites > 0, "{:?}", d.findings);
        prop_assert!(d.findings.iter().all(|f| f.kind == FindingKind::SuiteBroken), "{:?}", d.findings);
        prop_assert!(d.newly_failing.is_empty() && d.needs_new_on_base.is_empty());
        // Any O at all: decide and the N step never panic.
        let original = results(&o);
        let d = matrix::decide(&matrix::Input {
            kinds: &kinds,
            base: &base,
            head: &base,
            original: Runs::new(&original),
            new_on_base: Runs::new(&[]),
            in_original: &in_original,
        });
        let _ = matrix::decide_new_on_base(&kinds, &d.needs_new_on_base, &Runs::new(&original));
    }
}
