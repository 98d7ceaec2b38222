//! `loki seal` end to end with a real pytest suite: `install --agent claude`, then the hook
//! commands exactly as Claude Code runs them (JSON on stdin), blocking a test deletion and
//! allowing a real fix; `seal check` without an agent.

use std::io::Write;
use std::process::{Command, Stdio};

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

pub(crate) fn calc_repo() -> GitRepo {
    let r = GitRepo::new();
    r.write(
        "calc.py",
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    r.write(
        "test_calc.py",
        "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\ndef test_sub_negative():\n    assert sub(1, 3) == -2\n",
    );
    r.commit("calc with a bug in add");
    r
}

/// Runs a hook command from the settings file the way Claude Code does: through a shell, with the
/// hook input JSON on stdin and `CLAUDE_PROJECT_DIR` set.
fn run_hook(
    sb: &Sandbox,
    repo: &GitRepo,
    command: &str,
    input: &serde_json::Value,
) -> std::process::Output {
    let bin = assert_cmd::cargo::cargo_bin("loki");
    // A hook installed with `--command loki` runs the binary under test.
    let command = match command.strip_prefix("loki ") {
        Some(rest) => format!("{} {rest}", bin.display()),
        None => command.to_string(),
    };
    let mut c = Command::new("sh");
    sb.apply(&mut c)
        .current_dir(repo.path())
        .env("CLAUDE_PROJECT_DIR", repo.path())
        .args(["-c", &command])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn hook_command(settings: &serde_json::Value, event: &str) -> String {
    settings["hooks"][event][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A user's settings file in its own layout: keys out of order, an escape, a number written
/// `1.50`, hooks of its own on `Stop` and another event.
const USER_SETTINGS: &str = "{\n    \"zeta\": {\"b\": 2, \"a\": 1},\n    \"hooks\": {\n        \"PostToolUse\": [\n            {\"matcher\": \"Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt\"}]}\n        ],\n        \"Stop\": [\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"my-linter\", \"timeout\": 30}]}\n        ]\n    },\n    \"alpha\": \"caf\\u00e9\",\n    \"num\": 1.50\n}\n";

/// [`USER_SETTINGS`] with the seal's hooks (SessionStart, Stop, SubagentStop) running `exe`, with
/// these timeouts: inserted after the user's own entries, and nothing else changed.
fn with_seal_hooks(exe: &str, start_s: u64, stop_s: u64) -> String {
    let hook = |verb: &str, timeout: u64, indent: &str| {
        let i = |n: usize| format!("{indent}{}", "    ".repeat(n));
        format!(
            "{{\n{}\"hooks\": [\n{}{{\n{}\"command\": {},\n{}\"timeout\": {timeout},\n{}\"type\": \"command\"\n{}}}\n{}]\n{indent}}}",
            i(1),
            i(2),
            i(3),
            json!(format!("{exe} seal {verb} --agent claude")),
            i(3),
            i(3),
            i(2),
            i(1),
        )
    };
    USER_SETTINGS.replace(
        "\"timeout\": 30}]}\n        ]\n",
        &format!(
            "\"timeout\": 30}}]}},\n            {},\n        ],\n        \"SessionStart\": [\n            {}\n        ],\n        \"SubagentStop\": [\n            {}\n        ]\n",
            hook("stop", stop_s, "            "),
            hook("start", start_s, "            "),
            hook("stop", stop_s, "            ")
        )
        .replace("},\n        ],", "}\n        ],"),
    )
}

/// `seal install` registers the absolute path of the loki that ran it, with hook timeouts sized
/// from the measured suite (and says how), and changes nothing else in the user's file; a later
/// install after a recorded session resizes them from that session's start.
#[test]
fn install_names_this_loki_sizes_timeouts_from_the_suite_and_touches_nothing_else() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    repo.write(".claude/settings.json", USER_SETTINGS);
    let exe = std::fs::canonicalize(assert_cmd::cargo::cargo_bin("loki")).unwrap();
    let exe = exe.to_str().unwrap();
    let out = sandboxed(&sb, repo.path())
        .args(["--json", "seal", "install", "--agent", "claude"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["basis"]["kind"], "measured", "{report}");
    let suite_s = report["basis"]["suite_s"].as_f64().unwrap();
    assert!(suite_s > 0.0, "{report}");
    let (start_s, stop_s) = (
        report["timeouts"]["start_s"].as_u64().unwrap(),
        report["timeouts"]["stop_s"].as_u64().unwrap(),
    );
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "test"
    )]
    let sized = |runs: f64, floor: u64| ((suite_s * runs * 2.0).ceil() as u64).max(floor);
    assert_eq!(
        (start_s, stop_s),
        (sized(2.0, 120), sized(6.0, 600)),
        "{report}"
    );
    assert!(
        report["explanation"]
            .as_str()
            .unwrap()
            .contains("when run once now"),
        "{report}"
    );
    let after = std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap();
    assert_eq!(after, with_seal_hooks(exe, start_s, stop_s));

    // The text output says the program and how the timeouts were chosen.
    sandboxed(&sb, repo.path())
        .args(["seal", "install", "--agent", "claude"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "hooks run: {exe} seal start|stop"
        )))
        .stdout(predicate::str::contains("hook timeouts: start "))
        .stdout(predicate::str::contains("the suite took "));

    // A session's start took 100 s: the next install sizes the hooks from it, in place.
    let settings: serde_json::Value = serde_json::from_str(&after).unwrap();
    let start = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    // No transcript: a path in the sandbox that does not exist (the stop hook reads the request
    // from one that does).
    let input = json!({"session_id": "sess-t", "transcript_path": sb.home().join("t.jsonl"),
                       "cwd": repo.path(), "hook_event_name": "SessionStart"});
    let ran = run_hook(&sb, &repo, &start, &input);
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let state = loki_seal::worktree_state_path(&sb.loki_home(), repo.path());
    let mut recorded: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    recorded["baseline_s"] = json!(100.0);
    std::fs::write(&state, recorded.to_string()).unwrap();
    sandboxed(&sb, repo.path())
        .args(["seal", "install", "--agent", "claude"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "hook timeouts: start 400 s, stop 1200 s (the suite took 100.0 s at the start of seal session sess-t;",
        ));
    let resized = std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap();
    assert_eq!(resized, with_seal_hooks(exe, 400, 1200));
}

#[test]
fn claude_stop_hook_blocks_a_test_deletion_and_allows_a_real_fix() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    // Existing project settings must survive the install.
    repo.write(
        ".claude/settings.json",
        "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}\n",
    );
    sandboxed(&sb, repo.path())
        .args(["seal", "install", "--agent", "claude"])
        .assert()
        .success();
    sandboxed(&sb, repo.path())
        .args(["seal", "install", "--agent", "claude"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already registered"));
    let settings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["permissions"]["allow"][0], "Bash(ls)");
    let start = hook_command(&settings, "SessionStart");
    let stop = hook_command(&settings, "Stop");

    let base_input = |event: &str| {
        json!({"session_id": "sess-1", "transcript_path": sb.home().join("t.jsonl"), "cwd": repo.path(),
               "permission_mode": "default", "hook_event_name": event})
    };
    let out = run_hook(&sb, &repo, &start, &base_input("SessionStart"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The agent "fixes" the failing test by deleting the tests.
    std::fs::remove_file(repo.path().join("test_calc.py")).unwrap();
    let mut stop_input = base_input("Stop");
    stop_input["stop_hook_active"] = json!(false);
    stop_input["last_assistant_message"] = json!("All tests pass now.");
    let out = run_hook(&sb, &repo, &stop, &stop_input);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "blocked with exit 2: {stderr}");
    assert!(stderr.contains("Fix the code, not the tests"), "{stderr}");
    assert!(
        stderr.contains("test_file_removed") && stderr.contains("test_calc.py"),
        "{stderr}"
    );
    assert!(
        stderr.contains("test_sub"),
        "the missing tests are named: {stderr}"
    );

    // A real fix: tests restored, the bug fixed.
    repo.git(&["checkout", "--", "test_calc.py"]);
    std::fs::write(
        repo.path().join("calc.py"),
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    )
    .unwrap();
    stop_input["stop_hook_active"] = json!(true);
    let out = run_hook(&sb, &repo, &stop, &stop_input);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let msg: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = msg["systemMessage"].as_str().unwrap();
    assert!(
        text.contains("VERIFIED") && text.contains("Receipt sha256:"),
        "{text}"
    );
    // Each stop sealed a signed receipt: the blocked one does not verify as a success, the last does.
    sandboxed(&sb, repo.path()).arg("verify").assert().code(0);
    let runs = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .count();
    assert_eq!(runs, 2);
}

#[test]
fn the_release_valve_allows_after_max_blocks_and_records_not_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let input = json!({"session_id": "s2", "cwd": repo.path(), "hook_event_name": "Stop"});
    let out = run_hook(&sb, &repo, "loki seal start", &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A new skip marker on a passing test, hiding a regression.
    skip_test_sub(&repo);
    let stop = |sb: &Sandbox| {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
        sb.apply(&mut c)
            .env("LOKI_SEAL_MAX_BLOCKS", "1")
            .current_dir(repo.path())
            .args(["seal", "stop", "--agent", "codex"]);
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let first = stop(&sb);
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["decision"], "block", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("newly_skipped"),
        "{v}"
    );
    let second = stop(&sb);
    let v: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    // Released: Codex ends the turn marked stopped and shows the message.
    assert_eq!(v["continue"], false, "{v}");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("RELEASED, NOT VERIFIED"),
        "{v}"
    );
    // The released stop's receipt is intact but not VERIFIED.
    sandboxed(&sb, repo.path()).arg("verify").assert().code(4);
    // The person can see it afterwards: `loki seal status` lists the release.
    let status = sandboxed(&sb, repo.path())
        .args(["seal", "status"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&status.stdout);
    assert!(shown.contains("session s2"), "{shown}");
    assert!(shown.contains("RELEASED, NOT VERIFIED"), "{shown}");
    assert!(shown.contains("newly_skipped"), "{shown}");
    // Seal receipts carry the real time of the stop.
    let runs = repo.path().join(".loki/runs");
    for run in std::fs::read_dir(&runs).unwrap() {
        let receipt = run.unwrap().path().join("receipt.json");
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&receipt).unwrap()).unwrap();
        let wall = r["time"]["wall_s"].as_f64().unwrap();
        assert!(wall > 0.0, "{receipt:?}: time {}", r["time"]);
    }
}

