//! `loki owner/repo#N`, `loki <issue URL>`, `loki issue REF`: a build run from a GitHub, GitLab,
//! Jira or Linear issue. The issue is fetched ([`loki_intake`]) before anything else runs; its
//! text is the task, its normalised JSON is the run's `issue.json`, and its canonical reference
//! is the receipt's `task.ref`. The tracker credentials are read here, for this fetch only.

use std::time::{Duration, Instant};

use loki_core::outcome::ExitCode;
use loki_intake::{Endpoints, Hosts, IssueRef};

use crate::cli::{BuildFlags, GlobalArgs, IssueArgs};
use crate::cmd::UsageError;

/// Fetches `reference` and builds the task it asks for.
pub fn build(
    global: &GlobalArgs,
    reference: &IssueRef,
    flags: &BuildFlags,
) -> anyhow::Result<ExitCode> {
    // Rate limits are waited out within the run cap the build will have (`run.cap_s`, `--cap`).
    let ctx = crate::context::Ctx::load_with(global, &flags.config_flags())?;
    let cap = ctx
        .config
        .uint("run.cap_s")
        .map_or(loki_engine::DEFAULT_CAP, Duration::from_secs);
    // `--pr` without the forge's token is refused before the tracker is asked anything.
    if flags.pr {
        crate::cmd::pr::preflight(&ctx.repo()?, Some(&reference.canonical()))?;
    }
    let issue = loki_intake::fetch(reference, &Endpoints::from_env(), Instant::now() + cap)?;
    let json = serde_json::to_vec_pretty(&issue)?;
    let task = loki_engine::TaskInput {
        text: issue.task_text(),
        source: issue.source.clone(),
    };
    crate::cmd::build::run_task_with(
        global,
        task,
        loki_core::run::RunKind::Build,
        flags,
        None,
        Some(loki_engine::IssueInput {
            reference: issue.reference.clone(),
            json,
        }),
    )
}

/// `loki issue REF`: like `loki REF`, but REF must be an issue reference.
pub fn run(global: &GlobalArgs, args: &IssueArgs) -> anyhow::Result<ExitCode> {
    let Some(reference) = loki_intake::parse(&args.reference, &Hosts::from_env())? else {
        return Err(UsageError(format!(
            "{:?} is not an issue reference: use owner/repo#N, an issue URL, jira:KEY-1 or linear:TEAM-1",
            args.reference
        ))
        .into());
    };
    build(global, &reference, &args.flags)
}
