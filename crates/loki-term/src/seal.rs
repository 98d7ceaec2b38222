//! `loki seal`: what the stop hook's commands print for a person (the agent's protocol answers
//! are `loki_seal::respond`'s).
//!
//! - `start` (stderr): `loki seal: baseline recorded for session S: N suite(s), M tests`, or that
//!   the session already had a baseline and it was kept.
//! - `check`: after the suites' result lines, one `FINDING <reason>` (red) per finding, `FACT:
//!   <kind> <test>: <detail>` per fact, `CANNOT JUDGE <why>` (red), `CLEAN …since <base, 12
//!   hex>` (green) only when clean, and one `NOT PROVEN: <item>` line each. `--json` is one object
//!   with every finding's `advice`.
//! - `status`: one line per session (origin, blocks, last stop), a red `! RELEASED, NOT VERIFIED`
//!   line for each stop the agent was let through unproven, unreadable state files, then one
//!   `hooks <agent> <active>: <detail> (fix: …)` line per agent.
//! - `install`: where the hooks were registered, the program they run, their timeouts and how
//!   those were chosen, and whether the agent will run them; when not, a red `NOT ACTIVE` line
//!   and what makes them run. `--json`: `{path, changed, agent, command, timeouts: {start_s,
//!   stop_s}, basis: {kind, suite_s, session}, explanation, active, active_detail, fix}`.

use std::fmt::Write as _;

use loki_seal::CheckReport;
use loki_seal::{Activation, Active, Agent, Basis, Budget, InstallReport, Started};

use crate::style::{GREEN, RED, paint};

/// Hex digits of the base commit named on the CLEAN line.
const BASE_SHOWN: usize = 12;

/// What `loki seal start` says on stderr (no trailing newline); `source` is the agent's reason
/// for the session start (`resume`, `compact`, …).
#[must_use]
pub fn started(started: &Started, source: Option<&str>) -> String {
    let state = &started.state;
    if started.kept {
        format!(
            "loki seal: session {} already has a baseline (recorded {}): kept{}",
            state.session,
            state.started_at,
            source.map(|s| format!(" on {s}")).unwrap_or_default()
        )
    } else {
        let executed: u64 = state.baseline.iter().map(|r| r.executed).sum();
        format!(
            "loki seal: baseline recorded for session {}: {} suite(s), {executed} tests",
            state.session,
            state.baseline.len()
        )
    }
}

/// The judgement lines of `loki seal check`, printed after the suites' result lines.
#[must_use]
pub fn check(report: &CheckReport) -> String {
    let j = &report.judged;
    let mut out = String::new();
    for r in &report.judgement.reasons {
        let _ = writeln!(out, "{} {r}", paint(RED, "FINDING"));
    }
    for d in &report.applied.undeclared {
        let at = d.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{} {} {} ({}{at}): {}",
            paint(RED, "DECLARE"),
            d.kind.as_str(),
            d.test,
            d.path,
            d.detail
        );
        for w in &d.was {
            let _ = writeln!(out, "    was: {w}");
        }
        for n in &d.now {
            let _ = writeln!(out, "    now: {n}");
        }
    }
    for d in &report.applied.declared {
        let _ = writeln!(
            out,
            "DECLARED: {} {}: \"{}\"",
            d.kind.as_str(),
            d.test,
            d.reason
        );
    }
    for f in &j.facts {
        let _ = writeln!(out, "FACT: {} {}: {}", f.kind.as_str(), f.test, f.detail);
    }
    for c in &report.judgement.cannot_judge {
        let _ = writeln!(out, "{} {c}", paint(RED, "CANNOT JUDGE"));
    }
    if report.verdict() == loki_core::outcome::Verdict::Clean {
        let base: String = report.base.chars().take(BASE_SHOWN).collect();
        let _ = writeln!(
            out,
            "{} no test newly failing, missing, skipped, or edited to pass since {base}",
            paint(GREEN, "CLEAN")
        );
    }
    for n in &report.not_proven {
        let _ = writeln!(out, "NOT PROVEN: {n}");
    }
    if let Some(r) = &report.receipt {
        let _ = writeln!(
            out,
            "Receipt:    sha256:{} ({}; check it with `loki verify {}`)",
            r.receipt_sha256, r.outcome, r.run_id
        );
    }
    out
}

/// What `loki seal declare` says: what the session now holds, and what happens next.
#[must_use]
pub fn declared(r: &loki_seal::declare::Recorded, contradiction: bool) -> String {
    let mut out = String::new();
    for d in &r.declarations {
        let _ = writeln!(
            out,
            "declared for session {}: {} {}: \"{}\"",
            r.session,
            d.kind.as_str(),
            d.test,
            d.reason
        );
    }
    out.push_str(if contradiction {
        "stop again: the session will end released, NOT VERIFIED, and the user will see the contradiction\n"
    } else {
        "stop again: the declaration is signed into the receipt and shown to the user\n"
    });
    out
}

/// What `loki seal install` says: where the hooks are, and whether `agent` will run them.
#[must_use]
pub fn installed(
    report: &InstallReport,
    agent: Agent,
    budget: &Budget,
    active: &Activation,
) -> String {
    let mut out = String::new();
    if report.changed {
        let _ = writeln!(
            out,
            "registered loki seal's {} hooks in {}",
            agent.hook_events(),
            report.path.display()
        );
    } else {
        let _ = writeln!(
            out,
            "loki seal's hooks are already registered in {}",
            report.path.display()
        );
    }
    let _ = writeln!(
        out,
        "hooks run: {} seal start|stop --agent {}",
        report.program,
        agent.as_str()
    );
    let _ = writeln!(out, "{}", budget.explain());
    match active.active {
        Active::Yes => {
            let _ = writeln!(out, "{}: {}", agent.as_str(), active.detail);
        }
        _ => {
            let _ = writeln!(
                out,
                "{} {} will not run them yet ({}): {}",
                paint(RED, "NOT ACTIVE"),
                agent.as_str(),
                active.active.as_str(),
                active.detail
            );
            if let Some(fix) = &active.fix {
                let _ = writeln!(out, "to make them run: {fix}");
            }
        }
    }
    out
}

