//! Bad input from models and servers: each becomes a tool result the model can act on, or a
//! clear error of the right class, never a crash.

use std::time::{Duration, Instant};

use loki_agent::anthropic;
use loki_agent::openai;
use loki_agent::scripted::Scripted;
use loki_agent::{
    AgentError, FailureKind, HttpOptions, Message, Provider, Request, SessionEnd, run_session,
    tools,
};
use loki_core::exit::{Classify as _, ExitClass};
use loki_test_support::fake_llm::{Api, FakeCall, FakeTurn, Reply};
use serde_json::json;

use super::common::*;

fn kind(e: &AgentError) -> Option<FailureKind> {
    e.provider_failure().map(|f| f.kind)
}

fn finish_turn() -> FakeTurn {
    FakeTurn::call(
        "call_end",
        "finish",
        &json!({"status": "done", "detail": "d"}),
    )
}

fn one_request() -> Request {
    Request {
        system: "s".into(),
        messages: vec![Message::User { text: "hi".into() }],
        tools: tools::tool_specs(),
        max_output_tokens: 100,
    }
}

/// Runs a session whose first turn is `first` and second is `finish`; returns the tool result
/// the model got for `first` (from the second request the fake received).
async fn tool_result_for(first: FakeTurn) -> (String, tempfile::TempDir) {
    let wt = worktree();
    let server = openai_fake("gpt-4o").await;
    server.push_turn(&first).push_turn(&finish_turn());
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let out = run_session(&provider, wt.path(), &loki_agent::SessionConfig::new("t"))
        .await
        .unwrap();
    server.assert_clean();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(out.tool_errors, 1);
    let results = openai_tool_results(&server.requests()[1].body);
    (results[0].1.clone(), wt)
}

#[tokio::test]
async fn malformed_json_arguments_go_back_to_the_model() {
    let turn = FakeTurn {
        calls: vec![FakeCall::raw("c1", "read_file", "{\"path\": ")],
        ..FakeTurn::default()
    };
    let (result, _wt) = tool_result_for(turn).await;
    assert!(
        result.starts_with("the arguments of `read_file` are not valid JSON"),
        "{result}"
    );
}

#[tokio::test]
async fn a_reply_body_that_is_not_json_is_a_clear_error() {
    let server = openai_fake("gpt-4o").await;
    server.push(Reply::Raw {
        status: 200,
        content_type: "application/json".into(),
        body: "{\"choices\": [".into(),
    });
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert_eq!(kind(&e), Some(FailureKind::BadResponse), "{e}");
    assert!(e.to_string().contains("the body is not JSON"), "{e}");
    assert_eq!(server.requests().len(), 1, "a garbled reply is not retried");
}

#[tokio::test]
async fn string_arguments_instead_of_an_object_go_back_to_the_model() {
    let turn = FakeTurn {
        calls: vec![FakeCall::raw("c1", "read_file", "\"src/answer.rs\"")],
        ..FakeTurn::default()
    };
    let (result, _wt) = tool_result_for(turn).await;
    assert!(
        result.contains("must be a JSON object, got a string"),
        "{result}"
    );
}

#[tokio::test]
async fn an_unknown_tool_goes_back_to_the_model() {
    let (result, _wt) =
        tool_result_for(FakeTurn::call("c1", "delete_everything", &json!({}))).await;
    assert!(
        result.starts_with("unknown tool `delete_everything`; the tools are: read_file,"),
        "{result}"
    );
}

