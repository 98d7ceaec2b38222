//! The whole loop on real crashing programs with the scripted provider: record with `observe`,
//! heal with a `FixSession`, check the file, the backup, the events and the receipt.

use std::time::Duration;

use loki_heal::{FixOptions, FixSession, PatchSource, ReplayVerdict, Settled};
use loki_protocol::outcome::Outcome;

use super::common::{Fx, PY_APP, PY_LINE, answer, event_types, scripted, sha};

#[test]
fn python_correct_patch_is_verified_and_its_backup_removed() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, inc) = fx.crash(&["python3", "app.py"]);
    assert_eq!(inc.crash.kind, "ZeroDivisionError");
    assert_eq!(
        inc.signature.text,
        "ZeroDivisionError at average (app.py) < main (app.py) < <module> (app.py)"
    );
    assert_eq!(inc.env_vars["PYTHONHASHSEED"], "7");
    assert!(
        inc.env.tools["python3"].starts_with("Python 3"),
        "{:?}",
        inc.env
    );
    let dir = fx.repo.run_dir(&run);
    assert!(dir.join("repro.sh").is_file());

    // The reproduction reproduces before the fix.
    let before = loki_heal::repro::run(&dir, &inc, None).unwrap();
    assert_eq!(
        before.verdict,
        ReplayVerdict::Reproduced,
        "{}",
        before.output
    );
    assert!(
        before
            .output
            .contains(&format!("[REPRODUCED] {}", inc.signature.text))
    );

    let fixed = "    return sum(values) / len(values) if values else 0.0\n";
    let report = fx.heal(&run, &[answer("app.py", PY_LINE, fixed)]);
    assert_eq!(report.settled, Settled::Verified);
    assert_eq!(report.outcome, Outcome::Verified);
    assert!(
        std::fs::read_to_string(fx.path("app.py"))
            .unwrap()
            .contains("if values else 0.0")
    );
    assert!(
        !fx.path("app.py.loki.bak").exists(),
        "the backup is removed once verified"
    );
    let heal_dir = fx.repo.run_dir(&report.run_id);
    assert_eq!(
        event_types(&heal_dir),
        [
            "run.started",
            "cost",
            "patch.applied",
            "check.result",
            "patch.verified",
            "receipt.sealed",
            "run.completed"
        ]
    );
    let receipt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(heal_dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(receipt["kind"], "heal");
    assert_eq!(receipt["verdict"], "VERIFIED");
    assert_eq!(receipt["checks"][0]["name"], "repro");
    assert_eq!(receipt["checks"][0]["result"], "passed");
    assert_eq!(receipt["task"]["source"], "incident");
    assert_eq!(
        receipt["task"]["ref"],
        format!("{run}#{}", inc.signature.id)
    );
    assert_eq!(receipt["diff"]["files"], 1);
    assert_eq!(receipt["assessments"], serde_json::json!([]));
    assert!(heal_dir.join("receipt.dsse.json").is_file());
    assert!(heal_dir.join("transcript.jsonl").is_file());
    // Replaying after the fix: the crash is gone.
    let after = loki_heal::repro::run(&dir, &inc, None).unwrap();
    assert_eq!(after.verdict, ReplayVerdict::NotReproduced);
}

#[test]
fn python_wrong_patch_is_rolled_back_byte_identical() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let original = sha(&fx.path("app.py"));
    let wrong = "    return sum(values) / (len(values) * 1)\n";
    let report = fx.heal(&run, &[answer("app.py", PY_LINE, wrong)]);
    assert_eq!(
        report.settled,
        Settled::RolledBack {
            restored_exactly: true,
            new_crash: None,
        }
    );
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(sha(&fx.path("app.py")), original, "restored byte for byte");
    assert!(!fx.path("app.py.loki.bak").exists());
    let types = event_types(&fx.repo.run_dir(&report.run_id));
    assert!(
        types.contains(&"patch.rolled_back".to_string()),
        "{types:?}"
    );
    assert!(
        report
            .not_proven
            .iter()
            .any(|n| n.why().contains("rolled back")),
        "{:?}",
        report.not_proven
    );
}

/// A patch that turns the recorded crash into another one has not fixed anything: the program
/// still crashes. The file is restored byte for byte, the backup goes, and the new crash is named
/// in the settlement, the event log and the receipt's NOT PROVEN.
#[test]
fn python_patch_that_changes_the_crash_is_rolled_back_naming_the_new_crash() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let original = std::fs::read(fx.path("app.py")).unwrap();
    let other = "    return {}['missing']\n";
    let report = fx.heal(&run, &[answer("app.py", PY_LINE, other)]);
    let Settled::RolledBack {
        restored_exactly: true,
        new_crash: Some(c),
    } = &report.settled
    else {
        panic!(
            "expected a rollback naming the new crash, got {:?}",
            report.settled
        );
    };
    assert_eq!(c.kind, "KeyError");
    assert_eq!(c.message, "'missing'");
    assert_eq!(c.location.as_deref(), Some("app.py:2 in average"));
    assert_eq!(c.exit_code, 1);
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(std::fs::read(fx.path("app.py")).unwrap(), original);
    assert!(
        !fx.path("app.py.loki.bak").exists(),
        "the backup is removed"
    );
    let heal_dir = fx.repo.run_dir(&report.run_id);
    let rolled: Vec<serde_json::Value> = std::fs::read_to_string(heal_dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["type"] == "patch.rolled_back")
        .collect();
    assert_eq!(rolled.len(), 1, "{rolled:?}");
    assert_eq!(rolled[0]["data"]["new_crash"]["kind"], "KeyError");
    assert_eq!(
        rolled[0]["data"]["new_crash"]["location"],
        "app.py:2 in average"
    );
    assert_eq!(rolled[0]["data"]["byte_identical"], true);
    assert_eq!(
        report.sealed.receipt.checks[0].result,
        loki_protocol::CheckStatus::Fail
    );
    assert!(
        report.not_proven.iter().any(|n| n
            .to_string()
            .contains("KeyError: 'missing' at app.py:2 in average")),
        "{:?}",
        report.not_proven
    );
}