/// The `--json` form of `loki seal install` (see the module doc).
#[must_use]
pub fn installed_json(
    report: &InstallReport,
    agent: Agent,
    budget: &Budget,
    active: &Activation,
) -> serde_json::Value {
    let (kind, suite_s, session) = match &budget.basis {
        Basis::Given { .. } => ("given", None, None),
        Basis::Session { session, suite_s } => ("session", Some(*suite_s), Some(session.as_str())),
        Basis::Measured { suite_s } => ("measured", Some(*suite_s), None),
        Basis::NoSuite => ("no_suite", None, None),
        Basis::Unmeasured { .. } => ("unmeasured", None, None),
    };
    serde_json::json!({
        "settings": report.path, "changed": report.changed, "agent": agent.as_str(),
        "command": report.program,
        "timeouts": {"start_s": report.timeouts.start_s, "stop_s": report.timeouts.stop_s},
        "basis": {"kind": kind, "suite_s": suite_s, "session": session},
        "explanation": budget.explain(),
        "active": {"active": active.active.as_str(), "detail": active.detail, "fix": active.fix},
    })
}

/// The text of `loki seal status`.
#[must_use]
pub fn status(
    sessions: &[loki_seal::SealState],
    agents: &[loki_seal::Activation],
    broken: &[String],
) -> String {
    let mut out = String::new();
    if sessions.is_empty() {
        out.push_str("no seal sessions recorded\n");
    }
    for s in sessions {
        let last = s.history.last();
        let _ = writeln!(
            out,
            "session {}  started {}{}  blocks {}  {}",
            s.session,
            s.started_at,
            match s.origin {
                loki_seal::Origin::SessionStart => "",
                loki_seal::Origin::LastCommit => " (baseline: last commit)",
            },
            s.blocks,
            last.map_or_else(
                || "no stop yet".to_string(),
                |l| format!(
                    "last stop {} {}{}",
                    l.at,
                    l.decision.as_str(),
                    l.verdict
                        .as_deref()
                        .map(|v| format!(" ({v})"))
                        .unwrap_or_default()
                )
            )
        );
        for r in s
            .history
            .iter()
            .filter(|r| r.decision == loki_seal::Stopped::Released)
        {
            let _ = writeln!(
                out,
                "  {} RELEASED, NOT VERIFIED{}: {}",
                paint(RED, "!"),
                r.receipt_sha256
                    .as_deref()
                    .map(|h| format!(" (receipt sha256:{h})"))
                    .unwrap_or_default(),
                r.reasons.join("; ")
            );
        }
    }
    for b in broken {
        let _ = writeln!(out, "unreadable session state: {b}");
    }
    for a in agents {
        let _ = writeln!(
            out,
            "hooks {:<7} {}: {}{}",
            a.agent.as_str(),
            a.active.as_str(),
            a.detail,
            a.fix
                .as_deref()
                .map(|f| format!(" (fix: {f})"))
                .unwrap_or_default()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_format_is_pinned() {
        let record = |decision, verdict: Option<&str>, reasons: &[&str]| loki_seal::StopRecord {
            at: "2026-12-01T10:00:00Z".into(),
            decision,
            verdict: verdict.map(str::to_string),
            receipt_sha256: verdict.map(|_| "ab12".into()),
            run_id: Some("r1".into()),
            reasons: reasons.iter().map(|r| (*r).to_string()).collect(),
        };
        let session = |id: &str, origin, blocks, history| loki_seal::SealState {
            schema: loki_seal::session::STATE_SCHEMA.into(),
            session: id.into(),
            repo_root: "/repo".into(),
            snapshot: "c0ffee".into(),
            started_at: "2026-12-01T09:00:00Z".into(),
            checks: Vec::new(),
            baseline: Vec::new(),
            blocks,
            baseline_s: 1.5,
            origin,
            history,
            declarations: Vec::new(),
            pending: Vec::new(),
            known: Vec::new(),
            request: None,
        };
        let sessions = [
            session(
                "s1",
                loki_seal::Origin::SessionStart,
                0,
                vec![
                    record(
                        loki_seal::Stopped::Blocked,
                        Some("FAILED"),
                        &["newly_skipped: test_sub"],
                    ),
                    record(
                        loki_seal::Stopped::Released,
                        Some("PARTIAL"),
                        &["newly_skipped: test_sub"],
                    ),
                ],
            ),
            session("s2", loki_seal::Origin::LastCommit, 1, Vec::new()),
        ];
        let agents = [
            loki_seal::Activation {
                agent: Agent::Claude,
                active: loki_seal::Active::Yes,
                detail: "/repo/.claude/settings.json registers the hooks".into(),
                fix: None,
            },
            loki_seal::Activation {
                agent: Agent::Codex,
                active: loki_seal::Active::No,
                detail: "/repo is not a trusted project".into(),
                fix: Some("codex trust".into()),
            },
        ];
        let out = status(&sessions, &agents, &["bad.json: not JSON".into()]);
        insta::assert_snapshot!(anstream::adapter::strip_str(&out).to_string());
    }
}
