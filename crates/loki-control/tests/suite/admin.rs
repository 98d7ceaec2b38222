//! The one-shot calls of `loki serve trust|prune` and `loki answer` on a real SQLite store.

use loki_control::admin;
use loki_control::store::DbSpec;

use super::fixture::Key;

#[test]
fn a_trusted_key_is_named_by_its_id_and_an_empty_store_prunes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = DbSpec::Sqlite(dir.path().join("control.db"));
    let key = Key::new();
    let keyid = admin::trust(&spec, &key.pem).unwrap();
    assert_eq!(keyid, key.signer.keyid());
    // Trusting it again is no error: the store keeps one entry per key.
    assert_eq!(admin::trust(&spec, &key.pem).unwrap(), keyid);
    assert!(admin::trust(&spec, "not a key").is_err());
    let pruned = admin::prune(&spec, "/work/widget", "2030-01-01", true).unwrap();
    assert!(pruned.runs.is_empty());
}

#[test]
fn without_a_control_plane_there_is_no_posted_answer() {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    assert_eq!(
        admin::take_answer(Some(home.path()), repo.path(), "run_20261201_100000_aaaa"),
        None
    );
}
