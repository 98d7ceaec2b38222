//! Seal → verify round trips and every mutation the issue names, each with its verdict.

use std::fs;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ed25519_dalek::SigningKey;
use loki_core::exit::{Classify as _, ExitClass};
use loki_events::{EventType, EventWriter, hash_event, read_events};
use loki_protocol::CheckStatus;
use loki_protocol::outcome::{Outcome, VerifyVerdict};
use loki_receipt::dsse::{Envelope, PAYLOAD_TYPE, Statement, envelope_for};
use loki_receipt::keys::{Signer, SignerRole, keyid_of, public_key_pem};
use loki_receipt::{
    KeyEnv, ReceiptError, StepName, StepStatus, VerifyInput, VerifyOptions, export_dsse, verify,
};
use serde_json::{Value, json};

use crate::support::*;

#[test]
fn round_trip_is_verified_and_logs_the_seal() {
    let fx = sealed_run();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.reason, None);
    assert_eq!(report.run_id.as_deref(), Some(RUN));
    assert_eq!(report.outcome, Some(Outcome::Verified));
    assert_eq!(report.signer, Some(SignerRole::Current));
    assert_eq!(
        report.receipt_sha256.as_deref(),
        Some(fx.sealed.receipt.receipt_sha256.as_str())
    );
    assert_eq!(report.keyid.as_deref(), Some(fx.sealed.keyid.as_str()));
    assert!(
        report.steps.iter().all(|s| s.status == StepStatus::Pass),
        "{report:?}"
    );
    for f in ["receipt.json", "receipt.md", "receipt.dsse.json"] {
        assert!(fx.run_dir.join(f).is_file(), "{f}");
    }
    // The binding is taken before receipt.sealed, which is the last line.
    let (events, _) = read_events(&fx.events_path(), Some(RUN)).unwrap();
    assert_eq!(fx.sealed.receipt.events.count, 4);
    assert_eq!(events.len(), 5);
    let last = events.last().unwrap();
    assert_eq!(last.kind, "receipt.sealed");
    assert_eq!(
        last.data["receipt_sha256"],
        json!(fx.sealed.receipt.receipt_sha256)
    );
    assert_eq!(last.data["keyid"], json!(fx.sealed.keyid));
    // cost.usd is always present; absent optionals are omitted, never null.
    let text = fs::read_to_string(fx.receipt_path()).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["cost"]["usd"], json!(0.4213));
    assert!(v.get("contract").is_none());
    assert!(!text.contains("null"), "{text}");
}

#[test]
fn unmeasured_cost_is_null_not_zero() {
    let mut facts = verified_facts(RUN);
    facts.cost.usd = None;
    let fx = seal_with(facts, env_with_key(1));
    let v: Value = serde_json::from_str(&fs::read_to_string(fx.receipt_path()).unwrap()).unwrap();
    assert_eq!(v["cost"]["usd"], Value::Null);
    assert!(
        fs::read_to_string(fx.run_dir.join("receipt.md"))
            .unwrap()
            .contains("not measured")
    );
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
}

#[test]
fn one_byte_changed_anywhere_in_the_receipt_is_tampered() {
    let fx = sealed_run();
    let original = fs::read(fx.receipt_path()).unwrap();
    for i in 0..original.len() {
        let mut bytes = original.clone();
        bytes[i] ^= 0x01;
        write(&fx.receipt_path(), &bytes);
        let report = fx.verify();
        assert_eq!(
            report.verdict,
            VerifyVerdict::Tampered,
            "byte {i} ({:?}): {}",
            original[i] as char,
            loki_receipt::render_human(&report)
        );
    }
}

#[test]
fn a_changed_value_names_the_hash_mismatch() {
    let fx = sealed_run();
    let text = fs::read_to_string(fx.receipt_path()).unwrap();
    write(
        &fx.receipt_path(),
        text.replace("\"executed\": 42", "\"executed\": 43"),
    );
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("receipt_sha256"));
    assert_eq!(report.steps[1].name, StepName::ReceiptHash);
    assert_eq!(report.steps[1].status, StepStatus::Fail);
}

#[test]
fn reordered_keys_still_verify() {
    let fx = sealed_run();
    let v: Value = serde_json::from_str(&fs::read_to_string(fx.receipt_path()).unwrap()).unwrap();
    let reordered = reversed_json(&v);
    assert_ne!(reordered, fs::read_to_string(fx.receipt_path()).unwrap());
    write(&fx.receipt_path(), &reordered);
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
}

#[test]
fn a_duplicate_name_is_tampered_even_when_hash_and_signature_check_out() {
    let fx = sealed_run();
    let text = fs::read_to_string(fx.receipt_path()).unwrap();
    // A first-wins reader would see FAILED; serde (last wins) still sees the signed value, so
    // the hash and the signature alone would not catch it.
    let forged = text.replacen('{', "{\"verdict\": \"FAILED\", ", 1);
    write(&fx.receipt_path(), &forged);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    let reason = report.reason.unwrap();
    assert!(reason.contains("names $.verdict twice"), "{reason}");
}

