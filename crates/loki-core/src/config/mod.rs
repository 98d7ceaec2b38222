//! Layered configuration with provenance.
//!
//! Layers, lowest first; a later layer overrides an earlier one key by key:
//!
//! 1. built-in defaults ([`KEYS`]);
//! 2. the user file `$LOKI_HOME/config.toml`;
//! 3. the repository file `loki.toml` at the repository root;
//! 4. `--config FILE`: TOML, YAML, JSON or a `.env` file of `LOKI_*=value` lines, detected from the
//!    extension, else from the content;
//! 5. environment variables: `LOKI_<KEY>` with dots as underscores (`run.cap_s` ↔ `LOKI_RUN_CAP_S`),
//!    plus the conventional names some keys also answer to (`ANTHROPIC_API_KEY`);
//! 6. command flags.
//!
//! The `[workspaces.<name>]` tables of a TOML file are not settings: they are left to
//! [`workspaces`] (`loki workspace`).
//!
//! Every effective value remembers where it came from ([`Source`]): `loki config show` prints it.
//! Secrets ([`Kind::Secret`]) are never displayed: [`Entry::display_value`] shows `set`/`unset`.
//!
//! Refusals: a file that does not parse is an error naming the file and line; an unknown key or a
//! value of the wrong type is an error naming the key, the file and the line where it was set.
//!
//! Repair: the commands a user needs to mend a broken file (`config path|init|set`, `doctor`,
//! `verify`, `keys`) load with [`Config::load_repairable`] instead: a file layer with any problem
//! is left out *as a whole* (never half applied) and returned as an [`Ignored`], so the command
//! runs on the other layers and says what it ignored. Variables and flags are still refused:
//! they are not a file to repair, and the user changes them where they typed them.

pub mod edit;
mod file;
pub mod workspaces;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::CoreError;

pub use file::{Format, detect_format, parse_file};

/// The type of a configuration value, which decides how text is parsed and how it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Str,
    /// A non-negative integer (seconds, counts, bytes).
    Uint,
    /// A non-negative decimal (dollars).
    Decimal,
    Bool,
    /// A credential: stored like [`Kind::Str`], never displayed.
    Secret,
    /// One of a fixed set of words.
    OneOf(&'static [&'static str]),
    /// A provider name: one of [`PROVIDERS`] or `replay:<run-id>`.
    Provider,
}

/// Provider names loki knows.
pub const PROVIDERS: &[&str] = &[
    "auto",
    "scripted",
    "openai",
    "anthropic",
    "claude",
    "codex",
    "aider",
    "opencode",
];

/// One configuration key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyDef {
    pub key: &'static str,
    pub kind: Kind,
    pub default: Option<&'static str>,
    /// Environment variables that also set this key, after `LOKI_<KEY>`.
    pub env_aliases: &'static [&'static str],
    pub doc: &'static str,
}

