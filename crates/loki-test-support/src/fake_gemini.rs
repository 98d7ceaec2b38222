//! A loopback fake of the Gemini API (`generativelanguage.googleapis.com`, `v1beta`), the server
//! the real Gemini CLI talks to when `GOOGLE_GEMINI_BASE_URL` points at it.
//!
//! - **Endpoints**: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (what Gemini CLI
//!   0.61 sends for every agent turn) and `POST /v1beta/models/<model>:generateContent` (the
//!   non-streamed form the CLI uses for side calls). Both take the next scripted reply. Nothing
//!   else is answered: any other path (`:countTokens`, a model list, Code Assist's
//!   `loadCodeAssist`, telemetry) is a violation, answered 404. Gemini CLI 0.61 sends none of those
//!   when it is run as [`gemini_cli_settings`] configures it: an explicit `--model` (so the model
//!   router's classifier call is not made), `model.skipNextSpeakerCheck` (its default, so no
//!   "next speaker" call), usage statistics and telemetry off, API-key auth (so no Code Assist).
//! - **Replies** ([`GeminiTurn`]): text and `functionCall` parts, with `usageMetadata`; streamed
//!   as SSE chunks (text split in two, calls in one chunk, the last chunk carrying `finishReason`
//!   and usage), or as one JSON body for `:generateContent`. Any [`Reply`] of
//!   [`crate::fake_llm`] (errors, stalls, dropped connections) can be queued as well.
//! - **Validation** ([`validate_gemini`]), as strict as the real API where the CLI could get it
//!   wrong: the API key (`x-goog-api-key` header or `key=` query), JSON content type, the model
//!   in the path, `alt=sse` on the streamed endpoint, `contents` whose roles are `user`/`model`,
//!   start with `user`, alternate and end with `user`; every part carries exactly one datum
//!   (`text`, `functionCall`, `functionResponse`, `inlineData`, `fileData`, …); every
//!   `functionResponse` answers a `functionCall` of the model turn right before it (by name, and
//!   by id when both carry one) and every call is answered before the conversation moves on; tool
//!   declarations have a valid unique name, a description and exactly one object schema
//!   (`parameters` or `parametersJsonSchema`). A request that fails, or comes when nothing is
//!   queued, is answered 400 in Google's error shape and recorded in [`FakeGemini::violations`].
//! - **Recording**: every request (path with query, lower-cased headers, JSON body).
//!   [`FakeGemini::assert_clean`] fails the test on a violation or an unconsumed reply.
//!
//! Start it inside a tokio runtime; dropping the [`FakeGemini`] stops the server.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use serde_json::{Value, json};

use crate::fake_llm::{Recorded, Reply};

/// What the fake expects of every request.
#[derive(Debug, Clone)]
pub struct GeminiExpect {
    pub api_key: String,
    pub model: String,
}

/// A model turn to serve.
#[derive(Debug, Clone, Default)]
pub struct GeminiTurn {
    pub text: Option<String>,
    /// `(function name, args object)`, sent without ids as the Gemini API does (the CLI assigns
    /// its own).
    pub calls: Vec<(String, Value)>,
    /// Prompt, candidates and cached-content token counts.
    pub usage: [u64; 3],
}

impl GeminiTurn {
    #[must_use]
    pub fn text(text: &str) -> GeminiTurn {
        GeminiTurn {
            text: Some(text.into()),
            usage: [100, 10, 0],
            ..GeminiTurn::default()
        }
    }

    /// One `functionCall` part.
    #[must_use]
    pub fn call(name: &str, args: &Value) -> GeminiTurn {
        GeminiTurn {
            calls: vec![(name.into(), args.clone())],
            usage: [100, 10, 0],
            ..GeminiTurn::default()
        }
    }

    /// Adds another `functionCall` part (parallel calls in one turn).
    #[must_use]
    pub fn and_call(mut self, name: &str, args: &Value) -> GeminiTurn {
        self.calls.push((name.into(), args.clone()));
        self
    }

    #[must_use]
    pub fn with_usage(mut self, usage: [u64; 3]) -> GeminiTurn {
        self.usage = usage;
        self
    }

    fn usage_metadata(&self) -> Value {
        let [p, c, cached] = self.usage;
        let mut u = json!({"promptTokenCount": p, "candidatesTokenCount": c,
                           "totalTokenCount": p + c});
        if cached > 0 {
            u["cachedContentTokenCount"] = json!(cached);
        }
        u
    }

