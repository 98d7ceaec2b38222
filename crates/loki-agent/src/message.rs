//! The provider-neutral conversation: what goes to a model ([`Request`]) and what comes back
//! ([`Response`]). Each wire format (OpenAI, Anthropic) translates to and from these types.

use loki_clients::Usage;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool the model may call: its name, what it does and a JSON Schema of its arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// A JSON Schema with `"type": "object"` at the top.
    pub parameters: Value,
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the provider gave the call; the tool result answers it.
    pub id: String,
    pub name: String,
    /// The arguments as the model sent them. Normally an object; anything else is reported back
    /// to the model as an error. When the wire carried text that is not JSON, this holds that
    /// text as a string and [`ToolCall::arguments_error`] says why it did not parse.
    pub arguments: Value,
    /// Set when the arguments were not valid JSON (OpenAI sends them as a JSON *string*).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_error: Option<String>,
}

impl ToolCall {
    /// The arguments as the wire text OpenAI expects back: the model's own text when it did not
    /// parse (so the conversation shows what it really sent), else compact JSON.
    #[must_use]
    pub fn arguments_text(&self) -> String {
        match (&self.arguments, &self.arguments_error) {
            (Value::String(raw), Some(_)) => raw.clone(),
            (v, _) => v.to_string(),
        }
    }

    /// Builds a call from arguments received as text: invalid JSON is kept, not dropped.
    #[must_use]
    pub fn from_text(id: String, name: String, text: &str) -> ToolCall {
        // An empty string is how some servers send "no arguments".
        let text = if text.trim().is_empty() { "{}" } else { text };
        match serde_json::from_str::<Value>(text) {
            Ok(arguments) => ToolCall {
                id,
                name,
                arguments,
                arguments_error: None,
            },
            Err(e) => ToolCall {
                id,
                name,
                arguments: Value::String(text.to_string()),
                arguments_error: Some(e.to_string()),
            },
        }
    }
}

/// One message of the conversation (the system prompt travels apart, in [`Request::system`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    User {
        text: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call; results follow the assistant message that made the calls.
    Tool {
        call_id: String,
        content: String,
        #[serde(default)]
        is_error: bool,
    },
}

/// Everything a provider needs for one model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    /// Upper bound on the reply's output tokens (Anthropic requires one).
    pub max_output_tokens: u32,
}

/// Why the model stopped producing output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// It finished its turn.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output limit.
    MaxTokens,
    /// The provider refused or filtered the content.
    Refusal,
    /// Anything else, with the provider's word for it.
    Other(String),
}

/// The assistant's turn and what it cost in tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub stop: StopReason,
    /// The model that answered, as the provider reported it (or as requested).
    pub model: String,
}

impl Response {
    /// The assistant message to append to the conversation.
    #[must_use]
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            text: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_argument_text_is_kept_with_its_error() {
        let c = ToolCall::from_text("c1".into(), "edit".into(), "{\"path\": ");
        assert_eq!(c.arguments, Value::String("{\"path\": ".into()));
        assert!(c.arguments_error.is_some());
        assert_eq!(c.arguments_text(), "{\"path\": ");
        let ok = ToolCall::from_text("c2".into(), "finish".into(), "");
        assert_eq!(ok.arguments, serde_json::json!({}));
        assert_eq!(ok.arguments_text(), "{}");
    }
}
