//! Gemini CLI (0.61): whether it loads the project's `.gemini/settings.json` hooks.
//!
//! Gemini reads the project settings of the directory it is started in, and only in a trusted
//! folder; an untrusted folder's project settings (and so its hooks) are dropped whole. The
//! rules, as 0.61 applies them (`loadSettings`, `checkPathTrust`, `HookRegistry`):
//!
//! 1. The project settings are never read when the repository is Gemini's home directory
//!    (`GEMINI_CLI_HOME`, else `HOME`): that file is the user settings file.
//! 2. Environment first: `GEMINI_RESTRICTED_MODE=true` or `GEMINI_CLI_TRUST_WORKSPACE=false` is
//!    untrusted; `GEMINI_CLI_TRUST_WORKSPACE=true` is trusted. `--skip-trust` sets that variable
//!    only after the settings were loaded, so under `--skip-trust` the folder is trusted but its
//!    project hooks were already dropped (seen: 0 hooks run).
//! 3. `security.folderTrust.enabled` (default true), merged system-defaults < user < system
//!    settings (the project's own settings do not count): false trusts every folder.
//! 4. `trustedFolders.json` (`GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `~/.gemini/`): the longest
//!    rule whose folder contains the repository decides; `TRUST_PARENT` stands for the rule
//!    path's parent. `DO_NOT_TRUST` or no rule is untrusted (headless Gemini then refuses to
//!    start, exit 55; interactive Gemini asks).
//! 5. In a trusted folder, `hooksConfig.enabled` (default true; system-defaults < user < project
//!    < system) switches every hook off, and `hooksConfig.disabled` (a union over the files)
//!    lists hook commands that do not run.
//!
//! Project hooks need no separate approval in 0.61: the first run prints a warning naming them
//! and records them in `~/.gemini/trusted_hooks.json`, and runs them. System settings are
//! `/etc/gemini-cli/settings.json` (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`) and `system-defaults.json`
//! beside it (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`). Settings files may hold comments.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Activation, Active, UserEnv};
use crate::Agent;

pub(super) fn activation(repo_root: &Path, user: &UserEnv) -> Activation {
    match judge(repo_root, user) {
        Ok(a) => a,
        Err(detail) => Activation {
            agent: Agent::Gemini,
            active: Active::Unknown,
            detail,
            fix: None,
        },
    }
}

/// The settings files that decide, each possibly absent.
struct Files {
    system_defaults: (PathBuf, Value),
    user: (PathBuf, Value),
    system: (PathBuf, Value),
    project: (PathBuf, Value),
}

fn judge(repo_root: &Path, user: &UserEnv) -> Result<Activation, String> {
    let home = user
        .var("GEMINI_CLI_HOME")
        .filter(|h| !h.is_empty())
        .map_or_else(|| user.home.clone(), PathBuf::from);
    let project_path = crate::install::settings_path(repo_root, Agent::Gemini);
    let yes = |detail: String| Activation {
        agent: Agent::Gemini,
        active: Active::Yes,
        detail,
        fix: None,
    };
    let no = |detail: String, fix: String| Activation {
        agent: Agent::Gemini,
        active: Active::No,
        detail,
        fix: Some(fix),
    };
    if same_dir(repo_root, &home) {
        return Ok(no(
            format!(
                "{} is Gemini's home directory, where Gemini never reads project settings",
                repo_root.display()
            ),
            "install the seal in a project directory, not in your home directory".into(),
        ));
    }
    let system = user.var("GEMINI_CLI_SYSTEM_SETTINGS_PATH").map_or_else(
        || PathBuf::from("/etc/gemini-cli/settings.json"),
        PathBuf::from,
    );
    let system_defaults = user.var("GEMINI_CLI_SYSTEM_DEFAULTS_PATH").map_or_else(
        || system.with_file_name("system-defaults.json"),
        PathBuf::from,
    );
    let user_settings = home.join(".gemini/settings.json");
    let files = Files {
        system_defaults: (system_defaults.clone(), read_jsonc(&system_defaults)?),
        user: (user_settings.clone(), read_jsonc(&user_settings)?),
        system: (system.clone(), read_jsonc(&system)?),
        project: (project_path.clone(), read_jsonc(&project_path)?),
    };
    let trust_fix = trust_fix(repo_root, &home, user);
    let trusted_by = match trust(repo_root, &home, user, &files)? {
        Trust::Trusted(why) => why,
        Trust::Untrusted(why) => return Ok(no(why, trust_fix)),
    };
    // Hooks switched off: the highest layer that sets `hooksConfig.enabled` decides.
    let layers = [
        &files.system_defaults,
        &files.user,
        &files.project,
        &files.system,
    ];
    if let Some((path, _)) = layers
        .iter()
        .rev()
        .find(|(_, v)| v.pointer("/hooksConfig/enabled").is_some())
        .filter(|(_, v)| v.pointer("/hooksConfig/enabled") == Some(&Value::Bool(false)))
    {
        return Ok(no(
            format!("{} sets hooksConfig.enabled to false", path.display()),
            format!(
                "set \"hooksConfig\": {{\"enabled\": true}} in {} (or remove the setting)",
                path.display()
            ),
        ));
    }
    let ours = seal_commands(&files.project.1);
    for (path, v) in layers {
        let disabled: Vec<&str> = v
            .pointer("/hooksConfig/disabled")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|d| ours.iter().any(|c| c == d))
            .collect();
        if let Some(d) = disabled.first() {
            return Ok(no(
                format!("{} lists {d:?} in hooksConfig.disabled", path.display()),
                format!(
                    "remove {d:?} from hooksConfig.disabled in {}",
                    path.display()
                ),
            ));
        }
    }
    Ok(yes(format!(
        "{} registers the hooks and {trusted_by}; Gemini loads them when started in {}",
        project_path.display(),
        repo_root.display()
    )))
}

