//! The `scripted` provider: plays turns from a JSON file, deterministically. Used by tests and
//! the demo; no network, no model.
//!
//! # Format (`crates/loki-agent/schema/scripted.schema.json`)
//!
//! ```json
//! {
//!   "sessions": [
//!     {
//!       "name": "fix-off-by-one",
//!       "model": "scripted",
//!       "turns": [
//!         {"text": "Reading the file.",
//!          "tool_calls": [{"name": "read_file", "arguments": {"path": "src/lib.rs"}}],
//!          "usage": {"input_tokens": 1200, "output_tokens": 40}},
//!         {"tool_calls": [{"id": "c2", "name": "finish",
//!                          "arguments": {"status": "done", "detail": "fixed"}}]}
//!       ]
//!     }
//!   ]
//! }
//! ```
//!
//! - `sessions[]`: `name` (required, unique), optional `model` (default `scripted`, which has no
//!   price, so cost is "not measured"), `turns[]`.
//! - `turns[]`: optional `text`, optional `tool_calls[]` (`name`, `arguments` — any JSON value, so
//!   a script can send a string to exercise the error path — and an optional `id`, default
//!   `call_<session>_<turn>_<n>`), optional `usage` (the four token buckets, default 0),
//!   optional `stop` (`end_turn`, `tool_use`, `max_tokens`; default `tool_use` when there are
//!   tool calls, else `end_turn`).
//! - Unknown fields are refused, so a typo fails loudly instead of playing something else.
//!
//! - optional `if_prompt_contains` / `unless_prompt_contains` (strings): the session is played only
//!   when the prompt of its first request (the system prompt and the user's messages) contains (or
//!   does not contain) that text. A script can so behave differently under different agent
//!   instructions or tasks (`loki improve`'s replays); several sessions may then share a name.
//!
//! - optional `council[]`: the review council's sessions, in the same shape as `sessions[]`
//!   (`name` is a reviewer's role: `security`, `tests`, `api`, `performance`, `correctness`),
//!   each turn's `text` being the reviewer's JSON answer. A reviewer's session (label
//!   `council:<role>`) plays the council session named after its role, else the next council
//!   session not yet played; the council never plays a `sessions[]` entry and the other sessions
//!   never play a `council[]` one, so a script's build sessions keep their meaning. A script
//!   without `council` holds no council ([`Provider::council_unavailable`]).
//!
//! # Choosing a session
//! Each agent session calls [`Provider::begin_session`] with its label. A session whose `name`
//! equals the label is played; otherwise the next session not yet played, in file order. When a
//! script has conditional sessions, the choice waits for the session's first request and
//! considers only sessions whose conditions hold for its prompt. Every call plays the next
//! turn; asking for a turn past the end is [`AgentError::ScriptExhausted`], and a session begun
//! when all were played (or none whose conditions hold) is [`AgentError::Script`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;

use crate::error::AgentError;
use loki_clients::Usage;

use crate::message::{Request, Response, StopReason, ToolCall};
use crate::provider::{BoxFuture, Provider};

/// The label prefix of a review council session (`council:<role>`).
const COUNCIL_LABEL: &str = "council:";

/// The model name of a session that does not name one.
pub const SCRIPTED_MODEL: &str = "scripted";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    sessions: Vec<Session>,
    #[serde(default)]
    council: Vec<Session>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Session {
    name: String,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    if_prompt_contains: Option<String>,
    #[serde(default)]
    unless_prompt_contains: Option<String>,
    turns: Vec<Turn>,
    /// Set for the entries of `council[]` once the file is read.
    #[serde(skip)]
    council: bool,
}

impl Session {
    fn is_conditional(&self) -> bool {
        self.if_prompt_contains.is_some() || self.unless_prompt_contains.is_some()
    }

