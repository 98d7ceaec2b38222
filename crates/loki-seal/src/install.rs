//! `loki seal install --agent X`: registers the seal's hooks in the repository's agent settings,
//! merging into what is there and never clobbering it.
//!
//! | agent | file | events |
//! |---|---|---|
//! | claude | `.claude/settings.json` | `SessionStart`, `Stop` (timeout 600 s) |
//! | codex | `.codex/hooks.json` | `SessionStart`, `Stop` |
//! | cursor | `.cursor/hooks.json` (`version: 1`) | `sessionStart`, `stop` (`loop_limit` 5) |
//! | gemini | `.gemini/settings.json` | `SessionStart`, `AfterAgent` (timeout in ms) |
//!
//! Merging is idempotent: a hook whose command is already registered for the event is not added
//! twice. A settings file that is not a JSON object is refused and left unchanged.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::{Agent, SealError};

/// Seconds a Stop hook may take: the suite runs inside it.
const STOP_TIMEOUT_S: u64 = 600;
/// Consecutive Cursor follow-ups before Cursor itself stops looping.
const CURSOR_LOOP_LIMIT: u64 = 5;

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    pub path: PathBuf,
    /// False when every hook was already registered.
    pub changed: bool,
}

/// The settings file of `agent` under `repo_root`.
#[must_use]
pub fn settings_path(repo_root: &Path, agent: Agent) -> PathBuf {
    match agent {
        Agent::Claude => repo_root.join(".claude/settings.json"),
        Agent::Codex => repo_root.join(".codex/hooks.json"),
        Agent::Cursor => repo_root.join(".cursor/hooks.json"),
        Agent::Gemini => repo_root.join(".gemini/settings.json"),
    }
}

/// Adds the seal's hooks for `agent` to `settings`, running `program` (e.g. `loki`).
/// Returns the new settings and whether anything was added.
pub fn merge_hooks(settings: Value, agent: Agent, program: &str) -> Result<(Value, bool), String> {
    let mut root = match settings {
        Value::Object(m) => m,
        Value::Null => serde_json::Map::new(),
        other => {
            return Err(format!(
                "expected a JSON object, found {}",
                loki_core::json::kind_of(&other)
            ));
        }
    };
    let start = format!("{program} seal start --agent {}", agent.as_str());
    let stop = format!("{program} seal stop --agent {}", agent.as_str());
    let entries: [(&str, Value, &str); 2] = match agent {
        Agent::Claude | Agent::Codex => [
            (
                "SessionStart",
                json!({"hooks": [{"type": "command", "command": start}]}),
                "command",
            ),
            (
                "Stop",
                json!({"hooks": [{"type": "command", "command": stop, "timeout": STOP_TIMEOUT_S}]}),
                "command",
            ),
        ],
        Agent::Gemini => [
            (
                "SessionStart",
                json!({"hooks": [{"type": "command", "command": start}]}),
                "command",
            ),
            (
                "AfterAgent",
                json!({"hooks": [{"type": "command", "command": stop, "timeout": STOP_TIMEOUT_S * 1000}]}),
                "command",
            ),
        ],
        Agent::Cursor => [
            ("sessionStart", json!({"command": start}), "command"),
            (
                "stop",
                json!({"command": stop, "loop_limit": CURSOR_LOOP_LIMIT}),
                "command",
            ),
        ],
    };
    if agent == Agent::Cursor {
        root.entry("version").or_insert(json!(1));
    }
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err(format!(
            "\"hooks\" is {}, expected an object",
            loki_core::json::kind_of(hooks)
        ));
    };
    let mut changed = false;
    for (event, entry, _) in entries {
        let list = hooks.entry(event).or_insert_with(|| json!([]));
        let Value::Array(list) = list else {
            return Err(format!(
                "\"hooks.{event}\" is {}, expected an array",
                loki_core::json::kind_of(list)
            ));
        };
        let command = commands_of(&entry);
        if !list
            .iter()
            .any(|e| commands_of(e).iter().any(|c| command.contains(c)))
        {
            list.push(entry);
            changed = true;
        }
    }
    Ok((Value::Object(root), changed))
}

/// The commands an entry registers (Claude-style nested `hooks` or Cursor-style flat).
fn commands_of(entry: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(c) = entry.get("command").and_then(Value::as_str) {
        out.push(c.to_string());
    }
    if let Some(list) = entry.get("hooks").and_then(Value::as_array) {
        out.extend(
            list.iter()
                .filter_map(|h| h.get("command").and_then(Value::as_str))
                .map(str::to_string),
        );
    }
    out
}

/// Reads `agent`'s settings file under `repo_root`, merges the seal's hooks in, and writes it
/// back atomically (only when something changed).
pub fn install(repo_root: &Path, agent: Agent, program: &str) -> Result<InstallReport, SealError> {
    let path = settings_path(repo_root, agent);
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Value::Null,
        Ok(text) => serde_json::from_str(&text).map_err(|e| SealError::BadSettings {
            path: path.clone(),
            reason: e.to_string(),
        })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Null,
        Err(e) => {
            return Err(SealError::Io {
                action: "read",
                path,
                source: e,
            });
        }
    };
    let (merged, changed) =
        merge_hooks(existing, agent, program).map_err(|reason| SealError::BadSettings {
            path: path.clone(),
            reason,
        })?;
    if changed {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| SealError::Io {
                action: "create",
                path: dir.to_path_buf(),
                source: e,
            })?;
        }
        let mut text =
            serde_json::to_string_pretty(&merged).map_err(|e| SealError::BadSettings {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        text.push('\n');
        loki_core::fs::write_atomic(&path, text.as_bytes())?;
    }
    Ok(InstallReport { path, changed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_keeps_existing_settings_and_is_idempotent() {
        let existing = json!({
            "model": "opus",
            "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-linter"}]}],
                      "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]}
        });
        let (merged, changed) = merge_hooks(existing, Agent::Claude, "loki").unwrap();
        assert!(changed);
        assert_eq!(merged["model"], "opus");
        assert_eq!(
            merged["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "fmt"
        );
        let stop = merged["hooks"]["Stop"].as_array().unwrap();
        assert_eq!(stop.len(), 2);
        assert_eq!(stop[0]["hooks"][0]["command"], "my-linter");
        assert_eq!(
            stop[1]["hooks"][0]["command"],
            "loki seal stop --agent claude"
        );
        let (again, changed) = merge_hooks(merged.clone(), Agent::Claude, "loki").unwrap();
        assert!(!changed);
        assert_eq!(again, merged);
    }

    #[test]
    fn each_agent_gets_its_own_shape() {
        let shapes: Vec<String> = Agent::ALL
            .iter()
            .map(|a| {
                format!(
                    "{}: {}",
                    a.as_str(),
                    merge_hooks(Value::Null, *a, "loki").unwrap().0
                )
            })
            .collect();
        insta::assert_snapshot!(shapes.join("\n"));
    }

    #[test]
    fn non_object_settings_are_refused() {
        assert!(merge_hooks(json!([1]), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": []}), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": {"Stop": {}}}), Agent::Claude, "loki").is_err());
    }
}
