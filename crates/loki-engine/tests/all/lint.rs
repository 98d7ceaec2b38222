//! Lint on the changed lines in the verify stage: a finding there fails verification and reaches
//! the fixing agent; findings on untouched lines never count.

use loki_protocol::outcome::Outcome;
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build, receipt};

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn done() -> Value {
    call("finish", json!({"status": "done", "detail": "done"}))
}

fn repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        // Broken before the change, and never imported: a pre-existing finding.
        .write("legacy.py", "def old(:\n    pass\n")
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

fn lint_checks(r: &Value) -> Vec<(String, String)> {
    r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "lint")
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_finding_on_a_changed_line_is_fed_back_and_fixed() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = repo();
    // The implementer fixes the bug but adds a helper module with a syntax error that no test
    // imports: the tests pass, only lint sees it. The fix round repairs it. It also touches the
    // last line of legacy.py, whose syntax error on line 1 predates the change and never counts.
    let script = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": WALL})), done()]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "calc.py", "search": "a - b", "replace": "a + b"})),
            call("edit", json!({"path": "legacy.py", "search": "    pass\n", "replace": "    pass\n# kept for old callers\n"})),
            call("write_file", json!({"path": "helpers.py", "content": "def twice(x):\n    return x +\n"})),
            done()]},
        {"name": "fix-1", "turns": [
            call("write_file", json!({"path": "helpers.py", "content": "def twice(x):\n    return x + x\n"})),
            done()]}
    ]});
    let home = tempfile::tempdir().unwrap();
    let report = build(repo.path(), home.path(), TASK, &script.to_string(), None);
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert_eq!(
        lint_checks(&r),
        [("lint:py_compile".to_string(), "passed".to_string())]
    );
    let run_dir = repo.path().join(".loki/runs").join(&report.run_id);
    let transcript = std::fs::read_to_string(run_dir.join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("lines you changed") && transcript.contains("helpers.py:2"),
        "the fix round was told where: {transcript}"
    );
    let (events, _) = loki_events::read_events(&run_dir.join("events.jsonl"), None).unwrap();
    let lint = events
        .iter()
        .find(|e| e.kind == "check.result" && e.data["name"] == "lint:py_compile")
        .unwrap_or_else(|| panic!("no lint check.result in {events:#?}"));
    assert_eq!(
        (
            &lint.data["stage"],
            &lint.data["role"],
            &lint.data["kind"],
            &lint.data["result"],
            &lint.data["new_findings"],
            &lint.data["failed"],
        ),
        (
            &json!("verify"),
            &json!("lint"),
            &json!("lint"),
            &json!("fail"),
            &json!(1),
            &json!(1)
        ),
        "the first verification's lint failed: {:?}",
        lint.data
    );
}

#[test]
fn a_finding_left_on_a_changed_line_keeps_the_run_from_verified() {
    let repo = repo();
    let script = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": WALL})), done()]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "calc.py", "search": "a - b", "replace": "a + b"})),
            call("write_file", json!({"path": "helpers.py", "content": "def twice(x):\n    return x +\n"})),
            done()]},
        {"name": "fix-1", "turns": [done()]}
    ]});
    let home = tempfile::tempdir().unwrap();
    let report = build(repo.path(), home.path(), TASK, &script.to_string(), None);
    let r = receipt(repo.path(), &report);
    assert_ne!(report.outcome, Outcome::Verified, "{r:#}");
    assert_eq!(
        lint_checks(&r),
        [("lint:py_compile".to_string(), "failed".to_string())]
    );
}
