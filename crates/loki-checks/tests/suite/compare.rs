//! Baseline classification and the weakened-test judgement, as pure functions.

use std::collections::BTreeMap;

use loki_checks::weakened::{checks_for, judge};
use loki_checks::{
    Check, CheckKind, CheckResult, CheckStatus, FindingKind, TestCase, TestClass, TestStatus,
    classify,
};
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
        name: name.into(),
        kind: CheckKind::Pytest,
        cmd: "python3 -m pytest".into(),
        result: status,
        executed: passed + failed,
        passed,
        failed,
        skipped,
        failing_ids: Vec::new(),
        duration_s: 0.0,
        log_sha256: String::new(),
        log_path: "x.log".into(),
        reason: None,
        exit_code: Some(0),
        attempts: 1,
        report_source: Some("junit".into()),
        tests,
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
    summary_only.executed = 3;
    summary_only.passed = 3;
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

#[test]
fn weakened_tests_are_named_and_plain_regressions_are_not() {
    let c = check("pytest:py", "py");
    let restored = vec!["py/tests/test_calc.py".to_owned()];
    let base = result(
        &c.name,
        CheckStatus::Pass,
        &[
            ("tests/test_calc.py::test_add", P),
            ("tests/test_calc.py::test_gone", P),
            ("tests/test_other.py::test_regressed", P),
            ("tests/test_calc.py::test_ok", P),
            ("tests/test_calc.py::test_was_failing", F),
        ],
    );
    let head = result(
        &c.name,
        CheckStatus::Fail,
        &[
            ("tests/test_calc.py::test_add", P),
            ("tests/test_other.py::test_regressed", F),
            ("tests/test_calc.py::test_ok", P),
        ],
    );
    let original = result(
        &c.name,
        CheckStatus::Fail,
        &[
            ("tests/test_calc.py::test_add", F),
            ("tests/test_other.py::test_regressed", F),
            ("tests/test_calc.py::test_ok", P),
            ("tests/test_calc.py::test_was_failing", F),
        ],
    );
    let f = judge(&c, &restored, &base, Some(&head), &original);
    let details: Vec<&str> = f.iter().map(|f| f.detail.as_str()).collect();
    assert_eq!(
        details,
        [
            "tests/test_calc.py::test_add passed at base and fails when the base version of py/tests/test_calc.py runs against the new code",
            "tests/test_calc.py::test_gone passed at base and disappears when the base version of py/tests/test_calc.py runs against the new code",
        ]
    );
    assert!(
        f.iter()
            .all(|f| f.kind == FindingKind::WeakenedTest && f.path == restored[0])
    );

    // The original file no longer builds against the new code: one finding per restored file.
    let mut broken = result(&c.name, CheckStatus::Fail, &[]);
    broken.reason = Some("exited with code 101 before reporting any test result".into());
    let f = judge(&c, &restored, &base, Some(&head), &broken);
    assert_eq!(f.len(), 1);
    assert!(f[0].detail.contains("before any test reports"), "{f:?}");
    // Nothing to say when it did not run.
    assert!(
        judge(
            &c,
            &restored,
            &base,
            Some(&head),
            &result(&c.name, CheckStatus::NotRun, &[])
        )
        .is_empty()
    );
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
                expected.insert((r.name.clone(), t.id.clone()));
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
}
