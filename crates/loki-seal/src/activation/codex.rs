//! Codex (0.171): the project's `.codex/hooks.json` runs only when all of these hold, read from
//! `$CODEX_HOME/config.toml` (`CODEX_HOME`, default `~/.codex`):
//!
//! 1. the hooks feature is on (`[features] hooks`, default on; `codex_hooks` is its old name);
//! 2. the project is trusted: `[projects."<repo root>"] trust_level = "trusted"` (an untrusted
//!    project's `.codex/` layer is not loaded at all: Codex warns "Untrusted project-local
//!    configuration is disabled");
//! 3. each hook is trusted: `[hooks.state."<abs path of hooks.json>:<event>:<group>:<handler>"]
//!    trusted_hash = "sha256:…"` equal to the hook's current hash, and not `enabled = false`. The
//!    hash is Codex's `version_for_toml` of the hook's normalized identity: sha256 over the
//!    canonical JSON (keys sorted, no spaces, absent optionals dropped) of `{"event_name":
//!    "<snake_case event>", "matcher"?, "hooks": [{"type": "command", "command", "timeout": <s,
//!    default 600>, "async": <default false>, "statusMessage"?}]}`. A changed command (a reinstall
//!    with another program) changes the hash, and Codex stops running it until trusted again.
//!
//! Codex's TUI (`/hooks`) writes those `hooks.state` entries when the user reviews the hooks;
//! `codex exec --dangerously-bypass-hook-trust` skips step 3 for one run. The answer names the
//! exact lines to add when one is missing. Only loki's own hooks are checked.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::{Activation, Active, UserEnv};
use crate::Agent;

/// Codex's default hook timeout, part of the trusted identity.
const DEFAULT_TIMEOUT_S: u64 = 600;