    fn call_parts(&self) -> Vec<Value> {
        self.calls
            .iter()
            .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}}))
            .collect()
    }

    fn chunk(parts: &[Value], finish: Option<&str>, usage: Option<Value>) -> Value {
        let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
        if let Some(f) = finish {
            candidate["finishReason"] = json!(f);
        }
        let mut c = json!({"candidates": [candidate], "modelVersion": "fake-gemini",
                           "responseId": "fake-response"});
        if let Some(u) = usage {
            c["usageMetadata"] = u;
        }
        c
    }

    /// This turn as one `generateContent` response body.
    #[must_use]
    pub fn body(&self) -> Value {
        let mut parts = Vec::new();
        if let Some(t) = &self.text {
            parts.push(json!({"text": t}));
        }
        parts.extend(self.call_parts());
        GeminiTurn::chunk(&parts, Some("STOP"), Some(self.usage_metadata()))
    }

    /// This turn as a `streamGenerateContent?alt=sse` reply.
    #[must_use]
    pub fn sse(&self) -> Reply {
        let mut chunks = Vec::new();
        if let Some(t) = &self.text {
            let mut mid = t.len() / 2;
            while !t.is_char_boundary(mid) {
                mid -= 1;
            }
            chunks.push(GeminiTurn::chunk(&[json!({"text": &t[..mid]})], None, None));
            chunks.push(GeminiTurn::chunk(&[json!({"text": &t[mid..]})], None, None));
        }
        if !self.calls.is_empty() {
            chunks.push(GeminiTurn::chunk(&self.call_parts(), None, None));
        }
        // The real stream's last chunk carries the finish reason and the usage; its text part
        // may be empty.
        chunks.push(GeminiTurn::chunk(
            &[json!({"text": ""})],
            Some("STOP"),
            Some(self.usage_metadata()),
        ));
        Reply::Sse {
            events: chunks.into_iter().map(|c| (None, c.to_string())).collect(),
            stall_after: None,
            delay: Duration::ZERO,
        }
    }
}

#[derive(Debug)]
struct Shared {
    expect: GeminiExpect,
    replies: VecDeque<Reply>,
    ledger: crate::fake_server::Ledger,
}

/// A running fake Gemini API.
#[derive(Debug)]
pub struct FakeGemini {
    shared: Arc<Mutex<Shared>>,
    server: crate::fake_server::Loopback,
}

impl FakeGemini {
    /// Binds `127.0.0.1:0` and serves until dropped.
    pub async fn start(expect: GeminiExpect) -> FakeGemini {
        let shared = Arc::new(Mutex::new(Shared {
            expect,
            replies: VecDeque::new(),
            ledger: crate::fake_server::Ledger::default(),
        }));
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = crate::fake_server::Loopback::serve(app).await;
        FakeGemini { shared, server }
    }

    /// The value for `GOOGLE_GEMINI_BASE_URL` (the SDK appends `/v1beta/models/...`).
    #[must_use]
    pub fn base_url(&self) -> String {
        self.server.origin()
    }

    /// Queues a reply.
    pub fn push(&self, reply: Reply) -> &Self {
        self.shared.lock().unwrap().replies.push_back(reply);
        self
    }

    /// Queues a turn, streamed.
    pub fn push_turn(&self, turn: &GeminiTurn) -> &Self {
        self.push(turn.sse())
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
        s.ledger.assert_clean("fake Gemini API", s.replies.len());
    }
}

/// The text of every `text` part of every content of a recorded request, in order, joined by
/// newlines: what the model was shown.
#[must_use]
pub fn contents_text(body: &Value) -> String {
    let mut out = Vec::new();
    for c in body["contents"].as_array().into_iter().flatten() {
        for p in c["parts"].as_array().into_iter().flatten() {
            if let Some(t) = p["text"].as_str() {
                out.push(t.to_string());
            }
        }
    }
    out.join("\n")
}