/// Four stops of one session at once: each reads the block counter, judges and writes it back, so
/// without the session lock they would all read 0 and block (the counter ending at 1). With it they
/// take turns: three blocks, then the release valve (max 3) allows the fourth.
#[test]
fn concurrent_stops_of_one_session_count_every_block() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let input = json!({"session_id": "s4", "cwd": repo.path(), "hook_event_name": "Stop"});
    let out = run_hook(&sb, &repo, "loki seal start", &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    skip_test_sub(&repo);
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
            sb.apply(&mut c)
                .env("LOKI_SEAL_MAX_BLOCKS", "3")
                .current_dir(repo.path())
                .args(["seal", "stop", "--agent", "codex"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = c.spawn().unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.to_string().as_bytes())
                .unwrap();
            child
        })
        .collect();
    let decisions: Vec<serde_json::Value> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
        })
        .collect();
    let blocked = decisions
        .iter()
        .filter(|v| v["decision"] == "block")
        .count();
    // The release: Codex's stop marked not successful, with the message.
    let allowed = decisions.iter().filter(|v| v["continue"] == false).count();
    let said: Vec<&serde_json::Value> = decisions.iter().map(|v| &v["decision"]).collect();
    assert_eq!((blocked, allowed), (3, 1), "decisions: {said:?}");
}

