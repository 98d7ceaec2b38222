//! `loki "<task>"` end to end, the first-run gate: a throwaway HOME, a repository with a real bug
//! and a failing test, the scripted provider fixing it; then `status`, `logs`, `apply`, `discard`.

use std::path::Path;

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const CALC: &str = "def add(a, b):\n    return a - b\n";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

fn bug_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", CALC)
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "json! values are built inline at each call"
)]
fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

/// Writes a two-session script (wall author, implementer making `calls`) next to the repository.
fn script(dir: &Path, calls: &[Value]) -> std::path::PathBuf {
    let mut turns = calls.to_vec();
    turns.push(call("finish", json!({"status": "done", "detail": "done"})));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": turns}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

fn fix() -> Value {
    call(
        "edit",
        json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"}),
    )
}

#[test]
fn first_run_gate() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = script(tmp.path(), &[fix()]);
    let out = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0)
        .get_output()
        .clone();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stdout.lines().count() + stderr.lines().count() <= 15,
        "{stdout}{stderr}"
    );
    assert!(stdout.starts_with("Outcome:    VERIFIED\n"), "{stdout}");
    let digest = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Receipt:    sha256:"))
        .unwrap()
        .to_string();
    assert_eq!(digest.len(), 64);
    // The printed digest is the one `loki verify` checks; signed by the sandbox's key.
    let verify = sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let verify = String::from_utf8(verify).unwrap();
    assert!(verify.contains(&format!("sha256:{digest}")), "{verify}");
    assert!(verify.contains("Verify:     VERIFIED"), "{verify}");
    assert!(verify.contains("pass  signature"), "{verify}");
    // Only the fix file changed, on the run's branch; the user's checkout is untouched.
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    let run_id = runs[0].file_name().to_string_lossy().into_owned();
    let branch = format!("loki/{run_id}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", &branch]).trim(),
        "calc.py"
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("calc.py")).unwrap(),
        CALC
    );
    // The tests are green on the branch, run here independently of loki.
    let check = tmp.path().join("check");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "--detach",
        check.to_str().unwrap(),
        &branch,
    ]);
    let pytest = std::process::Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(&check)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(
        pytest.status.success(),
        "{}",
        String::from_utf8_lossy(&pytest.stdout)
    );
    repo.git(&["worktree", "remove", "--force", check.to_str().unwrap()]);

    // status, logs, apply, discard.
    sandboxed(&sb, repo.path())
        .args(["status"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Outcome:    VERIFIED").and(predicate::str::contains(&run_id)),
        );
    let st: Value = serde_json::from_slice(
        &sandboxed(&sb, repo.path())
            .args(["status", "--json", &run_id])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    assert_eq!(st["outcome"], "VERIFIED");
    assert_eq!(st["stage"], "seal");
    sandboxed(&sb, repo.path())
        .args(["logs", "latest"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("wall.sealed")
                .and(predicate::str::contains("stage.completed    verify")),
        );
    // Without a run, the newest one.
    let named = sandboxed(&sb, repo.path())
        .args(["logs", "latest"])
        .output()
        .unwrap();
    sandboxed(&sb, repo.path())
        .arg("logs")
        .assert()
        .success()
        .stdout(named.stdout);
    sandboxed(&sb, repo.path())
        .args(["apply", "latest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("fast-forwarded"));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n"
    );
    sandboxed(&sb, repo.path())
        .args(["discard", "latest"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("removed worktree")
                .and(predicate::str::contains("removed branch")),
        );
    assert!(!repo.path().join(".loki/worktrees").join(&run_id).exists());
}

#[test]
fn a_failed_run_is_honest_and_cannot_be_applied() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = script(tmp.path(), &[]);
    let out = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--json", "--script"])
        .arg(&script)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["outcome"], "FAILED");
    assert!(
        v["not_proven"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["what"] == "change" && n["why"] == "the diff is empty"),
        "{v}"
    );
    sandboxed(&sb, repo.path())
        .args(["apply", "latest"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("only a VERIFIED run is applied"));
}

#[test]
fn a_dirty_tree_is_refused_with_the_files_named() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    std::fs::write(
        repo.path().join("calc.py"),
        "def add(a, b):\n    return 0\n",
    )
    .unwrap();
    sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(sb.home().join("gone/script.json"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("uncommitted changes")
                .and(predicate::str::contains("calc.py")),
        );
}

#[test]
fn the_agent_sees_no_secrets() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    loki_receipt::Signer::load_or_create(&sb.loki_home(), &loki_receipt::KeyEnv::default())
        .unwrap();
    // By variable, by the usual place, and by the absolute path an agent could guess.
    let key = sb.loki_home().join("keys/receipt-ed25519.pem");
    let snoop = call(
        "run",
        json!({"command": format!("env; cat \"$LOKI_HOME/keys/receipt-ed25519.pem\" \"$HOME/.loki/keys/receipt-ed25519.pem\" '{}'; ls '{}'; echo home=$HOME", key.display(), key.parent().unwrap().display())}),
    );
    let script = script(tmp.path(), &[snoop, fix()]);
    sandboxed(&sb, repo.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-test-secret-1234")
        .env("GITHUB_TOKEN", "ghp_test_secret_5678")
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    let transcript = std::fs::read_to_string(runs[0].path().join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("home=/"),
        "the command ran: {transcript}"
    );
    assert!(
        transcript.contains("Permission denied"),
        "the absolute path is refused by the confinement: {transcript}"
    );
    for secret in [
        "sk-ant-test-secret-1234",
        "ghp_test_secret_5678",
        "PRIVATE KEY",
        "receipt-ed25519.pem\\n",
    ] {
        assert!(
            !transcript.contains(secret),
            "{secret} leaked: {transcript}"
        );
    }
}

#[test]
fn the_agent_cannot_write_the_users_checkout_or_the_run_records() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    // By absolute path, past every check of the built-in tools: only the confinement stops it.
    let vandal = call(
        "run",
        json!({"command": format!(
            "echo hacked > '{r}/calc.py'; ls '{r}/.loki/runs'; echo forged > '{r}/.loki/runs/forged.jsonl'; echo x > '{r}/planted.txt'; echo done",
            r = root.display()
        )}),
    );
    let script = script(tmp.path(), &[vandal, fix()]);
    sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(root.join("calc.py")).unwrap(), CALC);
    assert!(!root.join("planted.txt").exists());
    assert!(!root.join(".loki/runs/forged.jsonl").exists());
    let runs: Vec<_> = std::fs::read_dir(root.join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    let transcript = std::fs::read_to_string(runs[0].path().join("transcript.jsonl")).unwrap();
    for refused in [
        "calc.py: Permission denied",
        ".loki/runs': Permission denied",
        "forged.jsonl: Permission denied",
        "planted.txt: Permission denied",
    ] {
        assert!(transcript.contains(refused), "{refused}: {transcript}");
    }
    // The log was never touched, so the run verifies.
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(0);
}

#[test]
fn the_wall_author_cannot_read_the_repository() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let root = repo.path().canonicalize().unwrap();
    let peek = call(
        "run",
        json!({"command": format!("cat '{}/calc.py'; ls '{}'", root.display(), root.display())}),
    );
    let s = json!({"sessions": [
        {"name": "wall", "turns": [peek,
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": [fix(),
            call("finish", json!({"status": "done", "detail": "done"}))]}]});
    let script = tmp.path().join("script.json");
    std::fs::write(&script, s.to_string()).unwrap();
    sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let runs: Vec<_> = std::fs::read_dir(root.join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    let transcript = std::fs::read_to_string(runs[0].path().join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("calc.py: Permission denied"),
        "the author sees only the task and the file list: {transcript}"
    );
    let author: Vec<&str> = transcript
        .lines()
        .filter(|l| l.contains(r#""session":"wall""#))
        .collect();
    assert!(!author.is_empty());
    assert!(
        author.iter().all(|l| !l.contains("def add")),
        "no source reached the author: {author:#?}"
    );
}

#[test]
fn sigint_stops_at_a_safe_point_seals_and_exits_130() {
    stops_at_a_safe_point_and_seals("INT", 130);
}

/// SIGTERM (a CI runner cancelling, `systemctl stop`) is a Ctrl-C too: the run stops at its safe
/// point, seals, prints its summary, and exits 143.
#[test]
fn sigterm_stops_at_a_safe_point_seals_prints_the_summary_and_exits_143() {
    stops_at_a_safe_point_and_seals("TERM", 143);
}

fn stops_at_a_safe_point_and_seals(signal: &str, code: i32) {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    // An unusual duration, so the check below finds this test's child and no other.
    let script = script(
        tmp.path(),
        &[call("run", json!({"command": "sleep 31.25"}))],
    );
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd).current_dir(repo.path());
    cmd.args([TASK, "--provider", "scripted", "--script"])
        .arg(&script);
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let started = std::time::Instant::now();
    let child = cmd.spawn().unwrap();
    // Wait until the agent is in its `sleep` (the implement session has started).
    let runs = repo.path().join(".loki/runs");
    let deadline = started + std::time::Duration::from_secs(20);
    loop {
        let transcript = std::fs::read_dir(&runs)
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| std::fs::read_to_string(e.unwrap().path().join("transcript.jsonl")).ok())
            .unwrap_or_default();
        if transcript.contains("\"session\":\"implement\"") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the implement session never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args([format!("-{signal}"), pid])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(started.elapsed().as_secs() < 25, "{:?}", started.elapsed());
    // The agent's command in flight was killed with its process group, not left to its timeout.
    let alive = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(Result::ok)
            .any(|e| {
                std::fs::read(e.path().join("cmdline")).is_ok_and(|c| c == b"sleep\x0031.25\x00")
            })
    };
    let gone_by = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while alive() && std::time::Instant::now() < gone_by {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!alive(), "the agent's `sleep` outlived the run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Receipt:    sha256:"),
        "sealed anyway: {stdout}"
    );
    assert!(stdout.contains("interrupted"), "{stdout}");
    assert!(
        stdout.contains("Outcome:"),
        "the summary is printed: {stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("loki: interrupted (SIG{signal}): the run run_")),
        "{stderr}"
    );
    assert!(stderr.contains("sealed its receipt"), "{stderr}");
    sandboxed(&sb, repo.path())
        .args(["status", "--json"])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"status\":\"interrupted\""));
}

#[test]
fn files_the_test_run_generates_are_not_committed() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    // The suite writes a report file into the repository whenever it runs.
    repo.write("calc.py", CALC)
        .write(
            "test_calc.py",
            "from calc import add\n\nopen('suite-report.txt', 'w').write('ran')\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug and a chatty suite");
    let tmp = tempfile::tempdir().unwrap();
    let script = script(tmp.path(), &[fix()]);
    sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let run = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .next()
        .unwrap();
    let branch = format!("loki/{}", run.file_name().to_string_lossy());
    // What was verified is what was committed: the fix, not the suite's report.
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", &branch]).trim(),
        "calc.py"
    );
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(0);
}
