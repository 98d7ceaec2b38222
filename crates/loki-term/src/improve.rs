//! `loki improve` and its subcommands. Revisions are shown as their first 12 hex digits
//! ([`short`]); labels are padded to 12 columns like the run summary.
//!
//! - A cycle: `Cycle:` (id, trigger, mode), `Outcome:`, `Reason:`, `Revision:` (base → the
//!   applied or candidate one), `From runs:`, `Protected:`, `Canary:`, `Guard:`, `Pending:` (with
//!   the approve command), `Receipt:`, `Tokens:`, then each note dimmed. `-q`: the outcome line.
//! - `status`: state (on / paused), mode and trigger, revision and instruction files, today's
//!   cycles and tokens against their budgets, pending proposals, protected cases, the last cycle,
//!   the audit chain.
//! - `history`: one line per cycle (id, outcome in 16 columns, tokens in 8, reason).
//! - `pending`: one entry per proposal (id, base → candidate, files, rationale indented).
//! - `approve` / `rollback` / `reject`: one line; a stale or refused change says why (stderr).
//! - `audit`: one line per entry (time, action in 16 columns, actor in 7, cycle, detail);
//!   `--verify`: `intact (N lines, head H)` or `BROKEN at line N: reason`.

use std::fmt::Write as _;

use loki_improve::CycleRecord;
use loki_improve::audit::{Line, Verdict};
use loki_improve::ops::{Change, Status};
use loki_improve::proposal::Pending;

use crate::style::{DIM, label, paint};

/// Hex digits of a revision or hash shown.
const SHORT: usize = 12;

/// A revision's first 12 hex digits (without its `sha256:` prefix).
#[must_use]
pub fn short(rev: &str) -> String {
    rev.trim_start_matches("sha256:")
        .chars()
        .take(SHORT)
        .collect()
}

fn rows(out: &mut String, rows: &[(&str, String)]) {
    for (l, value) in rows {
        let _ = writeln!(out, "{}{value}", label(l));
    }
}

/// The text of a finished cycle; `quiet` keeps the outcome line only.
#[must_use]
pub fn cycle(r: &CycleRecord, quiet: bool) -> String {
    let mut out = String::new();
    if quiet {
        rows(&mut out, &[("Outcome:", r.outcome.as_str().to_string())]);
        return out;
    }
    let mut list = vec![
        (
            "Cycle:",
            format!("{} ({}, {})", r.id, r.trigger.as_str(), r.mode.as_str()),
        ),
        ("Outcome:", r.outcome.as_str().to_string()),
        ("Reason:", r.reason.clone()),
    ];
    if let Some(b) = &r.base_revision {
        let to = r
            .applied_revision
            .as_deref()
            .or(r.candidate_revision.as_deref())
            .map(|c| format!(" → {}", short(c)))
            .unwrap_or_default();
        list.push(("Revision:", format!("{}{to}", short(b))));
    }
    if !r.training.is_empty() {
        list.push(("From runs:", r.training.join(", ")));
    }
    list.push((
        "Protected:",
        if r.protected.is_empty() {
            "none (`loki improve --protect RUN`)".to_string()
        } else {
            r.protected.join(", ")
        },
    ));
    if let Some(c) = &r.canary {
        list.push(("Canary:", c.reason.clone()));
    }
    if let Some(g) = &r.guard {
        list.push(("Guard:", g.reason.clone()));
    }
    if let Some(p) = &r.pending {
        list.push(("Pending:", format!("{p} (`loki improve approve {p}`)")));
    }
    if let Some(p) = &r.receipt {
        list.push(("Receipt:", p.clone()));
    }
    list.push(("Tokens:", r.tokens.to_string()));
    rows(&mut out, &list);
    for n in &r.notes {
        let _ = writeln!(out, "{}", paint(DIM, &format!("note: {n}")));
    }
    out
}

/// The text of `loki improve status`.
#[must_use]
pub fn status(s: &Status) -> String {
    let mut out = String::new();
    let list = [
        (
            "State:",
            s.paused
                .as_ref()
                .map_or_else(|| "on".to_string(), |p| format!("paused ({p})")),
        ),
        ("Mode:", format!("{} (trigger {})", s.mode, s.trigger)),
        (
            "Revision:",
            format!(
                "{} ({})",
                short(&s.revision),
                if s.instruction_files.is_empty() {
                    "no instruction files".to_string()
                } else {
                    s.instruction_files.join(", ")
                }
            ),
        ),
        (
            "Today:",
            format!(
                "{}/{} cycles, {}/{} tokens",
                s.cycles_today, s.max_cycles_per_day, s.tokens_today, s.max_tokens_per_day
            ),
        ),
        (
            "Pending:",
            if s.pending.is_empty() {
                "none".to_string()
            } else {
                s.pending.join(", ")
            },
        ),
        ("Protected:", format!("{} case(s)", s.protected.len())),
        (
            "Last cycle:",
            s.last_cycle.as_ref().map_or_else(
                || "none".to_string(),
                |c| format!("{} {} ({})", c.id, c.outcome.as_str(), c.reason),
            ),
        ),
        ("Audit:", s.audit.clone()),
    ];
    rows(&mut out, &list);
    out
}

