//! Shared fixtures: a worktree with one file to fix, fast HTTP options, the four-turn edit script.

use std::path::Path;
use std::time::Duration;

use loki_agent::{HttpOptions, SessionConfig, Transcript};
use loki_test_support::fake_llm::{Api, Expect, FakeCall, FakeLlm, FakeTurn};
use serde_json::{Value, json};

pub const FILE: &str = "src/answer.rs";
pub const BEFORE: &str = "pub fn answer() -> u32 {\n    41\n}\n";
pub const AFTER: &str = "pub fn answer() -> u32 {\n    42\n}\n";

/// A temp worktree holding `src/answer.rs` with the bug.
pub fn worktree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join(FILE), BEFORE).unwrap();
    dir
}

/// Retries quick enough for tests; a stall is noticed after 2 s.
pub fn fast_http() -> HttpOptions {
    HttpOptions {
        idle_timeout: Duration::from_secs(2),
        connect_timeout: Duration::from_secs(5),
        max_retries: 2,
        retry_budget: Duration::from_secs(20),
        backoff_base: Duration::from_millis(20),
        retry_after_cap: Duration::from_secs(5),
        stream: true,
    }
}

/// The tool calls of the scripted edit: read → edit → run → finish.
pub fn edit_calls() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("call_1", "read_file", json!({"path": FILE})),
        (
            "call_2",
            "edit",
            json!({"path": FILE, "search": "    41\n", "replace": "    42\n"}),
        ),
        (
            "call_3",
            "run",
            json!({"command": "grep -q 42 src/answer.rs && echo tests-ok"}),
        ),
        (
            "call_4",
            "finish",
            json!({"status": "done", "detail": "answer is 42"}),
        ),
    ]
}

/// The same four turns for a fake server, each with some usage.
pub fn edit_turns() -> Vec<FakeTurn> {
    edit_calls()
        .into_iter()
        .enumerate()
        .map(|(i, (id, name, args))| FakeTurn {
            text: (i == 0).then(|| "I will read the file first.".to_string()),
            calls: vec![FakeCall::new(id, name, &args)],
            usage: [1000, 50, 200, 100],
        })
        .collect()
}

pub fn session(task: &str, transcript: &Path) -> SessionConfig {
    let mut cfg = SessionConfig::new(task);
    cfg.transcript = Transcript::new(Some(transcript.to_path_buf()));
    cfg
}

pub fn transcript_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

pub async fn openai_fake(model: &str) -> FakeLlm {
    FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some("sk-test".into()),
            model: model.into(),
        },
    )
    .await
}

pub async fn anthropic_fake(model: &str) -> FakeLlm {
    FakeLlm::start(
        Api::Anthropic,
        Expect {
            api_key: Some("sk-ant-test".into()),
            model: model.into(),
        },
    )
    .await
}

/// The `tool` messages of an OpenAI request body, as (call id, content).
pub fn openai_tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_string(),
                m["content"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
