//! `loki serve` and its subcommands `backfill`, `status` and `prune`.
//!
//! - **backfill**: `shipped <run>` on stdout for each run shipped, `not shipped <run>: <why>` on
//!   stderr for each that was not, then `<n> run(s), <m> event(s) shipped to <url>; <k> failed`.
//!   `--json`: `{url, shipped, events, failed: [{run_id, reason}]}`.
//! - **status**: `control plane: running at <url> (pid <pid>, <engine>); latest run: <run>`, or
//!   `control plane: not running`. `--json`: `{running, url, pid, engine, latest_run_id}`, null
//!   where the server said nothing (its words for unknown, `?` and `none`, are not values).
//! - **prune**: `removed <run>` (`would remove` on a dry run) each, then `<n> run(s) of <repo>
//!   before <date> removed` (` (dry run: nothing removed)`).

use std::fmt::Write as _;

use loki_control::admin::Status;
use loki_control::ship::Backfilled;

/// The `--json` object of `loki serve backfill` to `url`.
#[must_use]
pub fn backfill_json(report: &Backfilled, url: &str) -> serde_json::Value {
    let failed: Vec<_> = report
        .failed
        .iter()
        .map(|(run, why)| serde_json::json!({"run_id": run, "reason": why}))
        .collect();
    serde_json::json!({"url": url, "shipped": report.runs, "events": report.events,
        "failed": failed})
}

/// What `loki serve backfill` to `url` prints, in order: the runs shipped (stdout), the runs
/// not shipped (stderr), the summary line (stdout).
#[must_use]
pub fn backfill(report: &Backfilled, url: &str) -> [String; 3] {
    let shipped = report
        .runs
        .iter()
        .map(|run| format!("shipped {run}\n"))
        .collect();
    let failed = report
        .failed
        .iter()
        .map(|(run, why)| format!("not shipped {run}: {why}\n"))
        .collect();
    let summary = format!(
        "{} run(s), {} event(s) shipped to {url}; {} failed\n",
        report.runs.len(),
        report.events,
        report.failed.len()
    );
    [shipped, failed, summary]
}

/// The `--json` object of `loki serve status` (`None`: nothing is running).
#[must_use]
pub fn status_json(s: Option<&Status>) -> serde_json::Value {
    let Some(s) = s else {
        return serde_json::json!({"running": false, "url": null, "pid": null, "engine": null,
            "latest_run_id": null});
    };
    let known = |v: &str, unknown: &str| (v != unknown).then(|| v.to_string());
    serde_json::json!({"running": true, "url": s.url, "pid": s.pid,
        "engine": known(&s.engine, "?"), "latest_run_id": known(&s.latest, "none")})
}

/// The line of `loki serve status` (`None`: nothing is running).
#[must_use]
pub fn status(s: Option<&Status>) -> String {
    match s {
        None => "control plane: not running".into(),
        Some(s) => format!(
            "control plane: running at {} (pid {}, {}); latest run: {}",
            s.url, s.pid, s.engine, s.latest
        ),
    }
}

/// The text of `loki serve prune` of `repo`'s runs before `before`.
#[must_use]
pub fn pruned(runs: &[String], repo: &str, before: &str, dry_run: bool) -> String {
    let verb = if dry_run { "would remove" } else { "removed" };
    let mut out: String = runs.iter().map(|r| format!("{verb} {r}\n")).collect();
    let _ = writeln!(
        out,
        "{} run(s) of {repo} before {before}{}",
        runs.len(),
        if dry_run {
            " (dry run: nothing removed)"
        } else {
            " removed"
        }
    );
    out
}
