//! `loki seal`: what the stop hook's commands print for a person (the agent's protocol answers
//! are `loki_seal::respond`'s).
//!
//! - `start` (stderr): `loki seal: baseline recorded for session S in this worktree: N suite(s),
//!   M tests`; or that the session joined the worktree's open baseline, which was kept (when and
//!   by which session it was taken); or, with `--rebaseline`, that it was reset.
//! - `reset`: the baseline recorded, and the changes before it named as not judged.
//! - `check`: after the suites' result lines, one `FINDING <reason>` (red) per finding, `FACT:
//!   <kind> <test>: <detail>` per fact, `CANNOT JUDGE <why>` (red), `CLEAN …since <base, 12
//!   hex>` (green) only when clean, and one `NOT PROVEN: <item>` line each. `--json` is one object
//!   with every finding's `advice`.
//! - `status`: one line per worktree (its baseline: when, how, by which session; blocks, last
//!   stop), a `sessions:` line naming its lineage, a `reset` line per baseline the user replaced,
//!   a red `! RELEASED, NOT VERIFIED` line for each stop the agent was let through unproven,
//!   unreadable state files, then one `hooks <agent> <active>: <detail> (fix: …)` line per agent.
//! - `install`: where the hooks were registered, the program they run, their timeouts and how
//!   those were chosen, and whether the agent will run them; when not, a red `NOT ACTIVE` line
//!   and what makes them run. `--json`: `{path, changed, agent, command, timeouts: {start_s,
//!   stop_s}, basis: {kind, suite_s, session}, explanation, active, active_detail, fix}`.

use std::fmt::Write as _;

use loki_seal::CheckReport;
use loki_seal::{
    Activation, Active, Agent, Basis, Budget, InstallReport, Origin, ResetReport, SealState,
    Source, Started,
};

use crate::style::{GREEN, RED, paint};

/// Hex digits of the base commit named on the CLEAN line.
const BASE_SHOWN: usize = 12;

/// What `loki seal start` says on stderr (no trailing newline); `source` is the agent's reason
/// for the session start (`resume`, `clear`, …).
#[must_use]
pub fn started(started: &Started, source: Option<&Source>) -> String {
    let state = &started.state;
    if started.kept {
        let (how, on) = source.map_or((String::new(), String::new()), |s| {
            (
                format!(" ({})", s.describe()),
                format!(" on {}", s.as_str()),
            )
        });
        format!(
            "loki seal: session {}{how} joined this worktree: its open baseline is kept{on}, {} ({}); every change since then is still judged",
            started.session,
            taken(state),
            short(&state.snapshot),
        )
    } else if let Some(reset) = &started.reset {
        format!(
            "loki seal: baseline reset by session {} (--rebaseline): {}; the changes since {} ({}) are NOT PROVEN in the next receipt",
            started.session,
            suites(state),
            reset.previous_since,
            short(&reset.previous),
        )
    } else {
        format!(
            "loki seal: baseline recorded for session {} in this worktree: {}",
            started.session,
            suites(state)
        )
    }
}

/// What `loki seal reset` says.
#[must_use]
pub fn reset(r: &ResetReport) -> String {
    match &r.reset {
        Some(reset) => format!(
            "loki seal: baseline reset for {}: {}. The changes made before the reset (since {}, base {}) were not judged: the next receipt of this worktree names them NOT PROVEN (`loki seal check --base {}` judges them).\n",
            r.state.repo_root.display(),
            suites(&r.state),
            reset.previous_since,
            short(&reset.previous),
            reset.previous,
        ),
        None => format!(
            "loki seal: baseline recorded for {} (it had none): {}.\n",
            r.state.repo_root.display(),
            suites(&r.state)
        ),
    }
}

/// `N suite(s), M tests`.
fn suites(state: &SealState) -> String {
    let executed: u64 = state.baseline.iter().map(|r| r.run.executed).sum();
    format!("{} suite(s), {executed} tests", state.baseline.len())
}

/// When and how the current baseline was taken, for a person.
fn taken(state: &SealState) -> String {
    match state.origin {
        Origin::SessionStart => format!(
            "taken {} at the start of session {}",
            state.started_at, state.session
        ),
        Origin::LastCommit => format!(
            "= the last commit (no start was recorded; session {} stopped at {})",
            state.session, state.started_at
        ),
        Origin::JudgedStop => format!(
            "taken {} at a judged stop of session {}",
            state.started_at, state.session
        ),
        Origin::Reset => format!("reset by the user at {}", state.started_at),
    }
}

