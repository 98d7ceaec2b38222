//! One shape for `loki seal check`, shared by the CLI (`--json`) and the MCP tool
//! `loki_seal_check`, and one reading of the configuration into [`SealOptions`].
//!
//! # `seal check --json`
//!
//! ```text
//! {"base": sha, "verdict": "clean"|"declare"|"findings"|"cannot_judge", "clean": bool,
//!  "reasons": [text], "findings": [{kind, path, line?, test?, detail, advice}],
//!  "declare": [{kind, check, test, path, line?, was: [text], now: [text], detail}],
//!  "declared": [{kind, test, reason, was?, now?}],
//!  "facts": [{kind, check, test, detail}], "cannot_judge": [text],
//!  "comparison": {…}, "checks": [head results], "base_checks": [base results],
//!  "not_proven": [{what, why, prove}]}
//! ```
//!
//! `declare` lists the changes nobody declared (what exit 4 is about); `declared` the ones a
//! `--declared` file named, and the contradictions it declared.
//!
//! `advice` is always present on a finding (what the agent should do instead), so a reader of
//! the JSON needs no table of its own.

use std::path::PathBuf;
use std::time::Duration;

use loki_checks::RunOptions;
use loki_checks::judge::Verdict;
use loki_core::config::Config;
use loki_receipt::KeyEnv;
use serde_json::{Value, json};

use crate::session::{CheckReport, SealOptions};

/// Default of `seal.max_blocks`: consecutive blocks before the release valve opens.
pub const DEFAULT_MAX_BLOCKS: u64 = 5;

impl SealOptions {
    /// The options of a seal run from the configuration (`checks.timeout_s`,
    /// `checks.output_cap_bytes`, `seal.max_blocks`, `seal.expectation_changes`), logs under `log_dir`, the judge's runs
    /// fenced from each other through `confine_exe`'s `__confine` (loki's own binary).
    #[must_use]
    pub fn from_config(
        config: &Config,
        home: PathBuf,
        log_dir: PathBuf,
        confine_exe: Option<PathBuf>,
    ) -> SealOptions {
        let mut run = RunOptions::new(log_dir);
        if let Some(t) = config.uint("checks.timeout_s") {
            run.timeout = Duration::from_secs(t);
        }
        if let Some(cap) = config.uint("checks.output_cap_bytes") {
            run.output_cap = usize::try_from(cap).unwrap_or(usize::MAX);
        }
        run.confine_exe = confine_exe;
        let max_blocks = config.uint("seal.max_blocks").unwrap_or(DEFAULT_MAX_BLOCKS);
        SealOptions {
            home,
            run,
            max_blocks: u32::try_from(max_blocks).unwrap_or(u32::MAX),
            keys: KeyEnv::from_process(),
            expectation_changes: crate::declare::Mode::parse(
                config.str("seal.expectation_changes"),
            ),
        }
    }
}

impl CheckReport {
    /// The verdict, declarations counted.
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        self.applied.verdict
    }

    /// The report as `seal check --json` prints it (the module doc's shape).
    #[must_use]
    pub fn to_json(&self) -> Value {
        let j = &self.judged;
        let verdict = self.verdict();
        let findings: Vec<Value> = j
            .findings
            .iter()
            .map(|f| {
                let mut v = serde_json::to_value(f).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("advice".into(), f.advice().into());
                }
                v
            })
            .collect();
        let facts: Vec<Value> = j
            .facts
            .iter()
            .map(|f| json!({"kind": f.kind.as_str(), "check": f.check, "test": f.test, "detail": f.detail}))
            .collect();
        json!({
            "base": self.base,
            "verdict": verdict,
            "clean": verdict == Verdict::Clean,
            "reasons": self.judgement.unresolved(),
            "findings": findings,
            "declare": self.applied.undeclared,
            "declared": self.applied.declared,
            "facts": facts,
            "cannot_judge": j.cannot_judge,
            "comparison": j.comparison,
            "checks": j.head,
            "base_checks": j.base,
            "not_proven": self.not_proven,
        })
    }
}
