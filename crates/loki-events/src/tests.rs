//! Unit tests of the recorder's lifecycle and of the payloads' JSON.

use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStatus, RunStore};
use loki_protocol::{
    CheckKind, CheckOrigin, CheckRole, CheckRun, CheckStatus, FindingKind, Outcome, RunEnd, Stage,
};
use serde_json::{Value, json};

use crate::payload::{
    BuildStarted, CapHit, CheckResult, Cost, CrashSeen, Discarded, FileDigest, FixRound,
    IncidentRecorded, IntegrityFinding, PatchApplied, PatchRolledBack, PatchVerified, PrOpened,
    ReceiptSealed, RunCompleted, RunInterrupted, RunStarted, SessionEnded, SessionStarted,
    StageCompleted, StageEnd, StageFailed, StageSkipped, StageStarted, TestsRestored, ToolCalled,
    WallSealed,
};
use crate::{
    DROPPED_REASON, Event, EventError, EventType, LogStatus, Payload, RunRecorder, read_events,
    verify_log,
};

fn store() -> (tempfile::TempDir, RunStore) {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join(".git/info")).unwrap();
    let repo = Repo::discover(d.path()).unwrap();
    (d, RunStore::new(repo))
}

fn checks_started() -> RunStarted {
    RunStarted::Checks { checks: 1 }
}

fn events_of(store: &RunStore, rec: &RunRecorder) -> Vec<Event> {
    let path = store.dir(rec.id()).join("events.jsonl");
    assert_eq!(
        verify_log(&path, Some(rec.id().as_str())).unwrap().status,
        LogStatus::Intact
    );
    read_events(&path, Some(rec.id().as_str())).unwrap().0
}

