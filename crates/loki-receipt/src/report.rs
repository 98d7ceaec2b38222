//! What `loki verify` concluded, as data (serialised for `--json`) and as text for people.

use std::fmt::Write as _;

use loki_protocol::outcome::{Outcome, VerifyVerdict};
use serde::{Deserialize, Serialize};

use crate::keys::SignerRole;

/// The checks of a verification, cheapest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepName {
    Parse,
    ReceiptHash,
    EventLog,
    Signature,
    Statement,
    /// `receipt.md`, the receipt people read (and `loki pr` publishes): the exact bytes the
    /// signed statement binds.
    #[serde(rename = "receipt_md")]
    Markdown,
    Outcome,
    /// The evidence files the receipt binds (screenshots). Only in the report of a receipt that
    /// lists some, after the event log: not one of [`StepName::ALL`].
    Screens,
}

impl StepName {
    /// Every step every verification reports, in the order they run.
    pub const ALL: [StepName; 7] = [
        StepName::Parse,
        StepName::ReceiptHash,
        StepName::EventLog,
        StepName::Signature,
        StepName::Statement,
        StepName::Markdown,
        StepName::Outcome,
    ];

    /// As printed.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            StepName::Parse => "parse",
            StepName::ReceiptHash => "receipt hash",
            StepName::EventLog => "event log",
            StepName::Signature => "signature",
            StepName::Statement => "statement",
            StepName::Markdown => "receipt.md",
            StepName::Outcome => "outcome",
            StepName::Screens => "screens",
        }
    }
}

/// How one step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Pass,
    Fail,
    /// Not run: an earlier step decided, or there was nothing to check (said in the detail).
    Skip,
}

impl StepStatus {
    /// As printed.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            StepStatus::Pass => "pass",
            StepStatus::Fail => "FAIL",
            StepStatus::Skip => "skip",
        }
    }
}

/// One step of a verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub name: StepName,
    pub status: StepStatus,
    pub detail: String,
}

/// The result of [`crate::verify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyReport {
    pub verdict: VerifyVerdict,
    /// The `loki verify` exit status for the verdict.
    pub exit_code: u8,
    /// The first reason the verdict is not VERIFIED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_sha256: Option<String>,
    /// The keyid of the signature that verified (or that failed or was unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer: Option<SignerRole>,
    /// The run's outcome as the receipt records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    pub steps: Vec<Step>,
}

impl VerifyReport {
    /// The report for "there is no run to verify" (exit 66).
    #[must_use]
    pub fn no_runs(reason: impl Into<String>) -> VerifyReport {
        VerifyReport {
            verdict: VerifyVerdict::NoRuns,
            exit_code: VerifyVerdict::NoRuns.exit_status(),
            reason: Some(reason.into()),
            run_id: None,
            receipt_sha256: None,
            keyid: None,
            signer: None,
            outcome: None,
            steps: Vec::new(),
        }
    }
}

/// The human output of `loki verify`: labels padded to 12 columns, the reason only when the exit
/// code is non-zero, then one line per step.
#[must_use]
pub fn render_human(r: &VerifyReport) -> String {
    let mut s = String::new();
    let mut line = |label: &str, value: &str| {
        let _ = writeln!(s, "{:<12}{value}", format!("{label}:"));
    };
    line("Verify", r.verdict.as_str());
    if r.exit_code != 0
        && let Some(reason) = &r.reason
    {
        line("Reason", reason);
    }
    if let Some(run) = &r.run_id {
        line("Run", run);
    }
    // The recorded outcome is a claim of the receipt: shown only once the receipt proved intact.
    if matches!(
        r.verdict,
        VerifyVerdict::Verified | VerifyVerdict::NotVerified
    ) && let Some(outcome) = r.outcome
    {
        line("Outcome", outcome.as_str());
    }
    if let Some(sha) = &r.receipt_sha256 {
        line("Receipt", &format!("sha256:{sha}"));
    }
    if let Some(keyid) = &r.keyid {
        let role = r
            .signer
            .map(|s| format!(" ({})", s.describe()))
            .unwrap_or_default();
        line("Key", &format!("{keyid}{role}"));
    }
    if !r.steps.is_empty() {
        s.push_str("Steps:\n");
        for step in &r.steps {
            let _ = writeln!(
                s,
                "  {:<4}  {:<12}  {}",
                step.status.label(),
                step.name.label(),
                step.detail
            );
        }
    }
    s
}
