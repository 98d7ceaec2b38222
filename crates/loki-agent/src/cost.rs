//! What a model call cost, from a versioned price table.
//!
//! Prices are USD per million tokens in four buckets that match [`Usage`]: uncached input,
//! output, cache reads and cache writes. `cost = Σ tokens × price / 1e6`. Anthropic's cache
//! write is 1.25× input (5-minute cache) and its cache read 0.1× input; OpenAI bills no cache
//! writes (it never reports any) and cached input at its own rate.
//!
//! A model that is not in the table has **no** cost (`None`, shown as "not measured"): a made-up
//! 0 would pass a dollar limit it should not. Dated snapshots (`claude-sonnet-4-5-20250929`,
//! `gpt-4o-2024-08-06`) are priced like their family; nothing else is matched loosely.
//!
//! The table is [`PRICE_TABLE_VERSION`] as published by the vendors (cross-checked against
//! LiteLLM's `model_prices_and_context_window.json`); callers override or extend it with
//! [`PriceTable::with_overrides`] (from config) and record the version next to every cost.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::AgentError;
use loki_clients::Usage;

/// Date of the built-in prices; recorded next to every computed cost.
pub const PRICE_TABLE_VERSION: &str = "2025-11-01";
/// Window assumed for a model the table does not know: the smallest common one today.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const PER_MILLION: f64 = 1_000_000.0;

/// Prices of one model in USD per million tokens, and its context window in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    #[serde(default = "default_window")]
    pub context_window: u64,
}

fn default_window() -> u64 {
    DEFAULT_CONTEXT_WINDOW
}

impl Price {
    /// The cost of `usage` at these prices.
    #[must_use]
    pub fn cost(&self, usage: &Usage) -> f64 {
        #[expect(
            clippy::cast_precision_loss,
            reason = "token counts far below 2^53 are exact in f64"
        )]
        let t = |n: u64| n as f64;
        (t(usage.input_tokens) * self.input
            + t(usage.output_tokens) * self.output
            + t(usage.cache_read_tokens) * self.cache_read
            + t(usage.cache_write_tokens) * self.cache_write)
            / PER_MILLION
    }
}

/// (model, input, output, cache read, cache write, context window).
type Row = (&'static str, f64, f64, f64, f64, u64);

const BUILTIN: &[Row] = &[
    // Anthropic: cache read 0.1×, cache write (5 min) 1.25× input.
    ("claude-opus-4-5", 5.0, 25.0, 0.5, 6.25, 200_000),
    ("claude-opus-4-1", 15.0, 75.0, 1.5, 18.75, 200_000),
    ("claude-opus-4-0", 15.0, 75.0, 1.5, 18.75, 200_000),
    ("claude-opus-4", 15.0, 75.0, 1.5, 18.75, 200_000),
    ("claude-sonnet-4-5", 3.0, 15.0, 0.3, 3.75, 200_000),
    ("claude-sonnet-4-0", 3.0, 15.0, 0.3, 3.75, 200_000),
    ("claude-sonnet-4", 3.0, 15.0, 0.3, 3.75, 200_000),
    ("claude-3-7-sonnet", 3.0, 15.0, 0.3, 3.75, 200_000),
    ("claude-3-5-sonnet", 3.0, 15.0, 0.3, 3.75, 200_000),
    ("claude-haiku-4-5", 1.0, 5.0, 0.1, 1.25, 200_000),
    ("claude-3-5-haiku", 0.8, 4.0, 0.08, 1.0, 200_000),
    // OpenAI: no cache-write charge; cached input at its own rate.
    ("gpt-5", 1.25, 10.0, 0.125, 0.0, 400_000),
    ("gpt-5-mini", 0.25, 2.0, 0.025, 0.0, 400_000),
    ("gpt-5-nano", 0.05, 0.4, 0.005, 0.0, 400_000),
    ("gpt-5-codex", 1.25, 10.0, 0.125, 0.0, 400_000),
    ("gpt-4.1", 2.0, 8.0, 0.5, 0.0, 1_047_576),
    ("gpt-4.1-mini", 0.4, 1.6, 0.1, 0.0, 1_047_576),
    ("gpt-4.1-nano", 0.1, 0.4, 0.025, 0.0, 1_047_576),
    ("gpt-4o", 2.5, 10.0, 1.25, 0.0, 128_000),
    ("gpt-4o-mini", 0.15, 0.6, 0.075, 0.0, 128_000),
    ("o3", 2.0, 8.0, 0.5, 0.0, 200_000),
    ("o4-mini", 1.1, 4.4, 0.275, 0.0, 200_000),
];

/// Model name → [`Price`], with the version of the built-in rows it started from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    pub version: String,
    pub models: BTreeMap<String, Price>,
}

