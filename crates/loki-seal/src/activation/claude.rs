//! Claude Code: whether the project's hooks (`.claude/settings.json`) run, by the rules of Claude
//! Code 2.1.332 (read from the program and checked against it in the conformance suite).
//!
//! - Settings merge in this order, a later source overriding an earlier one key by key: the
//!   user's `$CLAUDE_CONFIG_DIR/settings.json` (default `~/.claude/settings.json`), the project's
//!   `.claude/settings.json`, the project's `.claude/settings.local.json`, then the managed
//!   settings (`/etc/claude-code/managed-settings.json`, then `managed-settings.d/*.json` in
//!   name order). So `"disableAllHooks": true` in the user's settings is undone by `false` in
//!   the project's, and the other way round.
//! - The effective `disableAllHooks: true` runs no hook from the project's settings.
//! - Managed `allowManagedHooksOnly: true` runs only managed hooks, and managed
//!   `strictPluginOnlyCustomization` (`true`, or a list naming `hooks`) only plugin hooks: the
//!   project's never run, whatever the other files say.
//! - `CLAUDE_CODE_SIMPLE` (bare mode, `--bare`) or `CLAUDE_CODE_SAFE_MODE` (`--safe-mode`) in the
//!   environment runs no hooks. Read from loki's own environment, the shell the agent is started
//!   from; `--settings FILE` and those flags given per invocation cannot be seen from here.
//!
//! An unreadable or malformed file among them is `Unknown` (Claude Code itself turns project
//! hooks off when it cannot read the managed settings), never a guess of `Yes`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Activation, Active, UserEnv};
use crate::Agent;

/// Where Claude Code reads managed settings on Linux (macOS: `/Library/Application
/// Support/ClaudeCode`).
#[cfg(not(target_os = "macos"))]
const MANAGED_DIR: &str = "/etc/claude-code";
#[cfg(target_os = "macos")]
const MANAGED_DIR: &str = "/Library/Application Support/ClaudeCode";

/// Environment switches that run Claude Code with no hooks at all.
const NO_HOOK_MODES: [(&str, &str); 2] = [
    ("CLAUDE_CODE_SIMPLE", "bare mode"),
    ("CLAUDE_CODE_SAFE_MODE", "safe mode"),
];

pub(super) fn activation(repo_root: &Path, user: &UserEnv) -> Activation {
    activation_in(repo_root, user, Path::new(MANAGED_DIR))
}

/// [`activation`] with the managed-settings directory given, so tests need no `/etc`.
fn activation_in(repo_root: &Path, user: &UserEnv, managed_dir: &Path) -> Activation {
    let settings = crate::install::settings_path(repo_root, Agent::Claude);
    let answer = |active: Active, detail: String, fix: Option<String>| Activation {
        agent: Agent::Claude,
        active,
        detail,
        fix,
    };
    for (var, mode) in NO_HOOK_MODES {
        if user.var(var).is_some_and(truthy) {
            return answer(
                Active::No,
                format!("{var} is set: Claude Code runs in {mode}, with no hooks"),
                Some(format!("unset {var}")),
            );
        }
    }
    let config_dir = user
        .var("CLAUDE_CONFIG_DIR")
        .filter(|d| !d.is_empty())
        .map_or_else(|| user.home.join(".claude"), PathBuf::from);
    let mut sources = vec![
        config_dir.join("settings.json"),
        settings.clone(),
        repo_root.join(".claude/settings.local.json"),
    ];
    let managed = managed_files(managed_dir);
    let managed = match managed {
        Ok(m) => m,
        Err(detail) => return answer(Active::Unknown, detail, None),
    };
    sources.extend(managed.iter().cloned());
    // The value each key ends with, and the file that set it.
    let mut disable_all: Option<(bool, PathBuf)> = None;
    for path in &sources {
        let v = match read(path) {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(detail) => return answer(Active::Unknown, detail, None),
        };
        if let Some(b) = v.get("disableAllHooks").and_then(Value::as_bool) {
            disable_all = Some((b, path.clone()));
        }
        if !managed.contains(path) {
            continue;
        }
        if let Some(detail) = managed_restriction(&v, path, &settings) {
            let admin = "your administrator manages this file".to_string();
            return answer(Active::No, detail, Some(admin));
        }
    }
    match disable_all {
        Some((true, path)) => {
            let fix = if managed.contains(&path) {
                "your administrator manages this file".to_string()
            } else {
                format!(
                    "remove \"disableAllHooks\" from {}, then start a new session",
                    path.display()
                )
            };
            answer(
                Active::No,
                format!(
                    "{} sets \"disableAllHooks\": Claude Code runs none of the hooks in {}",
                    path.display(),
                    settings.display()
                ),
                Some(fix),
            )
        }
        _ => answer(
            Active::Yes,
            format!("{} registers the hooks", settings.display()),
            None,
        ),
    }
}

