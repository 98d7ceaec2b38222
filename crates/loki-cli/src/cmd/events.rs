//! `loki events <run> [--verify]`.

use std::fmt::Write as _;

use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_events::{LogStatus, read_events, verify_log};

use crate::cli::EventsArgs;
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;
use loki_term::{DIM, GREEN, RED, YELLOW, paint};

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
    if ctx.global.json {
        for e in &events {
            anstream::println!("{}", serde_json::to_string(e)?);
        }
    } else {
        let mut out = String::new();
        for e in &events {
            let stage = e
                .stage
                .as_deref()
                .map(|s| format!(" {s}"))
                .unwrap_or_default();
            let data = if e.data.is_empty() {
                String::new()
            } else {
                serde_json::Value::Object(e.data.clone()).to_string()
            };
            let data: String = data.chars().take(120).collect();
            writeln!(
                out,
                "{:>4} {} {}{stage} {}",
                e.seq,
                paint(DIM, &e.ts),
                e.kind,
                paint(DIM, &data)
            )?;
        }
        anstream::print!("{out}");
    }
    match summary.status {
        LogStatus::Broken(b) => {
            anstream::eprintln!(
                "{}",
                paint(
                    RED,
                    &format!(
                        "the log is broken at line {}: {} (shown up to there)",
                        b.line, b.reason
                    )
                )
            );
            Ok(ExitCode::Failure)
        }
        LogStatus::Intact | LogStatus::Interrupted { .. } => Ok(ExitCode::Success),
    }
}

fn verify(ctx: &Ctx, log: &std::path::Path, run: &str) -> anyhow::Result<ExitCode> {
    let s = verify_log(log, Some(run))?;
    if ctx.global.json {
        anstream::println!("{}", serde_json::to_string(&s)?);
    } else {
        let text = match &s.status {
            LogStatus::Intact => paint(
                GREEN,
                &format!("intact ({} events, head {})", s.count, s.head),
            ),
            LogStatus::Interrupted { torn_bytes } => paint(
                YELLOW,
                &format!(
                    "interrupted ({} intact events, head {}; the last line is torn: {torn_bytes} bytes of an unfinished write, not tampering)",
                    s.count, s.head
                ),
            ),
            LogStatus::Broken(b) => paint(RED, &format!("broken at line {}: {}", b.line, b.reason)),
        };
        anstream::println!("{text}");
    }
    Ok(match s.status {
        LogStatus::Intact | LogStatus::Interrupted { .. } => ExitCode::Success,
        LogStatus::Broken(_) => ExitCode::Failure,
    })
}
