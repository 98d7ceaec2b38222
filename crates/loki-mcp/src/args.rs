//! The input of every tool: one struct each, whose JSON Schema (schemars, from these doc
//! comments) is what `tools/list` shows. Unknown fields are refused, so a misspelt `apply` is an
//! error rather than a silent diagnosis. An optional field is described by its value's type
//! alone (`"type": "string"`, not required) rather than as nullable: the single-`type` dialects
//! some clients map tool schemas onto (Gemini's function declarations) reject type arrays.

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub provider: Option<String>,
    /// Model name for the provider [default: provider.model].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub model: Option<String>,
    /// Absolute path of a session file for the scripted provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub script: Option<String>,
}

/// `loki_status`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest` [default: latest].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub run: Option<String>,
}

/// `loki_verify`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyArgs {
    /// Absolute path of the git repository; needed when `target` is a run id or `latest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub base: Option<String>,
}

/// `loki_runs`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunsArgs {
    /// Absolute path of the git repository.
    pub repo: String,
    /// At most this many runs, newest first [default: 20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u32")]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub run: Option<String>,
    /// Ask the model for a patch, apply it with a backup and verify it by replaying the crash, in the background; only when exactly true [default: false, diagnose only].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub apply: Option<bool>,
    /// The model as PROVIDER/MODEL for `apply` [default: provider.name, provider.model].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub provider: Option<String>,
    /// Model for the follow-up build (as in loki_run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub model: Option<String>,
    /// Absolute path of a session file for the scripted provider (as in loki_run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub script: Option<String>,
}
