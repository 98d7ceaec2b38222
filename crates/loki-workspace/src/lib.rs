//! The orchestration of loki's commands, apart from printing (the binary parses flags, calls one
//! function here and prints):
//! - [`flags`]: command flags that are configuration keys, as the top configuration layer;
//! - [`options`]: build options from the configuration (the provider chosen and built, prices,
//!   caps, the model box's network), for every command that starts a model;
//! - [`run`] and this module: workspace runs, one task across the repositories of a workspace
//!   (`[workspaces.<name>]` in `loki.toml`, see `loki_core::config::workspaces`): the checks
//!   before anything runs, each repository's run, the setup and integration steps ([`shell`],
//!   [`integrate`]), the record ([`WorkspaceRun`], [`newest`]), the exit code ([`exit_of`]) and
//!   the integration comments ([`comment_all`]);
//! - [`improve`]: one `loki improve` cycle with the user's provider and build options;
//! - [`backlog`]: one build run per open issue of a tracker project, N at a time;
//! - [`contract`]: `loki contract SPEC`, the delivery contract written for later runs;
//! - [`checks`]: `loki checks run`, the repository's suites run and recorded as evidence;
//! - [`demo`]: `loki demo`, the build engine on the bundled example, then verified;
//! - [`verify`]: what `loki verify [target]` checks;
//! - [`modelbox`]: the model box in words, as `loki doctor` and every model-driven command say it;
//! - what they share: [`issue_task`] (an issue fetched into a run's task), [`publish_after`]
//!   (`--pr` once a run has sealed), [`resolve_run`] (`latest` or an id), [`exit_code`] (an
//!   engine status back to its exit code).
//!
//! Errors are [`WorkspaceError`] (each classified for its exit code); the crates called keep
//! their own words and classes through it.
//!
//! # `run NAME TASK`
//! The task (text, or an issue reference fetched once) is checked like a single build's: every
//! repository must be a clean git checkout, and with `--pr` have a forge token, before anything
//! runs. Then, one repository after another: its `setup` command (in the repository, scrubbed
//! environment, [`SETUP_TIMEOUT`]), its own engine run, and with `--pr` its request published as
//! `loki pr <run>` would. Then the integration step: a scratch directory with a detached
//! worktree of every repository at its run's head (the base when the run left no commit), each
//! under its name; each repository's `after` command in its checkout, then `integration` in the
//! scratch directory ([`INTEGRATION_TIMEOUT`], the scrubbed environment plus `LOKI_WORKSPACE`).
//! The worktrees are removed afterwards. With `--pr`, every request gets a comment with the
//! integration status and every repository's head.
//!
//! # Exit code
//! 0 only when every run ended VERIFIED or ALREADY_SATISFIED and the integration step passed (or
//! there is none); 3 when the only failures are budget stops; else 1.
//!
//! # Record
//! `<first repository>/.loki/workspaces/<id>.json` (`loki.workspace-run/1`), written atomically
//! when the run ends; `status` reads the newest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_core::config::workspaces::Workspace;
use loki_core::layout::Repo;
use loki_git::Git;
use loki_intake::{Endpoints, Hosts};
use loki_process::{Spec, run as run_process, scrubbed_env};
use loki_protocol::outcome::ExitCode;
use serde::{Deserialize, Serialize};

pub mod backlog;
pub mod checks;
pub mod contract;
pub mod demo;
mod error;
pub mod flags;
pub mod improve;
pub mod modelbox;
pub mod options;
#[cfg(test)]
mod orchestration_tests;
pub mod run;
pub mod single;
pub mod verify;

pub use error::{WorkspaceError, chain_text};

/// How long a repository's `setup` or `after` command may take.
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// How long the integration command may take (an end-to-end suite over several services).
pub const INTEGRATION_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How much of a failed command's output the record keeps.
const TAIL_CHARS: usize = 2000;
pub const SCHEMA: &str = "loki.workspace-run/1";

