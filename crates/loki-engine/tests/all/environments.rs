//! The user's virtualenv is used from their checkout (a worktree has only tracked files), so the
//! checks run with the project's own interpreter and dependencies, and nothing enters the diff.

use std::os::unix::fs::PermissionsExt as _;

use loki_protocol::outcome::Outcome;
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build, receipt};

fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

/// A virtualenv stand-in: `bin/python` runs python3 and leaves a mark that it was used.
fn fake_venv(repo: &GitRepo, dir: &str) {
    let python = repo.path().join(dir).join("bin/python");
    std::fs::create_dir_all(python.parent().unwrap()).unwrap();
    let mark = repo.path().join(dir).join("used");
    std::fs::write(
        &python,
        format!(
            "#!/bin/sh\necho used >> '{}'\nexec python3 \"$@\"\n",
            mark.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_checkouts_virtualenv_runs_the_checks() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n.venv/\n");
    repo.commit("calc with a bug");
    fake_venv(&repo, ".venv");
    let wall = "from calc import add\n\n\ndef test_sums():\n    assert add(2, 3) == 5\n";
    let script = json!({"sessions": [{"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": wall})),
            call("finish", json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "calc.py", "search": "a - b", "replace": "a + b"})),
            call("finish", json!({"status": "done", "detail": "done"}))]}]});
    let home = tempfile::tempdir().unwrap();
    let report = build(
        repo.path(),
        home.path(),
        "make add sum",
        &script.to_string(),
        None,
    );
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    let cmd = r["checks"][0]["cmd"].as_str().unwrap();
    let python = repo.path().canonicalize().unwrap().join(".venv/bin/python");
    assert_eq!(cmd, format!("{} -m pytest", python.display()));
    assert!(
        repo.path().join(".venv/used").exists(),
        "the user's interpreter ran the tests"
    );
    let worktree = repo.path().join(".loki/worktrees").join(&report.run_id);
    assert!(
        !worktree.join(".venv").exists(),
        "nothing is added to the worktree"
    );
    assert_eq!(report.changed_files, ["calc.py"]);
}
