//! The `openai` provider: the Chat Completions wire format (`POST {base_url}/chat/completions`),
//! spoken by OpenAI, Ollama, vLLM, LiteLLM and OpenRouter.
//!
//! Request: `model`, `messages` (system first; assistant `tool_calls` with `arguments` as a JSON
//! *string*; each result a `tool` message with its `tool_call_id`), `tools` as
//! `{"type":"function","function":{name, description, parameters}}`, `tool_choice: "auto"`,
//! and when streaming `stream_options.include_usage` so the last chunk carries usage. The output
//! limit goes by the name the server understands ([`limit_field_for`]): `max_completion_tokens`
//! on api.openai.com (its reasoning models refuse `max_tokens`), `max_tokens` elsewhere (Ollama,
//! vLLM, LiteLLM and OpenRouter take it; not all of them know the newer name).
//!
//! Reply: a JSON `chat.completion`, or SSE `chat.completion.chunk`s ending in `data: [DONE]`;
//! tool-call fragments are joined by `index`. Arguments that are not valid JSON are kept as text
//! and reported to the model by the tool layer. `usage.prompt_tokens` includes cached tokens;
//! [`Usage::input_tokens`] does not, so `prompt_tokens_details.cached_tokens` is subtracted.
//!
//! The API key may be empty (Ollama needs none): then no `Authorization` header is sent.

use serde_json::{Value, json};

use crate::error::AgentError;
use crate::failure::{FailureKind, ProviderFailure};
use crate::http::{self, HttpOptions, HttpProvider, Wire};
use loki_clients::Usage;

use crate::message::{Message, Request, Response, StopReason, ToolCall};
use crate::sse::SseEvent;

const PROVIDER: &str = "openai";

const WIRE: Wire = Wire {
    provider: PROVIDER,
    path: "/chat/completions",
    auth: auth_headers,
    body: wire_body,
    done: is_done,
    parse_json: parse_response,
    parse_events: fold_stream,
};

/// The Chat Completions provider at `base_url`, the API root including `/v1` (e.g.
/// `http://localhost:11434/v1`).
#[must_use]
pub fn provider(base_url: &str, api_key: &str, model: &str, opts: HttpOptions) -> HttpProvider {
    HttpProvider::new(WIRE, base_url, api_key, model, opts)
}

/// An empty key (Ollama) sends no `Authorization` header at all.
fn auth_headers(key: &str) -> Vec<(&'static str, String)> {
    if key.is_empty() {
        Vec::new()
    } else {
        vec![("authorization", format!("Bearer {key}"))]
    }
}

fn wire_body(model: &str, req: &Request, stream: bool, base_url: &str) -> Value {
    request_body(model, req, stream, limit_field_for(base_url))
}

/// The request field that limits output tokens on the server at `base_url`.
#[must_use]
pub fn limit_field_for(base_url: &str) -> &'static str {
    let host = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest)
        .split(['/', ':'])
        .next()
        .unwrap_or_default();
    if host.eq_ignore_ascii_case("api.openai.com") {
        "max_completion_tokens"
    } else {
        "max_tokens"
    }
}

fn is_done(e: &SseEvent) -> bool {
    e.data.trim() == "[DONE]"
}

