//! `loki verify` and `loki keys` end to end: a run sealed by the receipt library, checked by the
//! binary, and the signature checked by OpenSSL with the key `loki keys export` prints.

use std::path::Path;

use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunRecord, RunStatus, RunStore};
use loki_events::{EventType, EventWriter};
use loki_protocol::CheckStatus;
use loki_receipt::schema::{Check, WallFile, sha256_hex};
use loki_receipt::{KeyEnv, ReceiptBuilder, ReceiptFacts, Signer};
use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;
use serde_json::json;

use crate::cli::sandboxed;

/// Seals a run in `repo` with the sandbox's (auto-created) key; `pass` decides the outcome.
pub fn sealed_run(sb: &Sandbox, repo: &GitRepo, pass: bool) -> RunRecord {
    repo.write("src/lib.rs", "pub fn f() {}\n");
    let base = repo.commit("base");
    repo.write("src/lib.rs", "pub fn f() -> u8 { 1 }\n");
    let head = repo.commit("head");
    let store = RunStore::new(Repo::discover(repo.path()).unwrap());
    let mut rec = store
        .start(
            RunKind::Build,
            Some("make f return 1".into()),
            vec!["loki".into()],
        )
        .unwrap();
    let dir = store.dir(&rec.id);
    let mut log = EventWriter::open(&dir, rec.id.as_str()).unwrap();
    log.append(EventType::RunStarted, None, json!({"kind": "build"}))
        .unwrap();
    let mut f = ReceiptFacts::new(rec.id.as_str(), RunKind::Build);
    f.task.source = "text".into();
    f.task.sha256 = sha256_hex("make f return 1 — ünïcödé".as_bytes());
    f.repo.base_sha = base;
    f.repo.head_sha = head.clone();
    f.repo.tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    f.diff.sha256 = sha256_hex(b"diff");
    f.diff.files = 1;
    f.diff.insertions = 1;
    f.diff.deletions = 1;
    f.wall.passed = true;
    f.wall.files = vec![WallFile {
        path: "tests/loki_wall_f.rs".into(),
        sha256: sha256_hex(b"wall"),
    }];
    f.checks = vec![Check {
        name: "cargo".into(),
        kind: loki_protocol::CheckRole::Tests,
        cmd: "cargo test".into(),
        result: if pass {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail
        },
        executed: 3,
        passed: if pass { 3 } else { 2 },
        failed: u64::from(!pass),
        skipped: 0,
        duration_s: 1.0,
        log_sha256: sha256_hex(b"log"),
    }];
    f.provider = "scripted".into();
    f.model = "scripted".into();
    let signer = Signer::load_or_create(&sb.loki_home(), &KeyEnv::default()).unwrap();
    ReceiptBuilder::new(f)
        .seal(&dir, &mut log, &signer)
        .unwrap();
    log.append(EventType::RunCompleted, None, json!({}))
        .unwrap();
    store
        .finish(&mut rec, RunStatus::Completed, None, None)
        .unwrap();
    rec
}

fn redact(sb: &Sandbox, repo: &GitRepo, text: &[u8]) -> String {
    loki_test_support::redact(
        &String::from_utf8_lossy(text),
        &[(repo.path(), "[REPO]"), (sb.home(), "[HOME]")],
    )
}

#[test]
fn seal_then_verify_is_verified_and_human_output_is_pinned() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let rec = sealed_run(&sb, &repo, true);
    let out = sandboxed(&sb, repo.path())
        .arg("verify")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    insta::assert_snapshot!("verify_human", redact(&sb, &repo, &out));
    let out = sandboxed(&sb, repo.path())
        .args(["verify", rec.id.as_str(), "--json"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["verdict"], "VERIFIED");
    insta::assert_snapshot!("verify_json", redact(&sb, &repo, &out));
    // A receipt file and an envelope file verify on their own too.
    let dir = repo.path().join(".loki/runs").join(rec.id.as_str());
    sandboxed(&sb, repo.path())
        .arg("verify")
        .arg(dir.join("receipt.json"))
        .assert()
        .code(0);
    sandboxed(&sb, repo.path())
        .arg("verify")
        .arg(dir.join("receipt.dsse.json"))
        .assert()
        .code(0);
}

#[test]
fn no_runs_is_66_and_a_bad_target_is_2() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sandboxed(&sb, repo.path())
        .arg("verify")
        .assert()
        .code(66)
        .stdout(predicate::str::contains("NO_RUNS"));
    sandboxed(&sb, repo.path())
        .args(["verify", "nope.json"])
        .assert()
        .code(2);
    sandboxed(&sb, repo.path())
        .args(["verify", "run_20200101_000000_abcd"])
        .assert()
        .code(2);
}

