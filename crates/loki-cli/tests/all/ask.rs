//! `loki ask` and `loki providers`: a scripted session editing a real file, and a session through
//! the loopback fake OpenAI server (which validates every request it receives).

use loki_test_support::fake_llm::{Api, Expect, FakeLlm, FakeTurn};
use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

fn script(repo: &GitRepo) -> std::path::PathBuf {
    let s = json!({"sessions": [{"name": "ask", "turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "greet.txt"}}], "usage": {"input_tokens": 100, "output_tokens": 10}},
        {"tool_calls": [{"name": "edit", "arguments": {"path": "greet.txt", "search": "hello", "replace": "hello, world"}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "greeting extended"}}]}
    ]}]});
    let p = repo.path().join("session.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

#[test]
fn ask_with_the_scripted_provider_edits_and_records_the_run() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("greet.txt", "hello\n");
    let s = script(&repo);
    sandboxed(&sb, repo.path())
        .args([
            "ask",
            "extend the greeting",
            "--provider",
            "scripted",
            "--script",
        ])
        .arg(&s)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("greeting extended")
                .and(predicate::str::contains("cost not measured")),
        );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("greet.txt")).unwrap(),
        "hello, world\n"
    );
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .collect();
    assert_eq!(runs.len(), 1);
    let dir = runs[0].as_ref().unwrap().path();
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    let types: Vec<String> = transcript
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    // One exchange per model turn, one tool record per call, bracketed by the session.
    assert_eq!(
        types.iter().filter(|t| *t == "exchange").count(),
        3,
        "{types:?}"
    );
    assert_eq!(
        types.iter().filter(|t| *t == "tool").count(),
        3,
        "{types:?}"
    );
    assert_eq!(
        (
            types.first().unwrap().as_str(),
            types.last().unwrap().as_str()
        ),
        ("session_start", "session_end")
    );
    sandboxed(&sb, repo.path())
        .args(["events", "latest", "--verify"])
        .assert()
        .success();
}

#[test]
fn an_unknown_provider_or_no_provider_is_a_usage_error() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sandboxed(&sb, repo.path())
        .args(["ask", "x y", "--provider", "gemini"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("provider.name"));
    // auto with nothing available: says how to configure one, never picks something else. No
    // agent CLI on PATH: an empty directory of the sandbox's, not the system's directories.
    let empty = sb.home().join("empty-path");
    std::fs::create_dir(&empty).unwrap();
    sandboxed(&sb, repo.path())
        .env("PATH", &empty)
        .args(["ask", "x y"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no model provider is available"));
}

#[tokio::test(flavor = "current_thread")]
async fn ask_through_the_fake_openai_server() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("greet.txt", "hello\n");
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some("sk-test".into()),
            model: "gpt-4.1".into(),
        },
    )
    .await;
    fake.push_turn(
        &FakeTurn::call("c1", "read_file", &json!({"path": "greet.txt"}))
            .with_usage([1000, 20, 0, 0]),
    );
    fake.push_turn(&FakeTurn::call(
        "c2",
        "edit",
        &json!({"path": "greet.txt", "search": "hello", "replace": "hi"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "c3",
        "finish",
        &json!({"status": "done", "detail": "said hi"}),
    ));
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(repo.path())
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", fake.base_url())
        .args([
            "ask",
            "say hi",
            "--provider",
            "openai",
            "--model",
            "gpt-4.1",
            "--json",
        ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 3);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["detail"], "said hi");
    assert!(
        v["cost_usd"].as_f64().unwrap() > 0.0,
        "gpt-4.1 is priced: {v}"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("greet.txt")).unwrap(),
        "hi\n"
    );
}

#[test]
fn providers_lists_readiness_and_the_auto_choice() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sandboxed(&sb, repo.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-secret")
        .arg("providers")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("picks anthropic")
                .and(predicate::str::contains("sk-ant-secret").not())
                .and(predicate::str::contains("ready")),
        );
    let out = sandboxed(&sb, repo.path())
        .args(["providers", "--json", "--config"])
        .arg({
            let p = repo.path().join("p.toml");
            std::fs::write(&p, "[provider]\nname = \"codex\"\n").unwrap();
            p
        })
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["configured"], "codex");
}

#[tokio::test(flavor = "current_thread")]
async fn price_overrides_from_config_change_the_cost() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("prices.toml", "[\"my-local-model\"]\ninput = 1000000.0\noutput = 0.0\ncache_read = 0.0\ncache_write = 0.0\n");
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: None,
            model: "my-local-model".into(),
        },
    )
    .await;
    fake.push_turn(
        &FakeTurn::call("c1", "finish", &json!({"status": "done", "detail": "ok"}))
            .with_usage([10, 0, 0, 0]),
    );
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(repo.path())
        .env("OPENAI_BASE_URL", fake.base_url())
        .env("LOKI_PROVIDER_PRICES", repo.path().join("prices.toml"))
        .args([
            "ask",
            "do it",
            "--provider",
            "openai",
            "--model",
            "my-local-model",
            "--json",
        ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fake.assert_clean();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // 10 input tokens at $1,000,000 per million = $10: the override priced an unknown model.
    let run = v["run_id"].as_str().unwrap();
    let transcript = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(run)
            .join("transcript.jsonl"),
    )
    .unwrap();
    let cost = v["cost_usd"].as_f64();
    assert!(
        cost.is_some_and(|c| (c - 10.0).abs() < 1e-9),
        "{v}\n{transcript}"
    );
}
