//! The pull or merge request a CI job runs for, read from what the CI system sets.
//!
//! - GitHub Actions (`GITHUB_ACTIONS=true`): the event file `GITHUB_EVENT_PATH` of a
//!   `pull_request` (or `pull_request_target`) event: `pull_request.number`, `.head.sha`,
//!   `.base.ref`, `.html_url`, `.head.repo.full_name` and `repository.full_name`. A request
//!   from a fork is marked [`Request::fork`]: GitHub gives its jobs a read-only token. The job's
//!   page is `GITHUB_SERVER_URL/<repo>/actions/runs/GITHUB_RUN_ID`.
//! - GitLab CI (`GITLAB_CI=true`) in a merge request pipeline: `CI_PROJECT_PATH`,
//!   `CI_MERGE_REQUEST_IID`, `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`, the head
//!   `CI_MERGE_REQUEST_SOURCE_BRANCH_SHA` (merged results pipelines) else `CI_COMMIT_SHA`,
//!   `CI_PROJECT_URL` and `CI_JOB_URL` for links.
//!
//! A variable that is missing or does not read is an error naming it, before anything runs.

use std::path::Path;

use loki_core::env::{self, Var};
use serde_json::Value;

use crate::IntakeError;
use crate::pr::Forge;

/// Which CI system a job runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ci {
    GithubActions,
    GitlabCi,
}

impl Ci {
    /// The CI system of this process's environment, if it is one loki knows.
    #[must_use]
    pub fn detect() -> Option<Ci> {
        if env::GITHUB_ACTIONS.get().as_deref() == Some("true") {
            Some(Ci::GithubActions)
        } else if env::GITLAB_CI.get().as_deref() == Some("true") {
            Some(Ci::GitlabCi)
        } else {
            None
        }
    }
}

/// A pull or merge request, as its CI job sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub forge: Forge,
    /// The pull request's number or the merge request's iid.
    pub number: u64,
    /// The request's head commit: where the check run or commit status goes.
    pub head_sha: String,
    /// The branch it merges into.
    pub target: String,
    /// The request's web page, when known.
    pub url: Option<String>,
    /// The CI job's (or run's) web page, when known.
    pub job_url: Option<String>,
    /// A GitHub pull request from another repository: its jobs hold a read-only token.
    pub fork: bool,
}

impl Request {
    /// `github:owner/repo#7`, `gitlab:group/project!3`: the receipt's task reference.
    #[must_use]
    pub fn reference(&self) -> String {
        match &self.forge {
            Forge::Github { owner, repo } => format!("github:{owner}/{repo}#{}", self.number),
            Forge::Gitlab { project } => format!("gitlab:{project}!{}", self.number),
        }
    }

    /// The request of `ci`'s environment.
    pub fn from_env(ci: Ci) -> Result<Request, IntakeError> {
        match ci {
            Ci::GithubActions => github(),
            Ci::GitlabCi => gitlab(),
        }
    }
}

fn required(var: Var, what: &'static str) -> Result<String, IntakeError> {
    var.get().ok_or(IntakeError::Missing {
        var: var.name,
        what,
    })
}

fn bad(var: &Var, why: impl Into<String>) -> IntakeError {
    IntakeError::CiContext {
        var: var.name,
        why: why.into(),
    }
}

fn github() -> Result<Request, IntakeError> {
    let path = required(
        env::GITHUB_EVENT_PATH,
        "judging a pull request in GitHub Actions",
    )?;
    let text = std::fs::read_to_string(Path::new(&path))
        .map_err(|e| bad(&env::GITHUB_EVENT_PATH, format!("cannot read {path}: {e}")))?;
    let event: Value = serde_json::from_str(&text)
        .map_err(|e| bad(&env::GITHUB_EVENT_PATH, format!("{path} is not JSON: {e}")))?;
    let server = env::GITHUB_SERVER_URL.get();
    let run = env::GITHUB_RUN_ID.get();
    github_of_event(&event, server.as_deref(), run.as_deref())
}

