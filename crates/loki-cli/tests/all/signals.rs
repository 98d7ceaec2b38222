//! Children die with loki: `kill -9` of loki, Ctrl-C (SIGINT) and SIGTERM while a child and its
//! own child run. Real processes and real signals; every wait polls for a process to go, with a
//! generous bound, and nothing asserts how fast.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use loki_test_support::procs::alive;
use loki_test_support::{GitRepo, Sandbox};
use serde_json::json;

/// How long a process may take to appear or to go before the test gives up.
const BOUND: Duration = Duration::from_secs(30);
const TICK: Duration = Duration::from_millis(50);

/// A command that records its pid and its child's, then waits on the child forever.
const SLEEPER: &str = "sleep 300 & echo $! > grandchild.pid; echo $$ > child.pid; wait";

fn poll(mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < BOUND {
        if done() {
            return true;
        }
        std::thread::sleep(TICK);
    }
    false
}

/// The pid in `file`, once it has been written.
fn pid_in(file: &Path) -> u32 {
    let mut pid = None;
    assert!(
        poll(|| {
            pid = std::fs::read_to_string(file)
                .ok()
                .and_then(|t| t.trim().parse().ok());
            pid.is_some()
        }),
        "{} was never written",
        file.display()
    );
    pid.unwrap()
}

fn assert_gone(pid: u32, what: &str) {
    assert!(poll(|| !alive(pid)), "the {what} (pid {pid}) outlived loki");
}

/// Starts `loki args…` in `dir` with its output going to files, so nothing blocks on a pipe.
fn start(sb: &Sandbox, dir: &Path, args: &[&str]) -> (Child, PathBuf, PathBuf) {
    start_with(sb, dir, args, |_| {})
}

fn start_with(
    sb: &Sandbox,
    dir: &Path,
    args: &[&str],
    f: impl FnOnce(&mut std::process::Command),
) -> (Child, PathBuf, PathBuf) {
    let out = dir.join("loki.stdout");
    let err = dir.join("loki.stderr");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    f(&mut cmd);
    (cmd.spawn().unwrap(), out, err)
}

fn signal(pid: u32, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([format!("-{sig}"), pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

/// Waits for loki to end (within the bound) and returns its exit code.
fn exit_of(loki: &mut Child) -> Option<i32> {
    let mut status = None;
    assert!(
        poll(|| {
            status = loki.try_wait().unwrap();
            status.is_some()
        }),
        "loki did not end"
    );
    status.unwrap().code()
}

#[test]
fn kill_9_of_loki_takes_its_child_and_grandchild_with_it() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let (mut loki, _, _) = start(&sb, repo.path(), &["run", "--", "sh", "-c", SLEEPER]);
    let child = pid_in(&repo.path().join("child.pid"));
    let grandchild = pid_in(&repo.path().join("grandchild.pid"));
    assert!(alive(child) && alive(grandchild));
    loki.kill().unwrap();
    loki.wait().unwrap();
    assert_gone(child, "child");
    assert_gone(grandchild, "grandchild");
}

#[test]
fn ctrl_c_stops_the_child_group_says_so_and_exits_130() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let (mut loki, _, err) = start(&sb, repo.path(), &["run", "--", "sh", "-c", SLEEPER]);
    let child = pid_in(&repo.path().join("child.pid"));
    let grandchild = pid_in(&repo.path().join("grandchild.pid"));
    signal(loki.id(), "INT");
    assert_eq!(exit_of(&mut loki), Some(130));
    assert_gone(child, "child");
    assert_gone(grandchild, "grandchild");
    let stderr = std::fs::read_to_string(err).unwrap();
    assert!(
        stderr.contains("loki: interrupted (SIGINT): the command's process group was stopped; nothing was recorded as an incident (run run_"),
        "{stderr}"
    );
    // The run says it was interrupted, and no crash was made of it.
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 1);
    assert!(!runs[0].path().join("incident.json").exists());
    let run: serde_json::Value =
        serde_json::from_slice(&std::fs::read(runs[0].path().join("run.json")).unwrap()).unwrap();
    assert_eq!(run["status"], "interrupted", "{run}");
}

#[test]
fn sigterm_during_a_replay_stops_the_reproduction_and_exits_143() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    // Crashes when recorded; hangs (with a child) once the marker exists, as a bad fix might.
    let cmd = format!("if [ -f marker ]; then {SLEEPER}; fi; echo boom >&2; exit 1");
    let (mut loki, _, _) = start(&sb, repo.path(), &["run", "--", "sh", "-c", &cmd]);
    assert_eq!(exit_of(&mut loki), Some(1));
    std::fs::write(repo.path().join("marker"), "").unwrap();
    let (mut loki, out, _) = start(&sb, repo.path(), &["replay"]);
    let child = pid_in(&repo.path().join("child.pid"));
    let grandchild = pid_in(&repo.path().join("grandchild.pid"));
    signal(loki.id(), "TERM");
    assert_eq!(exit_of(&mut loki), Some(143));
    assert_gone(child, "reproduced command");
    assert_gone(grandchild, "reproduced command's child");
    let stdout = std::fs::read_to_string(out).unwrap();
    assert!(stdout.contains("HARNESS ERROR"), "{stdout}");
}

const APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";
const LINE: &str = "    return sum(values) / len(values)\n";
/// A "fix" that hangs in the replay, after writing its pid.
const HANGS: &str =
    "    import os, time; open('replay.pid', 'w').write(str(os.getpid())); time.sleep(300)\n";

#[test]
fn ctrl_c_during_fix_verification_says_the_patch_and_backup_are_left() {
    if !loki_test_support::require_tool("python3", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("app.py", APP);
    repo.commit("app");
    let (mut loki, _, _) = start(&sb, repo.path(), &["run", "--", "python3", "app.py"]);
    assert_eq!(exit_of(&mut loki), Some(1));
    let script = sb.home().join("heal-script.json");
    let answer = json!({"file": "app.py", "root_cause": "empty list", "explanation": "wait",
        "original_snippet": LINE, "replacement_snippet": HANGS});
    let s = json!({"sessions": [{"name": "heal", "turns": [{"text": answer.to_string()}]}]});
    std::fs::write(&script, s.to_string()).unwrap();
    let (mut loki, out, err) = start_with(&sb, repo.path(), &["fix", "--apply", "--yes"], |c| {
        c.env("LOKI_PROVIDER", "scripted")
            .env("LOKI_PROVIDER_SCRIPT", &script);
    });
    let replay = pid_in(&repo.path().join("replay.pid"));
    signal(loki.id(), "INT");
    assert_eq!(exit_of(&mut loki), Some(130));
    assert_gone(replay, "replayed program");
    let stderr = std::fs::read_to_string(err).unwrap();
    let stdout = std::fs::read_to_string(out).unwrap();
    assert!(
        stderr.contains("loki: interrupted (SIGINT): ")
            && stderr.contains("stays applied to app.py")
            && stderr.contains("app.py.loki.bak")
            && stderr.contains("loki fix --restore"),
        "stderr:\n{stderr}\nstdout:\n{stdout}"
    );
    assert!(repo.path().join("app.py.loki.bak").is_file());
    assert_eq!(
        std::fs::read_to_string(repo.path().join("app.py.loki.bak")).unwrap(),
        APP
    );
    // The fix's receipt claims nothing of the cut replay: INTERRUPTED, no check result.
    // Run ids are stamped to the second with a random suffix, so the recording and the fix may
    // sort either way: the fix's run is the one that sealed a receipt (the recording keeps an
    // incident).
    let sealed: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("receipt.json"))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(sealed.len(), 1, "{sealed:?}");
    let receipt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&sealed[0]).unwrap()).unwrap();
    assert_eq!(receipt["verdict"], "INTERRUPTED", "{receipt:#}");
    assert!(
        receipt["checks"].as_array().unwrap().is_empty(),
        "{receipt:#}"
    );
}

/// The pid of a process whose command line is exactly `argv`, once one appears.
fn pid_of(argv: &[&str]) -> u32 {
    let want: Vec<u8> = argv.iter().flat_map(|a| a.bytes().chain([0])).collect();
    let mut found = None;
    assert!(
        poll(|| {
            found = std::fs::read_dir("/proc").unwrap().flatten().find_map(|e| {
                let pid: u32 = e.file_name().to_str()?.parse().ok()?;
                (std::fs::read(e.path().join("cmdline")).ok()? == want).then_some(pid)
            });
            found.is_some()
        }),
        "no process {argv:?} appeared"
    );
    found.unwrap()
}

/// SIGTERM during `loki ask`: the agent's command (and its child) stop with their group, loki says
/// what is left (the run, the unverified edits) and exits 143, instead of dying silently.
#[test]
fn sigterm_during_ask_stops_the_agents_command_and_says_what_is_left() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    // The ask box keeps the checkout read-only to commands, so the processes are found by their
    // unusual command line rather than by pid files.
    let script = json!({"sessions": [{"name": "ask", "turns": [
        {"tool_calls": [{"name": "run", "arguments": {"command": "sleep 41.75 & wait"}}]},
        {"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "slept"}}]}
    ]}]});
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.json");
    std::fs::write(&path, script.to_string()).unwrap();
    let (mut loki, _, err) = start(
        &sb,
        repo.path(),
        &[
            "ask",
            "sleep a while",
            "--provider",
            "scripted",
            "--script",
            path.to_str().unwrap(),
        ],
    );
    let grandchild = pid_of(&["sleep", "41.75"]);
    signal(loki.id(), "TERM");
    assert_eq!(exit_of(&mut loki), Some(143));
    assert_gone(grandchild, "agent's command's child");
    let stderr = std::fs::read_to_string(err).unwrap();
    assert!(
        stderr.contains("loki: interrupted (SIGTERM): the ask session (run run_"),
        "{stderr}"
    );
}
