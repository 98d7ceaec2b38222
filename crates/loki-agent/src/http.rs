//! The one HTTP path of the OpenAI and Anthropic providers: [`HttpProvider`] sends a request,
//! reads the body (JSON or SSE) with an idle timeout, classifies failures into a
//! [`ProviderFailure`] and retries. Each wire format is a [`Wire`]: its names, how to build the
//! URL, headers and body, and how to read a reply.
//!
//! Retry policy (after Codex's `RetryOn`): 429, 5xx, dropped connections, timeouts, truncated
//! streams and errors the model reports in its stream as transient are retried, bounded twice:
//! at most [`HttpOptions::max_retries`] retries, and no retry whose wait would end after
//! [`HttpOptions::retry_budget`] since the first attempt. The wait is `backoff_base · 2^(n-1)` with
//! ±10% jitter, or the server's `Retry-After` (seconds or HTTP-date) / `retry-after-ms`, never
//! longer than [`HttpOptions::retry_after_cap`]. A refused connection is not retried (nothing
//! listens; waiting rarely changes that), nor is any other 4xx: 401/403 is an `auth` failure
//! naming the variable to set, a context-length refusal its own kind, the rest `refused`. Every
//! retry is an `info` event (`loki -v` shows it) with the attempt, the wait and the cause.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::error::AgentError;
use crate::failure::{FailureKind, ProviderFailure};
use crate::message::{Request, Response};
use crate::provider::{BoxFuture, Provider};
use crate::sse::{SseEvent, SseParser};

/// Default idle timeout: Codex's stream idle timeout. A reasoning model may think for minutes
/// before its first token, but silence this long on an open stream means it is stuck.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// Default connect timeout: a reachable server accepts in well under this.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default retries after the first attempt: three attempts in all.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// Default time within which every retry of one call must start: a run whose model is down
/// learns it in seconds, not minutes.
pub const DEFAULT_RETRY_BUDGET: Duration = Duration::from_secs(20);
/// Default first backoff step.
pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_secs(1);
/// Longest wait honoured from `Retry-After`: a server asking for more is treated as asking for
/// this, so one run cannot sleep for an hour.
pub const DEFAULT_RETRY_AFTER_CAP: Duration = Duration::from_secs(60);
/// Largest response body read: model replies are kilobytes; this bounds a misbehaving server.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Jitter applied to each backoff step, in percent either way.
const JITTER_PERCENT: u64 = 10;
/// Characters of a body that did not parse quoted in the failure: enough to recognise an HTML
/// page or a proxy's message.
const QUOTED_BODY_CHARS: usize = 120;

/// Network behaviour of the HTTP providers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest silence on an open response before it counts as stalled (a `timeout` failure).
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    pub max_retries: u32,
    /// No retry starts later than this after the first attempt.
    pub retry_budget: Duration,
    pub backoff_base: Duration,
    pub retry_after_cap: Duration,
    /// Ask for an SSE stream (the default); replies in either form are understood.
    pub stream: bool,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
            retry_budget: DEFAULT_RETRY_BUDGET,
            backoff_base: DEFAULT_BACKOFF_BASE,
            retry_after_cap: DEFAULT_RETRY_AFTER_CAP,
            stream: true,
        }
    }
}

/// One wire format: its names and how to speak it (pure functions, so [`HttpProvider`] is the
/// only code that touches the network).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wire {
    pub provider: &'static str,
    /// The endpoint under the configured base URL (`/chat/completions`, `/v1/messages`).
    pub path: &'static str,
    /// Headers carrying the key (none when it is empty).
    pub auth: fn(&str) -> Vec<(&'static str, String)>,
    /// The request body: `(model, request, stream, base_url)`.
    pub body: fn(&str, &Request, bool, &str) -> Value,
    /// Which SSE event ends the stream.
    pub done: fn(&SseEvent) -> bool,
    pub parse_json: fn(&Value, &str) -> Result<Response, AgentError>,
    pub parse_events: fn(&[SseEvent], &str) -> Result<Response, AgentError>,
}

/// A model behind HTTP in one [`Wire`] format.
#[derive(Debug, Clone)]
pub struct HttpProvider {
    wire: Wire,
    base_url: String,
    url: String,
    api_key: String,
    model: String,
    opts: HttpOptions,
    client: reqwest::Client,
}

