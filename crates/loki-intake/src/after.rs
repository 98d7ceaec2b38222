//! `loki pr <run>` and `--pr` on a build, as one code path: [`publish_run`] pushes a run's branch
//! and opens (or updates) its request with the forge settings of the environment; a build's
//! `--pr` checks first ([`preflight_run`]) and decides what to do once its run has sealed
//! ([`after_build`]).
//!
//! # Contract
//! - The forge token is read from the environment ([`Endpoints::from_env`]) for this publish step
//!   only; the push uses the user's own git credentials.
//! - A run that left no branch has nothing to propose ([`AfterBuild::Nothing`]).
//! - A failed publish never changes the run's outcome or receipt: it is reported as
//!   [`AfterBuild::Failed`] with the whole message and how to retry, and turns a successful
//!   run's exit code into 1 ([`AfterBuild::exit`]).

use std::time::{Duration, Instant};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_protocol::outcome::ExitCode;

use crate::pr::Published;
use crate::{Endpoints, Hosts, IntakeError};

/// The remote a build's `--pr` pushes to (as `loki pr`'s default).
pub const DEFAULT_REMOTE: &str = "origin";

/// How long a publish (push, then the forge's API calls) may take: a build's default cap.
pub const PUBLISH_TIMEOUT: Duration = Duration::from_secs(900);

/// Publishes run `id` of `repo` to `remote` (into `base`, default the checkout's branch), with
/// the forge settings of the environment: what `loki pr` and `--pr` both do.
pub fn publish_run(
    repo: &Repo,
    id: &RunId,
    remote: &str,
    base: Option<&str>,
) -> Result<Published, IntakeError> {
    // The keys `loki verify` trusts by default: this machine's (LOKI_HOME) and the environment's.
    let trust = loki_receipt::VerifyOptions {
        home: loki_core::layout::loki_home(),
        env: loki_receipt::KeyEnv::from_process(),
        pubkey: None,
        allow_unsigned: false,
    };
    crate::pr::publish(
        repo,
        id,
        remote,
        base,
        &trust,
        &Endpoints::from_env(),
        &Hosts::from_env(),
        Instant::now() + PUBLISH_TIMEOUT,
    )
}

/// Checks, before a `--pr` build starts, that its request could be opened (the forge of the
/// issue `issue_ref`, else of [`DEFAULT_REMOTE`], and its token), so no run is spent on one that
/// cannot.
pub fn preflight_run(repo: &Repo, issue_ref: Option<&str>) -> Result<(), IntakeError> {
    crate::pr::preflight(
        repo,
        DEFAULT_REMOTE,
        issue_ref,
        &Endpoints::from_env(),
        &Hosts::from_env(),
    )
    .map(drop)
}

/// What `--pr` did after a build.
#[derive(Debug)]
pub enum AfterBuild {
    Published(Published),
    /// The run made no change (its branch was removed): nothing to propose.
    Nothing,
    /// Publishing failed: the whole message, with how to retry.
    Failed(String),
}

impl AfterBuild {
    /// The run's exit code after this: a failed publish makes a successful run's code 1 (a
    /// non-zero one is kept: it is worse news already).
    #[must_use]
    pub fn exit(&self, code: ExitCode) -> ExitCode {
        match self {
            AfterBuild::Failed(_) if code == ExitCode::Success => ExitCode::Failure,
            AfterBuild::Published(_) | AfterBuild::Nothing | AfterBuild::Failed(_) => code,
        }
    }

    /// The `pr` / `pr_error` fields of the build's `--json` object.
    pub fn add_to(&self, v: &mut serde_json::Value) {
        match self {
            AfterBuild::Published(p) => v["pr"] = serde_json::json!(p),
            AfterBuild::Nothing => v["pr"] = serde_json::Value::Null,
            AfterBuild::Failed(m) => v["pr_error"] = serde_json::json!(m),
        }
    }

    /// The request's URL when one was published, the failure message when it failed: the `pr`
    /// and `error` cells of a backlog's or a workspace's row.
    #[must_use]
    pub fn cells(self) -> (Option<String>, Option<String>) {
        match self {
            AfterBuild::Published(p) => (Some(p.result.url), None),
            AfterBuild::Nothing => (None, None),
            AfterBuild::Failed(m) => (None, Some(m)),
        }
    }
}

/// The sealed run a `--pr` build hands to [`after_build`].
#[derive(Debug, Clone, Copy)]
pub struct SealedRun<'a> {
    pub run_id: &'a str,
    /// The run's branch; empty when the run removed it (no change).
    pub branch: &'a str,
    /// The run's outcome word (`VERIFIED`, …), for the failure message.
    pub outcome: &'a str,
}

/// What a build with `--pr` does once its run has sealed: [`publish_run`] it to
/// [`DEFAULT_REMOTE`]. The run's outcome and receipt stand whatever happens here.
#[must_use]
pub fn after_build(repo: &Repo, run: SealedRun<'_>) -> AfterBuild {
    if run.branch.is_empty() {
        return AfterBuild::Nothing;
    }
    let result = match run.run_id.parse::<RunId>() {
        Ok(id) => publish_run(repo, &id, DEFAULT_REMOTE, None).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match result {
        Ok(p) => AfterBuild::Published(p),
        Err(why) => AfterBuild::Failed(format!(
            "the run {} ended {} and its receipt is kept, but opening its pull request failed: {why}; retry with `loki pr {}`",
            run.run_id, run.outcome, run.run_id
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_publish_fails_only_a_successful_run() {
        let failed = AfterBuild::Failed("no".into());
        assert_eq!(failed.exit(ExitCode::Success), ExitCode::Failure);
        assert_eq!(failed.exit(ExitCode::BudgetStop), ExitCode::BudgetStop);
        assert_eq!(
            AfterBuild::Nothing.exit(ExitCode::Success),
            ExitCode::Success
        );
        let mut v = serde_json::json!({});
        failed.add_to(&mut v);
        assert_eq!(v["pr_error"], "no");
        AfterBuild::Nothing.add_to(&mut v);
        assert!(v["pr"].is_null());
        assert_eq!(failed.cells(), (None, Some("no".to_string())));
    }
}