#[test]
fn a_changed_byte_is_tampered_and_a_failed_run_is_4() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let rec = sealed_run(&sb, &repo, true);
    let receipt = repo
        .path()
        .join(".loki/runs")
        .join(rec.id.as_str())
        .join("receipt.json");
    let text = std::fs::read_to_string(&receipt).unwrap();
    std::fs::write(
        &receipt,
        text.replacen("\"executed\": 3", "\"executed\": 4", 1),
    )
    .unwrap();
    sandboxed(&sb, repo.path())
        .arg("verify")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("TAMPERED"));

    let repo = GitRepo::new();
    sealed_run(&sb, &repo, false);
    sandboxed(&sb, repo.path()).arg("verify").assert().code(4);
    // --export-dsse refuses a run that is not VERIFIED: non-zero and nothing on stdout.
    sandboxed(&sb, repo.path())
        .args(["verify", "--export-dsse", "latest"])
        .assert()
        .code(4)
        .stdout("");
}

#[test]
fn export_dsse_prints_the_envelope_of_a_verified_run() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sealed_run(&sb, &repo, true);
    let out = sandboxed(&sb, repo.path())
        .args(["verify", "--export-dsse", "latest"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let env: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(env["payloadType"], "application/vnd.in-toto+json");
}

#[test]
fn a_foreign_pubkey_is_unchecked_and_a_bad_one_is_2() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sealed_run(&sb, &repo, true);
    let other = Sandbox::new();
    let pem = sandboxed(&other, other.home())
        .args(["keys", "export"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let pub_file = repo.path().join("other.pub.pem");
    std::fs::write(&pub_file, pem).unwrap();
    sandboxed(&sb, repo.path())
        .arg("verify")
        .arg("--pubkey")
        .arg(&pub_file)
        .assert()
        .code(2)
        .stdout(predicate::str::contains("UNCHECKED"));
    std::fs::write(
        &pub_file,
        "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n",
    )
    .unwrap();
    sandboxed(&sb, repo.path())
        .arg("verify")
        .arg("--pubkey")
        .arg(&pub_file)
        .assert()
        .code(2);
    sandboxed(&sb, repo.path())
        .args(["verify", "--pubkey"])
        .arg(sb.home().join("gone/key.pem"))
        .assert()
        .code(2);
}

#[test]
fn rotate_keeps_old_receipts_verifiable() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sealed_run(&sb, &repo, true);
    let before = sandboxed(&sb, repo.path())
        .args(["keys", "show", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let before: serde_json::Value = serde_json::from_slice(&before).unwrap();
    sandboxed(&sb, repo.path())
        .args(["keys", "rotate"])
        .assert()
        .success()
        .stdout(predicate::str::contains("retired"));
    let after = sandboxed(&sb, repo.path())
        .args(["keys", "show", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let after: serde_json::Value = serde_json::from_slice(&after).unwrap();
    assert_ne!(before["keyid"], after["keyid"]);
    sandboxed(&sb, repo.path())
        .arg("verify")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("retired"));
}

fn openssl(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl is installed (.ci/run installs it)")
}

#[test]
fn openssl_verifies_our_signature_with_the_exported_key() {
    if !loki_test_support::require_tool("openssl", &["version"]) {
        return;
    }
    use base64::Engine as _;
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let rec = sealed_run(&sb, &repo, true);
    let work = tempfile::tempdir().unwrap();
    let pem = sandboxed(&sb, repo.path())
        .args(["keys", "export"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    std::fs::write(work.path().join("pub.pem"), &pem).unwrap();
    let env_text = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(rec.id.as_str())
            .join("receipt.dsse.json"),
    )
    .unwrap();
    let env: serde_json::Value = serde_json::from_str(&env_text).unwrap();
    let b64 = base64::engine::general_purpose::STANDARD;
    let body = b64.decode(env["payload"].as_str().unwrap()).unwrap();
    let sig = b64
        .decode(env["signatures"][0]["sig"].as_str().unwrap())
        .unwrap();
    std::fs::write(
        work.path().join("pae.bin"),
        loki_receipt::dsse::pae(env["payloadType"].as_str().unwrap(), &body),
    )
    .unwrap();
    std::fs::write(work.path().join("sig.bin"), sig).unwrap();
    let out = openssl(
        work.path(),
        &[
            "pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", "pub.pem", "-in", "pae.bin",
            "-sigfile", "sig.bin",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Signature Verified Successfully"));
    // Our private key file is one OpenSSL 3.0 reads.
    let key = sb.loki_home().join("keys/receipt-ed25519.pem");
    let out = openssl(
        work.path(),
        &["pkey", "-in", key.to_str().unwrap(), "-noout"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_openssl_key_works_as_the_signing_key_file() {
    if !loki_test_support::require_tool("openssl", &["version"]) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let work = tempfile::tempdir().unwrap();
    let out = openssl(
        work.path(),
        &["genpkey", "-algorithm", "ed25519", "-out", "k.pem"],
    );
    assert!(out.status.success());
    let key = work.path().join("k.pem");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let ours = sandboxed(&sb, sb.home())
        .env("LOKI_RECEIPT_SIGNING_KEY_FILE", &key)
        .args(["keys", "export"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let theirs = openssl(work.path(), &["pkey", "-in", "k.pem", "-pubout"]);
    assert_eq!(
        String::from_utf8_lossy(&ours),
        String::from_utf8_lossy(&theirs.stdout)
    );
    // A world-readable key file is refused with the fix.
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    sandboxed(&sb, sb.home())
        .env("LOKI_RECEIPT_SIGNING_KEY_FILE", &key)
        .args(["keys", "show"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("chmod 600"));
}
