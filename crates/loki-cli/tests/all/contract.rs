//! Delivery contracts end to end: `loki contract SPEC.md`, and build runs whose receipts map each
//! acceptance criterion to the sealed wall tests that prove it (real pytest, scripted sessions).

use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::{Value, json};

use crate::cli::sandboxed;

pub const CALC: &str = "def add(a, b):\n    return a - b\n";

/// A task with two criteria, both false on the base (`add` subtracts).
pub const TASK: &str = "Fix add() in calc.py.\n\n## Acceptance criteria\n- [ ] `add(2, 3)` returns 5\n- [ ] `add(-1, 1)` returns 0\n";

/// The wall test of AC-1, and the one of AC-2.
pub const TEST_AC_1: &str =
    "from calc import add\n\n\ndef test_ac_1_sums():\n    assert add(2, 3) == 5\n";
pub const TEST_AC_2: &str = "\n\ndef test_ac_2_zero():\n    assert add(-1, 1) == 0\n";

pub fn calc_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", CALC)
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

#[expect(
    clippy::needless_pass_by_value,
    reason = "json! values are built inline at each call"
)]
pub fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

/// A script whose wall author writes `wall` as `loki_wall_add_test.py` and whose implementer
/// fixes `add`.
pub fn script(path: &Path, wall: &str) -> PathBuf {
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "loki_wall_add_test.py", "content": wall})),
            call("finish", json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})),
            call("finish", json!({"status": "done", "detail": "fixed"}))]}]});
    std::fs::write(path, s.to_string()).unwrap();
    path.to_path_buf()
}