/// Runs `loki seal <args>` with `stdin` as the hook input and `LOKI_SEAL_MAX_BLOCKS=max_blocks`.
fn seal_with(
    sb: &Sandbox,
    repo: &GitRepo,
    args: &[&str],
    stdin: &str,
    max_blocks: u32,
) -> std::process::Output {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .env("LOKI_SEAL_MAX_BLOCKS", max_blocks.to_string())
        .current_dir(repo.path())
        .arg("seal")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

/// A new skip marker on the passing `test_sub`, hiding the regression `sub` gets beside it: a
/// cheat the judge names `newly_skipped` (a skip with no code change is only a weakening to show).
pub(crate) fn skip_test_sub(repo: &GitRepo) {
    let t = std::fs::read_to_string(repo.path().join("test_calc.py")).unwrap();
    std::fs::write(
        repo.path().join("test_calc.py"),
        t.replace(
            "def test_sub():",
            "import pytest\n\n\n@pytest.mark.skip\ndef test_sub():",
        ),
    )
    .unwrap();
    let c = std::fs::read_to_string(repo.path().join("calc.py")).unwrap();
    std::fs::write(
        repo.path().join("calc.py"),
        c.replace(
            "def sub(a, b):\n    return a - b",
            "def sub(a, b):\n    return a - b + (1 if a >= 5 else 0)",
        ),
    )
    .unwrap();
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The hook was installed mid-session: no start was recorded. The stop baselines from the last
/// commit (and says so), still catches the cheat, and counts towards `seal.max_blocks`, so the
/// agent is released instead of stuck.
#[test]
fn a_stop_without_a_recorded_start_baselines_from_the_last_commit_and_counts() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    skip_test_sub(&repo);
    let input = json!({"session_id": "never-started", "cwd": repo.path()}).to_string();
    let first = seal_with(&sb, &repo, &["stop", "--agent", "gemini"], &input, 1);
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("newly_skipped"), "{reason}");
    assert!(reason.contains("no session start was recorded"), "{reason}");
    let second = seal_with(&sb, &repo, &["stop", "--agent", "gemini"], &input, 1);
    let v: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_ne!(
        v["decision"], "deny",
        "the valve opens after one block: {v}"
    );
    assert!(
        v.to_string().contains("RELEASED, NOT VERIFIED"),
        "the release is said: {v}"
    );
}

