//! `loki seal install --agent X`: registers the seal's hooks in the repository's agent settings,
//! editing only the seal's own entries and leaving every other byte of the file as it was.
//!
//! | agent | file | events | timeout field |
//! |---|---|---|---|
//! | claude | `.claude/settings.json` | `SessionStart`, `Stop`, `SubagentStop` | `timeout`, seconds |
//! | codex | `.codex/hooks.json` | `SessionStart`, `Stop`, `SubagentStop` | `timeout`, seconds |
//! | cursor | `.cursor/hooks.json` (`version: 1`) | `sessionStart`, `stop` (`loop_limit` 5) | `timeout`, seconds |
//! | gemini | `.gemini/settings.json` | `SessionStart`, `AfterAgent` | `timeout`, milliseconds (its default is 60 s) |
//!
//! Every hook gets a timeout ([`Timeouts`], sized from the measured suite by [`crate::budget`]):
//! the start runs the suite for the baseline, the stop runs it several times.
//!
//! A subagent's stop (Claude Code 2.1.332 and Codex 0.171.0 fire `SubagentStop` when a subagent
//! ends, with the parent's `session_id` and the subagent's `agent_id` and `agent_type`) runs the
//! same `seal stop`: what a subagent changed is judged against the worktree's baseline like any
//! stop, before the parent goes on with it.
//!
//! The hooks run `program`, shell-quoted (`'/opt/my tools/loki' seal stop --agent claude`), since
//! the agents run the command through a shell; the CLI passes the absolute path of the running
//! `loki`, so the agent's `PATH` does not decide which program judges it.
//!
//! # Editing the file
//! The file is edited as text ([`crate::jsontext`]): a missing seal hook is appended to its
//! event's list (the list, the `hooks` object, and Cursor's `version` are added when missing);
//! a seal hook of an earlier install (any command ending in `seal start|stop --agent <agent>`)
//! whose command or timeout differs is replaced where it stands; a second one is removed with its
//! separator (its entry too when nothing else is left in it). Keys are not re-sorted, nothing is
//! re-indented or re-escaped: outside the seal's entries the file stays byte for byte the same.
//! Installing again with the same program and timeouts changes nothing. A file that is not a JSON
//! object, or whose `hooks` (or an event's list) has another type, is refused and left unchanged.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::jsontext::{self, Edit, JsonTextError, Node, Style};
use crate::{Agent, SealError};

/// Consecutive Cursor follow-ups before Cursor itself stops looping.
const CURSOR_LOOP_LIMIT: u64 = 5;

/// How long each hook may run, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// The start hook: the baseline suite runs inside it.
    pub start_s: u64,
    /// The stop hook: the judge runs the suite several times.
    pub stop_s: u64,
}

/// What [`install`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallReport {
    pub path: PathBuf,
    /// False when every hook was already registered as asked.
    pub changed: bool,
    /// The command prefix the hooks run (the quoted program).
    pub program: String,
    pub timeouts: Timeouts,
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

/// One hook the seal registers.
struct Wanted {
    event: &'static str,
    /// The hook object itself (`{type, command, timeout}`, or Cursor's `{command, …}`).
    hook: Value,
    /// Whether the agent nests hooks in `{"hooks": [...]}` entries (all but Cursor).
    nested: bool,
}

impl Wanted {
    /// The entry appended to the event's list.
    fn entry(&self) -> Value {
        if self.nested {
            json!({"hooks": [self.hook.clone()]})
        } else {
            self.hook.clone()
        }
    }
}

