//! Loopback fake model servers: OpenAI Chat Completions and Anthropic Messages on
//! `127.0.0.1:0`, scripted with a queue of replies, validating every request they receive.
//!
//! Modelled on Codex's `core/tests/common/responses.rs`: the fake is strict where the real APIs
//! are strict, so a test that passes against it sends requests the real service would accept.
//!
//! - **Replies** ([`Reply`]) are served in order, one per request: a JSON body with any status
//!   and headers (`Retry-After`), an SSE stream (optionally stalling after `n` events, to test
//!   idle timeouts), a raw body (malformed JSON, an HTML page), each optionally delayed; or no
//!   answer at all ([`Reply::hang`]: the request is read and never answered) or a connection
//!   dropped mid-reply ([`Reply::Close`]). A refused connection needs no fake: use
//!   [`unbound_url`].
//! - **Validation** ([`validate_openai`], [`validate_anthropic`]): auth headers, the model, the
//!   tool schema shape, and message order — every tool result answers a call of the assistant
//!   message right before it, and every call is answered before the conversation moves on. A
//!   request that fails validation, or arrives when no reply is queued, is answered with HTTP
//!   400 and the reason, and recorded in [`FakeLlm::violations`].
//! - **Recording**: every request (path, lower-cased headers, JSON body) is kept for assertions.
//!   [`FakeLlm::assert_clean`] fails the test on any violation or unconsumed reply.
//!
//! Start it inside a tokio runtime; dropping the [`FakeLlm`] stops the server.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

mod turn;
mod validate;

pub use turn::{FakeCall, FakeTurn};
pub use validate::{validate_anthropic, validate_openai};

/// Which wire format the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenAi,
    Anthropic,
}

/// What the fake expects of every request.
#[derive(Debug, Clone)]
pub struct Expect {
    /// The key the client must send; `None` means it must send none (Ollama style).
    pub api_key: Option<String>,
    pub model: String,
}

/// How long a stalled stream stays silent: far longer than any test's idle timeout.
const STALL: Duration = Duration::from_secs(3600);

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    Json {
        status: u16,
        headers: Vec<(String, String)>,
        body: Value,
        delay: Duration,
    },
    Sse {
        /// `(event name, data)` pairs.
        events: Vec<(Option<String>, String)>,
        /// Send this many events, then go silent with the connection open.
        stall_after: Option<usize>,
        delay: Duration,
    },
    Raw {
        status: u16,
        content_type: String,
        body: String,
    },
    /// Sends the status line and headers of a 200, then drops the connection before the body.
    Close,
}

impl Reply {
    /// A 200 JSON reply.
    #[must_use]
    pub fn json(body: Value) -> Reply {
        Reply::Json {
            status: 200,
            headers: Vec::new(),
            body,
            delay: Duration::ZERO,
        }
    }

    /// An error status with a JSON body.
    #[must_use]
    pub fn error(status: u16, body: Value) -> Reply {
        Reply::Json {
            status,
            headers: Vec::new(),
            body,
            delay: Duration::ZERO,
        }
    }

    /// Reads the request and never answers (a server that accepted and hung).
    #[must_use]
    pub fn hang() -> Reply {
        Reply::error(200, json!({})).with_delay(STALL)
    }

    /// A 200 whose body is not the wire format (a proxy's or web server's HTML page).
    #[must_use]
    pub fn garbage() -> Reply {
        Reply::Raw {
            status: 200,
            content_type: "text/html".into(),
            body: "<html><body><h1>It works!</h1></body></html>".into(),
        }
    }

    /// Adds a response header (JSON replies only).
    #[must_use]
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Json { headers, .. } = &mut self {
            headers.push((name.to_string(), value.to_string()));
        }
        self
    }

    /// Waits before answering.
    #[must_use]
    pub fn with_delay(mut self, d: Duration) -> Reply {
        match &mut self {
            Reply::Json { delay, .. } | Reply::Sse { delay, .. } => *delay = d,
            Reply::Raw { .. } | Reply::Close => {}
        }
        self
    }

    /// Makes an SSE reply go silent after `n` events.
    #[must_use]
    pub fn stall_after(mut self, n: usize) -> Reply {
        if let Reply::Sse { stall_after, .. } = &mut self {
            *stall_after = Some(n);
        }
        self
    }
}

/// A URL on loopback where nothing listens: a connection to it is refused at once. The port was
/// bound and released, so it is free; another process taking it in between is possible but rare.
#[must_use]
pub fn unbound_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// A request the fake received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub path: String,
    /// Lower-cased header names.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

#[derive(Debug)]
struct Shared {
    api: Api,
    expect: Expect,
    replies: VecDeque<Reply>,
    ledger: crate::fake_server::Ledger,
}

/// A running fake server.
#[derive(Debug)]
pub struct FakeLlm {
    api: Api,
    shared: Arc<Mutex<Shared>>,
    server: crate::fake_server::Loopback,
}

