//! `loki checks run [NAME…]` apart from printing: the repository's real test suites run as
//! evidence and recorded as a run of kind `checks`.
//!
//! # Record
//! `run.started` (the number of suites), one `check.result` per suite (its counts, failing ids
//! and the sha256 of its log under `checks/<name>.log` in the run's directory), `run.completed`
//! with `PASS` or `FAIL` and the exit code.
//!
//! # Verdict
//! Proven (exit 0) only when at least one suite ran and every one passed with executed > 0;
//! anything else is 1, so a repository with no tests, or a suite that did not run, is never
//! reported as proven. A name that no detected suite has is refused before anything runs
//! ([`WorkspaceError::NoSuchCheck`], exit 2).
//!
//! # Keys read
//! `checks.timeout_s` (one suite's timeout), `checks.output_cap_bytes` (output kept per suite).

use std::path::PathBuf;
use std::time::Duration;

use loki_core::RunId;
use loki_core::config::Config;
use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{CheckResult as CheckEvent, RunCompleted, RunStarted};
use loki_protocol::outcome::ExitCode;
use loki_protocol::{CheckStatus, RunEnd};
use loki_runner::{Check, CheckResult, RunOptions, detect, run_check};

use crate::WorkspaceError;

/// A recorded checks run.
#[derive(Debug)]
pub struct ChecksRun {
    pub run_id: RunId,
    /// Every suite ran and passed, and there was at least one.
    pub proven: bool,
    pub results: Vec<CheckResult>,
    /// Where the suites' logs are.
    pub logs: PathBuf,
    /// 0 when proven, else 1.
    pub exit: ExitCode,
}

/// Runs the suites detected in `repo` (only those named in `names`, when any are), rerunning a
/// failed one unless `no_rerun`; `before` is told each suite before it runs. See the module doc.
pub fn run(
    repo: &Repo,
    config: &Config,
    names: &[String],
    no_rerun: bool,
    argv: Vec<String>,
    mut before: impl FnMut(&Check),
) -> Result<ChecksRun, WorkspaceError> {
    let mut checks = detect(&repo.root)?;
    if !names.is_empty() {
        if let Some(unknown) = names.iter().find(|n| !checks.iter().any(|c| &c.name == *n)) {
            let known: Vec<_> = checks.iter().map(|c| c.name.as_str()).collect();
            return Err(WorkspaceError::NoSuchCheck {
                name: unknown.clone(),
                detected: if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                },
            });
        }
        checks.retain(|c| names.contains(&c.name));
    }
    let mut rec = RunRecorder::start(
        &RunStore::new(repo.clone()),
        None,
        argv,
        &RunStarted::Checks {
            checks: checks.len(),
        },
    )?;
    let logs = rec.dir().join("checks");
    let mut opts = RunOptions::new(logs.clone());
    if let Some(t) = config.uint("checks.timeout_s") {
        opts.timeout = Duration::from_secs(t);
    }
    if let Some(cap) = config.uint("checks.output_cap_bytes") {
        opts.output_cap = usize::try_from(cap).unwrap_or(usize::MAX);
    }
    opts.rerun_failed = !no_rerun;
    let mut results = Vec::new();
    for check in &checks {
        before(check);
        let r = run_check(check, &opts)?;
        rec.append(&CheckEvent::from(&r))?;
        results.push(r);
    }
    let proven = !results.is_empty() && results.iter().all(|r| r.run.result == CheckStatus::Pass);
    let (outcome, exit) = if proven {
        (RunEnd::Pass, ExitCode::Success)
    } else {
        (RunEnd::Fail, ExitCode::Failure)
    };
    rec.finish(&RunCompleted::new(outcome).exit_code(i32::from(exit.code())))?;
    Ok(ChecksRun {
        run_id: rec.id().clone(),
        proven,
        results,
        logs,
        exit,
    })
}
