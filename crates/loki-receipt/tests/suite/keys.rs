//! Key creation, refusal of unsafe key files, overrides and rotation.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};

use loki_core::exit::{Classify as _, ExitClass};
use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::keys::{KEY_META_FILE, home_key_path, keys_dir};
use loki_receipt::{KeyEnv, KeySource, ReceiptError, Signer, SignerRole, rotate};

use crate::support::*;

fn mode(p: &std::path::Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn first_use_creates_a_private_key_and_reuses_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    assert!(
        Signer::load(Some(home), &KeyEnv::default())
            .unwrap()
            .is_none()
    );
    let first = Signer::load_or_create(home, &KeyEnv::default()).unwrap();
    let path = home_key_path(home);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&keys_dir(home)), 0o700);
    assert!(
        fs::read_to_string(&path)
            .unwrap()
            .starts_with("-----BEGIN PRIVATE KEY-----")
    );
    let info = first.info().clone();
    assert_eq!(info.source, KeySource::Home);
    assert_eq!(info.path.as_deref(), Some(path.as_path()));
    assert!(info.created.as_deref().unwrap().ends_with('Z'));
    assert!(keys_dir(home).join(KEY_META_FILE).is_file());
    let again = Signer::load_or_create(home, &KeyEnv::default()).unwrap();
    assert_eq!(again.info(), &info);
    assert_eq!(info.keyid.len(), 64);
    assert!(
        first
            .export_public_pem()
            .unwrap()
            .starts_with("-----BEGIN PUBLIC KEY-----")
    );
}

#[test]
fn a_world_or_group_readable_key_is_refused_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap();
    let path = home_key_path(tmp.path());
    for m in [0o644, 0o640, 0o604, 0o660] {
        chmod(&path, m);
        let err = Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap_err();
        assert!(matches!(err, ReceiptError::KeyTooOpen { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("chmod 600 {}", path.display())),
            "{msg}"
        );
        assert_eq!(err.exit_class(), ExitClass::Usage);
    }
    chmod(&path, 0o600);
    Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap();
    // The same rule for a key named by LOKI_RECEIPT_SIGNING_KEY_FILE.
    let file = tmp.path().join("mine.pem");
    write(&file, key_pem(3));
    chmod(&file, 0o644);
    let env = KeyEnv {
        signing_key_file: Some(file.clone()),
        ..KeyEnv::default()
    };
    let err = Signer::load_or_create(tmp.path(), &env).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("chmod 600 {}", file.display())),
        "{err}"
    );
}

#[test]
fn a_symlinked_key_file_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real.pem");
    write(&real, key_pem(4));
    chmod(&real, 0o600);
    let keys = keys_dir(tmp.path());
    fs::create_dir_all(&keys).unwrap();
    symlink(&real, home_key_path(tmp.path())).unwrap();
    let err = Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap_err();
    assert!(matches!(err, ReceiptError::KeySymlink { .. }), "{err}");
    assert!(err.to_string().contains("symlink"));
    // And through LOKI_RECEIPT_SIGNING_KEY_FILE.
    let link = tmp.path().join("link.pem");
    symlink(&real, &link).unwrap();
    let env = KeyEnv {
        signing_key_file: Some(link),
        ..KeyEnv::default()
    };
    assert!(matches!(
        Signer::load(None, &env).unwrap_err(),
        ReceiptError::KeySymlink { .. }
    ));
}

#[test]
fn env_overrides_win_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("k.pem");
    write(&file, key_pem(5));
    chmod(&file, 0o600);
    let both = KeyEnv {
        signing_key: Some(key_pem(6)),
        signing_key_file: Some(file.clone()),
        retired_pubkeys: None,
    };
    let s = Signer::load_or_create(tmp.path(), &both).unwrap();
    assert_eq!(s.info().source, KeySource::EnvPem);
    assert_eq!(s.info().path, None);
    let file_only = KeyEnv {
        signing_key: None,
        ..both
    };
    let s = Signer::load_or_create(tmp.path(), &file_only).unwrap();
    assert_eq!(s.info().source, KeySource::EnvFile);
    // Nothing was created in the home directory.
    assert!(!home_key_path(tmp.path()).exists());
    let bad = KeyEnv {
        signing_key: Some("not a key".to_string()),
        ..KeyEnv::default()
    };
    let err = Signer::load_or_create(tmp.path(), &bad).unwrap_err();
    assert!(
        err.to_string().contains("LOKI_RECEIPT_SIGNING_KEY"),
        "{err}"
    );
}

