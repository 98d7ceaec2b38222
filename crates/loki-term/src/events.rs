//! `loki events <run> [--verify]`.
//!
//! - The log: one line per event, `seq` right-aligned in 4 columns, the timestamp dimmed, the
//!   type, the stage when there is one, and the payload as compact JSON cut to 120 characters
//!   (dimmed). A broken chain is shown up to the break and then named in red ([`broken`]).
//! - `--verify`: one line, `intact (N events, head H)` in green, `interrupted (…)` in yellow for a
//!   torn last line (an unfinished write, not tampering), `broken at line N: reason` in red.

use std::fmt::Write as _;

use loki_events::{BadLine, Event, LogStatus, LogSummary};

use crate::style::{DIM, GREEN, RED, YELLOW, paint};

/// Characters of an event's payload shown on its line.
const DATA_SHOWN: usize = 120;

/// The event lines of `loki events`.
#[must_use]
pub fn lines(events: &[Event]) -> String {
    let mut out = String::new();
    for e in events {
        let stage = e.stage.map(|s| format!(" {s}")).unwrap_or_default();
        let data = if e.data.is_empty() {
            String::new()
        } else {
            serde_json::Value::Object(e.data.clone()).to_string()
        };
        let data: String = data.chars().take(DATA_SHOWN).collect();
        let _ = writeln!(
            out,
            "{:>4} {} {}{stage} {}",
            e.seq,
            paint(DIM, &e.ts),
            e.kind,
            paint(DIM, &data)
        );
    }
    out
}

/// What follows the lines of a broken log (no trailing newline).
#[must_use]
pub fn broken(b: &BadLine) -> String {
    paint(
        RED,
        &format!(
            "the log is broken at line {}: {} (shown up to there)",
            b.line, b.reason
        ),
    )
}

/// The line of `loki events --verify` (no trailing newline).
#[must_use]
pub fn verified(s: &LogSummary) -> String {
    match &s.status {
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
    }
}
