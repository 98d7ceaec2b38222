//! The `anthropic` provider: the Messages API (`POST {base_url}/v1/messages`, headers
//! `x-api-key` and `anthropic-version: 2023-06-01`).
//!
//! Request: `model`, `max_tokens`, `system` as one text block, `messages` alternating user and
//! assistant (consecutive tool results, and a user text right after them, share one user
//! message; `tool_result` blocks come first and answer the `tool_use` ids of the assistant
//! message just before), `tools` as `{name, description, input_schema}`.
//!
//! Prompt caching: the system block and the last tool carry `cache_control: ephemeral`. Tools
//! and system are the stable prefix of every call of a session, so from the second call on they
//! are read from the cache (0.1× input price) instead of billed again.
//!
//! Reply: a JSON `message` or the SSE events `message_start` … `message_stop`; `tool_use`
//! input arrives as `input_json_delta` fragments joined per content block. Usage maps directly:
//! `input_tokens` (uncached), `output_tokens`, `cache_read_input_tokens`,
//! `cache_creation_input_tokens`. An `error` event (`overloaded_error`, `api_error`) is
//! retryable.

use serde_json::{Value, json};

use crate::error::AgentError;
use crate::failure::{FailureKind, ProviderFailure};
use crate::http::{self, HttpOptions, HttpProvider, Wire};
use loki_clients::Usage;

use crate::message::{Message, Request, Response, StopReason, ToolCall};
use crate::sse::SseEvent;

/// The API version header every request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

const PROVIDER: &str = "anthropic";

const WIRE: Wire = Wire {
    provider: PROVIDER,
    path: "/v1/messages",
    auth: auth_headers,
    body: wire_body,
    done: is_done,
    parse_json: parse_response,
    parse_events: fold_stream,
};

/// The Messages API provider at `base_url`, the API root without `/v1` (e.g.
/// `https://api.anthropic.com`).
#[must_use]
pub fn provider(base_url: &str, api_key: &str, model: &str, opts: HttpOptions) -> HttpProvider {
    HttpProvider::new(WIRE, base_url, api_key, model, opts)
}

fn auth_headers(key: &str) -> Vec<(&'static str, String)> {
    vec![
        ("x-api-key", key.to_string()),
        ("anthropic-version", ANTHROPIC_VERSION.to_string()),
    ]
}

fn wire_body(model: &str, req: &Request, stream: bool, _base_url: &str) -> Value {
    request_body(model, req, stream)
}

fn is_done(e: &SseEvent) -> bool {
    e.event.as_deref() == Some("message_stop")
}

/// A tool's `input` must be an object on this wire; anything else a model sent is wrapped.
fn input_object(c: &ToolCall) -> Value {
    match &c.arguments {
        Value::Object(_) => c.arguments.clone(),
        other => json!({ "value": other }),
    }
}

/// The request JSON (pure).
#[must_use]
pub fn request_body(model: &str, req: &Request, stream: bool) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    // Blocks of the user message being assembled (tool results, then text).
    let mut user: Vec<Value> = Vec::new();
    for m in &req.messages {
        match m {
            Message::User { text } => user.push(json!({"type": "text", "text": text})),
            Message::Tool {
                call_id,
                content,
                is_error,
            } => user.push(json!({"type": "tool_result", "tool_use_id": call_id,
                                  "content": content, "is_error": is_error})),
            Message::Assistant { text, tool_calls } => {
                if !user.is_empty() {
                    messages.push(json!({"role": "user", "content": std::mem::take(&mut user)}));
                }
                let mut blocks = Vec::new();
                if let Some(t) = text.as_ref().filter(|t| !t.is_empty()) {
                    blocks.push(json!({"type": "text", "text": t}));
                }
                for c in tool_calls {
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name,
                                       "input": input_object(c)}));
                }
                if blocks.is_empty() {
                    // The API refuses empty content; an empty turn still has to keep its place.
                    blocks.push(json!({"type": "text", "text": "(no reply)"}));
                }
                messages.push(json!({"role": "assistant", "content": blocks}));
            }
        }
    }
    if !user.is_empty() {
        messages.push(json!({"role": "user", "content": user}));
    }
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(
            |t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}),
        )
        .collect();
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = json!({"type": "ephemeral"});
    }
    let mut body = json!({
        "model": model,
        "max_tokens": req.max_output_tokens,
        "system": [{"type": "text", "text": req.system, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    });
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
    }
    if stream {
        body["stream"] = json!(true);
    }
    body
}

fn stop_reason(s: Option<&str>) -> StopReason {
    match s {
        Some("end_turn" | "stop_sequence") | None => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_string()),
    }
}

/// Reads usage fields present in `v` into `u` (message_delta repeats only some of them).
fn merge_usage(u: &mut Usage, v: &Value) {
    let n = |k: &str| v.get(k).and_then(Value::as_u64);
    if let Some(x) = n("input_tokens") {
        u.input_tokens = x;
    }
    if let Some(x) = n("output_tokens") {
        u.output_tokens = x;
    }
    if let Some(x) = n("cache_read_input_tokens") {
        u.cache_read_tokens = x;
    }
    if let Some(x) = n("cache_creation_input_tokens") {
        u.cache_write_tokens = x;
    }
}

fn stream_error(v: &Value) -> AgentError {
    let kind = v
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("");
    let message = v
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or("unknown error")
        .to_string();
    if http::is_context_length(&message) {
        return ProviderFailure::new(PROVIDER, FailureKind::ContextLength, message).into();
    }
    let (kind_of, retryable) = match kind {
        "overloaded_error" | "api_error" => (FailureKind::ServerError, true),
        "rate_limit_error" => (FailureKind::RateLimited, true),
        "authentication_error" | "permission_error" => (FailureKind::Auth, false),
        _ => (FailureKind::ServerError, false),
    };
    ProviderFailure::new(PROVIDER, kind_of, format!("{kind}: {message}"))
        .with_retryable(retryable)
        .into()
}

