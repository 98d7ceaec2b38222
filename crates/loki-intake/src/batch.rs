//! `loki backlog`'s bookkeeping: one [`IssueRow`] per issue, the worker pool that builds them
//! ([`build_all`]), and the summary table ([`table`]). The build of one issue is the caller's
//! (it needs the engine and the forge); this module never prints.
//!
//! # Pool
//! `workers` threads (at most one per issue) take the issues in the order given (number order);
//! each issue's row is handed to `done` as it ends (the CLI's progress line), and the rows come
//! back sorted by issue number. A panicking worker's lock is recovered, so the others finish.
//!
//! # Exit code ([`worst`])
//! The worst of the rows' codes (the outcome ladder: a higher code is never better news); 0 for
//! no rows.
//!
//! # Table
//! `ISSUE  TITLE  VERDICT  RUN  PR`, one line per issue, columns padded to their widest cell
//! (separated by two spaces, trailing spaces trimmed); a title is cut to [`TITLE_WIDTH`]
//! characters with `…`; a missing run or pull request shows `-`.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;

use crate::backlog::Listed;

/// The widest a title is shown in the table (the rest is cut with `…`).
pub const TITLE_WIDTH: usize = 40;

/// One issue's line of the summary.
#[derive(Debug, Clone, Serialize)]
pub struct IssueRow {
    pub issue: u64,
    pub title: String,
    /// The run's outcome, or `ERROR` when no run could be made, `SKIPPED` after an interrupt.
    /// Printed as `outcome`, the name of a run's result in every `--json` object.
    #[serde(rename = "outcome")]
    pub verdict: String,
    pub run_id: Option<String>,
    pub pr: Option<String>,
    pub exit_code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl IssueRow {
    /// The row of an issue that has no run: `verdict` (`ERROR`, `SKIPPED`), its exit code and
    /// why.
    #[must_use]
    pub fn failed(item: &Listed, code: u8, verdict: &str, error: String) -> IssueRow {
        IssueRow {
            issue: item.number,
            title: item.title.clone(),
            verdict: verdict.into(),
            run_id: None,
            pr: None,
            exit_code: code,
            error: Some(error),
        }
    }
}

/// Builds every item with `build` on `workers` threads; see the module doc.
pub fn build_all(
    items: &[Listed],
    workers: usize,
    build: impl Fn(&Listed) -> IssueRow + Sync,
    done: impl Fn(&IssueRow) + Sync,
) -> Vec<IssueRow> {
    let queue = Mutex::new(items.iter().cloned().collect::<VecDeque<_>>());
    let rows = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(items.len()) {
            scope.spawn(|| {
                loop {
                    let next = queue
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .pop_front();
                    let Some(item) = next else { break };
                    let row = build(&item);
                    done(&row);
                    rows.lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .push(row);
                }
            });
        }
    });
    let mut rows = rows.into_inner().unwrap_or_else(PoisonError::into_inner);
    rows.sort_by_key(|r| r.issue);
    rows
}

/// The exit code of the whole backlog; see the module doc.
#[must_use]
pub fn worst(rows: &[IssueRow]) -> u8 {
    rows.iter().map(|r| r.exit_code).max().unwrap_or(0)
}

/// `title` cut to [`TITLE_WIDTH`] characters.
#[must_use]
pub fn cut(title: &str) -> String {
    if title.chars().count() <= TITLE_WIDTH {
        return title.to_string();
    }
    let mut t: String = title.chars().take(TITLE_WIDTH - 1).collect();
    t.push('…');
    t
}

/// The summary table; see the module doc.
#[must_use]
pub fn table(rows: &[IssueRow]) -> String {
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            [
                format!("#{}", r.issue),
                cut(&r.title),
                r.verdict.clone(),
                r.run_id.clone().unwrap_or_else(|| "-".into()),
                r.pr.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let head = ["ISSUE", "TITLE", "VERDICT", "RUN", "PR"].map(String::from);
    let mut width = [0usize; 5];
    for row in std::iter::once(&head).chain(&cells) {
        for (w, c) in width.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&head).chain(&cells) {
        let line: Vec<String> = row
            .iter()
            .zip(width)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_builds_every_issue_once_and_returns_them_in_number_order() {
        let items: Vec<Listed> = [7, 2, 9, 4]
            .into_iter()
            .map(|number| Listed {
                number,
                title: format!("issue {number}"),
            })
            .collect();
        let seen = Mutex::new(Vec::new());
        let rows = build_all(
            &items,
            3,
            |item| {
                IssueRow::failed(
                    item,
                    u8::try_from(item.number).unwrap(),
                    "ERROR",
                    "x".into(),
                )
            },
            |row| seen.lock().unwrap().push(row.issue),
        );
        assert_eq!(
            rows.iter().map(|r| r.issue).collect::<Vec<_>>(),
            [2, 4, 7, 9]
        );
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, [2, 4, 7, 9]);
        assert_eq!(worst(&rows), 9);
        assert_eq!(worst(&[]), 0);
    }

    #[test]
    fn a_long_title_is_cut_to_the_width_with_an_ellipsis() {
        let long = "x".repeat(TITLE_WIDTH + 5);
        assert_eq!(cut(&long).chars().count(), TITLE_WIDTH);
        assert!(cut(&long).ends_with('…'));
        assert_eq!(cut("short"), "short");
    }
}
