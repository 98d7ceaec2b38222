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

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

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

/// A call in a scripted turn; `arguments` is the raw JSON text (it may be invalid on purpose).
#[derive(Debug, Clone)]
pub struct FakeCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl FakeCall {
    #[must_use]
    pub fn new(id: &str, name: &str, arguments: &Value) -> FakeCall {
        FakeCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }

    /// A call whose argument text is sent verbatim.
    #[must_use]
    pub fn raw(id: &str, name: &str, arguments: &str) -> FakeCall {
        FakeCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// An assistant turn to serve, in either wire format.
#[derive(Debug, Clone, Default)]
pub struct FakeTurn {
    pub text: Option<String>,
    pub calls: Vec<FakeCall>,
    /// Uncached input, output, cache read, cache write tokens.
    pub usage: [u64; 4],
}

impl FakeTurn {
    #[must_use]
    pub fn text(text: &str) -> FakeTurn {
        FakeTurn {
            text: Some(text.into()),
            ..FakeTurn::default()
        }
    }

    #[must_use]
    pub fn call(id: &str, name: &str, arguments: &Value) -> FakeTurn {
        FakeTurn {
            calls: vec![FakeCall::new(id, name, arguments)],
            ..FakeTurn::default()
        }
    }

    #[must_use]
    pub fn with_usage(mut self, usage: [u64; 4]) -> FakeTurn {
        self.usage = usage;
        self
    }

    /// This turn as a non-streamed reply of `api`.
    #[must_use]
    pub fn json(&self, api: Api) -> Reply {
        Reply::json(match api {
            Api::OpenAi => self.openai_json(),
            Api::Anthropic => self.anthropic_json(),
        })
    }

    /// This turn as an SSE reply of `api`.
    #[must_use]
    pub fn sse(&self, api: Api) -> Reply {
        Reply::Sse {
            events: match api {
                Api::OpenAi => self.openai_events(),
                Api::Anthropic => self.anthropic_events(),
            },
            stall_after: None,
            delay: Duration::ZERO,
        }
    }

    fn openai_usage(&self) -> Value {
        let [i, o, r, _] = self.usage;
        json!({"prompt_tokens": i + r, "completion_tokens": o, "total_tokens": i + r + o,
               "prompt_tokens_details": {"cached_tokens": r}})
    }

    fn openai_finish(&self) -> &'static str {
        if self.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        }
    }

    fn openai_json(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
        let mut message = json!({"role": "assistant", "content": self.text});
        if !calls.is_empty() {
            message["tool_calls"] = Value::Array(calls);
        }
        json!({"id": "chatcmpl-fake", "object": "chat.completion",
               "choices": [{"index": 0, "message": message, "finish_reason": self.openai_finish()}],
               "usage": self.openai_usage()})
    }

    fn openai_events(&self) -> Vec<(Option<String>, String)> {
        let chunk = |delta: Value, finish: Value| {
            (
                None,
                json!({"object": "chat.completion.chunk",
                          "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
                .to_string(),
            )
        };
        let mut ev = vec![chunk(
            json!({"role": "assistant", "content": ""}),
            Value::Null,
        )];
        if let Some(t) = &self.text {
            let (a, b) = split_half(t);
            ev.push(chunk(json!({"content": a}), Value::Null));
            ev.push(chunk(json!({"content": b}), Value::Null));
        }
        for (i, c) in self.calls.iter().enumerate() {
            let (a, b) = split_half(&c.arguments);
            ev.push(chunk(
                json!({"tool_calls": [{"index": i, "id": c.id, "type": "function", "function": {"name": c.name, "arguments": a}}]}),
                Value::Null,
            ));
            ev.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": b}}]}),
                Value::Null,
            ));
        }
        ev.push(chunk(json!({}), json!(self.openai_finish())));
        ev.push((
            None,
            json!({"object": "chat.completion.chunk", "choices": [], "usage": self.openai_usage()})
                .to_string(),
        ));
        ev.push((None, "[DONE]".into()));
        ev
    }

    fn anthropic_usage(&self) -> Value {
        let [i, o, r, w] = self.usage;
        json!({"input_tokens": i, "output_tokens": o, "cache_read_input_tokens": r,
               "cache_creation_input_tokens": w})
    }

