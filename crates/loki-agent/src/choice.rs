//! Choosing a provider: parsing the user's choice, auto-detection, and building the backend.
//!
//! An explicit choice is used as given or fails with the reason (a missing key, a CLI that is not
//! installed): it is never silently replaced by another provider. Only `auto` looks around, in
//! [`AUTO_ORDER`]: API keys first (the built-in loop records every exchange and measures cost),
//! then CLI agents found on `PATH`. `scripted` and `replay` are never auto-detected.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::AgentError;
use crate::http::HttpOptions;
use crate::provider::Provider;
use crate::replay::Replay;
use crate::scripted::Scripted;
use crate::transcript::TRANSCRIPT_FILE;
use loki_clients::run::DEFAULT_CLI_TIMEOUT;
use loki_clients::{CliAgent, CliKind};

/// Model used by `openai` when none is configured.
pub const DEFAULT_OPENAI_MODEL: &str = "gpt-4.1";
/// Model used by `anthropic` when none is configured.
pub const DEFAULT_ANTHROPIC_MODEL: &str = "claude-sonnet-4-5";
/// Default API roots.
pub const DEFAULT_OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// Auto-detection order (provider names).
pub const AUTO_ORDER: &[&str] = &[
    "anthropic",
    "openai",
    "claude",
    "codex",
    "aider",
    "opencode",
];

/// A concrete provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderChoice {
    Scripted,
    /// Replay the transcript of this run id.
    Replay(String),
    OpenAi,
    Anthropic,
    Cli(CliKind),
}

impl ProviderChoice {
    /// Parses a provider name; `Ok(None)` means `auto`.
    pub fn parse(name: &str) -> Result<Option<ProviderChoice>, AgentError> {
        let unknown = || AgentError::UnknownProvider {
            name: name.to_string(),
        };
        Ok(Some(match name {
            "auto" => return Ok(None),
            "scripted" => ProviderChoice::Scripted,
            "openai" => ProviderChoice::OpenAi,
            "anthropic" => ProviderChoice::Anthropic,
            other => match other.strip_prefix("replay:") {
                Some(id) if !id.is_empty() => ProviderChoice::Replay(id.to_string()),
                Some(_) => return Err(unknown()),
                None => ProviderChoice::Cli(CliKind::from_name(other).ok_or_else(unknown)?),
            },
        }))
    }

    /// The name as the user writes it.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            ProviderChoice::Scripted => "scripted".into(),
            ProviderChoice::Replay(id) => format!("replay:{id}"),
            ProviderChoice::OpenAi => "openai".into(),
            ProviderChoice::Anthropic => "anthropic".into(),
            ProviderChoice::Cli(k) => k.name().into(),
        }
    }
}

/// One provider considered by auto-detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: &'static str,
    pub available: bool,
    /// Why it is or is not available (`ANTHROPIC_API_KEY is set`, `claude found at /usr/bin/claude`).
    pub why: String,
}

/// The result of auto-detection: the choice (if any), the reason, and every candidate in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub choice: Option<ProviderChoice>,
    pub reason: String,
    pub order: Vec<Candidate>,
}

/// Picks the first available provider in [`AUTO_ORDER`]. `env` looks up a variable or config value
/// (an empty value counts as unset); `path_lookup` finds a program on `PATH`.
pub fn detect_auto(
    env: &dyn Fn(&str) -> Option<String>,
    path_lookup: &dyn Fn(&str) -> Option<PathBuf>,
) -> Detection {
    let set = |k: &str| env(k).is_some_and(|v| !v.is_empty());
    let mut order = Vec::new();
    let key = |name: &'static str, var: &str| Candidate {
        name,
        available: set(var),
        why: if set(var) {
            format!("{var} is set")
        } else {
            format!("{var} is not set")
        },
    };
    order.push(key("anthropic", "ANTHROPIC_API_KEY"));
    let openai = if set("OPENAI_API_KEY") {
        key("openai", "OPENAI_API_KEY")
    } else if set("OPENAI_BASE_URL") {
        Candidate {
            name: "openai",
            available: true,
            why: "OPENAI_BASE_URL is set (a local OpenAI-compatible server needs no key)".into(),
        }
    } else {
        Candidate {
            name: "openai",
            available: false,
            why: "neither OPENAI_API_KEY nor OPENAI_BASE_URL is set".into(),
        }
    };
    order.push(openai);
    for k in CliKind::ALL {
        order.push(match path_lookup(k.name()) {
            Some(p) => Candidate {
                name: k.name(),
                available: true,
                why: format!("{} found at {}", k.name(), p.display()),
            },
            None => Candidate {
                name: k.name(),
                available: false,
                why: format!("{} is not on PATH", k.name()),
            },
        });
    }
    let first = order.iter().find(|c| c.available);
    let choice = first.and_then(|c| ProviderChoice::parse(c.name).ok().flatten());
    let reason = match first {
        Some(c) => format!("auto: {} ({})", c.name, c.why),
        None => format!(
            "auto found nothing: set ANTHROPIC_API_KEY or OPENAI_API_KEY (or OPENAI_BASE_URL for Ollama), or install one of {}",
            CliKind::ALL.map(CliKind::name).join(", ")
        ),
    };
    Detection {
        choice,
        reason,
        order,
    }
}

