//! The one error type of the crate. Behaviour lives on it ([`AgentError::is_retryable`]) as an
//! exhaustive match, so a new variant forces a retry decision.

use std::path::PathBuf;

pub use crate::failure::{FailureKind, ProviderFailure};

/// Errors of providers and the agent loop. Tool failures are *not* here: they go back to the
/// model as tool results.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A model call failed (after its retries): the typed kind, URL and advice.
    #[error("{0}")]
    Model(ProviderFailure),

    #[error("{provider} needs {what}: {hint}")]
    MissingSetting {
        provider: &'static str,
        what: &'static str,
        hint: &'static str,
    },

    #[error(
        "unknown provider {name:?}: use one of auto, scripted, openai, anthropic, claude, codex, aider, opencode, replay:<run-id>"
    )]
    UnknownProvider { name: String },

    #[error("no provider is configured: {reason}")]
    NoProvider { reason: String },

    #[error("script {}: {message}", path.display())]
    Script { path: PathBuf, message: String },

    #[error("script {}: session {session:?} has no turn {turn} left (it has {turns}); add turns or end with the finish tool", path.display())]
    ScriptExhausted {
        path: PathBuf,
        session: String,
        turn: usize,
        turns: usize,
    },

    #[error("replay {}: {message}", path.display())]
    Replay { path: PathBuf, message: String },

    /// A CLI agent could not run or did not finish.
    #[error(transparent)]
    Client(#[from] loki_clients::ClientError),

    #[error("cannot append to the transcript {}: {source}", path.display())]
    Transcript {
        path: PathBuf,
        #[source]
        source: loki_core::CoreError,
    },

    #[error("a tool task failed to complete: {message}")]
    Task { message: String },

    #[error("provider.prices: cannot read {}: {reason}", path.display())]
    PricesUnreadable { path: PathBuf, reason: String },

    #[error(
        "provider.prices: {} is not a table of model = {{input, output, cache_read, cache_write}} in USD per million tokens: {reason}",
        path.display()
    )]
    PricesInvalid { path: PathBuf, reason: String },
}

impl AgentError {
    /// The provider failure this error is, if it is one.
    #[must_use]
    pub fn provider_failure(&self) -> Option<&ProviderFailure> {
        match self {
            AgentError::Model(f) => Some(f),
            _ => None,
        }
    }

    /// True when repeating the same request may succeed (rate limits, overload, transport and
    /// stream failures); false when something must change first (credentials, input, setup).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            AgentError::Model(f) => f.retryable,
            AgentError::MissingSetting { .. }
            | AgentError::UnknownProvider { .. }
            | AgentError::NoProvider { .. }
            | AgentError::Script { .. }
            | AgentError::ScriptExhausted { .. }
            | AgentError::Replay { .. }
            | AgentError::Client(_)
            | AgentError::Transcript { .. }
            | AgentError::Task { .. }
            | AgentError::PricesUnreadable { .. }
            | AgentError::PricesInvalid { .. } => false,
        }
    }
}

impl loki_core::exit::Classify for AgentError {
    /// The user's setup is what must change (a missing key, an unknown name, and any model call
    /// that failed: a key, a URL, a server to start or a model to pick): usage, the exit code of a
    /// build run that a provider failure ended too.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            AgentError::Model(_)
            | AgentError::MissingSetting { .. }
            | AgentError::UnknownProvider { .. }
            | AgentError::NoProvider { .. }
            | AgentError::Script { .. }
            | AgentError::Replay { .. }
            | AgentError::PricesUnreadable { .. }
            | AgentError::PricesInvalid { .. } => loki_core::exit::ExitClass::Usage,
            AgentError::ScriptExhausted { .. }
            | AgentError::Transcript { .. }
            | AgentError::Task { .. } => loki_core::exit::ExitClass::Failure,
            AgentError::Client(e) => e.exit_class(),
        }
    }
}

impl From<ProviderFailure> for AgentError {
    fn from(f: ProviderFailure) -> Self {
        AgentError::Model(f)
    }
}