/// What a managed settings file `v` (at `path`) says that keeps the hooks in `settings` from
/// running: only managed hooks, or only plugin hooks, run.
fn managed_restriction(v: &Value, path: &Path, settings: &Path) -> Option<String> {
    if v.get("allowManagedHooksOnly").and_then(Value::as_bool) == Some(true) {
        return Some(format!(
            "{} sets \"allowManagedHooksOnly\": only managed hooks run, not {}",
            path.display(),
            settings.display()
        ));
    }
    let plugin_only = match v.get("strictPluginOnlyCustomization") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Array(l)) => l.iter().any(|s| s == "hooks"),
        _ => false,
    };
    plugin_only.then(|| {
        format!(
            "{} sets \"strictPluginOnlyCustomization\": only plugin hooks run, not {}",
            path.display(),
            settings.display()
        )
    })
}

/// `managed-settings.json`, then the `managed-settings.d/*.json` drop-ins in name order.
fn managed_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files = vec![dir.join("managed-settings.json")];
    let drop_ins = dir.join("managed-settings.d");
    match std::fs::read_dir(&drop_ins) {
        Ok(entries) => {
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect();
            found.sort();
            files.extend(found);
        }
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) => {}
        Err(e) => return Err(format!("cannot list {}: {e}", drop_ins.display())),
    }
    Ok(files)
}