impl Default for PriceTable {
    fn default() -> Self {
        Self::builtin()
    }
}

impl PriceTable {
    /// The table shipped with loki ([`PRICE_TABLE_VERSION`]).
    #[must_use]
    pub fn builtin() -> PriceTable {
        let models = BUILTIN
            .iter()
            .map(
                |&(name, input, output, cache_read, cache_write, context_window)| {
                    (
                        name.to_string(),
                        Price {
                            input,
                            output,
                            cache_read,
                            cache_write,
                            context_window,
                        },
                    )
                },
            )
            .collect();
        PriceTable {
            version: PRICE_TABLE_VERSION.to_string(),
            models,
        }
    }

    /// This table with `overrides` replacing or adding models; the version says it was changed.
    #[must_use]
    pub fn with_overrides(mut self, overrides: BTreeMap<String, Price>) -> PriceTable {
        if !overrides.is_empty() {
            self.version = format!("{}+overrides", self.version);
        }
        self.models.extend(overrides);
        self
    }

    /// This table with the models of a price file over it (`provider.prices`): TOML, or JSON when
    /// the name ends in `.json`, of `model = {input, output, cache_read, cache_write}` in USD per
    /// million tokens.
    pub fn with_file(self, path: &Path) -> Result<PriceTable, AgentError> {
        let text = std::fs::read_to_string(path).map_err(|e| AgentError::PricesUnreadable {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let parsed: Result<BTreeMap<String, Price>, String> =
            if path.extension().is_some_and(|x| x == "json") {
                serde_json::from_str(&text).map_err(|e| e.to_string())
            } else {
                toml::from_str(&text).map_err(|e| e.to_string())
            };
        let overrides = parsed.map_err(|reason| AgentError::PricesInvalid {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(self.with_overrides(overrides))
    }

    /// The price of `model`: an exact entry, else the entry of its undated family.
    #[must_use]
    pub fn price(&self, model: &str) -> Option<&Price> {
        self.models
            .get(model)
            .or_else(|| undated(model).and_then(|m| self.models.get(m)))
    }

    /// The cost of `usage` on `model`, `None` when the model has no price.
    #[must_use]
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        self.price(model).map(|p| p.cost(usage))
    }

    /// The context window of `model` in tokens ([`DEFAULT_CONTEXT_WINDOW`] when unknown).
    #[must_use]
    pub fn context_window(&self, model: &str) -> u64 {
        self.price(model)
            .map_or(DEFAULT_CONTEXT_WINDOW, |p| p.context_window)
    }
}

/// Dollars as printed everywhere (summary, `status`, `runs`, `ask`), so the printed cost is the
/// recorded one: cents from $1 up (`$2.50`), four decimals below, trailing zeros trimmed to cents
/// (`$0.0028`, `$0.42`), `<$0.0001` for a measured cost too small for that, and never a
/// negative zero (`-0.0`, the sum of no sessions, prints `$0.00`).
#[must_use]
pub fn usd(x: f64) -> String {
    // IEEE 754: -0.0 + 0.0 is +0.0, and every other value is unchanged.
    let x = x + 0.0;
    if x >= 1.0 {
        return format!("${x:.2}");
    }
    if x > 0.0 && x < 0.000_05 {
        return "<$0.0001".to_string();
    }
    let mut s = format!("{x:.4}");
    while s.ends_with('0') && s.len() > "0.00".len() {
        s.pop();
    }
    format!("${s}")
}

/// `model` without a trailing snapshot date (`-20250929`, `-2024-08-06`, `-latest`).
fn undated(model: &str) -> Option<&str> {
    if let Some(base) = model.strip_suffix("-latest") {
        return Some(base);
    }
    let (base, last) = model.rsplit_once('-')?;
    if last.len() == 8 && last.bytes().all(|b| b.is_ascii_digit()) {
        return Some(base);
    }
    // `-YYYY-MM-DD`: three numeric parts.
    let mut parts = model.rsplitn(4, '-');
    let (d, m, y) = (parts.next()?, parts.next()?, parts.next()?);
    let base = parts.next()?;
    let numeric = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(y, 4) && numeric(m, 2) && numeric(d, 2)).then_some(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_price_file_overrides_the_builtin_rows_and_a_bad_one_is_the_users_to_fix() {
        use loki_core::exit::{Classify as _, ExitClass};
        let d = tempfile::tempdir().unwrap();
        let toml_file = d.path().join("prices.toml");
        loki_core::fs::write_atomic(
            &toml_file,
            b"[my-model]\ninput = 1.0\noutput = 2.0\ncache_read = 0.5\ncache_write = 0.0\n",
        )
        .unwrap();
        let t = PriceTable::builtin().with_file(&toml_file).unwrap();
        assert_eq!(t.price("my-model").map(|p| p.output), Some(2.0));
        assert!(t.version.ends_with("+overrides"), "{}", t.version);
        assert!(t.price("gpt-4o").is_some());

        let json_file = d.path().join("prices.json");
        loki_core::fs::write_atomic(&json_file, b"{\"m\": {\"input\": 3.0}}").unwrap();
        let err = PriceTable::builtin().with_file(&json_file).unwrap_err();
        assert!(matches!(err, AgentError::PricesInvalid { .. }), "{err}");
        assert!(err.to_string().contains("USD per million tokens"), "{err}");
        assert_eq!(err.exit_class(), ExitClass::Usage);

        let missing = d.path().join("missing.toml");
        let err = PriceTable::builtin().with_file(&missing).unwrap_err();
        assert!(
            err.to_string().starts_with("provider.prices: cannot read"),
            "{err}"
        );
        assert_eq!(err.exit_class(), ExitClass::Usage);
    }

    fn usage(i: u64, o: u64, r: u64, w: u64) -> Usage {
        Usage {
            input_tokens: i,
            output_tokens: o,
            cache_read_tokens: r,
            cache_write_tokens: w,
        }
    }

    #[test]
    fn dollars_print_as_recorded_and_never_as_negative_zero() {
        let cases = [
            (2.5, "$2.50"),
            (12.345, "$12.35"),
            (0.42, "$0.42"),
            (0.0028, "$0.0028"),
            (0.002_800_000_000_000_000_4, "$0.0028"),
            (0.1234, "$0.1234"),
            (0.0, "$0.00"),
            (-0.0, "$0.00"),
            (0.000_01, "<$0.0001"),
        ];
        for (x, want) in cases {
            assert_eq!(usd(x), want, "{x}");
        }
        let none: [f64; 0] = [];
        assert_eq!(usd(none.iter().sum()), "$0.00");
    }

    #[test]
    fn sonnet_cost_sums_the_four_buckets() {
        let t = PriceTable::builtin();
        let c = t
            .cost(
                "claude-sonnet-4-5-20250929",
                &usage(1_000_000, 100_000, 2_000_000, 400_000),
            )
            .unwrap();
        // 3 + 1.5 + 0.6 + 1.5
        assert!((c - 6.6).abs() < 1e-9, "{c}");
    }

    #[test]
    fn dated_openai_models_use_their_family_and_unknown_models_have_no_cost() {
        let t = PriceTable::builtin();
        assert_eq!(t.price("gpt-4o-2024-08-06"), t.price("gpt-4o"));
        assert_ne!(t.price("gpt-4o-mini"), t.price("gpt-4o"));
        assert_eq!(t.cost("llama3.1:8b", &usage(10, 10, 0, 0)), None);
        assert_eq!(t.cost("gpt-4o-turbo", &usage(10, 10, 0, 0)), None);
        assert_eq!(t.context_window("llama3.1:8b"), DEFAULT_CONTEXT_WINDOW);
    }

    #[test]
    fn overrides_replace_and_add_models_and_mark_the_version() {
        let p = Price {
            input: 0.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
            context_window: 32_000,
        };
        let t = PriceTable::builtin().with_overrides(BTreeMap::from([
            ("llama3.1:8b".to_string(), p),
            ("gpt-4o".to_string(), p),
        ]));
        assert_eq!(t.cost("llama3.1:8b", &usage(10, 10, 0, 0)), Some(0.0));
        assert_eq!(t.cost("gpt-4o", &usage(10, 10, 0, 0)), Some(0.0));
        assert_eq!(t.version, format!("{PRICE_TABLE_VERSION}+overrides"));
    }
}