impl FakeLlm {
    /// Binds `127.0.0.1:0` and serves until dropped.
    pub async fn start(api: Api, expect: Expect) -> FakeLlm {
        let shared = Arc::new(Mutex::new(Shared {
            api,
            expect,
            replies: VecDeque::new(),
            ledger: crate::fake_server::Ledger::default(),
        }));
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = crate::fake_server::Loopback::serve(app).await;
        FakeLlm {
            api,
            shared,
            server,
        }
    }

    /// The base URL a provider is configured with (`/v1` included for OpenAI, as its SDKs do).
    #[must_use]
    pub fn base_url(&self) -> String {
        match self.api {
            Api::OpenAi => format!("{}/v1", self.server.origin()),
            Api::Anthropic => self.server.origin(),
        }
    }

    /// Queues a reply.
    pub fn push(&self, reply: Reply) -> &Self {
        self.shared.lock().unwrap().replies.push_back(reply);
        self
    }

    /// Queues a turn in this server's format, streamed.
    pub fn push_turn(&self, turn: &FakeTurn) -> &Self {
        self.push(turn.sse(self.api))
    }

    #[must_use]
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().ledger.requests.clone()
    }

    #[must_use]
    pub fn violations(&self) -> Vec<String> {
        self.shared.lock().unwrap().ledger.violations.clone()
    }

    /// Panics when a request broke a rule or a queued reply was never asked for.
    pub fn assert_clean(&self) {
        let s = self.shared.lock().unwrap();
        s.ledger.assert_clean("fake server", s.replies.len());
    }
}

async fn handle(
    State(shared): State<Arc<Mutex<Shared>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req = crate::fake_server::Incoming::new(&headers, &body);
    let (headers, parsed) = (&req.headers, &req.body);
    let reply = {
        let mut s = shared.lock().unwrap();
        let n = s.ledger.record(&req, uri.path());
        let verdict = match parsed {
            Err(e) => Err(e.clone()),
            Ok(v) => {
                let path_ok = match s.api {
                    Api::OpenAi => uri.path() == "/v1/chat/completions",
                    Api::Anthropic => uri.path() == "/v1/messages",
                };
                if method != Method::POST || !path_ok {
                    Err(format!("unexpected {method} {}", uri.path()))
                } else {
                    match s.api {
                        Api::OpenAi => validate_openai(headers, v, &s.expect),
                        Api::Anthropic => validate_anthropic(headers, v, &s.expect),
                    }
                }
            }
        };
        match verdict {
            Err(reason) => {
                s.ledger.violations.push(format!("request {n}: {reason}"));
                Err(reason)
            }
            Ok(()) => s.replies.pop_front().ok_or_else(|| {
                let reason = format!("request {n}: no reply is queued");
                s.ledger.violations.push(reason.clone());
                reason
            }),
        }
    };
    match reply {
        Err(reason) => respond(
            400,
            "application/json",
            Body::from(
                json!({"error": {"type": "invalid_request_error", "message": reason}}).to_string(),
            ),
            &[],
        ),
        Ok(r) => serve(r).await,
    }
}

fn respond(status: u16, content_type: &str, body: Body, headers: &[(String, String)]) -> Response {
    let mut b = Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", content_type);
    for (k, v) in headers {
        b = b.header(k.as_str(), v.as_str());
    }
    b.body(body).unwrap()
}

pub(crate) async fn serve(reply: Reply) -> Response {
    match reply {
        Reply::Json {
            status,
            headers,
            body,
            delay,
        } => {
            tokio::time::sleep(delay).await;
            respond(
                status,
                "application/json",
                Body::from(body.to_string()),
                &headers,
            )
        }
        Reply::Raw {
            status,
            content_type,
            body,
        } => respond(status, &content_type, Body::from(body), &[]),
        Reply::Close => {
            // A body stream that fails before its first byte makes hyper abort the connection.
            let stream = futures_util::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::other("the fake drops the connection"))
            });
            respond(200, "application/json", Body::from_stream(stream), &[])
        }
        Reply::Sse {
            events,
            stall_after,
            delay,
        } => {
            tokio::time::sleep(delay).await;
            let frames: Vec<Bytes> = events
                .into_iter()
                .map(|(name, data)| {
                    let mut f = String::new();
                    if let Some(n) = name {
                        f.push_str(&format!("event: {n}\n"));
                    }
                    f.push_str(&format!("data: {data}\n\n"));
                    Bytes::from(f)
                })
                .collect();
            let limit = stall_after.unwrap_or(usize::MAX);
            let stream = futures_util::stream::unfold(
                (frames.into_iter(), 0usize),
                move |(mut it, sent)| async move {
                    if sent >= limit {
                        tokio::time::sleep(STALL).await;
                        return None;
                    }
                    let frame = it.next()?;
                    Some((Ok::<Bytes, Infallible>(frame), (it, sent + 1)))
                },
            );
            respond(200, "text/event-stream", Body::from_stream(stream), &[])
        }
    }
}
