//! HTTP plumbing shared by the OpenAI and Anthropic providers: retries with backoff, status
//! classification, and reading a body (JSON or SSE) with an idle timeout.
//!
//! Retry policy (Codex's `RetryOn`): 429, 5xx, transport failures and stalled or truncated
//! streams are retried up to [`HttpOptions::max_retries`] times; the wait is
//! `backoff_base · 2^(attempt-1)` with ±10% jitter, or the server's `Retry-After` (seconds) /
//! `retry-after-ms` when it sends one, never longer than [`HttpOptions::retry_after_cap`].
//! Every other 4xx fails at once: 401/403 is [`AgentError::Auth`] naming the variable to set,
//! a context-length refusal is [`AgentError::ContextLength`], the rest [`AgentError::Rejected`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::error::AgentError;
use crate::sse::{SseEvent, SseParser};

/// Default idle timeout: Codex's stream idle timeout. A reasoning model may think for minutes
/// before its first token, but silence this long on an open stream means it is stuck.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);
/// Default connect timeout: a reachable server accepts in well under this.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default retries after the first attempt (5 attempts spread over about 15 s of backoff).
pub const DEFAULT_MAX_RETRIES: u32 = 4;
/// Default first backoff step.
pub const DEFAULT_BACKOFF_BASE: Duration = Duration::from_secs(1);
/// Longest wait honoured from `Retry-After`: a server asking for more is treated as asking for
/// this, so one run cannot sleep for an hour.
pub const DEFAULT_RETRY_AFTER_CAP: Duration = Duration::from_secs(60);
/// Largest response body read: model replies are kilobytes; this bounds a misbehaving server.
const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;
/// Jitter applied to each backoff step, in percent either way.
const JITTER_PERCENT: u64 = 10;

/// Network behaviour of the HTTP providers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Longest silence on an open response before it counts as stalled ([`AgentError::StreamIdle`]).
    pub idle_timeout: Duration,
    pub connect_timeout: Duration,
    pub max_retries: u32,
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
            backoff_base: DEFAULT_BACKOFF_BASE,
            retry_after_cap: DEFAULT_RETRY_AFTER_CAP,
            stream: true,
        }
    }
}

/// Who is calling, for error messages.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wire {
    pub provider: &'static str,
    pub key_variable: &'static str,
    pub key_config: &'static str,
}

/// A failed attempt: the error and the server's requested wait, if any.
#[derive(Debug)]
pub(crate) struct Failure {
    pub error: AgentError,
    pub retry_after: Option<Duration>,
}

