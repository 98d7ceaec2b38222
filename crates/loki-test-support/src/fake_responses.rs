//! A loopback fake of the OpenAI Responses API (`POST /v1/responses`, streamed), the wire Codex
//! speaks (`wire_api = "responses"`), scripted with a queue of turns and strict about what it
//! receives.
//!
//! What Codex 0.171.0 sends (captured from the real program): `model`, `stream: true`, `input`
//! (developer and user `message` items, then the history: `message`, `function_call`,
//! `function_call_output` items), `tools` (function tools such as `exec_command` and
//! `write_stdin`, a `namespace` of sub-agent tools, `web_search`), `tool_choice`,
//! `parallel_tool_calls`, `reasoning`, `store: false`, `include`, `prompt_cache_key`,
//! `client_metadata`; headers `authorization: Bearer <env_key's value>`, `accept:
//! text/event-stream`, `originator: codex_exec`. It reads the SSE events `response.created`,
//! `response.output_item.added`, `response.output_text.delta`, `response.output_item.done` and
//! `response.completed` (whose `usage` becomes `turn.completed` in `codex exec --json`).
//!
//! - **Turns** ([`ResponsesTurn`]): assistant text, function calls (`exec_command` with a `cmd`),
//!   usage; or [`Scripted::Hang`]: the request is read and never answered (a model that stalls,
//!   for cap tests).
//! - **Validation** ([`validate`]): the path and method, `Authorization`, the model, `stream`,
//!   well-formed tools with unique names, and the history: every `function_call_output` answers
//!   a `function_call` earlier in `input`, every call the fake made is answered in the next
//!   request, and no call appears that the fake never made. A request that fails, or arrives
//!   with nothing queued, is answered 400 with the reason and recorded in
//!   [`FakeResponses::violations`]; any other path is a violation too (Codex makes no side
//!   requests to a custom provider: no model list, no telemetry, when the config turns them off).
//! - **Side requests**: the TUI's thread title request ([`is_thread_title`]) is validated and
//!   answered with a fixed title, outside the queue (`codex exec` makes none).
//! - **Recording**: every request (path, lower-cased headers, JSON body).
//!   [`FakeResponses::assert_clean`] fails the test on a violation or an unconsumed turn.
//!
//! Start it inside a tokio runtime; dropping it stops the server.

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

pub use crate::fake_llm::Recorded;

/// What every request must carry.
#[derive(Debug, Clone)]
pub struct Expect {
    pub api_key: String,
    pub model: String,
}

/// One output item of a scripted turn.
#[derive(Debug, Clone)]
pub enum Output {
    Text(String),
    Call {
        call_id: String,
        name: String,
        /// The raw JSON argument text.
        arguments: String,
    },
}

/// An assistant turn: its output items and usage.
#[derive(Debug, Clone, Default)]
pub struct ResponsesTurn {
    pub output: Vec<Output>,
    /// Input tokens (cached included), cached input tokens, output tokens.
    pub usage: [u64; 3],
}

impl ResponsesTurn {
    /// A final text answer.
    #[must_use]
    pub fn text(text: &str) -> ResponsesTurn {
        ResponsesTurn {
            output: vec![Output::Text(text.into())],
            usage: [10, 0, 5],
        }
    }

    /// A call of `name` with `arguments`.
    #[must_use]
    pub fn call(call_id: &str, name: &str, arguments: &Value) -> ResponsesTurn {
        ResponsesTurn {
            output: vec![Output::Call {
                call_id: call_id.into(),
                name: name.into(),
                arguments: arguments.to_string(),
            }],
            usage: [10, 0, 5],
        }
    }

    /// A call of Codex's `exec_command` tool running `cmd` in a shell.
    #[must_use]
    pub fn exec(call_id: &str, cmd: &str) -> ResponsesTurn {
        ResponsesTurn::call(call_id, "exec_command", &json!({ "cmd": cmd }))
    }

    #[must_use]
    pub fn with_usage(mut self, input: u64, cached: u64, output: u64) -> ResponsesTurn {
        self.usage = [input, cached, output];
        self
    }