fn wanted(agent: Agent, program: &str, t: Timeouts) -> Vec<Wanted> {
    let quoted = loki_process::shell_quote(program);
    let start = format!("{quoted} seal start --agent {}", agent.as_str());
    let stop = format!("{quoted} seal stop --agent {}", agent.as_str());
    let nested = |event, command: String, timeout| Wanted {
        event,
        hook: json!({"type": "command", "command": command, "timeout": timeout}),
        nested: true,
    };
    match agent {
        Agent::Claude | Agent::Codex => vec![
            nested("SessionStart", start, t.start_s),
            nested("Stop", stop.clone(), t.stop_s),
            nested("SubagentStop", stop, t.stop_s),
        ],
        // Gemini's hook timeout is in milliseconds.
        Agent::Gemini => vec![
            nested("SessionStart", start, t.start_s * 1000),
            nested("AfterAgent", stop, t.stop_s * 1000),
        ],
        Agent::Cursor => vec![
            Wanted {
                event: "sessionStart",
                hook: json!({"command": start, "timeout": t.start_s}),
                nested: false,
            },
            Wanted {
                event: "stop",
                hook: json!({"command": stop, "loop_limit": CURSOR_LOOP_LIMIT, "timeout": t.stop_s}),
                nested: false,
            },
        ],
    }
}

/// The settings of a file that does not exist yet (or is empty): only the seal's hooks.
fn fresh(agent: Agent, wanted: &[Wanted]) -> Value {
    let mut hooks = serde_json::Map::new();
    for w in wanted {
        hooks.insert(w.event.to_string(), json!([w.entry()]));
    }
    if agent == Agent::Cursor {
        json!({"version": 1, "hooks": hooks})
    } else {
        json!({"hooks": hooks})
    }
}