/// The settings (`~/.gemini/settings.json`) that make Gemini CLI 0.61 talk to the fake only:
/// API-key auth (a `GOOGLE_GEMINI_BASE_URL` alone selects the "gateway" auth type, which 0.61's
/// headless mode refuses with "Invalid auth method selected."), no usage statistics, telemetry,
/// auto-update or update notification.
#[must_use]
pub fn gemini_cli_settings() -> Value {
    json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "model": {"skipNextSpeakerCheck": true}
    })
}

fn google_error(status: u16, message: &str) -> Response {
    let name = match status {
        400 => "INVALID_ARGUMENT",
        404 => "NOT_FOUND",
        _ => "INTERNAL",
    };
    Response::builder()
        .status(StatusCode::from_u16(status).unwrap())
        .header("content-type", "application/json")
        .body(Body::from(
            json!({"error": {"code": status, "message": message, "status": name}}).to_string(),
        ))
        .unwrap()
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
    let target = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_string(), |pq| pq.as_str().to_string());
    let reply = {
        let mut s = shared.lock().unwrap();
        let n = s.ledger.record(&req, &target.clone());
        let verdict = match route(&method, &uri, &s.expect) {
            Err((status, reason)) => Err((status, reason)),
            Ok(()) => match parsed {
                Err(e) => Err((400, e.clone())),
                Ok(v) => validate_gemini(headers, uri.query(), v, &s.expect).map_err(|r| (400, r)),
            },
        };
        match verdict {
            Err((status, reason)) => {
                s.ledger
                    .violations
                    .push(format!("request {n} ({method} {target}): {reason}"));
                Err((status, reason))
            }
            Ok(()) => s.replies.pop_front().ok_or_else(|| {
                let reason = format!("request {n}: no reply is queued");
                s.ledger.violations.push(reason.clone());
                (400, reason)
            }),
        }
    };
    match reply {
        Err((status, reason)) => google_error(status, &reason),
        Ok(r) => crate::fake_llm::serve(r).await,
    }
}

/// Which endpoint a request is for: only the two generate methods of the expected model exist.
fn route(method: &Method, uri: &Uri, expect: &GeminiExpect) -> Result<(), (u16, String)> {
    let path = uri.path();
    let Some(rest) = path.strip_prefix("/v1beta/models/") else {
        return Err((404, format!("no such endpoint {path}")));
    };
    let Some((model, verb)) = rest.split_once(':') else {
        return Err((404, format!("no such endpoint {path}")));
    };
    if method != Method::POST {
        return Err((404, format!("{method} is not served for {path}")));
    }
    if !matches!(verb, "generateContent" | "streamGenerateContent") {
        return Err((404, format!("the fake does not serve :{verb}")));
    }
    if model != expect.model {
        return Err((
            404,
            format!("model must be {:?}, got {model:?}", expect.model),
        ));
    }
    let sse = uri
        .query()
        .is_some_and(|q| q.split('&').any(|kv| kv == "alt=sse"));
    if verb == "streamGenerateContent" && !sse {
        return Err((400, "streamGenerateContent without alt=sse".into()));
    }
    Ok(())
}

/// Function names the API accepts: letters, digits, `_ . : -`, at most 64, not starting with a
/// digit.
fn valid_function_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 64
        && !n.starts_with(|c: char| c.is_ascii_digit())
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// The fields of a part that carry its datum; exactly one per part. `thought` and
/// `thoughtSignature` are metadata beside it.
const PART_DATA: [&str; 7] = [
    "text",
    "functionCall",
    "functionResponse",
    "inlineData",
    "fileData",
    "executableCode",
    "codeExecutionResult",
];

/// Checks a generate request (pure).
pub fn validate_gemini(
    headers: &BTreeMap<String, String>,
    query: Option<&str>,
    body: &Value,
    expect: &GeminiExpect,
) -> Result<(), String> {
    check_gemini_headers(headers, query, expect)?;
    check_function_declarations(body)?;
    let contents = body["contents"]
        .as_array()
        .ok_or("contents must be an array")?;
    if contents.is_empty() {
        return Err("contents is empty".into());
    }
    // The calls of the last model turn, waiting for their responses: (name, id).
    let mut pending: Vec<(String, Option<String>)> = Vec::new();
    let mut last_role = "";
    for (i, c) in contents.iter().enumerate() {
        let role = c["role"].as_str().unwrap_or("");
        if !matches!(role, "user" | "model") {
            return Err(format!(
                "content {i}: role must be user or model, got {role:?}"
            ));
        }
        if i == 0 && role != "user" {
            return Err("the first content must be the user's".into());
        }
        if role == last_role {
            return Err(format!(
                "content {i}: two {role} contents in a row (roles must alternate)"
            ));
        }
        let calls = check_parts(i, c, role, &mut pending)?;
        if !pending.is_empty() {
            return Err(format!(
                "content {i}: the functionCalls {pending:?} of the model turn before it are not answered"
            ));
        }
        pending = calls;
        last_role = role;
    }
    if last_role != "user" {
        return Err("the last content must be the user's".into());
    }
    if !pending.is_empty() {
        return Err(format!(
            "the request ends with unanswered calls {pending:?}"
        ));
    }
    Ok(())
}

