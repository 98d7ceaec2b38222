//! Scripted assistant turns ([`FakeTurn`]: text and tool calls) rendered in either wire format,
//! as one JSON body or as the SSE stream the real API sends.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Api, Reply};

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
