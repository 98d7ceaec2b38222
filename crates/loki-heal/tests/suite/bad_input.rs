//! Every bad input of the issue, each with a test: what is refused, what is reported, and that
//! the user's file is untouched.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use loki_core::exit::{Classify as _, ExitClass};
use loki_heal::{HealError, PatchSource, Settled};

use super::common::{Fx, PY_APP, PY_LINE, answer, scripted, sha};

const FIX: &str = "    return sum(values) / len(values) if values else 0.0\n";

/// Proposes with `answers` and expects a rejection; the file and the backup are untouched.
fn rejected(answers: &[String]) -> (String, String) {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let before = sha(&fx.path("app.py"));
    let provider = scripted(fx.home.path(), answers);
    let mut s = fx.session(&run);
    let err = s.propose(PatchSource::Model(&provider)).unwrap_err();
    s.fail(&err);
    let report = s.finish(&fx.signer()).unwrap();
    assert_eq!(report.outcome, loki_protocol::outcome::Outcome::Failed);
    assert_eq!(sha(&fx.path("app.py")), before);
    assert!(!fx.path("app.py.loki.bak").exists());
    let transcript =
        std::fs::read_to_string(fx.repo.run_dir(&report.run_id).join("transcript.jsonl")).unwrap();
    (err.to_string(), transcript)
}

#[test]
fn an_answer_that_is_not_json_is_retried_once_then_refused() {
    let (err, transcript) = rejected(&["Sure! Replace the division.".into(), "still prose".into()]);
    assert!(err.contains("rejected 2 times"), "{err}");
    assert!(err.contains("not a JSON object"), "{err}");
    assert_eq!(transcript.matches("\"type\":\"exchange\"").count(), 2);
}

#[test]
fn a_retry_with_the_validation_error_can_succeed() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let mut missing =
        serde_json::from_str::<serde_json::Value>(&answer("app.py", PY_LINE, FIX)).unwrap();
    missing.as_object_mut().unwrap().remove("root_cause");
    let provider = scripted(
        fx.home.path(),
        &[missing.to_string(), answer("app.py", PY_LINE, FIX)],
    );
    let mut s = fx.session(&run);
    s.propose(PatchSource::Model(&provider)).unwrap();
    let report = {
        s.apply().unwrap();
        s.verify().unwrap();
        s.finish(&fx.signer()).unwrap()
    };
    assert_eq!(report.settled, Settled::Verified);
    let transcript =
        std::fs::read_to_string(fx.repo.run_dir(&report.run_id).join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("field root_cause is missing"),
        "the retry carries the error"
    );
}

#[test]
fn json_missing_a_field_is_named() {
    let mut v = serde_json::from_str::<serde_json::Value>(&answer("app.py", PY_LINE, FIX)).unwrap();
    v.as_object_mut().unwrap().remove("replacement_snippet");
    let (err, _) = rejected(&[v.to_string(), v.to_string()]);
    assert!(
        err.contains("field replacement_snippet is missing"),
        "{err}"
    );
}

#[test]
fn an_original_snippet_not_in_the_file_is_refused_with_the_closest_region() {
    let a = answer("app.py", "    return total / count\n", FIX);
    let (err, _) = rejected(&[a.clone(), a]);
    assert!(err.contains("original_snippet: no match"), "{err}");
    assert!(err.contains("app.py"), "{err}");
}

#[test]
fn a_snippet_matching_twice_is_refused() {
    let a = answer("app.py", "values", "vals");
    let (err, _) = rejected(&[a.clone(), a]);
    assert!(err.contains("matches 2 places"), "{err}");
    assert!(err.contains("include more surrounding lines"), "{err}");
}

#[test]
fn a_file_outside_the_repository_is_refused_as_a_patch_target() {
    let a = answer("../../etc/passwd", "root", "toor");
    let (err, _) = rejected(&[a.clone(), a]);
    assert!(err.contains("outside the repository"), "{err}");
}

