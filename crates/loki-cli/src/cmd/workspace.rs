//! `loki workspace list|show|run|status`: one task across the repositories of a workspace
//! (`[workspaces.<name>]` in `loki.toml`); the steps, record and exit code are
//! `loki_workspace`'s (its module doc is the spec). The run checks every repository (a clean git
//! checkout, with `--pr` a forge token) before anything runs, then per repository its `setup`,
//! its own engine run and with `--pr` its request, then the integration step.

use std::time::{Duration, Instant};

use loki_core::config::workspaces::{self, Workspace};
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_core::run::RunKind;
use loki_intake::{Endpoints, Hosts};
use loki_workspace::{Integration, RepoRun, SETUP_TIMEOUT, WorkspaceRun, integration_line, shell};

use crate::cli::{GlobalArgs, WorkspaceCommand, WorkspaceRunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// `loki workspace …`.
pub fn run(global: &GlobalArgs, c: &WorkspaceCommand) -> anyhow::Result<ExitCode> {
    match c {
        WorkspaceCommand::List => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            if global.json {
                anstream::println!(
                    "{}",
                    serde_json::to_string(&all.values().collect::<Vec<_>>())?
                );
            } else if all.is_empty() {
                anstream::println!(
                    "no workspace is declared: add [workspaces.<name>] with repos = [...] to loki.toml"
                );
            }
            if !global.json {
                for w in all.values() {
                    anstream::println!("{:<16}{} repositories", w.name, w.repos.len());
                }
            }
            Ok(ExitCode::Success)
        }
        WorkspaceCommand::Show { name } => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            let w = loki_workspace::named(&all, name)?;
            if global.json {
                anstream::println!("{}", serde_json::to_string(w)?);
                return Ok(ExitCode::Success);
            }
            anstream::println!("{}", w.name);
            for (i, r) in w.repos.iter().enumerate() {
                anstream::println!("  {}. {} ({})", i + 1, r.name, r.path.display());
                if let Some(s) = &r.setup {
                    anstream::println!("     setup: {s}");
                }
                if let Some(a) = &r.after {
                    anstream::println!("     after: {a}");
                }
            }
            anstream::println!(
                "  integration: {}",
                w.integration.as_deref().unwrap_or("none")
            );
            Ok(ExitCode::Success)
        }
        WorkspaceCommand::Status { name } => status(global, name.as_deref()),
        WorkspaceCommand::Run(args) => run_workspace(global, args),
    }
}

fn declared(ctx: &Ctx) -> anyhow::Result<(Repo, std::collections::BTreeMap<String, Workspace>)> {
    let repo = ctx.repo()?;
    let all = workspaces::load(&repo.root)?;
    Ok((repo, all))
}

