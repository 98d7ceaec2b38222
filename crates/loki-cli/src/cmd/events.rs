//! `loki events <run> [--verify]` (the text is `loki_term::events`).

use loki_core::run::RunStore;
use loki_events::{LogStatus, read_events, verify_log};
use loki_protocol::outcome::ExitCode;

use crate::cli::EventsArgs;
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &EventsArgs) -> anyhow::Result<ExitCode> {
    let store = RunStore::new(ctx.repo()?);
    let id = resolve_run(&store, &args.run)?;
    let dir = store.dir(&id);
    if !dir.is_dir() {
        return Err(loki_core::CoreError::RunNotFound {
            id: id.to_string(),
            dir: store.repo().runs_dir(),
        }
        .into());
    }
    let log = dir.join("events.jsonl");
    if !log.exists() {
        return Err(UsageError(format!(
            "run {id} has no event log ({} is missing)",
            log.display()
        ))
        .into());
    }
    if args.verify {
        return verify(ctx, &log, id.as_str());
    }
    let (events, summary) = read_events(&log, Some(id.as_str()))?;
    let json = serde_json::json!({"run_id": id, "events": events, "log": summary});
    crate::output::print(ctx.global.json, json, loki_term::events::lines(&events));
    match summary.status {
        LogStatus::Broken(b) => {
            anstream::eprintln!("{}", loki_term::events::broken(&b));
            Ok(ExitCode::Failure)
        }
        LogStatus::Intact | LogStatus::Interrupted { .. } => Ok(ExitCode::Success),
    }
}

fn verify(ctx: &Ctx, log: &std::path::Path, run: &str) -> anyhow::Result<ExitCode> {
    let s = verify_log(log, Some(run))?;
    let text = format!("{}\n", loki_term::events::verified(&s));
    crate::output::print(
        ctx.global.json,
        serde_json::json!({"run_id": run, "log": s}),
        text,
    );
    Ok(crate::output::pass_fail(!matches!(
        s.status,
        LogStatus::Broken(_)
    )))
}
