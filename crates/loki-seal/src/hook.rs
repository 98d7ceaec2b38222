//! Hook protocols: what each agent sends on stdin, and how each is told "stop" or "go on".
//!
//! Only documented fields are emitted (Codex drops objects with unknown fields).

use std::path::PathBuf;

use serde::Deserialize;

use crate::SealError;
use crate::decide::Decision;

/// The coding agents loki seal speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
    Cursor,
    Gemini,
}

impl Agent {
    /// Every agent.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Cursor, Agent::Gemini];

    /// The name as typed on the command line.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Cursor => "cursor",
            Agent::Gemini => "gemini",
        }
    }

    /// Parses a name.
    #[must_use]
    pub fn parse(s: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// The fields of a hook's stdin that the seal uses; everything else is ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct HookInput {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub stop_hook_active: bool,
    #[serde(default)]
    pub hook_event_name: Option<String>,
    /// SessionStart only: why the session (re)started (`startup`, `resume`, `compact`, `clear`).
    /// Informational: a known session id keeps its baseline whatever the source.
    #[serde(default)]
    pub source: Option<String>,
}

impl HookInput {
    /// Parses stdin. Empty input is allowed (a hook run by hand): every field is absent.
    pub fn parse(text: &str) -> Result<HookInput, SealError> {
        if text.trim().is_empty() {
            return Ok(HookInput::default());
        }
        serde_json::from_str(text).map_err(|e| SealError::BadInput(e.to_string()))
    }

    /// The session id, or `default` when the agent sent none.
    #[must_use]
    pub fn session(&self) -> String {
        self.session_id
            .clone()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "default".to_string())
    }
}

/// What the hook process prints and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookResponse {
    pub stdout: String,
    pub stderr: String,
    pub exit: u8,
}

/// The agent's protocol for `decision`.
#[must_use]
pub fn respond(agent: Agent, decision: &Decision) -> HookResponse {
    let json = |v: serde_json::Value| format!("{v}\n");
    let out = |stdout: String| HookResponse {
        stdout,
        stderr: String::new(),
        exit: 0,
    };
    match (agent, decision) {
        // Claude Code: exit 2 with the reason on stderr blocks (stdout is ignored then).
        (Agent::Claude, Decision::Block { reason }) => HookResponse {
            stdout: String::new(),
            stderr: format!("{reason}\n"),
            exit: 2,
        },
        // Codex 0.171 parses Stop output strictly (an unknown field fails the hook): the
        // universal fields `continue: false` + `stopReason` end the turn marked "Stopped" (not
        // "Completed": `hook: Stop Stopped` in `codex exec`), and `systemMessage` is shown to
        // the user as a warning.
        (Agent::Codex, Decision::Release { message }) => out(json(serde_json::json!({
            "continue": false,
            "stopReason": message,
            "systemMessage": message,
        }))),
        // Until each agent's own way to show a release is wired, a release reads like an allow
        // with its message.
        (agent, Decision::Release { message }) => respond(
            agent,
            &Decision::Allow {
                message: message.clone(),
            },
        ),
        (Agent::Claude | Agent::Gemini, Decision::Allow { message }) => {
            out(json(serde_json::json!({ "systemMessage": message })))
        }
        (Agent::Codex, Decision::Block { reason }) => out(json(
            serde_json::json!({ "decision": "block", "reason": reason }),
        )),
        // Codex drops objects with unknown fields, and Cursor has no allow message: say nothing.
        (Agent::Codex | Agent::Cursor, Decision::Allow { .. }) => out(json(serde_json::json!({}))),
        (Agent::Cursor, Decision::Block { reason }) => {
            out(json(serde_json::json!({ "followup_message": reason })))
        }
        (Agent::Gemini, Decision::Block { reason }) => out(json(
            serde_json::json!({ "decision": "deny", "reason": reason }),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    #[test]
    fn every_protocol_is_pinned() {
        let block = Decision::Block {
            reason: "loki seal: not done. tests newly failing: t1".into(),
        };
        let allow = Decision::Allow {
            message: "loki seal: sealed sha256:abc".into(),
        };
        let release = Decision::Release {
            message: "loki seal: released after 3 blocks".into(),
        };
        let mut out = String::new();
        for a in Agent::ALL {
            for d in [&block, &allow, &release] {
                let r = respond(a, d);
                writeln!(
                    out,
                    "{} {}: exit {} stdout={:?} stderr={:?}",
                    a.as_str(),
                    match d {
                        Decision::Block { .. } => "block",
                        Decision::Allow { .. } => "allow",
                        Decision::Release { .. } => "release",
                    },
                    r.exit,
                    r.stdout,
                    r.stderr
                )
                .unwrap();
            }
        }
        insta::assert_snapshot!(out);
    }

    #[test]
    fn claude_stop_input_parses_and_unknown_fields_are_ignored() {
        let i = HookInput::parse(r#"{"session_id":"abc123","transcript_path":"~/x.jsonl","cwd":"/repo","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":true,"last_assistant_message":"done"}"#).unwrap();
        assert_eq!(i.session(), "abc123");
        assert!(i.stop_hook_active);
        assert_eq!(i.cwd, Some(PathBuf::from("/repo")));
        assert_eq!(HookInput::parse("").unwrap().session(), "default");
        assert!(HookInput::parse("{not json").is_err());
    }
}
