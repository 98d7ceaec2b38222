//! `loki seal install --agent X`: registers the seal's hooks in the repository's agent settings,
//! merging into what is there and never clobbering it.
//!
//! | agent | file | events |
//! |---|---|---|
//! | claude | `.claude/settings.json` | `SessionStart`, `Stop` (timeout 600 s) |
//! | codex | `.codex/hooks.json` | `SessionStart`, `Stop` |
//! | cursor | `.cursor/hooks.json` (`version: 1`) | `sessionStart`, `stop` (`loop_limit` 5) |
//! | gemini | `.gemini/settings.json` | `SessionStart`, `AfterAgent` (both 600 000 ms: Gemini's unit is ms, its default 60 s) |
//!
//! Merging is idempotent: a hook whose command is already registered for the event is not added
//! twice. The program is shell-quoted (`'/opt/my tools/loki' seal stop --agent claude`), since the
//! agents run the command through a shell. Installing again with another program replaces the
//! seal's own earlier hooks (any command ending in `seal start|stop --agent <agent>`) instead of
//! adding a second pair; every other hook, in the same entry or not, is kept. A settings file that
//! is not a JSON object is refused and left unchanged.

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
    let quoted = loki_process::shell_quote(program);
    let start = format!("{quoted} seal start --agent {}", agent.as_str());
    let stop = format!("{quoted} seal stop --agent {}", agent.as_str());
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
        // Gemini's hook timeout is in milliseconds and defaults to 60 s for every event: the
        // baseline suite runs inside SessionStart, so it gets the stop's budget too.
        Agent::Gemini => [
            (
                "SessionStart",
                json!({"hooks": [{"type": "command", "command": start, "timeout": STOP_TIMEOUT_S * 1000}]}),
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
        let wanted = commands_of(&entry);
        let mut present = false;
        list.retain_mut(|e| {
            let keep = keep_unless_stale(e, agent, &wanted, &mut present);
            changed |= keep != Keep::Unchanged;
            keep != Keep::Drop
        });
        if !present {
            list.push(entry);
            changed = true;
        }
    }
    Ok((Value::Object(root), changed))
}

/// What [`keep_unless_stale`] did to an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    Unchanged,
    /// Some of its hooks (the seal's stale ones) were removed; others remain.
    Trimmed,
    Drop,
}

/// The event that runs the seal's stop hook for `agent`.
fn stop_event(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude | Agent::Codex => "Stop",
        Agent::Gemini => "AfterAgent",
        Agent::Cursor => "stop",
    }
}

/// Whether `settings` register the seal's stop hook for `agent` (whatever program runs it).
pub(crate) fn registered(settings: &Value, agent: Agent) -> bool {
    let Some(entries) = settings
        .get("hooks")
        .and_then(|h| h.get(stop_event(agent)))
        .and_then(Value::as_array)
    else {
        return false;
    };
    let is_stop = |h: &Value| {
        h.get("command")
            .and_then(Value::as_str)
            .is_some_and(|c| c.ends_with(&format!(" seal stop --agent {}", agent.as_str())))
    };
    entries.iter().any(|e| {
        is_stop(e)
            || e.get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(is_stop))
    })
}

/// Whether `command` is a seal hook of `agent`, whatever program runs it.
pub(crate) fn is_seal_command(command: &str, agent: Agent) -> bool {
    ["start", "stop"]
        .iter()
        .any(|verb| command.ends_with(&format!(" seal {verb} --agent {}", agent.as_str())))
}

/// Removes from `entry` the seal's hooks of `agent` whose command is not one of `wanted` (an
/// earlier install with another program), setting `present` when a wanted one is there.
fn keep_unless_stale(
    entry: &mut Value,
    agent: Agent,
    wanted: &[String],
    present: &mut bool,
) -> Keep {
    let mut stale = |c: &str| {
        if wanted.iter().any(|w| w == c) {
            *present = true;
            false
        } else {
            is_seal_command(c, agent)
        }
    };
    if let Some(hooks) = entry.get_mut("hooks").and_then(Value::as_array_mut) {
        let before = hooks.len();
        hooks.retain(|h| {
            !h.get("command")
                .and_then(Value::as_str)
                .is_some_and(&mut stale)
        });
        return match (hooks.len(), hooks.len() == before) {
            (_, true) => Keep::Unchanged,
            (0, false) => Keep::Drop,
            (_, false) => Keep::Trimmed,
        };
    }
    match entry.get("command").and_then(Value::as_str) {
        Some(c) if stale(c) => Keep::Drop,
        _ => Keep::Unchanged,
    }
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
    fn the_program_is_quoted_and_a_new_one_replaces_the_old_hooks() {
        let (first, _) = merge_hooks(Value::Null, Agent::Claude, "/opt/my tools/loki").unwrap();
        assert_eq!(
            first["hooks"]["Stop"][0]["hooks"][0]["command"],
            "'/opt/my tools/loki' seal stop --agent claude"
        );
        // A user hook shares the Stop entry with the seal's.
        let mut shared = first.clone();
        shared["hooks"]["Stop"][0]["hooks"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "command", "command": "my-linter"}));
        let (second, changed) = merge_hooks(shared, Agent::Claude, "loki").unwrap();
        assert!(changed);
        let all: Vec<String> = ["SessionStart", "Stop"]
            .iter()
            .flat_map(|e| {
                second["hooks"][e]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(commands_of)
            })
            .collect();
        assert_eq!(
            all,
            [
                "loki seal start --agent claude",
                "my-linter",
                "loki seal stop --agent claude"
            ]
        );
        // Again with the same program: nothing to do.
        let (third, changed) = merge_hooks(second.clone(), Agent::Claude, "loki").unwrap();
        assert!(!changed);
        assert_eq!(third, second);
        // Cursor's flat entries, and another agent's hooks left alone.
        let (c1, _) = merge_hooks(Value::Null, Agent::Cursor, "old/loki").unwrap();
        let (c2, _) = merge_hooks(c1, Agent::Cursor, "loki").unwrap();
        assert_eq!(c2["hooks"]["stop"].as_array().unwrap().len(), 1);
        assert_eq!(
            c2["hooks"]["stop"][0]["command"],
            "loki seal stop --agent cursor"
        );
        assert!(!is_seal_command(
            "loki seal stop --agent codex",
            Agent::Claude
        ));
    }

    #[test]
    fn gemini_hooks_get_the_stop_budget_in_milliseconds() {
        let (v, _) = merge_hooks(Value::Null, Agent::Gemini, "loki").unwrap();
        for event in ["SessionStart", "AfterAgent"] {
            assert_eq!(
                v["hooks"][event][0]["hooks"][0]["timeout"], 600_000,
                "{event}"
            );
        }
    }

    #[test]
    fn non_object_settings_are_refused() {
        assert!(merge_hooks(json!([1]), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": []}), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": {"Stop": {}}}), Agent::Claude, "loki").is_err());
    }
}
