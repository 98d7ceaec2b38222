//! The build command's flags and what a run shows while it goes: `--no-commit`, `--max-cost`,
//! `--deep`, `--verbose` (stage lines and a heartbeat), and the live status line on a terminal.

use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const CALC: &str = "def add(a, b):\n    return a - b\n";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn done() -> Value {
    call("finish", &json!({"status": "done", "detail": "done"}))
}

/// A package `dir` (`""` for the root) with the bug, its test and a pytest configuration.
fn write_package(repo: &GitRepo, dir: &str) {
    let p = |f: &str| {
        if dir.is_empty() {
            f.to_string()
        } else {
            format!("{dir}/{f}")
        }
    };
    repo.write(&p("calc.py"), CALC)
        .write(
            &p("test_calc.py"),
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(
            &p("pyproject.toml"),
            "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
        );
}

fn bug_repo(packages: &[&str]) -> GitRepo {
    let repo = GitRepo::new();
    for dir in packages {
        write_package(&repo, dir);
    }
    repo.write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

/// A script whose wall session is `wall` and whose implementer makes `calls`.
#[expect(
    clippy::needless_pass_by_value,
    reason = "json! values are built inline at each call"
)]
fn script(dir: &Path, wall: Value, calls: &[Value]) -> PathBuf {
    let mut turns = calls.to_vec();
    turns.push(done());
    let s = json!({"sessions": [wall, {"name": "implement", "turns": turns}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

fn wall_session(wall_path: &str) -> Value {
    json!({"name": "wall", "turns": [
        call("write_file", &json!({"path": wall_path, "content": WALL})), done()]})
}

fn fix(path: &str) -> Value {
    call(
        "edit",
        &json!({"path": path, "search": "return a - b", "replace": "return a + b"}),
    )
}

fn latest_receipt(repo: &Path) -> Value {
    let run = std::fs::read_dir(repo.join(".loki/runs"))
        .unwrap()
        .flatten()
        .max_by_key(|e| e.metadata().unwrap().modified().unwrap())
        .unwrap();
    serde_json::from_slice(&std::fs::read(run.path().join("receipt.json")).unwrap()).unwrap()
}

#[test]
fn no_commit_verifies_but_moves_no_branch_and_apply_takes_the_verified_commit() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let script = script(
        tmp.path(),
        wall_session("loki_wall_add_test.py"),
        &[fix("calc.py")],
    );
    let out = sandboxed(&sb, repo.path())
        .args([
            TASK,
            "--provider",
            "scripted",
            "--no-commit",
            "--json",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    let r = latest_receipt(repo.path());
    assert_eq!(r["verdict"], "VERIFIED", "{r:#}");
    let base = repo.git(&["rev-parse", "main"]).trim().to_string();
    let head = r["repo"]["head_sha"].as_str().unwrap().to_string();
    // No branch moved; the receipt names a commit on no branch whose parent is the base.
    assert_eq!(
        repo.git(&["rev-parse", v["branch"].as_str().unwrap()])
            .trim(),
        base
    );
    assert_eq!(repo.git(&["branch", "--contains", &head]).trim(), "");
    assert_eq!(repo.git(&["rev-parse", &format!("{head}^")]).trim(), base);
    assert_eq!(
        repo.git(&["diff", "--name-only", &base, &head]).trim(),
        "calc.py"
    );
    // The change is left uncommitted in the worktree, without the wall.
    let worktree = repo
        .path()
        .join(".loki/worktrees")
        .join(v["run_id"].as_str().unwrap());
    assert!(
        std::fs::read_to_string(worktree.join("calc.py"))
            .unwrap()
            .contains("a + b")
    );
    assert!(!worktree.join("loki_wall_add_test.py").exists());
    assert!(r["not_proven"].to_string().contains("--no-commit"), "{r:#}");
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(0);
    // Applying takes the verified commit, not the unmoved branch.
    sandboxed(&sb, repo.path())
        .args(["apply", "latest"])
        .assert()
        .code(0);
    assert_eq!(repo.git(&["rev-parse", "main"]).trim(), head);
}

#[test]
fn max_cost_stops_the_run_with_budget_stop_and_still_seals() {
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    // The wall session reports a million input tokens of a priced model: $2.50 at gpt-4o prices.
    let wall = json!({"name": "wall", "model": "gpt-4o", "turns": [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "loki_wall_add_test.py", "content": WALL}}],
         "usage": {"input_tokens": 1_000_000, "output_tokens": 10}},
        done()]});
    let script = script(tmp.path(), wall, &[fix("calc.py")]);
    let out = sandboxed(&sb, repo.path())
        .args([
            TASK,
            "--provider",
            "scripted",
            "--max-cost",
            "0.5",
            "--script",
        ])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(stdout.starts_with("Outcome:    BUDGET_STOP\n"), "{stdout}");
    assert!(stdout.contains("cost budget reached ($0.50)"), "{stdout}");
    assert!(stdout.contains("Cost:       $2.50"), "{stdout}");
    let r = latest_receipt(repo.path());
    assert_eq!(r["verdict"], "BUDGET_STOP");
    assert!(
        (r["cost"]["usd"].as_f64().unwrap() - 2.5).abs() < 0.01,
        "{r:#}"
    );
    // The implementer never ran: the budget was spent before it.
    let events = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(r["run_id"].as_str().unwrap())
            .join("events.jsonl"),
    )
    .unwrap();
    assert!(events.contains("\"cap.hit\""), "{events}");
    assert!(!events.contains("\"stage\":\"implement\""), "{events}");
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(4);
}