#[test]
fn non_ascii_text_in_fields_verifies() {
    let mut facts = verified_facts(RUN);
    facts.task.reference = Some("修正: «ñandú» ✓ 😂 \u{2028} \"quoted\" \\ tab\t".to_string());
    facts.checks[0].name = "tëst ünïcode ✓".to_string();
    facts.provider = "prövider".to_string();
    facts.model = "模型-1".to_string();
    facts.integrity = vec![];
    facts.extra_not_proven = vec![loki_receipt::NotProven::new(
        "ﬁ ligature ☃",
        "naïve ✓",
        "loki deep 模型",
    )];
    let fx = seal_with(facts, env_with_key(1));
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
    let md = fs::read_to_string(fx.run_dir.join("receipt.md")).unwrap();
    assert!(md.contains("模型-1") && md.contains("ﬁ ligature ☃"), "{md}");
}

#[test]
fn swapped_signature_is_tampered() {
    let a = sealed_run();
    let mut other = verified_facts(RUN);
    other.diff.insertions = 99;
    let b = seal_with(other, env_with_key(1));
    let mut env_a: Envelope =
        serde_json::from_slice(&fs::read(a.envelope_path()).unwrap()).unwrap();
    let env_b: Envelope = serde_json::from_slice(&fs::read(b.envelope_path()).unwrap()).unwrap();
    assert_ne!(env_a.signatures[0].sig, env_b.signatures[0].sig);
    env_a.signatures[0].sig = env_b.signatures[0].sig.clone();
    write(&a.envelope_path(), env_a.to_file_bytes().unwrap());
    let report = a.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("known key"));
}

#[test]
fn a_signature_by_an_unknown_key_is_unchecked_never_tampered() {
    let fx = sealed_run();
    let stranger = Signer::load(None, &env_with_key(2)).unwrap().unwrap();
    let foreign = envelope_for(&fx.sealed.receipt, &stranger).unwrap();
    write(&fx.envelope_path(), foreign.to_file_bytes().unwrap());
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Unchecked);
    assert_eq!(report.keyid.as_deref(), Some(stranger.keyid()));
    assert!(report.reason.unwrap().contains("--pubkey"));
    // Without a keyid hint it is still unchecked: nothing shows the envelope was changed.
    let mut no_hint = foreign;
    no_hint.signatures[0].keyid = String::new();
    write(&fx.envelope_path(), no_hint.to_file_bytes().unwrap());
    assert_verdict(&fx.verify(), VerifyVerdict::Unchecked);
}

#[test]
fn url_safe_unpadded_base64_and_unknown_fields_are_accepted() {
    let fx = sealed_run();
    let env: Envelope = serde_json::from_slice(&fs::read(fx.envelope_path()).unwrap()).unwrap();
    let url = |s: &str| URL_SAFE_NO_PAD.encode(STANDARD.decode(s).unwrap());
    let mut v = serde_json::to_value(&env).unwrap();
    v["payload"] = json!(url(&env.payload));
    v["signatures"][0]["sig"] = json!(url(&env.signatures[0].sig));
    v["signatures"][0]["extra"] = json!("ignored");
    v["vendor_field"] = json!({"x": 1});
    write(&fx.envelope_path(), serde_json::to_vec(&v).unwrap());
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
}

#[test]
fn a_retired_key_verifies() {
    // Signed with key 1, which has since been replaced by key 2 and kept as retired.
    let fx = sealed_run();
    let retired = fx.tmp.path().join("old.pub.pem");
    let old = SigningKey::from_bytes(&[1; 32]).verifying_key();
    write(&retired, public_key_pem(&old).unwrap());
    let opts = VerifyOptions {
        env: KeyEnv {
            retired_pubkeys: Some(format!(" {} ,", retired.display())),
            ..env_with_key(2)
        },
        ..fx.opts()
    };
    let report = verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts);
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.signer, Some(SignerRole::Retired));
    assert_eq!(report.keyid, Some(keyid_of(&old)));
    // Without the retired key, the same receipt is unchecked.
    let opts = VerifyOptions {
        env: env_with_key(2),
        ..fx.opts()
    };
    assert_verdict(
        &verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts),
        VerifyVerdict::Unchecked,
    );
}

