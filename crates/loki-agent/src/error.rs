//! The one error type of the crate. Behaviour lives on it ([`AgentError::is_retryable`]) as an
//! exhaustive match, so a new variant forces a retry decision.

use std::path::PathBuf;
use std::time::Duration;

/// Errors of providers and the agent loop. Tool failures are *not* here: they go back to the
/// model as tool results.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(
        "{provider}: authentication failed: set {variable} (or {config_key}); the server answered HTTP {status}{}",
        body_note(body)
    )]
    Auth {
        provider: &'static str,
        status: u16,
        variable: &'static str,
        config_key: &'static str,
        body: String,
    },

    #[error("{provider}: the conversation is longer than the model's context window: {message}")]
    ContextLength {
        provider: &'static str,
        message: String,
    },

    #[error(
        "{provider}: rate limited (HTTP 429) after {attempts} attempts; wait and try again{}",
        body_note(body)
    )]
    RateLimited {
        provider: &'static str,
        attempts: u32,
        body: String,
    },

    #[error(
        "{provider}: server error (HTTP {status}) after {attempts} attempts{}",
        body_note(body)
    )]
    Server {
        provider: &'static str,
        status: u16,
        attempts: u32,
        body: String,
    },

    #[error(
        "{provider}: the request was refused (HTTP {status}); it will not be retried{}",
        body_note(body)
    )]
    Rejected {
        provider: &'static str,
        status: u16,
        body: String,
    },

    #[error("{provider}: cannot reach {url} after {attempts} attempts: {message}")]
    Transport {
        provider: &'static str,
        url: String,
        attempts: u32,
        message: String,
    },

    #[error("{provider}: the response stalled: nothing arrived for {}s (idle timeout); retry, or raise the idle timeout for slow local models", idle.as_secs_f64())]
    StreamIdle {
        provider: &'static str,
        idle: Duration,
    },

    #[error("{provider}: the response stream closed before the reply was complete")]
    StreamClosed { provider: &'static str },

    #[error(
        "{provider}: the reply could not be understood: {message}{}",
        body_note(body)
    )]
    BadResponse {
        provider: &'static str,
        message: String,
        body: String,
    },

    #[error("{provider}: the model reported an error in its stream: {message}")]
    StreamError {
        provider: &'static str,
        message: String,
        retryable: bool,
    },

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

    #[error(
        "{agent} is not installed (not found on PATH); install it with `{install}` or choose another provider"
    )]
    CliNotInstalled {
        agent: &'static str,
        install: &'static str,
    },

    #[error("{agent} did not finish within {}s and was killed with its process group; output tail:\n{tail}", timeout.as_secs())]
    CliTimeout {
        agent: &'static str,
        timeout: Duration,
        tail: String,
    },

    #[error("{agent} exited with code {code} ({command}); output tail:\n{tail}")]
    CliFailed {
        agent: &'static str,
        command: String,
        code: i32,
        tail: String,
    },

    #[error("cannot run {agent}: {source}")]
    Process {
        agent: &'static str,
        #[source]
        source: loki_core::process::ProcessError,
    },

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

fn body_note(body: &str) -> String {
    if body.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", crate::context::clip(body.trim(), ERROR_BODY_CHARS))
    }
}

/// Characters of a server's error body kept in an error message: enough for its explanation.
const ERROR_BODY_CHARS: usize = 600;

impl AgentError {
    /// True when repeating the same request may succeed (rate limits, overload, transport and
    /// stream failures); false when something must change first (credentials, input, setup).
    #[must_use]
    pub fn is_retryable(&self) -> bool {
        match self {
            AgentError::RateLimited { .. }
            | AgentError::Server { .. }
            | AgentError::Transport { .. }
            | AgentError::StreamIdle { .. }
            | AgentError::StreamClosed { .. } => true,
            AgentError::StreamError { retryable, .. } => *retryable,
            AgentError::Auth { .. }
            | AgentError::ContextLength { .. }
            | AgentError::Rejected { .. }
            | AgentError::BadResponse { .. }
            | AgentError::MissingSetting { .. }
            | AgentError::UnknownProvider { .. }
            | AgentError::NoProvider { .. }
            | AgentError::Script { .. }
            | AgentError::ScriptExhausted { .. }
            | AgentError::Replay { .. }
            | AgentError::CliNotInstalled { .. }
            | AgentError::CliTimeout { .. }
            | AgentError::CliFailed { .. }
            | AgentError::Process { .. }
            | AgentError::Transcript { .. }
            | AgentError::Task { .. }
            | AgentError::PricesUnreadable { .. }
            | AgentError::PricesInvalid { .. } => false,
        }
    }
}

impl loki_core::exit::Classify for AgentError {
    /// The user's configuration is what must change (a missing key, an unknown name): usage.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            AgentError::Auth { .. }
            | AgentError::MissingSetting { .. }
            | AgentError::UnknownProvider { .. }
            | AgentError::NoProvider { .. }
            | AgentError::Script { .. }
            | AgentError::Replay { .. }
            | AgentError::CliNotInstalled { .. }
            | AgentError::PricesUnreadable { .. }
            | AgentError::PricesInvalid { .. } => loki_core::exit::ExitClass::Usage,
            AgentError::ContextLength { .. }
            | AgentError::RateLimited { .. }
            | AgentError::Server { .. }
            | AgentError::Rejected { .. }
            | AgentError::Transport { .. }
            | AgentError::StreamIdle { .. }
            | AgentError::StreamClosed { .. }
            | AgentError::BadResponse { .. }
            | AgentError::StreamError { .. }
            | AgentError::ScriptExhausted { .. }
            | AgentError::CliTimeout { .. }
            | AgentError::CliFailed { .. }
            | AgentError::Process { .. }
            | AgentError::Transcript { .. }
            | AgentError::Task { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}