/// The text of `loki improve history`.
#[must_use]
pub fn history(records: &[CycleRecord]) -> String {
    let mut out = String::new();
    if records.is_empty() {
        out.push_str("no cycles yet; `loki improve` runs one\n");
    }
    for r in records {
        let _ = writeln!(
            out,
            "{}  {:<16} {:>8} tokens  {}",
            r.id,
            r.outcome.as_str(),
            r.tokens,
            r.reason
        );
    }
    out
}

/// The text of `loki improve pending`.
#[must_use]
pub fn pending(list: &[Pending]) -> String {
    let mut out = String::new();
    if list.is_empty() {
        out.push_str("no pending proposals\n");
    }
    for p in list {
        let files: Vec<&str> = p.files.iter().map(|f| f.path.as_str()).collect();
        let _ = writeln!(
            out,
            "{}  {} → {}  {}\n    {}",
            p.id,
            short(&p.base_revision),
            short(&p.candidate_revision),
            files.join(", "),
            p.rationale.trim()
        );
    }
    out
}

/// The line of `loki improve reject`.
#[must_use]
pub fn rejected(id: &str) -> String {
    format!("{}{id} (kept in the audit trail)", label("Rejected:"))
}

/// The line of an approve or rollback (no trailing newline): `done` says what was asked. A stale
/// or refused change is meant for stderr.
#[must_use]
pub fn change(c: &Change, done: &str) -> String {
    match c {
        Change::Applied { from, to } => {
            format!("{}{done}: {} → {}", label("Done:"), short(from), short(to))
        }
        Change::Stale { expected, current } => format!(
            "stale: the instructions are at {}, not {} as expected; nothing was written",
            short(current),
            short(expected)
        ),
        Change::Refused { why } => format!("refused: {why}"),
    }
}

/// The line of `loki improve audit --verify` (no trailing newline).
#[must_use]
pub fn audit_verdict(v: &Verdict) -> String {
    match v {
        Verdict::Intact { count, head } => {
            let head: String = head.chars().take(SHORT).collect();
            format!("intact ({count} lines, head {head})")
        }
        Verdict::Broken { line, reason } => format!("BROKEN at line {line}: {reason}"),
    }
}

/// The `--json` form of `loki improve audit --verify`.
#[must_use]
pub fn audit_verdict_json(v: &Verdict) -> serde_json::Value {
    match v {
        Verdict::Intact { count, head } => {
            serde_json::json!({"intact": true, "count": count, "head": head})
        }
        Verdict::Broken { line, reason } => {
            serde_json::json!({"intact": false, "line": line, "reason": reason})
        }
    }
}

/// The text of `loki improve audit`.
#[must_use]
pub fn audit(lines: &[Line]) -> String {
    let mut out = String::new();
    for l in lines {
        let _ = writeln!(
            out,
            "{} {:<16} {:<7} {} {}",
            l.ts,
            l.entry.action.as_str(),
            l.entry.actor,
            l.entry.cycle.as_deref().unwrap_or("-"),
            l.entry.detail.as_deref().unwrap_or("")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_name_revisions_by_their_first_twelve_hex_digits() {
        let from = format!("sha256:{}", "a".repeat(64));
        let to = "b".repeat(64);
        let applied = Change::Applied {
            from: from.clone(),
            to: to.clone(),
        };
        assert_eq!(
            change(&applied, "approved p1"),
            "Done:       approved p1: aaaaaaaaaaaa → bbbbbbbbbbbb"
        );
        let stale = Change::Stale {
            expected: from,
            current: to,
        };
        assert_eq!(
            change(&stale, "rolled back"),
            "stale: the instructions are at bbbbbbbbbbbb, not aaaaaaaaaaaa as expected; nothing was written"
        );
        assert_eq!(
            audit_verdict(&Verdict::Intact {
                count: 3,
                head: "c".repeat(64)
            }),
            "intact (3 lines, head cccccccccccc)"
        );
    }
}