    fn anthropic_stop(&self) -> &'static str {
        if self.calls.is_empty() {
            "end_turn"
        } else {
            "tool_use"
        }
    }

    fn anthropic_json(&self) -> Value {
        let mut content = Vec::new();
        if let Some(t) = &self.text {
            content.push(json!({"type": "text", "text": t}));
        }
        for c in &self.calls {
            let input: Value = serde_json::from_str(&c.arguments).unwrap_or(json!({}));
            content.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
        }
        json!({"id": message_id(), "type": "message", "role": "assistant", "content": content,
               "stop_reason": self.anthropic_stop(), "usage": self.anthropic_usage()})
    }

    fn anthropic_events(&self) -> Vec<(Option<String>, String)> {
        let ev = |name: &str, data: Value| (Some(name.to_string()), data.to_string());
        let [i, o, r, w] = self.usage;
        let mut out = vec![ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": message_id(), "type": "message", "role": "assistant", "content": [],
                   "usage": {"input_tokens": i, "output_tokens": 1, "cache_read_input_tokens": r, "cache_creation_input_tokens": w}}}),
        )];
        let mut index = 0;
        if let Some(t) = &self.text {
            let (a, b) = split_half(t);
            out.push(ev("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}})));
            for part in [a, b] {
                out.push(ev("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": part}})));
            }
            out.push(ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            ));
            index += 1;
        }
        for c in &self.calls {
            let (a, b) = split_half(&c.arguments);
            out.push(ev("content_block_start", json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}}})));
            for part in [a, b] {
                out.push(ev("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": part}})));
            }
            out.push(ev(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": index}),
            ));
            index += 1;
        }
        out.push(ev("ping", json!({"type": "ping"})));
        out.push(ev(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": self.anthropic_stop()}, "usage": {"output_tokens": o}}),
        ));
        out.push(ev("message_stop", json!({"type": "message_stop"})));
        out
    }
}

/// A fresh message id, as the real API gives: Claude Code merges streamed messages that share
/// one (they are parts of one message to it).
fn message_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    format!(
        "msg_fake_{}",
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    )
}

fn split_half(s: &str) -> (String, String) {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid -= 1;
    }
    (s[..mid].to_string(), s[mid..].to_string())
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

fn valid_tool_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn check_schema(name: &str, schema: &Value) -> Result<(), String> {
    if schema["type"] != "object" {
        return Err(format!(
            "tool {name}: its parameter schema must have \"type\": \"object\""
        ));
    }
    if !schema.get("properties").is_none_or(Value::is_object) {
        return Err(format!("tool {name}: \"properties\" must be an object"));
    }
    Ok(())
}

/// Checks a Chat Completions request (pure).
pub fn validate_openai(
    headers: &BTreeMap<String, String>,
    body: &Value,
    expect: &Expect,
) -> Result<(), String> {
    let auth = headers.get("authorization");
    match &expect.api_key {
        Some(k) if auth != Some(&format!("Bearer {k}")) => {
            return Err(format!(
                "Authorization must be \"Bearer {k}\", got {auth:?}"
            ));
        }
        None if auth.is_some() => {
            return Err("no Authorization header was expected (keyless server)".into());
        }
        _ => {}
    }
    if !headers
        .get("content-type")
        .is_some_and(|c| c.starts_with("application/json"))
    {
        return Err("content-type must be application/json".into());
    }
    if body["model"] != expect.model.as_str() {
        return Err(format!(
            "model must be {:?}, got {}",
            expect.model, body["model"]
        ));
    }
    // The fake stands for a local server (Ollama, vLLM): the output limit is `max_tokens`.
    if body.get("max_completion_tokens").is_some() {
        return Err("this server takes max_tokens, not max_completion_tokens".into());
    }
    if body["max_tokens"].as_u64().unwrap_or(0) == 0 {
        return Err("max_tokens must be a positive integer".into());
    }
    if body["stream"] == true && body["stream_options"]["include_usage"] != true {
        return Err("a streamed request must set stream_options.include_usage".into());
    }
    let mut names = HashSet::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        let f = &t["function"];
        let name = f["name"].as_str().unwrap_or("");
        if t["type"] != "function" || !valid_tool_name(name) || !f["description"].is_string() {
            return Err(format!("malformed tool {t}"));
        }
        check_schema(name, &f["parameters"])?;
        if !names.insert(name.to_string()) {
            return Err(format!("tool {name} is declared twice"));
        }
    }
    let messages = body["messages"]
        .as_array()
        .ok_or("messages must be an array")?;
    if messages.is_empty() {
        return Err("messages is empty".into());
    }
    let mut pending: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        if role != "tool" && !pending.is_empty() {
            return Err(format!(
                "message {i} ({role}) comes before the results of tool calls {pending:?}"
            ));
        }
        match role {
            "system" | "user" => {
                if !m["content"].is_string() {
                    return Err(format!("message {i}: content must be a string"));
                }
            }
            "assistant" => {
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    let id = c["id"].as_str().unwrap_or("");
                    if id.is_empty()
                        || c["type"] != "function"
                        || !c["function"]["arguments"].is_string()
                        || !c["function"]["name"].is_string()
                    {
                        return Err(format!(
                            "message {i}: malformed tool call {c} (arguments must be a JSON string)"
                        ));
                    }
                    pending.push(id.to_string());
                }
                if m["content"].is_null() && pending.is_empty() {
                    return Err(format!(
                        "message {i}: an assistant message needs content or tool calls"
                    ));
                }
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                let Some(pos) = pending.iter().position(|p| p == id) else {
                    return Err(format!(
                        "message {i}: tool result {id:?} does not answer a call of the assistant message before it"
                    ));
                };
                pending.remove(pos);
                if !m["content"].is_string() {
                    return Err(format!("message {i}: tool content must be a string"));
                }
            }
            other => return Err(format!("message {i}: unknown role {other:?}")),
        }
    }
    if !pending.is_empty() {
        return Err(format!(
            "the request ends with unanswered tool calls {pending:?}"
        ));
    }
    Ok(())
}