/// The request JSON (pure); `limit_field` names the output limit ([`limit_field_for`]).
#[must_use]
pub fn request_body(model: &str, req: &Request, stream: bool, limit_field: &str) -> Value {
    let mut messages = vec![json!({"role": "system", "content": req.system})];
    for m in &req.messages {
        messages.push(match m {
            Message::User { text } => json!({"role": "user", "content": text}),
            Message::Assistant { text, tool_calls } => {
                let mut msg = json!({"role": "assistant", "content": text});
                if !tool_calls.is_empty() {
                    msg["tool_calls"] = tool_calls
                        .iter()
                        .map(|c| {
                            json!({"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": c.arguments_text()}})
                        })
                        .collect();
                }
                msg
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        });
    }
    let tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            json!({"type": "function",
                   "function": {"name": t.name, "description": t.description, "parameters": t.parameters}})
        })
        .collect();
    let mut body = json!({"model": model, "messages": messages});
    body[limit_field] = json!(req.max_output_tokens);
    if !tools.is_empty() {
        body["tools"] = Value::Array(tools);
        body["tool_choice"] = json!("auto");
    }
    if stream {
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

fn bad(message: &str, body: &Value) -> AgentError {
    http::bad(
        PROVIDER,
        format!(
            "{message}; the reply was {}",
            crate::context::clip(&body.to_string(), 200)
        ),
    )
}

fn error_in_body(v: &Value) -> Option<AgentError> {
    let err = v.get("error").filter(|e| !e.is_null())?;
    let text = err.to_string();
    let message = err["message"].as_str().unwrap_or(&text).to_string();
    let kind = if http::is_context_length(&text) {
        FailureKind::ContextLength
    } else {
        FailureKind::ServerError
    };
    Some(ProviderFailure::new(PROVIDER, kind, message).into())
}

fn usage(v: &Value) -> Usage {
    let n = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let cached = n("/prompt_tokens_details/cached_tokens");
    Usage {
        input_tokens: n("/prompt_tokens").saturating_sub(cached),
        output_tokens: n("/completion_tokens"),
        cache_read_tokens: cached,
        cache_write_tokens: 0,
    }
}

fn stop_reason(reason: Option<&str>, has_calls: bool) -> StopReason {
    match reason {
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal,
        Some(other) => StopReason::Other(other.to_string()),
        None if has_calls => StopReason::ToolUse,
        None => StopReason::EndTurn,
    }
}

fn non_empty(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

/// A non-streamed `chat.completion` (pure).
pub fn parse_response(v: &Value, requested_model: &str) -> Result<Response, AgentError> {
    if let Some(e) = error_in_body(v) {
        return Err(e);
    }
    let choice = v
        .pointer("/choices/0")
        .ok_or_else(|| bad("no choices in the reply", v))?;
    let msg = &choice["message"];
    let mut tool_calls = Vec::new();
    for (i, c) in msg["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let name = c
            .pointer("/function/name")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a tool call has no function name", v))?;
        let args = match c.pointer("/function/arguments") {
            Some(Value::String(s)) => s.clone(),
            // Some compatible servers (Ollama's native shape) send an object.
            Some(other) if !other.is_null() => other.to_string(),
            _ => String::new(),
        };
        let id = c["id"]
            .as_str()
            .map_or_else(|| format!("call_{i}"), str::to_string);
        tool_calls.push(ToolCall::from_text(id, name.to_string(), &args));
    }
    let text = msg["content"]
        .as_str()
        .map(str::to_string)
        .and_then(non_empty);
    Ok(Response {
        stop: stop_reason(choice["finish_reason"].as_str(), !tool_calls.is_empty()),
        text,
        tool_calls,
        usage: usage(&v["usage"]),
        model: v["model"].as_str().unwrap_or(requested_model).to_string(),
    })
}

#[derive(Default)]
struct PartialCall {
    id: Option<String>,
    name: String,
    arguments: String,
}

/// A streamed reply: `chat.completion.chunk` events up to `[DONE]` (pure).
pub fn fold_stream(events: &[SseEvent], requested_model: &str) -> Result<Response, AgentError> {
    let mut text = String::new();
    let mut calls: Vec<PartialCall> = Vec::new();
    let mut finish: Option<String> = None;
    let mut usage_total = Usage::default();
    let mut model = requested_model.to_string();
    for e in events {
        if is_done(e) {
            break;
        }
        let v: Value = serde_json::from_str(&e.data).map_err(|err| {
            http::bad(
                PROVIDER,
                format!(
                    "a stream event is not JSON: {err}; it was {:?}",
                    crate::context::clip(&e.data, 120)
                ),
            )
        })?;
        if let Some(err) = error_in_body(&v) {
            return Err(err);
        }
        if let Some(m) = v["model"].as_str() {
            model = m.to_string();
        }
        if v["usage"].is_object() {
            usage_total = usage(&v["usage"]);
        }
        let Some(choice) = v.pointer("/choices/0") else {
            continue;
        };
        let delta = &choice["delta"];
        if let Some(t) = delta["content"].as_str() {
            text.push_str(t);
        }
        for c in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = c["index"]
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .unwrap_or(calls.len().saturating_sub(1));
            if calls.len() <= index {
                calls.resize_with(index + 1, PartialCall::default);
            }
            let p = &mut calls[index];
            if let Some(id) = c["id"].as_str() {
                p.id = Some(id.to_string());
            }
            if let Some(n) = c.pointer("/function/name").and_then(Value::as_str) {
                p.name.push_str(n);
            }
            if let Some(a) = c.pointer("/function/arguments").and_then(Value::as_str) {
                p.arguments.push_str(a);
            }
        }
        if let Some(f) = choice["finish_reason"].as_str() {
            finish = Some(f.to_string());
        }
    }
    let tool_calls: Vec<ToolCall> = calls
        .into_iter()
        .enumerate()
        .filter(|(_, p)| !p.name.is_empty())
        .map(|(i, p)| {
            let id = p.id.unwrap_or_else(|| format!("call_{i}"));
            ToolCall::from_text(id, p.name, &p.arguments)
        })
        .collect();
    Ok(Response {
        stop: stop_reason(finish.as_deref(), !tool_calls.is_empty()),
        text: non_empty(text),
        tool_calls,
        usage: usage_total,
        model,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::SseParser;

    #[test]
    fn a_streamed_tool_call_is_joined_from_fragments() {
        let stream = concat!(
            "data: {\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Let me \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"look.\",\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"a.txt\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":20,\"prompt_tokens_details\":{\"cached_tokens\":60}}}\n\n",
            "data: [DONE]\n\n"
        );
        let events = SseParser::new().push(stream.as_bytes());
        let r = fold_stream(&events, "gpt-4o").unwrap();
        assert_eq!(r.text.as_deref(), Some("Let me look."));
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].id, "call_1");
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "a.txt"}));
        assert_eq!(r.stop, StopReason::ToolUse);
        assert_eq!(
            r.usage,
            Usage {
                input_tokens: 40,
                output_tokens: 20,
                cache_read_tokens: 60,
                cache_write_tokens: 0
            }
        );
        assert_eq!(r.model, "gpt-4o-2024-08-06");
    }

    #[test]
    fn the_request_carries_tool_results_after_their_call() {
        let req = Request {
            system: "sys".into(),
            messages: vec![
                Message::User { text: "do".into() },
                Message::Assistant {
                    text: None,
                    tool_calls: vec![ToolCall::from_text("c1".into(), "run".into(), "{bad")],
                },
                Message::Tool {
                    call_id: "c1".into(),
                    content: "out".into(),
                    is_error: true,
                },
            ],
            tools: vec![],
            max_output_tokens: 10,
        };
        assert_eq!(
            limit_field_for("https://api.openai.com/v1"),
            "max_completion_tokens"
        );
        assert_eq!(limit_field_for("http://localhost:11434/v1"), "max_tokens");
        assert_eq!(
            limit_field_for("https://openrouter.ai/api/v1"),
            "max_tokens"
        );
        let b = request_body("m", &req, false, "max_tokens");
        assert_eq!(b["max_tokens"], 10);
        assert!(b.get("max_completion_tokens").is_none());
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{bad"
        );
        assert_eq!(
            b["messages"][3],
            json!({"role":"tool","tool_call_id":"c1","content":"out"})
        );
        assert!(b.get("stream").is_none());
        assert!(b.get("tools").is_none());
    }
}