enum Trust {
    Trusted(String),
    Untrusted(String),
}

fn trust(repo_root: &Path, home: &Path, user: &UserEnv, files: &Files) -> Result<Trust, String> {
    if user.var("GEMINI_RESTRICTED_MODE") == Some("true") {
        return Ok(Trust::Untrusted(
            "GEMINI_RESTRICTED_MODE=true makes every folder untrusted, so Gemini ignores the project settings".into(),
        ));
    }
    match user.var("GEMINI_CLI_TRUST_WORKSPACE") {
        Some("false") => {
            return Ok(Trust::Untrusted(
                "GEMINI_CLI_TRUST_WORKSPACE=false makes the folder untrusted, so Gemini ignores the project settings".into(),
            ));
        }
        Some("true") => {
            return Ok(Trust::Trusted(
                "GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder".into(),
            ));
        }
        _ => {}
    }
    let layers = [&files.system_defaults, &files.user, &files.system];
    let folder_trust = layers.iter().rev().find_map(|(p, v)| {
        v.pointer("/security/folderTrust/enabled")
            .and_then(Value::as_bool)
            .map(|b| (p, b))
    });
    if let Some((path, false)) = folder_trust {
        return Ok(Trust::Trusted(format!(
            "{} turns folder trust off (security.folderTrust.enabled is false)",
            path.display()
        )));
    }
    let trusted_folders = trusted_folders_path(home, user);
    let rules = read_jsonc(&trusted_folders)?;
    let Some(rules) = rules.as_object() else {
        if rules.is_null() {
            return Ok(Trust::Untrusted(format!(
                "the folder is not trusted ({} does not exist), so Gemini ignores the project settings",
                trusted_folders.display()
            )));
        }
        return Err(format!(
            "{} is not a JSON object (Gemini refuses to start with it)",
            trusted_folders.display()
        ));
    };
    let location = real(repo_root);
    let mut best: Option<(usize, &str, &str)> = None;
    for (rule, level) in rules {
        let Some(level) = level.as_str() else {
            return Err(format!(
                "{}: the trust level of {rule:?} is not a string (Gemini refuses to start with it)",
                trusted_folders.display()
            ));
        };
        let effective = match level {
            "TRUST_FOLDER" | "DO_NOT_TRUST" => PathBuf::from(rule),
            "TRUST_PARENT" => Path::new(rule)
                .parent()
                .map_or_else(|| PathBuf::from(rule), Path::to_path_buf),
            other => {
                return Err(format!(
                    "{}: unknown trust level {other:?} for {rule:?} (Gemini refuses to start with it)",
                    trusted_folders.display()
                ));
            }
        };
        if location.starts_with(real(&effective)) && best.is_none_or(|(len, _, _)| rule.len() > len)
        {
            best = Some((rule.len(), rule.as_str(), level));
        }
    }
    Ok(match best {
        Some((_, rule, "DO_NOT_TRUST")) => Trust::Untrusted(format!(
            "{} marks {rule} DO_NOT_TRUST, so Gemini ignores the project settings",
            trusted_folders.display()
        )),
        Some((_, rule, level)) => Trust::Trusted(format!(
            "{} trusts it ({rule}: {level})",
            trusted_folders.display()
        )),
        None => Trust::Untrusted(format!(
            "the folder is not trusted (no rule in {} covers it), so Gemini ignores the project settings",
            trusted_folders.display()
        )),
    })
}