    fn call_ids(&self) -> Vec<String> {
        self.output
            .iter()
            .filter_map(|o| match o {
                Output::Call { call_id, .. } => Some(call_id.clone()),
                Output::Text(_) => None,
            })
            .collect()
    }

    /// The SSE events of this turn as response `id`.
    #[must_use]
    pub fn events(&self, id: &str) -> Vec<(String, Value)> {
        let [input, cached, output] = self.usage;
        let mut ev = vec![(
            "response.created".to_string(),
            json!({"type": "response.created", "response": {"id": id, "status": "in_progress"}}),
        )];
        for (i, o) in self.output.iter().enumerate() {
            let item = match o {
                Output::Text(t) => {
                    json!({"type": "message", "role": "assistant", "id": format!("msg_{id}_{i}"), "status": "completed",
                           "content": [{"type": "output_text", "text": t, "annotations": []}]})
                }
                Output::Call {
                    call_id,
                    name,
                    arguments,
                } => {
                    json!({"type": "function_call", "id": format!("fc_{id}_{i}"), "call_id": call_id, "name": name,
                           "arguments": arguments, "status": "completed"})
                }
            };
            let mut added = item.clone();
            if let Output::Text(t) = o {
                added["content"] = json!([]);
                added["status"] = json!("in_progress");
                ev.push((
                    "response.output_item.added".into(),
                    json!({"type": "response.output_item.added", "output_index": i, "item": added}),
                ));
                let mid = (0..=t.len() / 2)
                    .rev()
                    .find(|m| t.is_char_boundary(*m))
                    .unwrap_or(0);
                for part in [&t[..mid], &t[mid..]] {
                    ev.push((
                        "response.output_text.delta".into(),
                        json!({"type": "response.output_text.delta", "item_id": item["id"], "output_index": i,
                               "content_index": 0, "delta": part}),
                    ));
                }
            } else {
                ev.push((
                    "response.output_item.added".into(),
                    json!({"type": "response.output_item.added", "output_index": i, "item": added}),
                ));
            }
            ev.push((
                "response.output_item.done".into(),
                json!({"type": "response.output_item.done", "output_index": i, "item": item}),
            ));
        }
        ev.push((
            "response.completed".into(),
            json!({"type": "response.completed", "response": {"id": id, "status": "completed",
                "usage": {"input_tokens": input, "input_tokens_details": {"cached_tokens": cached},
                          "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": input + output}}}),
        ));
        ev
    }
}

/// What the fake answers one request with.
#[derive(Debug, Clone)]
pub enum Scripted {
    Turn(ResponsesTurn),
    /// Reads the request and never answers (the connection stays open).
    Hang,
}

#[derive(Debug)]
struct Shared {
    expect: Expect,
    queue: VecDeque<Scripted>,
    ledger: crate::fake_server::Ledger,
    /// Every call id the fake has issued.
    issued: HashSet<String>,
    /// The calls of the last served turn, which the next request must answer.
    pending: Vec<String>,
}

/// A running fake Responses server.
#[derive(Debug)]
pub struct FakeResponses {
    shared: Arc<Mutex<Shared>>,
    server: crate::fake_server::Loopback,
}

/// How long a hung request stays unanswered: far longer than any test.
const HANG: Duration = Duration::from_secs(3600);

impl FakeResponses {
    /// Binds `127.0.0.1:0` and serves until dropped.
    pub async fn start(expect: Expect) -> FakeResponses {
        let shared = Arc::new(Mutex::new(Shared {
            expect,
            queue: VecDeque::new(),
            ledger: crate::fake_server::Ledger::default(),
            issued: HashSet::new(),
            pending: Vec::new(),
        }));
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = crate::fake_server::Loopback::serve(app).await;
        FakeResponses { shared, server }
    }

