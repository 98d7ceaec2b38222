//! `loki workspace run NAME TASK` apart from printing (the crate doc is the spec of the steps):
//! [`prepare`] checks every repository and reads the task before anything runs; the caller then
//! installs its interrupt handler and calls [`Prepared::run`], which runs each repository's setup
//! and engine run (and with `--pr` publishes it), the integration step and the comments, and
//! writes the record.
//!
//! # Failure modes
//! A repository that is not a git checkout, a dirty tree, a missing forge token (with `--pr`), an
//! issue that cannot be fetched, or options that cannot be made stop the run with an error before
//! (or, for options, instead of) the engine run. A failed setup, a refused engine run or a failed
//! publish are noted on the repository's row and the run goes on. After an interrupt, the
//! remaining repositories are not started and the integration step does not run.

use std::collections::BTreeMap;
use std::time::Instant;

use loki_core::config::workspaces::Workspace;
use loki_core::layout::Repo;
use loki_core::run::RunKind;
use loki_engine::{IssueInput, TaskInput};
use loki_intake::after::{DEFAULT_REMOTE, preflight_run};
use loki_intake::{Hosts, IssueRef};
use loki_process::Cancel;
use loki_protocol::outcome::ExitCode;

use crate::options::Setup;
use crate::{
    Integration, RepoRun, SETUP_TIMEOUT, WorkspaceError, WorkspaceRun, comment_all, exit_of,
    integrate, record_id, records_dir, shell,
};

/// What the caller asked for besides the task.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFlags {
    /// Run every check (`--deep`).
    pub deep: bool,
    /// Keep a run's worktree and branch when it made no change (`--keep`).
    pub keep: bool,
    /// Commit each change on its run's branch (not `--no-commit`).
    pub commit: bool,
    /// Publish each run's request and comment the integration status on it (`--pr`).
    pub pr: bool,
}

/// A workspace run whose every repository passed the checks, with its task read.
#[derive(Debug)]
pub struct Prepared {
    ws: Workspace,
    repos: Vec<Repo>,
    /// The task as the user gave it (text or an issue reference), for the record.
    task_arg: String,
    reference: Option<IssueRef>,
    task: TaskInput,
    issue: Option<IssueInput>,
    flags: RunFlags,
}

/// Checks workspace `name` of `all` before anything runs: every repository is a clean git
/// checkout, and with `--pr` has a forge token; then reads the task (the issue `task` names,
/// fetched once, or the text itself).
pub fn prepare(
    setup: &Setup<'_>,
    all: &BTreeMap<String, Workspace>,
    name: &str,
    task: &str,
    flags: RunFlags,
) -> Result<Prepared, WorkspaceError> {
    let ws = crate::named(all, name)?.clone();
    let mut repos = Vec::new();
    for r in &ws.repos {
        let repo = Repo::discover(&r.path).map_err(|e| WorkspaceError::NotARepo {
            workspace: ws.name.clone(),
            name: r.name.clone(),
            path: r.path.clone(),
            why: e.to_string(),
        })?;
        loki_engine::intake::preflight(&repo)?;
        repos.push(repo);
    }
    let reference = loki_intake::parse(task, &Hosts::from_env())?;
    if flags.pr {
        let canonical = reference.as_ref().map(IssueRef::canonical);
        for repo in &repos {
            preflight_run(repo, canonical.as_deref())?;
        }
    }
    let (text, issue) = match &reference {
        Some(r) => {
            let (task, issue, _) = crate::issue_task(r, Instant::now() + setup.cap())?;
            (task, Some(issue))
        }
        None => (
            TaskInput {
                text: task.to_string(),
                source: "text".into(),
            },
            None,
        ),
    };
    Ok(Prepared {
        ws,
        repos,
        task_arg: task.to_string(),
        reference,
        task: text,
        issue,
        flags,
    })
}

impl Prepared {
    /// Runs the workspace (crate doc): each repository in order, then the integration step and,
    /// with `--pr`, the comments; writes the record and returns it with the exit code.
    /// `on_row` is told each repository's row as its run ends.
    pub fn run(
        self,
        setup: &Setup<'_>,
        cancel: &Cancel,
        mut on_row: impl FnMut(&RepoRun),
    ) -> Result<(WorkspaceRun, ExitCode), WorkspaceError> {
        let started_at = loki_core::time::now_rfc3339();
        let mut rows = Vec::new();
        for (r, repo) in self.ws.repos.iter().zip(&self.repos) {
            let mut row = RepoRun {
                name: r.name.clone(),
                path: repo.root.clone(),
                run_id: None,
                outcome: "ERROR".into(),
                exit_code: ExitCode::Failure.code(),
                head_sha: None,
                pr: None,
                error: None,
            };
            if cancel.is_cancelled() {
                row.error = Some("interrupted before this repository's run".into());
                rows.push(row);
                continue;
            }
            if let Some(cmd) = &r.setup
                && let Err((_, why)) = shell(cmd, &repo.root, SETUP_TIMEOUT, &[])
            {
                row.error = Some(format!("setup failed: {why}"));
                rows.push(row);
                continue;
            }
            let (mut opts, _, _) =
                setup.build_options(self.task.clone(), RunKind::Build, self.flags.deep)?;
            opts.issue.clone_from(&self.issue);
            opts.keep = self.flags.keep;
            opts.commit = self.flags.commit;
            opts.cancel = cancel.clone();
            match loki_engine::run_build(repo, &opts, &loki_engine::Silent) {
                Ok(report) => {
                    row.run_id = Some(report.run_id.clone());
                    row.outcome = report.outcome.as_str().to_string();
                    row.exit_code = report.exit_code;
                    row.head_sha = Some(if report.head_sha.is_empty() {
                        report.base_sha.clone()
                    } else {
                        report.head_sha.clone()
                    });
                    if self.flags.pr && !report.interrupted {
                        let (pr, error) = crate::publish_after(repo, &report).cells();
                        row.pr = pr;
                        if error.is_some() {
                            row.error = error;
                        }
                    }
                }
                Err(e) => row.error = Some(e.to_string()),
            }
            on_row(&row);
            rows.push(row);
        }
        let integration = if cancel.is_cancelled() {
            Integration {
                command: self.ws.integration.clone(),
                status: "not run".into(),
                exit_code: None,
                detail: "interrupted".into(),
            }
        } else {
            integrate(&self.ws, &self.repos, &rows)
        };
        let exit = exit_of(&rows, &integration);
        let mut record = WorkspaceRun {
            schema: crate::SCHEMA.into(),
            id: record_id(),
            workspace: self.ws.name.clone(),
            task: self.task_arg,
            started_at,
            ended_at: loki_core::time::now_rfc3339(),
            repos: rows,
            integration,
            exit_code: exit.code(),
        };
        if self.flags.pr {
            comment_all(
                &self.ws,
                &self.repos,
                &mut record,
                self.reference.as_ref(),
                DEFAULT_REMOTE,
                Instant::now() + loki_engine::DEFAULT_CAP,
            );
        }
        let dir = records_dir(&self.repos[0]);
        std::fs::create_dir_all(&dir).map_err(|error| WorkspaceError::RecordsDir {
            path: dir.clone(),
            error,
        })?;
        loki_core::fs::write_json_atomic(&dir.join(format!("{}.json", record.id)), &record)?;
        Ok((record, exit))
    }
}
