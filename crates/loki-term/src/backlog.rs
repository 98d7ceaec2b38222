//! `loki backlog`.
//!
//! - **dry run**: `<project>: <n> issue(s) would be built, <c> at a time (dry run: nothing ran)`,
//!   then `  #<issue> loki/backlog-<issue> <title>` (issue numbers padded to 6, the title cut).
//!   `--json`: `{project, dry_run: true, concurrency, issues: [{issue, title, branch}]}`.
//! - **as each issue ends** (stderr): `#<issue> <verdict> <run id>`.
//! - **at the end**: the table of [`loki_intake::batch::table`] on stdout, then `#<issue>: <error>`
//!   on stderr for each issue that could not be built.

use std::fmt::Write as _;

use loki_intake::batch::IssueRow;
use loki_workspace::backlog::{Backlog, branch};

/// The `--json` object of `loki backlog --dry-run`.
#[must_use]
pub fn dry_run_json(backlog: &Backlog, concurrency: u32) -> serde_json::Value {
    let would: Vec<_> = backlog
        .items
        .iter()
        .map(|i| serde_json::json!({"issue": i.number, "title": i.title, "branch": branch(i.number)}))
        .collect();
    serde_json::json!({"project": backlog.project.canonical(), "dry_run": true,
        "concurrency": concurrency, "issues": would})
}

/// The text of `loki backlog --dry-run`.
#[must_use]
pub fn dry_run(backlog: &Backlog, concurrency: u32) -> String {
    let mut out = format!(
        "{}: {} issue(s) would be built, {concurrency} at a time (dry run: nothing ran)\n",
        backlog.project.canonical(),
        backlog.items.len()
    );
    for i in &backlog.items {
        let _ = writeln!(
            out,
            "  #{:<6} loki/backlog-{:<6} {}",
            i.number,
            i.number,
            loki_intake::batch::cut(&i.title)
        );
    }
    out
}

/// The line of one issue as it ends (no trailing newline).
#[must_use]
pub fn row(row: &IssueRow) -> String {
    format!(
        "#{} {} {}",
        row.issue,
        row.verdict,
        row.run_id.as_deref().unwrap_or("")
    )
}

/// The errors of the issues that could not be built, one line each.
#[must_use]
pub fn errors(rows: &[IssueRow]) -> String {
    rows.iter()
        .filter_map(|r| r.error.as_ref().map(|e| format!("#{}: {e}\n", r.issue)))
        .collect()
}
