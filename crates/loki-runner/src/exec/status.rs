//! The status of one attempt, from its exit code, its parsed report and its output (the
//! rules in the module doc), and the missing tools that make a run `not_run`.

use std::time::Duration;

use loki_protocol::CheckStatus;

use super::environment::{Environment, recognise};
use super::{NEXTEST_NO_TESTS, PYTEST_NO_TESTS, REASON_IDS, SHELL_NOT_FOUND};
use crate::reports::report::TestReport;
use loki_protocol::CheckKind;

/// The status of one attempt (a check's status before reruns), with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptStatus {
    pub status: CheckStatus,
    pub reason: Option<String>,
    /// Set when the check did not run because of the machine ([`super::environment`]).
    pub environment: Option<Environment>,
}

pub(super) fn attempt_status(status: CheckStatus, reason: Option<String>) -> AttemptStatus {
    AttemptStatus {
        status,
        reason,
        environment: None,
    }
}

/// The facts of one attempt that a verdict is computed from.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub kind: CheckKind,
    /// The runner's exit code (124 on timeout).
    pub exit_code: i32,
    pub timed_out: bool,
    pub timeout: Duration,
    /// The parsed report, from the structured file or the fallback parsers.
    pub report: Option<&'a TestReport>,
    /// A structured report was asked for and the runner did not write it.
    pub structured_missing: bool,
    /// The captured output (to recognise a missing tool).
    pub log: &'a str,
}

/// The status rules of the module doc, over one attempt's facts. Pure.
#[must_use]
pub fn status_of(facts: &Facts<'_>) -> AttemptStatus {
    let Facts {
        kind,
        exit_code,
        timed_out,
        timeout,
        report,
        structured_missing,
        log,
    } = *facts;
    if timed_out {
        return attempt_status(
            CheckStatus::Timeout,
            Some(format!(
                "timed out after {}s; its process group was killed",
                timeout.as_secs()
            )),
        );
    }
    // The toolchain's own failure, before anything is read as the code's (see `environment`).
    if exit_code != 0
        && let Some(env) = recognise(kind, log, report)
    {
        return AttemptStatus {
            status: CheckStatus::NotRun,
            reason: Some(format!("environment: {env}")),
            environment: Some(env),
        };
    }
    if let Some(r) = report.filter(|r| r.failed > 0) {
        let ids = r.failing_ids();
        let reason = if ids.is_empty() {
            format!("{} failed", r.failed)
        } else {
            let more = if ids.len() > REASON_IDS { ", ..." } else { "" };
            format!(
                "{} failed: {}{more}",
                r.failed,
                ids[..ids.len().min(REASON_IDS)].join(", ")
            )
        };
        return attempt_status(CheckStatus::Fail, Some(reason));
    }
    let executed = report.map_or(0, TestReport::executed);
    if exit_code != 0 {
        let no_tests_code = match kind {
            CheckKind::Pytest => exit_code == PYTEST_NO_TESTS,
            CheckKind::Nextest => exit_code == NEXTEST_NO_TESTS,
            CheckKind::Cargo
            | CheckKind::Vitest
            | CheckKind::Jest
            | CheckKind::Node
            | CheckKind::Npm
            | CheckKind::Go
            | CheckKind::Maven => false,
        };
        if no_tests_code && executed == 0 {
            return attempt_status(CheckStatus::NotRun, Some("no tests executed".into()));
        }
        if report.is_none()
            && let Some(missing) = missing_tool(kind, exit_code, log)
        {
            return attempt_status(CheckStatus::NotRun, Some(missing));
        }
        let reason = match report {
            Some(r) if r.executed() > 0 => format!(
                "exited with code {exit_code} although its output reports {} passed and none failed",
                r.passed
            ),
            _ => format!("exited with code {exit_code} before reporting any test result"),
        };
        return attempt_status(CheckStatus::Fail, Some(reason));
    }
    if structured_missing {
        // A runner that exits 0 without writing the report it was asked for did not finish its
        // run; whatever its output says ("5 passed") is not evidence of a pass.
        return attempt_status(
            CheckStatus::NotRun,
            Some(
                "exited 0 without writing its test report; its output is not taken as a pass"
                    .into(),
            ),
        );
    }
    match report {
        None => attempt_status(
            CheckStatus::NotRun,
            Some("exited 0 but no test results could be read from its output".into()),
        ),
        Some(_) if executed == 0 => {
            attempt_status(CheckStatus::NotRun, Some("no tests executed".into()))
        }
        Some(_) => attempt_status(CheckStatus::Pass, None),
    }
}

/// A runner that exited because a tool it needs is missing (it was not run, it did not fail).
fn missing_tool(kind: CheckKind, exit_code: i32, log: &str) -> Option<String> {
    let says = |s: &str| log.contains(s);
    // The confining wrapper could not exec the program (it says so, then exits 127).
    if exit_code == SHELL_NOT_FOUND
        && let Some(rest) = log
            .lines()
            .find_map(|l| l.strip_prefix("loki: cannot run "))
        && rest.contains("No such file or directory")
    {
        let program = rest.split(": ").next().unwrap_or(rest);
        return Some(format!("{program} not found"));
    }
    match kind {
        CheckKind::Pytest if says("No module named pytest") => {
            Some("pytest not installed for this interpreter (No module named pytest)".into())
        }
        CheckKind::Nextest if says("no such command: `nextest`") => Some("cargo-nextest not found".into()),
        CheckKind::Vitest | CheckKind::Jest | CheckKind::Node | CheckKind::Npm if exit_code == SHELL_NOT_FOUND => {
            Some(match not_found_name(log) {
                Some(tool @ ("pnpm" | "yarn" | "npm" | "npx" | "node" | "bun" | "corepack")) => format!("{tool} not found"),
                Some(tool) => format!("{tool} not found: the package's dependencies are not installed"),
                None => "the test script's command was not found (exit 127): the package's dependencies are not installed".into(),
            })
        }
        // Maven offline (loki runs it so) without a plugin or dependency in its local
        // repository: nothing of the project ran.
        CheckKind::Maven if says("offline mode") && says("has not been downloaded") => Some(
            "a Maven plugin or dependency is missing from the local repository (Maven runs offline)".into(),
        ),
        CheckKind::Cargo
        | CheckKind::Nextest
        | CheckKind::Pytest
        | CheckKind::Vitest
        | CheckKind::Jest
        | CheckKind::Node
        | CheckKind::Npm
        | CheckKind::Go
        | CheckKind::Maven => None,
    }
}

/// The command a shell said it could not find: `sh: 1: vitest: not found`, `vitest: command not
/// found`.
fn not_found_name(log: &str) -> Option<&str> {
    log.lines().rev().find_map(|l| {
        let l = l.trim();
        let rest = l
            .strip_suffix(": not found")
            .or_else(|| l.strip_suffix(": command not found"))?;
        let name = rest.rsplit(": ").next()?.trim();
        (!name.is_empty() && !name.contains(' ')).then_some(name)
    })
}