#[tokio::test]
async fn paths_outside_the_worktree_are_refused() {
    let wt = worktree();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s3cret").unwrap();
    std::os::unix::fs::symlink(outside.path(), wt.path().join("link")).unwrap();
    let calls = json!([
        {"name": "read_file", "arguments": {"path": "../secret"}},
        {"name": "read_file", "arguments": {"path": outside.path().join("secret")}},
        {"name": "read_file", "arguments": {"path": "link/secret"}},
        {"name": "write_file", "arguments": {"path": "link/planted", "content": "x"}},
        {"name": "edit", "arguments": {"path": "link/secret", "search": "s3cret", "replace": "gone"}},
        {"name": "apply_patch", "arguments": {"patch": "*** Begin Patch\n*** Add File: link/p\n+x\n*** End Patch\n"}}
    ]);
    let script = json!({"sessions": [{"name": "escape", "turns": [
        {"tool_calls": calls},
        {"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "d"}}]}
    ]}]});
    let sdir = tempfile::tempdir().unwrap();
    std::fs::write(sdir.path().join("s.json"), script.to_string()).unwrap();
    let tpath = sdir.path().join("t.jsonl");
    let out = run_session(
        &Scripted::load(&sdir.path().join("s.json")).unwrap(),
        wt.path(),
        &session("t", &tpath),
    )
    .await
    .unwrap();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(out.tool_errors, 6);
    let results: Vec<(bool, String)> = transcript_records(&tpath)
        .into_iter()
        .filter(|r| r["type"] == "tool" && r["name"] != "finish")
        .map(|r| {
            (
                r["is_error"].as_bool().unwrap(),
                r["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expect = [
        "`..` is not allowed",
        "absolute paths are not allowed",
        "symlink",
        "symlink",
        "symlink",
        "symlink",
    ];
    for ((is_error, content), want) in results.iter().zip(expect) {
        assert!(
            *is_error && content.contains(want),
            "{content} should say {want}"
        );
        assert!(!content.contains("s3cret"));
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "s3cret"
    );
    assert!(!outside.path().join("planted").exists());
    assert!(!outside.path().join("p").exists());
}

#[tokio::test]
async fn a_50_mb_tool_output_is_capped_head_and_tail() {
    let cmd = "head -c 52428800 /dev/zero | tr '\\0' a; echo; echo THE-END";
    let (result, _wt) = {
        let wt = worktree();
        let server = openai_fake("gpt-4o").await;
        server
            .push_turn(&FakeTurn::call("c1", "run", &json!({"command": cmd})))
            .push_turn(&finish_turn());
        let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
        let out = run_session(&provider, wt.path(), &loki_agent::SessionConfig::new("t"))
            .await
            .unwrap();
        server.assert_clean();
        assert_eq!(out.end, SessionEnd::Finished);
        (
            openai_tool_results(&server.requests()[1].body)[0].1.clone(),
            wt,
        )
    };
    assert!(
        result.len() <= tools::DEFAULT_TOOL_OUTPUT_CAP + 200,
        "{} bytes",
        result.len()
    );
    assert!(result.starts_with("exit code 0\naaaa"));
    assert!(result.contains("bytes of output dropped here"));
    assert!(result.trim_end().ends_with("THE-END"));
}

#[tokio::test]
async fn a_stream_that_stalls_mid_response_times_out_and_is_retried() {
    let server = openai_fake("gpt-4o").await;
    let turn = FakeTurn::text("hello there, this reply stalls");
    server.push(turn.sse(Api::OpenAi).stall_after(2));
    let opts = HttpOptions {
        idle_timeout: Duration::from_millis(300),
        max_retries: 0,
        ..fast_http()
    };
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", opts.clone());
    let started = Instant::now();
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert_eq!(kind(&e), Some(FailureKind::Timeout), "{e}");
    assert!(e.is_retryable());
    assert!(e.to_string().contains("within the idle timeout"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // With a retry allowed, the stalled reply is asked for again and the second one completes.
    let server = anthropic_fake("claude-haiku-4-5").await;
    server
        .push(turn.sse(Api::Anthropic).stall_after(3))
        .push(turn.sse(Api::Anthropic));
    let opts = HttpOptions {
        max_retries: 1,
        ..opts
    };
    let provider = anthropic::provider(&server.base_url(), "sk-ant-test", "claude-haiku-4-5", opts);
    let r = provider.complete(&one_request()).await.unwrap();
    assert_eq!(r.text.as_deref(), Some("hello there, this reply stalls"));
    assert_eq!(server.requests().len(), 2);
    server.assert_clean();
}

#[tokio::test]
async fn a_429_with_retry_after_is_waited_out_then_succeeds() {
    let server = openai_fake("gpt-4o").await;
    server
        .push(
            Reply::error(429, json!({"error": {"message": "slow down"}}))
                .with_header("retry-after", "1"),
        )
        .push_turn(&FakeTurn::text("ok"));
    // A backoff far longer than Retry-After shows which one was used.
    let opts = HttpOptions {
        backoff_base: Duration::from_secs(30),
        retry_after_cap: Duration::from_secs(60),
        ..fast_http()
    };
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", opts);
    let started = Instant::now();
    let r = provider.complete(&one_request()).await.unwrap();
    let waited = started.elapsed();
    assert_eq!(r.text.as_deref(), Some("ok"));
    assert!(
        waited >= Duration::from_secs(1) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert_eq!(server.requests().len(), 2);
    server.assert_clean();
}

#[tokio::test]
async fn a_500_then_success_is_retried() {
    let server = anthropic_fake("claude-sonnet-4-5").await;
    server
        .push(Reply::error(
            500,
            json!({"type": "error", "error": {"type": "api_error", "message": "boom"}}),
        ))
        .push_turn(&FakeTurn::text("recovered"));
    let provider = anthropic::provider(
        &server.base_url(),
        "sk-ant-test",
        "claude-sonnet-4-5",
        fast_http(),
    );
    let r = provider.complete(&one_request()).await.unwrap();
    assert_eq!(r.text.as_deref(), Some("recovered"));
    assert_eq!(server.requests().len(), 2);
    server.assert_clean();

    // Past the retry budget the error says how many attempts were made.
    let server = openai_fake("gpt-4o").await;
    for _ in 0..3 {
        server.push(Reply::error(
            503,
            json!({"error": {"message": "overloaded"}}),
        ));
    }
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("server error (HTTP 503 from http://"),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("after 3 attempts; the server said: overloaded"),
        "{e}"
    );
}

#[tokio::test]
async fn a_401_names_the_variable_to_set_and_is_not_retried() {
    let server = openai_fake("gpt-4o").await;
    server.push(Reply::error(
        401,
        json!({"error": {"message": "Incorrect API key provided"}}),
    ));
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("check OPENAI_API_KEY (or openai.api_key)"),
        "{e}"
    );
    assert_eq!(e.exit_class(), ExitClass::Usage);
    assert!(!e.is_retryable());
    assert_eq!(server.requests().len(), 1);

    let server = anthropic_fake("claude-sonnet-4-5").await;
    server.push(Reply::error(401, json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})));
    let provider = anthropic::provider(
        &server.base_url(),
        "sk-ant-test",
        "claude-sonnet-4-5",
        fast_http(),
    );
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("check ANTHROPIC_API_KEY (or anthropic.api_key)"),
        "{e}"
    );
}

#[tokio::test]
async fn a_context_length_error_is_its_own_variant() {
    let server = openai_fake("gpt-4o").await;
    server.push(Reply::error(400, json!({"error": {"message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}})));
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert_eq!(kind(&e), Some(FailureKind::ContextLength), "{e}");
    assert_eq!(server.requests().len(), 1);

    let server = anthropic_fake("claude-sonnet-4-5").await;
    server.push(Reply::error(400, json!({"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}})));
    let provider = anthropic::provider(
        &server.base_url(),
        "sk-ant-test",
        "claude-sonnet-4-5",
        fast_http(),
    );
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert!(
        e.to_string()
            .contains("longer than the model's context window (prompt is too long"),
        "{e}"
    );
}

#[tokio::test]
async fn the_fake_server_rejects_a_tool_result_without_its_call() {
    let server = openai_fake("gpt-4o").await;
    server.push_turn(&FakeTurn::text("never served"));
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let mut req = one_request();
    req.messages.push(Message::Tool {
        call_id: "nope".into(),
        content: "x".into(),
        is_error: false,
    });
    let e = provider.complete(&req).await.unwrap_err();
    let f = e.provider_failure().unwrap();
    assert_eq!((f.kind, f.status), (FailureKind::Refused, Some(400)), "{e}");
    let v = server.violations();
    assert_eq!(v.len(), 1);
    assert!(
        v[0].contains("tool result \"nope\" does not answer a call"),
        "{v:?}"
    );
}

/// The `run` tool's environment: scrubbed of secrets by default, exactly `run_env` when given.
#[tokio::test(flavor = "current_thread")]
async fn the_run_tool_environment_is_scrubbed_or_exactly_the_callers() {
    use loki_agent::tools::{ToolOptions, execute};
    let dir = tempfile::tempdir().unwrap();
    let wt = loki_agent::confine::Worktree::new(dir.path()).unwrap();
    let call = loki_agent::ToolCall {
        id: "c1".into(),
        name: "run".into(),
        arguments: serde_json::json!({"command": "echo home=$HOME marker=$LOKI_TEST_MARKER token=$GITHUB_TOKEN"}),
        arguments_error: None,
    };
    let opts = ToolOptions {
        run_env: Some(vec![
            ("PATH".into(), std::env::var_os("PATH").unwrap()),
            ("HOME".into(), "/private/home".into()),
            ("LOKI_TEST_MARKER".into(), "fenced".into()),
        ]),
        ..ToolOptions::default()
    };
    let r = execute(&wt, &opts, &call, None).await;
    assert!(
        r.content
            .contains("home=/private/home marker=fenced token=\n"),
        "{}",
        r.content
    );
}

#[tokio::test]
async fn retries_stop_at_the_time_budget_before_the_count() {
    let server = openai_fake("gpt-4o").await;
    for _ in 0..2 {
        server.push(Reply::error(503, json!({"error": {"message": "busy"}})));
    }
    // Five retries allowed; the first waits ~80 ms (inside 150 ms), the second would wait
    // ~160 ms more (past it).
    let opts = HttpOptions {
        max_retries: 5,
        retry_budget: Duration::from_millis(150),
        backoff_base: Duration::from_millis(80),
        ..fast_http()
    };
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", opts);
    let e = provider.complete(&one_request()).await.unwrap_err();
    assert_eq!(server.requests().len(), 2, "{e}");
    let f = e.provider_failure().unwrap();
    assert_eq!((f.kind, f.attempts), (FailureKind::ServerError, 2), "{e}");
    server.assert_clean();
}

#[tokio::test]
async fn a_refused_connection_is_not_retried() {
    let url = format!("{}/v1", loki_test_support::fake_llm::unbound_url());
    let provider = openai::provider(&url, "sk-test", "gpt-4o", fast_http());
    let e = provider.complete(&one_request()).await.unwrap_err();
    let f = e.provider_failure().unwrap();
    assert_eq!((f.kind, f.attempts), (FailureKind::Unreachable, 1), "{e}");
    assert!(!f.retryable);
    assert_eq!(f.url, format!("{url}/chat/completions"));
    assert!(
        f.reason()
            .starts_with(&format!("model: cannot reach {url}/chat/completions (")),
        "{}",
        f.reason()
    );
}