impl From<AgentError> for Failure {
    fn from(error: AgentError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// A successful response body.
#[derive(Debug)]
pub(crate) enum Body {
    Json(serde_json::Value),
    Events(Vec<SseEvent>),
}

pub(crate) fn client(opts: &HttpOptions) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(opts.connect_timeout)
        .build()
        // Building fails only when the TLS backend cannot initialise; a default client then
        // reports the same problem on the first request instead of here.
        .unwrap_or_default()
}

/// Sends `body` to `url` with retries; `done` says which SSE event ends the stream.
pub(crate) async fn post(
    wire: Wire,
    client: &reqwest::Client,
    opts: &HttpOptions,
    url: &str,
    headers: &[(&str, String)],
    body: &serde_json::Value,
    done: fn(&SseEvent) -> bool,
) -> Result<Body, AgentError> {
    let bytes = serde_json::to_vec(body).map_err(|e| AgentError::BadResponse {
        provider: wire.provider,
        message: format!("cannot encode the request: {e}"),
        body: String::new(),
    })?;
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        match once(wire, client, opts, url, headers, &bytes, done, attempt).await {
            Ok(b) => return Ok(b),
            Err(f) if f.error.is_retryable() && attempt <= opts.max_retries => {
                tokio::time::sleep(wait_before_retry(opts, attempt, f.retry_after)).await;
            }
            Err(f) => return Err(f.error),
        }
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "one request attempt needs the wire, client, options, URL, headers, body and end test together; a struct for a single private call site adds nothing"
)]
async fn once(
    wire: Wire,
    client: &reqwest::Client,
    opts: &HttpOptions,
    url: &str,
    headers: &[(&str, String)],
    body: &[u8],
    done: fn(&SseEvent) -> bool,
    attempt: u32,
) -> Result<Body, Failure> {
    let mut req = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_vec());
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    let idle = || AgentError::StreamIdle {
        provider: wire.provider,
        idle: opts.idle_timeout,
    };
    let transport = |e: &reqwest::Error| AgentError::Transport {
        provider: wire.provider,
        url: url.to_string(),
        attempts: attempt,
        message: error_chain(e),
    };
    let mut resp = tokio::time::timeout(opts.idle_timeout, req.send())
        .await
        .map_err(|_| idle())?
        .map_err(|e| transport(&e))?;
    let status = resp.status().as_u16();
    let retry_after = retry_after(resp.headers(), opts.retry_after_cap);
    let is_sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut raw = Vec::new();
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    loop {
        let chunk = tokio::time::timeout(opts.idle_timeout, resp.chunk())
            .await
            .map_err(|_| idle())?;
        let chunk = match chunk {
            Ok(Some(c)) => c,
            Ok(None) => break,
            Err(e) => return Err(transport(&e).into()),
        };
        if is_sse && status < 300 {
            let new = parser.push(&chunk);
            let finished = new.iter().any(done);
            events.extend(new);
            if finished {
                return Ok(Body::Events(events));
            }
        } else {
            if raw.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(AgentError::BadResponse {
                    provider: wire.provider,
                    message: format!("the response is larger than {MAX_BODY_BYTES} bytes"),
                    body: String::new(),
                }
                .into());
            }
            raw.extend_from_slice(&chunk);
        }
    }
    if status >= 300 {
        let text = String::from_utf8_lossy(&raw).into_owned();
        return Err(Failure {
            error: classify(wire, status, &text, attempt),
            retry_after,
        });
    }
    if is_sse {
        events.extend(parser.finish());
        // The stream ended without its final event: the reply may be cut short.
        if !events.iter().any(done) {
            return Err(AgentError::StreamClosed {
                provider: wire.provider,
            }
            .into());
        }
        return Ok(Body::Events(events));
    }
    serde_json::from_slice(&raw).map(Body::Json).map_err(|e| {
        AgentError::BadResponse {
            provider: wire.provider,
            message: format!("the body is not JSON: {e}"),
            body: String::from_utf8_lossy(&raw).into_owned(),
        }
        .into()
    })
}

/// Maps an HTTP error status and body to an error (pure).
pub(crate) fn classify(wire: Wire, status: u16, raw: &str, attempts: u32) -> AgentError {
    let message = error_message(raw);
    let body = message.as_str();
    match status {
        401 | 403 => AgentError::Auth {
            provider: wire.provider,
            status,
            variable: wire.key_variable,
            config_key: wire.key_config,
            body: body.to_string(),
        },
        429 => AgentError::RateLimited {
            provider: wire.provider,
            attempts,
            body: body.to_string(),
        },
        500..=599 => AgentError::Server {
            provider: wire.provider,
            status,
            attempts,
            body: body.to_string(),
        },
        _ if is_context_length(raw) => AgentError::ContextLength {
            provider: wire.provider,
            message,
        },
        _ => AgentError::Rejected {
            provider: wire.provider,
            status,
            body: body.to_string(),
        },
    }
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
    serde_json::from_str::<serde_json::Value>(body)
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

fn error_chain(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRE: Wire = Wire {
        provider: "openai",
        key_variable: "OPENAI_API_KEY",
        key_config: "openai.api_key",
    };

    #[test]
    fn statuses_map_to_behaviour() {
        let auth = classify(WIRE, 401, "{}", 1);
        assert!(
            auth.to_string()
                .contains("authentication failed: set OPENAI_API_KEY (or openai.api_key)"),
            "{auth}"
        );
        assert!(!auth.is_retryable());
        assert!(classify(WIRE, 429, "", 1).is_retryable());
        assert!(classify(WIRE, 503, "", 1).is_retryable());
        assert!(!classify(WIRE, 404, "", 1).is_retryable());
        let ctx = classify(
            WIRE,
            400,
            r#"{"error":{"message":"This model's maximum context length is 128000 tokens","code":"context_length_exceeded"}}"#,
            1,
        );
        assert!(matches!(ctx, AgentError::ContextLength { .. }), "{ctx}");
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
