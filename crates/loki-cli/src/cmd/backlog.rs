//! `loki backlog owner/repo (--label X | --issues 1,2,3 | --all) [--concurrency N] [--dry-run]
//! [--pr]`: one build run per open issue of a GitHub repository or GitLab project.
//!
//! # Flow
//! The issues are listed through the tracker's API ([`loki_intake::backlog::list`], paginated)
//! or named with `--issues`. `--dry-run` prints what would run and stops. Otherwise, after the
//! same preflights as one build (a clean tree, the provider, and with `--pr` the forge token),
//! N worker threads take the issues in number order; each issue is fetched and built by its own
//! engine run ([`loki_engine::run_build`]) in its own worktree on the branch
//! `loki/backlog-<N>`, then, with `--pr`, published as `loki pr <run>` would.
//!
//! # Running several runs in one repository
//! The engine is safe for this: a run's id is claimed by an exclusive `mkdir`
//! (`RunStore::start`), its worktree `.loki/worktrees/<run-id>` and branch are its own, every
//! state file is written atomically (unique temp file + rename), the agent's git directory is
//! private to the run, and `git` itself locks each ref it changes. `.loki/` is created once
//! before the workers start, so its `info/exclude` line is written once. A branch
//! `loki/backlog-<N>` left by an earlier backlog refuses that issue's run (delete it first).
//!
//! # Output and exit code
//! A line on stderr as each issue ends, then a table on stdout (issue, title, verdict, run, pull
//! request) or, with `--json`, one object `{project, issues: [...], exit_code}`. The exit code is
//! the worst of the runs' own codes (the outcome ladder: a higher code is never better news); an
//! issue that could not be built counts with the code of its error.

use std::time::{Duration, Instant};

use loki_core::exit::Classify;
use loki_core::outcome::ExitCode;
use loki_core::run::RunKind;
use loki_intake::backlog::{Listed, Project};
use loki_intake::batch::IssueRow;
use loki_intake::{Endpoints, Hosts};
use loki_process::Cancel;

use crate::cli::{BacklogArgs, GlobalArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// What every worker shares.
struct Shared<'a> {
    ctx: &'a Ctx,
    repo: loki_core::layout::Repo,
    project: Project,
    args: &'a BacklogArgs,
    endpoints: Endpoints,
    cap: Duration,
    cancel: Cancel,
}

/// `loki backlog`.
pub fn run(global: &GlobalArgs, args: &BacklogArgs) -> anyhow::Result<ExitCode> {
    if args.flags.contract.is_some() {
        return Err(UsageError(
            "--contract names one contract, and a backlog builds many issues: each is judged by its own criteria".into(),
        )
        .into());
    }
    let ctx = Ctx::load_with(global, &args.flags.config_flags())?;
    let repo = ctx.repo()?;
    let project = Project::parse(&args.project, &Hosts::from_env())?;
    let cap = ctx
        .config
        .uint("run.cap_s")
        .map_or(loki_engine::DEFAULT_CAP, Duration::from_secs);
    let endpoints = Endpoints::from_env();
    let items: Vec<Listed> = if args.issues.is_empty() {
        let label = if args.all {
            None
        } else {
            args.label.as_deref()
        };
        loki_intake::backlog::list(&project, label, &endpoints, Instant::now() + cap)?
    } else {
        let mut n = args.issues.clone();
        n.sort_unstable();
        n.dedup();
        // Their titles come with each issue when it is fetched.
        n.into_iter()
            .map(|number| Listed {
                number,
                title: String::new(),
            })
            .collect()
    };
    if args.dry_run {
        return dry_run(global, &project, &items, args.concurrency);
    }
    if items.is_empty() {
        anstream::eprintln!(
            "{}: no open issue matches; nothing to build",
            project.canonical()
        );
        return Ok(ExitCode::Success);
    }
    // The preflights of a single build, once: a clean tree, a provider that can be built, and
    // with --pr the forge's token.
    loki_engine::intake::preflight(&repo)?;
    crate::cmd::build::options(
        &ctx,
        loki_engine::TaskInput {
            text: "preflight".into(),
            source: "backlog".into(),
        },
        RunKind::Build,
        args.flags.deep,
    )?;
    if args.flags.pr {
        let first = project.issue(items[0].number).canonical();
        crate::cmd::pr::preflight(&repo, Some(&first))?;
    }
    repo.ensure_loki_dir()?;
    let cancel = crate::interrupt::install_cancel(
        "the backlog was stopped: each started run sealed its receipt; `loki runs list` shows them",
    )?;
    let shared = Shared {
        ctx: &ctx,
        repo,
        project,
        args,
        endpoints,
        cap,
        cancel,
    };
    let rows = loki_intake::batch::build_all(
        &items,
        args.concurrency as usize,
        |item| one(&shared, item),
        |row| {
            if !global.quiet {
                anstream::eprintln!(
                    "#{} {} {}",
                    row.issue,
                    row.verdict,
                    row.run_id.as_deref().unwrap_or("")
                );
            }
        },
    );
    let worst = loki_intake::batch::worst(&rows);
    if global.json {
        anstream::println!(
            "{}",
            serde_json::json!({"project": shared.project.canonical(), "issues": rows, "exit_code": worst})
        );
    } else {
        anstream::print!("{}", loki_intake::batch::table(&rows));
        for r in &rows {
            if let Some(e) = &r.error {
                anstream::eprintln!("#{}: {e}", r.issue);
            }
        }
    }
    Ok(crate::cmd::build::exit_of(worst))
}