/// Every configuration key, in display order.
pub const KEYS: &[KeyDef] = &[
    KeyDef {
        key: "provider.name",
        kind: Kind::Provider,
        default: Some("auto"),
        env_aliases: &["LOKI_PROVIDER"],
        doc: "model provider: auto, scripted, openai, anthropic, claude, codex, aider, opencode or replay:<run-id>",
    },
    KeyDef {
        key: "provider.model",
        kind: Kind::Str,
        default: None,
        env_aliases: &["LOKI_MODEL"],
        doc: "model name passed to the provider",
    },
    KeyDef {
        key: "provider.script",
        kind: Kind::Str,
        default: None,
        env_aliases: &[],
        doc: "session file for the scripted provider",
    },
    KeyDef {
        key: "provider.prices",
        kind: Kind::Str,
        default: None,
        env_aliases: &[],
        doc: "TOML or JSON file of per-model prices in USD per million tokens \
              ({model = {input, output, cache_read, cache_write}}) over the built-in table",
    },
    KeyDef {
        key: "provider.retries",
        kind: Kind::Uint,
        default: Some("2"),
        env_aliases: &[],
        doc: "retries of a failed model call (429, 5xx, dropped connection, timeout) after the first attempt",
    },
    KeyDef {
        key: "provider.retry_budget_s",
        kind: Kind::Uint,
        default: Some("20"),
        env_aliases: &[],
        doc: "seconds after a model call's first attempt within which its retries must start",
    },
    KeyDef {
        key: "provider.idle_timeout_s",
        kind: Kind::Uint,
        default: Some("300"),
        env_aliases: &[],
        doc: "seconds of silence from the model server before a call counts as timed out",
    },
    KeyDef {
        key: "openai.base_url",
        kind: Kind::Str,
        default: Some("https://api.openai.com/v1"),
        env_aliases: &["OPENAI_BASE_URL"],
        doc: "Chat Completions endpoint (OpenAI, Ollama, vLLM, LiteLLM, OpenRouter)",
    },
    KeyDef {
        key: "openai.api_key",
        kind: Kind::Secret,
        default: None,
        env_aliases: &["OPENAI_API_KEY"],
        doc: "API key for the openai provider (may be empty for Ollama)",
    },
    KeyDef {
        key: "anthropic.base_url",
        kind: Kind::Str,
        default: Some("https://api.anthropic.com"),
        env_aliases: &["ANTHROPIC_BASE_URL"],
        doc: "Messages API endpoint",
    },
    KeyDef {
        key: "anthropic.api_key",
        kind: Kind::Secret,
        default: None,
        env_aliases: &["ANTHROPIC_API_KEY"],
        doc: "API key for the anthropic provider",
    },
    KeyDef {
        key: "run.cap_s",
        kind: Kind::Uint,
        default: Some("900"),
        env_aliases: &[],
        doc: "run cap in seconds",
    },
    KeyDef {
        key: "run.deep_cap_s",
        kind: Kind::Uint,
        default: Some("2700"),
        env_aliases: &[],
        doc: "run cap in seconds with --deep",
    },
    KeyDef {
        key: "run.max_cost_usd",
        kind: Kind::Decimal,
        default: None,
        env_aliases: &[],
        doc: "stop a run when its measured cost reaches this many dollars",
    },
    KeyDef {
        key: "run.max_tokens",
        kind: Kind::Uint,
        default: None,
        env_aliases: &[],
        doc: "stop a run when its model calls have used this many tokens (every kind summed)",
    },
    KeyDef {
        key: "council.reviewers",
        kind: Kind::Uint,
        default: Some("3"),
        env_aliases: &[],
        doc: "reviewers in a build's review council, chosen by the change's content (0: no council); their blocking findings lower VERIFIED to PARTIAL",
    },
    KeyDef {
        key: "agent.network",
        kind: Kind::OneOf(&["off", "on"]),
        default: Some("off"),
        env_aliases: &[],
        doc: "network for the model's commands: off (TCP refused, or a network namespace) or on (recorded in the receipt's NOT PROVEN)",
    },
    KeyDef {
        key: "checks.timeout_s",
        kind: Kind::Uint,
        default: Some("600"),
        env_aliases: &[],
        doc: "timeout of one test check in seconds",
    },
    KeyDef {
        key: "checks.output_cap_bytes",
        kind: Kind::Uint,
        default: Some("1048576"),
        env_aliases: &[],
        doc: "bytes of check output kept (head and tail halves)",
    },
    KeyDef {
        key: "seal.max_blocks",
        kind: Kind::Uint,
        default: Some("5"),
        env_aliases: &[],
        doc: "consecutive stop-hook blocks before loki seal lets the agent stop (recorded NOT VERIFIED)",
    },
    KeyDef {
        key: "seal.expectation_changes",
        kind: Kind::OneOf(&["declare", "allow", "refuse"]),
        default: Some("declare"),
        env_aliases: &[],
        doc: "a change that alters what existing tests expect: declare (refused until `loki seal declare` names why, signed into the receipt), allow (shown, not refused) or refuse (a finding)",
    },
    KeyDef {
        key: "output.color",
        kind: Kind::OneOf(&["auto", "always", "never"]),
        default: Some("auto"),
        env_aliases: &[],
        doc: "colour in terminal output",
    },
    KeyDef {
        key: "output.heartbeat_s",
        kind: Kind::Uint,
        default: Some("30"),
        env_aliases: &[],
        doc: "seconds between --verbose heartbeat lines while a stage runs",
    },
    KeyDef {
        key: "log.level",
        kind: Kind::OneOf(&["error", "warn", "info", "debug", "trace"]),
        default: Some("warn"),
        env_aliases: &[],
        doc: "diagnostic log level on stderr",
    },
];

