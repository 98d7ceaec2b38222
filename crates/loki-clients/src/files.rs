//! The user's files and configuration a client needs: [`ClientFile`]s copied into the agent's
//! private `HOME`, the clients' project configuration files ([`PROJECT_CONFIGS`]), the
//! configuration files read for endpoints ([`config_files`]) and the variables a boxed Codex's
//! own configuration names ([`codex_passthrough`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::kind::CliKind;

/// A file or directory of the user's that a client needs (its login, its configuration): read
/// from the real home (or the XDG directory the user set) and copied to the same place under
/// the agent's private `HOME`, where the box's `XDG_*` variables point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFile {
    /// The XDG variable whose directory holds it, when one does (`XDG_CONFIG_HOME`).
    pub xdg: Option<&'static str>,
    /// That directory's default under `HOME` (`.config`); empty for a file directly under it.
    pub base: &'static str,
    /// The path under that directory.
    pub path: &'static str,
}

impl ClientFile {
    /// A path directly under `HOME`.
    #[must_use]
    pub const fn home(path: &'static str) -> ClientFile {
        ClientFile {
            xdg: None,
            base: "",
            path,
        }
    }

    /// A path under an XDG base directory (`var`, by default `HOME/<base>`).
    #[must_use]
    pub const fn xdg(var: &'static str, base: &'static str, path: &'static str) -> ClientFile {
        ClientFile {
            xdg: Some(var),
            base,
            path,
        }
    }

    /// Where it is for a user whose environment is `env` (`None`: no `HOME`).
    #[must_use]
    pub fn source(&self, env: &[(OsString, OsString)]) -> Option<std::path::PathBuf> {
        let get = |name: &str| {
            env.iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| std::path::PathBuf::from(v))
        };
        let dir = match self.xdg.and_then(get) {
            Some(d) => d,
            None => get("HOME")?.join(self.base),
        };
        Some(dir.join(self.path))
    }

    /// Where it goes under the private home `home`.
    #[must_use]
    pub fn target(&self, home: &Path) -> std::path::PathBuf {
        home.join(self.base).join(self.path)
    }
}

/// Claude Code's login (OAuth tokens).
const CLAUDE_FILES: &[ClientFile] = &[ClientFile::home(".claude/.credentials.json")];
/// Codex's configuration and login, in `CODEX_HOME` (default `~/.codex`); not its history or
/// sessions.
const CODEX_FILES: &[ClientFile] = &[
    ClientFile::xdg("CODEX_HOME", ".codex", "config.toml"),
    ClientFile::xdg("CODEX_HOME", ".codex", "auth.json"),
];
/// aider's configuration, model settings, and OpenRouter's OAuth key, which aider's own login
/// writes. Not `~/.env`, which aider also reads: it is every program's, with their secrets.
const AIDER_FILES: &[ClientFile] = &[
    ClientFile::home(".aider.conf.yml"),
    ClientFile::home(".aider.model.settings.yml"),
    ClientFile::home(".aider.model.metadata.json"),
    ClientFile::home(".aider/oauth-keys.env"),
];
/// opencode's configuration directory and its logins (`opencode auth login`).
const OPENCODE_FILES: &[ClientFile] = &[
    ClientFile::xdg("XDG_CONFIG_HOME", ".config", "opencode"),
    ClientFile::xdg("XDG_DATA_HOME", ".local/share", "opencode/auth.json"),
];
impl CliKind {
    /// The user's files the client needs to be logged in and configured, copied into the
    /// agent's private `HOME` (see [`ClientFile`]). Verified against the real programs: a
    /// logged-in Claude Code needs only `~/.claude/.credentials.json` (its OAuth tokens; on
    /// Linux there is no keychain), not `~/.claude.json` (per-project history) or
    /// `~/.claude/settings.json` (the user's hooks, which would run inside the box).
    #[must_use]
    pub fn client_files(self) -> &'static [ClientFile] {
        match self {
            CliKind::Claude => CLAUDE_FILES,
            CliKind::Codex => CODEX_FILES,
            CliKind::Aider => AIDER_FILES,
            CliKind::Opencode => OPENCODE_FILES,
        }
    }
}

/// The value of `name` in `env`.
fn env_value(env: &[(OsString, OsString)], name: &str) -> Option<OsString> {
    env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// The user's Codex home: `CODEX_HOME`, else `$HOME/.codex`.
pub(crate) fn codex_home_of(env: &[(OsString, OsString)]) -> Option<PathBuf> {
    env_value(env, "CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| env_value(env, "HOME").map(|h| PathBuf::from(h).join(".codex")))
}

/// The clients' project configuration files, relative to the working directory: the endpoints
/// they name are the client's too.
pub const PROJECT_CONFIGS: &[&str] = &[
    "opencode.json",
    "opencode.jsonc",
    ".aider.conf.yml",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/config.toml",
];

/// Configuration files under `dir` (three levels down at most, hidden directories included:
/// `~/.codex/config.toml`, `~/.config/opencode/opencode.json`, `.aider.conf.yml`), by extension,
/// at most 256 KiB each and 200 in all; symbolic links are not followed.
pub(crate) fn config_files(dir: &Path) -> Vec<std::path::PathBuf> {
    const EXTENSIONS: [&str; 6] = ["toml", "json", "jsonc", "yml", "yaml", "env"];
    const MAX_BYTES: u64 = 256 * 1024;
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            let path = e.path();
            if meta.is_dir() && depth < 3 {
                // Histories, caches and sessions are not configuration.
                let name = e.file_name();
                let skip = [
                    "node_modules",
                    "projects",
                    "sessions",
                    "cache",
                    "log",
                    "logs",
                    ".git",
                ]
                .iter()
                .any(|n| name == *n);
                if !skip {
                    stack.push((path, depth + 1));
                }
            } else if meta.is_file()
                && meta.len() <= MAX_BYTES
                && path
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| EXTENSIONS.contains(&x))
            {
                out.push(path);
                if out.len() >= 200 {
                    return out;
                }
            }
        }
    }
    out
}