impl HttpProvider {
    pub(crate) fn new(
        wire: Wire,
        base_url: &str,
        api_key: &str,
        model: &str,
        opts: HttpOptions,
    ) -> HttpProvider {
        let base_url = base_url.trim_end_matches('/').to_string();
        HttpProvider {
            url: format!("{base_url}{}", wire.path),
            base_url,
            wire,
            api_key: api_key.to_string(),
            model: model.to_string(),
            client: client(&opts),
            opts,
        }
    }

    /// The endpoint every call goes to.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// One call with its retries (see the module doc).
    async fn call(&self, req: &Request) -> Result<Response, AgentError> {
        let body = (self.wire.body)(&self.model, req, self.opts.stream, &self.base_url);
        let bytes = serde_json::to_vec(&body).map_err(|e| {
            ProviderFailure::new(
                self.wire.provider,
                FailureKind::BadResponse,
                format!("cannot encode the request: {e}"),
            )
            .with_retryable(false)
            .at(&self.url, 0)
        })?;
        let started = Instant::now();
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let result = match self.once(&bytes).await {
                Ok(Body::Json(v)) => (self.wire.parse_json)(&v, &self.model).map_err(Failure::from),
                Ok(Body::Events(events)) => {
                    (self.wire.parse_events)(&events, &self.model).map_err(Failure::from)
                }
                Err(f) => Err(f),
            };
            let f = match result {
                Ok(r) => return Ok(r),
                Err(f) => f,
            };
            let error = match f.error {
                AgentError::Model(m) => m.at(&self.url, attempt),
                other => return Err(other),
            };
            let wait = wait_before_retry(&self.opts, attempt, f.retry_after);
            let in_budget = started.elapsed() + wait <= self.opts.retry_budget;
            if !(error.retryable && attempt <= self.opts.max_retries && in_budget) {
                if error.retryable && attempt > 1 {
                    tracing::info!(
                        provider = self.wire.provider,
                        url = %self.url,
                        attempts = attempt,
                        elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                        "model call failed; giving up: {error}"
                    );
                }
                return Err(error.into());
            }
            tracing::info!(
                provider = self.wire.provider,
                url = %self.url,
                attempt,
                wait_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                kind = error.kind.as_str(),
                "model call failed; retrying: {error}"
            );
            tokio::time::sleep(wait).await;
        }
    }

    async fn once(&self, body: &[u8]) -> Result<Body, Failure> {
        let provider = self.wire.provider;
        let mut req = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body.to_vec());
        for (k, v) in (self.wire.auth)(&self.api_key) {
            req = req.header(k, v);
        }
        let idle = self.opts.idle_timeout;
        let timeout = || {
            ProviderFailure::new(
                provider,
                FailureKind::Timeout,
                format!("{}s", idle.as_secs_f64()),
            )
        };
        let transport = |e: &reqwest::Error| {
            // Nothing listening: a retry a second later would find nothing either.
            let refused = e.is_connect();
            ProviderFailure::new(provider, FailureKind::Unreachable, root_cause(e))
                .with_retryable(!refused)
        };
        let mut resp = tokio::time::timeout(idle, req.send())
            .await
            .map_err(|_| timeout())?
            .map_err(|e| transport(&e))?;
        let status = resp.status().as_u16();
        let retry_after = retry_after(resp.headers(), self.opts.retry_after_cap);
        let is_sse = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let mut raw = Vec::new();
        let mut parser = SseParser::new();
        let mut events = Vec::new();
        loop {
            let chunk = tokio::time::timeout(idle, resp.chunk())
                .await
                .map_err(|_| timeout())?;
            let chunk = match chunk {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) => {
                    let mut f = transport(&e).with_retryable(true);
                    f.detail = format!("the connection dropped mid-reply: {}", f.detail);
                    return Err(f.into());
                }
            };
            if is_sse && status < 300 {
                let new = parser.push(&chunk);
                let finished = new.iter().any(self.wire.done);
                events.extend(new);
                if finished {
                    return Ok(Body::Events(events));
                }
            } else {
                if raw.len() + chunk.len() > MAX_BODY_BYTES {
                    return Err(ProviderFailure::new(
                        provider,
                        FailureKind::BadResponse,
                        format!("the response is larger than {MAX_BODY_BYTES} bytes"),
                    )
                    .into());
                }
                raw.extend_from_slice(&chunk);
            }
        }
        if status >= 300 {
            let text = String::from_utf8_lossy(&raw).into_owned();
            return Err(Failure {
                error: classify(provider, status, &text).into(),
                retry_after,
            });
        }
        if is_sse {
            events.extend(parser.finish());
            // The stream ended without its final event: the reply may be cut short.
            if !events.iter().any(self.wire.done) {
                return Err(ProviderFailure::new(
                    provider,
                    FailureKind::BadResponse,
                    "the stream closed before the reply was complete",
                )
                .with_retryable(true)
                .into());
            }
            return Ok(Body::Events(events));
        }
        serde_json::from_slice(&raw)
            .map(Body::Json)
            .map_err(|e| not_json(provider, &raw, &e).into())
    }
}