/// One repository's part of a workspace run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RepoRun {
    pub name: String,
    pub path: PathBuf,
    pub run_id: Option<String>,
    /// The run's outcome, or `ERROR` when there was no run (a failed setup, a refused run).
    pub outcome: String,
    pub exit_code: u8,
    /// The head the integration step checked out.
    pub head_sha: Option<String>,
    pub pr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The integration step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Integration {
    pub command: Option<String>,
    /// `passed`, `failed`, or `not run`.
    pub status: String,
    pub exit_code: Option<i32>,
    /// Why it failed or did not run, and the tail of its output.
    pub detail: String,
}

/// `loki.workspace-run/1`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkspaceRun {
    pub schema: String,
    pub id: String,
    pub workspace: String,
    pub task: String,
    pub started_at: String,
    pub ended_at: String,
    pub repos: Vec<RepoRun>,
    pub integration: Integration,
    pub exit_code: u8,
}

/// A workspace name no `[workspaces.<name>]` declares.
#[derive(Debug, thiserror::Error)]
#[error("no workspace {name:?} in loki.toml (declared: {declared})")]
pub struct UnknownWorkspace {
    pub name: String,
    /// The declared names, comma-separated, or `none`.
    pub declared: String,
}

impl loki_core::exit::Classify for UnknownWorkspace {
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        loki_core::exit::ExitClass::Usage
    }
}

/// The workspace `name` of `all`.
pub fn named<'a>(
    all: &'a BTreeMap<String, Workspace>,
    name: &str,
) -> Result<&'a Workspace, UnknownWorkspace> {
    all.get(name).ok_or_else(|| {
        let known: Vec<&str> = all.keys().map(String::as_str).collect();
        UnknownWorkspace {
            name: name.to_string(),
            declared: if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            },
        }
    })
}

/// Runs `command` with `sh -c` in `cwd`: `Ok(())` or the failure with its output's tail.
pub fn shell(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    extra: &[(&str, &str)],
) -> Result<(), (Option<i32>, String)> {
    let mut spec = Spec::new("sh", cwd)
        .arg("-c")
        .arg(command)
        .envs(scrubbed_env())
        .timeout(timeout);
    for (k, v) in extra {
        spec = spec.env(*k, *v);
    }
    match run_process(&spec) {
        Ok(out) if out.success() => Ok(()),
        Ok(out) => Err((
            Some(out.exit_code()),
            format!(
                "`{command}` exited {}{}: {}",
                out.exit_code(),
                if out.timed_out { " (timed out)" } else { "" },
                out.output.tail_text(TAIL_CHARS)
            ),
        )),
        Err(e) => Err((None, format!("`{command}` could not run: {e}"))),
    }
}

/// What `--pr` does once the run of `report` has sealed
/// ([`loki_intake::after::after_build`]): publishes it, or says why not.
#[must_use]
pub fn publish_after(
    repo: &Repo,
    report: &loki_engine::BuildReport,
) -> loki_intake::after::AfterBuild {
    let sealed = loki_intake::after::SealedRun {
        run_id: &report.run_id,
        branch: &report.branch,
        outcome: report.outcome.as_str(),
    };
    loki_intake::after::after_build(repo, sealed)
}

/// The run a command names: an id, or `latest` for the newest run of `store`
/// ([`WorkspaceError::NoRuns`] when there is none).
pub fn resolve_run(
    store: &loki_core::run::RunStore,
    arg: &str,
) -> Result<loki_core::RunId, WorkspaceError> {
    if arg == "latest" {
        return store.latest()?.ok_or_else(|| WorkspaceError::NoRuns {
            dir: store.repo().runs_dir(),
        });
    }
    Ok(arg.parse::<loki_core::RunId>()?)
}

/// The task and `issue.json` of a build run from issue `reference`, fetched within `deadline`
/// (rate limits are waited out inside it), and the issue's title.
pub fn issue_task(
    reference: &loki_intake::IssueRef,
    deadline: Instant,
) -> Result<(loki_engine::TaskInput, loki_engine::IssueInput, String), WorkspaceError> {
    let issue = loki_intake::fetch(reference, &Endpoints::from_env(), deadline)?;
    let json = serde_json::to_vec_pretty(&issue)?;
    let task = loki_engine::TaskInput {
        text: issue.task_text(),
        source: issue.source.clone(),
    };
    let input = loki_engine::IssueInput {
        reference: issue.reference,
        json,
    };
    Ok((task, input, issue.title))
}