#[test]
fn rotation_keeps_old_receipts_verifiable() {
    // Sign with the home key, rotate, verify: the old key is now retired and still trusted.
    let fx = seal_with(verified_facts(RUN), KeyEnv::default());
    let before = Signer::load(Some(&fx.home), &KeyEnv::default())
        .unwrap()
        .unwrap();
    let rotation = rotate(&fx.home, &KeyEnv::default()).unwrap();
    assert_eq!(rotation.old.keyid, before.keyid());
    assert_ne!(rotation.new.keyid, rotation.old.keyid);
    assert!(rotation.retired_pubkey.is_file());
    assert_eq!(mode(&home_key_path(&fx.home)), 0o600);
    let now = Signer::load(Some(&fx.home), &KeyEnv::default())
        .unwrap()
        .unwrap();
    assert_eq!(now.keyid(), rotation.new.keyid);
    assert_eq!(now.info().created, rotation.new.created);
    let report = fx.verify();
    assert_verdict(&report, VerifyVerdict::Verified);
    assert_eq!(report.signer, Some(SignerRole::Retired));
    // Rotating while the environment chooses the key is refused.
    let err = rotate(&fx.home, &env_with_key(1)).unwrap_err();
    assert!(
        err.to_string().contains("LOKI_RECEIPT_SIGNING_KEY"),
        "{err}"
    );
    let empty = tempfile::tempdir().unwrap();
    assert!(matches!(
        rotate(empty.path(), &KeyEnv::default()).unwrap_err(),
        ReceiptError::NoKeyToRotate { .. }
    ));
}

#[test]
fn processes_creating_the_first_key_at_once_all_get_the_same_key() {
    for _ in 0..5 {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().to_path_buf();
        let start = std::sync::Barrier::new(8);
        let keyids: Vec<String> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        Signer::load_or_create(&home, &KeyEnv::default())
                            .unwrap()
                            .keyid()
                            .to_string()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let on_disk = Signer::load(Some(&home), &KeyEnv::default())
            .unwrap()
            .unwrap()
            .keyid()
            .to_string();
        assert!(
            keyids.iter().all(|k| *k == on_disk),
            "{keyids:?} vs {on_disk}"
        );
    }
}

#[test]
fn verifying_reads_the_public_half_so_an_open_private_key_still_verifies() {
    use loki_receipt::keys::home_pubkey_path;
    let tmp = tempfile::tempdir().unwrap();
    let signer = Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap();
    let pubkey = home_pubkey_path(tmp.path());
    assert_eq!(
        fs::read_to_string(&pubkey).unwrap(),
        signer.export_public_pem().unwrap()
    );
    chmod(&home_key_path(tmp.path()), 0o644);
    // Signing refuses the open key; verifying still knows which key is current.
    assert!(Signer::load_or_create(tmp.path(), &KeyEnv::default()).is_err());
    let trusted = loki_receipt::TrustedKeys::local(Some(tmp.path()), &KeyEnv::default()).unwrap();
    let current: Vec<&str> = trusted
        .all()
        .iter()
        .filter(|k| k.role == SignerRole::Current)
        .map(|k| k.keyid.as_str())
        .collect();
    assert_eq!(current, [signer.keyid()]);
    // A home made before the sidecar existed gets it at the next signing.
    chmod(&home_key_path(tmp.path()), 0o600);
    fs::remove_file(&pubkey).unwrap();
    Signer::load_or_create(tmp.path(), &KeyEnv::default()).unwrap();
    assert_eq!(
        fs::read_to_string(&pubkey).unwrap(),
        signer.export_public_pem().unwrap()
    );
}
