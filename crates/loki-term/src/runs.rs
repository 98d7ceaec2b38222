//! `loki runs list` and `loki runs show <run>`.
//!
//! - **list**: a dimmed header, then one row per run: `RUN` (24 columns), `KIND` (8), `STATUS`
//!   (11, coloured: running yellow, completed green, interrupted red), `OUTCOME` (17, `-` while
//!   unknown), `STARTED` (24) and the task's first 48 characters. A run whose `run.json` cannot be
//!   read keeps its row, named by directory, with the reason in red: a listing never hides a run.
//! - **show**: labelled lines (12 columns) from `run.json`, then the event log's state (`N events,
//!   chain intact`, `… last write interrupted`, or the broken line in red), each stage's folded
//!   state, and the cost when the log has cost events (`not measured` when unknown, never $0.00).
//! - `--json`: `{"runs": [...]}` (an unreadable run as `{"run_id", "dir", "corrupt"}`), and for show
//!   `{"run_id", "record", "events", "fold"}`.

use std::fmt::Write as _;

use anstyle::Style;
use loki_core::run::{ListedRun, RunRecord, RunStatus};
use loki_events::{Event, LogStatus, LogSummary, fold};

use crate::style::{DIM, GREEN, RED, YELLOW, label, paint};

/// Characters of a task shown in the listing.
const TASK_SHOWN: usize = 48;

fn status_style(status: RunStatus) -> Style {
    match status {
        RunStatus::Running => YELLOW,
        RunStatus::Completed => GREEN,
        RunStatus::Interrupted => RED,
    }
}

/// The `--json` form of `loki runs list`.
#[must_use]
pub fn list_json(runs: &[ListedRun]) -> serde_json::Value {
    let items: Vec<_> = runs
        .iter()
        .map(|r| match r {
            ListedRun::Ok(rec) => record_json(rec),
            ListedRun::Corrupt { dir, reason } => serde_json::json!({
                "run_id": dir.file_name().map(|n| n.to_string_lossy().into_owned()),
                "dir": dir.display().to_string(), "corrupt": reason,
            }),
        })
        .collect();
    serde_json::json!({ "runs": items })
}

/// The table of `loki runs list` (for at least one run).
#[must_use]
pub fn list(runs: &[ListedRun]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        paint(
            DIM,
            &format!(
                "{:<24}  {:<8}  {:<11}  {:<17}  {:<24}  TASK",
                "RUN", "KIND", "STATUS", "OUTCOME", "STARTED"
            )
        )
    );
    for r in runs {
        match r {
            ListedRun::Ok(rec) => {
                let task = rec.task.as_deref().unwrap_or("");
                let task: String = task.chars().take(TASK_SHOWN).collect();
                let _ = writeln!(
                    out,
                    "{:<24}  {:<8}  {}  {:<17}  {:<24}  {task}",
                    rec.id,
                    rec.kind.as_str(),
                    paint(
                        status_style(rec.status),
                        &format!("{:<11}", rec.status.as_str())
                    ),
                    rec.outcome.map_or("-", loki_protocol::RunEnd::as_str),
                    rec.started_at,
                );
            }
            ListedRun::Corrupt { dir, reason } => {
                let name = dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{name:<24}  {}",
                    paint(RED, &format!("unreadable run.json, skipped: {reason}"))
                );
            }
        }
    }
    out
}

/// The `--json` form of `loki runs show`.
#[must_use]
pub fn show_json(rec: &RunRecord, events: Option<&(Vec<Event>, LogSummary)>) -> serde_json::Value {
    let (folded, summary) = match events {
        Some((ev, s)) => (Some(fold(ev)), Some(s.clone())),
        None => (None, None),
    };
    // The fold's run is named as everywhere else; its `terminal` event stays as the log wrote it.
    let mut folded = serde_json::to_value(folded).unwrap_or_default();
    if let Some(m) = folded.as_object_mut()
        && let Some(run) = m.remove("run")
    {
        m.insert("run_id".into(), run);
    }
    serde_json::json!({ "run_id": rec.id, "record": record_json(rec), "events": summary,
        "fold": folded })
}

/// A run's record as `--json` shows it: `run.json`'s fields under the names every command
/// uses (`run_id`, not `id`), each optional one present and null when unknown.
#[must_use]
pub fn record_json(rec: &RunRecord) -> serde_json::Value {
    serde_json::json!({
        "run_id": rec.id,
        "kind": rec.kind,
        "status": rec.status,
        "task": rec.task,
        "started_at": rec.started_at,
        "ended_at": rec.ended_at,
        "outcome": rec.outcome,
        "exit_code": rec.exit_code,
        "branch": rec.branch(),
        "command": rec.command,
        "cwd": rec.cwd,
        "pid": rec.pid,
        "agent_revision": rec.agent_revision,
    })
}

/// The text of `loki runs show`.
#[must_use]
pub fn show(rec: &RunRecord, events: Option<&(Vec<Event>, LogSummary)>) -> String {
    let mut out = String::new();
    let line = |out: &mut String, l: &str, value: &str| {
        let _ = writeln!(out, "{}{value}", label(&format!("{l}:")));
    };
    line(&mut out, "Run", rec.id.as_str());
    line(&mut out, "Kind", rec.kind.as_str());
    line(
        &mut out,
        "Status",
        &paint(status_style(rec.status), rec.status.as_str()),
    );
    if let Some(o) = rec.outcome {
        line(&mut out, "Outcome", o.as_str());
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