fn types(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

fn check() -> CheckResult {
    CheckResult {
        run: CheckRun {
            name: "pytest".into(),
            kind: CheckOrigin::Runner(CheckKind::Pytest),
            cmd: "python3 -m pytest".into(),
            result: CheckStatus::Fail,
            executed: 3,
            passed: 2,
            failed: 1,
            skipped: 0,
        },
        duration_s: 0.5,
        log_sha256: "ab".repeat(32),
        failing_ids: vec!["test_a.py::test_x".into()],
        stage: None,
        role: None,
        reason: None,
        exit_code: Some(1),
        new_findings: None,
    }
}

#[test]
fn start_append_finish_keeps_run_json_and_the_log_in_step() {
    let (_d, store) = store();
    let mut rec = RunRecorder::start(
        &store,
        Some("the task".into()),
        vec!["loki".into(), "checks".into()],
        &checks_started(),
    )
    .unwrap();
    let running = store.load(rec.id()).unwrap();
    assert_eq!(
        (running.kind, running.status),
        (RunKind::Checks, RunStatus::Running)
    );
    assert_eq!(running.task.as_deref(), Some("the task"));

    rec.append(&check()).unwrap();
    rec.finish(&RunCompleted::new(RunEnd::Fail).exit_code(1))
        .unwrap();

    let done = store.load(rec.id()).unwrap();
    assert_eq!(done.status, RunStatus::Completed);
    assert_eq!(
        (done.outcome.map(RunEnd::as_str), done.exit_code),
        (Some("FAIL"), Some(1))
    );
    assert!(done.ended_at.is_some());
    assert_eq!(rec.record(), &done);

    let events = events_of(&store, &rec);
    assert_eq!(
        types(&events),
        ["run.started", "check.result", "run.completed"]
    );
    assert_eq!(events[0].data["kind"], "checks");
    assert_eq!(events[1].data["failing_ids"], json!(["test_a.py::test_x"]));
    assert_eq!(
        events[2].data,
        *json!({"outcome": "FAIL", "exit_code": 1})
            .as_object()
            .unwrap()
    );

    // An ended run takes no more events, and dropping it adds nothing.
    let err = rec.append(&check()).unwrap_err();
    assert!(
        matches!(
            err,
            EventError::Ended {
                event_type: "check.result",
                ..
            }
        ),
        "{err}"
    );
    assert!(rec.finish(&RunCompleted::new(RunEnd::Pass)).is_err());
    let id = rec.id().clone();
    drop(rec);
    let path = store.dir(&id).join("events.jsonl");
    assert_eq!(read_events(&path, None).unwrap().0.len(), 3);
}

#[test]
fn a_recorder_dropped_before_it_finished_records_an_interruption() {
    let (_d, store) = store();
    let (id, dir) = {
        let mut rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
        rec.append(&StageStarted {
            stage: Stage::Verify,
        })
        .unwrap();
        (rec.id().clone(), rec.dir().to_path_buf())
        // Dropped here, as when an error propagates with `?`.
    };
    let (events, _) = read_events(&dir.join("events.jsonl"), Some(id.as_str())).unwrap();
    assert_eq!(
        types(&events),
        ["run.started", "stage.started", "run.interrupted"]
    );
    assert_eq!(events[2].data["reason"], DROPPED_REASON);
    let rec = store.load(&id).unwrap();
    assert_eq!(rec.status, RunStatus::Interrupted);
    assert_eq!((rec.outcome, rec.exit_code), (None, None));
}

#[test]
fn a_panic_while_recording_still_ends_the_log_interrupted() {
    let (_d, store) = store();
    let dir = std::sync::Mutex::new(None);
    let caught = std::panic::catch_unwind(|| {
        let rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
        *dir.lock().unwrap() = Some((rec.id().clone(), rec.dir().to_path_buf()));
        panic!("a producer bug");
    });
    assert!(caught.is_err());
    let (id, dir) = dir.into_inner().unwrap().unwrap();
    let (events, _) = read_events(&dir.join("events.jsonl"), Some(id.as_str())).unwrap();
    assert_eq!(types(&events), ["run.started", "run.interrupted"]);
    assert_eq!(store.load(&id).unwrap().status, RunStatus::Interrupted);
}

#[test]
fn an_explicit_interruption_keeps_its_outcome_and_exit_code() {
    let (_d, store) = store();
    let mut rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
    rec.interrupt(&RunInterrupted {
        outcome: Some(Outcome::Failed.into()),
        exit_code: Some(130),
        receipt_sha256: Some("cd".repeat(32)),
        reason: None,
    })
    .unwrap();
    let done = store.load(rec.id()).unwrap();
    assert_eq!(done.status, RunStatus::Interrupted);
    assert_eq!(
        (done.outcome.map(RunEnd::as_str), done.exit_code),
        (Some("FAILED"), Some(130))
    );
    let events = events_of(&store, &rec);
    assert_eq!(types(&events), ["run.started", "run.interrupted"]);
    assert!(rec.interrupt(&RunInterrupted::because("again")).is_err());
}

#[test]
fn terminal_events_only_end_a_run_through_finish_or_interrupt() {
    let (_d, store) = store();
    let mut rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
    let err = rec.append(&RunCompleted::new(RunEnd::Pass)).unwrap_err();
    assert!(matches!(err, EventError::Encode { .. }), "{err}");
    assert_eq!(store.load(rec.id()).unwrap().status, RunStatus::Running);
    rec.finish(&RunCompleted::new(RunEnd::Pass).exit_code(0))
        .unwrap();
}

#[test]
fn seal_hands_over_the_log_once_and_binds_what_was_appended() {
    let (_d, store) = store();
    let mut rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
    rec.append(&check()).unwrap();
    let sealed = ReceiptSealed {
        receipt_sha256: "ef".repeat(32),
        keyid: "k1".into(),
    };
    let bound = rec
        .seal(|log| -> Result<(u64, String), EventError> {
            let binding = (log.count(), log.head().to_string());
            log.record(&sealed)?;
            Ok(binding)
        })
        .unwrap();
    assert_eq!(bound.0, 2, "run.started and check.result");
    assert!(rec.is_sealed());
    let again = rec.seal(|_| Ok::<(), EventError>(()));
    assert!(matches!(
        again,
        Err(EventError::Ended {
            event_type: "receipt.sealed",
            ..
        })
    ));
    rec.finish(
        &RunCompleted::new(Outcome::Verified)
            .exit_code(0)
            .receipt("ef".repeat(32)),
    )
    .unwrap();
    let events = events_of(&store, &rec);
    assert_eq!(
        types(&events),
        [
            "run.started",
            "check.result",
            "receipt.sealed",
            "run.completed"
        ]
    );
    assert_eq!(
        events[1].hash, bound.1,
        "the binding's head is the last event before the seal"
    );
}

#[test]
fn stage_payloads_put_their_stage_in_the_envelope() {
    let (_d, store) = store();
    let mut rec = RunRecorder::start(&store, None, vec![], &checks_started()).unwrap();
    rec.append(&StageStarted {
        stage: Stage::Intake,
    })
    .unwrap();
    rec.append(&StageCompleted(StageEnd::new(
        Stage::Intake,
        "ok",
        Some(0.25),
    )))
    .unwrap();
    rec.finish(&RunCompleted::new(RunEnd::Pass)).unwrap();
    let events = events_of(&store, &rec);
    assert_eq!(events[1].stage.map(Stage::as_str), Some("intake"));
    assert!(events[1].data.is_empty());
    assert_eq!(events[2].stage.map(Stage::as_str), Some("intake"));
    assert_eq!(
        events[2].data,
        *json!({"detail": "ok", "seconds": 0.25})
            .as_object()
            .unwrap()
    );
    assert_eq!(events[3].stage, None);
}

/// Serialises a payload as the log's `data` and checks it reads back to the same payload.
fn data<P: Payload + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug>(p: &P) -> Value {
    let v = serde_json::to_value(p).unwrap();
    let back: P = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(&back, p);
    v
}

/// A stage payload's `data`: written only, since the stage lives in the envelope, not in `data`.
fn stage_data<P: Payload>(p: &P) -> Value {
    assert!(P::TYPE.is_stage());
    serde_json::to_value(p).unwrap()
}

/// The shapes producers wrote by hand with `json!` before the payloads existed, byte for byte
/// after canonicalisation (the log hashes the RFC 8785 form, so key order does not matter).
#[test]
fn typed_payloads_serialise_as_the_hand_written_events_did() {
    let sha = "ab".repeat(32);
    let same = |typed: Value, before: Value| {
        assert_eq!(
            serde_json_canonicalizer::to_string(&typed).unwrap(),
            serde_json_canonicalizer::to_string(&before).unwrap()
        );
    };
    // engine.rs run.started
    same(
        data(&RunStarted::Build(BuildStarted {
            task_sha256: sha.clone(),
            task_source: "text".into(),
            provider: "scripted".into(),
            cap_s: 600,
            max_cost_usd: Some(2.5),
            base: "c0ffee".into(),
            agent_revision: None,
        })),
        json!({"kind": "build", "task_sha256": sha, "task_source": "text", "provider": "scripted",
               "cap_s": 600, "max_cost_usd": 2.5, "base": "c0ffee"}),
    );
    // seal/session.rs, heal/fix.rs, heal/record.rs, cmd/ask.rs, cmd/checks.rs run.started
    same(
        data(&RunStarted::Seal {
            session: "s1".into(),
            base: "a".into(),
            head: "b".into(),
        }),
        json!({"kind": "seal", "session": "s1", "base": "a", "head": "b"}),
    );
    same(
        data(&RunStarted::Heal {
            incident: "run_x".into(),
            signature: "sig".into(),
        }),
        json!({"kind": "heal", "incident": "run_x", "signature": "sig"}),
    );
    same(
        data(&RunStarted::Incident {
            command: vec!["python3".into(), "app.py".into()],
            seed: 7,
        }),
        json!({"kind": "incident", "command": ["python3", "app.py"], "seed": 7}),
    );
    same(
        data(&RunStarted::Ask {
            provider: "scripted".into(),
            why: "--provider".into(),
        }),
        json!({"kind": "ask", "provider": "scripted", "why": "--provider"}),
    );
    same(
        data(&checks_started()),
        json!({"kind": "checks", "checks": 1}),
    );
    // engine.rs cap.hit
    same(
        data(&CapHit::Cost {
            max_cost_usd: 1.0,
            spent_usd: 1.5,
            stage: Stage::Fix.into(),
        }),
        json!({"cap": "cost", "max_cost_usd": 1.0, "spent_usd": 1.5, "stage": "fix"}),
    );
    same(
        data(&CapHit::Time {
            cap_s: 60,
            stage: Stage::Verify.into(),
        }),
        json!({"cap": "time", "cap_s": 60, "stage": "verify"}),
    );
    // engine.rs fix.round, implement.rs tests.restored, wall.rs wall.sealed
    same(
        data(&FixRound {
            round: 1,
            signature: "sig".into(),
        }),
        json!({"round": 1, "signature": "sig"}),
    );
    same(
        data(&TestsRestored {
            after: "implement".into(),
            paths: vec!["tests/test_wall.py".into()],
            why: "sealed wall tests were edited by the agent".into(),
        }),
        json!({"after": "implement", "paths": ["tests/test_wall.py"],
               "why": "sealed wall tests were edited by the agent"}),
    );
    same(
        data(&WallSealed {
            files: vec![FileDigest {
                path: "t.py".into(),
                sha256: sha.clone(),
            }],
            discarded: vec![Discarded {
                path: "u.py".into(),
                reason: "not a test".into(),
            }],
        }),
        json!({"files": [{"path": "t.py", "sha256": sha}],
               "discarded": [{"path": "u.py", "reason": "not a test"}]}),
    );
    // engine session.rs cost
    same(
        data(&Cost {
            session: Some("implement".into()),
            usd: None,
            input_tokens: 10,
            output_tokens: 5,
            cache_read_tokens: 2,
            cache_write_tokens: 1,
            attempts: None,
        }),
        json!({"session": "implement", "usd": null, "input_tokens": 10, "output_tokens": 5,
               "cache_read_tokens": 2, "cache_write_tokens": 1}),
    );
    // heal record.rs incident.recorded, fix.rs patch.*
    same(
        data(&IncidentRecorded {
            signature: "sig".into(),
            signature_text: "ZeroDivisionError at app.py:3".into(),
            kind: "ZeroDivisionError".into(),
            exit_code: 1,
            frames: 2,
        }),
        json!({"signature": "sig", "signature_text": "ZeroDivisionError at app.py:3",
               "kind": "ZeroDivisionError", "exit_code": 1, "frames": 2}),
    );
    same(
        data(&PatchVerified {
            file: "app.py".into(),
            signature: "sig".into(),
        }),
        json!({"file": "app.py", "signature": "sig"}),
    );
    same(
        data(&PatchRolledBack {
            file: "app.py".into(),
            restored_sha256: sha.clone(),
            original_sha256: sha.clone(),
            byte_identical: true,
            new_crash: None,
        }),
        json!({"file": "app.py", "restored_sha256": sha, "original_sha256": sha,
               "byte_identical": true}),
    );
    same(
        data(&PatchRolledBack {
            file: "app.py".into(),
            restored_sha256: sha.clone(),
            original_sha256: sha.clone(),
            byte_identical: true,
            new_crash: Some(CrashSeen {
                signature: "sig2".into(),
                signature_text: "KeyError at average (app.py)".into(),
                kind: "KeyError".into(),
                message: "'missing'".into(),
                location: Some("app.py:2 in average".into()),
                exit_code: 1,
            }),
        }),
        json!({"file": "app.py", "restored_sha256": sha, "original_sha256": sha,
               "byte_identical": true, "new_crash": {"signature": "sig2",
               "signature_text": "KeyError at average (app.py)", "kind": "KeyError",
               "message": "'missing'", "location": "app.py:2 in average", "exit_code": 1}}),
    );
    // receipt builder receipt.sealed; seal session.rs integrity.finding
    same(
        data(&ReceiptSealed {
            receipt_sha256: sha.clone(),
            keyid: "k".into(),
        }),
        json!({"receipt_sha256": sha, "keyid": "k"}),
    );
    same(
        data(&IntegrityFinding {
            kind: FindingKind::TestFileRemoved,
            path: "tests/t.py".into(),
            line: Some(3),
            test: Some("t.py::test_a".into()),
            detail: "removed".into(),
            advice: Some("restore it".into()),
        }),
        json!({"kind": "test_file_removed", "path": "tests/t.py", "line": 3, "test": "t.py::test_a",
               "detail": "removed", "advice": "restore it"}),
    );
    // seal's check.result (a failing suite)
    same(
        data(&CheckResult {
            exit_code: None,
            ..check()
        }),
        json!({"name": "pytest", "kind": "pytest", "cmd": "python3 -m pytest", "result": "fail",
               "executed": 3, "passed": 2, "failed": 1, "skipped": 0,
               "failing_ids": ["test_a.py::test_x"], "duration_s": 0.5, "log_sha256": "ab".repeat(32)}),
    );
}

/// Every payload type as it lands in `data`: the shapes of the vocabulary, pinned.
#[test]
fn every_payload_shape_is_pinned() {
    let sha = "ab".repeat(32);
    let all: Vec<(&str, Value)> = vec![
        (
            RunStarted::TYPE.as_str(),
            data(&RunStarted::Quick(BuildStarted {
                task_sha256: sha.clone(),
                task_source: "issue".into(),
                provider: "openai".into(),
                cap_s: 300,
                max_cost_usd: None,
                base: "c0ffee".into(),
                agent_revision: None,
            })),
        ),
        (
            RunCompleted::TYPE.as_str(),
            data(
                &RunCompleted::new(Outcome::Verified)
                    .exit_code(0)
                    .receipt(sha.clone()),
            ),
        ),
        (
            RunCompleted::TYPE.as_str(),
            data(&RunCompleted {
                blocked: true,
                ..RunCompleted::new(Outcome::Failed).exit_code(2)
            }),
        ),
        (
            RunInterrupted::TYPE.as_str(),
            data(&RunInterrupted::because(DROPPED_REASON)),
        ),
        (
            StageStarted::TYPE.as_str(),
            stage_data(&StageStarted { stage: Stage::Plan }),
        ),
        (
            StageCompleted::TYPE.as_str(),
            stage_data(&StageCompleted(StageEnd::new(
                Stage::Seal,
                "VERIFIED",
                None,
            ))),
        ),
        (
            StageFailed::TYPE.as_str(),
            stage_data(&StageFailed(StageEnd::new(
                Stage::Intake,
                "no git",
                Some(0.5),
            ))),
        ),
        (
            StageSkipped::TYPE.as_str(),
            stage_data(&StageSkipped(StageEnd::new(
                Stage::Wall,
                "quick run: no plan, no wall",
                None,
            ))),
        ),
        (
            SessionStarted::TYPE.as_str(),
            data(&SessionStarted {
                session: Some("ask".into()),
                time_left_s: None,
                provider: Some("scripted".into()),
                model: Some("m".into()),
            }),
        ),
        (
            SessionEnded::TYPE.as_str(),
            data(&SessionEnded {
                session: Some("implement".into()),
                end: Some("finished".into()),
                finish: Some("done".into()),
                error: None,
                failure: None,
                seconds: Some(1.5),
                turns: None,
            }),
        ),
        (
            Cost::TYPE.as_str(),
            data(&Cost {
                session: None,
                usd: Some(0.01),
                input_tokens: 100,
                output_tokens: 20,
                cache_read_tokens: 0,
                cache_write_tokens: 0,
                attempts: Some(2),
            }),
        ),
        (
            ToolCalled::TYPE.as_str(),
            data(&ToolCalled {
                tool: "read_file".into(),
                path: Some("src/lib.rs".into()),
                session: None,
            }),
        ),
        (
            CheckResult::TYPE.as_str(),
            data(&CheckResult {
                run: CheckRun {
                    kind: CheckOrigin::Lint,
                    name: "lint:ruff".into(),
                    cmd: "ruff check a.py".into(),
                    ..check().run
                },
                failing_ids: Vec::new(),
                exit_code: None,
                new_findings: Some(1),
                ..check().in_stage(Stage::Verify, CheckRole::Lint)
            }),
        ),
        (
            IntegrityFinding::TYPE.as_str(),
            data(&IntegrityFinding {
                kind: FindingKind::SkipMarkerAdded,
                path: "tests/t.py".into(),
                line: None,
                test: None,
                detail: "a skip marker was added".into(),
                advice: None,
            }),
        ),
        (
            PatchApplied::TYPE.as_str(),
            data(&PatchApplied {
                file: "app.py".into(),
                line: 3,
                rung: "exact".into(),
                backup: "/r/app.py.loki.bak".into(),
                diff_sha256: sha.clone(),
                before_sha256: sha.clone(),
                after_sha256: sha.clone(),
                insertions: 1,
                deletions: 1,
                root_cause: "division by zero on an empty list".into(),
            }),
        ),
        (
            PrOpened::TYPE.as_str(),
            data(&PrOpened {
                url: "https://example.test/pr/1".into(),
                number: Some(1),
            }),
        ),
    ];
    let text: String = all
        .iter()
        .map(|(t, v)| format!("{t} {}\n", serde_json_canonicalizer::to_string(v).unwrap()))
        .collect();
    insta::assert_snapshot!(text);
}

#[test]
fn every_event_type_has_a_payload_type() {
    // The payload types' TYPE constants cover the vocabulary, each exactly once.
    let mut covered = vec![
        RunStarted::TYPE,
        RunCompleted::TYPE,
        RunInterrupted::TYPE,
        StageStarted::TYPE,
        StageCompleted::TYPE,
        StageFailed::TYPE,
        StageSkipped::TYPE,
        SessionStarted::TYPE,
        SessionEnded::TYPE,
        Cost::TYPE,
        ToolCalled::TYPE,
        WallSealed::TYPE,
        TestsRestored::TYPE,
        CheckResult::TYPE,
        IntegrityFinding::TYPE,
        FixRound::TYPE,
        CapHit::TYPE,
        IncidentRecorded::TYPE,
        PatchApplied::TYPE,
        PatchVerified::TYPE,
        PatchRolledBack::TYPE,
        ReceiptSealed::TYPE,
        PrOpened::TYPE,
    ];
    covered.sort_by_key(|t| t.as_str());
    let mut all = EventType::ALL.to_vec();
    all.sort_by_key(|t| t.as_str());
    assert_eq!(covered, all);
}

/// The one sink a process installs sees every line right after it is written, with its run's
/// directory; a second install is refused and the first stays.
#[test]
fn an_installed_sink_sees_every_line_after_it_is_written() {
    use std::sync::{Arc, Mutex};

    #[derive(Debug, Default)]
    struct Seen(Mutex<Vec<(std::path::PathBuf, u64, String, bool)>>);
    impl crate::EventSink for Seen {
        fn event(&self, run_dir: &std::path::Path, event: &Event) {
            // What is on disk when the sink is told: the line must be there already.
            let on_disk = std::fs::read_to_string(run_dir.join("events.jsonl"))
                .unwrap()
                .contains(&event.hash);
            self.0.lock().unwrap().push((
                run_dir.to_path_buf(),
                event.seq,
                event.kind.clone(),
                on_disk,
            ));
        }
    }
    let seen = Arc::new(Seen::default());
    assert!(crate::install_sink(seen.clone()));
    assert!(!crate::install_sink(Arc::new(Seen::default())));
    let (_d, store) = store();
    let mut rec = RunRecorder::start(
        &store,
        None,
        vec!["loki".into()],
        &RunStarted::Checks { checks: 1 },
    )
    .unwrap();
    let dir = rec.dir().to_path_buf();
    rec.finish(&RunCompleted::new(RunEnd::Pass)).unwrap();
    // Other tests of this binary may write runs too: look at this run's lines only.
    let mine: Vec<_> = seen
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|(d, ..)| *d == dir)
        .map(|(_, seq, kind, on_disk)| (*seq, kind.clone(), *on_disk))
        .collect();
    assert_eq!(
        mine,
        [
            (0, "run.started".to_string(), true),
            (1, "run.completed".to_string(), true)
        ]
    );
}

