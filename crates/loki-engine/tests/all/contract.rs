//! Delivery contracts in the engine: only sealed wall tests prove a criterion, advisory criteria
//! are shown but not required, and a contract file that cannot be used stops the run before it
//! starts. Real pytest, the scripted provider.

use std::path::Path;

use loki_agent::{Backend, scripted::Scripted};
use loki_contract::ContractError;
use loki_core::layout::Repo;
use loki_engine::{BuildOptions, EngineError, Silent, TaskInput};
use loki_protocol::outcome::Outcome;
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build, receipt};

const TASK: &str = "Fix add() in calc.py.";
const WALL: &str = "from calc import add\n\n\ndef test_ac_1_sums():\n    assert add(2, 3) == 5\n";

fn repo_with_contract(contract: &Value) -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    // Untracked (and excluded once loki runs): the user's contract, not part of the commit.
    repo.write(".loki/contract.json", &contract.to_string());
    repo
}

fn contract(advisory_2: bool) -> Value {
    json!({"schema": "loki.contract/1", "source": "spec.md", "sha256": "0".repeat(64),
           "criteria": [
               {"id": "AC-1", "text": "`add(2, 3)` returns 5", "advisory": false},
               {"id": "AC-2", "text": "`add(-1, 1)` returns 0", "advisory": advisory_2}]})
}

fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn script(extra: &[Value]) -> String {
    let mut turns = vec![call(
        "edit",
        &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"}),
    )];
    turns.extend(extra.iter().cloned());
    turns.push(call(
        "finish",
        &json!({"status": "done", "detail": "fixed"}),
    ));
    json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", &json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": turns}]})
    .to_string()
}

#[test]
fn an_advisory_criterion_is_shown_unproven_but_not_required() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = repo_with_contract(&contract(true));
    let home = tempfile::tempdir().unwrap();
    let report = build(repo.path(), home.path(), TASK, &script(&[]), None);
    assert_eq!(report.outcome, Outcome::Verified, "{report:#?}");
    let r = receipt(repo.path(), &report);
    assert_eq!(r["contract"]["criteria"][0]["status"], "proven");
    assert_eq!(
        r["contract"]["criteria"][1],
        json!({"id": "AC-2", "text": "`add(-1, 1)` returns 0", "status": "not_proven",
               "reason": "no wall test names it", "advisory": true})
    );
    assert!(
        report.not_proven.iter().any(|n| n.what()
            == "criterion AC-2 (advisory): `add(-1, 1)` returns 0"
            && n.why() == "no wall test names it"
            && n.prove().starts_with("loki logs run_")),
        "{:?}",
        report.not_proven
    );
}

#[test]
fn a_test_the_agent_names_after_a_criterion_proves_nothing() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = repo_with_contract(&contract(false));
    let home = tempfile::tempdir().unwrap();
    // The agent writes its own test named after AC-2: not sealed, so no evidence.
    let own = call(
        "write_file",
        &json!({"path": "test_more.py", "content":
            "from calc import add\n\n\ndef test_ac_2_zero():\n    assert add(-1, 1) == 0\n"}),
    );
    let report = build(repo.path(), home.path(), TASK, &script(&[own]), None);
    assert_ne!(report.outcome, Outcome::Verified, "{report:#?}");
    let r = receipt(repo.path(), &report);
    assert_eq!(r["contract"]["criteria"][1]["status"], "not_proven");
    assert_eq!(
        r["contract"]["criteria"][1]["reason"],
        "no wall test names it"
    );
}

#[test]
fn a_contract_file_that_cannot_be_used_stops_the_run_before_it_starts() {
    let mut bad = contract(false);
    bad["criteria"][1]["id"] = json!("AC-1");
    let repo = repo_with_contract(&bad);
    let home = tempfile::tempdir().unwrap();
    let provider = Scripted::parse(Path::new("script.json"), &script(&[])).unwrap();
    let opts = BuildOptions::new(
        TaskInput {
            text: TASK.into(),
            source: "text".into(),
        },
        Backend::Loop(Box::new(provider)),
        "scripted",
        home.path().to_path_buf(),
    );
    let err =
        loki_engine::run_build(&Repo::discover(repo.path()).unwrap(), &opts, &Silent).unwrap_err();
    assert!(
        matches!(&err, EngineError::Contract(ContractError::BadContract { reason, .. }) if reason == "criterion id AC-1 appears twice"),
        "{err}"
    );
    assert!(!repo.path().join(".loki/runs").exists());
}