#[test]
fn crlf_endings_survive_an_lf_replacement() {
    let crlf = PY_APP.replace('\n', "\r\n");
    let fx = Fx::new(&[("app.py", &crlf)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    // The model writes LF (and one stray CRLF) snippets; the file must stay CRLF throughout.
    let report = fx.heal(
        &run,
        &[answer(
            "app.py",
            PY_LINE,
            "    if not values:\r\n        return 0.0\n    return sum(values) / len(values)\n",
        )],
    );
    assert_eq!(report.settled, Settled::Verified);
    let after = std::fs::read(fx.path("app.py")).unwrap();
    let text = String::from_utf8(after).unwrap();
    assert!(
        text.contains("if not values:\r\n        return 0.0\r\n"),
        "{text:?}"
    );
    assert_eq!(
        text.matches('\n').count(),
        text.matches("\r\n").count(),
        "every line ends CRLF"
    );
}

#[test]
fn a_read_only_target_is_refused_before_any_write() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let path = fx.path("app.py");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let provider = scripted(fx.home.path(), &[answer("app.py", PY_LINE, FIX)]);
    let mut s = fx.session(&run);
    s.propose(PatchSource::Model(&provider)).unwrap();
    let err = s.apply().unwrap_err();
    assert!(matches!(err, HealError::ReadOnly { .. }), "{err}");
    assert_eq!(err.exit_class(), ExitClass::Usage);
    assert!(err.to_string().contains("chmod u+w"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), PY_APP);
    assert!(!fx.path("app.py.loki.bak").exists());
}

#[test]
fn a_fix_killed_between_backup_and_verification_loses_nothing() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let original = sha(&fx.path("app.py"));
    let provider = scripted(fx.home.path(), &[answer("app.py", PY_LINE, FIX)]);
    let mut s = fx.session(&run);
    s.propose(PatchSource::Model(&provider)).unwrap();
    s.apply().unwrap();
    drop(s); // the process dies here: no verification, no receipt
    assert_ne!(sha(&fx.path("app.py")), original);

    // The next fix finds the backup and refuses to stack a second patch on it.
    let stale = loki_heal::backups::find_stale(fx.root());
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].rel, "app.py");
    let provider = scripted(fx.home.path(), &[answer("app.py", FIX, PY_LINE)]);
    let mut s = fx.session(&run);
    s.propose(PatchSource::Model(&provider)).unwrap();
    let err = s.apply().unwrap_err();
    assert!(matches!(err, HealError::StaleBackup { .. }), "{err}");
    assert!(err.to_string().contains("loki fix --restore"), "{err}");

    // Restoring puts the original back byte for byte.
    loki_heal::backups::restore(&stale[0]).unwrap();
    assert_eq!(sha(&fx.path("app.py")), original);
    assert!(loki_heal::backups::find_stale(fx.root()).is_empty());
}

#[test]
fn frames_pointing_outside_the_repository_are_refused_and_reported() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("lib.py"), "x = 1\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("lib.py"), fx.path("lib.py")).unwrap();
    // A program whose traceback names only ../../etc/passwd and a symlink out of the repo.
    let script = "import sys\nsys.stderr.write('Traceback (most recent call last):\\n  File \"../../etc/passwd\", line 1, in <module>\\n  File \"lib.py\", line 1, in helper\\nValueError: bad\\n')\nsys.exit(1)\n";
    std::fs::write(fx.path("fake.py"), script).unwrap();
    let (run, inc) = fx.crash(&["python3", "fake.py"]);
    assert_eq!(inc.frames.len(), 2);
    let mut s = fx.session(&run);
    let refused: Vec<_> = s
        .resolution()
        .refused
        .iter()
        .map(|r| r.printed.clone())
        .collect();
    assert_eq!(refused, ["lib.py", "../../etc/passwd"]);
    assert!(
        s.resolution()
            .refused
            .iter()
            .all(|r| r.reason.contains("outside the repository"))
    );
    let provider = scripted(fx.home.path(), &[answer("app.py", PY_LINE, FIX)]);
    let err = s.propose(PatchSource::Model(&provider)).unwrap_err();
    assert!(matches!(err, HealError::NoSource { .. }), "{err}");
    assert_eq!(err.exit_class(), ExitClass::Usage);
    assert!(err.to_string().contains("../../etc/passwd"), "{err}");
}

#[test]
fn a_repro_that_hangs_is_a_harness_error() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, inc) = fx.crash(&["python3", "app.py"]);
    std::fs::write(fx.path("app.py"), "import time\ntime.sleep(60)\n").unwrap();
    let started = std::time::Instant::now();
    let r =
        loki_heal::repro::run(&fx.repo.run_dir(&run), &inc, Some(Duration::from_secs(1))).unwrap();
    assert_eq!(r.verdict.exit_code(), 2);
    assert!(
        matches!(&r.verdict, loki_heal::ReplayVerdict::Harness(m) if m.contains("timed out")),
        "{:?}",
        r.verdict
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_different_failure_is_read_as_such_not_as_a_reproduction() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, inc) = fx.crash(&["python3", "app.py"]);
    std::fs::write(fx.path("app.py"), "raise KeyError('other')\n").unwrap();
    let r = loki_heal::repro::run(&fx.repo.run_dir(&run), &inc, None).unwrap();
    assert!(
        matches!(&r.verdict, loki_heal::ReplayVerdict::DifferentFailure(m) if m.contains("different failure")),
        "{:?}",
        r.verdict
    );
}

#[test]
fn a_missing_command_is_reported_and_the_run_is_not_left_running() {
    let fx = Fx::new(&[]);
    let opts = loki_heal::ObserveOptions {
        command: vec!["no-such-program-xyz".into()],
        cwd: fx.repo.root.clone(),
        seed: None,
        timeout: Duration::from_secs(5),
        argv: vec![],
        clean_env: false,
        browser: None,
    };
    let err = loki_heal::observe(&fx.repo, &opts).unwrap_err();
    assert!(matches!(err, HealError::CommandNotFound { .. }), "{err}");
    let store = loki_core::run::RunStore::new(fx.repo.clone());
    let id = store.latest().unwrap().unwrap();
    assert_eq!(
        store
            .load(&id)
            .unwrap()
            .outcome
            .map(loki_protocol::RunEnd::as_str),
        Some("NOT_RUN")
    );
}