/// Unreadable hook input (not an object, not JSON, empty) must not trap the agent either: it is
/// judged as the default session against the last commit, blocked while the cheat stands, and
/// released after `seal.max_blocks`.
#[test]
fn unreadable_hook_input_is_judged_and_released_not_stuck() {
    if !loki_test_support::require_pytest() {
        return;
    }
    for bad in ["\"not an object\"", "{not json", ""] {
        // A release lets the agent go: the worktree's baseline moves to the tree it released, so
        // each input gets a worktree of its own.
        let sb = Sandbox::new();
        let repo = calc_repo();
        skip_test_sub(&repo);
        let first = seal_with(&sb, &repo, &["stop", "--agent", "claude"], bad, 1);
        assert_eq!(first.status.code(), Some(2), "input {bad:?}: blocks first");
        let err = text(&first.stderr);
        assert!(err.contains("newly_skipped"), "input {bad:?}: {err}");
        if !bad.is_empty() {
            assert!(err.contains("the hook input was unreadable"), "{err}");
        }
        let second = seal_with(&sb, &repo, &["stop", "--agent", "claude"], bad, 1);
        assert_eq!(
            second.status.code(),
            Some(0),
            "input {bad:?}: released: {}",
            text(&second.stderr)
        );
        assert!(text(&second.stdout).contains("RELEASED, NOT VERIFIED"));
    }
}

/// A stop with nothing changed since the baseline is allowed as "no change": nothing runs, no
/// receipt claims anything, and the run is recorded with that outcome.
#[test]
fn a_stop_with_no_change_is_allowed_as_no_change() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let input = json!({"session_id": "s-idle", "cwd": repo.path()}).to_string();
    assert!(
        seal_with(&sb, &repo, &["start"], &input, 5)
            .status
            .success()
    );
    let stop = seal_with(&sb, &repo, &["stop"], &input, 5);
    assert_eq!(stop.status.code(), Some(0), "{}", text(&stop.stderr));
    let v: serde_json::Value = serde_json::from_slice(&stop.stdout).unwrap();
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("no change since the baseline taken at the start of session s-idle"),
        "{v}"
    );
    let runs = repo.path().join(".loki/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    assert!(
        !run.join("receipt.json").exists(),
        "nothing proven, nothing sealed"
    );
    let events = std::fs::read_to_string(run.join("events.jsonl")).unwrap();
    assert!(events.contains("NO CHANGE"), "{events}");
    let status = seal_with(&sb, &repo, &["status"], "", 5);
    assert!(
        text(&status.stdout).contains("last stop"),
        "{}",
        text(&status.stdout)
    );
    assert!(
        text(&status.stdout).contains("no change"),
        "{}",
        text(&status.stdout)
    );
}

/// A stop that cannot be checked at all (here: the session's state file is corrupt) fails closed,
/// and counts: after `seal.max_blocks` such stops the next is released, said to be NOT VERIFIED.
#[test]
fn a_stop_that_cannot_be_checked_blocks_then_releases() {
    let sb = Sandbox::new();
    let repo = calc_repo();
    let seal_dir = sb.loki_home().join("seal");
    std::fs::create_dir_all(&seal_dir).unwrap();
    std::fs::write(seal_dir.join("s-broken.json"), "{ corrupt").unwrap();
    let input = json!({"session_id": "s-broken", "cwd": repo.path()}).to_string();
    let first = seal_with(&sb, &repo, &["stop", "--agent", "gemini"], &input, 1);
    let v: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("could not check this stop"),
        "{v}"
    );
    let second = seal_with(&sb, &repo, &["stop", "--agent", "gemini"], &input, 1);
    let v: serde_json::Value = serde_json::from_slice(&second.stdout).unwrap();
    assert_ne!(v["decision"], "deny", "{v}");
    assert!(v.to_string().contains("RELEASED, NOT VERIFIED"), "{v}");
    let status = seal_with(&sb, &repo, &["status"], "", 1);
    assert!(
        text(&status.stdout).contains("unreadable session state"),
        "{}",
        text(&status.stdout)
    );
}

