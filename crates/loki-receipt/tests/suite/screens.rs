//! Screenshots bound by a receipt (`evidence.screens`): verified while they are as sealed,
//! TAMPERED naming the file when one is altered, missing, a symbolic link or outside the run.

use std::fs;

use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::markdown::SignatureLine;
use loki_receipt::schema::{EventsBinding, Evidence, Screen, sha256_hex};
use loki_receipt::{ReceiptBuilder, StepName, StepStatus, VerifyInput, render_markdown, verify};

use crate::support::*;

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n not really a picture, but bytes with a hash";

fn screen(route: &str, file: &str) -> Screen {
    Screen {
        route: route.to_string(),
        file: file.to_string(),
        sha256: sha256_hex(PNG),
        bytes: PNG.len() as u64,
    }
}

/// A sealed run whose receipt binds `screens/01-root.png` and `screens/02-about.png`.
fn run_with_screens() -> Fixture {
    let mut facts = verified_facts(RUN);
    facts.evidence = Some(Evidence {
        screens: vec![
            screen("/", "screens/01-root.png"),
            screen("/about", "screens/02-about.png"),
        ],
    });
    let fx = seal_with(facts, env_with_key(1));
    fs::create_dir_all(fx.run_dir.join("screens")).unwrap();
    for f in ["01-root.png", "02-about.png"] {
        write(&fx.run_dir.join("screens").join(f), PNG);
    }
    fx
}

fn screens_step(report: &loki_receipt::VerifyReport) -> (StepStatus, String) {
    let s = report
        .steps
        .iter()
        .find(|s| s.name == StepName::Screens)
        .unwrap_or_else(|| panic!("a screens step: {report:?}"));
    (s.status, s.detail.clone())
}

#[test]
fn intact_screens_verify_and_are_a_step_of_their_own() {
    let fx = run_with_screens();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(
        screens_step(&report),
        (
            StepStatus::Pass,
            "2 screenshots match their sha256".to_string()
        )
    );
    // Every usual step is still there, once, in order, after the screens.
    let names: Vec<StepName> = report.steps.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            StepName::Parse,
            StepName::ReceiptHash,
            StepName::EventLog,
            StepName::Screens,
            StepName::Signature,
            StepName::Statement,
            StepName::Markdown,
            StepName::Outcome
        ]
    );
}

#[test]
fn an_altered_screen_is_tampered_and_named() {
    let fx = run_with_screens();
    let path = fx.run_dir.join("screens/02-about.png");
    let mut bytes = PNG.to_vec();
    bytes[20] ^= 1;
    write(&path, &bytes);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    let (status, detail) = screens_step(&report);
    assert_eq!(status, StepStatus::Fail);
    assert!(
        detail.contains("screens/02-about.png") && detail.contains("was changed"),
        "{detail}"
    );
    // The steps after it were not reached, and are still reported.
    assert_eq!(report.steps.len(), 8, "{report:?}");
    assert_eq!(report.steps[4].name, StepName::Signature);
    assert_eq!(report.steps[4].status, StepStatus::Skip);
}

#[test]
fn a_missing_screen_is_tampered_and_named() {
    let fx = run_with_screens();
    fs::remove_file(fx.run_dir.join("screens/01-root.png")).unwrap();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    let reason = report.reason.unwrap();
    assert!(
        reason.contains("screens/01-root.png") && reason.contains("is missing"),
        "{reason}"
    );
}

#[test]
fn a_screen_replaced_by_a_symlink_is_tampered_even_to_identical_bytes() {
    let fx = run_with_screens();
    let elsewhere = fx.tmp.path().join("copy.png");
    write(&elsewhere, PNG);
    let path = fx.run_dir.join("screens/01-root.png");
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    let reason = report.reason.unwrap();
    assert!(
        reason.contains("screens/01-root.png") && reason.contains("symbolic link"),
        "{reason}"
    );

    // A linked directory on the way counts too.
    let fx = run_with_screens();
    let moved = fx.tmp.path().join("moved-screens");
    fs::rename(fx.run_dir.join("screens"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, fx.run_dir.join("screens")).unwrap();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(
        report.reason.as_deref().unwrap().contains("symbolic link"),
        "{report:?}"
    );
}

#[test]
fn a_screen_path_leaving_the_run_directory_is_tampered() {
    for file in ["../outside.png", "/etc/hostname", ""] {
        let mut facts = verified_facts(RUN);
        facts.evidence = Some(Evidence {
            screens: vec![screen("/", file)],
        });
        let fx = seal_with(facts, env_with_key(1));
        let report = fx.verify();
        assert_verdict(&report, VerifyVerdict::Tampered);
        assert!(
            report
                .reason
                .as_deref()
                .unwrap()
                .contains("not a path inside the run directory"),
            "{file}: {report:?}"
        );
    }
}

#[test]
fn a_receipt_without_screens_reports_no_screens_step() {
    let fx = sealed_run();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert!(report.steps.iter().all(|s| s.name != StepName::Screens));
    let text = fs::read_to_string(fx.receipt_path()).unwrap();
    assert!(!text.contains("evidence"), "omitted, never null: {text}");
}

#[test]
fn a_receipt_copied_out_of_its_run_skips_the_screens() {
    let fx = run_with_screens();
    let away = fx.tmp.path().join("away");
    fs::create_dir_all(&away).unwrap();
    for f in ["receipt.json", "receipt.dsse.json"] {
        fs::copy(fx.run_dir.join(f), away.join(f)).unwrap();
    }
    let report = verify(&VerifyInput::File(away.join("receipt.json")), &fx.opts());
    assert_verdict(&report, VerifyVerdict::Verified);
    let (status, detail) = screens_step(&report);
    assert_eq!(status, StepStatus::Skip);
    assert!(detail.contains("not in its run directory"), "{detail}");
}

#[test]
fn receipt_md_lists_the_screens() {
    let mut facts = verified_facts(RUN);
    facts.evidence = Some(Evidence {
        screens: vec![
            screen("/", "screens/01-root.png"),
            screen("/a|b", "screens/02-a-b.png"),
        ],
    });
    let receipt = ReceiptBuilder::new(facts)
        .build(EventsBinding {
            count: 4,
            head: "ab".repeat(32),
        })
        .unwrap();
    let md = render_markdown(&receipt, &SignatureLine::Unsigned);
    let start = md.find("## Visual evidence").unwrap();
    let end = md[start + 3..]
        .find("\n## ")
        .map_or(md.len(), |i| start + 3 + i);
    insta::assert_snapshot!(&md[start..end]);
}