    /// The provider's `base_url` (`/v1` included; Codex appends `/responses`).
    #[must_use]
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.origin())
    }

    /// Queues a turn.
    pub fn push(&self, turn: ResponsesTurn) -> &Self {
        self.shared
            .lock()
            .unwrap()
            .queue
            .push_back(Scripted::Turn(turn));
        self
    }

    /// Queues a request that is never answered.
    pub fn push_hang(&self) -> &Self {
        self.shared.lock().unwrap().queue.push_back(Scripted::Hang);
        self
    }

    #[must_use]
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().ledger.requests.clone()
    }

    #[must_use]
    pub fn violations(&self) -> Vec<String> {
        self.shared.lock().unwrap().ledger.violations.clone()
    }

    /// The texts of request `i`'s input, in order (see [`input_texts`]).
    #[must_use]
    pub fn input_texts(&self, i: usize) -> Vec<String> {
        let r = &self.requests()[i];
        input_texts(&r.body)
    }

    /// The names of the function tools request `i` declared.
    #[must_use]
    pub fn tool_names(&self, i: usize) -> Vec<String> {
        self.requests()[i].body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["name"].as_str().map(str::to_string))
            .collect()
    }

    /// Panics on a violation or a turn never asked for.
    pub fn assert_clean(&self) {
        let s = self.shared.lock().unwrap();
        s.ledger.assert_clean(
            "fake Responses server",
            s.queue
                .iter()
                .filter(|q| matches!(q, Scripted::Turn(_)))
                .count(),
        );
    }
}

/// Every `input_text` / `output_text` of a request's `input`, and every `function_call_output`'s
/// output, in order.
#[must_use]
pub fn input_texts(body: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for item in body["input"].as_array().into_iter().flatten() {
        for c in item["content"].as_array().into_iter().flatten() {
            if let Some(t) = c["text"].as_str() {
                out.push(t.to_string());
            }
        }
        if let Some(t) = item["output"].as_str() {
            out.push(t.to_string());
        }
    }
    out
}

/// Checks one request against what the real service requires and the calls the fake made (pure).
pub fn validate(
    headers: &BTreeMap<String, String>,
    body: &Value,
    expect: &Expect,
    issued: &HashSet<String>,
    pending: &[String],
) -> Result<(), String> {
    let auth = headers.get("authorization");
    if auth != Some(&format!("Bearer {}", expect.api_key)) {
        return Err(format!(
            "Authorization must be \"Bearer {}\", got {auth:?}",
            expect.api_key
        ));
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
    if body["stream"] != true {
        return Err("this fake serves streamed responses only: stream must be true".into());
    }
    let mut names = HashSet::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        match t["type"].as_str() {
            Some("function") => {
                let name = t["name"].as_str().unwrap_or("");
                if name.is_empty() || !t["parameters"].is_object() {
                    return Err(format!("malformed function tool {t}"));
                }
                if t["parameters"]["type"] != "object" {
                    return Err(format!("tool {name}: parameters must be an object schema"));
                }
                if !names.insert(name.to_string()) {
                    return Err(format!("tool {name} is declared twice"));
                }
            }
            Some(_) => {}
            None => return Err(format!("a tool without a type: {t}")),
        }
    }
    let input = body["input"].as_array().ok_or("input must be an array")?;
    let mut called = HashSet::new();
    let mut answered = HashSet::new();
    for item in input {
        match item["type"].as_str() {
            Some("function_call") => {
                let id = item["call_id"].as_str().unwrap_or("");
                if !issued.contains(id) {
                    return Err(format!("input holds a call the model never made: {id:?}"));
                }
                called.insert(id.to_string());
            }
            Some("function_call_output") => {
                let id = item["call_id"].as_str().unwrap_or("");
                if !called.contains(id) {
                    return Err(format!(
                        "function_call_output {id:?} answers no function_call before it"
                    ));
                }
                if !answered.insert(id.to_string()) {
                    return Err(format!("call {id:?} is answered twice"));
                }
            }
            Some("message" | "reasoning") => {}
            other => return Err(format!("unexpected input item type {other:?}")),
        }
    }
    for id in pending {
        if !answered.contains(id) {
            return Err(format!("call {id:?} of the last turn is not answered"));
        }
    }
    Ok(())
}

/// What the fake names a thread when Codex's TUI asks ([`is_thread_title`]).
pub const THREAD_TITLE: &str = "Loki conformance";