/// A base that could not run (here: no python on PATH) is not remembered: once python is back, the
/// next judgement runs the base again instead of reusing "cannot judge" from the cache.
#[test]
fn a_base_that_could_not_run_is_not_cached() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    std::fs::write(repo.path().join("README.md"), "calc\n").unwrap();
    // PATH with git and a shell only.
    let bin = tempfile::tempdir().unwrap();
    for tool in ["git", "sh"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    sandboxed(&sb, repo.path())
        .env("PATH", bin.path())
        .args(["seal", "check", "--base", "HEAD"])
        .assert()
        .code(3);
    sandboxed(&sb, repo.path())
        .args(["seal", "check", "--base", "HEAD"])
        .assert()
        .success()
        .stdout(predicate::str::contains("CLEAN"));
}

/// A baseline whose suite could not run (no python at session start) leaves the change unjudged:
/// the stop is allowed, said NOT VERIFIED, and the receipt is not VERIFIED either, though every
/// suite passes now.
#[test]
fn an_unjudged_change_is_never_sealed_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n",
        );
    repo.commit("calc");
    let bin = tempfile::tempdir().unwrap();
    for tool in ["git", "sh"] {
        let found = std::env::split_paths(&std::env::var_os("PATH").unwrap())
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
            .unwrap();
        std::os::unix::fs::symlink(found, bin.path().join(tool)).unwrap();
    }
    let input = json!({"session_id": "s-unjudged", "cwd": repo.path()}).to_string();
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .env("PATH", bin.path())
        .current_dir(repo.path())
        .args(["seal", "start"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let started = child.wait_with_output().unwrap();
    assert!(started.status.success(), "{}", text(&started.stderr));
    std::fs::write(repo.path().join("README.md"), "calc\n").unwrap();
    let stop = seal_with(&sb, &repo, &["stop"], &input, 5);
    assert_eq!(stop.status.code(), Some(0), "{}", text(&stop.stderr));
    assert!(
        text(&stop.stdout).contains("NOT VERIFIED"),
        "{}",
        text(&stop.stdout)
    );
    let runs = repo.path().join(".loki/runs");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(r["verdict"], "PARTIAL", "{r}");
    assert!(r["not_proven"].to_string().contains("cannot judge"), "{r}");
}

#[test]
fn seal_check_compares_the_working_tree_with_a_revision() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    // A clean change: nothing weakened (test_add still fails at both: pre-existing).
    std::fs::write(repo.path().join("README.md"), "calc\n").unwrap();
    sandboxed(&sb, repo.path())
        .args(["seal", "check"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("CLEAN").and(predicate::str::contains(
                "pre-existing failure: pytest: test_calc.py::test_add",
            )),
        );
    // A weakened assertion while breaking sub: the original test, run on the new code, fails.
    std::fs::write(
        repo.path().join("calc.py"),
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return 0\n",
    )
    .unwrap();
    let t = std::fs::read_to_string(repo.path().join("test_calc.py")).unwrap();
    std::fs::write(
        repo.path().join("test_calc.py"),
        t.replace("assert sub(5, 3) == 2", "assert sub(5, 3) is not None"),
    )
    .unwrap();
    sandboxed(&sb, repo.path())
        .args(["seal", "check", "--base", "HEAD"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FINDING").and(predicate::str::contains("weakened_test")));
}

#[test]
fn seal_check_sees_a_conftest_hidden_by_the_local_exclude_file() {
    let sb = Sandbox::new();
    let repo = calc_repo();
    // A cheat git itself would not show: the file is hidden by `.git/info/exclude`, which is in
    // no diff, yet pytest loads it and every failure becomes a pass.
    std::fs::write(repo.path().join(".git/info/exclude"), "conftest.py\n").unwrap();
    std::fs::write(
        repo.path().join("conftest.py"),
        "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    rep = outcome.get_result()\n    rep.outcome = \"passed\"\n",
    )
    .unwrap();
    assert_eq!(repo.git(&["status", "--porcelain"]).trim(), "");
    sandboxed(&sb, repo.path())
        .args(["seal", "check", "--base", "HEAD"])
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("outcome_rewrite")
                .and(predicate::str::contains("conftest.py")),
        );
}