/// Everything needed to build any provider (the CLI fills it from config).
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    pub model: Option<String>,
    pub script: Option<PathBuf>,
    pub openai_base_url: String,
    pub openai_api_key: String,
    pub anthropic_base_url: String,
    pub anthropic_api_key: String,
    /// `.loki/runs`, where `replay:<run-id>` finds `<run-id>/transcript.jsonl`.
    pub runs_dir: Option<PathBuf>,
    pub http: HttpOptions,
    pub cli_timeout: Duration,
    /// Environment of CLI agents (default: the current one).
    pub cli_env: Vec<(OsString, OsString)>,
}

impl Default for ProviderSettings {
    fn default() -> Self {
        ProviderSettings {
            model: None,
            script: None,
            openai_base_url: DEFAULT_OPENAI_BASE_URL.into(),
            openai_api_key: String::new(),
            anthropic_base_url: DEFAULT_ANTHROPIC_BASE_URL.into(),
            anthropic_api_key: String::new(),
            runs_dir: None,
            http: HttpOptions::default(),
            cli_timeout: DEFAULT_CLI_TIMEOUT,
            cli_env: std::env::vars_os().collect(),
        }
    }
}

/// A built provider: a model for the built-in loop, or a CLI agent that runs the task itself.
#[derive(Debug)]
pub enum Backend {
    Loop(Box<dyn Provider>),
    Cli(CliAgent),
}

impl Backend {
    /// How prompts name this backend's tools.
    #[must_use]
    pub fn words(&self) -> &'static loki_clients::ToolWords {
        match self {
            Backend::Loop(_) => &crate::words::LOOP_WORDS,
            Backend::Cli(agent) => agent.kind.words(),
        }
    }

    /// What cannot be priced with `prices`, so that a dollar cap could not hold: the model of an
    /// HTTP provider missing from the table, or a CLI agent that reports no dollars (codex,
    /// opencode). `None`: every call's cost will be measured. The scripted and replay providers
    /// price each recorded turn by its own model and are never refused here.
    #[must_use]
    pub fn unpriced(&self, prices: &crate::PriceTable) -> Option<String> {
        match self {
            Backend::Loop(p) => (!p.measures_cost(prices)).then(|| p.model().to_string()),
            Backend::Cli(agent) => {
                (!agent.kind.reports_cost()).then(|| agent.kind.name().to_string())
            }
        }
    }
}

/// Builds `choice` from `s`; fails with what to set when something is missing.
pub fn build(choice: &ProviderChoice, s: &ProviderSettings) -> Result<Backend, AgentError> {
    Ok(match choice {
        ProviderChoice::Scripted => {
            let path = s.script.as_deref().ok_or(AgentError::MissingSetting {
                provider: "scripted",
                what: "a session file",
                hint: "set provider.script to a JSON file (see crates/loki-agent/schema/scripted.schema.json)",
            })?;
            Backend::Loop(Box::new(Scripted::load(path)?))
        }
        ProviderChoice::Replay(id) => {
            let runs = s.runs_dir.as_deref().ok_or(AgentError::MissingSetting {
                provider: "replay",
                what: "a repository with recorded runs",
                hint: "run inside the repository whose .loki/runs holds the run",
            })?;
            Backend::Loop(Box::new(Replay::load(&transcript_of(runs, id))?))
        }
        ProviderChoice::OpenAi => Backend::Loop(Box::new(crate::openai::provider(
            &s.openai_base_url,
            &s.openai_api_key,
            s.model.as_deref().unwrap_or(DEFAULT_OPENAI_MODEL),
            s.http.clone(),
        ))),
        ProviderChoice::Anthropic => {
            if s.anthropic_api_key.is_empty() {
                return Err(AgentError::MissingSetting {
                    provider: "anthropic",
                    what: "an API key",
                    hint: "set ANTHROPIC_API_KEY (or anthropic.api_key)",
                });
            }
            Backend::Loop(Box::new(crate::anthropic::provider(
                &s.anthropic_base_url,
                &s.anthropic_api_key,
                s.model.as_deref().unwrap_or(DEFAULT_ANTHROPIC_MODEL),
                s.http.clone(),
            )))
        }
        ProviderChoice::Cli(kind) => Backend::Cli(CliAgent {
            kind: *kind,
            program: kind.name().into(),
            timeout: s.cli_timeout,
            env: s.cli_env.clone(),
            wrapper: Vec::new(),
            model: s.model.clone(),
            test_command: None,
        }),
    })
}

