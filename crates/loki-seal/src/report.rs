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
//!  "not_proven": [{what, why, prove}],
//!  "receipt"?: {run_id, receipt_sha256, outcome, dir}}
//! ```
//!
//! `receipt` is there for a sealed check only ([`crate::check_sealed`], `--receipt`): the run
//! whose signed receipt records this judgement.
//!
//! `declare` lists the changes nobody declared (what exit 4 is about); `declared` the ones a
//! `--declared` file named, and the contradictions it declared.
//!
//! `advice` is always present on a finding (what the agent should do instead), so a reader of
//! the JSON needs no table of its own.
//!
//! # Reading it back ([`Report`])
//!
//! A saved report (`loki ci comment`, `loki ci post`) is read into [`Report`]: the same
//! vocabulary, typed (the verdict, findings, declarations, suites and NOT PROVEN entries); the
//! parts it does not render (`facts`, `comparison`, `base_checks`) are left out. A file that is
//! not such a report is an error naming the field that did not read.

use std::path::PathBuf;
use std::time::Duration;

use loki_checks::judge::{CannotJudge, Declarable, Verdict};
use loki_core::config::Config;
use loki_protocol::{Finding, Outcome};
use loki_receipt::schema::Declaration;
use loki_receipt::{KeyEnv, NotProven};
use loki_runner::{CheckResult, RunOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::check::{CheckReceipt, CheckReport};
use crate::session::SealOptions;

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
        let mut out = json!({
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
        });
        if let (Some(r), Some(o)) = (&self.receipt, out.as_object_mut()) {
            o.insert(
                "receipt".into(),
                serde_json::to_value(r).unwrap_or_default(),
            );
        }
        out
    }
}

/// A `seal check --json` report read back (the module doc's shape).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// The commit judged against.
    pub base: String,
    pub verdict: Verdict,
    /// Why the change is not clean, one line each (findings, then undeclared changes).
    #[serde(default)]
    pub reasons: Vec<String>,
    #[serde(default)]
    pub findings: Vec<ReportFinding>,
    /// Changes nobody declared.
    #[serde(default)]
    pub declare: Vec<Declarable>,
    /// What a `--declared` file declared.
    #[serde(default)]
    pub declared: Vec<Declaration>,
    #[serde(default)]
    pub cannot_judge: Vec<CannotJudge>,
    /// The suites on the working tree.
    #[serde(default)]
    pub checks: Vec<CheckResult>,
    #[serde(default)]
    pub not_proven: Vec<NotProven>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<ReportReceipt>,
}

/// A finding with what to do instead.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReportFinding {
    #[serde(flatten)]
    pub finding: Finding,
    pub advice: String,
}

/// The receipt of a sealed check, as the report names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportReceipt {
    pub run_id: String,
    pub receipt_sha256: String,
    pub outcome: Outcome,
    pub dir: PathBuf,
}

impl From<&CheckReceipt> for ReportReceipt {
    fn from(r: &CheckReceipt) -> Self {
        ReportReceipt {
            run_id: r.run_id.clone(),
            receipt_sha256: r.receipt_sha256.clone(),
            outcome: r.outcome,
            dir: r.dir.clone(),
        }
    }
}

impl Report {
    /// Reads a report from `seal check --json`'s text.
    pub fn parse(text: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(text)
    }
}