#[test]
fn an_envelope_naming_another_commit_is_tampered() {
    let fx = sealed_run();
    let signer = Signer::load(None, &fx.env).unwrap().unwrap();
    let mut statement = Statement::for_receipt(&fx.sealed.receipt).unwrap();
    statement.subject[0].name = "git:3333".to_string();
    statement.subject[0]
        .digest
        .insert("gitCommit".to_string(), "3".repeat(40));
    let env = Envelope::sign(PAYLOAD_TYPE, &statement.to_body().unwrap(), &signer);
    write(&fx.envelope_path(), env.to_file_bytes().unwrap());
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(
        report.reason.as_deref().unwrap().contains(&"3".repeat(40)),
        "{report:?}"
    );
    assert_eq!(report.steps[4].name, StepName::Statement);
    // A signed predicate that differs from receipt.json is caught too.
    let mut statement = Statement::for_receipt(&fx.sealed.receipt).unwrap();
    statement.predicate["provider"] = json!("someone else");
    let env = Envelope::sign(PAYLOAD_TYPE, &statement.to_body().unwrap(), &signer);
    write(&fx.envelope_path(), env.to_file_bytes().unwrap());
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("differs"));
}

#[test]
fn a_truncated_event_log_is_tampered() {
    let fx = sealed_run();
    let text = fs::read_to_string(fx.events_path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Keep 3 of the 4 lines the receipt binds.
    write(&fx.events_path(), lines[..3].join("\n") + "\n");
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("truncated"));
    // An emptied log too, and a deleted one.
    write(&fx.events_path(), "");
    assert_verdict(&fx.verify(), VerifyVerdict::Tampered);
    fs::remove_file(fx.events_path()).unwrap();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("missing"));
}

#[test]
fn a_line_edited_before_the_seal_is_tampered() {
    let fx = sealed_run();
    let text = fs::read_to_string(fx.events_path()).unwrap();
    let edited = text.replacen("\"passed\":42", "\"passed\":41", 1);
    assert_ne!(edited, text);
    write(&fx.events_path(), &edited);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("line 3"));
}

#[test]
fn a_rewritten_chain_is_tampered() {
    // A forger edits line 3 and recomputes every hash after it: the chain is valid again, but its
    // head no longer matches what the receipt bound.
    let fx = sealed_run();
    let (mut events, _) = read_events(&fx.events_path(), Some(RUN)).unwrap();
    events[2].data.insert("passed".to_string(), json!(41));
    for i in 2..events.len() {
        if i > 0 {
            events[i].prev = events[i - 1].hash.clone();
        }
        events[i].hash = hash_event(&events[i]).unwrap();
    }
    let text: String = events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect();
    write(&fx.events_path(), text);
    assert!(matches!(
        loki_events::verify_log(&fx.events_path(), Some(RUN))
            .unwrap()
            .status,
        loki_events::LogStatus::Intact
    ));
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Tampered);
    assert!(report.reason.unwrap().contains("rewritten"));
}

#[test]
fn extra_events_after_the_seal_still_verify() {
    let fx = sealed_run();
    let mut w = EventWriter::open(&fx.run_dir, RUN).unwrap();
    w.append(
        EventType::PrOpened,
        None,
        json!({"url": "https://example.com/pr/1"}),
    )
    .unwrap();
    w.append(
        EventType::RunCompleted,
        None,
        json!({"outcome": "VERIFIED"}),
    )
    .unwrap();
    drop(w);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert!(
        report.steps[2].detail.contains("3 after the seal"),
        "{report:?}"
    );
}

#[test]
fn a_receipt_lifted_into_another_run_is_tampered() {
    let fx = sealed_run();
    let other = seal_with(verified_facts(OTHER_RUN), env_with_key(1));
    fs::copy(fx.receipt_path(), other.receipt_path()).unwrap();
    fs::copy(fx.envelope_path(), other.envelope_path()).unwrap();
    assert_verdict(&other.verify(), VerifyVerdict::Tampered);
}

#[test]
fn a_pubkey_that_is_not_ed25519_or_unreadable_is_unchecked() {
    const P256_SPKI: &str = "-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5cywJAIXTgwrpDlGJaW86rXmWTmq
Wn0NkDH2Qymcw+zOnEocP4JMuRK+Wvp3smP7jONTCB+9ym7SGsouWM+afQ==
-----END PUBLIC KEY-----
";
    let fx = sealed_run();
    let p256 = fx.tmp.path().join("p256.pem");
    write(&p256, P256_SPKI);
    let garbage = fx.tmp.path().join("garbage.pem");
    write(&garbage, "hello");
    let private = fx.tmp.path().join("private.pem");
    write(&private, key_pem(1));
    for path in [p256, garbage, private, fx.tmp.path().join("missing.pem")] {
        let opts = VerifyOptions {
            pubkey: Some(path.clone()),
            ..fx.opts()
        };
        let report = verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts);
        assert_verdict(&report, VerifyVerdict::Unchecked);
        assert_eq!(report.exit_code, 2);
        assert!(
            report.reason.unwrap().contains("--pubkey"),
            "{}",
            path.display()
        );
    }
}

