//! A model call that failed, as one typed value: what kind of failure, at which URL, after how
//! many attempts, and what to do about it.
//!
//! Every failure of an HTTP provider is a [`ProviderFailure`] (inside
//! [`crate::AgentError::Model`]); its [`FailureKind`] decides whether the call is retried
//! ([`ProviderFailure::retryable`]), and the engine ends a run at the first one with
//! [`ProviderFailure::reason`] on the `Reason:` line. The wording names the URL and the setting
//! to change, because the user's next step is nearly always a key, a URL or a server to start.
//!
//! Kinds: `auth` (HTTP 401/403), `unreachable` (no connection, or it dropped), `timeout` (nothing
//! arrived within the idle timeout), `bad_response` (not the wire format: usually a base URL
//! that points at something else), `context_length`, `rate_limited` (429), `server_error` (5xx,
//! an overloaded stream) and `refused` (any other 4xx, such as an unknown model).

use std::fmt;

/// What kind of failure a model call ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    Auth,
    Unreachable,
    Timeout,
    BadResponse,
    ContextLength,
    RateLimited,
    ServerError,
    Refused,
}

impl FailureKind {
    /// The name recorded in events (`auth`, `unreachable`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Auth => "auth",
            FailureKind::Unreachable => "unreachable",
            FailureKind::Timeout => "timeout",
            FailureKind::BadResponse => "bad_response",
            FailureKind::ContextLength => "context_length",
            FailureKind::RateLimited => "rate_limited",
            FailureKind::ServerError => "server_error",
            FailureKind::Refused => "refused",
        }
    }
}

/// Characters of a server's own explanation kept in a message: enough for its sentence, not a
/// whole HTML error page.
const DETAIL_CHARS: usize = 300;

/// One failed model call (after its retries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFailure {
    /// `openai`, `anthropic`.
    pub provider: &'static str,
    pub kind: FailureKind,
    /// The endpoint called; empty until the HTTP layer fills it in ([`ProviderFailure::at`]).
    pub url: String,
    pub status: Option<u16>,
    /// Attempts made, the first included.
    pub attempts: u32,
    /// The server's message, the transport's cause, or what did not parse.
    pub detail: String,
    /// The credential's variable and configuration key, for the advice of an `auth` failure.
    pub key_variable: &'static str,
    pub key_config: &'static str,
    /// Whether the same request may succeed if sent again.
    pub retryable: bool,
}

impl ProviderFailure {
    /// A failure of `kind` with `detail`, at no URL yet, after one attempt; retryable as its kind
    /// usually is (server errors, rate limits, timeouts and dropped connections are).
    #[must_use]
    pub fn new(provider: &'static str, kind: FailureKind, detail: impl Into<String>) -> Self {
        let (key_variable, key_config) = match provider {
            "anthropic" => ("ANTHROPIC_API_KEY", "anthropic.api_key"),
            _ => ("OPENAI_API_KEY", "openai.api_key"),
        };
        ProviderFailure {
            provider,
            kind,
            url: String::new(),
            status: None,
            attempts: 1,
            detail: detail.into(),
            key_variable,
            key_config,
            retryable: matches!(
                kind,
                FailureKind::Unreachable
                    | FailureKind::Timeout
                    | FailureKind::RateLimited
                    | FailureKind::ServerError
            ),
        }
    }

    #[must_use]
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    #[must_use]
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same failure at `url` after `attempts` attempts (the URL is kept if already set).
    #[must_use]
    pub fn at(mut self, url: &str, attempts: u32) -> Self {
        if self.url.is_empty() {
            self.url = url.to_string();
        }
        self.attempts = attempts;
        self
    }

    fn status_at(&self) -> String {
        match (self.status, self.url.is_empty()) {
            (Some(s), false) => format!("HTTP {s} from {}", self.url),
            (Some(s), true) => format!("HTTP {s}"),
            (None, false) => format!("from {}", self.url),
            (None, true) => String::new(),
        }
    }

    fn attempts_note(&self) -> String {
        match self.attempts {
            0 | 1 => String::new(),
            n => format!(" after {n} attempts"),
        }
    }

    fn detail_clipped(&self) -> String {
        crate::context::clip(self.detail.trim(), DETAIL_CHARS)
    }

