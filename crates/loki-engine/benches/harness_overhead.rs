//! Harness overhead: the engine's own time on the first-run-gate repository with a zero-latency
//! scripted provider. harness = wall time − agent session time − test process time (target under
//! 2 s). Printed beside the baseline (the test processes alone, which any verifier must pay) and
//! the ratio. Never asserts times.

#![expect(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use loki_agent::{Backend, scripted::Scripted};
use loki_core::layout::Repo;
use loki_engine::{BuildOptions, Silent, TaskInput};

const ROUNDS: usize = 3;
const SCRIPT: &str = r#"{"sessions": [
 {"name": "wall", "turns": [
  {"tool_calls": [{"name": "write_file", "arguments": {"path": "loki_wall_add_test.py", "content": "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "wall"}}]}]},
 {"name": "implement", "turns": [
  {"tool_calls": [{"name": "edit", "arguments": {"path": "calc.py", "search": "return a - b", "replace": "return a + b"}}]},
  {"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "fixed"}}]}]}]}"#;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@loki.invalid")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@loki.invalid")
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn bug_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    std::fs::write(
        dir.join("test_calc.py"),
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    )
    .unwrap();
    std::fs::write(dir.join(".gitignore"), "__pycache__/\n.pytest_cache/\n").unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "bug"]);
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let mut harness = Vec::new();
    let mut tests = Vec::new();
    println!("harness_overhead: first-run-gate repo (pytest), scripted provider, {ROUNDS} rounds");
    for round in 0..ROUNDS {
        let repo_dir = tmp.path().join(format!("repo{round}"));
        bug_repo(&repo_dir);
        let provider = Scripted::parse(Path::new("bench.json"), SCRIPT).unwrap();
        let opts = BuildOptions::new(
            TaskInput {
                text: "make add return a + b".into(),
                source: "text".into(),
            },
            Backend::Loop(Box::new(provider)),
            "scripted",
            home.clone(),
        );
        let repo = Repo::discover(&repo_dir).unwrap();
        let t = Instant::now();
        let report = loki_engine::run_build(&repo, &opts, &Silent).unwrap();
        let wall = t.elapsed().as_secs_f64();
        let h = wall - report.agent_s - report.checks_s;
        println!(
            "  round {round}: {} · wall {wall:.2}s = agent {:.2}s + tests {:.2}s + harness {h:.2}s",
            report.outcome, report.agent_s, report.checks_s
        );
        harness.push(h);
        tests.push(report.checks_s);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (h, b) = (mean(&harness), mean(&tests));
    println!("harness (ours):          {h:.3} s per run (target < 2 s)");
    println!("baseline (test processes): {b:.3} s per run");
    println!("ratio harness/baseline:  {:.2}", h / b);
}
