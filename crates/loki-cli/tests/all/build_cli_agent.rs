//! A build run with a CLI agent as the backend (`--provider claude`): a stand-in `claude` on
//! PATH that edits files itself and reports its cost as Claude Code's JSON result does. The engine
//! runs it in the author's directory for the wall and in the worktree to implement, confined,
//! and the receipt carries the cost the agent reported.

use std::os::unix::fs::PermissionsExt as _;

use loki_test_support::{GitRepo, Sandbox};
use serde_json::Value;

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

#[test]
fn a_cli_agent_builds_the_change_and_its_reported_cost_is_sealed() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
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
