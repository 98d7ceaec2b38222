//! `transcript.jsonl`: one JSON object per line, appended as the session goes.
//!
//! Record types (field `type`):
//! - `session_start`: `ts`, `session` (label), `provider`, `model`, `system` (the system prompt,
//!   with the repository's agent instructions and their revision), `task`, `price_table`.
//! - `exchange`: `ts`, `session`, `turn` (1-based), `provider`, `model`, `request` (a summary:
//!   message count, tool names, estimated tokens, the last message clipped), `response` (the full
//!   [`Response`]: text, tool calls, usage, stop, model), `usage`, `cost_usd` (`null` = not
//!   measured), `price_table`, `duration_ms`.
//! - `tool`: `ts`, `session`, `turn`, `call_id`, `name`, `is_error`, `bytes` (full result size),
//!   `content` (clipped).
//! - `error`: `ts`, `session`, `turn`, `error` (the provider error that ended the session).
//! - `session_end`: `ts`, `session`, `end`, `finish`, `turns`, `usage`, `cost_usd`.
//!
//! Lines are only ever appended ([`loki_core::fs::append_line`], one `write(2)` each), so a
//! crash leaves every earlier line intact. `replay:<run-id>` reads the `exchange` records back.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::AgentError;

/// File name of the transcript inside a run directory.
pub const TRANSCRIPT_FILE: &str = "transcript.jsonl";

/// Appends one record (a JSON object) as a line.
pub fn append(path: &Path, record: &Value) -> Result<(), AgentError> {
    let mut line = record.to_string();
    line.push('\n');
    loki_core::fs::append_line(path, line.as_bytes()).map_err(|source| AgentError::Transcript {
        path: path.to_path_buf(),
        source,
    })
}

/// A transcript that may be switched off (`None`: nothing is written).
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    path: Option<PathBuf>,
}

impl Transcript {
    #[must_use]
    pub fn new(path: Option<PathBuf>) -> Self {
        Transcript { path }
    }

    #[must_use]
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Appends `record` with a `ts` field added.
    pub fn record(&self, mut record: Value) -> Result<(), AgentError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Value::Object(m) = &mut record {
            m.insert("ts".into(), Value::String(loki_core::time::now_rfc3339()));
        }
        append(path, &record)
    }
}
