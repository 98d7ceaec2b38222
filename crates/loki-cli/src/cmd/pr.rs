//! `loki pr <run>` and `--pr` on a build: push the run's branch and open (or update) a GitHub pull
//! request or GitLab merge request whose body is the run's evidence
//! ([`loki_intake::pr::publish`]). Both go through [`publish`] here, so a build's `--pr` is
//! exactly `loki pr <run>`. The forge token is read from the environment for this publish step
//! only (the engine's model box never passes it to the agent); the push uses the user's own git
//! credentials.

use std::time::Instant;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_intake::pr::Published;
use loki_intake::{Endpoints, Hosts, IntakeError};

use crate::cli::{GlobalArgs, PrArgs};
use crate::context::Ctx;

/// The remote a build's `--pr` pushes to (as `loki pr`'s default).
pub const DEFAULT_REMOTE: &str = "origin";

/// `loki pr <run>`.
pub fn run(global: &GlobalArgs, args: &PrArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load(global)?;
    let repo = ctx.repo()?;
    let id = crate::cmd::resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let p = publish(&repo, &id, &args.remote, args.base.as_deref())?;
    if global.json {
        anstream::println!("{}", serde_json::to_string(&p)?);
    } else {
        anstream::println!("{}", said(&p));
    }
    Ok(ExitCode::Success)
}

/// Publishes run `id`: the one code path of `loki pr` and `--pr`.
pub fn publish(
    repo: &Repo,
    id: &RunId,
    remote: &str,
    base: Option<&str>,
) -> Result<Published, IntakeError> {
    loki_intake::pr::publish(
        repo,
        id,
        remote,
        base,
        &Endpoints::from_env(),
        &Hosts::from_env(),
        Instant::now() + loki_engine::DEFAULT_CAP,
    )
}

/// Checks, before a `--pr` build starts, that its request could be opened (the forge and its
/// token), so no run is spent on one that cannot.
pub fn preflight(repo: &Repo, issue_ref: Option<&str>) -> Result<(), IntakeError> {
    loki_intake::pr::preflight(
        repo,
        DEFAULT_REMOTE,
        issue_ref,
        &Endpoints::from_env(),
        &Hosts::from_env(),
    )
    .map(drop)
}

/// `opened <url>` / `updated <url>`, and whether it is a draft.
pub fn said(p: &Published) -> String {
    let what = if p.result.created {
        "opened"
    } else {
        "updated"
    };
    let draft = if p.draft {
        " (a draft: the run is not VERIFIED)"
    } else {
        ""
    };
    format!("{what} {}{draft}", p.result.url)
}

/// What `--pr` did after a build.
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

    /// Prints the `PR:` line of the summary (or the error, on stderr).
    pub fn print(&self) {
        match self {
            AfterBuild::Published(p) => anstream::println!("{:<12}{}", "PR:", said(p)),
            AfterBuild::Nothing => {
                anstream::println!("{:<12}none: the run made no change to propose", "PR:");
            }
            AfterBuild::Failed(m) => crate::output::error(&anyhow::anyhow!(m.clone())),
        }
    }
}

/// What a build with `--pr` does once its run has sealed: [`publish`] it. The run's outcome and
/// receipt stand whatever happens here.
pub fn after_build(repo: &Repo, report: &loki_engine::BuildReport) -> AfterBuild {
    if report.branch.is_empty() {
        return AfterBuild::Nothing;
    }
    let result = match report.run_id.parse::<RunId>() {
        Ok(id) => publish(repo, &id, DEFAULT_REMOTE, None).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match result {
        Ok(p) => AfterBuild::Published(p),
        Err(why) => AfterBuild::Failed(format!(
            "the run {} ended {} and its receipt is kept, but opening its pull request failed: {why}; retry with `loki pr {}`",
            report.run_id,
            report.outcome.as_str(),
            report.run_id
        )),
    }
}
