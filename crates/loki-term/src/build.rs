//! What follows a build run: `loki status`, `loki apply`, `loki discard`.
//!
//! - **status**: labelled lines (12 columns): `Run:` (id, kind, status), `Stage:`, `Elapsed:`,
//!   `Outcome:` (`-` while unknown), `Cost:` (`not measured` when unknown, with the tokens
//!   either way) and `Branch:`; a BLOCKED run adds its `Question:` and the `Next:` command that
//!   answers it.
//! - **apply**: `<branch>: fast-forwarded <from> → <to>`, or `<branch> is already at <to>`
//!   (commits shortened to 12 characters).
//! - **discard**: one `removed <what>` line each, or `run <id>: nothing to remove`; with
//!   `--failed` one line per run, or the line saying no failed run has anything left.
//! - **published**: `opened <url>` / `updated <url>`, with ` (a draft: the run is not
//!   VERIFIED)` for a draft; a `--pr` build's summary ends with it as its `PR:` line
//!   ([`pr_line`]), or `PR: none: …` when the run made no change.

use std::fmt::Write as _;

use loki_engine::ops::{Applied, Discarded, StatusView};
use loki_intake::after::AfterBuild;
use loki_intake::pr::Published;

/// `loki status`: the run's labelled lines; `question` is a BLOCKED run's.
#[must_use]
pub fn status(v: &StatusView, question: Option<&str>) -> String {
    let tokens = crate::summary::tokens(v.tokens);
    let cost = match v.cost_usd {
        Some(c) => format!("{} ({tokens} tokens)", loki_agent::cost::usd(c)),
        None => format!("not measured ({tokens} tokens)"),
    };
    let rows = [
        ("Run:", format!("{} ({}, {})", v.run_id, v.kind, v.status)),
        (
            "Stage:",
            v.stage
                .map_or_else(|| "-".into(), |s| s.as_str().to_owned()),
        ),
        ("Elapsed:", loki_core::time::human_duration(v.elapsed_s)),
        (
            "Outcome:",
            v.outcome
                .map_or_else(|| "-".into(), |o| o.as_str().to_owned()),
        ),
        ("Cost:", cost),
        ("Branch:", v.branch.clone()),
    ];
    let mut out = String::new();
    for (label, value) in rows {
        let _ = writeln!(out, "{label:<12}{value}");
    }
    if let Some(q) = question {
        let _ = writeln!(out, "{:<12}{q}", "Question:");
        let _ = writeln!(
            out,
            "{:<12}loki answer {} --text \"<your answer>\"",
            "Next:", v.run_id
        );
    }
    out
}

/// A commit shortened to 12 characters.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// `loki apply`: one line.
#[must_use]
pub fn applied(a: &Applied) -> String {
    if a.from == a.to {
        format!("{} is already at {}", a.branch, short(&a.to))
    } else {
        format!(
            "{}: fast-forwarded {} → {}",
            a.branch,
            short(&a.from),
            short(&a.to)
        )
    }
}

/// `loki discard <run>`: what was removed.
#[must_use]
pub fn discarded(run: &str, removed: &[String]) -> String {
    if removed.is_empty() {
        return format!("run {run}: nothing to remove\n");
    }
    removed.iter().map(|r| format!("removed {r}\n")).collect()
}

/// `loki discard --failed`: one line per run.
#[must_use]
pub fn discarded_failed(gone: &[Discarded]) -> String {
    if gone.is_empty() {
        return "no failed run has a worktree or branch left\n".into();
    }
    gone.iter()
        .map(|d| {
            let outcome = d
                .outcome
                .map_or("no outcome", loki_protocol::RunEnd::as_str);
            format!(
                "{} ({outcome}): removed {}\n",
                d.run_id,
                d.removed.join(", ")
            )
        })
        .collect()
}

/// `loki pr <run>`: `opened <url>` / `updated <url>`, and whether it is a draft.
#[must_use]
pub fn published(p: &Published) -> String {
    let what = if p.result.created {
        "opened"
    } else {
        "updated"
    };
    let draft = if p.draft {
        " (a draft: the run is not VERIFIED)"
    } else {
        ""
    };
    format!("{what} {}{draft}", p.result.url)
}

/// The `PR:` line of a `--pr` build's summary; `None` when publishing failed (its error is
/// printed as an error instead).
#[must_use]
pub fn pr_line(after: &AfterBuild) -> Option<String> {
    match after {
        AfterBuild::Published(p) => Some(format!("{:<12}{}", "PR:", published(p))),
        AfterBuild::Nothing => Some(format!(
            "{:<12}none: the run made no change to propose",
            "PR:"
        )),
        AfterBuild::Failed(_) => None,
    }
}
