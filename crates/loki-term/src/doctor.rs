//! `loki doctor`: one line per check, `PASS|WARN|FAIL name: detail (how to fix)`, the tag in
//! green, yellow or red. `-q` leaves out the passing checks; `--json` is `{"ok", "checks"}` with
//! every check.

use std::fmt::Write as _;

use loki_doctor::airgap::{Destination, Proof};
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

/// The report of `loki doctor --airgap`: the destinations, then the socket-counted demo (pure).
#[must_use]
pub fn airgap(dest: &[Destination], proof: &Proof) -> String {
    let mut s = String::from("Network destinations loki can contact:\n");
    for d in dest {
        s.push_str(&format!(
            "  {:<10} {}: {}\n             off by: {}\n",
            d.state, d.what, d.url, d.off_by
        ));
    }
    s.push_str("\nProof: `loki demo` in a fresh network namespace, every destination off\n");
    s.push_str(&format!("  counter:      {}\n", proof.counter));
    s.push_str(&format!(
        "  demo:         {}\n",
        if proof.demo_verified {
            "VERIFIED"
        } else {
            "not verified"
        }
    ));
    let n = |v: Option<u64>| v.map_or("not counted".to_string(), |n| n.to_string());
    s.push_str(&format!(
        "  programs:     {} traced\n",
        n(proof.programs_traced)
    ));
    s.push_str(&format!("  inet sockets: {}\n", n(proof.inet_sockets)));
    s.push_str(&format!(
        "  other sockets (unix, netlink): {}\n",
        n(proof.other_sockets)
    ));
    if !proof.detail.is_empty() {
        s.push_str(&format!("  note:         {}\n", proof.detail));
    }
    s.push_str(if proof.pass {
        "PASS air gap: the demo verified and opened no internet socket\n"
    } else {
        "FAIL air gap: not proven (see above)\n"
    });
    s
}
