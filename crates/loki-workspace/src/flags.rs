//! Command flags that are configuration keys, as the top configuration layer: the one place a
//! flag is named to its key, so `loki "<task>"`, `run-task`, `quick`, `ask` and `improve` layer
//! `--provider` or `--cap` over `loki.toml` alike, and `loki config` would name the flag as the
//! value's source.
//!
//! Keys: `--color` `output.color`, `--provider` `provider.name`, `--model` `provider.model`, `--script`
//! `provider.script`, `--cap` `run.cap_s` (`run.deep_cap_s` for a `--deep` build, whose cap it
//! is), `--max-cost` `run.max_cost_usd`, `--max-tokens` `run.max_tokens`, `--council`
//! `council.reviewers`. A flag not given adds nothing.

use std::path::PathBuf;

/// The flags given; `None` for one a command does not have or the user did not pass.
#[derive(Debug, Clone, Default)]
pub struct ConfigFlags {
    /// `--color`: `auto`, `always` or `never`.
    pub color: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub script: Option<PathBuf>,
    pub cap: Option<u64>,
    /// A `--deep` build: `--cap` is the deep cap.
    pub deep: bool,
    pub max_cost: Option<f64>,
    pub max_tokens: Option<u64>,
    pub council: Option<u64>,
}

impl ConfigFlags {
    /// The flags given as `(key, value, flag name)`, the layer `load_config` takes on top.
    #[must_use]
    pub fn layer(&self) -> Vec<(String, String, String)> {
        let cap_key = if self.deep {
            "run.deep_cap_s"
        } else {
            "run.cap_s"
        };
        let flags = [
            ("output.color", self.color.clone(), "--color"),
            ("provider.name", self.provider.clone(), "--provider"),
            ("provider.model", self.model.clone(), "--model"),
            (
                "provider.script",
                self.script.as_ref().map(|s| s.display().to_string()),
                "--script",
            ),
            (cap_key, self.cap.map(|c| c.to_string()), "--cap"),
            (
                "run.max_cost_usd",
                self.max_cost.map(|m| m.to_string()),
                "--max-cost",
            ),
            (
                "run.max_tokens",
                self.max_tokens.map(|m| m.to_string()),
                "--max-tokens",
            ),
            (
                "council.reviewers",
                self.council.map(|n| n.to_string()),
                "--council",
            ),
        ];
        flags
            .into_iter()
            .filter_map(|(key, value, flag)| Some((key.to_string(), value?, flag.to_string())))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::ConfigFlags;

    #[test]
    fn only_the_flags_given_are_layered_and_cap_follows_deep() {
        let mut f = ConfigFlags {
            provider: Some("scripted".into()),
            cap: Some(60),
            ..ConfigFlags::default()
        };
        let keys =
            |f: &ConfigFlags| -> Vec<String> { f.layer().into_iter().map(|l| l.0).collect() };
        assert_eq!(keys(&f), ["provider.name", "run.cap_s"]);
        f.deep = true;
        assert_eq!(keys(&f), ["provider.name", "run.deep_cap_s"]);
        assert_eq!(
            f.layer()[1],
            ("run.deep_cap_s".into(), "60".into(), "--cap".into())
        );
        assert!(ConfigFlags::default().layer().is_empty());
    }
}
