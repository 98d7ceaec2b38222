//! A model server that fails ends the run at its first failing call, with the cause on the
//! `Reason:` line and exit 2 (a provider failure is the setup's to fix), after bounded retries;
//! a run that made no change leaves no worktree or branch behind (`--keep` keeps them, `loki
//! discard --failed` removes the rest). And cost caps that hold: a dollar cap on an unpriced
//! model is refused before any request, the printed cost is the recorded one, `--cap 0` prints no
//! negative zero, `--max-tokens` stops a run.
//!
//! Each failure kind goes through the loopback fakes, which count the requests: the count is
//! the proof that retries are bounded (never the clock).

use std::path::Path;
use std::process::Output;

use loki_test_support::fake_llm::{Api, Expect, FakeLlm, Reply, unbound_url};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";

fn bug_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

/// How a provider is reached: `(provider, model, key variable, base-URL variable)`.
struct Via {
    provider: &'static str,
    model: &'static str,
    key_var: &'static str,
    url_var: &'static str,
}

const OPENAI: Via = Via {
    provider: "openai",
    model: "gpt-4.1",
    key_var: "OPENAI_API_KEY",
    url_var: "OPENAI_BASE_URL",
};

const ANTHROPIC: Via = Via {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    key_var: "ANTHROPIC_API_KEY",
    url_var: "ANTHROPIC_BASE_URL",
};

/// Runs `loki TASK --provider ...` against `base_url` with `extra` arguments and `env`.
async fn run(
    sb: &Sandbox,
    repo: &Path,
    via: &Via,
    base_url: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(repo)
        .env(via.key_var, "sk-test")
        .env(via.url_var, base_url)
        .args([TASK, "--provider", via.provider, "--model", via.model])
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

async fn fake(api: Api, via: &Via) -> FakeLlm {
    FakeLlm::start(
        api,
        Expect {
            api_key: Some("sk-test".into()),
            model: via.model.into(),
        },
    )
    .await
}

/// The summary lines that do not depend on the machine (the Outcome, Reason and Cost lines),
/// with the fake's port as `PORT`.
fn stable_summary(stdout: &str) -> String {
    let port = regex_port(stdout);
    stdout
        .lines()
        .filter(|l| l.starts_with("Outcome:") || l.starts_with("Reason:") || l.starts_with("Cost:"))
        .map(|l| match &port {
            Some(p) => l.replace(p.as_str(), "PORT"),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The port in the first `127.0.0.1:<port>` of `text`.
fn regex_port(text: &str) -> Option<String> {
    let at = text.find("127.0.0.1:")? + "127.0.0.1:".len();
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    (!digits.is_empty()).then_some(digits)
}

fn loki_branches(repo: &GitRepo) -> String {
    repo.git(&["branch", "--list", "loki/*"]).trim().to_string()
}

fn worktrees(repo: &Path) -> usize {
    std::fs::read_dir(repo.join(".loki/worktrees"))
        .map(Iterator::count)
        .unwrap_or(0)
}

fn the_run(repo: &Path) -> std::path::PathBuf {
    let runs: Vec<_> = std::fs::read_dir(repo.join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 1, "one run");
    runs[0].path()
}

/// Exit 2, the reason first, the run sealed with the failure in its receipt and event log, and
/// no worktree or branch left.
fn assert_provider_failure(out: &Output, repo: &GitRepo, kind: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("Outcome:    FAILED\nReason:     model: "),
        "{stdout}{stderr}"
    );
    assert!(!stdout.contains("the diff is empty\n"), "{stdout}");
    let run = the_run(repo.path());
    let receipt: Value =
        serde_json::from_slice(&std::fs::read(run.join("receipt.json")).unwrap()).unwrap();
    let reason = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Reason:     "))
        .unwrap()
        .to_string();
    assert!(
        receipt["not_proven"].as_array().unwrap().iter().any(|n| {
            let n: loki_receipt::NotProven = serde_json::from_value(n.clone()).unwrap();
            reason == n.what() || reason == format!("{}: {}", n.what(), n.why())
        }),
        "the receipt states the reason: {receipt:#}"
    );
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(
        events.contains(&format!("\"failure\":\"{kind}\"")),
        "{events}"
    );
    assert!(events.contains("\"exit_code\":2"), "{events}");
    // The implementer never ran: the first failed call (the wall author's) ended the work.
    assert!(!events.contains("\"stage\":\"implement\""), "{events}");
    assert_eq!(worktrees(repo.path()), 0, "no worktree left");
    assert_eq!(loki_branches(repo), "", "no branch left");
    stable_summary(&stdout)
}

#[tokio::test(flavor = "current_thread")]
async fn a_401_ends_the_run_at_once_naming_the_key() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::Anthropic, &ANTHROPIC).await;
    server.push(Reply::error(
        401,
        json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
    ));
    let out = run(&sb, repo.path(), &ANTHROPIC, &server.base_url(), &[], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 1, "an auth failure is not retried");
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "auth"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_500_is_retried_twice_then_ends_the_run() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    for _ in 0..3 {
        server.push(Reply::error(500, json!({"error": {"message": "boom"}})));
    }
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &["-v"], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 3, "three attempts in all");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.matches("model call failed; retrying").count(),
        2,
        "-v shows each retry: {stderr}"
    );
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "server_error"));
}

