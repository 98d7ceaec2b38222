//! CLI agents run through the process runner: found, timed out, or reported missing.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "helpers outside #[test] functions unwrap (a broken fixture stops the test where it broke) and write fake CLIs directly: they are not loki state"
)]

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use loki_clients::{CliAgent, CliKind, ClientError};

fn fake_bin(dir: &Path, name: &str, script: &str) {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `kind` run from `bin`, with the system's `/usr/bin` and `/bin` after it (the fakes are shell
/// scripts).
fn agent(kind: CliKind, bin: &Path, timeout: Duration) -> CliAgent {
    agent_on(kind, format!("{}:/usr/bin:/bin", bin.display()), timeout)
}

fn agent_on(kind: CliKind, path: String, timeout: Duration) -> CliAgent {
    CliAgent {
        kind,
        program: kind.name().into(),
        timeout,
        env: vec![(OsString::from("PATH"), OsString::from(path))],
        wrapper: Vec::new(),
        model: None,
        test_command: None,
    }
}

#[tokio::test]
async fn claude_runs_in_the_worktree_and_its_reported_cost_is_read() {
    let bin = tempfile::tempdir().unwrap();
    let wt = tempfile::tempdir().unwrap();
    fake_bin(
        bin.path(),
        "claude",
        r#"[ "$1" = "-p" ] && [ "$3" = "--output-format" ] || exit 3
echo "$2" > task.txt
echo '{"type":"result","total_cost_usd":0.25,"usage":{"input_tokens":7,"output_tokens":3}}'"#,
    );
    let out = agent(CliKind::Claude, bin.path(), Duration::from_secs(20))
        .run("fix the bug", wt.path())
        .await
        .unwrap();
    assert_eq!(out.cost_usd, Some(0.25));
    assert_eq!(out.usage.unwrap().input_tokens, 7);
    assert_eq!(
        std::fs::read_to_string(wt.path().join("task.txt")).unwrap(),
        "fix the bug\n"
    );

    // opencode reports no cost: not measured, never 0.
    fake_bin(bin.path(), "opencode", "echo done");
    let out = agent(CliKind::Opencode, bin.path(), Duration::from_secs(20))
        .run("t", wt.path())
        .await
        .unwrap();
    assert_eq!(out.cost_usd, None);
}

#[tokio::test]
async fn a_hanging_cli_agent_is_killed_at_its_timeout() {
    let bin = tempfile::tempdir().unwrap();
    let wt = tempfile::tempdir().unwrap();
    fake_bin(bin.path(), "claude", "echo thinking; sleep 60");
    let started = Instant::now();
    let e = agent(CliKind::Claude, bin.path(), Duration::from_secs(1))
        .run("t", wt.path())
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Timeout { .. }), "{e}");
    assert!(
        e.to_string().contains("claude did not finish within 1s"),
        "{e}"
    );
    assert!(
        e.to_string().contains("thinking"),
        "the error carries the output tail: {e}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_missing_cli_agent_names_its_install() {
    // Only an empty directory on PATH: whatever the system has installed, codex is not found.
    let empty = tempfile::tempdir().unwrap();
    let wt = tempfile::tempdir().unwrap();
    let path = empty.path().display().to_string();
    let e = agent_on(CliKind::Codex, path, Duration::from_secs(5))
        .run("t", wt.path())
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::NotInstalled { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "codex is not installed (not found on PATH); install it with `npm install -g @openai/codex` or choose another provider"
    );
}

#[tokio::test]
async fn a_failing_cli_agent_reports_its_exit_code_and_output() {
    let bin = tempfile::tempdir().unwrap();
    let wt = tempfile::tempdir().unwrap();
    fake_bin(bin.path(), "aider", "echo 'model not found' >&2; exit 2");
    let e = agent(CliKind::Aider, bin.path(), Duration::from_secs(20))
        .run("t", wt.path())
        .await
        .unwrap_err();
    assert!(matches!(e, ClientError::Failed { code: 2, .. }), "{e}");
    assert!(e.to_string().contains("model not found"), "{e}");
}
