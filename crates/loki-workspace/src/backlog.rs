//! `loki backlog` apart from printing: one build run per open issue of a GitHub repository or
//! GitLab project, N at a time ([`loki_intake::batch::build_all`]).
//!
//! # Flow
//! [`plan`] lists the issues through the tracker's API ([`loki_intake::backlog::list`],
//! paginated) or takes those named (sorted, each once; their titles come when each is fetched).
//! [`Backlog::preflight`] makes the checks of a single build once: a clean tree, a provider that
//! can be built, with `--pr` the forge's token, then creates `.loki/`. [`Backlog::run`] builds
//! each issue with its own engine run ([`loki_engine::run_build`]) in its own worktree on the
//! branch [`branch`] `loki/backlog-<N>`, then with `--pr` publishes it as `loki pr <run>` would.
//!
//! # Running several runs in one repository
//! The engine is safe for this: a run's id is claimed by an exclusive `mkdir`
//! (`RunStore::start`), its worktree `.loki/worktrees/<run-id>` and branch are its own, every
//! state file is written atomically (unique temp file + rename), the agent's git directory is
//! private to the run, and `git` itself locks each ref it changes. `.loki/` is created once
//! before the workers start, so its `info/exclude` line is written once. A branch
//! `loki/backlog-<N>` left by an earlier backlog refuses that issue's run (delete it first).
//!
//! # Rows and exit code
//! Every issue gets a row ([`IssueRow`]); an issue that could not be fetched, given options or
//! built is an `ERROR` row with the code of its error, one not started after an interrupt a
//! `SKIPPED` row (exit 130). The caller's exit code is [`loki_intake::batch::worst`] of the rows.

use std::time::Instant;

use loki_core::exit::Classify;
use loki_core::layout::Repo;
use loki_core::run::RunKind;
use loki_engine::TaskInput;
use loki_intake::after::preflight_run;
use loki_intake::backlog::{Listed, Project};
use loki_intake::batch::IssueRow;
use loki_intake::{Endpoints, Hosts};
use loki_process::Cancel;
use loki_protocol::outcome::ExitCode;

use crate::options::Setup;
use crate::run::RunFlags;
use crate::{WorkspaceError, chain_text};

/// The issues a backlog builds, in number order.
#[derive(Debug)]
pub struct Backlog {
    pub project: Project,
    pub items: Vec<Listed>,
}

/// The branch issue `number` is built on.
#[must_use]
pub fn branch(number: u64) -> String {
    format!("loki/backlog-{number}")
}

/// The backlog of `project` (`owner/repo`, a GitLab path, a URL): the `issues` named, or when
/// none are, the open issues (with `label`, when given) listed within the run cap.
pub fn plan(
    setup: &Setup<'_>,
    project: &str,
    issues: &[u64],
    label: Option<&str>,
) -> Result<Backlog, WorkspaceError> {
    let project = Project::parse(project, &Hosts::from_env())?;
    let items = if issues.is_empty() {
        let deadline = Instant::now() + setup.cap();
        loki_intake::backlog::list(&project, label, &Endpoints::from_env(), deadline)?
    } else {
        let mut n = issues.to_vec();
        n.sort_unstable();
        n.dedup();
        n.into_iter()
            .map(|number| Listed {
                number,
                title: String::new(),
            })
            .collect()
    };
    Ok(Backlog { project, items })
}

impl Backlog {
    /// The checks of a single build, once, before any run (module doc); creates `.loki/`.
    pub fn preflight(
        &self,
        setup: &Setup<'_>,
        repo: &Repo,
        flags: RunFlags,
    ) -> Result<(), WorkspaceError> {
        loki_engine::intake::preflight(repo)?;
        let task = TaskInput {
            text: "preflight".into(),
            source: "backlog".into(),
        };
        setup.build_options(task, RunKind::Build, flags.deep)?;
        if let (true, Some(first)) = (flags.pr, self.items.first()) {
            let first = self.project.issue(first.number).canonical();
            preflight_run(repo, Some(&first))?;
        }
        repo.ensure_loki_dir()?;
        Ok(())
    }

    /// Builds every issue on `workers` threads; `done` is told each row as its issue ends. The
    /// rows come back in issue order.
    pub fn run(
        &self,
        setup: &Setup<'_>,
        repo: &Repo,
        flags: RunFlags,
        workers: usize,
        cancel: &Cancel,
        done: impl Fn(&IssueRow) + Sync,
    ) -> Vec<IssueRow> {
        let one = |item: &Listed| self.one(setup, repo, flags, cancel, item);
        loki_intake::batch::build_all(&self.items, workers, one, done)
    }

    /// One issue: fetched, built, and with `--pr` published.
    fn one(
        &self,
        setup: &Setup<'_>,
        repo: &Repo,
        flags: RunFlags,
        cancel: &Cancel,
        item: &Listed,
    ) -> IssueRow {
        if cancel.is_cancelled() {
            return IssueRow::failed(
                item,
                ExitCode::Interrupted.code(),
                "SKIPPED",
                "the backlog was interrupted before this issue started".into(),
            );
        }
        let reference = self.project.issue(item.number);
        let (task, issue, title) = match crate::issue_task(&reference, Instant::now() + setup.cap())
        {
            Ok(t) => t,
            Err(e) => {
                return IssueRow::failed(item, e.exit_class().code(), "ERROR", e.to_string());
            }
        };
        let mut opts = match setup.build_options(task, RunKind::Build, flags.deep) {
            Ok((o, _, _)) => o,
            Err(e) => {
                return IssueRow::failed(item, ExitCode::Usage.code(), "ERROR", chain_text(&e));
            }
        };
        opts.issue = Some(issue);
        opts.branch = Some(branch(item.number));
        opts.keep = flags.keep;
        opts.commit = flags.commit;
        opts.cancel = cancel.clone();
        let report = match loki_engine::run_build(repo, &opts, &loki_engine::Silent) {
            Ok(r) => r,
            Err(e) => {
                let mut row = IssueRow::failed(item, e.exit_class().code(), "ERROR", e.to_string());
                row.title = title;
                return row;
            }
        };
        let mut row = IssueRow {
            issue: item.number,
            title,
            verdict: report.outcome.as_str().to_string(),
            run_id: Some(report.run_id.clone()),
            pr: None,
            exit_code: report.exit_code,
            error: None,
        };
        if flags.pr && !report.interrupted {
            let pr = crate::publish_after(repo, &report);
            row.exit_code = pr.exit(ExitCode::from_code(report.exit_code)).code();
            (row.pr, row.error) = pr.cells();
        }
        row
    }
}