/// Looks a key up by name.
#[must_use]
pub fn key_def(key: &str) -> Option<&'static KeyDef> {
    KEYS.iter().find(|k| k.key == key)
}

/// The `LOKI_*` environment variable of a key.
#[must_use]
pub fn env_name(key: &str) -> String {
    format!("LOKI_{}", key.replace('.', "_").to_ascii_uppercase())
}

/// The key an environment variable name sets, if any.
#[must_use]
pub fn key_for_env(var: &str) -> Option<&'static KeyDef> {
    KEYS.iter()
        .find(|k| env_name(k.key) == var || k.env_aliases.contains(&var))
}

/// A typed configuration value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Uint(u64),
    Decimal(f64),
    Bool(bool),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => f.write_str(s),
            Value::Uint(n) => write!(f, "{n}"),
            Value::Decimal(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// Which layer a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    Default,
    User,
    Repo,
    File,
    Env,
    Flag,
}

/// Where a value came from: its layer, the file or variable, and the line in that file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    pub layer: Layer,
    /// A file path, an environment variable name, or a flag.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.layer, self.line) {
            (Layer::Default, _) => f.write_str("default"),
            (Layer::Env, _) => write!(f, "env {}", self.name),
            (Layer::Flag, _) => write!(f, "flag {}", self.name),
            (_, Some(line)) => write!(f, "{}:{line}", self.name),
            (_, None) => f.write_str(&self.name),
        }
    }
}

/// One effective value and its provenance.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub def: &'static KeyDef,
    pub value: Option<Value>,
    pub source: Source,
}

impl Entry {
    /// The value as it may be shown to a user: secrets as `set`/`unset`, absent values as `unset`.
    #[must_use]
    pub fn display_value(&self) -> String {
        match (&self.value, self.def.kind) {
            (Some(Value::Str(s)), Kind::Secret) if !s.is_empty() => "set".to_string(),
            (_, Kind::Secret) | (None, _) => "unset".to_string(),
            (Some(v), _) => v.to_string(),
        }
    }
}

/// What [`Config::load`] reads. Paths that do not exist are skipped, except `file`.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// `$LOKI_HOME`, whose `config.toml` is the user layer.
    pub home: Option<PathBuf>,
    /// The repository root, whose `loki.toml` is the repo layer.
    pub repo_root: Option<PathBuf>,
    /// `--config FILE`: must exist.
    pub file: Option<PathBuf>,
    /// The environment (all of it; only relevant names are read).
    pub env: Vec<(String, String)>,
    /// Command flags as (key, value, flag name).
    pub flags: Vec<(String, String, String)>,
}

/// The effective configuration.
#[derive(Debug, Clone)]
pub struct Config {
    entries: BTreeMap<&'static str, Entry>,
}

/// A configuration file left out by [`Config::load_repairable`], and why.
#[derive(Debug)]
pub struct Ignored {
    /// [`Layer::User`], [`Layer::Repo`] or [`Layer::File`].
    pub layer: Layer,
    pub path: PathBuf,
    /// The error [`Config::load`] would have refused with (it names the file and line).
    pub error: CoreError,
}

impl Config {
    /// Builds the effective configuration from every layer. See the module doc.
    pub fn load(inputs: &Inputs) -> Result<Config, CoreError> {
        let mut strict = |_: Layer, _: &Path, e: CoreError| -> Result<(), CoreError> { Err(e) };
        Config::load_layers(inputs, &mut strict)
    }