#[test]
fn a_harness_failure_keeps_both_the_patch_and_the_backup() {
    let fx = Fx::new(&[("app.py", PY_APP)]);
    let (run, _) = fx.crash(&["python3", "app.py"]);
    let original = std::fs::read(fx.path("app.py")).unwrap();
    // The "fix" makes the program hang: the reproduction times out, which proves nothing.
    let hang = "    import time\n    time.sleep(60)\n";
    let provider = scripted(fx.home.path(), &[answer("app.py", PY_LINE, hang)]);
    let opts = FixOptions {
        argv: vec![],
        repro_timeout: Some(Duration::from_secs(1)),
        replay_wrapper: Vec::new(),
    };
    let mut s = FixSession::start(&fx.repo, &run, opts).unwrap();
    s.propose(PatchSource::Model(&provider)).unwrap();
    s.apply().unwrap();
    let settled = s.verify().unwrap().clone();
    let Settled::Harness { reason, backup } = settled else {
        panic!("expected a harness error, got {settled:?}");
    };
    assert!(reason.contains("timed out"), "{reason}");
    assert_eq!(
        std::fs::read(&backup).unwrap(),
        original,
        "the backup holds the original"
    );
    assert!(
        std::fs::read_to_string(fx.path("app.py"))
            .unwrap()
            .contains("time.sleep(60)")
    );
    let report = s.finish(&fx.signer()).unwrap();
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(
        report.sealed.receipt.checks[0].result,
        loki_protocol::CheckStatus::Timeout
    );
}

#[test]
fn node_correct_patch_is_verified() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let app = "function total(order) {\n  return order.items.reduce((s, i) => s + i.price, 0);\n}\n\nconsole.log(total({}));\n";
    let fx = Fx::new(&[("src/cart.js", app)]);
    let (run, inc) = fx.crash(&["node", "src/cart.js"]);
    assert_eq!(inc.crash.kind, "TypeError");
    assert!(
        inc.signature
            .text
            .starts_with("TypeError at total (src/cart.js)"),
        "{}",
        inc.signature.text
    );
    let report = fx.heal(
        &run,
        &[answer(
            "src/cart.js",
            "order.items.reduce",
            "(order.items || []).reduce",
        )],
    );
    assert_eq!(report.settled, Settled::Verified);
    assert!(!fx.path("src/cart.js.loki.bak").exists());
}

#[test]
fn rust_correct_patch_is_verified() {
    if !loki_test_support::require_tool("cargo", &["--version"]) {
        return;
    }
    let main = "fn ratio(total: u32, parts: u32) -> u32 {\n    total / parts\n}\n\nfn main() {\n    let parts = std::env::args().skip(1).count() as u32;\n    println!(\"{}\", ratio(10, parts));\n}\n";
    let fx = Fx::new(&[
        (
            "Cargo.toml",
            "[package]\nname = \"ratio\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        ),
        ("src/main.rs", main),
    ]);
    let target = fx.dir.path().join("target").display().to_string();
    let (run, inc) = fx.crash(&["cargo", "run", "-q", "--offline", "--target-dir", &target]);
    assert_eq!(inc.crash.kind, "panic");
    assert_eq!(inc.crash.message, "attempt to divide by zero");
    assert!(
        inc.signature
            .text
            .starts_with("panic at ratio::ratio (src/main.rs)"),
        "{}",
        inc.signature.text
    );
    let report = fx.heal(
        &run,
        &[answer(
            "src/main.rs",
            "    total / parts\n",
            "    total.checked_div(parts).unwrap_or(0)\n",
        )],
    );
    assert_eq!(
        report.settled,
        Settled::Verified,
        "{:?}",
        report.replay.map(|r| r.output)
    );
    assert!(!fx.path("src/main.rs.loki.bak").exists());
}

#[test]
fn a_clean_run_records_only_a_completed_run() {
    let fx = Fx::new(&[("ok.py", "print('fine')\n")]);
    let observed = fx.observe(&["python3", "ok.py"]);
    let loki_heal::Observed::Clean { run_id, output } = observed else {
        panic!("expected a clean run");
    };
    assert!(output.output.text().contains("fine"));
    let dir = fx.repo.run_dir(&run_id);
    assert!(!dir.join("incident.json").exists());
    assert!(!dir.join("repro.sh").exists());
    assert_eq!(event_types(&dir), ["run.started", "run.completed"]);
}