/// The API key (`x-goog-api-key` or `key=` in the query) and the JSON content type.
fn check_gemini_headers(
    headers: &BTreeMap<String, String>,
    query: Option<&str>,
    expect: &GeminiExpect,
) -> Result<(), String> {
    let header_key = headers.get("x-goog-api-key").map(String::as_str);
    let query_key = query.and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("key=")));
    match (header_key, query_key) {
        (Some(k), _) | (None, Some(k)) if k == expect.api_key => {}
        (h, q) => {
            return Err(format!(
                "the API key must be {:?} (x-goog-api-key or key=), got header {h:?}, query {q:?}",
                expect.api_key
            ));
        }
    }
    if !headers
        .get("content-type")
        .is_some_and(|c| c.starts_with("application/json"))
    {
        return Err("content-type must be application/json".into());
    }
    Ok(())
}

/// The tools' function declarations: valid names, declared once, a description, and at most
/// one schema, an object.
fn check_function_declarations(body: &Value) -> Result<(), String> {
    let mut names = HashSet::new();
    for t in body["tools"].as_array().into_iter().flatten() {
        for f in t["functionDeclarations"].as_array().into_iter().flatten() {
            let name = f["name"].as_str().unwrap_or("");
            if !valid_function_name(name) || !f["description"].is_string() {
                return Err(format!("malformed function declaration {f}"));
            }
            let schema = match (f.get("parameters"), f.get("parametersJsonSchema")) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "function {name}: parameters and parametersJsonSchema are exclusive"
                    ));
                }
                (Some(s), None) | (None, Some(s)) => s,
                (None, None) => &Value::Null,
            };
            if !schema.is_null() {
                let ty = schema["type"].as_str().unwrap_or("");
                if !ty.eq_ignore_ascii_case("object") {
                    return Err(format!("function {name}: its schema must be an object"));
                }
            }
            if !names.insert(name.to_string()) {
                return Err(format!("function {name} is declared twice"));
            }
        }
    }
    Ok(())
}

/// The parts of content `i` (of `role`): one datum each, calls only from the model, responses
/// only from the user, each answering one of `pending` (removed from it). Returns the calls
/// this content makes.
fn check_parts(
    i: usize,
    c: &Value,
    role: &str,
    pending: &mut Vec<(String, Option<String>)>,
) -> Result<Vec<(String, Option<String>)>, String> {
    let parts = c["parts"]
        .as_array()
        .ok_or(format!("content {i}: parts must be an array"))?;
    if parts.is_empty() {
        return Err(format!("content {i}: parts is empty"));
    }
    let mut calls = Vec::new();
    for (j, p) in parts.iter().enumerate() {
        let data: Vec<&str> = PART_DATA
            .iter()
            .copied()
            .filter(|k| p.get(*k).is_some())
            .collect();
        if data.len() != 1 {
            return Err(format!(
                "content {i} part {j}: a part carries exactly one datum, found {data:?}"
            ));
        }
        match data[0] {
            "functionCall" if role != "model" => {
                return Err(format!("content {i}: a functionCall in a {role} content"));
            }
            "functionCall" => {
                let f = &p["functionCall"];
                let name = f["name"].as_str().unwrap_or("");
                if name.is_empty() || !f.get("args").is_none_or(Value::is_object) {
                    return Err(format!("content {i} part {j}: malformed functionCall {f}"));
                }
                calls.push((name.to_string(), f["id"].as_str().map(str::to_string)));
            }
            "functionResponse" if role != "user" => {
                return Err(format!(
                    "content {i}: a functionResponse in a {role} content"
                ));
            }
            "functionResponse" => answer(i, j, &p["functionResponse"], pending)?,
            "text" if !p["text"].is_string() => {
                return Err(format!("content {i} part {j}: text must be a string"));
            }
            _ => {}
        }
    }
    Ok(calls)
}