#[test]
fn deep_runs_every_suite_not_only_the_impacted_one() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&["a", "b"]);
    let tmp = tempfile::tempdir().unwrap();
    let script = script(
        tmp.path(),
        wall_session("a/loki_wall_add_test.py"),
        &[fix("a/calc.py")],
    );
    let task = "a/calc.py: add returns the difference; make it return the sum.";
    let names = |r: &Value, kind: &str| -> Vec<String> {
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["kind"] == kind)
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    // b's calc is still broken, so a full suite must fail where the impacted one passes.
    sandboxed(&sb, repo.path())
        .args([task, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let quick = latest_receipt(repo.path());
    assert_eq!(names(&quick, "tests"), ["pytest:a"], "{quick:#}");
    assert!(
        quick["not_proven"].to_string().contains("full suite"),
        "{quick:#}"
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    sandboxed(&sb, repo.path())
        .args([task, "--provider", "scripted", "--deep", "--script"])
        .arg(&script)
        .assert()
        .code(1);
    let deep = latest_receipt(repo.path());
    assert_eq!(names(&deep, "tests"), ["pytest:a", "pytest:b"], "{deep:#}");
    assert!(
        !deep["not_proven"].to_string().contains("full suite"),
        "{deep:#}"
    );
}

#[test]
fn verbose_prints_each_stage_and_a_heartbeat_during_a_long_one() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let slow = call("run", &json!({"command": "sleep 2.5"}));
    let script = script(
        tmp.path(),
        wall_session("loki_wall_add_test.py"),
        &[slow, fix("calc.py")],
    );
    let out = sandboxed(&sb, repo.path())
        .env("LOKI_OUTPUT_HEARTBEAT_S", "1")
        .args([TASK, "--provider", "scripted", "--verbose", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for stage in [
        "intake",
        "plan",
        "wall",
        "gate",
        "implement",
        "verify",
        "commit",
        "seal",
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(stage) && l.contains("completed")),
            "a line for {stage}: {stderr}"
        );
    }
    let beats = stderr
        .lines()
        .filter(|l| l.starts_with("… implement still running ("))
        .count();
    assert!(
        beats >= 2,
        "a heartbeat a second while implement sleeps 2.5 s: {stderr}"
    );
    assert!(
        !stderr.contains('\r'),
        "no live line with --verbose: {stderr:?}"
    );
}

#[test]
fn a_terminal_gets_one_live_line_that_is_erased_before_the_summary() {
    if !loki_test_support::require_pytest() {
        return;
    }
    if !loki_test_support::require_tool("script", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let slow = call("run", &json!({"command": "sleep 1.5"}));
    let script = script(
        tmp.path(),
        wall_session("loki_wall_add_test.py"),
        &[slow, fix("calc.py")],
    );
    // `script` gives loki a pseudo-terminal, as a user's shell would.
    let loki = assert_cmd::cargo::cargo_bin("loki");
    let line = format!(
        "'{}' '{TASK}' --provider scripted --script '{}'",
        loki.display(),
        script.display()
    );
    let mut cmd = std::process::Command::new("script");
    sb.apply(&mut cmd).current_dir(repo.path());
    let out = cmd.args(["-qfec", &line, "/dev/null"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{text:?}");
    assert!(
        text.contains("\r\x1b[2K… implement "),
        "the live line names the stage: {text:?}"
    );
    let (before, summary) = text.split_once("Outcome:").unwrap();
    assert!(
        before.ends_with("\r\x1b[2K"),
        "erased before the summary: {text:?}"
    );
    assert!(
        !before.contains('\n'),
        "progress never scrolls the terminal: {before:?}"
    );
    assert!(summary.starts_with("    VERIFIED"), "{summary:?}");
}

#[test]
fn run_task_reads_the_task_from_a_file_and_names_it_in_the_receipt() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let script = script(
        tmp.path(),
        wall_session("loki_wall_add_test.py"),
        &[fix("calc.py")],
    );
    let task = tmp.path().join("task.md");
    std::fs::write(&task, format!("# Fix add\n\n{TASK}\n")).unwrap();
    sandboxed(&sb, repo.path())
        .args(["run-task", "--provider", "scripted", "--script"])
        .arg(&script)
        .arg("--file")
        .arg(&task)
        .assert()
        .code(0);
    let r = latest_receipt(repo.path());
    assert_eq!(r["verdict"], "VERIFIED", "{r:#}");
    assert_eq!(r["task"]["source"], format!("file:{}", task.display()));
    // The commit is titled by the file's first line.
    let branch = format!("loki/{}", r["run_id"].as_str().unwrap());
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s", &branch]).trim(),
        "loki: # Fix add"
    );
    // A task file that cannot be read is a usage error that names it; no run is recorded.
    let gone = sb.home().join("gone/task.md");
    let out = sandboxed(&sb, repo.path())
        .args(["run-task", "--provider", "scripted", "--file"])
        .arg(&gone)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&gone.display().to_string()));
    assert_eq!(
        std::fs::read_dir(repo.path().join(".loki/runs"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn quick_skips_plan_and_wall_and_still_verifies_with_the_tests() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let s = json!({"sessions": [{"name": "implement", "turns": [fix("calc.py"), done()]}]});
    let script = tmp.path().join("quick.json");
    std::fs::write(&script, s.to_string()).unwrap();
    sandboxed(&sb, repo.path())
        .args(["quick", TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let r = latest_receipt(repo.path());
    assert_eq!(r["verdict"], "VERIFIED", "{r:#}");
    assert!(r["wall"]["files"].as_array().unwrap().is_empty(), "{r:#}");
    let events = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(r["run_id"].as_str().unwrap())
            .join("events.jsonl"),
    )
    .unwrap();
    for stage in ["plan", "wall", "gate"] {
        assert!(
            events.contains(&format!(r#""stage":"{stage}","ts""#))
                && events.contains("quick run: no plan, no wall"),
            "{stage} skipped: {events}"
        );
    }
}

#[test]
fn status_follows_a_live_run_and_then_shows_its_verdict() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo(&[""]);
    let tmp = tempfile::tempdir().unwrap();
    let slow = call("run", &json!({"command": "sleep 4"}));
    let script = script(
        tmp.path(),
        wall_session("loki_wall_add_test.py"),
        &[slow, fix("calc.py")],
    );
    let mut run = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut run)
        .current_dir(repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = run.spawn().unwrap();
    let status = || -> Value {
        let out = sandboxed(&sb, repo.path())
            .args(["status", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let live = loop {
        let v = status();
        if v["stage"] == "implement" {
            break v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never saw implement: {v:#}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(live["status"], "running", "{live:#}");
    assert_eq!(live["outcome"], Value::Null, "{live:#}");
    assert!(child.wait().unwrap().success());
    let done = status();
    assert_eq!(done["status"], "completed", "{done:#}");
    assert_eq!(done["outcome"], "VERIFIED", "{done:#}");
    assert!(done["elapsed_s"].as_f64().unwrap() >= 4.0, "{done:#}");
}