/// `ws_<UTC time>_<random>`: sorts by time, like run ids.
pub fn record_id() -> String {
    let id = loki_core::RunId::new();
    format!("ws_{}", id.as_str().trim_start_matches("run_"))
}

pub fn records_dir(first: &Repo) -> PathBuf {
    first.loki_dir().join("workspaces")
}

/// See the module doc: 0 all good, 3 only budget stops, else 1.
pub fn exit_of(rows: &[RepoRun], integration: &Integration) -> ExitCode {
    let good = |r: &RepoRun| r.exit_code == 0 && r.error.is_none();
    let budget = ExitCode::BudgetStop.code();
    let integration_ok = integration.status != "failed";
    if rows.iter().all(good) && integration_ok {
        ExitCode::Success
    } else if integration_ok
        && rows
            .iter()
            .all(|r| good(r) || (r.exit_code == budget && r.error.is_none()))
    {
        ExitCode::BudgetStop
    } else {
        ExitCode::Failure
    }
}

/// The integration step (module doc).
pub fn integrate(ws: &Workspace, repos: &[Repo], rows: &[RepoRun]) -> Integration {
    let not_run = |detail: String| Integration {
        command: ws.integration.clone(),
        status: "not run".into(),
        exit_code: None,
        detail,
    };
    let Some(command) = ws.integration.clone() else {
        return not_run("the workspace has no integration command".into());
    };
    if let Some(r) = rows.iter().find(|r| r.head_sha.is_none()) {
        return not_run(format!("{} has no run to check out", r.name));
    }
    let scratch = match loki_core::scratch::Scratch::new("loki-workspace-") {
        Ok(d) => d,
        Err(e) => return not_run(format!("cannot create a scratch directory: {e}")),
    };
    let mut added: Vec<(Git, PathBuf)> = Vec::new();
    let mut failure = None;
    for ((spec, repo), row) in ws.repos.iter().zip(repos).zip(rows) {
        let at = scratch.path().join(&spec.name);
        let git = Git::new(&repo.root);
        let head = row.head_sha.clone().unwrap_or_default();
        if let Err(e) = git.worktree_add_detached(&at, &head) {
            failure = Some(not_run(format!(
                "cannot check out {} at {head}: {e}",
                spec.name
            )));
            break;
        }
        added.push((git, at.clone()));
        if let Some(after) = &spec.after
            && let Err((code, why)) = shell(after, &at, SETUP_TIMEOUT, &[])
        {
            failure = Some(Integration {
                command: Some(command.clone()),
                status: "failed".into(),
                exit_code: code,
                detail: format!("{}'s after command failed: {why}", spec.name),
            });
            break;
        }
    }
    let result = failure.unwrap_or_else(|| {
        match shell(
            &command,
            scratch.path(),
            INTEGRATION_TIMEOUT,
            &[(loki_core::env::WORKSPACE.name, &ws.name)],
        ) {
            Ok(()) => Integration {
                command: Some(command.clone()),
                status: "passed".into(),
                exit_code: Some(0),
                detail: String::new(),
            },
            Err((code, why)) => Integration {
                command: Some(command.clone()),
                status: "failed".into(),
                exit_code: code,
                detail: why,
            },
        }
    });
    // The checkouts are scratch: a failure to remove one leaves a prunable worktree, no harm.
    for (git, at) in added {
        let _ = git.worktree_remove(&at);
    }
    result
}

/// The integration status line of the summary and of the comments.
pub fn integration_line(i: &Integration) -> String {
    match (i.status.as_str(), i.exit_code) {
        ("failed", Some(c)) => format!("failed (exit {c})"),
        ("not run", _) => format!("not run ({})", i.detail),
        (s, _) => s.to_string(),
    }
}

/// The comment each request gets: the integration status and every repository's head.
pub fn comment_body(record: &WorkspaceRun) -> String {
    let mut s = format!(
        "## loki workspace `{}`: integration {}\n\n",
        record.workspace,
        integration_line(&record.integration)
    );
    if let Some(c) = &record.integration.command {
        s.push_str(&format!("Integration command: `{c}`\n\n"));
    }
    s.push_str("| repository | run | outcome | head |\n|---|---|---|---|\n");
    for r in &record.repos {
        s.push_str(&format!(
            "| {} | {} | {} | `{}` |\n",
            r.name,
            r.run_id.as_deref().unwrap_or("-"),
            r.outcome,
            r.head_sha.as_deref().unwrap_or("-")
        ));
    }
    s
}