#[test]
fn pubkey_checks_only_against_that_key() {
    let fx = sealed_run();
    let signer = Signer::load(None, &fx.env).unwrap().unwrap();
    let pub_file = fx.tmp.path().join("signer.pub.pem");
    write(&pub_file, signer.export_public_pem().unwrap());
    // A machine with a different key of its own still verifies with --pubkey.
    let opts = VerifyOptions {
        home: None,
        env: env_with_key(9),
        pubkey: Some(pub_file),
        allow_unsigned: false,
    };
    let report = verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts);
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.signer, Some(SignerRole::Pubkey));
    // And --pubkey of another key ignores the local current key.
    let other_pub = fx.tmp.path().join("other.pub.pem");
    write(
        &other_pub,
        public_key_pem(&SigningKey::from_bytes(&[9; 32]).verifying_key()).unwrap(),
    );
    let opts = VerifyOptions {
        pubkey: Some(other_pub),
        ..fx.opts()
    };
    assert_verdict(
        &verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts),
        VerifyVerdict::Unchecked,
    );
}

#[test]
fn a_missing_envelope_is_unsigned_unless_allowed() {
    let fx = sealed_run();
    fs::remove_file(fx.envelope_path()).unwrap();
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Unsigned);
    assert!(report.reason.unwrap().contains("--allow-unsigned"));
    let opts = VerifyOptions {
        allow_unsigned: true,
        ..fx.opts()
    };
    let report = verify(&VerifyInput::RunDir(fx.run_dir.clone()), &opts);
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.steps[3].status, StepStatus::Skip);
}

#[test]
fn a_failed_run_is_intact_but_not_verified() {
    let mut facts = verified_facts(RUN);
    facts.checks[0].result = CheckStatus::Fail;
    facts.checks[0].failed = 3;
    let fx = seal_with(facts, env_with_key(1));
    assert_eq!(fx.sealed.receipt.verdict, Outcome::Partial);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::NotVerified);
    assert_eq!(report.exit_code, 4);
    assert!(report.reason.unwrap().contains("PARTIAL"));
    let err = export_dsse(&fx.run_dir, &fx.opts()).unwrap_err();
    assert_eq!(
        err.exit_class(),
        ExitClass::Verdict(VerifyVerdict::NotVerified)
    );
}

#[test]
fn receipt_and_envelope_files_verify_as_inputs() {
    let fx = sealed_run();
    let opts = fx.opts();
    assert_verdict(
        &verify(&VerifyInput::File(fx.receipt_path()), &opts),
        VerifyVerdict::Verified,
    );
    assert_verdict(
        &verify(&VerifyInput::from_path(&fx.envelope_path()), &opts),
        VerifyVerdict::Verified,
    );
    // The envelope alone, on another machine: the receipt is its predicate; no log to check.
    let elsewhere = fx.tmp.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let copy = elsewhere.join("r.dsse.json");
    fs::copy(fx.envelope_path(), &copy).unwrap();
    let report = verify(&VerifyInput::from_path(&copy), &opts);
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.steps[2].status, StepStatus::Skip);
    // A receipt.json copied alone is unsigned.
    let lone = elsewhere.join("receipt.json");
    fs::copy(fx.receipt_path(), &lone).unwrap();
    fs::remove_file(&copy).unwrap();
    assert_verdict(
        &verify(&VerifyInput::from_path(&lone), &opts),
        VerifyVerdict::Unsigned,
    );
}

#[test]
fn an_unsealed_or_unreadable_input_is_unchecked() {
    let fx = sealed_run();
    let empty = fx.tmp.path().join("empty-run");
    fs::create_dir_all(&empty).unwrap();
    let report = verify(&VerifyInput::RunDir(empty), &fx.opts());
    assert_verdict(&report, VerifyVerdict::Unchecked);
    assert!(report.reason.unwrap().contains("not sealed"));
    let missing = verify(
        &VerifyInput::File(fx.tmp.path().join("nope.json")),
        &fx.opts(),
    );
    assert_verdict(&missing, VerifyVerdict::Unchecked);
}

#[test]
fn export_returns_the_envelope_only_when_verified() {
    let fx = sealed_run();
    let text = export_dsse(&fx.run_dir, &fx.opts()).unwrap();
    let env: Envelope = serde_json::from_str(&text).unwrap();
    assert_eq!(env.payload_type, PAYLOAD_TYPE);
    let receipt = fs::read_to_string(fx.receipt_path()).unwrap();
    write(
        &fx.receipt_path(),
        receipt.replace("scripted-1", "scripted-2"),
    );
    let err = export_dsse(&fx.run_dir, &fx.opts()).unwrap_err();
    assert!(
        matches!(
            err,
            ReceiptError::ExportRefused {
                verdict: VerifyVerdict::Tampered,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.exit_class(),
        ExitClass::Verdict(VerifyVerdict::Tampered)
    );
}