/// A commit's first hex digits.
fn short(commit: &str) -> String {
    commit.chars().take(BASE_SHOWN).collect()
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
    if report.verdict() == loki_protocol::outcome::Verdict::Clean {
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

/// The `--json` form of `loki seal start`.
#[must_use]
pub fn started_json(started: &Started) -> serde_json::Value {
    let s = &started.state;
    serde_json::json!({"session": started.session, "repo": s.repo_root,
    "snapshot": s.snapshot, "started_at": s.started_at, "kept": started.kept,
    "baseline_session": s.session, "origin": s.origin, "reset": started.reset,
    "baseline_s": s.baseline_s, "checks": s.baseline})
}

/// The `--json` form of `loki seal reset`.
#[must_use]
pub fn reset_json(report: &ResetReport) -> serde_json::Value {
    let s = &report.state;
    serde_json::json!({"repo": s.repo_root, "snapshot": s.snapshot,
    "started_at": s.started_at, "baseline_s": s.baseline_s, "checks": s.baseline,
    "reset": report.reset, "not_proven": report.reset.as_ref().map(loki_seal::Reset::not_proven)})
}

/// The `--json` form of `loki seal declare`.
#[must_use]
pub fn declared_json(r: &loki_seal::declare::Recorded) -> serde_json::Value {
    serde_json::json!({"session": r.session, "declarations": r.declarations})
}

/// The `--json` object of `loki seal stop`: the decision in words every agent shares, and what
/// the agent's own protocol was told (its stdout as JSON when it is, and the exit status).
#[must_use]
pub fn stop_json(
    agent: Agent,
    decision: &loki_seal::Decision,
    r: &loki_seal::HookResponse,
) -> serde_json::Value {
    use loki_seal::Decision;
    let (word, message) = match decision {
        Decision::Allow { message } => ("allow", message),
        Decision::Block { reason } => ("block", reason),
        Decision::Release { message } => ("release", message),
    };
    let hook: Option<serde_json::Value> = serde_json::from_str(r.stdout.trim()).ok();
    serde_json::json!({"agent": agent.as_str(), "decision": word,
        "message": message, "hook_output": hook, "exit_code": r.exit})
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
        out.push_str("no seal baselines recorded\n");
    }
    for s in sessions {
        let last = s.history.last();
        let _ = writeln!(
            out,
            "worktree {}  baseline {} {}  blocks {}  {}",
            s.repo_root.display(),
            short(&s.snapshot),
            taken(s),
            s.blocks,
            last.map_or_else(
                || "no stop yet".to_string(),
                |l| format!(
                    "last stop {} {}{}{}",
                    l.at,
                    l.decision.as_str(),
                    l.verdict.map(|v| format!(" ({v})")).unwrap_or_default(),
                    l.session
                        .as_deref()
                        .map(|v| format!(" by session {v}"))
                        .unwrap_or_default()
                )
            )
        );
        if !s.lineage.is_empty() {
            let names: Vec<String> = s.lineage.iter().map(loki_seal::Joined::describe).collect();
            let _ = writeln!(out, "  sessions: {}", names.join(", "));
        }
        for r in &s.resets {
            let _ = writeln!(
                out,
                "  reset at {}: the changes since {} (base {}) are NOT PROVEN in the next receipt",
                r.at,
                r.previous_since,
                short(&r.previous)
            );
        }
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
    use loki_protocol::Outcome;

    #[test]
    fn status_format_is_pinned() {
        let record = |decision, verdict: Option<Outcome>, reasons: &[&str]| loki_seal::StopRecord {
            at: "2026-12-01T10:00:00Z".into(),
            decision,
            verdict,
            receipt_sha256: verdict.map(|_| "ab12".into()),
            run_id: Some("r1".into()),
            reasons: reasons.iter().map(|r| (*r).to_string()).collect(),
            session: Some("s1-clear".into()),
        };
        let joined = |session: &str, source: Option<loki_seal::Source>, agent_id: Option<&str>| {
            loki_seal::Joined {
                session: session.into(),
                event: Some(
                    if agent_id.is_some() {
                        "SubagentStop"
                    } else {
                        "SessionStart"
                    }
                    .into(),
                ),
                source,
                agent: Some(Agent::Claude),
                agent_id: agent_id.map(Into::into),
                agent_type: agent_id.map(|_| "general-purpose".into()),
                at: "2026-12-01T09:00:00Z".into(),
            }
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
            lineage: Vec::new(),
            resets: Vec::new(),
        };
        let mut first = session(
            "s1",
            loki_seal::Origin::Reset,
            0,
            vec![
                record(
                    loki_seal::Stopped::Blocked,
                    Some(Outcome::Failed),
                    &["newly_skipped: test_sub"],
                ),
                record(
                    loki_seal::Stopped::Released,
                    Some(Outcome::Partial),
                    &["newly_skipped: test_sub"],
                ),
            ],
        );
        first.lineage = vec![
            joined("s1", Some(loki_seal::Source::Startup), None),
            joined("s1-clear", Some(loki_seal::Source::Clear), None),
            joined("s1-clear", None, Some("a7f3")),
        ];
        first.resets = vec![loki_seal::Reset {
            at: "2026-12-01T09:30:00Z".into(),
            previous: "0123456789abcdef0123".into(),
            previous_since: "2026-12-01T08:00:00Z".into(),
            by: loki_seal::ResetBy::Reset,
        }];
        let sessions = [
            first,
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