/// Whether `body` is the side request Codex 0.171's TUI makes, in a thread of its own and at the
/// same time as the first turn, to title a new thread (`thread_source: "thread_title"` in its
/// turn metadata). It is answered with [`THREAD_TITLE`], outside the script: its timing is the
/// TUI's, not the conversation's.
#[must_use]
pub fn is_thread_title(body: &Value) -> bool {
    body["client_metadata"]["x-codex-turn-metadata"]
        .as_str()
        .and_then(|m| serde_json::from_str::<Value>(m).ok())
        .is_some_and(|m| m["thread_source"] == "thread_title")
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
        let title = parsed.as_ref().is_ok_and(is_thread_title);
        let verdict = if method != Method::POST || uri.path() != "/v1/responses" {
            Err(format!("unexpected {method} {}", uri.path()))
        } else {
            match parsed {
                Err(e) => Err(e.clone()),
                // A side thread of its own: no calls of the script's thread are pending there.
                Ok(v) if title => validate(headers, v, &s.expect, &HashSet::new(), &[]),
                Ok(v) => validate(headers, v, &s.expect, &s.issued, &s.pending),
            }
        };
        match verdict {
            Err(reason) => {
                s.ledger.violations.push(format!("request {n}: {reason}"));
                Err(reason)
            }
            Ok(()) if title => Ok(Some((
                ResponsesTurn::text(THREAD_TITLE),
                format!("resp_{n}"),
            ))),
            Ok(()) => match s.queue.pop_front() {
                None => {
                    let reason = format!("request {n}: no turn is queued");
                    s.ledger.violations.push(reason.clone());
                    Err(reason)
                }
                Some(Scripted::Hang) => Ok(None),
                Some(Scripted::Turn(t)) => {
                    let ids = t.call_ids();
                    s.issued.extend(ids.iter().cloned());
                    s.pending = ids;
                    Ok(Some((t, format!("resp_{n}"))))
                }
            },
        }
    };
    match reply {
        Err(reason) => Response::builder()
            .status(StatusCode::BAD_REQUEST)
            .header("content-type", "application/json")
            .body(Body::from(
                json!({"error": {"type": "invalid_request_error", "message": reason}}).to_string(),
            ))
            .unwrap(),
        Ok(None) => {
            tokio::time::sleep(HANG).await;
            Response::builder()
                .status(StatusCode::GATEWAY_TIMEOUT)
                .body(Body::empty())
                .unwrap()
        }
        Ok(Some((turn, id))) => {
            let frames: Vec<Result<Bytes, Infallible>> = turn
                .events(&id)
                .into_iter()
                .map(|(name, data)| Ok(Bytes::from(format!("event: {name}\ndata: {data}\n\n"))))
                .collect();
            Response::builder()
                .status(StatusCode::OK)
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(futures_util::stream::iter(frames)))
                .unwrap()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("authorization".to_string(), "Bearer k".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ])
    }

    #[test]
    fn the_tuis_thread_title_request_is_told_apart() {
        let meta = |source: &str| {
            json!({"client_metadata": {"x-codex-turn-metadata":
                json!({"thread_source": source, "request_kind": "turn"}).to_string()}})
        };
        assert!(is_thread_title(&meta("thread_title")));
        assert!(!is_thread_title(&meta("user")));
        assert!(!is_thread_title(&json!({"input": []})));
    }

    #[test]
    fn the_history_must_answer_every_call() {
        let e = Expect {
            api_key: "k".into(),
            model: "m".into(),
        };
        let issued = HashSet::from(["c1".to_string()]);
        let call = json!({"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"});
        let out = json!({"type": "function_call_output", "call_id": "c1", "output": "ok"});
        let body =
            |input: Value| json!({"model": "m", "stream": true, "input": input, "tools": []});
        let pending = ["c1".to_string()];
        assert!(validate(&headers(), &body(json!([call, out])), &e, &issued, &pending).is_ok());
        assert!(
            validate(&headers(), &body(json!([call])), &e, &issued, &pending)
                .unwrap_err()
                .contains("not answered")
        );
        assert!(
            validate(&headers(), &body(json!([out])), &e, &issued, &[])
                .unwrap_err()
                .contains("answers no function_call")
        );
        let mut h = headers();
        h.insert("authorization".into(), "Bearer other".into());
        assert!(validate(&h, &body(json!([])), &e, &issued, &[]).is_err());
    }
}