/// Runs a build of `task` with `script`, expecting `code`; returns the `--json` summary.
pub fn build(sb: &Sandbox, repo: &GitRepo, task: &str, script: &Path, code: i32) -> Value {
    let out = sandboxed(sb, repo.path())
        .args([task, "--provider", "scripted", "--json", "--script"])
        .arg(script)
        .assert()
        .code(code)
        .get_output()
        .clone();
    let v = serde_json::from_slice(&out.stdout);
    assert!(
        v.is_ok(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    v.unwrap()
}

pub fn receipt(summary: &Value) -> Value {
    let path = summary["receipt_path"].as_str().unwrap();
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn run_dir(summary: &Value) -> PathBuf {
    Path::new(summary["receipt_path"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn loki_contract_writes_the_numbered_criteria() {
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let spec = tmp.path().join("SPEC.md");
    std::fs::write(
        &spec,
        "# Calc\r\n\r\n**Requirements:**\r\n1. `add(2, 3)` returns 5\r\n2. negatives:\r\n   - `add(-1, 1)` returns 0\r\n",
    )
    .unwrap();
    let out = sandboxed(&sb, repo.path())
        .arg("contract")
        .arg(&spec)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with(
            "AC-1   `add(2, 3)` returns 5\nAC-2   negatives: `add(-1, 1)` returns 0\nWrote "
        ),
        "{text}"
    );
    let file: Value =
        serde_json::from_slice(&std::fs::read(repo.path().join(".loki/contract.json")).unwrap())
            .unwrap();
    assert_eq!(file["schema"], "loki.contract/1");
    assert_eq!(file["source"], spec.display().to_string());
    assert_eq!(file["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        file["criteria"],
        json!([
            {"id": "AC-1", "text": "`add(2, 3)` returns 5", "advisory": false},
            {"id": "AC-2", "text": "negatives: `add(-1, 1)` returns 0", "advisory": false},
        ])
    );
    // The checkout stays clean: `.loki/` is excluded.
    assert_eq!(repo.git(&["status", "--porcelain"]), "");

    // A quick run has no wall to prove a contract with: refused, not ignored.
    sandboxed(&sb, repo.path())
        .args(["quick", "fix add", "--contract", ".loki/contract.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a quick run has no acceptance wall",
        ));

    // A malformed contract file is the user's input: exit 2 naming the file, before any model.
    let bad = spec.with_file_name("broken-contract.json");
    std::fs::write(&bad, "{\"criteria\": [").unwrap();
    sandboxed(&sb, repo.path())
        .args(["fix add", "--contract"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("broken-contract.json"));

    // A text without criteria writes nothing.
    std::fs::remove_file(repo.path().join(".loki/contract.json")).unwrap();
    std::fs::write(&spec, "Make it faster.\n\n- it is slow\n").unwrap();
    sandboxed(&sb, repo.path())
        .arg("contract")
        .arg(&spec)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no acceptance criteria in"));
    assert!(!repo.path().join(".loki/contract.json").exists());
}

#[test]
fn a_criterion_no_wall_test_names_is_not_proven_and_the_run_not_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = script(&tmp.path().join("s.json"), TEST_AC_1);
    let v = build(&sb, &repo, TASK, &script, 1);
    assert_eq!(v["outcome"], "PARTIAL", "{v:#}");
    assert!(
        v["not_proven"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["what"] == "criterion AC-2: `add(-1, 1)` returns 0"
                && n["why"] == "no wall test names it"),
        "{v:#}"
    );
    let r = receipt(&v);
    assert_eq!(
        r["contract"]["criteria"],
        json!([
            {"id": "AC-1", "text": "`add(2, 3)` returns 5", "status": "proven",
             "evidence": ["loki_wall_add_test.py::test_ac_1_sums"]},
            {"id": "AC-2", "text": "`add(-1, 1)` returns 0", "status": "not_proven",
             "reason": "no wall test names it"},
        ])
    );
    // Everything else proved: the wall passed and so did the suite.
    assert_eq!(r["wall"]["passed"], true);
    let md = std::fs::read_to_string(run_dir(&v).join("receipt.md")).unwrap();
    assert!(
        md.contains("| AC-2 | 'add(-1, 1)' returns 0 | not proven: no wall test names it | - |"),
        "{md}"
    );
}

#[test]
fn every_criterion_proven_is_verified_with_the_mapping_in_the_receipt() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    // The contract comes from `loki contract`, the task is one line.
    let spec = tmp.path().join("issue.md");
    std::fs::write(&spec, TASK).unwrap();
    sandboxed(&sb, repo.path())
        .arg("contract")
        .arg(&spec)
        .assert()
        .success();
    let script = script(
        &tmp.path().join("s.json"),
        &format!("{TEST_AC_1}{TEST_AC_2}"),
    );
    let v = build(&sb, &repo, "Fix add() in calc.py.", &script, 0);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let r = receipt(&v);
    let used = std::fs::read(run_dir(&v).join("contract.json")).unwrap();
    assert_eq!(
        r["contract"]["sha256"],
        loki_receipt::schema::sha256_hex(&used)
    );
    assert_eq!(
        r["contract"]["criteria"],
        json!([
            {"id": "AC-1", "text": "`add(2, 3)` returns 5", "status": "proven",
             "evidence": ["loki_wall_add_test.py::test_ac_1_sums"]},
            {"id": "AC-2", "text": "`add(-1, 1)` returns 0", "status": "proven",
             "evidence": ["loki_wall_add_test.py::test_ac_2_zero"]},
        ])
    );
    // The wall author was told the criteria and the naming convention.
    let transcript = std::fs::read_to_string(run_dir(&v).join("transcript.jsonl")).unwrap();
    for told in [
        "- AC-2: `add(-1, 1)` returns 0",
        "`test_ac_1_<what>` (Python)",
    ] {
        assert!(transcript.contains(told), "{told}");
    }
    let md = std::fs::read_to_string(run_dir(&v).join("receipt.md")).unwrap();
    assert!(
        md.contains(
            "| AC-1 | 'add(2, 3)' returns 5 | proven | `loki_wall_add_test.py::test_ac_1_sums` |"
        ),
        "{md}"
    );
    sandboxed(&sb, repo.path())
        .args(["verify", "latest"])
        .assert()
        .code(0);
}

#[test]
fn a_test_that_passes_already_on_the_base_proves_nothing() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    // `add(0, 0) == 0` holds before the fix too.
    let wall = format!("{TEST_AC_1}\n\ndef test_ac_2_zero():\n    assert add(0, 0) == 0\n");
    let script = script(&tmp.path().join("s.json"), &wall);
    let v = build(&sb, &repo, TASK, &script, 1);
    assert_ne!(v["outcome"], "VERIFIED", "{v:#}");
    let r = receipt(&v);
    assert_eq!(r["contract"]["criteria"][0]["status"], "proven");
    assert_eq!(
        r["contract"]["criteria"][1]["reason"],
        "loki_wall_add_test.py::test_ac_2_zero passed already on the base"
    );
}