/// The request of a GitHub event (pure: the event's JSON, the server URL and the run id).
pub fn github_of_event(
    event: &Value,
    server: Option<&str>,
    run_id: Option<&str>,
) -> Result<Request, IntakeError> {
    let pr = &event["pull_request"];
    let no = |field: &str| {
        bad(
            &env::GITHUB_EVENT_PATH,
            format!(
                "the event has no {field}: loki ci judges pull requests (run it on: pull_request)"
            ),
        )
    };
    let number = pr["number"]
        .as_u64()
        .ok_or_else(|| no("pull_request.number"))?;
    let text = |v: &Value, field: &str| v.as_str().map(str::to_string).ok_or_else(|| no(field));
    let head_sha = text(&pr["head"]["sha"], "pull_request.head.sha")?;
    let target = text(&pr["base"]["ref"], "pull_request.base.ref")?;
    let full = text(&event["repository"]["full_name"], "repository.full_name")?;
    let (owner, repo) = full
        .split_once('/')
        .ok_or_else(|| no("repository.full_name of the form owner/repo"))?;
    let head_repo = pr["head"]["repo"]["full_name"].as_str();
    Ok(Request {
        forge: Forge::Github {
            owner: owner.to_string(),
            repo: repo.to_string(),
        },
        number,
        head_sha,
        target,
        url: pr["html_url"].as_str().map(str::to_string),
        job_url: server
            .zip(run_id)
            .map(|(s, r)| format!("{}/{full}/actions/runs/{r}", s.trim_end_matches('/'))),
        fork: head_repo.is_some_and(|h| !h.eq_ignore_ascii_case(&full)),
    })
}

fn gitlab() -> Result<Request, IntakeError> {
    const WHAT: &str = "judging a merge request in GitLab CI (a merge request pipeline)";
    let project = required(env::CI_PROJECT_PATH, WHAT)?;
    let iid_text = required(env::CI_MERGE_REQUEST_IID, WHAT)?;
    let number = iid_text.trim().parse::<u64>().map_err(|_| {
        bad(
            &env::CI_MERGE_REQUEST_IID,
            format!("{iid_text:?} is not a number"),
        )
    })?;
    let target = required(env::CI_MERGE_REQUEST_TARGET_BRANCH_NAME, WHAT)?;
    let head_sha = match env::CI_MERGE_REQUEST_SOURCE_BRANCH_SHA.get() {
        Some(sha) => sha,
        None => required(env::CI_COMMIT_SHA, WHAT)?,
    };
    Ok(Request {
        url: env::CI_PROJECT_URL
            .get()
            .map(|u| format!("{}/-/merge_requests/{number}", u.trim_end_matches('/'))),
        forge: Forge::Gitlab { project },
        number,
        head_sha,
        target,
        job_url: env::CI_JOB_URL.get(),
        fork: false,
    })
}

/// Where the checkout at `repo_root` forked from branch `target` of `remote`: the branch is
/// fetched (with the rest of the history, in a shallow checkout) and the merge base of `HEAD`
/// and it returned. A pull request's merge commit gives the target's tip; a merge request's head
/// gives where it branched off.
pub fn fork_point(repo_root: &Path, remote: &str, target: &str) -> Result<String, IntakeError> {
    let git = loki_git::Git::new(repo_root);
    let tracking = git.fetch_branch(remote, target)?;
    git.merge_base("HEAD", &tracking)?
        .ok_or(IntakeError::NoForkPoint { target: tracking })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pull_request_event_names_the_request_and_a_fork_is_marked() {
        let event = json!({"pull_request": {"number": 7, "html_url": "https://github.com/o/r/pull/7",
            "head": {"sha": "abc", "repo": {"full_name": "o/r"}}, "base": {"ref": "main"}},
            "repository": {"full_name": "o/r"}});
        let r = github_of_event(&event, Some("https://github.com/"), Some("42")).unwrap();
        assert_eq!(r.reference(), "github:o/r#7");
        assert_eq!(
            r.job_url.as_deref(),
            Some("https://github.com/o/r/actions/runs/42")
        );
        assert!(!r.fork);
        let mut forked = event.clone();
        forked["pull_request"]["head"]["repo"]["full_name"] = json!("someone/r");
        assert!(github_of_event(&forked, None, None).unwrap().fork);
        // A push event is not a pull request: the error says what to run on.
        let err = github_of_event(&json!({"ref": "refs/heads/main"}), None, None).unwrap_err();
        assert!(err.to_string().contains("on: pull_request"), "{err}");
        assert!(err.to_string().contains("GITHUB_EVENT_PATH"), "{err}");
    }
}
