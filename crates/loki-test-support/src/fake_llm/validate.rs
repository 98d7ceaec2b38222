//! What the fake checks of every request (see the module doc): auth headers, the model, the tool
//! schema shape and the order of tool calls and results.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use super::Expect;

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
    check_openai_tools(body)?;
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
        check_openai_message(i, m, role, &mut pending)?;
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
    check_anthropic_tools(body)?;
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
            check_results(i, &blocks, &expected_results)?;
            expected_results.clear();
        } else {
            expected_results.extend(check_assistant_blocks(i, &blocks)?);
        }
    }
    Ok(())
}

/// A Chat Completions request's tools: functions with valid, distinct names, a description and
/// an object schema.
fn check_openai_tools(body: &Value) -> Result<(), String> {
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
    Ok(())
}

/// Message `i` of a Chat Completions request, of `role`: string contents, well-formed tool
/// calls (their ids go to `pending`), and tool results that answer one of `pending`.
fn check_openai_message(
    i: usize,
    m: &Value,
    role: &str,
    pending: &mut Vec<String>,
) -> Result<(), String> {
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
    Ok(())
}

/// A Messages API request's tools: valid, distinct names, a description, an object schema and
/// only ephemeral `cache_control`.
fn check_anthropic_tools(body: &Value) -> Result<(), String> {
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
    Ok(())
}

/// The user message `i`'s blocks: its tool_result blocks first, answering exactly the
/// `expected` tool_use ids of the assistant message before it.
fn check_results(i: usize, blocks: &[Value], expected: &[String]) -> Result<(), String> {
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
        if !expected.contains(&id) {
            return Err(format!(
                "message {i}: tool_result {id:?} does not answer a tool_use of the assistant message before it"
            ));
        }
        answered.push(id);
    }
    let missing: Vec<&String> = expected
        .iter()
        .filter(|id| !answered.contains(id))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "message {i}: tool_use ids {missing:?} have no tool_result"
        ));
    }
    Ok(())
}

/// The assistant message `i`'s blocks: non-empty text or well-formed tool_use; returns the
/// tool_use ids the next user message must answer.
fn check_assistant_blocks(i: usize, blocks: &[Value]) -> Result<Vec<String>, String> {
    let mut expected_results = Vec::new();
    for b in blocks {
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
    Ok(expected_results)
}
