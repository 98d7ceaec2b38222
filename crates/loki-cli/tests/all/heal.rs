//! `loki run`, `loki fix`, `loki replay` end to end: a real Python program, the scripted
//! provider, an isolated home, and the exit-code contracts.

use std::path::Path;

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

const APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";
const LINE: &str = "    return sum(values) / len(values)\n";
const FIXED: &str = "    return sum(values) / len(values) if values else 0.0\n";

fn repo_with_app() -> GitRepo {
    let r = GitRepo::new();
    r.write("app.py", APP);
    r.commit("app");
    r
}

/// A script file whose one session answers with `answer`.
fn script(dir: &Path, answer: &str) -> std::path::PathBuf {
    let p = dir.join("heal-script.json");
    let s = json!({"sessions": [{"name": "heal", "turns": [{"text": answer}]}]});
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

fn patch(original: &str, replacement: &str) -> String {
    json!({"file": "app.py", "root_cause": "empty list", "explanation": "return 0.0 for no values",
           "original_snippet": original, "replacement_snippet": replacement})
    .to_string()
}

fn record_crash(sb: &Sandbox, repo: &GitRepo) -> String {
    let out = sandboxed(sb, repo.path())
        .args(["run", "--seed", "3", "--", "python3", "app.py"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "ZeroDivisionError: division by zero",
        ))
        .stderr(predicate::str::contains("crash recorded as run_"))
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8(out).unwrap();
    let at = text.find("crash recorded as ").unwrap() + "crash recorded as ".len();
    text[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string()
}

#[test]
fn run_records_a_crash_fix_diagnoses_and_replay_reproduces() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let dir = repo.path().join(".loki/runs").join(&run);
    let inc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("incident.json")).unwrap()).unwrap();
    assert_eq!(inc["seed"], 3);
    assert_eq!(inc["crash"]["kind"], "ZeroDivisionError");
    assert_eq!(inc["exit"]["code"], 1);
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .success()
        .stdout(predicate::str::contains("Source:     app.py:2 in average"))
        .stdout(predicate::str::contains("return sum(values) / len(values)"))
        .stdout(predicate::str::contains(
            "Signature:  ZeroDivisionError at average (app.py)",
        ));
    sandboxed(&sb, repo.path())
        .args(["replay", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "REPRODUCED: ZeroDivisionError at average",
        ));
}

#[test]
fn a_clean_run_exits_0_and_records_no_incident() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("ok.py", "print('all good')\n");
    sandboxed(&sb, repo.path())
        .args(["run", "--", "python3", "ok.py"])
        .assert()
        .success()
        .stdout("all good\n");
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no incident recorded"));
}

#[test]
fn fix_apply_yes_with_the_scripted_provider_verifies_and_signs() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let script = script(sb.home(), &patch(LINE, FIXED));
    let out = sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "+    return sum(values) / len(values) if values else 0.0",
        ))
        .stdout(predicate::str::contains("Outcome:    VERIFIED"))
        .stdout(predicate::str::contains("app.py.loki.bak removed"))
        .get_output()
        .stdout
        .clone();
    assert!(!repo.path().join("app.py.loki.bak").exists());
    let text = String::from_utf8(out).unwrap();
    let heal_run = text.split("heal run ").nth(1).unwrap()[..24].to_string();
    sandboxed(&sb, repo.path())
        .args(["verify", &heal_run])
        .assert()
        .success();
    sandboxed(&sb, repo.path())
        .args(["replay", &run])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("NOT REPRODUCED"));
}

#[test]
fn auto_heal_fixes_right_after_the_crash() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let script = script(sb.home(), &patch(LINE, FIXED));
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["run", "--auto-heal", "--", "python3", "app.py"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Outcome:    VERIFIED"));
}

#[test]
fn apply_without_a_terminal_or_yes_is_refused_before_anything_happens() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", sb.home().join("never-read.json"))
        .args(["fix", "--apply"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "stdin is not a terminal: pass --yes",
        ));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("app.py")).unwrap(),
        APP
    );
}

#[test]
fn apply_with_no_model_configured_says_how_to_get_one() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    sandboxed(&sb, repo.path())
        .args(["fix", "--apply", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no model is configured"))
        .stderr(predicate::str::contains("loki fix --demo"));
}

#[test]
fn a_hand_edited_incident_is_refused_naming_the_field() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    let run = record_crash(&sb, &repo);
    let path = repo
        .path()
        .join(".loki/runs")
        .join(&run)
        .join("incident.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["exit"]["code"] = json!("one");
    std::fs::write(&path, v.to_string()).unwrap();
    for cmd in [vec!["fix"], vec!["replay"]] {
        sandboxed(&sb, repo.path())
            .args(&cmd)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "field exit.code must be an integer",
            ));
    }
    std::fs::write(&path, "{\"schema\": \"loki.incident/1\"").unwrap();
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not valid JSON"));
}

#[test]
fn a_stale_backup_is_reported_and_restore_puts_the_original_back() {
    let sb = Sandbox::new();
    let repo = repo_with_app();
    record_crash(&sb, &repo);
    // As left by a fix killed between the backup and the verification.
    std::fs::write(repo.path().join("app.py.loki.bak"), APP).unwrap();
    std::fs::write(repo.path().join("app.py"), APP.replace(LINE, FIXED)).unwrap();
    sandboxed(&sb, repo.path())
        .arg("fix")
        .assert()
        .success()
        .stderr(predicate::str::contains("stale backup app.py.loki.bak"))
        .stderr(predicate::str::contains("loki fix --restore"));
    let script = script(sb.home(), &patch(FIXED, LINE));
    sandboxed(&sb, repo.path())
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a backup"))
        .stderr(predicate::str::contains("loki fix --restore"));
    sandboxed(&sb, repo.path())
        .args(["fix", "--restore"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "restored app.py from app.py.loki.bak",
        ));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("app.py")).unwrap(),
        APP
    );
    assert!(!repo.path().join("app.py.loki.bak").exists());
}

#[test]
fn the_demo_heals_offline_with_its_built_in_patch() {
    let sb = Sandbox::new();
    sandboxed(&sb, sb.home())
        .args(["fix", "--demo"])
        .assert()
        .success()
        .stdout(predicate::str::contains("using the demo's built-in patch"))
        .stdout(predicate::str::contains("Outcome:    VERIFIED"));
}
