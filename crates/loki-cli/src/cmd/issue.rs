//! `loki owner/repo#N`, `loki <issue URL>`, `loki issue REF`: a build run from a GitHub, GitLab,
//! Jira or Linear issue. The issue is fetched ([`loki_intake`]) before anything else runs; its
//! text is the task, its normalised JSON is the run's `issue.json`, and its canonical reference
//! is the receipt's `task.ref`. The tracker credentials are read here, for this fetch only.

use std::time::{Duration, Instant};

use loki_core::env;
use loki_core::outcome::ExitCode;
use loki_intake::{Endpoints, Hosts, IssueRef};

use crate::cli::{BuildFlags, GlobalArgs, IssueArgs};
use crate::cmd::UsageError;

/// How long rate limits may be waited out while fetching an issue: the default run cap.
const FETCH_DEADLINE: Duration = loki_engine::DEFAULT_CAP;

/// The configured tracker hosts (self-hosted GitLab and Jira).
#[must_use]
pub fn hosts() -> Hosts {
    Hosts {
        gitlab_url: env::GITLAB_URL.get(),
        jira_base_url: env::JIRA_BASE_URL.get(),
    }
}

/// The trackers' endpoints and credentials from the environment.
#[must_use]
pub fn endpoints() -> Endpoints {
    let d = Endpoints::default();
    Endpoints {
        github_api_url: env::GITHUB_API_URL.get().unwrap_or(d.github_api_url),
        github_token: env::GITHUB_TOKEN.get(),
        gitlab_url: env::GITLAB_URL.get().unwrap_or(d.gitlab_url),
        gitlab_token: env::GITLAB_TOKEN.get(),
        jira_base_url: env::JIRA_BASE_URL.get(),
        jira_email: env::JIRA_EMAIL.get(),
        jira_api_token: env::JIRA_API_TOKEN.get(),
        linear_api_url: env::LINEAR_API_URL.get().unwrap_or(d.linear_api_url),
        linear_api_key: env::LINEAR_API_KEY.get(),
    }
}

/// Fetches `reference` and builds the task it asks for.
pub fn build(
    global: &GlobalArgs,
    reference: &IssueRef,
    flags: &BuildFlags,
) -> anyhow::Result<ExitCode> {
    let issue = loki_intake::fetch(reference, &endpoints(), Instant::now() + FETCH_DEADLINE)?;
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
    let Some(reference) = loki_intake::parse(&args.reference, &hosts())? else {
        return Err(UsageError(format!(
            "{:?} is not an issue reference: use owner/repo#N, an issue URL, jira:KEY-1 or linear:TEAM-1",
            args.reference
        ))
        .into());
    };
    build(global, &reference, &args.flags)
}
