//! Files the checks write (reports, lockfiles) are put back after every check run, so they never
//! reach the commit or the next fix round's diff.

use loki_protocol::outcome::Outcome;
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build, receipt};

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";

fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn edit(search: &str, replace: &str) -> Value {
    call(
        "edit",
        json!({"path": "calc.py", "search": search, "replace": replace}),
    )
}

fn done() -> Value {
    call("finish", json!({"status": "done", "detail": "done"}))
}

#[test]
fn what_a_failing_round_generates_is_not_carried_into_the_next_round_or_the_commit() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = GitRepo::new();
    // The suite writes a report into the repository whenever it runs, and so does the wall.
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\nopen('suite-report.txt', 'w').write('ran')\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug and a chatty suite");
    let wall = "from calc import add\n\nopen('wall-report.txt', 'w').write('ran')\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";
    // The implementer's first try is wrong; the fix round gets it right.
    let script = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": wall})),
            done()]},
        {"name": "implement", "turns": [edit("return a - b", "return a * b"), done()]},
        {"name": "fix-1", "turns": [edit("return a * b", "return a + b"), done()]}
    ]});
    let home = tempfile::tempdir().unwrap();
    let report = build(repo.path(), home.path(), TASK, &script.to_string(), None);
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert_eq!(report.changed_files, ["calc.py"], "{r:#}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", &report.branch])
            .trim(),
        "calc.py"
    );
    let worktree = repo.path().join(".loki/worktrees").join(&report.run_id);
    for generated in ["suite-report.txt", "wall-report.txt"] {
        assert!(
            !worktree.join(generated).exists(),
            "{generated} was put back after the checks ran"
        );
    }
    let events = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(&report.run_id)
            .join("events.jsonl"),
    )
    .unwrap();
    assert!(
        events.contains("file(s) the checks wrote put back (suite-report.txt"),
        "the verify stage says what it put back"
    );
    assert!(events.contains("(wall-report.txt)"), "so does the gate");
}
