//! `loki owner/repo#N`, `loki <issue URL>`, `loki issue REF`: a build run from a GitHub, GitLab,
//! Jira or Linear issue. The issue is fetched ([`loki_intake`]) before anything else runs; its
//! text is the task, its normalised JSON is the run's `issue.json`, and its canonical reference
//! is the receipt's `task.ref` ([`loki_workspace::issue_task`]). The tracker credentials are read
//! for this fetch only.

use std::time::Instant;

use loki_core::run::RunKind;
use loki_intake::{Hosts, IssueRef};
use loki_protocol::outcome::ExitCode;

use crate::cli::{BuildFlags, GlobalArgs, IssueArgs};
use crate::cmd::UsageError;

/// Fetches `reference` and builds the task it asks for.
pub fn build(
    global: &GlobalArgs,
    reference: &IssueRef,
    flags: &BuildFlags,
) -> anyhow::Result<ExitCode> {
    // Rate limits are waited out within the run cap the build will have (`run.cap_s`, `--cap`).
    let ctx = crate::context::Ctx::load_with(global, flags.config_flags())?;
    let cap = ctx.setup().cap();
    // `--pr` without the forge's token is refused before the tracker is asked anything.
    if flags.pr {
        crate::cmd::pr::preflight(&ctx.repo()?, Some(&reference.canonical()))?;
    }
    let (task, issue, _) = loki_workspace::issue_task(reference, Instant::now() + cap)?;
    crate::cmd::build::run_task_with(global, task, RunKind::Build, flags, None, Some(issue))
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
