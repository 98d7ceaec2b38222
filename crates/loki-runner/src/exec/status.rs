//! The status of one attempt, from its exit code, its parsed report and its output (the
//! rules in the module doc), and the missing tools that make a run `not_run`.

use std::time::Duration;

use loki_protocol::CheckStatus;

use super::environment::{Environment, recognise};
use super::{REASON_IDS, SHELL_NOT_FOUND};
use crate::reports::report::TestReport;
use crate::runners::runner;
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
        let no_tests_code = runner(kind).no_tests_exit() == Some(exit_code);
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
    runner(kind).missing_tool(exit_code, log)
}