/// A functionResponse (part `j` of content `i`): an object response answering one pending call
/// by name (and id when both have one), which it takes out of `pending`.
fn answer(
    i: usize,
    j: usize,
    f: &Value,
    pending: &mut Vec<(String, Option<String>)>,
) -> Result<(), String> {
    let name = f["name"].as_str().unwrap_or("");
    let id = f["id"].as_str();
    if !f["response"].is_object() {
        return Err(format!(
            "content {i} part {j}: functionResponse.response must be an object"
        ));
    }
    let Some(pos) = pending.iter().position(|(n, pid)| {
        n == name
            && match (pid.as_deref(), id) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }) else {
        return Err(format!(
            "content {i}: functionResponse {name:?} (id {id:?}) answers no functionCall of the model turn before it"
        ));
    };
    pending.remove(pos);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok_headers() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("x-goog-api-key".to_string(), "k".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ])
    }

    fn expect() -> GeminiExpect {
        GeminiExpect {
            api_key: "k".into(),
            model: "gemini-2.5-pro".into(),
        }
    }

    fn check(body: &Value) -> Result<(), String> {
        validate_gemini(&ok_headers(), Some("alt=sse"), body, &expect())
    }

    #[test]
    fn a_tool_round_trip_is_valid() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "write it"}]},
            {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "write_file", "args": {"file_path": "a"}}, "thoughtSignature": "x"}]},
            {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "write_file", "response": {"output": "ok"}}}]}
        ], "tools": [{"functionDeclarations": [{"name": "write_file", "description": "w",
            "parametersJsonSchema": {"type": "object", "properties": {}}}]}]});
        check(&body).unwrap();
    }

    #[test]
    fn broken_requests_are_refused() {
        let user = |t: &str| json!({"role": "user", "parts": [{"text": t}]});
        let call = json!({"role": "model", "parts": [{"functionCall": {"name": "write_file", "args": {}}}]});
        let answer = |n: &str| json!({"role": "user", "parts": [{"functionResponse": {"name": n, "response": {}}}]});
        for (body, why) in [
            (json!({"contents": []}), "contents is empty"),
            (json!({"contents": [user("a"), user("b")]}), "alternate"),
            (
                json!({"contents": [user("a"), call.clone()]}),
                "last content",
            ),
            (
                json!({"contents": [user("a"), call.clone(), user("b")]}),
                "not answered",
            ),
            (
                json!({"contents": [user("a"), call, answer("replace")]}),
                "answers no functionCall",
            ),
            (
                json!({"contents": [{"role": "user", "parts": [{"text": "a", "functionCall": {}}]}]}),
                "exactly one datum",
            ),
            (
                json!({"contents": [user("a")], "tools": [{"functionDeclarations": [{"name": "1x", "description": ""}]}]}),
                "malformed",
            ),
        ] {
            let e = check(&body).unwrap_err();
            assert!(e.contains(why), "{e} should say {why}");
        }
        let mut h = ok_headers();
        h.remove("x-goog-api-key");
        let body = json!({"contents": [user("a")]});
        assert!(validate_gemini(&h, Some("alt=sse"), &body, &expect()).is_err());
        assert!(validate_gemini(&h, Some("alt=sse&key=k"), &body, &expect()).is_ok());
    }

    #[test]
    fn only_the_generate_endpoints_of_the_model_exist() {
        let r = |m: Method, u: &str| route(&m, &u.parse().unwrap(), &expect());
        assert!(
            r(
                Method::POST,
                "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
            )
            .is_ok()
        );
        assert!(
            r(
                Method::POST,
                "/v1beta/models/gemini-2.5-pro:generateContent"
            )
            .is_ok()
        );
        assert!(
            r(
                Method::POST,
                "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
            )
            .is_err()
        );
        assert!(r(Method::POST, "/v1beta/models/gemini-2.5-pro:countTokens").is_err());
        assert!(r(Method::POST, "/v1beta/models/other:generateContent").is_err());
        assert!(r(Method::GET, "/v1beta/models").is_err());
    }
}