fn trusted_folders_path(home: &Path, user: &UserEnv) -> PathBuf {
    if let Some(p) = user
        .var("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .filter(|p| !p.is_empty())
    {
        return PathBuf::from(p);
    }
    // Gemini's runtime directory moves under ~/.cache inside macOS's sandbox-exec.
    if user.var("SANDBOX") == Some("sandbox-exec") {
        return home.join(".cache/.gemini/trustedFolders.json");
    }
    home.join(".gemini/trustedFolders.json")
}

/// The exact way to trust `repo_root`: a rule in `trustedFolders.json`, or for headless runs the
/// environment variable (never `--skip-trust`, which comes too late for the project hooks).
fn trust_fix(repo_root: &Path, home: &Path, user: &UserEnv) -> String {
    format!(
        "add \"{}\": \"TRUST_FOLDER\" to {} (or trust the folder when gemini asks); for headless `gemini -p` runs, GEMINI_CLI_TRUST_WORKSPACE=true in gemini's environment also works (`--skip-trust` does not: it loads no project hooks)",
        real(repo_root).display(),
        trusted_folders_path(home, user).display()
    )
}

/// The seal's hook commands registered in the project settings.
fn seal_commands(project: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for entries in project
        .get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|h| h.values())
    {
        for e in entries.as_array().into_iter().flatten() {
            for h in e
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(c) = h.get("command").and_then(Value::as_str)
                    && c.contains(" seal ")
                    && c.ends_with(" --agent gemini")
                {
                    out.push(c.to_string());
                }
            }
        }
    }
    out
}

fn real(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    !b.as_os_str().is_empty() && real(a) == real(b)
}

/// A settings file as Gemini reads it (JSON with comments); `Null` when absent.
fn read_jsonc(path: &Path) -> Result<Value, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Value::Null),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let stripped = strip_comments(&text);
    if stripped.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&stripped)
        .map_err(|e| format!("{} is not valid JSON: {e}", path.display()))
}