/// Why a settings file cannot take the seal's hooks: what of it is not as expected, and what
/// was found instead.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("expected a JSON object, found {found}")]
    NotObject { found: &'static str },
    #[error("\"hooks\" is {found}, expected an object")]
    HooksNotObject { found: &'static str },
    #[error("\"hooks.{event}\" is {found}, expected an array")]
    EventNotArray {
        event: &'static str,
        found: &'static str,
    },
    #[error(transparent)]
    Text(#[from] JsonTextError),
    /// A shape this module made itself is not as it made it (a bug in loki).
    #[error("internal: {what}")]
    Internal { what: &'static str },
}

/// `text` (a settings file; empty when there is none) with the seal's hooks for `agent` running
/// `program` with `timeouts`; `None` when they are all there already. See the module doc.
pub fn merge_text(
    text: &str,
    agent: Agent,
    program: &str,
    timeouts: Timeouts,
) -> Result<Option<String>, SettingsError> {
    let wanted = wanted(agent, program, timeouts);
    let parsed: Value = if text.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(text).map_err(SettingsError::Json)?
    };
    match &parsed {
        Value::Null => {
            let mut out = serde_json::to_string_pretty(&fresh(agent, &wanted))
                .map_err(SettingsError::Json)?;
            out.push('\n');
            return Ok(Some(out));
        }
        Value::Object(_) => {}
        other => {
            return Err(SettingsError::NotObject {
                found: loki_core::json::kind_of(other),
            });
        }
    }
    let root = jsontext::parse(text)?;
    let style = Style::of(text);
    let mut edits = Vec::new();
    let mut root_adds: Vec<(&str, Value)> = Vec::new();
    if agent == Agent::Cursor && root.member("version").is_none() {
        root_adds.push(("version", json!(1)));
    }
    match root.member("hooks").map(|m| &m.value) {
        None => {
            let Value::Object(mut fresh) = fresh(agent, &wanted) else {
                return Err(SettingsError::Internal {
                    what: "the seal's hooks are not an object",
                });
            };
            root_adds.push(("hooks", fresh.remove("hooks").unwrap_or(Value::Null)));
        }
        Some(hooks @ Node::Object { .. }) => {
            let mut hook_adds: Vec<(&str, Value)> = Vec::new();
            for w in &wanted {
                match hooks.member(w.event).map(|m| &m.value) {
                    None => hook_adds.push((w.event, json!([w.entry()]))),
                    Some(list @ Node::Array { .. }) => {
                        edits.extend(event_edits(text, list, agent, w, &style)?);
                    }
                    Some(other) => {
                        return Err(SettingsError::EventNotArray {
                            event: w.event,
                            found: loki_core::json::kind_of(&other.value(text)?),
                        });
                    }
                }
            }
            if !hook_adds.is_empty() {
                edits.push(jsontext::append_members(text, hooks, &hook_adds, &style)?);
            }
        }
        Some(other) => {
            return Err(SettingsError::HooksNotObject {
                found: loki_core::json::kind_of(&other.value(text)?),
            });
        }
    }
    if !root_adds.is_empty() {
        edits.push(jsontext::append_members(text, &root, &root_adds, &style)?);
    }
    if edits.is_empty() {
        return Ok(None);
    }
    Ok(Some(jsontext::apply(text, edits)?))
}

/// A seal hook found in an event's list: item `item`, and its position in that item's own
/// `hooks` list when it is nested there.
struct Found {
    item: usize,
    inner: Option<usize>,
    /// Exactly the hook wanted (same command, same timeout, nothing else).
    same: bool,
}

/// The seal hooks of `agent` in `list`, in order.
fn seal_hooks(
    text: &str,
    list: &Node,
    agent: Agent,
    w: &Wanted,
) -> Result<Vec<Found>, JsonTextError> {
    let Node::Array { items, .. } = list else {
        return Ok(Vec::new());
    };
    let is_seal = |n: &Node| -> Result<Option<bool>, JsonTextError> {
        let v = n.value(text)?;
        Ok(v.get("command")
            .and_then(Value::as_str)
            .filter(|c| is_seal_command(c, agent))
            .map(|_| v == w.hook))
    };
    let mut found = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.member("hooks").map(|m| &m.value) {
            Some(Node::Array { items: inner, .. }) => {
                for (j, h) in inner.iter().enumerate() {
                    if let Some(same) = is_seal(h)? {
                        found.push(Found {
                            item: i,
                            inner: Some(j),
                            same: same && w.nested,
                        });
                    }
                }
            }
            _ => {
                if let Some(same) = is_seal(item)? {
                    found.push(Found {
                        item: i,
                        inner: None,
                        same: same && !w.nested,
                    });
                }
            }
        }
    }
    Ok(found)
}

/// The edits that make `list` (an event's hooks) hold exactly one seal hook, the wanted one.
fn event_edits(
    text: &str,
    list: &Node,
    agent: Agent,
    w: &Wanted,
    style: &Style,
) -> Result<Vec<Edit>, SettingsError> {
    let Node::Array { items, .. } = list else {
        return Ok(Vec::new());
    };
    let found = seal_hooks(text, list, agent, w)?;
    let Some(keep) = found
        .iter()
        .position(|f| f.same)
        .or((!found.is_empty()).then_some(0))
    else {
        return Ok(vec![jsontext::append_item(text, list, &w.entry(), style)?]);
    };
    let mut edits = Vec::new();
    let kept = &found[keep];
    if !kept.same {
        // An earlier install's hook (another program or timeout): replaced where it stands.
        let (node, value) = match kept.inner {
            Some(j) => (inner_item(&items[kept.item], j)?, w.hook.clone()),
            None => (&items[kept.item], w.entry()),
        };
        let indent = jsontext::indent_at(text, node.span().start);
        edits.push(Edit {
            range: node.span(),
            text: style.render(&value, indent)?,
        });
    }
    // Every other seal hook goes: alone in its entry, the entry goes with it.
    let mut whole = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let mine: Vec<usize> = found
            .iter()
            .enumerate()
            .filter(|(k, f)| *k != keep && f.item == i)
            .filter_map(|(_, f)| f.inner)
            .collect();
        let flat = found
            .iter()
            .enumerate()
            .any(|(k, f)| k != keep && f.item == i && f.inner.is_none());
        let inner_len = match item.member("hooks").map(|m| &m.value) {
            Some(Node::Array { items: inner, .. }) => inner.len(),
            _ => 0,
        };
        if flat || (!mine.is_empty() && mine.len() == inner_len && kept.item != i) {
            whole.push(i);
        } else if !mine.is_empty() {
            let inner = &item
                .member("hooks")
                .ok_or(SettingsError::Internal {
                    what: "no hooks list",
                })?
                .value;
            edits.extend(jsontext::remove_items(inner, &mine)?);
        }
    }
    if !whole.is_empty() {
        edits.extend(jsontext::remove_items(list, &whole)?);
    }
    Ok(edits)
}

