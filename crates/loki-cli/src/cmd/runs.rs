//! `loki runs list` and `loki runs show <run>` (the text is `loki_term::runs`).

use loki_core::run::RunStore;
use loki_events::read_events;
use loki_protocol::outcome::ExitCode;

use crate::cli::RunsCommand;
use crate::cmd::resolve_run;
use crate::context::Ctx;

pub fn run(ctx: &Ctx, cmd: RunsCommand) -> anyhow::Result<ExitCode> {
    let store = RunStore::new(ctx.repo()?);
    match cmd {
        RunsCommand::List => list(ctx, &store),
        RunsCommand::Show { run } => show(ctx, &store, &run),
    }
}

fn list(ctx: &Ctx, store: &RunStore) -> anyhow::Result<ExitCode> {
    let runs = store.list()?;
    if ctx.global.json {
        crate::output::json(loki_term::runs::list_json(&runs));
    } else if !runs.is_empty() {
        anstream::print!("{}", loki_term::runs::list(&runs));
    } else if !ctx.global.quiet {
        anstream::println!("no runs yet in {}", store.repo().runs_dir().display());
    }
    Ok(ExitCode::Success)
}

fn show(ctx: &Ctx, store: &RunStore, arg: &str) -> anyhow::Result<ExitCode> {
    let id = resolve_run(store, arg)?;
    let rec = store.load(&id)?;
    let log = store.dir(&id).join("events.jsonl");
    let events = if log.exists() {
        Some(read_events(&log, Some(id.as_str()))?)
    } else {
        None
    };
    let json = loki_term::runs::show_json(&rec, events.as_ref());
    let text = loki_term::runs::show(&rec, events.as_ref());
    crate::output::show(ctx.global.json, json, text)
}