/// A settings file: `None` when absent, `Err` with the reason when unreadable or not JSON.
fn read(path: &Path) -> Result<Option<Value>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) if t.trim().is_empty() => Ok(None),
        Ok(t) => serde_json::from_str(&t)
            .map(Some)
            .map_err(|e| format!("{} is not valid JSON: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// How Claude Code reads a boolean environment switch.
fn truthy(v: &str) -> bool {
    matches!(
        v.trim().to_ascii_lowercase().as_str(),
        "1" | "true" | "yes" | "on"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixture {
        repo: tempfile::TempDir,
        home: tempfile::TempDir,
        managed: tempfile::TempDir,
    }

    impl Fixture {
        fn new() -> Fixture {
            let f = Fixture {
                repo: tempfile::tempdir().unwrap(),
                home: tempfile::tempdir().unwrap(),
                managed: tempfile::tempdir().unwrap(),
            };
            crate::install::install(
                f.repo.path(),
                Agent::Claude,
                "loki",
                crate::budget::Budget::sized(crate::budget::Basis::NoSuite).timeouts,
            )
            .unwrap();
            f
        }

        fn write(dir: &Path, rel: &str, text: &str) {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            loki_core::fs::write_atomic(&p, text.as_bytes()).unwrap();
        }

        /// Sets a key in the project's settings, keeping loki's hooks.
        fn project(&self, key: &str, value: Value) {
            let p = self.repo.path().join(".claude/settings.json");
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            v[key] = value;
            loki_core::fs::write_atomic(&p, v.to_string().as_bytes()).unwrap();
        }

        fn check(&self, vars: &[(&str, &str)]) -> Activation {
            let user = UserEnv {
                home: self.home.path().to_path_buf(),
                vars: vars
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                    .collect(),
            };
            assert!(
                super::super::unregistered(Agent::Claude, self.repo.path()).is_none(),
                "registered"
            );
            activation_in(self.repo.path(), &user, self.managed.path())
        }
    }

    #[test]
    fn registered_hooks_with_nothing_disabling_them_are_active() {
        let f = Fixture::new();
        let a = f.check(&[]);
        assert_eq!(a.active, Active::Yes, "{a:?}");
        assert!(
            a.detail
                .ends_with(".claude/settings.json registers the hooks")
        );
    }

    #[test]
    fn disable_all_hooks_in_any_settings_file_turns_them_off() {
        for (dir, rel) in [
            ("repo", ".claude/settings.local.json"),
            ("home", ".claude/settings.json"),
        ] {
            let f = Fixture::new();
            let base = if dir == "repo" {
                f.repo.path()
            } else {
                f.home.path()
            };
            Fixture::write(base, rel, r#"{"disableAllHooks": true}"#);
            let a = f.check(&[]);
            assert_eq!(a.active, Active::No, "{rel}: {a:?}");
            assert!(
                a.detail.contains(rel) && a.detail.contains("disableAllHooks"),
                "{a:?}"
            );
            assert!(
                a.fix
                    .unwrap()
                    .starts_with("remove \"disableAllHooks\" from")
            );
        }
        let f = Fixture::new();
        f.project("disableAllHooks", Value::Bool(true));
        assert_eq!(f.check(&[]).active, Active::No);
    }

    /// Claude Code merges the files: the project's `false` overrides the user's `true` (hooks
    /// ran, checked with the real 2.1.332), and the local file overrides the project's.
    #[test]
    fn a_later_settings_file_overrides_an_earlier_one() {
        let f = Fixture::new();
        Fixture::write(
            f.home.path(),
            ".claude/settings.json",
            r#"{"disableAllHooks": true}"#,
        );
        f.project("disableAllHooks", Value::Bool(false));
        assert_eq!(f.check(&[]).active, Active::Yes);
        Fixture::write(
            f.repo.path(),
            ".claude/settings.local.json",
            r#"{"disableAllHooks": true}"#,
        );
        assert_eq!(f.check(&[]).active, Active::No);
    }

    #[test]
    fn claude_config_dir_moves_the_user_settings() {
        let f = Fixture::new();
        Fixture::write(
            f.home.path(),
            ".claude/settings.json",
            r#"{"disableAllHooks": true}"#,
        );
        let elsewhere = tempfile::tempdir().unwrap();
        let dir = elsewhere.path().to_str().unwrap();
        assert_eq!(f.check(&[("CLAUDE_CONFIG_DIR", dir)]).active, Active::Yes);
        Fixture::write(
            elsewhere.path(),
            "settings.json",
            r#"{"disableAllHooks": true}"#,
        );
        assert_eq!(f.check(&[("CLAUDE_CONFIG_DIR", dir)]).active, Active::No);
    }

    #[test]
    fn managed_settings_can_restrict_hooks() {
        for (rel, text, key) in [
            (
                "managed-settings.json",
                r#"{"allowManagedHooksOnly": true}"#,
                "allowManagedHooksOnly",
            ),
            (
                "managed-settings.d/10-org.json",
                r#"{"disableAllHooks": true}"#,
                "disableAllHooks",
            ),
            (
                "managed-settings.json",
                r#"{"strictPluginOnlyCustomization": ["hooks"]}"#,
                "strictPluginOnlyCustomization",
            ),
            (
                "managed-settings.json",
                r#"{"strictPluginOnlyCustomization": true}"#,
                "strictPluginOnlyCustomization",
            ),
        ] {
            let f = Fixture::new();
            Fixture::write(f.managed.path(), rel, text);
            let a = f.check(&[]);
            assert_eq!(a.active, Active::No, "{rel} {text}: {a:?}");
            assert!(a.detail.contains(key), "{a:?}");
            assert_eq!(
                a.fix.as_deref(),
                Some("your administrator manages this file")
            );
        }
        // Restrictions of something else leave the project's hooks alone.
        let f = Fixture::new();
        Fixture::write(
            f.managed.path(),
            "managed-settings.json",
            r#"{"strictPluginOnlyCustomization": ["agents"], "allowManagedHooksOnly": false}"#,
        );
        assert_eq!(f.check(&[]).active, Active::Yes);
    }

    #[test]
    fn bare_and_safe_mode_run_no_hooks() {
        let f = Fixture::new();
        for var in ["CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"] {
            let a = f.check(&[(var, "1")]);
            assert_eq!(a.active, Active::No, "{a:?}");
            assert_eq!(a.fix, Some(format!("unset {var}")));
            assert_eq!(f.check(&[(var, "0")]).active, Active::Yes);
        }
    }

    #[test]
    fn an_unreadable_settings_file_is_unknown() {
        let f = Fixture::new();
        Fixture::write(f.repo.path(), ".claude/settings.local.json", "{not json");
        let a = f.check(&[]);
        assert_eq!(a.active, Active::Unknown, "{a:?}");
        assert!(
            a.detail.contains("settings.local.json is not valid JSON"),
            "{a:?}"
        );
        let f = Fixture::new();
        Fixture::write(f.managed.path(), "managed-settings.json", "[");
        assert_eq!(f.check(&[]).active, Active::Unknown);
    }
}