/// Item `j` of `entry`'s own `hooks` list.
fn inner_item(entry: &Node, j: usize) -> Result<&Node, SettingsError> {
    match entry.member("hooks").map(|m| &m.value) {
        Some(Node::Array { items, .. }) => items.get(j).ok_or(SettingsError::Internal {
            what: "no such hook",
        }),
        _ => Err(SettingsError::Internal {
            what: "no hooks list",
        }),
    }
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

/// Reads `agent`'s settings file under `repo_root`, adds the seal's hooks (running `program`,
/// with `timeouts`) and writes it back atomically, only when something changed.
pub fn install(
    repo_root: &Path,
    agent: Agent,
    program: &str,
    timeouts: Timeouts,
) -> Result<InstallReport, SealError> {
    let path = settings_path(repo_root, agent);
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(SealError::Io {
                action: "read",
                path,
                source: e,
            });
        }
    };
    let merged = merge_text(&existing, agent, program, timeouts).map_err(|reason| {
        SealError::BadSettings {
            path: path.clone(),
            reason,
        }
    })?;
    let changed = merged.is_some();
    if let Some(text) = merged {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| SealError::Io {
                action: "create",
                path: dir.to_path_buf(),
                source: e,
            })?;
        }
        loki_core::fs::write_atomic(&path, text.as_bytes())?;
    }
    Ok(InstallReport {
        path,
        changed,
        program: loki_process::shell_quote(program),
        timeouts,
    })
}