pub(super) fn activation(repo_root: &Path, user: &UserEnv) -> Activation {
    let codex_home = user
        .var("CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map_or_else(|| user.home.join(".codex"), PathBuf::from);
    let config_path = codex_home.join("config.toml");
    let answer = |active, detail: String, fix: Option<String>| Activation {
        agent: Agent::Codex,
        active,
        detail,
        fix,
    };
    let config: toml::Table = match std::fs::read_to_string(&config_path) {
        Ok(text) => match text.parse() {
            Ok(t) => t,
            Err(e) => {
                return answer(
                    Active::Unknown,
                    format!("{} is not valid TOML: {e}", config_path.display()),
                    None,
                );
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => toml::Table::new(),
        Err(e) => {
            return answer(
                Active::Unknown,
                format!("cannot read {}: {e}", config_path.display()),
                None,
            );
        }
    };
    let hooks_path = crate::install::settings_path(repo_root, Agent::Codex);
    let hooks: Value = match std::fs::read_to_string(&hooks_path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            return answer(
                Active::Unknown,
                format!("cannot read {}: {e}", hooks_path.display()),
                None,
            );
        }
    };
    judge(&config, &config_path, repo_root, &hooks_path, &hooks)
}

/// The decision from the parsed files (pure).
fn judge(
    config: &toml::Table,
    config_path: &Path,
    repo_root: &Path,
    hooks_path: &Path,
    hooks: &Value,
) -> Activation {
    let cfg = config_path.display();
    let answer = |active, detail: String, fix: Option<String>| Activation {
        agent: Agent::Codex,
        active,
        detail,
        fix,
    };
    let features = config.get("features").and_then(toml::Value::as_table);
    for flag in ["hooks", "codex_hooks"] {
        if features
            .and_then(|f| f.get(flag))
            .and_then(toml::Value::as_bool)
            == Some(false)
        {
            return answer(
                Active::No,
                format!("{cfg} turns Codex hooks off ([features] {flag} = false)"),
                Some(format!("set in {cfg}: [features] {flag} = true")),
            );
        }
    }

    // What is not trusted yet: why, and the configuration that would trust it.
    let mut gaps: Vec<(String, String)> = Vec::new();
    gaps.extend(untrusted_project(config, repo_root, &cfg.to_string()));
    match untrusted_hooks(config, hooks_path, hooks, &cfg.to_string()) {
        Ok(hook_gaps) => gaps.extend(hook_gaps),
        Err((detail, fix)) => return answer(Active::No, detail, Some(fix)),
    }
    let (reasons, missing): (Vec<String>, Vec<String>) = gaps.into_iter().unzip();
    if missing.is_empty() {
        answer(
            Active::Yes,
            format!(
                "{} registers the hooks; {cfg} trusts the project and each hook",
                hooks_path.display()
            ),
            None,
        )
    } else {
        answer(
            Active::No,
            format!("Codex will not run the hooks: {}", reasons.join("; ")),
            Some(format!(
                "add to {cfg} (or review the hooks in Codex's /hooks):\n{}",
                missing.join("\n\n")
            )),
        )
    }
}

/// Why the project at `repo_root` is not trusted in the config (`cfg` its path), with the
/// table that trusts it; `None` when it is.
fn untrusted_project(
    config: &toml::Table,
    repo_root: &Path,
    cfg: &str,
) -> Option<(String, String)> {
    let root = repo_root.display().to_string();
    let trust = config
        .get("projects")
        .and_then(toml::Value::as_table)
        .and_then(|p| {
            p.get(&root).or_else(|| {
                std::fs::canonicalize(repo_root)
                    .ok()
                    .and_then(|c| p.get(&c.display().to_string()))
            })
        })
        .and_then(|p| p.get("trust_level"))
        .and_then(toml::Value::as_str);
    match trust {
        Some("trusted") => None,
        other => Some((
            match other {
                Some(level) => format!("the project is {level:?} in {cfg}"),
                None => format!("the project is not trusted in {cfg}"),
            },
            format!("[projects.{}]\ntrust_level = \"trusted\"", quote(&root)),
        )),
    }
}

/// Each seal hook the config does not trust (or trusted before it changed): why, with the
/// table that trusts it. `Err` is a hook the config disables: what it says and the fix.
fn untrusted_hooks(
    config: &toml::Table,
    hooks_path: &Path,
    hooks: &Value,
    cfg: &str,
) -> Result<Vec<(String, String)>, (String, String)> {
    let states = config
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(toml::Value::as_table);
    let mut gaps = Vec::new();
    for hook in seal_hooks(hooks_path, hooks) {
        let state = states.and_then(|s| s.get(&hook.key));
        if state
            .and_then(|s| s.get("enabled"))
            .and_then(toml::Value::as_bool)
            == Some(false)
        {
            return Err((
                format!("{cfg} disables the hook {}", hook.key),
                format!(
                    "remove `enabled = false` from [hooks.state.{}] in {cfg}",
                    quote(&hook.key)
                ),
            ));
        }
        match state
            .and_then(|s| s.get("trusted_hash"))
            .and_then(toml::Value::as_str)
        {
            Some(h) if h == hook.hash => {}
            seen => gaps.push((
                if seen.is_some() {
                    format!("the hook {} changed since it was trusted", hook.key)
                } else {
                    format!("the hook {} is not trusted", hook.key)
                },
                format!(
                    "[hooks.state.{}]\ntrusted_hash = {}",
                    quote(&hook.key),
                    quote(&hook.hash)
                ),
            )),
        }
    }
    Ok(gaps)
}

/// A TOML basic string.
fn quote(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// One of loki's hooks as Codex identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hook {
    key: String,
    hash: String,
}

/// loki's handlers in `hooks.json`, with Codex's trust key and current hash.
fn seal_hooks(hooks_path: &Path, hooks: &Value) -> Vec<Hook> {
    let mut out = Vec::new();
    for (event, label) in [
        ("SessionStart", "session_start"),
        ("Stop", "stop"),
        ("SubagentStop", "subagent_stop"),
    ] {
        let groups = hooks["hooks"][event].as_array().into_iter().flatten();
        for (g, group) in groups.enumerate() {
            let handlers = group["hooks"].as_array().into_iter().flatten();
            for (h, handler) in handlers.enumerate() {
                let Some(command) = handler["command"].as_str() else {
                    continue;
                };
                if handler["type"] != "command"
                    || !crate::install::is_seal_command(command, Agent::Codex)
                {
                    continue;
                }
                out.push(Hook {
                    key: format!("{}:{label}:{g}:{h}", hooks_path.display()),
                    hash: hook_hash(label, group, handler),
                });
            }
        }
    }
    out
}

/// Codex's trust hash of one command handler (see the module doc).
fn hook_hash(label: &str, group: &Value, handler: &Value) -> String {
    let mut normalized = json!({
        "type": "command",
        "command": handler["command"],
        "timeout": handler["timeout"].as_u64().unwrap_or(DEFAULT_TIMEOUT_S).max(1),
        "async": handler["async"].as_bool().unwrap_or(false),
    });
    if let Some(m) = handler["statusMessage"].as_str() {
        normalized["statusMessage"] = json!(m);
    }
    let mut identity = json!({"event_name": label, "hooks": [normalized]});
    if let Some(m) = group["matcher"].as_str() {
        identity["matcher"] = json!(m);
    }
    let digest = Sha256::digest(canonical(&identity).as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Compact JSON with every object's keys sorted (whatever order the map keeps).
fn canonical(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), canonical(&m[k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(canonical).collect::<Vec<_>>().join(",")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks_json(stop_cmd: &str) -> Value {
        json!({"hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": "/tmp/cx/hook.sh start"},
                                        {"type": "command", "command": "loki seal start --agent codex"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": stop_cmd, "timeout": 600}]}],
            "SubagentStop": [{"hooks": [{"type": "command", "command": stop_cmd, "timeout": 600}]}]
        }})
    }

    #[test]
    fn the_hash_is_codexs() {
        // Captured from Codex 0.171.0's app-server `hooks/list` (`currentHash`).
        let group = json!({"hooks": [{"type": "command", "command": "/tmp/cx/hook.sh stop"}]});
        assert_eq!(
            hook_hash("stop", &group, &group["hooks"][0]),
            "sha256:7341c6b4b20acac90abd3d845899df1ac9fcd33f1e0d44a7af5d7f5e3a536e0c"
        );
        let group = json!({"hooks": [{"type": "command", "command": "/tmp/cx/hook.sh start"}]});
        assert_eq!(
            hook_hash("session_start", &group, &group["hooks"][0]),
            "sha256:f69acbeb34fa4060f4ddc35ade12579053859627bcd8a7e0ee13f83c5ff397f6"
        );
        // The same handler on SubagentStop (key `<hooks.json>:subagent_stop:0:0`).
        let group = json!({"hooks": [{"type": "command", "command": "/tmp/cx/hook.sh stop"}]});
        assert_eq!(
            hook_hash("subagent_stop", &group, &group["hooks"][0]),
            "sha256:aa5ba42b460270c0a1896f201a60f70ae5e6fe2acc2ecd2df2fc7f2f5ef3e4dd"
        );
    }

    #[test]
    fn untrusted_then_trusted_with_the_exact_lines() {
        let root = Path::new("/repo");
        let hooks_path = root.join(".codex/hooks.json");
        let cfg = Path::new("/home/u/.codex/config.toml");
        let hooks = hooks_json("loki seal stop --agent codex");
        let keys: Vec<String> = seal_hooks(&hooks_path, &hooks)
            .into_iter()
            .map(|h| h.key)
            .collect();
        // The user's own hook is not loki's business; loki's start hook is the group's second.
        assert_eq!(
            keys,
            [
                "/repo/.codex/hooks.json:session_start:0:1",
                "/repo/.codex/hooks.json:stop:0:0",
                "/repo/.codex/hooks.json:subagent_stop:0:0"
            ]
        );
        let a = judge(&toml::Table::new(), cfg, root, &hooks_path, &hooks);
        assert_eq!(a.active, Active::No);
        let fix = a.fix.unwrap();
        assert!(
            fix.contains("[projects.\"/repo\"]\ntrust_level = \"trusted\""),
            "{fix}"
        );
        assert!(
            fix.contains(
                "[hooks.state.\"/repo/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:"
            ),
            "{fix}"
        );
        // Applying the fix's lines makes it active.
        let lines = fix.split_once('\n').unwrap().1;
        let fixed: toml::Table = lines.parse().unwrap();
        let a = judge(&fixed, cfg, root, &hooks_path, &hooks);
        assert_eq!(a.active, Active::Yes, "{a:?}");
        // Another program (a reinstall) changes the hash: no longer trusted.
        let moved = hooks_json("/opt/loki seal stop --agent codex");
        let a = judge(&fixed, cfg, root, &hooks_path, &moved);
        assert_eq!(a.active, Active::No);
        assert!(
            a.detail.contains("changed since it was trusted"),
            "{}",
            a.detail
        );
    }

    #[test]
    fn hooks_off_or_an_untrusted_project_is_no() {
        let root = Path::new("/repo");
        let hooks_path = root.join(".codex/hooks.json");
        let cfg = Path::new("/c/config.toml");
        let hooks = hooks_json("loki seal stop --agent codex");
        let off: toml::Table = "[features]\nhooks = false\n".parse().unwrap();
        let a = judge(&off, cfg, root, &hooks_path, &hooks);
        assert_eq!(a.active, Active::No);
        assert_eq!(
            a.fix.as_deref(),
            Some("set in /c/config.toml: [features] hooks = true")
        );
        let untrusted: toml::Table = "[projects.\"/repo\"]\ntrust_level = \"untrusted\"\n"
            .parse()
            .unwrap();
        let a = judge(&untrusted, cfg, root, &hooks_path, &hooks);
        assert_eq!(a.active, Active::No);
        assert!(a.detail.contains("\"untrusted\""), "{}", a.detail);
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn codex_home_is_read_and_bad_toml_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".codex")).unwrap();
        std::fs::write(
            repo.join(".codex/hooks.json"),
            hooks_json("loki seal stop --agent codex").to_string(),
        )
        .unwrap();
        let home = dir.path().join("codex-home");
        std::fs::create_dir_all(&home).unwrap();
        let user = UserEnv {
            home: dir.path().join("nohome"),
            vars: vec![("CODEX_HOME".into(), home.display().to_string())],
        };
        assert_eq!(activation(&repo, &user).active, Active::No);
        std::fs::write(home.join("config.toml"), "[projects\n").unwrap();
        let a = activation(&repo, &user);
        assert_eq!(a.active, Active::Unknown);
        assert!(a.detail.contains("not valid TOML"), "{}", a.detail);
    }
}
