//! `loki workspace list|show|run|status`.
//!
//! - **list**: `<name>` (16 columns) and `<n> repositories`, one line each; with none declared,
//!   the line that says how to declare one.
//! - **show**: the name, then each repository numbered with its path, its `setup:` and `after:`
//!   commands when it has them, and `integration:` (`none` when there is no step).
//! - **run** (each repository as it ends): `<name>: <outcome> <run id>`.
//! - **record** (after a run, and `status`): `Workspace:  <name> (<id>)`, one row per repository
//!   (name 16, outcome 18, run id 26 (`-` when none), the request's address), the error of a row
//!   under it, then `Integration: …`, with a failed step's output under it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use loki_core::config::workspaces::Workspace;
use loki_workspace::{WorkspaceRun, integration_line};

/// The text of `loki workspace list`.
#[must_use]
pub fn list(all: &BTreeMap<String, Workspace>) -> String {
    if all.is_empty() {
        return "no workspace is declared: add [workspaces.<name>] with repos = [...] to loki.toml\n"
            .into();
    }
    all.values()
        .map(|w| format!("{:<16}{} repositories\n", w.name, w.repos.len()))
        .collect()
}

/// The text of `loki workspace show`.
#[must_use]
pub fn show(w: &Workspace) -> String {
    let mut out = format!("{}\n", w.name);
    for (i, r) in w.repos.iter().enumerate() {
        let _ = writeln!(out, "  {}. {} ({})", i + 1, r.name, r.path.display());
        if let Some(s) = &r.setup {
            let _ = writeln!(out, "     setup: {s}");
        }
        if let Some(a) = &r.after {
            let _ = writeln!(out, "     after: {a}");
        }
    }
    let _ = writeln!(
        out,
        "  integration: {}",
        w.integration.as_deref().unwrap_or("none")
    );
    out
}

/// The line of one repository's run as it ends (no trailing newline).
#[must_use]
pub fn row(row: &loki_workspace::RepoRun) -> String {
    format!(
        "{}: {} {}",
        row.name,
        row.outcome,
        row.run_id.as_deref().unwrap_or("")
    )
}

/// A workspace run's record.
#[must_use]
pub fn record(record: &WorkspaceRun) -> String {
    let mut out = format!("Workspace:  {} ({})\n", record.workspace, record.id);
    for r in &record.repos {
        let _ = writeln!(
            out,
            "  {:<16}{:<18}{:<26}{}",
            r.name,
            r.outcome,
            r.run_id.as_deref().unwrap_or("-"),
            r.pr.as_deref().unwrap_or("")
        );
        if let Some(e) = &r.error {
            let _ = writeln!(out, "  {:<16}{e}", "");
        }
    }
    let _ = writeln!(
        out,
        "Integration: {}",
        integration_line(&record.integration)
    );
    if record.integration.status == "failed" {
        let _ = writeln!(out, "  {}", record.integration.detail.trim());
    }
    out
}