/// A `check.result` line as `loki checks run` recorded it before the payload embedded
/// `CheckRun`.
const RECORDED_CHECK_RESULT: &str = r#"{"data":{"cmd":"python3 -m pytest","duration_s":0.729,"executed":2,"exit_code":1,"failed":1,"failing_ids":["tests/test_calc.py::test_bad"],"kind":"pytest","log_sha256":"6e3f1567d30b3a8ae537e480d1c899d111d148fe12a68bab414c1dfbadc30e48","name":"pytest","passed":1,"reason":"1 failed: tests/test_calc.py::test_bad (failed again on rerun)","result":"fail","skipped":1},"hash":"3b93d14f8c36cc8ec25c5654cf23854e42d533dc2a07d2504c4c28057a02dc9d","prev":"e7e8ea7c34c4331dbac9e8a7adba5bf055e8505be11807b58695f4576c6f5475","run":"run_20261207_213015_27c0","seq":1,"ts":"2026-12-07T21:30:16.007Z","type":"check.result","v":1}"#;

/// The typed payload read from a recorded line writes the same `data`, so the line, which is
/// canonical and hashed, is written again byte for byte (its hash is unchanged).
#[test]
fn a_recorded_check_result_line_reads_and_writes_back_to_the_same_hash() {
    let event: crate::Event = serde_json::from_str(RECORDED_CHECK_RESULT).unwrap();
    let payload: CheckResult = serde_json::from_value(Value::Object(event.data.clone())).unwrap();
    assert_eq!(payload.run.kind, CheckOrigin::Runner(CheckKind::Pytest));
    assert_eq!(payload.run.result, CheckStatus::Fail);
    let data = serde_json::to_value(&payload)
        .unwrap()
        .as_object()
        .cloned()
        .unwrap();
    let again = crate::Event {
        data,
        ..event.clone()
    };
    assert_eq!(again, event);
    assert_eq!(crate::event::hash_event(&again).unwrap(), event.hash);
}