fn run_workspace(global: &GlobalArgs, args: &WorkspaceRunArgs) -> anyhow::Result<ExitCode> {
    if args.flags.contract.is_some() {
        return Err(UsageError(
            "--contract is for one repository; a workspace's runs are judged by the task".into(),
        )
        .into());
    }
    let ctx = Ctx::load_with(global, &args.flags.config_flags())?;
    let (_, all) = declared(&ctx)?;
    let ws = loki_workspace::named(&all, &args.name)?.clone();
    let hosts = Hosts::from_env();
    // Every repository is checked before anything runs.
    let mut repos = Vec::new();
    for r in &ws.repos {
        let repo = Repo::discover(&r.path).map_err(|e| {
            UsageError(format!(
                "workspace {}: {} ({}) is not a git repository: {e}",
                ws.name,
                r.name,
                r.path.display()
            ))
        })?;
        loki_engine::intake::preflight(&repo)?;
        repos.push(repo);
    }
    let reference = loki_intake::parse(&args.task, &hosts)?;
    if args.flags.pr {
        let canonical = reference.as_ref().map(loki_intake::IssueRef::canonical);
        for repo in &repos {
            crate::cmd::pr::preflight(repo, canonical.as_deref())?;
        }
    }
    let cap = ctx
        .config
        .uint("run.cap_s")
        .map_or(loki_engine::DEFAULT_CAP, Duration::from_secs);
    let (task, issue) = match &reference {
        Some(r) => {
            let issue = loki_intake::fetch(r, &Endpoints::from_env(), Instant::now() + cap)?;
            let json = serde_json::to_vec_pretty(&issue)?;
            (
                loki_engine::TaskInput {
                    text: issue.task_text(),
                    source: issue.source.clone(),
                },
                Some(loki_engine::IssueInput {
                    reference: issue.reference.clone(),
                    json,
                }),
            )
        }
        None => (
            loki_engine::TaskInput {
                text: args.task.clone(),
                source: "text".into(),
            },
            None,
        ),
    };
    let cancel = crate::interrupt::install_cancel(
        "the workspace run was stopped: each started run sealed its receipt",
    )?;
    let started_at = loki_core::time::now_rfc3339();
    let mut rows = Vec::new();
    for (r, repo) in ws.repos.iter().zip(&repos) {
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
        if let Some(setup) = &r.setup
            && let Err((_, why)) = shell(setup, &repo.root, SETUP_TIMEOUT, &[])
        {
            row.error = Some(format!("setup failed: {why}"));
            rows.push(row);
            continue;
        }
        let (mut opts, _, _) =
            crate::cmd::build::options(&ctx, task.clone(), RunKind::Build, args.flags.deep)?;
        opts.issue.clone_from(&issue);
        opts.keep = args.flags.keep;
        opts.commit = !args.flags.no_commit;
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
                if args.flags.pr && !report.interrupted {
                    match crate::cmd::pr::after_build(repo, &report) {
                        crate::cmd::pr::AfterBuild::Published(p) => row.pr = Some(p.result.url),
                        crate::cmd::pr::AfterBuild::Nothing => {}
                        crate::cmd::pr::AfterBuild::Failed(m) => row.error = Some(m),
                    }
                }
            }
            Err(e) => row.error = Some(e.to_string()),
        }
        if !global.quiet {
            anstream::eprintln!(
                "{}: {} {}",
                row.name,
                row.outcome,
                row.run_id.as_deref().unwrap_or("")
            );
        }
        rows.push(row);
    }
    let integration = if cancel.is_cancelled() {
        Integration {
            command: ws.integration.clone(),
            status: "not run".into(),
            exit_code: None,
            detail: "interrupted".into(),
        }
    } else {
        loki_workspace::integrate(&ws, &repos, &rows)
    };
    let exit = loki_workspace::exit_of(&rows, &integration);
    let mut record = WorkspaceRun {
        schema: loki_workspace::SCHEMA.into(),
        id: loki_workspace::record_id(),
        workspace: ws.name.clone(),
        task: args.task.clone(),
        started_at,
        ended_at: loki_core::time::now_rfc3339(),
        repos: rows,
        integration,
        exit_code: exit.code(),
    };
    if args.flags.pr {
        loki_workspace::comment_all(
            &ws,
            &repos,
            &mut record,
            reference.as_ref(),
            crate::cmd::pr::DEFAULT_REMOTE,
            Instant::now() + loki_engine::DEFAULT_CAP,
        );
    }
    let dir = loki_workspace::records_dir(&repos[0]);
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    loki_core::fs::write_json_atomic(&dir.join(format!("{}.json", record.id)), &record)?;
    print_record(global, &record)?;
    Ok(exit)
}

fn print_record(global: &GlobalArgs, record: &WorkspaceRun) -> anyhow::Result<()> {
    if global.json {
        anstream::println!("{}", serde_json::to_string(record)?);
        return Ok(());
    }
    anstream::println!("Workspace:  {} ({})", record.workspace, record.id);
    for r in &record.repos {
        anstream::println!(
            "  {:<16}{:<18}{:<26}{}",
            r.name,
            r.outcome,
            r.run_id.as_deref().unwrap_or("-"),
            r.pr.as_deref().unwrap_or("")
        );
        if let Some(e) = &r.error {
            anstream::println!("  {:<16}{e}", "");
        }
    }
    anstream::println!("Integration: {}", integration_line(&record.integration));
    if record.integration.status == "failed" {
        anstream::println!("  {}", record.integration.detail.trim());
    }
    Ok(())
}

/// `loki workspace status [NAME]`: the newest record (of that workspace).
fn status(global: &GlobalArgs, name: Option<&str>) -> anyhow::Result<ExitCode> {
    let (_, all) = declared(&Ctx::load(global)?)?;
    let candidates: Vec<&Workspace> = match name {
        Some(n) => vec![loki_workspace::named(&all, n)?],
        None => all.values().collect(),
    };
    match loki_workspace::newest(candidates) {
        Some(rec) => {
            print_record(global, &rec)?;
            Ok(ExitCode::Success)
        }
        None => Err(UsageError(format!(
            "no workspace run recorded{}; `loki workspace run NAME \"<task>\"` makes one",
            name.map(|n| format!(" for {n}")).unwrap_or_default()
        ))
        .into()),
    }
}