    /// Like [`Config::load`], but a configuration file that cannot be used is left out whole
    /// and returned with its error instead of refusing (see the module doc).
    pub fn load_repairable(inputs: &Inputs) -> Result<(Config, Vec<Ignored>), CoreError> {
        let mut ignored = Vec::new();
        let mut keep = |layer: Layer, path: &Path, error: CoreError| -> Result<(), CoreError> {
            ignored.push(Ignored {
                layer,
                path: path.to_path_buf(),
                error,
            });
            Ok(())
        };
        let cfg = Config::load_layers(inputs, &mut keep)?;
        Ok((cfg, ignored))
    }

    /// Applies every layer; a file layer's error goes to `on_bad_file`, which refuses (returns
    /// it) or leaves the layer out (returns `Ok`).
    fn load_layers(
        inputs: &Inputs,
        on_bad_file: &mut dyn FnMut(Layer, &Path, CoreError) -> Result<(), CoreError>,
    ) -> Result<Config, CoreError> {
        let mut cfg = Config::defaults();
        let mut files: Vec<(Layer, PathBuf, bool)> = Vec::new();
        if let Some(home) = &inputs.home {
            files.push((Layer::User, home.join("config.toml"), false));
        }
        if let Some(root) = &inputs.repo_root {
            files.push((Layer::Repo, root.join("loki.toml"), false));
        }
        if let Some(file) = &inputs.file {
            files.push((Layer::File, file.clone(), true));
        }
        for (layer, path, required) in files {
            // All of a file or none of it: a layer is tried on a copy and kept only whole.
            let mut trial = cfg.clone();
            match trial.apply_file(&path, layer, required) {
                Ok(()) => cfg = trial,
                Err(e) => on_bad_file(layer, &path, e)?,
            }
        }
        // Aliases first so that the LOKI_ name wins when both are set.
        for def in KEYS {
            let names = def
                .env_aliases
                .iter()
                .map(|a| (*a).to_string())
                .chain(std::iter::once(env_name(def.key)));
            for name in names {
                if let Some((_, v)) = inputs.env.iter().find(|(k, _)| *k == name) {
                    let src = Source {
                        layer: Layer::Env,
                        name: name.clone(),
                        line: None,
                    };
                    cfg.set(def, v, src)?;
                }
            }
        }
        for (key, value, flag) in &inputs.flags {
            let def = key_def(key).ok_or_else(|| unknown_key(key, flag.clone(), None))?;
            let src = Source {
                layer: Layer::Flag,
                name: flag.clone(),
                line: None,
            };
            cfg.set(def, value, src)?;
        }
        Ok(cfg)
    }

    /// Only the built-in defaults.
    #[must_use]
    pub fn defaults() -> Config {
        let entries = KEYS
            .iter()
            .map(|def| {
                let value = def.default.and_then(|d| parse_value(def, d).ok());
                let source = Source {
                    layer: Layer::Default,
                    name: "default".into(),
                    line: None,
                };
                (def.key, Entry { def, value, source })
            })
            .collect();
        Config { entries }
    }

    /// Applies one file; a missing file is skipped unless `required` (`--config FILE`).
    fn apply_file(&mut self, path: &Path, layer: Layer, required: bool) -> Result<(), CoreError> {
        match std::fs::read_to_string(path) {
            Ok(text) => self.apply_text(path, &text, layer),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => Ok(()),
            Err(e) => Err(CoreError::Config {
                source_name: path.display().to_string(),
                line: None,
                message: if required {
                    format!("cannot read the --config file: {e}")
                } else {
                    format!("cannot read: {e}")
                },
            }),
        }
    }

    fn apply_text(&mut self, path: &Path, text: &str, layer: Layer) -> Result<(), CoreError> {
        let name = path.display().to_string();
        for item in parse_file(path, text)? {
            let def = key_def(&item.key)
                .ok_or_else(|| unknown_key(&item.key, name.clone(), item.line))?;
            let src = Source {
                layer,
                name: name.clone(),
                line: item.line,
            };
            self.set(def, &item.value, src)?;
        }
        Ok(())
    }

