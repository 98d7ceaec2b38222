//! Build runs with the backends a user has, not the scripted one:
//! - a CLI agent (`--provider claude`): a stand-in `claude` on PATH that edits files itself and
//!   reports its cost as Claude Code's JSON result does; the engine runs it in the author's
//!   directory for the wall and in the worktree to implement, confined, and the receipt carries
//!   the cost the agent reported;
//! - an OpenAI-compatible server (`--provider openai`) and the Anthropic Messages API
//!   (`--provider anthropic`): the loopback fakes, which validate every request (auth, tool
//!   schemas, message order, the output limit).

use std::os::unix::fs::PermissionsExt as _;

use loki_test_support::fake_llm::{Api, Expect, FakeLlm, FakeTurn};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";

/// `claude -p <prompt> --output-format json --permission-mode acceptEdits`: writes the wall when
/// the prompt asks for acceptance tests, otherwise fixes the bug; then prints its result.
const FAKE_CLAUDE: &str = r#"#!/bin/sh
[ "$1" = "-p" ] && [ "$3" = "--output-format" ] || { echo "unexpected arguments: $*" >&2; exit 64; }
case "$2" in
  *"You write acceptance tests before the code exists"*)
    printf 'from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n' > loki_wall_add_test.py ;;
  *)
    sed -i 's/a - b/a + b/' calc.py ;;
esac
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","total_cost_usd":0.0125,"usage":{"input_tokens":100,"output_tokens":20}}'
"#;

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

#[test]
fn a_cli_agent_builds_the_change_and_its_reported_cost_is_sealed() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let bin = tempfile::tempdir().unwrap();
    let claude = bin.path().join("claude");
    std::fs::write(&claude, FAKE_CLAUDE).unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = sandboxed(&sb, repo.path())
        .env("PATH", path)
        .env("ANTHROPIC_API_KEY", "sk-ant-test-for-the-agent")
        .args([TASK, "--provider", "claude", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let run_dir = repo
        .path()
        .join(".loki/runs")
        .join(v["run_id"].as_str().unwrap());
    let r: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(r["provider"], "claude", "{r:#}");
    // Two sessions (wall and implement), each reporting $0.0125.
    assert!(
        (r["cost"]["usd"].as_f64().unwrap() - 0.025).abs() < 1e-9,
        "{r:#}"
    );
    assert_eq!(r["cost"]["measured_sessions"], 2, "{r:#}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
}

/// A build through the loopback fake of `api`: the wall author's session, then the implementer's.
async fn build_through(api: Api, provider: &str, model: &str, key_var: &str, url_var: &str) {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = FakeLlm::start(
        api,
        Expect {
            api_key: Some("sk-test".into()),
            model: model.into(),
        },
    )
    .await;
    let wall = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";
    fake.push_turn(
        &FakeTurn::call(
            "w1",
            "write_file",
            &json!({"path": "loki_wall_add_test.py", "content": wall}),
        )
        .with_usage([2000, 100, 0, 0]),
    );
    fake.push_turn(&FakeTurn::call(
        "w2",
        "finish",
        &json!({"status": "done", "detail": "wall"}),
    ));
    fake.push_turn(
        &FakeTurn::call(
            "i1",
            "edit",
            &json!({"path": "calc.py", "search": "a - b", "replace": "a + b"}),
        )
        .with_usage([3000, 50, 0, 0]),
    );
    fake.push_turn(&FakeTurn::call(
        "i2",
        "finish",
        &json!({"status": "done", "detail": "add sums"}),
    ));
    // The review council (three reviewers by default): one advisory finding, all pass.
    fake.push_turn(
        &FakeTurn::text(
            &json!({"verdict": "pass", "findings": [{"severity": "advisory", "file": "calc.py",
                "line": 2, "title": "add a docstring"}]})
            .to_string(),
        )
        .with_usage([1500, 30, 0, 0]),
    );
    for _ in 0..2 {
        fake.push_turn(&FakeTurn::text(
            &json!({"verdict": "pass", "findings": []}).to_string(),
        ));
    }
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(repo.path())
        .env(key_var, "sk-test")
        .env(url_var, fake.base_url())
        .args([TASK, "--provider", provider, "--model", model, "--json"]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 7);
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    assert!(
        v["cost_usd"].as_f64().unwrap() > 0.0,
        "{model} is priced: {v:#}"
    );
    // Each reviewer's one request carried the committed diff and its role, and no tools.
    for (req, role) in fake.requests()[4..]
        .iter()
        .zip(["correctness", "security", "tests"])
    {
        let body = serde_json::to_string(&req.body).unwrap();
        assert!(
            body.contains("+    return a + b")
                && body.contains(&format!("the {role} reviewer of loki's review council"))
                && req.body.get("tools").is_none(),
            "{body}"
        );
    }
    assert_eq!(
        v["council"],
        json!([
            "correctness pass [1 advisory]",
            "security pass",
            "tests pass"
        ]),
        "{v:#}"
    );
    // The wall author's first request held the task and the file list, not the code.
    let first = serde_json::to_string(&fake.requests()[0].body).unwrap();
    assert!(
        first.contains("calc.py") && !first.contains("return a - b"),
        "{first}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_build_through_an_openai_compatible_server() {
    if !loki_test_support::require_pytest() {
        return;
    }
    build_through(
        Api::OpenAi,
        "openai",
        "gpt-4.1",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    )
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_build_through_the_anthropic_messages_api() {
    if !loki_test_support::require_pytest() {
        return;
    }
    build_through(
        Api::Anthropic,
        "anthropic",
        "claude-sonnet-4-5",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    )
    .await;
}
