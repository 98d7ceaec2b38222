//! Whether loki's hooks will actually run: registered hooks the agent never loads protect no one.
//!
//! Each agent has its own rules for loading project hooks (see the per-agent modules): Claude Code
//! and Cursor load `.claude/settings.json` / `.cursor/hooks.json` as they are; Codex loads
//! `.codex/hooks.json` only for a trusted project; Gemini CLI loads project settings only in a
//! trusted folder. [`activation`] reads the repository's settings and the user's agent config
//! (never writing either) and answers [`Active::Yes`], [`Active::No`] with the exact command or
//! setting that turns the hooks on, or [`Active::Unknown`] when the state cannot be read.
//! `loki seal install`, `loki seal status` and `loki doctor` print it.
//!
//! Failure modes: an unreadable or malformed config file is `Unknown` with the file and the
//! parse error, never a guess of `Yes`.

mod claude;
mod codex;
mod cursor;
mod gemini;

use std::path::{Path, PathBuf};

use crate::Agent;

/// Whether the agent will run loki's hooks in this repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Active {
    Yes,
    No,
    Unknown,
}

impl Active {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Active::Yes => "active",
            Active::No => "not active",
            Active::Unknown => "unknown",
        }
    }
}

/// One agent's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activation {
    pub agent: Agent,
    pub active: Active,
    /// Why, in one line: which file or setting decides it.
    pub detail: String,
    /// What the user runs or sets to make the hooks load, when they do not.
    pub fix: Option<String>,
}

/// Where the agent's user configuration lives: the user's home (`~/.codex`, `~/.gemini`, …) and
/// the process environment that overrides it (`CODEX_HOME`, `GEMINI_CLI_TRUST_WORKSPACE`, …).
#[derive(Debug, Clone)]
pub struct UserEnv {
    pub home: PathBuf,
    /// `(name, value)` pairs of the variables the agents read.
    pub vars: Vec<(String, String)>,
}

impl UserEnv {
    /// The current process's home and environment.
    #[must_use]
    pub fn from_process() -> UserEnv {
        UserEnv {
            home: loki_core::env::HOME
                .get_os()
                .map(PathBuf::from)
                .unwrap_or_default(),
            vars: std::env::vars().collect(),
        }
    }

    /// The value of `name`, when set.
    #[must_use]
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Whether `agent` will run loki's hooks in `repo_root`: first whether they are registered at all,
/// then the agent's own loading rules.
#[must_use]
pub fn activation(agent: Agent, repo_root: &Path, user: &UserEnv) -> Activation {
    if let Some(missing) = unregistered(agent, repo_root) {
        return missing;
    }
    match agent {
        Agent::Claude => claude::activation(repo_root, user),
        Agent::Codex => codex::activation(repo_root, user),
        Agent::Cursor => cursor::activation(repo_root, user),
        Agent::Gemini => gemini::activation(repo_root, user),
    }
}

/// `Some(No)` when the repository's settings do not register the seal's hooks for `agent`.
fn unregistered(agent: Agent, repo_root: &Path) -> Option<Activation> {
    let path = crate::install::settings_path(repo_root, agent);
    let no = |detail: String| Activation {
        agent,
        active: Active::No,
        detail,
        fix: Some(format!("loki seal install --agent {}", agent.as_str())),
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Some(no(format!("{} does not exist", path.display())));
        }
        Err(e) => {
            return Some(Activation {
                agent,
                active: Active::Unknown,
                detail: format!("cannot read {}: {e}", path.display()),
                fix: None,
            });
        }
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) if crate::install::registered(&v, agent) => None,
        Ok(_) => Some(no(format!(
            "{} does not register loki seal's hooks",
            path.display()
        ))),
        Err(e) => Some(Activation {
            agent,
            active: Active::Unknown,
            detail: format!("{} is not valid JSON: {e}", path.display()),
            fix: None,
        }),
    }
}
