//! `loki runs list` and `loki runs show <run>`.

use std::fmt::Write as _;

use loki_core::outcome::ExitCode;
use loki_core::run::{ListedRun, RunRecord, RunStatus, RunStore};
use loki_events::{LogStatus, fold, read_events};

use crate::cli::RunsCommand;
use crate::cmd::resolve_run;
use crate::context::Ctx;
use loki_term::{DIM, GREEN, RED, YELLOW, paint};

pub fn run(ctx: &Ctx, cmd: RunsCommand) -> anyhow::Result<ExitCode> {
    let store = RunStore::new(ctx.repo()?);
    match cmd {
        RunsCommand::List => list(ctx, &store),
        RunsCommand::Show { run } => show(ctx, &store, &run),
    }
}

fn status_style(status: RunStatus) -> anstyle::Style {
    match status {
        RunStatus::Running => YELLOW,
        RunStatus::Completed => GREEN,
        RunStatus::Interrupted => RED,
    }
}

fn list(ctx: &Ctx, store: &RunStore) -> anyhow::Result<ExitCode> {
    let runs = store.list()?;
    if ctx.global.json {
        let items: Vec<_> = runs
            .iter()
            .map(|r| match r {
                ListedRun::Ok(rec) => serde_json::to_value(rec).unwrap_or_default(),
                ListedRun::Corrupt { dir, reason } => serde_json::json!({
                    "dir": dir.display().to_string(), "corrupt": reason,
                }),
            })
            .collect();
        anstream::println!("{}", serde_json::json!({ "runs": items }));
        return Ok(ExitCode::Success);
    }
    if runs.is_empty() {
        if !ctx.global.quiet {
            anstream::println!("no runs yet in {}", store.repo().runs_dir().display());
        }
        return Ok(ExitCode::Success);
    }
    let mut out = String::new();
    writeln!(
        out,
        "{}",
        paint(
            DIM,
            &format!(
                "{:<24}  {:<8}  {:<11}  {:<17}  {:<24}  TASK",
                "RUN", "KIND", "STATUS", "OUTCOME", "STARTED"
            )
        )
    )?;
    for r in &runs {
        match r {
            ListedRun::Ok(rec) => {
                let task = rec.task.as_deref().unwrap_or("");
                let task: String = task.chars().take(48).collect();
                writeln!(
                    out,
                    "{:<24}  {:<8}  {}  {:<17}  {:<24}  {task}",
                    rec.id,
                    rec.kind.as_str(),
                    paint(
                        status_style(rec.status),
                        &format!("{:<11}", rec.status.as_str())
                    ),
                    rec.outcome.as_deref().unwrap_or("-"),
                    rec.started_at,
                )?;
            }
            ListedRun::Corrupt { dir, reason } => {
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                writeln!(
                    out,
                    "{name:<24}  {}",
                    paint(RED, &format!("unreadable run.json, skipped: {reason}"))
                )?;
            }
        }
    }
    anstream::print!("{out}");
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
    if ctx.global.json {
        let (folded, summary) = match &events {
            Some((ev, s)) => (Some(fold(ev)), Some(s.clone())),
            None => (None, None),
        };
        anstream::println!(
            "{}",
            serde_json::json!({ "run": rec, "events": summary, "fold": folded })
        );
        return Ok(ExitCode::Success);
    }
    anstream::print!("{}", render_show(&rec, events.as_ref()));
    Ok(ExitCode::Success)
}

fn render_show(
    rec: &RunRecord,
    events: Option<&(Vec<loki_events::Event>, loki_events::LogSummary)>,
) -> String {
    let mut out = String::new();
    let line = |out: &mut String, label: &str, value: &str| {
        let _ = writeln!(out, "{:<12}{value}", format!("{label}:"));
    };
    line(&mut out, "Run", rec.id.as_str());
    line(&mut out, "Kind", rec.kind.as_str());
    line(
        &mut out,
        "Status",
        &paint(status_style(rec.status), rec.status.as_str()),
    );
    if let Some(o) = &rec.outcome {
        line(&mut out, "Outcome", o);
    }
    if let Some(t) = &rec.task {
        line(&mut out, "Task", t);
    }
    line(&mut out, "Started", &rec.started_at);
    if let Some(e) = &rec.ended_at {
        line(&mut out, "Ended", e);
    }
    line(&mut out, "Command", &rec.command.join(" "));
    match events {
        None => line(&mut out, "Events", "none recorded"),
        Some((ev, summary)) => {
            let state = match &summary.status {
                LogStatus::Intact => format!("{} events, chain intact", summary.count),
                LogStatus::Interrupted { .. } => {
                    format!("{} events, last write interrupted", summary.count)
                }
                LogStatus::Broken(b) => paint(
                    RED,
                    &format!("chain broken at line {}: {}", b.line, b.reason),
                ),
            };
            line(&mut out, "Events", &state);
            let f = fold(ev);
            for s in &f.stages {
                let _ = writeln!(
                    out,
                    "  {:<10}{}",
                    s.name,
                    format!("{:?}", s.state).to_lowercase()
                );
            }
            if f.cost_events > 0 {
                let cost = f
                    .cost_usd
                    .map_or_else(|| "not measured".to_string(), loki_agent::cost::usd);
                line(&mut out, "Cost", &cost);
            }
        }
    }
    out
}
