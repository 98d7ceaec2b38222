//! How a build run ended, as the engine hands it to whoever prints it: the summary's facts
//! (`loki_term::summary` renders them as text and as the `--json` object) and the run's exit code.

use loki_protocol::outcome::{ExitCode, Outcome};
use serde::Serialize;

/// How a run ended, as the CLI prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuildReport {
    pub run_id: String,
    pub outcome: Outcome,
    /// `None` unless interrupted (then the exit code is 130 whatever the outcome).
    #[serde(skip)]
    pub interrupted: bool,
    pub exit_code: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub receipt_sha256: String,
    pub receipt_path: String,
    pub signed_keyid: String,
    pub not_proven: Vec<loki_receipt::NotProven>,
    pub cost_usd: Option<f64>,
    pub provider: String,
    pub tokens: u64,
    pub wall_s: f64,
    pub stages: Vec<(loki_protocol::Stage, f64)>,
    pub branch: String,
    pub worktree: String,
    pub head_sha: String,
    pub base_sha: String,
    pub changed_files: Vec<String>,
    /// Seconds spent in agent sessions and in test processes (for the harness benchmark).
    pub agent_s: f64,
    pub checks_s: f64,
    /// The review council, one entry per reviewer (`security pass`, `tests block (file:line
    /// title)`); empty when no council was held.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub council: Vec<String>,
}

impl BuildReport {
    /// The exit code for the outcome: 130 when interrupted, 2 when a failed model call ended a
    /// run that did not succeed ([`loki_protocol::outcome::PROVIDER_FAILURE`]).
    #[must_use]
    pub fn exit(outcome: Outcome, interrupted: bool, provider_failed: bool) -> ExitCode {
        if interrupted {
            ExitCode::Interrupted
        } else if provider_failed && !outcome.is_success() {
            loki_protocol::outcome::PROVIDER_FAILURE
        } else {
            outcome.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_failure_exits_2_unless_interrupted() {
        assert_eq!(BuildReport::exit(Outcome::Failed, false, true).code(), 2);
        assert_eq!(BuildReport::exit(Outcome::Failed, true, true).code(), 130);
        assert_eq!(BuildReport::exit(Outcome::Failed, false, false).code(), 1);
        assert_eq!(BuildReport::exit(Outcome::Verified, false, true).code(), 0);
    }
}
