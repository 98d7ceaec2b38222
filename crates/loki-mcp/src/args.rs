//! The input of every tool: one struct each, whose JSON Schema (schemars, from these doc
//! comments) is what `tools/list` shows. Unknown fields are refused, so a misspelt `apply` is an
//! error rather than a silent diagnosis.

use rmcp::schemars;
use serde::Deserialize;

/// `loki_run`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunArgs {
    /// Absolute path of the git repository to build in (its working tree must be clean).
    pub repo: String,
    /// What to build, in plain words.
    pub task: String,
    /// Provider: scripted, openai, anthropic, claude, codex, aider, opencode or replay:<run-id> [default: provider.name, else auto].
    #[serde(default)]
    pub provider: Option<String>,
    /// Model name for the provider [default: provider.model].
    #[serde(default)]
    pub model: Option<String>,
    /// Absolute path of a session file for the scripted provider.
    #[serde(default)]
    pub script: Option<String>,
}

/// `loki_status`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest` [default: latest].
    #[serde(default)]
    pub run: Option<String>,
}

/// `loki_verify`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyArgs {
    /// Absolute path of the git repository; needed when `target` is a run id or `latest`.
    #[serde(default)]
    pub repo: Option<String>,
    /// A run id, `latest`, or the absolute path of a receipt.json or receipt.dsse.json.
    pub target: String,
}

/// `loki_seal_check`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SealCheckArgs {
    /// Absolute path of the git repository whose working tree is judged.
    pub repo: String,
    /// The git revision to compare against [default: HEAD].
    #[serde(default)]
    pub base: Option<String>,
}

/// `loki_runs`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunsArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// At most this many runs, newest first [default: 20].
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `loki_receipt`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReceiptArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// A run id or `latest`.
    pub run: String,
}

/// `loki_fix`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FixArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// An incident's run id or `latest` [default: the newest incident].
    #[serde(default)]
    pub run: Option<String>,
    /// Ask the model for a patch, apply it with a backup and verify it by replaying the crash, in the background; only when exactly true [default: false, diagnose only].
    #[serde(default)]
    pub apply: Option<bool>,
    /// The model as PROVIDER/MODEL for `apply` [default: provider.name, provider.model].
    #[serde(default)]
    pub model: Option<String>,
}

/// `loki_answer`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// The BLOCKED run's id.
    pub run: String,
    /// The answer to the run's question.
    pub text: String,
    /// Provider for the follow-up build (as in loki_run).
    #[serde(default)]
    pub provider: Option<String>,
    /// Model for the follow-up build (as in loki_run).
    #[serde(default)]
    pub model: Option<String>,
    /// Absolute path of a session file for the scripted provider (as in loki_run).
    #[serde(default)]
    pub script: Option<String>,
}