    fn set(&mut self, def: &'static KeyDef, text: &str, source: Source) -> Result<(), CoreError> {
        let value = parse_value(def, text).map_err(|why| CoreError::Config {
            source_name: match source.layer {
                Layer::Env => format!("environment variable {}", source.name),
                Layer::Flag => format!("flag {}", source.name),
                _ => source.name.clone(),
            },
            line: source.line,
            message: format!("{}: {why}", def.key),
        })?;
        self.entries.insert(
            def.key,
            Entry {
                def,
                value: Some(value),
                source,
            },
        );
        Ok(())
    }

    /// Every key with its effective value and source, in display order.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        KEYS.iter().filter_map(|k| self.entries.get(k.key))
    }

    /// The entry of `key`, if the key exists.
    #[must_use]
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The value of a text (or secret) key.
    #[must_use]
    pub fn str(&self, key: &str) -> Option<&str> {
        match self.entries.get(key)?.value.as_ref()? {
            Value::Str(s) => Some(s),
            Value::Uint(_) | Value::Decimal(_) | Value::Bool(_) => None,
        }
    }

    /// The value of an integer key.
    #[must_use]
    pub fn uint(&self, key: &str) -> Option<u64> {
        match self.entries.get(key)?.value.as_ref()? {
            Value::Uint(n) => Some(*n),
            Value::Str(_) | Value::Decimal(_) | Value::Bool(_) => None,
        }
    }

    /// The value of a decimal key.
    #[must_use]
    pub fn decimal(&self, key: &str) -> Option<f64> {
        match self.entries.get(key)?.value.as_ref()? {
            Value::Decimal(x) => Some(*x),
            Value::Str(_) | Value::Uint(_) | Value::Bool(_) => None,
        }
    }
}

fn unknown_key(key: &str, source_name: String, line: Option<usize>) -> CoreError {
    let hint = KEYS
        .iter()
        .map(|k| k.key)
        .find(|k| k.ends_with(key.rsplit('.').next().unwrap_or(key)))
        .map(|k| format!(" (did you mean {k}?)"))
        .unwrap_or_default();
    CoreError::Config {
        source_name,
        line,
        message: format!("unknown key {key:?}{hint}; `loki config show` lists the keys"),
    }
}

/// A value that is not of its key's kind: what the key takes, and the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected {expected}, got {got:?}")]
pub struct ValueError {
    /// What the key takes, in words ("a whole number >= 0", "one of a, b").
    pub expected: String,
    pub got: String,
}

/// Parses a value of `def`'s kind from text, with a reason a person can act on when it fails.
pub fn parse_value(def: &KeyDef, text: &str) -> Result<Value, ValueError> {
    let t = text.trim();
    let refuse = |expected: String| ValueError {
        expected,
        got: text.to_string(),
    };
    match def.kind {
        Kind::Str | Kind::Secret => Ok(Value::Str(text.to_string())),
        Kind::Uint => t
            .parse::<u64>()
            .map(Value::Uint)
            .map_err(|_| refuse("a whole number >= 0".into())),
        Kind::Decimal => match t.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Ok(Value::Decimal(x)),
            _ => Err(refuse("a number >= 0".into())),
        },
        Kind::Bool => match t {
            "true" | "1" | "yes" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Bool(false)),
            _ => Err(refuse("true or false".into())),
        },
        Kind::OneOf(words) => {
            if words.contains(&t) {
                Ok(Value::Str(t.to_string()))
            } else {
                Err(refuse(format!("one of {}", words.join(", "))))
            }
        }
        Kind::Provider => {
            let ok = PROVIDERS.contains(&t)
                || t.strip_prefix("replay:")
                    .is_some_and(|id| id.parse::<crate::RunId>().is_ok());
            if ok {
                Ok(Value::Str(t.to_string()))
            } else {
                Err(refuse(format!(
                    "one of {} or replay:<run-id>",
                    PROVIDERS.join(", ")
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests;
