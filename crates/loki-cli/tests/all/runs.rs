//! `loki runs` and `loki events`: listing, liveness, corrupt records, chain verification.

use std::path::Path;

use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunRecord, RunStatus, RunStore};
use loki_events::{EventType, EventWriter};
use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

fn store(repo: &GitRepo) -> RunStore {
    RunStore::new(Repo::discover(repo.path()).unwrap())
}

/// A finished run with a few events.
fn finished_run(s: &RunStore, task: &str) -> RunRecord {
    let mut rec = s
        .start(
            RunKind::Build,
            Some(task.into()),
            vec!["loki".into(), task.into()],
        )
        .unwrap();
    let mut w = EventWriter::open(&s.dir(&rec.id), rec.id.as_str()).unwrap();
    w.append(EventType::RunStarted, None, json!({"kind": "build"}))
        .unwrap();
    w.append(
        EventType::StageStarted,
        Some(loki_protocol::Stage::Intake),
        json!({}),
    )
    .unwrap();
    w.append(
        EventType::StageCompleted,
        Some(loki_protocol::Stage::Intake),
        json!({}),
    )
    .unwrap();
    w.append(
        EventType::Cost,
        None,
        json!({"usd": 0.42, "input_tokens": 10, "output_tokens": 2}),
    )
    .unwrap();
    w.append(
        EventType::RunCompleted,
        None,
        json!({"outcome": "VERIFIED"}),
    )
    .unwrap();
    s.finish(
        &mut rec,
        RunStatus::Completed,
        Some(loki_protocol::Outcome::Verified.into()),
        Some(0),
    )
    .unwrap();
    rec
}

fn log_of(s: &RunStore, rec: &RunRecord) -> std::path::PathBuf {
    s.dir(&rec.id).join("events.jsonl")
}

fn rewrite(p: &Path, f: impl FnOnce(&mut Vec<String>)) {
    let mut lines: Vec<String> = std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    f(&mut lines);
    std::fs::write(p, lines.join("\n") + "\n").unwrap();
}

#[test]
fn list_shows_runs_newest_first_and_names_corrupt_records() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    let rec = finished_run(&s, "add a flag");
    let bad = s.repo().runs_dir().join("run_20200101_000000_abcd");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("run.json"), "{\"schema\":").unwrap();
    let out = sandboxed(&sb, repo.path())
        .args(["runs", "list"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[1].starts_with(rec.id.as_str())
            && lines[1].contains("completed")
            && lines[1].contains("VERIFIED"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("run_20200101_000000_abcd")
            && lines[2].contains("unreadable run.json"),
        "{text}"
    );
    let out = sandboxed(&sb, repo.path())
        .args(["runs", "list", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["runs"][0]["run_id"], rec.id.as_str());
    assert!(v["runs"][1]["corrupt"].is_string());
}

#[test]
fn a_run_whose_process_died_is_listed_interrupted() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    // Started by a child process that then exits without finishing the run.
    let mut rec = s.start(RunKind::Build, Some("x y".into()), vec![]).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    rec.pid = child.id();
    child.wait().unwrap();
    s.save(&rec).unwrap();
    sandboxed(&sb, repo.path())
        .args(["runs", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("interrupted"));
    sandboxed(&sb, repo.path())
        .args(["runs", "show", rec.id.as_str()])
        .assert()
        .success()
        .stdout(predicate::str::contains("Status:     interrupted"));
}

#[test]
fn show_latest_folds_the_event_log() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    finished_run(&s, "add a flag");
    let out = sandboxed(&sb, repo.path())
        .args(["runs", "show", "latest"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = loki_test_support::redact(&String::from_utf8(out).unwrap(), &[]);
    insta::assert_snapshot!(text);
}

#[test]
fn events_verify_intact_and_every_kind_of_tampering() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    let rec = finished_run(&s, "t u");
    let id = rec.id.as_str();
    sandboxed(&sb, repo.path())
        .args(["events", id, "--verify"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"^intact \(5 events, head [0-9a-f]{64}\)\n$").unwrap());
    let log = log_of(&s, &rec);
    let orig = std::fs::read_to_string(&log).unwrap();

    let cases: Vec<(&str, Box<dyn Fn(&mut Vec<String>)>, &str)> = vec![
        (
            "edited",
            Box::new(|l| l[3] = l[3].replace("0.42", "0.01")),
            "broken at line 4: hash does not match",
        ),
        (
            "deleted",
            Box::new(|l| {
                l.remove(1);
            }),
            "broken at line 2: seq is 2, expected 1",
        ),
        (
            "reordered",
            Box::new(|l| l.swap(2, 3)),
            "broken at line 3: seq is 3, expected 2",
        ),
        (
            "inserted",
            Box::new(|l| {
                let c = l[0].clone();
                l.insert(1, c);
            }),
            "broken at line 2: seq is 0, expected 1",
        ),
        (
            "not json",
            Box::new(|l| l[2] = "garbage".into()),
            "broken at line 3: not JSON",
        ),
    ];
    for (name, mutate, want) in cases {
        std::fs::write(&log, &orig).unwrap();
        rewrite(&log, mutate);
        sandboxed(&sb, repo.path())
            .args(["events", id, "--verify"])
            .assert()
            .code(1)
            .stdout(predicate::str::contains(want).name(name));
    }
}

#[test]
fn events_verify_reports_a_torn_last_line_as_interrupted() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    let rec = finished_run(&s, "t u");
    let log = log_of(&s, &rec);
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"{\"v\":1,\"seq\":5");
    std::fs::write(&log, bytes).unwrap();
    sandboxed(&sb, repo.path())
        .args(["events", rec.id.as_str(), "--verify"])
        .assert()
        .success()
        .stdout(
            predicate::str::starts_with("interrupted (5 intact events")
                .and(predicate::str::contains("not tampering")),
        );
}

#[test]
fn events_lists_lines_and_refuses_unknown_runs() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let s = store(&repo);
    let rec = finished_run(&s, "t u");
    sandboxed(&sb, repo.path())
        .args(["events", rec.id.as_str()])
        .assert()
        .success()
        .stdout(predicate::str::contains("stage.started intake"));
    sandboxed(&sb, repo.path())
        .args(["events", "run_20200101_000000_abcd"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no run run_20200101_000000_abcd"));
    sandboxed(&sb, repo.path())
        .args(["events", "../../etc"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid run id"));
}