/// Checks a Messages API request (pure).
pub fn validate_anthropic(
    headers: &BTreeMap<String, String>,
    body: &Value,
    expect: &Expect,
) -> Result<(), String> {
    let key = headers.get("x-api-key");
    if key != expect.api_key.as_ref() {
        return Err(format!(
            "x-api-key must be {:?}, got {key:?}",
            expect.api_key
        ));
    }
    if headers.get("anthropic-version").map(String::as_str) != Some("2023-06-01") {
        return Err("anthropic-version must be 2023-06-01".into());
    }
    if !headers
        .get("content-type")
        .is_some_and(|c| c.starts_with("application/json"))
    {
        return Err("content-type must be application/json".into());
    }
    if body["model"] != expect.model.as_str() {
        return Err(format!(
            "model must be {:?}, got {}",
            expect.model, body["model"]
        ));
    }
    if body["max_tokens"].as_u64().unwrap_or(0) == 0 {
        return Err("max_tokens must be a positive integer".into());
    }
    match &body["system"] {
        Value::Null | Value::String(_) => {}
        Value::Array(blocks)
            if blocks
                .iter()
                .all(|b| b["type"] == "text" && b["text"].is_string()) => {}
        other => {
            return Err(format!(
                "system must be a string or text blocks, got {other}"
            ));
        }
    }
    let mut names = HashSet::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        let name = t["name"].as_str().unwrap_or("");
        if !valid_tool_name(name) || !t["description"].is_string() {
            return Err(format!("malformed tool {t}"));
        }
        check_schema(name, &t["input_schema"])?;
        if t.get("cache_control")
            .is_some_and(|c| c["type"] != "ephemeral")
        {
            return Err(format!("tool {name}: cache_control must be ephemeral"));
        }
        if !names.insert(name.to_string()) {
            return Err(format!("tool {name} is declared twice"));
        }
    }
    let messages = body["messages"]
        .as_array()
        .ok_or("messages must be an array")?;
    if messages.first().map(|m| &m["role"]) != Some(&json!("user")) {
        return Err("the first message must be from the user".into());
    }
    if messages.last().map(|m| &m["role"]) != Some(&json!("user")) {
        return Err("the last message must be from the user".into());
    }
    let mut expected_results: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        let want = if i % 2 == 0 { "user" } else { "assistant" };
        if role != want {
            return Err(format!(
                "message {i} must be {want} (roles alternate), got {role:?}"
            ));
        }
        let blocks: Vec<Value> = match &m["content"] {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(b) if !b.is_empty() => b.clone(),
            _ => {
                return Err(format!(
                    "message {i}: content must be a string or a non-empty block array"
                ));
            }
        };
        if role == "user" {
            let results: Vec<&Value> = blocks
                .iter()
                .take_while(|b| b["type"] == "tool_result")
                .collect();
            if blocks[results.len()..]
                .iter()
                .any(|b| b["type"] == "tool_result")
            {
                return Err(format!(
                    "message {i}: tool_result blocks must come before other content"
                ));
            }
            let mut answered: Vec<String> = Vec::new();
            for r in results {
                let id = r["tool_use_id"].as_str().unwrap_or("").to_string();
                if !expected_results.contains(&id) {
                    return Err(format!(
                        "message {i}: tool_result {id:?} does not answer a tool_use of the assistant message before it"
                    ));
                }
                answered.push(id);
            }
            let missing: Vec<&String> = expected_results
                .iter()
                .filter(|id| !answered.contains(id))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "message {i}: tool_use ids {missing:?} have no tool_result"
                ));
            }
            expected_results.clear();
        } else {
            for b in &blocks {
                match b["type"].as_str() {
                    Some("text") if b["text"].as_str().is_some_and(|t| !t.is_empty()) => {}
                    Some("tool_use") => {
                        let id = b["id"].as_str().unwrap_or("");
                        if id.is_empty() || !b["input"].is_object() || !b["name"].is_string() {
                            return Err(format!(
                                "message {i}: malformed tool_use {b} (input must be an object)"
                            ));
                        }
                        expected_results.push(id.to_string());
                    }
                    _ => return Err(format!("message {i}: unexpected assistant block {b}")),
                }
            }
        }
    }
    Ok(())
}
