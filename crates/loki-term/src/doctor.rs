//! `loki doctor`: one line per check, `PASS|WARN|FAIL name: detail (how to fix)`, the tag in
//! green, yellow or red. `-q` leaves out the passing checks; `--json` is `{"ok", "checks"}` with
//! every check.

use std::fmt::Write as _;

use loki_doctor::checks::{Check, Status};

use crate::style::{GREEN, RED, YELLOW, paint};

/// The lines of `loki doctor`; `quiet` leaves out the passing checks.
#[must_use]
pub fn checks(checks: &[Check], quiet: bool) -> String {
    let mut out = String::new();
    for c in checks {
        if quiet && c.status == Status::Pass {
            continue;
        }
        let tag = match c.status {
            Status::Pass => paint(GREEN, "PASS"),
            Status::Warn => paint(YELLOW, "WARN"),
            Status::Fail => paint(RED, "FAIL"),
        };
        let fix = c
            .fix
            .as_ref()
            .map(|f| format!(" ({f})"))
            .unwrap_or_default();
        let _ = writeln!(out, "{tag} {}: {}{fix}", c.name, c.detail);
    }
    out
}

/// The `--json` form of `loki doctor`.
#[must_use]
pub fn checks_json(checks: &[Check], ok: bool) -> serde_json::Value {
    serde_json::json!({ "ok": ok, "checks": checks })
}