#[tokio::test(flavor = "current_thread")]
async fn retries_are_bounded_by_time_as_well_as_count() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    for _ in 0..2 {
        server.push(Reply::error(
            503,
            json!({"error": {"message": "overloaded"}}),
        ));
    }
    // Five retries allowed, but only those starting within 2 s: the first waits about 1 s, the
    // second would wait about 2 s more, past the budget.
    let env = [
        ("LOKI_PROVIDER_RETRIES", "5"),
        ("LOKI_PROVIDER_RETRY_BUDGET_S", "2"),
    ];
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &[], &env).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 2);
    let summary = assert_provider_failure(&out, &repo, "server_error");
    assert!(summary.contains("after 2 attempts"), "{summary}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_reply_that_is_not_the_wire_format_is_a_bad_response() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    server.push(Reply::garbage());
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &[], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 1, "garbage is not retried");
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "bad_response"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_never_answers_times_out() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    server.push(Reply::hang()).push(Reply::hang());
    let env = [
        ("LOKI_PROVIDER_IDLE_TIMEOUT_S", "1"),
        ("LOKI_PROVIDER_RETRIES", "1"),
    ];
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &[], &env).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 2, "one retry, as configured");
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "timeout"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_dropped_connection_is_retried_then_unreachable() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    for _ in 0..3 {
        server.push(Reply::Close);
    }
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &[], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 3);
    let summary = assert_provider_failure(&out, &repo, "unreachable");
    assert!(
        summary.contains(
            "Reason:     model: cannot reach http://127.0.0.1:PORT/v1/chat/completions ("
        ) && summary
            .contains("after 3 attempts: is the model server running? check openai.base_url"),
        "{summary}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_refused_connection_gives_up_at_once() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let url = format!("{}/v1", unbound_url());
    let out = run(&sb, repo.path(), &OPENAI, &url, &[], &[]).await;
    let summary = assert_provider_failure(&out, &repo, "unreachable");
    // One attempt: the reason counts none after the first.
    assert!(!summary.contains("attempts"), "{summary}");
    insta::assert_snapshot!(summary);
}

#[tokio::test(flavor = "current_thread")]
async fn a_context_length_refusal_names_the_window() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    server.push(Reply::error(
        400,
        json!({"error": {"message": "This model's maximum context length is 8192 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}),
    ));
    let out = run(&sb, repo.path(), &OPENAI, &server.base_url(), &[], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 1);
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "context_length"));
}

#[tokio::test(flavor = "current_thread")]
async fn a_429_is_retried_then_rate_limited() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::Anthropic, &ANTHROPIC).await;
    for _ in 0..3 {
        server.push(
            Reply::error(
                429,
                json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
            )
            .with_header("retry-after", "0"),
        );
    }
    let out = run(&sb, repo.path(), &ANTHROPIC, &server.base_url(), &[], &[]).await;
    server.assert_clean();
    assert_eq!(server.requests().len(), 3);
    insta::assert_snapshot!(assert_provider_failure(&out, &repo, "rate_limited"));
}