/// The failure of a whole non-streamed reply that is not JSON (`e`): it says how it begins.
fn not_json(provider: &'static str, raw: &[u8], e: &serde_json::Error) -> ProviderFailure {
    let text = String::from_utf8_lossy(raw);
    let quoted = crate::context::clip(text.trim(), QUOTED_BODY_CHARS);
    ProviderFailure::new(
        provider,
        FailureKind::BadResponse,
        if quoted.is_empty() {
            format!("the body is not JSON: {e}; it is empty")
        } else {
            format!("the body is not JSON: {e}; it begins {quoted:?}")
        },
    )
}

impl Provider for HttpProvider {
    fn name(&self) -> &'static str {
        self.wire.provider
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, req: &'a Request) -> BoxFuture<'a, Result<Response, AgentError>> {
        Box::pin(self.call(req))
    }
}

/// A failed attempt: the error and the server's requested wait, if any.
#[derive(Debug)]
struct Failure {
    error: AgentError,
    retry_after: Option<Duration>,
}

impl From<AgentError> for Failure {
    fn from(error: AgentError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

impl From<ProviderFailure> for Failure {
    fn from(f: ProviderFailure) -> Self {
        AgentError::Model(f).into()
    }
}

/// A successful response body.
#[derive(Debug)]
enum Body {
    Json(Value),
    Events(Vec<SseEvent>),
}

fn client(opts: &HttpOptions) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(opts.connect_timeout)
        .build()
        // Building fails only when the TLS backend cannot initialise; a default client then
        // reports the same problem on the first request instead of here.
        .unwrap_or_default()
}

/// A bad-response failure of `provider` (for the wire formats' readers).
pub(crate) fn bad(provider: &'static str, message: impl Into<String>) -> AgentError {
    ProviderFailure::new(provider, FailureKind::BadResponse, message).into()
}

/// Maps an HTTP error status and body to a failure (pure).
pub(crate) fn classify(provider: &'static str, status: u16, raw: &str) -> ProviderFailure {
    let message = error_message(raw);
    let kind = match status {
        401 | 403 => FailureKind::Auth,
        429 => FailureKind::RateLimited,
        500..=599 => FailureKind::ServerError,
        _ if is_context_length(raw) => FailureKind::ContextLength,
        _ => FailureKind::Refused,
    };
    ProviderFailure::new(provider, kind, message).with_status(status)
}

/// Whether an error body says the prompt is too long (OpenAI's `context_length_exceeded` code,
/// Anthropic's "prompt is too long", and the phrasings of OpenAI-compatible servers).
pub(crate) fn is_context_length(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    [
        "context_length_exceeded",
        "maximum context length",
        "prompt is too long",
        "context window",
        "context length",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// The `error.message` of a JSON error body (OpenAI and Anthropic both use it), else the body.
pub(crate) fn error_message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.trim().to_string())
}

/// The server's requested wait: `retry-after-ms`, else `Retry-After` in (decimal) seconds or as
/// an HTTP-date (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`; a date in the past is no
/// wait), capped.
fn retry_after(headers: &reqwest::header::HeaderMap, cap: Duration) -> Option<Duration> {
    retry_after_at(headers, cap, chrono::Utc::now())
}

/// [`retry_after`] as of `now` (pure, for tests).
fn retry_after_at(
    headers: &reqwest::header::HeaderMap,
    cap: Duration,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<Duration> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let seconds = |v: &str| {
        v.trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(cap.as_secs_f64())))
    };
    let date = |v: &str| {
        let at = chrono::DateTime::parse_from_rfc2822(v.trim()).ok()?;
        Some(
            (at.with_timezone(&chrono::Utc) - now)
                .to_std()
                .unwrap_or(Duration::ZERO),
        )
    };
    let wait = get("retry-after-ms")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
        .or_else(|| get("retry-after").and_then(|v| seconds(v).or_else(|| date(v))))?;
    Some(wait.min(cap))
}