/// Comments on every request the run opened (found through `remote`, each call bounded by
/// `deadline`); a comment that fails is noted on its row.
pub fn comment_all(
    ws: &Workspace,
    repos: &[Repo],
    record: &mut WorkspaceRun,
    reference: Option<&loki_intake::IssueRef>,
    remote: &str,
    deadline: Instant,
) {
    let body = comment_body(record);
    let canonical = reference.map(loki_intake::IssueRef::canonical);
    let (e, hosts) = (Endpoints::from_env(), Hosts::from_env());
    for ((row, repo), _) in record.repos.iter_mut().zip(repos).zip(&ws.repos) {
        let Some(run_id) = row.run_id.clone() else {
            continue;
        };
        if row.pr.is_none() {
            continue;
        }
        let number = std::fs::read(
            loki_core::run::RunStore::new(repo.clone())
                .dir(&match run_id.parse() {
                    Ok(id) => id,
                    Err(_) => continue,
                })
                .join("pr.json"),
        )
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["number"].as_u64());
        let forge = loki_intake::pr::forge_of_run(repo, remote, canonical.as_deref(), &hosts);
        let result = match (forge, number) {
            (Some(f), Some(n)) => {
                loki_intake::pr::comment(&f, n, &body, &e, deadline).map_err(|err| err.to_string())
            }
            _ => Err("its request cannot be found again (pr.json)".into()),
        };
        if let Err(why) = result {
            row.error = Some(format!("the integration comment failed: {why}"));
        }
    }
}

/// The newest record of any of `candidates`, read from its first repository's records.
#[must_use]
pub fn newest<'a>(candidates: impl IntoIterator<Item = &'a Workspace>) -> Option<WorkspaceRun> {
    let mut newest: Option<WorkspaceRun> = None;
    for w in candidates {
        let Some(first) = w.repos.first() else {
            continue;
        };
        let Ok(repo) = Repo::discover(&first.path) else {
            continue;
        };
        let Ok(entries) = std::fs::read_dir(records_dir(&repo)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(bytes) = std::fs::read(e.path()) else {
                continue;
            };
            let Ok(rec) = serde_json::from_slice::<WorkspaceRun>(&bytes) else {
                continue;
            };
            if rec.workspace == w.name && newest.as_ref().is_none_or(|n| rec.id > n.id) {
                newest = Some(rec);
            }
        }
    }
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(exit_code: u8, error: Option<&str>) -> RepoRun {
        RepoRun {
            name: "r".into(),
            path: PathBuf::from("/r"),
            run_id: None,
            outcome: String::new(),
            exit_code,
            head_sha: None,
            pr: None,
            error: error.map(str::to_string),
        }
    }

    fn integration(status: &str) -> Integration {
        Integration {
            command: None,
            status: status.into(),
            exit_code: None,
            detail: String::new(),
        }
    }

    #[test]
    fn the_exit_code_is_0_only_when_all_succeed_and_3_for_budget_stops_only() {
        let (ok, budget, failed) = (row(0, None), row(3, None), row(1, None));
        let passed = integration("passed");
        let cases = [
            (vec![ok.clone(), ok.clone()], &passed, 0),
            (vec![ok.clone()], &integration("not run"), 0),
            (vec![ok.clone(), budget.clone()], &passed, 3),
            (vec![budget.clone(), budget.clone()], &passed, 3),
            (vec![budget.clone(), failed.clone()], &passed, 1),
            (vec![ok.clone(), ok.clone()], &integration("failed"), 1),
            (vec![budget.clone()], &integration("failed"), 1),
            (
                vec![ok.clone(), row(0, Some("the comment failed"))],
                &passed,
                1,
            ),
            (vec![row(4, None)], &passed, 1),
        ];
        for (rows, i, want) in cases {
            assert_eq!(exit_of(&rows, i).code(), want, "{rows:?} {i:?}");
        }
    }
}