    /// Whether this session may play for a request whose prompt is `system` (`None`: not known
    /// yet, so only an unconditional session may).
    fn admits(&self, system: Option<&str>) -> bool {
        match system {
            None => !self.is_conditional(),
            Some(sys) => {
                self.if_prompt_contains
                    .as_deref()
                    .is_none_or(|t| sys.contains(t))
                    && self
                        .unless_prompt_contains
                        .as_deref()
                        .is_none_or(|t| !sys.contains(t))
            }
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Turn {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ScriptedCall>,
    #[serde(default)]
    usage: Usage,
    #[serde(default)]
    stop: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptedCall {
    #[serde(default)]
    id: Option<String>,
    name: String,
    #[serde(default = "empty_object")]
    arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

#[derive(Debug, Default)]
struct Cursor {
    played: Vec<bool>,
    session: Option<usize>,
    /// A session was begun with this label and waits for its first request to be chosen.
    pending: Option<Option<String>>,
    turn: usize,
}

/// Plays a script file.
#[derive(Debug)]
pub struct Scripted {
    path: PathBuf,
    script: ScriptFile,
    cursor: Mutex<Cursor>,
}

impl Scripted {
    /// Reads and checks a script file.
    pub fn load(path: &Path) -> Result<Scripted, AgentError> {
        let err = |message: String| AgentError::Script {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        Self::parse(path, &text)
    }

    /// Parses script text; `path` is only for messages.
    pub fn parse(path: &Path, text: &str) -> Result<Scripted, AgentError> {
        let err = |message: String| AgentError::Script {
            path: path.to_path_buf(),
            message,
        };
        let mut script: ScriptFile = serde_json::from_str(text).map_err(|e| {
            err(format!(
                "not a valid script (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        if script.sessions.is_empty() {
            return Err(err("it has no sessions".into()));
        }
        // One list from here on; the flag keeps the council's entries apart.
        let council = std::mem::take(&mut script.council);
        script
            .sessions
            .extend(council.into_iter().map(|c| Session { council: true, ..c }));
        for (i, s) in script.sessions.iter().enumerate() {
            if script.sessions[..i].iter().any(|o| {
                o.name == s.name
                    && o.council == s.council
                    && o.if_prompt_contains == s.if_prompt_contains
                    && o.unless_prompt_contains == s.unless_prompt_contains
            }) {
                return Err(err(format!(
                    "session name {:?} is used twice with the same conditions",
                    s.name
                )));
            }
            if let Some(stop) = s
                .turns
                .iter()
                .filter_map(|t| t.stop.as_deref())
                .find(|s| !matches!(*s, "end_turn" | "tool_use" | "max_tokens"))
            {
                return Err(err(format!(
                    "session {:?}: stop {stop:?} is not end_turn, tool_use or max_tokens",
                    s.name
                )));
            }
        }
        let played = vec![false; script.sessions.len()];
        Ok(Scripted {
            path: path.to_path_buf(),
            script,
            cursor: Mutex::new(Cursor {
                played,
                ..Cursor::default()
            }),
        })
    }

    /// Session names in file order.
    #[must_use]
    pub fn session_names(&self) -> Vec<&str> {
        self.script
            .sessions
            .iter()
            .map(|s| s.name.as_str())
            .collect()
    }

    fn start(
        &self,
        cursor: &mut Cursor,
        label: Option<&str>,
        system: Option<&str>,
    ) -> Result<usize, AgentError> {
        let sessions = &self.script.sessions;
        // A reviewer's label `council:<role>` plays the council's entries, by role.
        let council_role = label.and_then(|l| l.strip_prefix(COUNCIL_LABEL));
        let council = council_role.is_some();
        let wanted = council_role.or(label);
        let by_name = wanted.and_then(|l| {
            sessions
                .iter()
                .position(|s| s.council == council && s.name == l && s.admits(system))
        });
        let next = by_name.or_else(|| {
            (0..sessions.len()).find(|&i| {
                !cursor.played[i] && sessions[i].council == council && sessions[i].admits(system)
            })
        });
        let Some(i) = next else {
            let conditional = if system.is_some() {
                " whose conditions hold for this prompt"
            } else {
                ""
            };
            let (section, count) = if council {
                (
                    "council session",
                    sessions.iter().filter(|s| s.council).count(),
                )
            } else {
                ("session", sessions.iter().filter(|s| !s.council).count())
            };
            return Err(AgentError::Script {
                path: self.path.clone(),
                message: format!(
                    "all {count} {section}s{conditional} were already played; add a {section}{}",
                    wanted.map(|l| format!(" named {l:?}")).unwrap_or_default()
                ),
            });
        };
        cursor.played[i] = true;
        cursor.session = Some(i);
        cursor.turn = 0;
        Ok(i)
    }

    fn next(&self, system: &str) -> Result<Response, AgentError> {
        let mut cursor = self.cursor.lock().unwrap_or_else(PoisonError::into_inner);
        let si = match cursor.session {
            Some(i) => i,
            None => {
                let label = cursor.pending.take().flatten();
                self.start(&mut cursor, label.as_deref(), Some(system))?
            }
        };
        let session = &self.script.sessions[si];
        let ti = cursor.turn;
        let Some(turn) = session.turns.get(ti) else {
            return Err(AgentError::ScriptExhausted {
                path: self.path.clone(),
                session: session.name.clone(),
                turn: ti + 1,
                turns: session.turns.len(),
            });
        };
        cursor.turn += 1;
        let tool_calls: Vec<ToolCall> = turn
            .tool_calls
            .iter()
            .enumerate()
            .map(|(n, c)| ToolCall {
                id: c
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{}_{}_{}", si + 1, ti + 1, n + 1)),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
                arguments_error: None,
            })
            .collect();
        let stop = match turn.stop.as_deref() {
            Some("end_turn") => StopReason::EndTurn,
            Some("max_tokens") => StopReason::MaxTokens,
            None if tool_calls.is_empty() => StopReason::EndTurn,
            Some(_) | None => StopReason::ToolUse,
        };
        Ok(Response {
            text: turn.text.clone(),
            tool_calls,
            usage: turn.usage,
            stop,
            model: session
                .model
                .clone()
                .unwrap_or_else(|| SCRIPTED_MODEL.to_string()),
        })
    }
}

/// The text conditions are matched against: the system prompt and every user message.
fn prompt_text(req: &Request) -> String {
    let mut s = req.system.clone();
    for m in &req.messages {
        if let crate::message::Message::User { text } = m {
            s.push('\n');
            s.push_str(text);
        }
    }
    s
}

impl Provider for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    /// Each turn is priced by the model it names; a dollar cap is checked against those.
    fn measures_cost(&self, _prices: &crate::PriceTable) -> bool {
        true
    }

    fn model(&self) -> &str {
        SCRIPTED_MODEL
    }

    fn council_unavailable(&self) -> Option<String> {
        (!self.script.sessions.iter().any(|s| s.council))
            .then(|| "the script has no `council` section".to_string())
    }

    fn begin_session(&self, label: Option<&str>) -> Result<(), AgentError> {
        let mut cursor = self.cursor.lock().unwrap_or_else(PoisonError::into_inner);
        if self.script.sessions.iter().any(Session::is_conditional) {
            // Chosen at the first request, when the system prompt is known.
            cursor.session = None;
            cursor.turn = 0;
            cursor.pending = Some(label.map(str::to_string));
            return Ok(());
        }
        self.start(&mut cursor, label, None).map(|_| ())
    }

    fn complete<'a>(&'a self, req: &'a Request) -> BoxFuture<'a, Result<Response, AgentError>> {
        let prompt = prompt_text(req);
        let r = self.next(&prompt);
        Box::pin(async move { r })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = r#"{"sessions":[
        {"name":"a","turns":[{"text":"hi"}]},
        {"name":"b","model":"gpt-4o","turns":[{"tool_calls":[{"name":"finish","arguments":{"status":"done","detail":"x"}}],"usage":{"input_tokens":5,"output_tokens":1}}]}
    ]}"#;

    fn req() -> Request {
        Request {
            system: String::new(),
            messages: vec![],
            tools: vec![],
            max_output_tokens: 1,
        }
    }

    #[tokio::test]
    async fn sessions_are_picked_by_name_then_in_order_and_running_out_is_an_error() {
        let s = Scripted::parse(Path::new("s.json"), SCRIPT).unwrap();
        s.begin_session(Some("b")).unwrap();
        let r = s.complete(&req()).await.unwrap();
        assert_eq!(r.tool_calls[0].id, "call_2_1_1");
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(r.model, "gpt-4o");
        let e = s.complete(&req()).await.unwrap_err();
        assert!(
            e.to_string()
                .contains("session \"b\" has no turn 2 left (it has 1)"),
            "{e}"
        );
        // Unknown label: the next unplayed session in order.
        s.begin_session(Some("zzz")).unwrap();
        assert_eq!(
            s.complete(&req()).await.unwrap().text.as_deref(),
            Some("hi")
        );
        let e = s.begin_session(None).unwrap_err();
        assert!(
            e.to_string().contains("all 2 sessions were already played"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn conditional_sessions_play_by_the_system_prompt() {
        let s = Scripted::parse(
            Path::new("s.json"),
            r#"{"sessions":[
                {"name":"implement","if_prompt_contains":"RUN THE TESTS","turns":[{"text":"careful"}]},
                {"name":"implement","unless_prompt_contains":"RUN THE TESTS","turns":[{"text":"sloppy"}]}
            ]}"#,
        )
        .unwrap();
        let mut r = req();
        s.begin_session(Some("implement")).unwrap();
        assert_eq!(
            s.complete(&r).await.unwrap().text.as_deref(),
            Some("sloppy")
        );
        r.system = "rules\nRUN THE TESTS first".into();
        s.begin_session(Some("implement")).unwrap();
        assert_eq!(
            s.complete(&r).await.unwrap().text.as_deref(),
            Some("careful")
        );
        // Same name and same conditions twice is a typo.
        let e = Scripted::parse(
            Path::new("s.json"),
            r#"{"sessions":[{"name":"a","if_prompt_contains":"x","turns":[]},{"name":"a","if_prompt_contains":"x","turns":[]}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("used twice"), "{e}");
    }

    #[tokio::test]
    async fn council_sessions_play_only_for_reviewers_by_role_then_in_order() {
        let s = Scripted::parse(
            Path::new("s.json"),
            r#"{"sessions":[{"name":"implement","turns":[{"text":"build"}]}],
                "council":[{"name":"tests","turns":[{"text":"t"}]},{"name":"security","turns":[{"text":"s"}]}]}"#,
        )
        .unwrap();
        assert_eq!(s.council_unavailable(), None);
        s.begin_session(Some("council:security")).unwrap();
        assert_eq!(s.complete(&req()).await.unwrap().text.as_deref(), Some("s"));
        // A role without its own entry takes the next unplayed council session.
        s.begin_session(Some("council:api")).unwrap();
        assert_eq!(s.complete(&req()).await.unwrap().text.as_deref(), Some("t"));
        let e = s.begin_session(Some("council:correctness")).unwrap_err();
        assert!(e.to_string().contains("already played"), "{e}");
        // The build's sessions never play a council entry, nor the council a build session.
        s.begin_session(Some("wall")).unwrap();
        assert_eq!(
            s.complete(&req()).await.unwrap().text.as_deref(),
            Some("build")
        );
        let plain = Scripted::parse(Path::new("s.json"), SCRIPT).unwrap();
        assert!(
            plain
                .council_unavailable()
                .unwrap()
                .contains("no `council`")
        );
    }

    #[test]
    fn typos_and_bad_files_are_refused_with_the_place() {
        let e = Scripted::parse(
            Path::new("s.json"),
            r#"{"sessions":[{"name":"a","turns":[{"txt":"x"}]}]}"#,
        )
        .unwrap_err();
        assert!(e.to_string().contains("unknown field `txt`"), "{e}");
        let e = Scripted::parse(Path::new("s.json"), r#"{"sessions":[]}"#).unwrap_err();
        assert!(e.to_string().contains("no sessions"), "{e}");
    }

    #[test]
    fn the_shipped_schema_is_valid_json_and_names_every_field() {
        let schema: Value =
            serde_json::from_str(include_str!("../schema/scripted.schema.json")).unwrap();
        let turn = &schema["$defs"]["turn"]["properties"];
        for field in ["text", "tool_calls", "usage", "stop"] {
            assert!(turn.get(field).is_some(), "{field}");
        }
        assert_eq!(schema["$defs"]["turn"]["additionalProperties"], false);
    }
}