/// How long to wait before retry number `attempt` (1-based).
pub(crate) fn wait_before_retry(
    opts: &HttpOptions,
    attempt: u32,
    server: Option<Duration>,
) -> Duration {
    if let Some(w) = server {
        return w.min(opts.retry_after_cap);
    }
    let step = opts
        .backoff_base
        .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
    // Jitter so that parallel runs hitting one limit do not retry in lockstep; the clock's
    // nanoseconds are random enough for that.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()));
    let percent = 100 - JITTER_PERCENT + nanos % (2 * JITTER_PERCENT + 1);
    let jittered = step.saturating_mul(u32::try_from(percent).unwrap_or(100)) / 100;
    jittered.min(opts.retry_after_cap)
}

/// The innermost cause of a transport error (`Connection refused (os error 111)`): the part a
/// user recognises; the outer layers only repeat the URL.
fn root_cause(e: &reqwest::Error) -> String {
    let mut last = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        last = s.to_string();
        src = s.source();
    }
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_behaviour() {
        let auth = classify("openai", 401, "{}");
        assert_eq!(auth.kind, FailureKind::Auth);
        assert!(
            auth.to_string().contains(
                "authentication failed (HTTP 401): check OPENAI_API_KEY (or openai.api_key)"
            ),
            "{auth}"
        );
        assert!(!auth.retryable);
        assert!(classify("openai", 429, "").retryable);
        assert!(classify("openai", 503, "").retryable);
        let missing = classify("openai", 404, "");
        assert_eq!(missing.kind, FailureKind::Refused);
        assert!(!missing.retryable);
        let ctx = classify(
            "openai",
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}"#,
        );
        assert_eq!(ctx.kind, FailureKind::ContextLength, "{ctx}");
        assert!(ctx.to_string().contains("maximum context length is 128000"));
    }

    #[test]
    fn retry_after_is_honoured_and_capped() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(
            retry_after(&h, Duration::from_secs(60)),
            Some(Duration::from_secs(2))
        );
        h.insert("retry-after", "3600".parse().unwrap());
        assert_eq!(
            retry_after(&h, Duration::from_secs(60)),
            Some(Duration::from_secs(60))
        );
        h.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(
            retry_after(&h, Duration::from_secs(60)),
            Some(Duration::from_millis(250))
        );
    }

    #[test]
    fn retry_after_as_an_http_date() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-11-29T08:49:30Z")
            .unwrap()
            .with_timezone(&chrono::Utc);
        let mut h = reqwest::header::HeaderMap::new();
        let cap = Duration::from_secs(60);
        h.insert(
            "retry-after",
            "Sun, 29 Nov 2026 08:49:37 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after_at(&h, cap, now), Some(Duration::from_secs(7)));
        h.insert(
            "retry-after",
            "Sun, 29 Nov 2026 08:40:00 GMT".parse().unwrap(),
        );
        assert_eq!(
            retry_after_at(&h, cap, now),
            Some(Duration::ZERO),
            "past: no wait"
        );
        h.insert(
            "retry-after",
            "Mon, 30 Nov 2026 08:49:30 GMT".parse().unwrap(),
        );
        assert_eq!(
            retry_after_at(&h, cap, now),
            Some(cap),
            "a day away: capped"
        );
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(
            retry_after_at(&h, cap, now),
            None,
            "unreadable: normal backoff"
        );
    }

    #[test]
    fn backoff_doubles_with_bounded_jitter() {
        let opts = HttpOptions {
            backoff_base: Duration::from_millis(100),
            ..HttpOptions::default()
        };
        for (attempt, base) in [(1, 100u64), (2, 200), (3, 400)] {
            let w = wait_before_retry(&opts, attempt, None).as_millis();
            let base = u128::from(base);
            assert!(w >= base * 9 / 10 && w <= base * 11 / 10, "{attempt}: {w}");
        }
        assert_eq!(
            wait_before_retry(&opts, 1, Some(Duration::from_secs(7))),
            Duration::from_secs(7)
        );
    }
}
