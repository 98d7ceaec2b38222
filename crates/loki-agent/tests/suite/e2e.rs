//! The loop completes a read → edit → run → finish session through each provider.

use loki_agent::anthropic;
use loki_agent::openai;
use loki_agent::replay::Replay;
use loki_agent::scripted::Scripted;
use loki_agent::{FinishStatus, SessionEnd, run_session};
use loki_clients::Usage;
use loki_test_support::fake_llm::Api;
use serde_json::json;

use super::common::*;

#[tokio::test]
async fn openai_session_edits_the_file_through_the_fake_server() {
    let wt = worktree();
    let server = openai_fake("gpt-4o").await;
    for (i, t) in edit_turns().iter().enumerate() {
        // Mix streamed and plain replies: the client must understand both.
        server.push(if i % 2 == 0 {
            t.sse(Api::OpenAi)
        } else {
            t.json(Api::OpenAi)
        });
    }
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let tdir = tempfile::tempdir().unwrap();
    let tpath = tdir.path().join("transcript.jsonl");
    let out = run_session(
        &provider,
        wt.path(),
        &session("make answer return 42", &tpath),
    )
    .await
    .unwrap();

    server.assert_clean();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(out.finish.as_ref().unwrap().status, FinishStatus::Done);
    assert_eq!(out.turns, 4);
    assert_eq!(out.tool_errors, 0);
    assert_eq!(
        std::fs::read_to_string(wt.path().join(FILE)).unwrap(),
        AFTER
    );
    // prompt_tokens 1200 of which 200 cached → 1000 uncached, 200 cache read; OpenAI has no cache writes.
    assert_eq!(
        out.usage,
        Usage {
            input_tokens: 4000,
            output_tokens: 200,
            cache_read_tokens: 800,
            cache_write_tokens: 0
        }
    );
    // gpt-4o: 4000·2.5 + 200·10 + 800·1.25 per million.
    assert!(
        (out.cost_usd.unwrap() - 0.013).abs() < 1e-9,
        "{:?}",
        out.cost_usd
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let last = openai_tool_results(&reqs[3].body);
    assert_eq!(last.len(), 3);
    assert_eq!(last[0].0, "call_1");
    assert_eq!(last[0].1, BEFORE, "read_file returns the file");
    assert!(
        last[1]
            .1
            .starts_with("edited src/answer.rs at line 2 (exact match)"),
        "{}",
        last[1].1
    );
    assert!(
        last[2].1.starts_with("exit code 0\ntests-ok"),
        "{}",
        last[2].1
    );
    assert_eq!(reqs[0].body["tools"].as_array().unwrap().len(), 8);

    let records = transcript_records(&tpath);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "session_start",
            "exchange",
            "tool",
            "exchange",
            "tool",
            "exchange",
            "tool",
            "exchange",
            "tool",
            "session_end"
        ]
    );
    assert_eq!(records[1]["usage"]["input_tokens"], 1000);
    assert!(records[1]["cost_usd"].as_f64().unwrap() > 0.0);
    assert_eq!(
        records[1]["price_table"],
        loki_agent::cost::PRICE_TABLE_VERSION
    );
}