/// Where a run's transcript lives.
#[must_use]
pub fn transcript_of(runs_dir: &Path, run_id: &str) -> PathBuf {
    runs_dir.join(run_id).join(TRANSCRIPT_FILE)
}

/// One line of `loki providers`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderInfo {
    pub name: &'static str,
    /// `http`, `cli`, `scripted` or `replay`.
    pub kind: &'static str,
    /// Usable as configured now.
    pub ready: bool,
    /// Model, endpoint, key presence (`set`/`unset`, never the key) or the CLI's path.
    pub detail: String,
}

/// What each provider would use with `s`, for `loki providers` (secrets shown as set/unset).
#[must_use]
pub fn describe(
    s: &ProviderSettings,
    path_lookup: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<ProviderInfo> {
    let set = |k: &str| if k.is_empty() { "unset" } else { "set" };
    let mut out = vec![
        ProviderInfo {
            name: "anthropic",
            kind: "http",
            ready: !s.anthropic_api_key.is_empty(),
            detail: format!(
                "model {}, {}, ANTHROPIC_API_KEY {}",
                s.model.as_deref().unwrap_or(DEFAULT_ANTHROPIC_MODEL),
                s.anthropic_base_url,
                set(&s.anthropic_api_key)
            ),
        },
        ProviderInfo {
            name: "openai",
            kind: "http",
            ready: !s.openai_api_key.is_empty() || s.openai_base_url != DEFAULT_OPENAI_BASE_URL,
            detail: format!(
                "model {}, {}, OPENAI_API_KEY {}",
                s.model.as_deref().unwrap_or(DEFAULT_OPENAI_MODEL),
                s.openai_base_url,
                set(&s.openai_api_key)
            ),
        },
    ];
    for k in CliKind::ALL {
        let found = path_lookup(k.name());
        out.push(ProviderInfo {
            name: k.name(),
            kind: "cli",
            ready: found.is_some(),
            detail: found.map_or_else(
                || format!("not installed ({})", k.install_hint()),
                |p| p.display().to_string(),
            ),
        });
    }
    out.push(ProviderInfo {
        name: "scripted",
        kind: "scripted",
        ready: s.script.as_ref().is_some_and(|p| p.is_file()),
        detail: s.script.as_ref().map_or_else(
            || "provider.script is not set".into(),
            |p| p.display().to_string(),
        ),
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_known_names_and_replay_ids() {
        assert_eq!(ProviderChoice::parse("auto").unwrap(), None);
        assert_eq!(
            ProviderChoice::parse("replay:run_1").unwrap(),
            Some(ProviderChoice::Replay("run_1".into()))
        );
        assert_eq!(
            ProviderChoice::parse("aider").unwrap(),
            Some(ProviderChoice::Cli(CliKind::Aider))
        );
        assert!(ProviderChoice::parse("replay:").is_err());
        assert!(ProviderChoice::parse("gpt").is_err());
    }

    #[test]
    fn auto_prefers_keys_then_clis_and_explains_every_candidate() {
        let none = |_: &str| None::<PathBuf>;
        let no_env = |_: &str| None::<String>;
        let d = detect_auto(
            &|k: &str| (k == "OPENAI_API_KEY").then(|| "sk".into()),
            &none,
        );
        assert_eq!(d.choice, Some(ProviderChoice::OpenAi));
        assert_eq!(d.reason, "auto: openai (OPENAI_API_KEY is set)");
        assert_eq!(d.order.len(), 6);

        let codex = |p: &str| (p == "codex").then(|| PathBuf::from("/bin/codex"));
        let d = detect_auto(
            &|k: &str| (k == "ANTHROPIC_API_KEY").then(String::new),
            &codex,
        );
        assert_eq!(d.choice, Some(ProviderChoice::Cli(CliKind::Codex)));
        assert!(!d.order[0].available, "an empty key is not a key");

        let d = detect_auto(&no_env, &none);
        assert_eq!(d.choice, None);
        assert!(d.reason.starts_with("auto found nothing"));
    }

    #[test]
    fn an_explicit_choice_fails_instead_of_falling_back() {
        let s = ProviderSettings::default();
        let e = build(&ProviderChoice::Anthropic, &s).unwrap_err();
        assert!(e.to_string().contains("set ANTHROPIC_API_KEY"), "{e}");
        let e = build(&ProviderChoice::Scripted, &s).unwrap_err();
        assert!(e.to_string().contains("provider.script"), "{e}");
    }
}