#[tokio::test(flavor = "current_thread")]
async fn keep_keeps_the_checkout_and_discard_failed_removes_it() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let server = fake(Api::OpenAi, &OPENAI).await;
    server.push(Reply::error(401, json!({"error": {"message": "bad key"}})));
    let out = run(
        &sb,
        repo.path(),
        &OPENAI,
        &server.base_url(),
        &["--keep"],
        &[],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(worktrees(repo.path()), 1, "--keep keeps the worktree");
    assert_ne!(loki_branches(&repo), "", "--keep keeps the branch");
    let out = sandboxed(&sb, repo.path())
        .args(["discard", "--failed"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("(FAILED): removed worktree "), "{stdout}");
    assert_eq!(worktrees(repo.path()), 0);
    assert_eq!(loki_branches(&repo), "");
    let out = sandboxed(&sb, repo.path())
        .args(["discard", "--failed"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "no failed run has a worktree or branch left\n"
    );
    // The run's record and receipt stay: only the checkout went.
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(4);
}

#[tokio::test(flavor = "current_thread")]
async fn a_dollar_cap_on_an_unpriced_model_is_refused_before_any_request() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let via = Via {
        model: "llama3.1:8b",
        ..OPENAI
    };
    let server = fake(Api::OpenAi, &via).await;
    let out = run(
        &sb,
        repo.path(),
        &via,
        &server.base_url(),
        &["--max-cost", "1"],
        &[],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--max-cost $1.00 cannot hold: \"llama3.1:8b\" has no price"),
        "{stderr}"
    );
    assert!(stderr.contains("provider.prices"), "{stderr}");
    assert!(stderr.contains("--max-tokens"), "{stderr}");
    assert!(server.requests().is_empty(), "refused before any request");
    assert!(!repo.path().join(".loki/runs").exists() || the_runs(repo.path()) == 0);
    // A token cap holds for any model.
    server.push(Reply::error(401, json!({"error": {"message": "bad key"}})));
    let out = run(
        &sb,
        repo.path(),
        &via,
        &server.base_url(),
        &["--max-tokens", "1000"],
        &[],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(server.requests().len(), 1);
}

fn the_runs(repo: &Path) -> usize {
    std::fs::read_dir(repo.join(".loki/runs"))
        .map(Iterator::count)
        .unwrap_or(0)
}

/// A scripted run of the priced `gpt-4o` whose wall session used `usage` tokens and whose
/// implementer does nothing.
fn priced_script(dir: &Path, usage: &Value) -> std::path::PathBuf {
    let finish =
        json!({"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "d"}}]});
    let s = json!({"sessions": [
        {"name": "wall", "model": "gpt-4o", "turns": [
            {"text": "thinking", "tool_calls": [{"name": "list_files", "arguments": {}}], "usage": usage},
            finish.clone()]},
        {"name": "implement", "model": "gpt-4o", "turns": [finish]}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

#[test]
fn the_printed_cost_is_the_recorded_cost() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    // 1000 input and 100 output tokens of gpt-4o: $0.0025 + $0.001.
    let script = priced_script(
        tmp.path(),
        &json!({"input_tokens": 1000, "output_tokens": 100}),
    );
    let out = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let cost_line = stdout
        .lines()
        .find(|l| l.starts_with("Cost:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let events = std::fs::read_to_string(the_run(repo.path()).join("events.jsonl")).unwrap();
    let recorded: f64 = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "cost")
        .filter_map(|e| e["data"]["usd"].as_f64())
        .sum();
    assert!((recorded - 0.0035).abs() < 1e-9, "{events}");
    assert!(
        cost_line.starts_with("Cost:       $0.0035 (scripted, "),
        "{cost_line}"
    );
}

#[test]
fn cap_zero_stops_at_once_and_prints_no_negative_cost() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = priced_script(tmp.path(), &json!({"input_tokens": 10, "output_tokens": 1}));
    let out = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--cap", "0", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with("Outcome:    BUDGET_STOP\nReason:     run cap reached (0s)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Cost:       $0.00 (scripted, 0 tokens)"),
        "{stdout}"
    );
    assert!(!stdout.contains("-0.00"), "{stdout}");
    assert_eq!(worktrees(repo.path()), 0, "no change, no worktree");
}

#[test]
fn max_tokens_stops_the_run_with_budget_stop() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = priced_script(
        tmp.path(),
        &json!({"input_tokens": 1000, "output_tokens": 100}),
    );
    let out = sandboxed(&sb, repo.path())
        .args([
            TASK,
            "--provider",
            "scripted",
            "--max-tokens",
            "500",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with(
            "Outcome:    BUDGET_STOP\nReason:     token cap reached (500 tokens) at wall\n"
        ),
        "{stdout}"
    );
    let events = std::fs::read_to_string(the_run(repo.path()).join("events.jsonl")).unwrap();
    assert!(events.contains("\"cap\":\"tokens\""), "{events}");
    assert!(!events.contains("\"stage\":\"implement\""), "{events}");
}