/// What a boxed Codex needs from the user's environment `user_env` besides its files (the engine
/// adds it to the box's scrubbed one): every variable a `[model_providers.*] env_key` of the
/// user's `config.toml` names that `user_env` sets (the built-in
/// OpenAI provider's `OPENAI_API_KEY` passes as any `OPENAI_` variable does). Nothing else of the
/// user's: loki's own key and tokens stay out.
#[must_use]
pub fn codex_passthrough(user_env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let Some(home) = codex_home_of(user_env) else {
        return Vec::new();
    };
    let mut out: Vec<(OsString, OsString)> = Vec::new();
    let config = std::fs::read_to_string(home.join("config.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .unwrap_or_default();
    let keys = config
        .get("model_providers")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| p.get("env_key").and_then(toml::Value::as_str));
    for key in keys {
        // loki's signing key and home are never the agent's, whatever a config names.
        if key.starts_with("LOKI_RECEIPT_") || key == "LOKI_HOME" {
            continue;
        }
        if let Some(v) = env_value(user_env, key)
            && !out.iter().any(|(k, _)| k == key)
        {
            out.push((key.into(), v));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::codex_model;

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn a_boxed_codex_gets_the_users_config_its_key_and_reports_its_model() {
        let dir = tempfile::tempdir().unwrap();
        let user_codex = dir.path().join("user/.codex");
        std::fs::create_dir_all(&user_codex).unwrap();
        std::fs::write(
            user_codex.join("config.toml"),
            "[model_providers.p]\nenv_key = \"MY_PROVIDER_KEY\"\n[model_providers.q]\nenv_key = \"LOKI_RECEIPT_SIGNING_KEY\"\n",
        )
        .unwrap();
        std::fs::write(user_codex.join("auth.json"), "{}").unwrap();
        std::fs::write(user_codex.join("history.jsonl"), "private").unwrap();
        let os = |a: &str, b: &str| (OsString::from(a), OsString::from(b));
        let user = [
            os("HOME", &dir.path().join("user").display().to_string()),
            os("MY_PROVIDER_KEY", "k1"),
            os("LOKI_RECEIPT_SIGNING_KEY", "signing"),
            os("UNRELATED", "x"),
        ];
        assert_eq!(codex_passthrough(&user), [os("MY_PROVIDER_KEY", "k1")]);
        // Its config and login only, from CODEX_HOME when set, else ~/.codex; into the private
        // home's .codex, which CODEX_HOME then names.
        let sources: Vec<PathBuf> = CliKind::Codex
            .client_files()
            .iter()
            .filter_map(|f| f.source(&user))
            .collect();
        assert_eq!(
            sources,
            [user_codex.join("config.toml"), user_codex.join("auth.json")]
        );
        let elsewhere = [os("HOME", "/h"), os("CODEX_HOME", "/elsewhere")];
        assert_eq!(
            CliKind::Codex.client_files()[0].source(&elsewhere),
            Some(PathBuf::from("/elsewhere/config.toml"))
        );
        let private = dir.path().join("box/home");
        let moved = private.join(".codex");
        assert_eq!(
            CliKind::Codex.client_files()[1].target(&private),
            moved.join("auth.json")
        );
        assert_eq!(CliKind::Codex.fixed_env(), [("CODEX_HOME", "$HOME/.codex")]);

        let sessions = moved.join("sessions/2026/12/02");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join("rollout-2026-12-02T00-00-00-t-1.jsonl"),
            "{\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"turn_context\",\"payload\":{\"model\":\"gpt-x\"}}\n",
        )
        .unwrap();
        let stdout = "{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}\n";
        assert_eq!(codex_model(stdout, &moved).as_deref(), Some("gpt-x"));
        assert_eq!(
            codex_model(
                "{\"type\":\"thread.started\",\"thread_id\":\"t-2\"}",
                &moved
            ),
            None
        );
    }

    #[test]
    fn client_files_come_from_the_users_home_or_xdg_dirs() {
        let env = |v: &[(&str, &str)]| -> Vec<(OsString, OsString)> {
            v.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
        };
        let f = ClientFile::xdg("XDG_CONFIG_HOME", ".config", "opencode");
        assert_eq!(
            f.source(&env(&[("HOME", "/h")])),
            Some("/h/.config/opencode".into())
        );
        assert_eq!(
            f.source(&env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")])),
            Some("/x/opencode".into())
        );
        assert_eq!(
            f.target(Path::new("/p/home")),
            Path::new("/p/home/.config/opencode")
        );
        let c = ClientFile::home(".claude/.credentials.json");
        assert_eq!(c.source(&env(&[])), None);
        assert_eq!(
            c.target(Path::new("/p")),
            Path::new("/p/.claude/.credentials.json")
        );
    }
}