/// Removes `//` and `/* */` comments outside strings (what `strip-json-comments` does for Gemini).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct World {
        home: tempfile::TempDir,
        repo: tempfile::TempDir,
        etc: tempfile::TempDir,
        vars: Vec<(String, String)>,
    }

    impl World {
        fn new() -> World {
            let w = World {
                home: tempfile::tempdir().unwrap(),
                repo: tempfile::tempdir().unwrap(),
                etc: tempfile::tempdir().unwrap(),
                vars: Vec::new(),
            };
            crate::install::install(
                w.repo.path(),
                Agent::Gemini,
                "loki",
                crate::budget::Budget::sized(crate::budget::Basis::NoSuite).timeouts,
            )
            .unwrap();
            w
        }

        fn user(&self) -> UserEnv {
            let mut vars = vec![(
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH".to_string(),
                self.etc.path().join("settings.json").display().to_string(),
            )];
            vars.extend(self.vars.iter().cloned());
            UserEnv {
                home: self.home.path().to_path_buf(),
                vars,
            }
        }

        fn write(path: &Path, text: &str) {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            loki_core::fs::write_atomic(path, text.as_bytes()).unwrap();
        }

        fn user_settings(&self, text: &str) {
            World::write(&self.home.path().join(".gemini/settings.json"), text);
        }

        fn trusted_folders(&self, text: &str) {
            World::write(&self.home.path().join(".gemini/trustedFolders.json"), text);
        }

        fn repo(&self) -> PathBuf {
            self.repo.path().canonicalize().unwrap()
        }

        fn run(&self) -> Activation {
            super::super::activation(Agent::Gemini, self.repo.path(), &self.user())
        }
    }

    #[test]
    fn an_untrusted_folder_is_not_active_and_the_fix_names_the_rule_to_add() {
        let w = World::new();
        let a = w.run();
        assert_eq!(a.active, Active::No, "{a:?}");
        assert!(a.detail.contains("not trusted"), "{}", a.detail);
        let fix = a.fix.unwrap();
        assert!(
            fix.contains(&format!("\"{}\": \"TRUST_FOLDER\"", w.repo().display())),
            "{fix}"
        );
        assert!(fix.contains("trustedFolders.json"), "{fix}");
        assert!(fix.contains("GEMINI_CLI_TRUST_WORKSPACE=true"), "{fix}");
    }

    #[test]
    fn trusted_folders_rules_decide_by_the_longest_match() {
        let w = World::new();
        let repo = w.repo();
        // The parent trusted, the repository itself distrusted: the longer rule wins.
        w.trusted_folders(&format!(
            "{{\"{}\": \"TRUST_FOLDER\", \"{}\": \"DO_NOT_TRUST\"}}",
            repo.parent().unwrap().display(),
            repo.display()
        ));
        let a = w.run();
        assert_eq!(a.active, Active::No, "{a:?}");
        assert!(a.detail.contains("DO_NOT_TRUST"), "{}", a.detail);
        // TRUST_PARENT on a child of the repository trusts the repository (comments allowed).
        w.trusted_folders(&format!(
            "// trusted by gemini\n{{\"{}\": \"TRUST_PARENT\"}}",
            repo.join("sub").display()
        ));
        assert_eq!(w.run().active, Active::Yes);
        w.trusted_folders(&format!("{{\"{}\": \"TRUST_FOLDER\"}}", repo.display()));
        let a = w.run();
        assert_eq!(a.active, Active::Yes, "{a:?}");
        assert!(a.fix.is_none());
        // A rule for another folder does not count; a broken file is unknown, not a guess.
        w.trusted_folders("{\"/elsewhere\": \"TRUST_FOLDER\"}");
        assert_eq!(w.run().active, Active::No);
        w.trusted_folders("{\"/x\": \"TRUST_ME\"}");
        assert_eq!(w.run().active, Active::Unknown);
        w.trusted_folders("[1]");
        assert_eq!(w.run().active, Active::Unknown);
    }

    #[test]
    fn the_environment_and_folder_trust_setting_decide_before_the_rules() {
        let mut w = World::new();
        w.trusted_folders(&format!("{{\"{}\": \"TRUST_FOLDER\"}}", w.repo().display()));
        w.vars = vec![("GEMINI_CLI_TRUST_WORKSPACE".into(), "false".into())];
        assert_eq!(w.run().active, Active::No);
        w.vars = vec![("GEMINI_RESTRICTED_MODE".into(), "true".into())];
        assert_eq!(w.run().active, Active::No);
        w.trusted_folders("{}");
        w.vars = vec![("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into())];
        let a = w.run();
        assert_eq!(a.active, Active::Yes, "{a:?}");
        assert!(a.detail.contains("GEMINI_CLI_TRUST_WORKSPACE=true"));
        w.vars.clear();
        w.user_settings("{\"security\": {\"folderTrust\": {\"enabled\": false}}}");
        assert_eq!(w.run().active, Active::Yes);
        // The system settings override the user's.
        World::write(
            &w.etc.path().join("settings.json"),
            "{\"security\": {\"folderTrust\": {\"enabled\": true}}}",
        );
        assert_eq!(w.run().active, Active::No);
        // The project's own settings cannot turn trust off.
        std::fs::remove_file(w.home.path().join(".gemini/settings.json")).unwrap();
        std::fs::remove_file(w.etc.path().join("settings.json")).unwrap();
        let project = w.repo().join(".gemini/settings.json");
        let mut v: Value =
            serde_json::from_str(&std::fs::read_to_string(&project).unwrap()).unwrap();
        v["security"] = serde_json::json!({"folderTrust": {"enabled": false}});
        World::write(&project, &v.to_string());
        assert_eq!(w.run().active, Active::No);
        // GEMINI_CLI_HOME moves the user's files.
        let other = tempfile::tempdir().unwrap();
        World::write(
            &other.path().join(".gemini/trustedFolders.json"),
            &format!("{{\"{}\": \"TRUST_FOLDER\"}}", w.repo().display()),
        );
        w.vars = vec![("GEMINI_CLI_HOME".into(), other.path().display().to_string())];
        assert_eq!(w.run().active, Active::Yes);
    }

    #[test]
    fn hooks_switched_off_are_not_active_with_the_file_to_change() {
        let w = World::new();
        w.trusted_folders(&format!("{{\"{}\": \"TRUST_FOLDER\"}}", w.repo().display()));
        w.user_settings("{\"hooksConfig\": {\"enabled\": false}}");
        let a = w.run();
        assert_eq!(a.active, Active::No, "{a:?}");
        assert!(
            a.fix
                .unwrap()
                .contains("\"hooksConfig\": {\"enabled\": true}")
        );
        w.user_settings("{\"hooksConfig\": {\"disabled\": [\"loki seal stop --agent gemini\"]}}");
        let a = w.run();
        assert_eq!(a.active, Active::No, "{a:?}");
        assert!(
            a.fix
                .unwrap()
                .contains("remove \"loki seal stop --agent gemini\"")
        );
        w.user_settings("{\"hooksConfig\": {\"disabled\": [\"some-other-hook\"]}}");
        assert_eq!(w.run().active, Active::Yes);
    }

    #[test]
    fn the_home_directory_never_loads_project_settings() {
        let w = World::new();
        let a = super::super::activation(
            Agent::Gemini,
            w.repo.path(),
            &UserEnv {
                home: w.repo.path().to_path_buf(),
                vars: vec![("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into())],
            },
        );
        assert_eq!(a.active, Active::No, "{a:?}");
        assert!(a.detail.contains("home directory"));
    }

    #[test]
    fn comments_are_stripped_outside_strings_only() {
        assert_eq!(
            strip_comments("{\"a\": \"http://x\" // c\n, /* b */ \"b\": 1}"),
            "{\"a\": \"http://x\" \n,   \"b\": 1}"
        );
    }
}
