//! `loki workspace list|show|run|status`: one task across the repositories of a workspace
//! (`[workspaces.<name>]` in `loki.toml`). The run is `loki_workspace::run`'s (the crate doc is
//! the spec: the checks before anything runs, each repository's setup, run and request, the
//! integration step, the record and the exit code); this prints.

use loki_core::config::workspaces::{self, Workspace};
use loki_core::layout::Repo;
use loki_protocol::outcome::ExitCode;
use loki_workspace::WorkspaceRun;

use crate::cli::{GlobalArgs, WorkspaceCommand, WorkspaceRunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// `loki workspace …`.
pub fn run(global: &GlobalArgs, c: &WorkspaceCommand) -> anyhow::Result<ExitCode> {
    match c {
        WorkspaceCommand::List => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            let json = serde_json::json!({"workspaces": all.values().collect::<Vec<_>>()});
            crate::output::show(global.json, json, loki_term::workspace::list(&all))
        }
        WorkspaceCommand::Show { name } => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            let w = loki_workspace::named(&all, name)?;
            crate::output::show(global.json, w, loki_term::workspace::show(w))
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
    let ctx = Ctx::load_with(global, args.flags.config_flags())?;
    let (_, all) = declared(&ctx)?;
    let setup = ctx.setup();
    let flags = args.flags.run_flags();
    let prepared = loki_workspace::run::prepare(&setup, &all, &args.name, &args.task, flags)?;
    let cancel = crate::interrupt::install_cancel(
        "the workspace run was stopped: each started run sealed its receipt",
    )?;
    let (record, exit) = prepared.run(&setup, &cancel, |row| {
        if !global.quiet {
            anstream::eprintln!("{}", loki_term::workspace::row(row));
        }
    })?;
    print_record(global, &record);
    Ok(exit)
}

fn print_record(global: &GlobalArgs, record: &WorkspaceRun) {
    crate::output::print(global.json, record, loki_term::workspace::record(record));
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
            print_record(global, &rec);
            Ok(ExitCode::Success)
        }
        None => Err(UsageError(format!(
            "no workspace run recorded{}; `loki workspace run NAME \"<task>\"` makes one",
            name.map(|n| format!(" for {n}")).unwrap_or_default()
        ))
        .into()),
    }
}