    /// What failed and what to do, without the provider's name or the server's whole message:
    /// the `Reason:` line's text after `model: `.
    #[must_use]
    pub fn headline(&self) -> String {
        let at = self.status_at();
        let tries = self.attempts_note();
        let detail = self.detail_clipped();
        let paren = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!(" ({s})")
            }
        };
        match self.kind {
            FailureKind::Auth => format!(
                "authentication failed{}: check {} (or {})",
                paren(&at),
                self.key_variable,
                self.key_config
            ),
            FailureKind::Unreachable => format!(
                "cannot reach {}{}{tries}: is the model server running? check {}.base_url",
                or_model(&self.url),
                paren(&detail),
                self.provider
            ),
            FailureKind::Timeout => format!(
                "no reply from {} within the idle timeout{}{tries}: raise provider.idle_timeout_s for a slow model, or check the server",
                or_model(&self.url),
                paren(&detail)
            ),
            FailureKind::BadResponse => format!(
                "the reply {}could not be understood{}{tries}: check that {}.base_url points at {}",
                if self.url.is_empty() {
                    String::new()
                } else {
                    format!("from {} ", self.url)
                },
                paren(&detail),
                self.provider,
                api_of(self.provider)
            ),
            FailureKind::ContextLength => format!(
                "the conversation is longer than the model's context window{}: use a model with a larger window{}",
                paren(&detail),
                if at.is_empty() {
                    String::new()
                } else {
                    format!(" ({at})")
                }
            ),
            FailureKind::RateLimited => {
                format!("rate limited{}{tries}: wait and try again", paren(&at))
            }
            FailureKind::ServerError => match self.status {
                Some(_) => format!("server error{}{tries}", paren(&at)),
                None => format!(
                    "the model reported an error{}{tries}{}",
                    if self.url.is_empty() {
                        String::new()
                    } else {
                        format!(" in its reply from {}", self.url)
                    },
                    if detail.is_empty() {
                        String::new()
                    } else {
                        format!(": {detail}")
                    }
                ),
            },
            FailureKind::Refused => format!(
                "the request was refused{}; it was not retried{}",
                paren(&at),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(": {detail}")
                }
            ),
        }
    }

    /// The `Reason:` line of a run this failure ended.
    #[must_use]
    pub fn reason(&self) -> String {
        format!("model: {}", self.headline())
    }
}

fn or_model(url: &str) -> &str {
    if url.is_empty() { "the model" } else { url }
}

fn api_of(provider: &str) -> &'static str {
    match provider {
        "anthropic" => "the Anthropic Messages API (the root, without /v1)",
        _ => "an OpenAI-compatible Chat Completions API (usually ending in /v1)",
    }
}

impl fmt::Display for ProviderFailure {
    /// `<provider>: <headline>`, plus the server's own words for the statuses whose headline
    /// does not carry them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.provider, self.headline())?;
        let said = matches!(self.kind, FailureKind::Auth | FailureKind::RateLimited)
            || (self.kind == FailureKind::ServerError && self.status.is_some());
        let detail = self.detail_clipped();
        if said && !detail.is_empty() {
            write!(f, "; the server said: {detail}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_as_a_reason_with_its_next_step() {
        let url = "http://127.0.0.1:9/v1/chat/completions";
        let lines: Vec<String> = [
            ProviderFailure::new("anthropic", FailureKind::Auth, "invalid x-api-key")
                .with_status(401)
                .at("http://127.0.0.1:9/v1/messages", 1),
            ProviderFailure::new(
                "openai",
                FailureKind::Unreachable,
                "Connection refused (os error 111)",
            )
            .at(url, 1),
            ProviderFailure::new("openai", FailureKind::Timeout, "300s").at(url, 2),
            ProviderFailure::new(
                "openai",
                FailureKind::BadResponse,
                "the body is not JSON: expected value at line 1 column 1",
            )
            .at(url, 1),
            ProviderFailure::new(
                "openai",
                FailureKind::ContextLength,
                "maximum context length is 8192 tokens",
            )
            .with_status(400)
            .at(url, 1),
            ProviderFailure::new("openai", FailureKind::RateLimited, "slow down")
                .with_status(429)
                .at(url, 3),
            ProviderFailure::new("openai", FailureKind::ServerError, "boom")
                .with_status(500)
                .at(url, 3),
            ProviderFailure::new(
                "anthropic",
                FailureKind::ServerError,
                "overloaded_error: Overloaded",
            ),
            ProviderFailure::new("openai", FailureKind::Refused, "model 'llama9' not found")
                .with_status(404)
                .at(url, 1),
        ]
        .iter()
        .flat_map(|f| [f.reason(), f.to_string()])
        .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn retries_follow_the_kind() {
        let f = |k| ProviderFailure::new("openai", k, "");
        assert!(!f(FailureKind::Auth).retryable);
        assert!(!f(FailureKind::BadResponse).retryable);
        assert!(!f(FailureKind::Refused).retryable);
        assert!(!f(FailureKind::ContextLength).retryable);
        assert!(f(FailureKind::ServerError).retryable);
        assert!(f(FailureKind::Unreachable).retryable);
        assert!(!f(FailureKind::Unreachable).with_retryable(false).retryable);
    }
}