/// The program a hook runs: `given` (`--command`), else this very binary by its absolute,
/// canonical path (the agent runs the hook with its own `PATH`).
pub fn hook_program(given: Option<String>) -> Result<String, SealError> {
    if let Some(c) = given {
        return Ok(c);
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .map_err(SealError::NoExe)?;
    match exe.to_str() {
        Some(s) => Ok(s.to_string()),
        None => Err(SealError::ExeNotUtf8 { path: exe }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timeouts = Timeouts {
        start_s: 120,
        stop_s: 600,
    };

    /// The Value-level view of [`merge_text`] over a pretty-printed `settings`.
    fn merge_hooks(
        settings: Value,
        agent: Agent,
        program: &str,
    ) -> Result<(Value, bool), SettingsError> {
        let text = if settings.is_null() {
            String::new()
        } else {
            serde_json::to_string_pretty(&settings).unwrap()
        };
        Ok(match merge_text(&text, agent, program, T)? {
            Some(t) => (serde_json::from_str(&t).unwrap(), true),
            None => (settings, false),
        })
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
        assert_eq!(stop[1]["hooks"][0]["timeout"], 600);
        assert_eq!(
            merged["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
            120
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
    fn the_program_is_quoted_and_a_new_one_replaces_the_old_hooks_in_place() {
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
                "loki seal stop --agent claude",
                "my-linter",
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
    fn a_second_seal_hook_goes_and_an_entry_left_empty_goes_with_it() {
        let text = r#"{"hooks": {"Stop": [
  {"hooks": [{"type": "command", "command": "old/loki seal stop --agent claude"}]},
  {"hooks": [{"type": "command", "command": "mine"}, {"type": "command", "command": "x/loki seal stop --agent claude"}]},
  {"hooks": [{"type": "command", "command": "y/loki seal stop --agent claude"}]}
], "SessionStart": []}}
"#;
        let out = merge_text(text, Agent::Claude, "loki", T).unwrap().unwrap();
        let v: Value = serde_json::from_str(&out).unwrap();
        let stop: Vec<Vec<String>> = v["hooks"]["Stop"]
            .as_array()
            .unwrap()
            .iter()
            .map(commands_of)
            .collect();
        assert_eq!(
            stop,
            [vec!["loki seal stop --agent claude"], vec!["mine"]],
            "{out}"
        );
        assert_eq!(merge_text(&out, Agent::Claude, "loki", T).unwrap(), None);
    }

    #[test]
    fn a_new_timeout_replaces_the_old_one() {
        let first = merge_text("", Agent::Codex, "loki", T).unwrap().unwrap();
        let longer = Timeouts {
            start_s: 300,
            stop_s: 1800,
        };
        let second = merge_text(&first, Agent::Codex, "loki", longer)
            .unwrap()
            .unwrap();
        assert_eq!(
            second,
            first
                .replace("\"timeout\": 120", "\"timeout\": 300")
                .replace("\"timeout\": 600", "\"timeout\": 1800")
        );
    }

    /// The user's layout, key order, escapes and other hooks stay byte for byte: only the seal's
    /// items are new, each with the separator before it.
    #[test]
    fn nothing_outside_the_seals_entries_changes() {
        let text = "{\n\t\"zeta\" :  \"caf\\u00e9\",\n\t\"hooks\" : {\n\t\t\"Stop\" : [\n\t\t\t{ \"hooks\" : [ { \"type\":\"command\",\"command\":\"my-linter\" } ] }\n\t\t],\n\t\t\"PostToolUse\" : []\n\t},\n\t\"alpha\" : 1.50\n}";
        let out = merge_text(text, Agent::Claude, "/usr/local/bin/loki", T)
            .unwrap()
            .unwrap();
        let expected = "{\n\t\"zeta\" :  \"caf\\u00e9\",\n\t\"hooks\" : {\n\t\t\"Stop\" : [\n\t\t\t{ \"hooks\" : [ { \"type\":\"command\",\"command\":\"my-linter\" } ] },\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"/usr/local/bin/loki seal stop --agent claude\",\n\t\t\t\t\t\t\"timeout\": 600,\n\t\t\t\t\t\t\"type\": \"command\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n\t\t\"PostToolUse\" : [],\n\t\t\"SessionStart\" : [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"/usr/local/bin/loki seal start --agent claude\",\n\t\t\t\t\t\t\"timeout\": 120,\n\t\t\t\t\t\t\"type\": \"command\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t],\n\t\t\"SubagentStop\" : [\n\t\t\t{\n\t\t\t\t\"hooks\": [\n\t\t\t\t\t{\n\t\t\t\t\t\t\"command\": \"/usr/local/bin/loki seal stop --agent claude\",\n\t\t\t\t\t\t\"timeout\": 600,\n\t\t\t\t\t\t\"type\": \"command\"\n\t\t\t\t\t}\n\t\t\t\t]\n\t\t\t}\n\t\t]\n\t},\n\t\"alpha\" : 1.50\n}";
        assert_eq!(out, expected);
        assert_eq!(
            merge_text(&out, Agent::Claude, "/usr/local/bin/loki", T).unwrap(),
            None
        );
    }

    #[test]
    fn gemini_hooks_get_their_timeouts_in_milliseconds() {
        let (v, _) = merge_hooks(Value::Null, Agent::Gemini, "loki").unwrap();
        assert_eq!(
            v["hooks"]["SessionStart"][0]["hooks"][0]["timeout"],
            120_000
        );
        assert_eq!(v["hooks"]["AfterAgent"][0]["hooks"][0]["timeout"], 600_000);
    }

    #[test]
    fn non_object_settings_are_refused() {
        assert!(merge_hooks(json!([1]), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": []}), Agent::Claude, "loki").is_err());
        assert!(merge_hooks(json!({"hooks": {"Stop": {}}}), Agent::Claude, "loki").is_err());
        assert!(merge_text("{\"a\":", Agent::Claude, "loki", T).is_err());
    }
}
