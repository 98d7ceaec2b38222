//! Provider settings and the auto choice as loki's configuration has them. The configuration is
//! the one source: `loki.toml`, `LOKI_*` variables and the conventional `ANTHROPIC_API_KEY` /
//! `OPENAI_API_KEY` all arrive through it, so what `loki providers` and `loki doctor` say is what
//! a run will do.

use std::path::PathBuf;
use std::time::Duration;

use loki_core::config::{Config, Layer};

use crate::choice::{Detection, ProviderSettings, detect_auto};

impl ProviderSettings {
    /// The settings of configuration `c`; `runs_dir` is the repository's `.loki/runs`, when
    /// there is one (for `replay:<run-id>`).
    #[must_use]
    pub fn from_config(c: &Config, runs_dir: Option<PathBuf>) -> ProviderSettings {
        let s = |k: &str| c.str(k).unwrap_or_default().to_string();
        let mut out = ProviderSettings {
            model: c
                .str("provider.model")
                .map(str::to_string)
                .filter(|m| !m.is_empty()),
            script: c
                .str("provider.script")
                .filter(|p| !p.is_empty())
                .map(PathBuf::from),
            openai_base_url: s("openai.base_url"),
            openai_api_key: s("openai.api_key"),
            anthropic_base_url: s("anthropic.base_url"),
            anthropic_api_key: s("anthropic.api_key"),
            ..ProviderSettings::default()
        };
        out.runs_dir = runs_dir;
        if let Some(n) = c.uint("provider.retries") {
            out.http.max_retries = u32::try_from(n).unwrap_or(u32::MAX);
        }
        if let Some(s) = c.uint("provider.retry_budget_s") {
            out.http.retry_budget = Duration::from_secs(s);
        }
        if let Some(s) = c.uint("provider.idle_timeout_s") {
            out.http.idle_timeout = Duration::from_secs(s);
        }
        out
    }
}

/// What `auto` would pick, judged from configuration `c` (not only the raw environment);
/// `path_lookup` finds a program on `PATH`.
#[must_use]
pub fn detect(c: &Config, path_lookup: &dyn Fn(&str) -> Option<PathBuf>) -> Detection {
    let lookup = |name: &str| -> Option<String> {
        let key = match name {
            "ANTHROPIC_API_KEY" => "anthropic.api_key",
            "OPENAI_API_KEY" => "openai.api_key",
            "OPENAI_BASE_URL" => {
                // Only a base URL the user set counts as "a local server is configured".
                let e = c.entry("openai.base_url")?;
                return (e.source.layer != Layer::Default)
                    .then(|| c.str("openai.base_url").unwrap_or_default().to_string());
            }
            other => return std::env::var(other).ok(),
        };
        c.str(key).map(str::to_string)
    };
    detect_auto(&lookup, path_lookup)
}