/// A task whose second criterion asks for existing behaviour (`sub`) to keep working.
const KEEP_TASK: &str = "Fix add() in calc.py.\n\n## Acceptance criteria\n- `add(2, 3)` returns 5\n- `sub(5, 3)` keeps working\n";
const KEEP_WALL: &str = "from calc import add, sub\n\n\ndef test_ac_1_sums():\n    assert add(2, 3) == 5\n\n\ndef test_ac_2_sub_still_subtracts():\n    assert sub(5, 3) == 2\n";

fn keep_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    )
    .write(
        "test_calc.py",
        "from calc import sub\n\n\ndef test_sub():\n    assert sub(1, 1) == 0\n",
    )
    .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug in add");
    repo
}

fn keep_script(edits: &[Value]) -> String {
    let mut turns = edits.to_vec();
    turns.push(call(
        "finish",
        &json!({"status": "done", "detail": "fixed"}),
    ));
    json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", &json!({"path": "loki_wall_add_test.py", "content": KEEP_WALL})),
            call("finish", &json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": turns}]})
    .to_string()
}

#[test]
fn a_keeps_working_criterion_is_held_when_its_test_passes_before_and_after() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = keep_repo();
    let home = tempfile::tempdir().unwrap();
    let fix = call(
        "edit",
        &json!({"path": "calc.py", "search": "def add(a, b):\n    return a - b", "replace": "def add(a, b):\n    return a + b"}),
    );
    let report = build(
        repo.path(),
        home.path(),
        KEEP_TASK,
        &keep_script(&[fix]),
        None,
    );
    assert_eq!(report.outcome, Outcome::Verified, "{report:#?}");
    assert_eq!(report.exit_code, 0);
    let r = receipt(repo.path(), &report);
    assert_eq!(
        r["contract"]["criteria"],
        json!([
            {"id": "AC-1", "text": "`add(2, 3)` returns 5", "status": "proven",
             "evidence": ["loki_wall_add_test.py::test_ac_1_sums"]},
            {"id": "AC-2", "text": "`sub(5, 3)` keeps working", "status": "held",
             "evidence": ["loki_wall_add_test.py::test_ac_2_sub_still_subtracts"]}])
    );
    let md = std::fs::read_to_string(Path::new(&report.receipt_path).with_file_name("receipt.md"))
        .unwrap();
    assert!(
        md.contains("| AC-2 | 'sub(5, 3)' keeps working | held | `loki_wall_add_test.py::test_ac_2_sub_still_subtracts` |"),
        "{md}"
    );
}

#[test]
fn a_change_that_breaks_the_kept_behaviour_is_not_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = keep_repo();
    let home = tempfile::tempdir().unwrap();
    // add is fixed, and sub is broken on the way.
    let rewrite = call(
        "write_file",
        &json!({"path": "calc.py", "content": "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"}),
    );
    let report = build(
        repo.path(),
        home.path(),
        KEEP_TASK,
        &keep_script(&[rewrite]),
        None,
    );
    assert_ne!(report.outcome, Outcome::Verified, "{report:#?}");
    assert_ne!(report.exit_code, 0);
    let r = receipt(repo.path(), &report);
    assert_eq!(r["contract"]["criteria"][0]["status"], "proven");
    assert_eq!(r["contract"]["criteria"][1]["status"], "not_proven");
    assert_eq!(
        r["contract"]["criteria"][1]["reason"],
        "loki_wall_add_test.py::test_ac_2_sub_still_subtracts failed on the head"
    );
}
