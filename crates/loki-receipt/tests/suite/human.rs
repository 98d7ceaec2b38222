//! Issue 32, item 2: `receipt.md`, what people read and `loki pr` publishes, is bound to the
//! signed receipt and checked by `loki verify`; an edit is TAMPERED naming the file. Receipts
//! signed before the binding still verify, and say `receipt.md` was not checked.

use std::fs;

use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::dsse::{Envelope, Statement, envelope_for};
use loki_receipt::schema::sha256_hex;
use loki_receipt::{Signer, StepName, StepStatus, VerifyInput, VerifyReport, verify};

use crate::support::*;

fn md_path(fx: &Fixture) -> std::path::PathBuf {
    fx.run_dir.join("receipt.md")
}

fn step(report: &VerifyReport) -> (StepStatus, String) {
    let s = report
        .steps
        .iter()
        .find(|s| s.name == StepName::Markdown)
        .unwrap();
    (s.status, s.detail.clone())
}

fn assert_tampered_naming_the_file(report: &VerifyReport) -> String {
    assert_verdict(report, VerifyVerdict::Tampered);
    let reason = report.reason.clone().unwrap();
    assert!(reason.contains("receipt.md"), "{reason}");
    assert_eq!(step(report).0, StepStatus::Fail, "{report:?}");
    reason
}

#[test]
fn an_untouched_receipt_md_is_verified_and_its_bytes_are_signed() {
    let fx = sealed_run();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(step(&report).0, StepStatus::Pass, "{report:?}");
    let env: Envelope = serde_json::from_slice(&fs::read(fx.envelope_path()).unwrap()).unwrap();
    let statement: Statement = serde_json::from_slice(&env.payload_bytes().unwrap()).unwrap();
    assert_eq!(
        statement.markdown_sha256(),
        Some(sha256_hex(&fs::read(md_path(&fx)).unwrap()).as_str())
    );
}

#[test]
fn verified_changed_to_failed_in_receipt_md_is_tampered() {
    let fx = sealed_run();
    let md = fs::read_to_string(md_path(&fx)).unwrap();
    assert!(md.contains("| Verdict | **VERIFIED** |"), "{md}");
    write(&md_path(&fx), md.replace("**VERIFIED**", "**FAILED**"));
    let reason = assert_tampered_naming_the_file(&fx.verify());
    assert!(reason.contains("was changed after sealing"), "{reason}");
    // The line that was changed is quoted, with what was sealed.
    assert!(
        reason.contains(r#"reads "| Verdict | **FAILED** |", sealed "| Verdict | **VERIFIED** |""#),
        "{reason}"
    );
}

#[test]
fn a_changed_check_count_in_receipt_md_is_tampered() {
    let fx = sealed_run();
    let check = &fx.sealed.receipt.checks[0];
    let md = fs::read_to_string(md_path(&fx)).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with(&format!("| {} |", check.name)))
        .unwrap();
    let forged = row.replacen(
        &format!("| {} |", check.executed),
        &format!("| {} |", check.executed + 100),
        1,
    );
    assert_ne!(row, forged);
    write(&md_path(&fx), md.replacen(row, &forged, 1));
    let reason = assert_tampered_naming_the_file(&fx.verify());
    assert!(reason.contains(&forged), "{reason}");
}

#[test]
fn a_missing_or_linked_receipt_md_is_tampered() {
    let fx = sealed_run();
    let md = fs::read(md_path(&fx)).unwrap();
    fs::remove_file(md_path(&fx)).unwrap();
    let reason = assert_tampered_naming_the_file(&fx.verify());
    assert!(reason.contains("missing"), "{reason}");
    // A link to an intact copy elsewhere is not the run's file.
    let copy = fx.tmp.path().join("copy.md");
    write(&copy, &md);
    std::os::unix::fs::symlink(&copy, md_path(&fx)).unwrap();
    let reason = assert_tampered_naming_the_file(&fx.verify());
    assert!(reason.contains("symbolic link"), "{reason}");
    fs::remove_file(md_path(&fx)).unwrap();
    write(&md_path(&fx), &md);
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
}

/// A receipt signed before loki bound `receipt.md` (no such subject) still verifies; the step
/// says the file was not checked, so nobody takes it for evidence.
#[test]
fn a_receipt_signed_before_the_binding_still_verifies_and_says_so() {
    let fx = sealed_run();
    let signer = Signer::load_or_create(&fx.home, &fx.env).unwrap();
    let old = envelope_for(&fx.sealed.receipt, &signer).unwrap();
    write(&fx.envelope_path(), old.to_file_bytes().unwrap());
    let md = fs::read_to_string(md_path(&fx)).unwrap();
    write(&md_path(&fx), md.replace("**VERIFIED**", "**FAILED**"));
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    let (status, detail) = step(&report);
    assert_eq!(status, StepStatus::Skip);
    assert!(detail.contains("does not bind receipt.md"), "{detail}");
}

/// A receipt and envelope copied away from their run directory without `receipt.md` verify;
/// the step says the file was not there to check.
#[test]
fn a_receipt_copied_away_without_receipt_md_skips_the_step() {
    let fx = sealed_run();
    let away = fx.tmp.path().join("away");
    fs::create_dir_all(&away).unwrap();
    for f in ["receipt.json", "receipt.dsse.json"] {
        fs::copy(fx.run_dir.join(f), away.join(f)).unwrap();
    }
    let report = verify(&VerifyInput::File(away.join("receipt.json")), &fx.opts());
    assert_verdict(&report, VerifyVerdict::Verified);
    let (status, detail) = step(&report);
    assert_eq!(status, StepStatus::Skip);
    assert!(detail.contains("no receipt.md"), "{detail}");
}

/// A receipt sealed before NOT PROVEN entries had a reason holds bare strings: it still reads,
/// its hash is unchanged by reading and writing it, and it verifies.
#[test]
fn a_receipt_with_bare_not_proven_entries_still_verifies() {
    let fx = sealed_run();
    let mut value = fx.sealed.receipt.to_value().unwrap();
    value["not_proven"] = serde_json::json!(["full suite", "app boot", "security scan"]);
    let hash = loki_receipt::schema::receipt_sha256_of_value(&value).unwrap();
    value["receipt_sha256"] = serde_json::json!(hash);
    let old: loki_receipt::Receipt = serde_json::from_value(value.clone()).unwrap();
    assert!(old.not_proven.iter().all(loki_receipt::NotProven::is_bare));
    assert_eq!(
        old.to_value().unwrap(),
        value,
        "read and written back unchanged"
    );
    let signer = Signer::load_or_create(&fx.home, &fx.env).unwrap();
    write(&fx.receipt_path(), old.to_file_bytes().unwrap());
    write(
        &fx.envelope_path(),
        envelope_for(&old, &signer)
            .unwrap()
            .to_file_bytes()
            .unwrap(),
    );
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(step(&report).0, StepStatus::Skip);
    let md = loki_receipt::render_markdown(&old, &loki_receipt::markdown::SignatureLine::Unsigned);
    assert!(md.contains("\n- app boot\n"), "{md}");
}
