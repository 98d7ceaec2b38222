use super::*;
use crate::reports::report::{TestReport, TestStatus};
use loki_protocol::CheckKind;

fn facts<'a>(kind: CheckKind, exit_code: i32, report: Option<&'a TestReport>) -> Facts<'a> {
    Facts {
        kind,
        exit_code,
        timed_out: false,
        timeout: Duration::from_secs(60),
        report,
        structured_missing: false,
        log: "",
    }
}

fn counts(passed: u64, failed: u64) -> TestReport {
    TestReport::from_counts("t", passed, failed, 0)
}

#[test]
fn pass_needs_executed_tests_no_failures_and_exit_zero() {
    let ok = counts(3, 0);
    assert_eq!(
        status_of(&facts(CheckKind::Cargo, 0, Some(&ok))).status,
        CheckStatus::Pass
    );
    let none = counts(0, 0);
    let j = status_of(&facts(CheckKind::Cargo, 0, Some(&none)));
    assert_eq!(
        (j.status, j.reason.as_deref()),
        (CheckStatus::NotRun, Some("no tests executed"))
    );
    assert_eq!(
        status_of(&facts(CheckKind::Cargo, 0, None)).status,
        CheckStatus::NotRun
    );
}

#[test]
fn forged_passes_with_a_nonzero_exit_fail() {
    let forged = counts(5, 0);
    let j = status_of(&facts(CheckKind::Npm, 1, Some(&forged)));
    assert_eq!(j.status, CheckStatus::Fail);
    assert!(j.reason.unwrap().contains("exited with code 1 although"));
}

#[test]
fn failures_are_named() {
    let mut r = TestReport::from_cases(
        "t",
        (0..7)
            .map(|i| TestCase {
                id: format!("t{i}"),
                status: TestStatus::Failed,
            })
            .collect(),
    );
    r.passed = 1;
    let j = status_of(&facts(CheckKind::Go, 0, Some(&r)));
    assert_eq!(j.status, CheckStatus::Fail);
    assert_eq!(j.reason.unwrap(), "7 failed: t0, t1, t2, t3, t4, ...");
}

#[test]
fn no_tests_exit_codes_missing_tools_timeouts_and_missing_reports() {
    let none = counts(0, 0);
    assert_eq!(
        status_of(&facts(CheckKind::Pytest, 5, Some(&none))).status,
        CheckStatus::NotRun
    );
    assert_eq!(
        status_of(&facts(CheckKind::Pytest, 5, None)).status,
        CheckStatus::NotRun
    );
    assert_eq!(
        status_of(&facts(CheckKind::Nextest, 4, Some(&none))).status,
        CheckStatus::NotRun
    );
    assert_eq!(
        status_of(&facts(CheckKind::Go, 4, Some(&none))).status,
        CheckStatus::Fail
    );
    let mut f = facts(CheckKind::Pytest, 1, None);
    f.log = "/usr/bin/python3: No module named pytest";
    assert_eq!(status_of(&f).status, CheckStatus::NotRun);
    assert_eq!(
        status_of(&facts(CheckKind::Vitest, 127, None)).status,
        CheckStatus::NotRun
    );
    assert_eq!(
        status_of(&facts(CheckKind::Cargo, 127, None)).status,
        CheckStatus::Fail
    );
    // Through the confining wrapper, which cannot exec a missing program.
    let mut f = facts(CheckKind::Cargo, 127, None);
    f.log = "loki: cannot run cargo: No such file or directory (os error 2)\n";
    let j = status_of(&f);
    assert_eq!(j.status, CheckStatus::NotRun);
    assert_eq!(j.reason.as_deref(), Some("cargo not found"));
    let ok = counts(3, 0);
    let mut f = facts(CheckKind::Pytest, 0, Some(&ok));
    f.structured_missing = true;
    assert_eq!(status_of(&f).status, CheckStatus::NotRun);
    f.timed_out = true;
    let j = status_of(&f);
    assert_eq!(j.status, CheckStatus::Timeout);
    assert_eq!(
        j.reason.unwrap(),
        "timed out after 60s; its process group was killed"
    );
}

#[test]
fn log_names_are_safe() {
    let name: String = "pytest:services/api v2".chars().map(log_char).collect();
    assert_eq!(name, "pytest_services_api_v2");
}

#[test]
fn the_build_companion_builds_what_the_check_runs_and_runs_nothing() {
    let check = |kind: CheckKind, command: &str| Check {
        name: "c".into(),
        kind,
        dir: ".".into(),
        cwd: PathBuf::from("/x"),
        command: command.split(' ').map(str::to_owned).collect(),
        script: None,
        why: String::new(),
    };
    let companion = |kind, command| build_companion(&check(kind, command)).map(|c| c.join(" "));
    for (kind, command, want) in [
        (
            CheckKind::Cargo,
            "cargo test --workspace --no-fail-fast",
            Some("cargo test --no-run --workspace"),
        ),
        (
            CheckKind::Cargo,
            "cargo test -p a --test it --features x some::test -- --exact",
            Some("cargo test --no-run -p a --test it --features x"),
        ),
        (
            CheckKind::Cargo,
            "cargo test --profile ci --package=b",
            Some("cargo test --no-run --profile ci --package=b"),
        ),
        (CheckKind::Cargo, "cargo test --doc -p a", None),
        (
            CheckKind::Nextest,
            "cargo nextest run --workspace -E test(=a) --profile ci --cargo-profile fast --lib -j 2 name",
            Some("cargo test --no-run --workspace --profile fast --lib"),
        ),
        (CheckKind::Cargo, "cross test", None),
        (CheckKind::Pytest, "cargo test", None),
        (CheckKind::Cargo, "cargo test -p", None),
    ] {
        assert_eq!(companion(kind, command).as_deref(), want, "{command}");
    }
}