#[tokio::test]
async fn anthropic_session_edits_the_file_with_prompt_caching() {
    let wt = worktree();
    let model = "claude-sonnet-4-5";
    let server = anthropic_fake(model).await;
    for (i, t) in edit_turns().iter().enumerate() {
        server.push(if i % 2 == 0 {
            t.sse(Api::Anthropic)
        } else {
            t.json(Api::Anthropic)
        });
    }
    let provider = anthropic::provider(&server.base_url(), "sk-ant-test", model, fast_http());
    let tdir = tempfile::tempdir().unwrap();
    let out = run_session(
        &provider,
        wt.path(),
        &session("make answer return 42", &tdir.path().join("t.jsonl")),
    )
    .await
    .unwrap();

    server.assert_clean();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(
        std::fs::read_to_string(wt.path().join(FILE)).unwrap(),
        AFTER
    );
    assert_eq!(
        out.usage,
        Usage {
            input_tokens: 4000,
            output_tokens: 200,
            cache_read_tokens: 800,
            cache_write_tokens: 400
        }
    );
    // sonnet: 4000·3 + 200·15 + 800·0.3 + 400·3.75 per million.
    assert!(
        (out.cost_usd.unwrap() - 0.01674).abs() < 1e-9,
        "{:?}",
        out.cost_usd
    );

    let reqs = server.requests();
    assert_eq!(reqs.len(), 4);
    let body = &reqs[3].body;
    assert_eq!(
        body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(
        body["tools"][7]["cache_control"],
        json!({"type": "ephemeral"})
    );
    assert_eq!(reqs[0].headers["anthropic-version"], "2023-06-01");
    // user, assistant, user(tool_result), … : the last user message answers call_3.
    let last = body["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["content"][0]["tool_use_id"], "call_3");
    assert!(
        last["content"][0]["content"]
            .as_str()
            .unwrap()
            .contains("tests-ok")
    );
}

fn edit_script() -> String {
    let turns: Vec<_> = edit_calls()
        .into_iter()
        .map(|(_, name, args)| {
            json!({"tool_calls": [{"name": name, "arguments": args}],
                                     "usage": {"input_tokens": 10, "output_tokens": 2}})
        })
        .collect();
    json!({"sessions": [{"name": "fix", "turns": turns}]}).to_string()
}

#[tokio::test]
async fn scripted_session_edits_the_file_and_its_transcript_replays() {
    let wt = worktree();
    let sdir = tempfile::tempdir().unwrap();
    let script = sdir.path().join("script.json");
    std::fs::write(&script, edit_script()).unwrap();
    let provider = Scripted::load(&script).unwrap();
    let tpath = sdir.path().join("transcript.jsonl");
    let mut cfg = session("make answer return 42", &tpath);
    cfg.label = Some("fix".into());
    let out = run_session(&provider, wt.path(), &cfg).await.unwrap();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(out.turns, 4);
    assert_eq!(out.usage.input_tokens, 40);
    assert_eq!(
        out.cost_usd, None,
        "the scripted model has no price: not measured, never 0"
    );
    assert_eq!(
        std::fs::read_to_string(wt.path().join(FILE)).unwrap(),
        AFTER
    );

    // The transcript plays back the same session on a fresh worktree.
    let wt2 = worktree();
    let replay = Replay::load(&tpath).unwrap();
    assert_eq!(replay.len(), 4);
    let out2 = run_session(
        &replay,
        wt2.path(),
        &loki_agent::SessionConfig::new("again"),
    )
    .await
    .unwrap();
    assert_eq!(out2.end, SessionEnd::Finished);
    assert_eq!(out2.usage, out.usage);
    assert_eq!(out2.cost_usd, None);
    assert_eq!(
        std::fs::read_to_string(wt2.path().join(FILE)).unwrap(),
        AFTER
    );
}

#[tokio::test]
async fn limits_stop_a_session_that_never_finishes() {
    let wt = worktree();
    let sdir = tempfile::tempdir().unwrap();
    let script = sdir.path().join("s.json");
    let turn = json!({"tool_calls": [{"name": "list_files"}], "usage": {"input_tokens": 600, "output_tokens": 10}});
    std::fs::write(
        &script,
        json!({"sessions": [{"name": "a", "turns": vec![turn; 10]}]}).to_string(),
    )
    .unwrap();

    let mut cfg = loki_agent::SessionConfig::new("loop");
    cfg.limits.max_turns = 3;
    let out = run_session(&Scripted::load(&script).unwrap(), wt.path(), &cfg)
        .await
        .unwrap();
    assert_eq!((out.end, out.turns), (SessionEnd::TurnLimit, 3));

    let mut cfg = loki_agent::SessionConfig::new("loop");
    cfg.limits.max_tokens = Some(1000);
    let out = run_session(&Scripted::load(&script).unwrap(), wt.path(), &cfg)
        .await
        .unwrap();
    assert_eq!((out.end, out.turns), (SessionEnd::TokenLimit, 2));
}

#[tokio::test]
async fn a_context_length_refusal_elides_older_tool_outputs_and_asks_again() {
    use loki_test_support::fake_llm::{FakeTurn, Reply};
    let wt = worktree();
    let server = openai_fake("gpt-4o").await;
    server
        .push_turn(&FakeTurn::call("c1", "read_file", &json!({"path": FILE})))
        .push_turn(&FakeTurn::call("c2", "list_files", &json!({})))
        .push(Reply::error(400, json!({"error": {"message": "maximum context length exceeded", "code": "context_length_exceeded"}})))
        .push_turn(&FakeTurn::call("c3", "finish", &json!({"status": "already_done", "detail": "fine"})));
    let provider = openai::provider(&server.base_url(), "sk-test", "gpt-4o", fast_http());
    let out = run_session(&provider, wt.path(), &loki_agent::SessionConfig::new("t"))
        .await
        .unwrap();
    server.assert_clean();
    assert_eq!(out.end, SessionEnd::Finished);
    assert_eq!(out.finish.unwrap().status, FinishStatus::AlreadyDone);
    assert_eq!(out.elided, 1);
    let reqs = server.requests();
    let before = openai_tool_results(&reqs[2].body);
    let after = openai_tool_results(&reqs[3].body);
    assert_eq!(before[0].1, BEFORE);
    assert_eq!(after[0].1, loki_agent::context::ELIDED_NOTE);
    assert_eq!(after[1].1, "src/answer.rs\n", "the newest output is kept");
}