/// One issue: fetched, built, and with `--pr` published.
fn one(s: &Shared<'_>, item: &Listed) -> IssueRow {
    if s.cancel.is_cancelled() {
        return IssueRow::failed(
            item,
            ExitCode::Interrupted.code(),
            "SKIPPED",
            "the backlog was interrupted before this issue started".into(),
        );
    }
    let reference = s.project.issue(item.number);
    let issue = match loki_intake::fetch(&reference, &s.endpoints, Instant::now() + s.cap) {
        Ok(i) => i,
        Err(e) => return IssueRow::failed(item, e.exit_class().code(), "ERROR", e.to_string()),
    };
    let title = issue.title.clone();
    let json = match serde_json::to_vec_pretty(&issue) {
        Ok(j) => j,
        Err(e) => return IssueRow::failed(item, ExitCode::Failure.code(), "ERROR", e.to_string()),
    };
    let task = loki_engine::TaskInput {
        text: issue.task_text(),
        source: issue.source.clone(),
    };
    let mut opts = match crate::cmd::build::options(s.ctx, task, RunKind::Build, s.args.flags.deep)
    {
        Ok((o, _, _)) => o,
        Err(e) => return IssueRow::failed(item, ExitCode::Usage.code(), "ERROR", format!("{e:#}")),
    };
    opts.issue = Some(loki_engine::IssueInput {
        reference: issue.reference.clone(),
        json,
    });
    opts.branch = Some(format!("loki/backlog-{}", item.number));
    opts.keep = s.args.flags.keep;
    opts.commit = !s.args.flags.no_commit;
    opts.cancel = s.cancel.clone();
    let report = match loki_engine::run_build(&s.repo, &opts, &loki_engine::Silent) {
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
    if s.args.flags.pr && !report.interrupted {
        let pr = crate::cmd::pr::after_build(&s.repo, &report);
        row.exit_code = pr.exit(crate::cmd::build::exit_of(report.exit_code)).code();
        match pr {
            crate::cmd::pr::AfterBuild::Published(p) => row.pr = Some(p.result.url),
            crate::cmd::pr::AfterBuild::Nothing => {}
            crate::cmd::pr::AfterBuild::Failed(m) => row.error = Some(m),
        }
    }
    row
}

/// `--dry-run`: what would run, nothing run.
fn dry_run(
    global: &GlobalArgs,
    project: &Project,
    items: &[Listed],
    concurrency: u32,
) -> anyhow::Result<ExitCode> {
    if global.json {
        let would: Vec<_> = items
            .iter()
            .map(|i| serde_json::json!({"issue": i.number, "title": i.title, "branch": format!("loki/backlog-{}", i.number)}))
            .collect();
        anstream::println!(
            "{}",
            serde_json::json!({"project": project.canonical(), "dry_run": true, "concurrency": concurrency, "issues": would})
        );
        return Ok(ExitCode::Success);
    }
    anstream::println!(
        "{}: {} issue(s) would be built, {concurrency} at a time (dry run: nothing ran)",
        project.canonical(),
        items.len()
    );
    for i in items {
        anstream::println!(
            "  #{:<6} loki/backlog-{:<6} {}",
            i.number,
            i.number,
            loki_intake::batch::cut(&i.title)
        );
    }
    Ok(ExitCode::Success)
}
