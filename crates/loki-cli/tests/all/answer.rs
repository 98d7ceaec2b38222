//! `loki answer`: a contract that contradicts itself ends BLOCKED (exit 4) with one question
//! before any code is written; the answer starts the follow-up build, which carries the task,
//! the question and the answer. A run that is not BLOCKED has no question to answer (exit 2).

use predicates::prelude::*;
use serde_json::Value;

use crate::cli::sandboxed;
use crate::contract::{TASK, TEST_AC_1, TEST_AC_2, build, calc_repo, call, receipt, script};

const CONFLICTING: &str = "Fix add() in calc.py.\n\n## Requirements\n- `add(2, 3)` must return 5\n- `add(2, 3)` must not return 5\n";

#[test]
fn a_contradiction_is_blocked_with_a_question_then_answered_and_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = loki_test_support::Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let unused = script(&tmp.path().join("unused.json"), TEST_AC_1);
    let v = build(&sb, &repo, CONFLICTING, &unused, 4);
    assert_eq!(v["outcome"], "BLOCKED", "{v:#}");
    let question = "AC-1 \"`add(2, 3)` must return 5\" and AC-2 \"`add(2, 3)` must not return 5\" contradict each other (the same thing required and forbidden): which one holds? Answer with its id (AC-1 or AC-2).";
    assert_eq!(
        v["reason"],
        format!("spec conflict in the contract: {question}")
    );
    // Before any code: no session ran, nothing changed.
    assert_eq!(v["changed_files"], serde_json::json!([]));
    assert_eq!(v["tokens"], 0);
    let blocked = v["run_id"].as_str().unwrap().to_string();
    let r = receipt(&v);
    assert_eq!(r["verdict"], "BLOCKED");
    assert_eq!(
        r["contract"]["criteria"][1],
        serde_json::json!({"id": "AC-2", "text": "`add(2, 3)` must not return 5",
                           "status": "not_proven", "reason": "no wall was sealed"})
    );

    // `loki status` shows the question and how to answer it.
    sandboxed(&sb, repo.path())
        .args(["status", &blocked])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(format!("\nQuestion:   {question}\n")).and(
                predicate::str::contains(format!(
                    "\nNext:       loki answer {blocked} --text \"<your answer>\"\n"
                )),
            ),
        );

    // An answer that does not say which criterion holds is refused, and starts nothing.
    sandboxed(&sb, repo.path())
        .args(["answer", &blocked])
        .write_stdin("both, somehow\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "asked which of AC-1 and AC-2 holds: name exactly one of them",
        ));

    let fixed = script(&tmp.path().join("fixed.json"), TEST_AC_1);
    let out = sandboxed(&sb, repo.path())
        .args(["answer", &blocked, "--json", "--text", "AC-1: add sums."])
        .args(["--provider", "scripted", "--script"])
        .arg(&fixed)
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let follow: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(follow["outcome"], "VERIFIED", "{follow:#}");
    assert_ne!(follow["run_id"], blocked.as_str());
    let r = receipt(&follow);
    assert_eq!(r["task"]["source"], format!("answer:{blocked}"));
    // AC-2 lost: the follow-up is judged against AC-1 alone, which the wall proved.
    assert_eq!(
        r["contract"]["criteria"],
        serde_json::json!([{"id": "AC-1", "text": "`add(2, 3)` must return 5", "status": "proven",
                            "evidence": ["loki_wall_add_test.py::test_ac_1_sums"]}])
    );
    let status: Value = serde_json::from_slice(
        &sandboxed(&sb, repo.path())
            .args(["status", "--json", follow["run_id"].as_str().unwrap()])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    let task = status["task"].as_str().unwrap();
    for part in [CONFLICTING.trim_end(), question, "AC-1: add sums."] {
        assert!(task.contains(part), "{part}\n---\n{task}");
    }
}

#[test]
fn an_agent_question_takes_any_answer_and_the_follow_up_keeps_the_contract() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = loki_test_support::Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let wall = format!("{TEST_AC_1}{TEST_AC_2}");
    let question = "should add() also accept strings?";
    let asks = tmp.path().join("asks.json");
    std::fs::write(
        &asks,
        serde_json::json!({"sessions": [
            {"name": "wall", "turns": [
                call("write_file", serde_json::json!({"path": "loki_wall_add_test.py", "content": wall})),
                call("finish", serde_json::json!({"status": "done", "detail": "wall"}))]},
            {"name": "implement", "turns": [
                call("finish", serde_json::json!({"status": "spec_conflict", "detail": question}))]}]})
        .to_string(),
    )
    .unwrap();
    let v = build(&sb, &repo, TASK, &asks, 4);
    assert_eq!(v["outcome"], "BLOCKED", "{v:#}");
    assert_eq!(
        v["reason"],
        format!("spec conflict reported by the agent: {question}")
    );
    let blocked = v["run_id"].as_str().unwrap();
    let fixed = script(&tmp.path().join("fixed.json"), &wall);
    let out = sandboxed(&sb, repo.path())
        .args([
            "answer",
            blocked,
            "--json",
            "--provider",
            "scripted",
            "--script",
        ])
        .arg(&fixed)
        .write_stdin("numbers only\n")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let follow: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(follow["outcome"], "VERIFIED", "{follow:#}");
    // Judged against the BLOCKED run's own contract: both criteria, both proven.
    let r = receipt(&follow);
    let statuses: Vec<&str> = r["contract"]["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["proven", "proven"]);
}

#[test]
fn a_run_that_is_not_blocked_has_no_question_to_answer() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = loki_test_support::Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let s = script(&tmp.path().join("s.json"), TEST_AC_1);
    let v = build(&sb, &repo, "Fix add() in calc.py.", &s, 0);
    let run = v["run_id"].as_str().unwrap();
    sandboxed(&sb, repo.path())
        .args(["answer", run, "--text", "yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "run {run} is not BLOCKED (VERIFIED): there is no question to answer"
        )));
    // Only the one run: nothing was started.
    let runs = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .count();
    assert_eq!(runs, 1);
}
