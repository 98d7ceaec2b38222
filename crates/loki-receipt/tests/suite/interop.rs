//! OpenSSL 3.0 interop: it verifies our signatures, reads our keys, and its keys sign for us.
//! Runs `/usr/bin/openssl` (`scripts/test` installs it); under CI a missing binary fails the test
//! rather than skip it, because interop is a promise of the issue.

#![expect(
    clippy::disallowed_methods,
    reason = "tests write the files openssl reads"
)]

use std::path::Path;
use std::process::{Command, Stdio};

use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::dsse::{Envelope, decode_base64, pae};
use loki_receipt::keys::{home_key_path, keyid_of, read_public_file};
use loki_receipt::{KeyEnv, KeySource, Signer};

use crate::support::*;

const OPENSSL: &str = "/usr/bin/openssl";

fn openssl(args: &[&str]) -> bool {
    Command::new(OPENSSL)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run {OPENSSL}: {e}"))
        .success()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn openssl_verifies_our_signature_over_the_pae() {
    if !loki_test_support::require_tool(OPENSSL, &["version"]) {
        return;
    }
    let fx = sealed_run();
    let dir = fx.tmp.path();
    let signer = Signer::load(None, &fx.env).unwrap().unwrap();
    let env: Envelope =
        serde_json::from_slice(&std::fs::read(fx.envelope_path()).unwrap()).unwrap();
    let body = decode_base64(&env.payload).unwrap();
    let (pub_pem, pae_bin, sig_bin, bad_bin) = (
        dir.join("pub.pem"),
        dir.join("pae.bin"),
        dir.join("sig.bin"),
        dir.join("bad.bin"),
    );
    write(&pub_pem, signer.export_public_pem().unwrap());
    write(&pae_bin, pae(&env.payload_type, &body));
    write(&sig_bin, decode_base64(&env.signatures[0].sig).unwrap());
    let verify = |msg: &Path| {
        openssl(&[
            "pkeyutl",
            "-verify",
            "-rawin",
            "-pubin",
            "-inkey",
            p(&pub_pem),
            "-in",
            p(msg),
            "-sigfile",
            p(&sig_bin),
        ])
    };
    assert!(verify(&pae_bin), "openssl did not verify our signature");
    let mut bad = pae(&env.payload_type, &body);
    bad[10] ^= 1;
    write(&bad_bin, bad);
    assert!(!verify(&bad_bin), "openssl verified a changed message");
}

#[test]
fn a_key_made_by_openssl_genpkey_works_as_the_key_file() {
    if !loki_test_support::require_tool(OPENSSL, &["version"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let key = tmp.path().join("openssl.pem");
    let pubkey = tmp.path().join("openssl.pub.pem");
    assert!(openssl(&[
        "genpkey",
        "-algorithm",
        "ed25519",
        "-out",
        p(&key)
    ]));
    assert!(openssl(&[
        "pkey",
        "-in",
        p(&key),
        "-pubout",
        "-out",
        p(&pubkey)
    ]));
    chmod(&key, 0o600);
    let env = KeyEnv {
        signing_key_file: Some(key.clone()),
        ..KeyEnv::default()
    };
    let fx = seal_with(verified_facts(RUN), env);
    let signer = Signer::load(None, &fx.env).unwrap().unwrap();
    assert_eq!(signer.info().source, KeySource::EnvFile);
    assert_eq!(
        signer.keyid(),
        keyid_of(&read_public_file(&pubkey).unwrap())
    );
    assert_verdict(&fx.verify(), VerifyVerdict::Verified);
}

#[test]
fn openssl_reads_our_key_file() {
    if !loki_test_support::require_tool(OPENSSL, &["version"]) {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let signer = Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap();
    let key = home_key_path(tmp.path());
    assert!(
        openssl(&["pkey", "-in", p(&key), "-noout"]),
        "openssl cannot read our PKCS#8 key"
    );
    let pubkey = tmp.path().join("derived.pub.pem");
    assert!(openssl(&[
        "pkey",
        "-in",
        p(&key),
        "-pubout",
        "-out",
        p(&pubkey)
    ]));
    assert_eq!(
        keyid_of(&read_public_file(&pubkey).unwrap()),
        signer.keyid()
    );
}
