//! What `loki seal stop` decides when it could not judge, and what `loki seal status --json`
//! shows: the seal's answers, as values the CLI only prints.
//!
//! # A stop that could not be checked ([`failed`])
//! It blocks (fail closed) and counts ([`crate::session::failed_stop`]): after `max_blocks` such
//! stops in a row the next is released, NOT VERIFIED, so a broken seal never traps an agent.
//! Where the count itself cannot be kept (no home, an unwritable file), the stop blocks.
//!
//! # `loki seal status` ([`overview`])
//! The open baselines of the repository's worktree (of every worktree with `--all`, or outside a
//! repository), each agent's activation in the repository, and the state files that cannot be
//! read, named by their errors: one unreadable file never hides the others.
//!
//! # `loki seal status --json` ([`status_json`])
//! `{"sessions": [{session, repo, snapshot, started_at, origin, baseline_s, blocks, released,
//! history, lineage, resets}], "agents": [{agent, active, detail, fix}], "unreadable": [text]}`.
//! One entry of `sessions` per worktree with an open baseline (the key keeps its name from
//! before the keying by worktree): `session` is the session that took the current baseline,
//! `started_at` when, `origin` how (`session_start`, `last_commit`, `judged_stop`, `reset`);
//! `lineage` is every session (and subagent) that joined the worktree (`{session, event, source,
//! agent, agent_id, agent_type, at}`), `resets` the baselines the user replaced since the last
//! judged stop (`{at, previous, previous_since, by: {kind: "reset"|"rebaseline", session}}`).

use std::path::Path;

use crate::{Activation, Agent, Decision, SealState};

/// What `loki seal status` shows: the open baselines, each agent's activation in the
/// repository, and the state files that cannot be read (their errors' words).
#[derive(Debug)]
pub struct Overview {
    pub sessions: Vec<SealState>,
    pub agents: Vec<Activation>,
    pub unreadable: Vec<String>,
}

/// The seal's state under `home`: the baselines of the worktree `repo` (of every worktree with
/// `all`, or without a repository), and each agent's activation there (none without one).
pub fn overview(home: &Path, repo: Option<&Path>, all: bool) -> Result<Overview, crate::SealError> {
    let mut sessions = Vec::new();
    let mut unreadable = Vec::new();
    for s in crate::sessions(home)? {
        match s {
            Ok(s) if all || repo.is_none_or(|r| r == s.repo_root) => sessions.push(s),
            Ok(_) => {}
            Err(e) => unreadable.push(e.to_string()),
        }
    }
    let user = crate::UserEnv::from_process();
    let agents = repo
        .map(|r| {
            Agent::ALL
                .into_iter()
                .map(|a| crate::activation(a, r, &user))
                .collect()
        })
        .unwrap_or_default();
    Ok(Overview {
        sessions,
        agents,
        unreadable,
    })
}

impl Decision {
    /// The same decision with `p` put before its message or reason.
    #[must_use]
    pub fn prefixed(self, p: &str) -> Decision {
        match self {
            Decision::Allow { message } => Decision::Allow {
                message: format!("{p}{message}"),
            },
            Decision::Block { reason } => Decision::Block {
                reason: format!("{p}{reason}"),
            },
            Decision::Release { message } => Decision::Release {
                message: format!("{p}{message}"),
            },
        }
    }
}

impl Agent {
    /// The agent's hook events that `loki seal install` registers, as its documentation names
    /// them.
    #[must_use]
    pub fn hook_events(self) -> &'static str {
        match self {
            Agent::Claude | Agent::Codex => "SessionStart, Stop and SubagentStop",
            Agent::Gemini => "SessionStart and AfterAgent",
            Agent::Cursor => "sessionStart and stop",
        }
    }
}

/// The decision of a stop of `session` in the worktree `repo_root` (when it could be told) that
/// failed with `error` (the error's whole chain, one line) before it could be judged; `home` is
/// loki's home when it is known. See the module doc.
#[must_use]
pub fn failed(
    home: Option<&Path>,
    repo_root: Option<&Path>,
    session: &str,
    max_blocks: u64,
    error: &str,
) -> Decision {
    let counted = home.and_then(|home| {
        crate::session::failed_stop(
            home,
            repo_root,
            session,
            u32::try_from(max_blocks).unwrap_or(u32::MAX),
        )
        .ok()
    });
    match counted {
        Some((before, true)) => Decision::Release {
            message: format!(
                "loki seal: RELEASED, NOT VERIFIED: this stop could not be checked ({error}), {before} times in a row (seal.max_blocks = {max_blocks}). Fix the seal (`loki doctor`), then judge the change with `loki seal check`."
            ),
        },
        _ => Decision::Block {
            reason: format!(
                "loki seal could not check this stop, so it does not accept it: {error}"
            ),
        },
    }
}

/// `loki seal status --json`; see the module doc.
#[must_use]
pub fn status_json(
    sessions: &[SealState],
    agents: &[Activation],
    unreadable: &[String],
) -> serde_json::Value {
    let sessions: Vec<serde_json::Value> = sessions
        .iter()
        .map(|s| {
            serde_json::json!({
                "session": s.session, "repo": s.repo_root, "snapshot": s.snapshot,
                "started_at": s.started_at, "origin": s.origin, "baseline_s": s.baseline_s,
                "blocks": s.blocks, "released": s.released(), "history": s.history,
                "lineage": s.lineage, "resets": s.resets,
            })
        })
        .collect();
    let agents: Vec<serde_json::Value> = agents
        .iter()
        .map(|a| {
            serde_json::json!({"agent": a.agent.as_str(), "active": a.active.as_str(),
                               "detail": a.detail, "fix": a.fix})
        })
        .collect();
    serde_json::json!({"sessions": sessions, "agents": agents, "unreadable": unreadable})
}