/// A non-streamed `message` (pure).
pub fn parse_response(v: &Value, requested_model: &str) -> Result<Response, AgentError> {
    if v["type"] == "error" {
        return Err(stream_error(v));
    }
    let blocks = v["content"].as_array().ok_or_else(|| {
        http::bad(
            PROVIDER,
            format!(
                "the reply has no content array; it was {}",
                crate::context::clip(&v.to_string(), 200)
            ),
        )
    })?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for b in blocks {
        match b["type"].as_str() {
            Some("text") => text.push_str(b["text"].as_str().unwrap_or("")),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: b["id"].as_str().unwrap_or_default().to_string(),
                name: b["name"].as_str().unwrap_or_default().to_string(),
                arguments: b["input"].clone(),
                arguments_error: None,
            }),
            _ => {}
        }
    }
    let mut usage = Usage::default();
    merge_usage(&mut usage, &v["usage"]);
    Ok(Response {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        usage,
        stop: stop_reason(v["stop_reason"].as_str()),
        model: v["model"].as_str().unwrap_or(requested_model).to_string(),
    })
}

enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

/// A streamed reply, `message_start` … `message_stop` (pure).
pub fn fold_stream(events: &[SseEvent], requested_model: &str) -> Result<Response, AgentError> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut usage = Usage::default();
    let mut stop = None;
    let mut model = requested_model.to_string();
    for e in events {
        let v: Value = serde_json::from_str(&e.data).map_err(|err| {
            http::bad(
                PROVIDER,
                format!(
                    "a stream event is not JSON: {err}; it was {:?}",
                    crate::context::clip(&e.data, 120)
                ),
            )
        })?;
        let index = v["index"]
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .unwrap_or(0);
        match v["type"].as_str().unwrap_or("") {
            "error" => return Err(stream_error(&v)),
            "message_start" => {
                if let Some(m) = v.pointer("/message/model").and_then(Value::as_str) {
                    model = m.to_string();
                }
                merge_usage(&mut usage, &v["message"]["usage"]);
            }
            "content_block_start" => {
                let b = &v["content_block"];
                let block = match b["type"].as_str() {
                    Some("text") => Block::Text(b["text"].as_str().unwrap_or("").to_string()),
                    Some("tool_use") => Block::Tool {
                        id: b["id"].as_str().unwrap_or_default().to_string(),
                        name: b["name"].as_str().unwrap_or_default().to_string(),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                if blocks.len() <= index {
                    blocks.resize_with(index + 1, || Block::Other);
                }
                blocks[index] = block;
            }
            "content_block_delta" => match (blocks.get_mut(index), v["delta"]["type"].as_str()) {
                (Some(Block::Text(t)), Some("text_delta")) => {
                    t.push_str(v["delta"]["text"].as_str().unwrap_or(""));
                }
                (Some(Block::Tool { json, .. }), Some("input_json_delta")) => {
                    json.push_str(v["delta"]["partial_json"].as_str().unwrap_or(""));
                }
                _ => {}
            },
            "message_delta" => {
                if let Some(s) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    stop = Some(s.to_string());
                }
                merge_usage(&mut usage, &v["usage"]);
            }
            _ => {}
        }
    }
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for b in blocks {
        match b {
            Block::Text(t) => text.push_str(&t),
            Block::Tool { id, name, json } => tool_calls.push(ToolCall::from_text(id, name, &json)),
            Block::Other => {}
        }
    }
    Ok(Response {
        text: (!text.is_empty()).then_some(text),
        tool_calls,
        usage,
        stop: stop_reason(stop.as_deref()),
        model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolSpec;
    use crate::sse::SseParser;

    #[test]
    fn tool_results_and_following_text_share_one_user_message_and_the_prefix_is_cached() {
        let req = Request {
            system: "sys".into(),
            messages: vec![
                Message::User {
                    text: "task".into(),
                },
                Message::Assistant {
                    text: Some("ok".into()),
                    tool_calls: vec![ToolCall::from_text("t1".into(), "read_file".into(), "{}")],
                },
                Message::Tool {
                    call_id: "t1".into(),
                    content: "data".into(),
                    is_error: false,
                },
                Message::User {
                    text: "go on".into(),
                },
            ],
            tools: vec![ToolSpec {
                name: "read_file".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            max_output_tokens: 4096,
        };
        let b = request_body("claude-sonnet-4-5", &req, true);
        assert_eq!(b["messages"].as_array().unwrap().len(), 3);
        assert_eq!(b["messages"][2]["content"][0]["type"], "tool_result");
        assert_eq!(b["messages"][2]["content"][1]["text"], "go on");
        assert_eq!(b["system"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(b["tools"][0]["cache_control"]["type"], "ephemeral");
        assert_eq!(b["max_tokens"], 4096);
    }

    #[test]
    fn a_streamed_tool_use_is_joined_and_usage_includes_cache_buckets() {
        let stream = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-sonnet-4-5-20250929\",\"usage\":{\"input_tokens\":10,\"cache_read_input_tokens\":900,\"cache_creation_input_tokens\":50,\"output_tokens\":1}}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Reading.\"}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":\"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"a.txt\\\"}\"}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":30}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let events = SseParser::new().push(stream.as_bytes());
        let r = fold_stream(&events, "claude-sonnet-4-5").unwrap();
        assert_eq!(r.text.as_deref(), Some("Reading."));
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "a.txt"}));
        assert_eq!(r.tool_calls[0].id, "toolu_1");
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 10,
                output_tokens: 30,
                cache_read_tokens: 900,
                cache_write_tokens: 50
            }
        );
    }
}
