//! Hook protocols: what each agent sends on stdin, and how each is told "stop" or "go on".
//!
//! Only documented fields are emitted (Codex drops objects with unknown fields).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::SealError;
use crate::decide::Decision;

/// The coding agents loki seal speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// SessionStart only: why the session (re)started ([`Source`]). Informational: the baseline
    /// belongs to the worktree, so no source can reset it.
    #[serde(default)]
    pub source: Option<Source>,
    /// The agent's transcript (JSON lines), where the user's request is read from.
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    /// A subagent's id and type: Claude Code sends them on every hook fired inside a subagent
    /// and on `SubagentStop`; Codex on `SubagentStop`.
    #[serde(default)]
    pub agent_id: Option<String>,
    #[serde(default)]
    pub agent_type: Option<String>,
    /// Whose protocol the hook speaks (`--agent`); not part of the input.
    #[serde(skip)]
    pub agent: Option<Agent>,
}

/// Why an agent fired SessionStart. What each pinned client sends (read from the clients
/// themselves; each is pinned by a test below):
///
/// | client | sources | a new `session_id` on |
/// |---|---|---|
/// | Claude Code 2.1.332 | `startup`, `resume`, `clear`, `compact`, `fork` | `startup`, `clear`, `fork` |
/// | Codex 0.171.0 | `startup`, `resume`, `clear`, `compact`, `fork` | `startup`, `clear`, `fork` |
/// | Gemini CLI 0.61.0 | `startup`, `resume`, `clear` | `startup`, `clear` |
///
/// Any other value is kept as [`Source::Other`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// A new session.
    Startup,
    /// An earlier session continued (`--resume`, `/resume`), with its id.
    Resume,
    /// The context was cleared (`/clear`): a new id for the same work.
    Clear,
    /// The context was compacted, with the same id.
    Compact,
    /// An earlier session forked into a new id (`--fork-session`).
    Fork,
    Other(String),
}

impl Source {
    /// The name the clients send.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match self {
            Source::Startup => "startup",
            Source::Resume => "resume",
            Source::Clear => "clear",
            Source::Compact => "compact",
            Source::Fork => "fork",
            Source::Other(s) => s,
        }
    }

    /// Parses a client's name (never fails: an unknown one is [`Source::Other`]).
    #[must_use]
    pub fn parse(s: &str) -> Source {
        match s {
            "startup" => Source::Startup,
            "resume" => Source::Resume,
            "clear" => Source::Clear,
            "compact" => Source::Compact,
            "fork" => Source::Fork,
            other => Source::Other(other.to_string()),
        }
    }

    /// What a person reads about it: how the session came to this worktree.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Source::Startup => "a new session".to_string(),
            Source::Resume => "a resumed session".to_string(),
            Source::Clear => "a cleared context (a new session id)".to_string(),
            Source::Compact => "a compacted context".to_string(),
            Source::Fork => "a forked session (a new session id)".to_string(),
            Source::Other(s) => format!("a session start ({s})"),
        }
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Source, D::Error> {
        String::deserialize(d).map(|s| Source::parse(&s))
    }
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

