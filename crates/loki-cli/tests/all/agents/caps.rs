//! Caps and signals: a run cap, Ctrl-C or `kill -9` of loki takes the CLI client's whole process
//! tree (Claude Code, aider, opencode), with no descendant of loki left running.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use loki_test_support::Sandbox;
use loki_test_support::fake_llm::{Api, Expect, FakeLlm, FakeTurn};
use serde_json::{Value, json};

use loki_test_support::procs::{alive, descendants};

use super::providers::*;

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

/// Waits until a descendant of `root` runs a command line containing `marker`; returns the
/// whole tree at that moment.
fn tree_when_running(root: u32, marker: &str, loki: &mut Child, logs: &Path) -> Vec<(u32, String)> {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(180) {
        let tree: Vec<(u32, String)> = descendants(root)
            .into_iter()
            .map(|p| (p, cmdline(p)))
            .collect();
        if tree.iter().any(|(_, c)| c.contains(marker)) {
            return tree;
        }
        assert!(
            loki.try_wait().unwrap().is_none(),
            "loki ended before the client ran {marker}: {}{}",
            std::fs::read_to_string(logs.join("stdout")).unwrap_or_default(),
            std::fs::read_to_string(logs.join("stderr")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    unreachable!("no descendant of loki ran {marker}");
}

fn assert_tree_gone(tree: &[(u32, String)], how: &str) {
    let start = Instant::now();
    loop {
        let left: Vec<&(u32, String)> = tree.iter().filter(|(p, _)| alive(*p)).collect();
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < BOUND,
            "after {how}, these outlived loki: {left:#?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// How loki is stopped while the client runs a long command.
#[derive(Debug, Clone, Copy)]
enum Stop {
    Cap,
    CtrlC,
    Kill9,
}

/// A build through `client` whose first turn runs a long shell command (`turn`'s marker), then
/// stopped by `stop`; asserts the client's whole process tree went with it.
fn stopped_build(
    client: &Path,
    provider: &str,
    model: &str,
    env: &[(&str, String)],
    marker: &str,
    stop: Stop,
    home: impl FnOnce(&Sandbox),
) {
    let sb = Sandbox::new();
    home(&sb);
    let repo = bug_repo();
    let mut args = vec![TASK, "--provider", provider, "--model", model, "--json"];
    if let Stop::Cap = stop {
        args.extend(["--cap", cap_s(provider)]);
    }
    let mut cmd = loki(&sb, repo.path(), client, &args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let logs = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(logs.path().join("stdout")).unwrap())
        .stderr(std::fs::File::create(logs.path().join("stderr")).unwrap())
        .spawn()
        .unwrap();
    let tree = tree_when_running(child.id(), marker, &mut child, logs.path());
    assert!(
        tree.iter().any(|(_, c)| c.contains(provider)),
        "the client is in the tree: {tree:#?}"
    );
    match stop {
        Stop::Cap => {}
        Stop::CtrlC => signal(child.id(), "INT"),
        Stop::Kill9 => child.kill().unwrap(),
    }
    let status = child.wait().unwrap();
    assert_tree_gone(&tree, &format!("{stop:?}"));
    if let Stop::Cap = stop {
        let out = std::fs::read_to_string(logs.path().join("stdout")).unwrap();
        let v: Value = serde_json::from_str(&out)
            .map_err(|e| format!("{e}: {out}"))
            .unwrap();
        assert_ne!(v["outcome"], "VERIFIED", "{v:#}");
        assert!(
            started.elapsed() < Duration::from_secs(cap_s(provider).parse::<u64>().unwrap() + 60),
            "the cap held ({:?})",
            started.elapsed()
        );
        assert!(v.to_string().contains("cap"), "{v:#}");
    }
    if let Stop::CtrlC = stop {
        assert_eq!(status.code(), Some(130), "{status:?}");
    }
}

/// The run cap of a stopped build: long enough for the client to start and reach its first
/// tool call on a busy machine (opencode takes tens of seconds to start), short enough to wait.
fn cap_s(provider: &str) -> &'static str {
    match provider {
        "claude" => "15",
        "aider" => "25",
        _ => "75",
    }
}

/// A command that runs for minutes and has a child of its own, both with `marker` in their
/// command lines. (Claude Code refuses a standalone `sleep`.)
fn long_command(marker: &str) -> String {
    format!(
        "python3 -c 'import subprocess, sys; subprocess.run([sys.executable, \"-c\", \"import time; time.sleep(300)\", sys.argv[1]])' {marker}-child"
    )
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_cap_ctrl_c_or_kill_9_takes_claude_codes_whole_tree() {
    let Some(claude) = loki_test_support::require_agent("claude") else {
        return;
    };
    for stop in [Stop::Cap, Stop::CtrlC, Stop::Kill9] {
        let fake = FakeLlm::start(
            Api::Anthropic,
            Expect {
                api_key: Some(CLAUDE_KEY.into()),
                model: CLAUDE_MODEL.into(),
            },
        )
        .await;
        // The marker is in the command line of the shell Claude Code starts for Bash.
        let marker = format!("loki-marker-{stop:?}");
        fake.push_turn(&FakeTurn::call(
            "toolu_s",
            "Bash",
            &json!({"command": long_command(&marker), "description": "wait", "timeout": 600_000}),
        ));
        let env = [
            ("ANTHROPIC_API_KEY", CLAUDE_KEY.to_string()),
            ("ANTHROPIC_BASE_URL", fake.base_url()),
        ];
        let claude = claude.clone();
        tokio::task::spawn_blocking(move || {
            stopped_build(&claude, "claude", CLAUDE_MODEL, &env, &marker, stop, |_| {});
        })
        .await
        .unwrap();
        // Only the first turn was asked for: the run never got further.
        assert!(fake.violations().is_empty(), "{:#?}", fake.violations());
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_cap_takes_aiders_whole_tree() {
    let Some(aider) = loki_test_support::require_agent("aider") else {
        return;
    };
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some(OPENAI_KEY.into()),
            model: OPENAI_MODEL.into(),
        },
    )
    .await;
    // aider never runs a suggested shell command under --yes-always (it asks for an explicit
    // yes), so it is held in its model call: the fake answers after the cap.
    let marker = "--no-fancy-input";
    fake.push(
        FakeTurn::text("DONE")
            .json(Api::OpenAi)
            .with_delay(Duration::from_secs(120)),
    );
    let env = [
        ("OPENAI_API_KEY", OPENAI_KEY.to_string()),
        ("OPENAI_API_BASE", fake.base_url()),
    ];
    tokio::task::spawn_blocking(move || {
        stopped_build(
            &aider,
            "aider",
            "openai/gpt-4.1",
            &env,
            marker,
            Stop::Cap,
            |sb| {
                aider_home(sb);
            },
        );
    })
    .await
    .unwrap();
    assert_eq!(fake.requests().len(), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn a_cap_takes_opencodes_whole_tree() {
    let Some(opencode) = loki_test_support::require_agent("opencode") else {
        return;
    };
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some(OPENAI_KEY.into()),
            model: OPENAI_MODEL.into(),
        },
    )
    .await;
    // The wall author's first turn runs a long command with opencode's bash tool.
    let marker = "loki-marker-opencode";
    fake.push_turn(&FakeTurn::call(
        "call_s",
        "bash",
        &json!({"command": long_command(marker), "description": "wait", "timeout": 600_000}),
    ));
    let base = fake.base_url();
    let env = [("OPENAI_API_KEY", OPENAI_KEY.to_string())];
    tokio::task::spawn_blocking(move || {
        stopped_build(
            &opencode,
            "opencode",
            "fake/gpt-4.1",
            &env,
            marker,
            Stop::Cap,
            |sb| {
                opencode_home(sb, &base);
            },
        );
    })
    .await
    .unwrap();
    assert!(fake.violations().is_empty(), "{:#?}", fake.violations());
}
