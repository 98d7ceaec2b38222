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
//! # Choosing a session
//! Each agent session calls [`Provider::begin_session`] with its label. A session whose `name`
//! equals the label is played; otherwise the next session not yet played, in file order. Every
//! call plays the next turn; asking for a turn past the end is
//! [`AgentError::ScriptExhausted`], and a session begun when all were played is
//! [`AgentError::Script`].

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;

use crate::error::AgentError;
use crate::message::{Request, Response, StopReason, ToolCall, Usage};
use crate::provider::{BoxFuture, Provider};

/// The model name of a session that does not name one.
pub const SCRIPTED_MODEL: &str = "scripted";

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    sessions: Vec<Session>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Session {
    name: String,
    #[serde(default)]
    model: Option<String>,
    turns: Vec<Turn>,
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
        let script: ScriptFile = serde_json::from_str(text).map_err(|e| {
            err(format!(
                "not a valid script (line {}, column {}): {e}",
                e.line(),
                e.column()
            ))
        })?;
        if script.sessions.is_empty() {
            return Err(err("it has no sessions".into()));
        }
        for (i, s) in script.sessions.iter().enumerate() {
            if script.sessions[..i].iter().any(|o| o.name == s.name) {
                return Err(err(format!("session name {:?} is used twice", s.name)));
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

    fn start(&self, cursor: &mut Cursor, label: Option<&str>) -> Result<usize, AgentError> {
        let by_name = label.and_then(|l| self.script.sessions.iter().position(|s| s.name == l));
        let next = by_name.or_else(|| cursor.played.iter().position(|p| !p));
        let Some(i) = next else {
            return Err(AgentError::Script {
                path: self.path.clone(),
                message: format!(
                    "all {} sessions were already played; add a session{}",
                    self.script.sessions.len(),
                    label.map(|l| format!(" named {l:?}")).unwrap_or_default()
                ),
            });
        };
        cursor.played[i] = true;
        cursor.session = Some(i);
        cursor.turn = 0;
        Ok(i)
    }

    fn next(&self) -> Result<Response, AgentError> {
        let mut cursor = self.cursor.lock().unwrap_or_else(PoisonError::into_inner);
        let si = match cursor.session {
            Some(i) => i,
            None => self.start(&mut cursor, None)?,
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

    fn begin_session(&self, label: Option<&str>) -> Result<(), AgentError> {
        let mut cursor = self.cursor.lock().unwrap_or_else(PoisonError::into_inner);
        self.start(&mut cursor, label).map(|_| ())
    }

    fn complete<'a>(&'a self, _req: &'a Request) -> BoxFuture<'a, Result<Response, AgentError>> {
        let r = self.next();
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