/// The agent's protocol for `decision`. Every answer with exit 0 also carries the person's line
/// ([`crate::person::line`]) on stderr: the pinned clients keep an exit-0 hook's stderr out of
/// sight (it is loki's own record of the verdict, not a message to the model).
#[must_use]
pub fn respond(agent: Agent, decision: &Decision) -> HookResponse {
    let json = |v: serde_json::Value| format!("{v}\n");
    let out = |stdout: String| HookResponse {
        stdout,
        stderr: format!("{}\n", crate::person::line(decision)),
        exit: 0,
    };
    match (agent, decision) {
        // Claude Code: exit 2 with the reason on stderr blocks (stdout is ignored then); that
        // stderr reaches the model, so it is the reason alone.
        (Agent::Claude, Decision::Block { reason }) => HookResponse {
            stdout: String::new(),
            stderr: format!("{reason}\n"),
            exit: 2,
        },
        // Claude Code: `continue: false` ends the turn as "stopped by a hook" (`claude -p` reports
        // `terminal_reason: "stop_hook_prevented"` instead of `"completed"`), `stopReason` is the
        // reason shown for that stop, and `systemMessage` is the warning shown to the person (the
        // TUI's notice line; `-p --output-format stream-json` as a `system`/`informational`
        // event; text and `--output-format json` show neither, so the CLI relays the line, see
        // [`crate::person`]). Exit 0: an exit 2 would hand the message to the model as another
        // block.
        // Gemini CLI 0.61, AfterAgent: `continue: false` ends the agent loop (no retry) and is
        // reported as "Agent execution stopped: <systemMessage, else stopReason>" (headless:
        // on stderr, after "Hook system message: …"; `-o json`: in `warnings`); the process
        // still exits 0, Gemini has no way for a hook to fail the turn.
        // Codex 0.171 parses Stop output strictly (an unknown field fails the hook: "hook: Stop
        // Failed"); these three universal fields it accepts: `continue: false` + `stopReason`
        // end the turn marked "Stopped" (`codex exec` prints "hook: Stop Stopped", not
        // "Completed"), `systemMessage` is its warning line for the person in the TUI (`codex
        // exec` and `--json` show neither message: relayed, [`crate::person`]).
        (Agent::Claude | Agent::Codex | Agent::Gemini, Decision::Release { message }) => {
            out(json(serde_json::json!({
                "continue": false,
                "stopReason": message,
                "systemMessage": message,
            })))
        }
        // Until each agent's own way to show a release is wired, a release reads like an allow
        // with its message.
        (agent, Decision::Release { message }) => respond(
            agent,
            &Decision::Allow {
                message: message.clone(),
            },
        ),
        // Codex 0.171 accepts `systemMessage` on an allowed Stop too (the hook still completes):
        // what was declared and proven goes to every agent that can show it. `codex exec` prints
        // nothing for a completed stop: there the CLI relays the line ([`crate::person`]).
        (Agent::Claude | Agent::Gemini | Agent::Codex, Decision::Allow { message }) => {
            out(json(serde_json::json!({ "systemMessage": message })))
        }
        (Agent::Codex, Decision::Block { reason }) => out(json(
            serde_json::json!({ "decision": "block", "reason": reason }),
        )),
        // Cursor has no allow message: say nothing.
        (Agent::Cursor, Decision::Allow { .. }) => out(json(serde_json::json!({}))),
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
            message: "loki seal: released after 5 consecutive blocks; NOT VERIFIED".into(),
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

    /// Captured from Claude Code 2.1.332 (`claude -p --resume <id>`): the payload of a resumed
    /// session's SessionStart.
    #[test]
    fn claude_resume_session_start_parses() {
        let i = HookInput::parse(r#"{"session_id":"1de6299f-f841-44cf-8167-0d4530fde513","transcript_path":"/home/u/.claude/projects/-repo/1de6299f-f841-44cf-8167-0d4530fde513.jsonl","cwd":"/repo","hook_event_name":"SessionStart","source":"resume","seconds_since_last_response":657,"context_tokens":15,"prompt_cache_likely_expired":true,"estimated_cache_write_usd":0.0001}"#).unwrap();
        assert_eq!(i.session(), "1de6299f-f841-44cf-8167-0d4530fde513");
        assert_eq!(i.source, Some(Source::Resume));
        assert_eq!(i.hook_event_name.as_deref(), Some("SessionStart"));
        assert_eq!(i.cwd, Some(PathBuf::from("/repo")));
    }

    /// Each pinned client's SessionStart, with every source it sends (see [`Source`]): Claude
    /// Code's as its hook schema declares it (a cleared context and a fork arrive with a new
    /// `session_id`); Codex 0.171.0's `session-start.command.input` (every field required,
    /// `transcript_path` may be null); Gemini CLI 0.61.0's as captured from `gemini --resume
    /// latest -p /clear`. Whatever the source, the baseline is the worktree's.
    #[test]
    fn every_clients_session_start_sources_parse() {
        let claude = |source: &str| {
            format!(
                r#"{{"session_id":"9f0c","transcript_path":"/h/.claude/projects/-repo/9f0c.jsonl","cwd":"/repo","hook_event_name":"SessionStart","source":"{source}","model":"claude-sonnet-4-6"}}"#
            )
        };
        let codex = |source: &str| {
            format!(
                r#"{{"cwd":"/repo","hook_event_name":"SessionStart","model":"gpt-5.5","permission_mode":"default","session_id":"019b","source":"{source}","transcript_path":null}}"#
            )
        };
        let gemini = |source: &str| {
            format!(
                r#"{{"cwd":"/repo","hook_event_name":"SessionStart","session_id":"2ebd7764-227d-4a48-8263-a6fcd354fad9","source":"{source}","timestamp":"2026-12-07T01:49:11.217Z","transcript_path":"/h/.gemini/tmp/repo/chats/session-2026-12-07T01-49-2ebd7764.jsonl"}}"#
            )
        };
        let all = [
            (Source::Startup, "startup"),
            (Source::Resume, "resume"),
            (Source::Clear, "clear"),
            (Source::Compact, "compact"),
            (Source::Fork, "fork"),
        ];
        for (client, payload, sends) in [
            ("claude", &claude as &dyn Fn(&str) -> String, &all[..]),
            ("codex", &codex, &all[..]),
            ("gemini", &gemini, &all[..3]),
        ] {
            for (want, name) in sends {
                let i = HookInput::parse(&payload(name)).unwrap();
                assert_eq!(i.source.as_ref(), Some(want), "{client} {name}");
                assert_eq!(i.hook_event_name.as_deref(), Some("SessionStart"));
                assert_eq!(want.as_str(), *name);
            }
        }
        let other = HookInput::parse(&claude("teleport")).unwrap();
        assert_eq!(other.source, Some(Source::Other("teleport".into())));
        assert_eq!(
            serde_json::to_string(&other.source).unwrap(),
            "\"teleport\"",
            "written back as sent"
        );
    }

    /// A subagent's stop: Claude Code 2.1.332 and Codex 0.171.0 send the parent's `session_id`
    /// with the subagent's `agent_id` and `agent_type` (Codex: `subagent-stop.command.input`).
    #[test]
    fn claude_and_codex_subagent_stops_parse() {
        let claude = HookInput::parse(r#"{"session_id":"9f0c","transcript_path":"/h/9f0c.jsonl","cwd":"/repo","permission_mode":"default","hook_event_name":"SubagentStop","stop_hook_active":false,"agent_id":"a4b2c9","agent_transcript_path":"/h/9f0c/subagents/agent-a4b2c9.jsonl","agent_type":"general-purpose","last_assistant_message":"The tests pass.","background_tasks":[]}"#).unwrap();
        let codex = HookInput::parse(r#"{"agent_id":"019b-2","agent_transcript_path":null,"agent_type":"default","cwd":"/repo","hook_event_name":"SubagentStop","last_assistant_message":null,"model":"gpt-5.5","permission_mode":"default","session_id":"019b","stop_hook_active":true,"transcript_path":null,"turn_id":"t1"}"#).unwrap();
        for (i, session, agent_id, agent_type) in [
            (&claude, "9f0c", "a4b2c9", "general-purpose"),
            (&codex, "019b", "019b-2", "default"),
        ] {
            assert_eq!(i.session(), session);
            assert_eq!(i.hook_event_name.as_deref(), Some("SubagentStop"));
            assert_eq!(i.agent_id.as_deref(), Some(agent_id));
            assert_eq!(i.agent_type.as_deref(), Some(agent_type));
            assert_eq!(
                i.agent, None,
                "the protocol is the command line's, not the input's"
            );
        }
        assert!(codex.stop_hook_active);
    }

    #[test]
    fn gemini_release_stops_the_agent_loop_visibly() {
        let r = respond(
            Agent::Gemini,
            &Decision::Release {
                message: "loki seal: released after 5 blocks; NOT VERIFIED".into(),
            },
        );
        insta::assert_snapshot!(format!(
            "exit {} stdout={:?} stderr={:?}",
            r.exit, r.stdout, r.stderr
        ));
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
