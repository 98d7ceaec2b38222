//! The pure checks of a shipped run: gaps, receipts of other runs, bindings not yet arrived,
//! broken and missing signatures.

use std::collections::BTreeSet;

use loki_control::check::{RunState, check_chain, check_receipt, decide};
use loki_control::project::{Inputs, project};
use loki_events::Event;
use loki_receipt::keys::{TrustedKey, parse_public_pem};
use loki_receipt::{SignerRole, TrustedKeys};
use serde_json::{Value, json};

use super::fixture::{Ending, Key, Run, record};

fn trusted(key: &Key) -> TrustedKeys {
    TrustedKeys::from_keys(vec![TrustedKey::new(
        parse_public_pem(&key.pem, "test").unwrap(),
        SignerRole::Pubkey,
        "test",
    )])
}

fn sealed() -> (Key, tempfile::TempDir, Run) {
    let key = Key::new();
    let dir = tempfile::tempdir().unwrap();
    let run = record(
        dir.path(),
        "run_20261201_140000_aaaa",
        &key,
        Ending::Sealed,
        "x",
    );
    (key, dir, run)
}

fn hash_at(events: &[Event]) -> impl Fn(u64) -> Option<String> + '_ {
    |n| {
        events
            .get(usize::try_from(n).unwrap())
            .map(|e| e.hash.clone())
    }
}

#[test]
fn a_gap_is_incomplete_not_tampered() {
    let (key, _d, run) = sealed();
    let mut events = run.events.clone();
    events.remove(2);
    let chain = check_chain(&events, |_| false);
    assert_eq!((chain.contiguous, chain.gap_at), (2, Some(2)));
    assert!(chain.valid());
    assert_eq!(decide(false, &chain, None), RunState::Unattested);
    let row = project(&Inputs {
        source_id: "s",
        run_id: &run.run,
        machine: "m",
        repo: "r",
        events: &events,
        redacted: &BTreeSet::new(),
        envelope: None,
        keys: &trusted(&key),
        conflict: false,
    });
    assert_eq!(row.state, RunState::Unattested);
    assert_eq!(
        row.state_detail,
        "no receipt yet, and line 2 has not arrived"
    );
}

#[test]
fn a_receipt_binding_lines_not_yet_arrived_is_unattested_until_they_come() {
    let (key, _d, run) = sealed();
    let env = run.envelope.clone().unwrap();
    let first = &run.events[..3];
    let c = check_receipt(&env, &run.run, &trusted(&key), hash_at(first));
    assert_eq!(c.state, RunState::Unattested, "{}", c.detail);
    assert!(c.detail.contains("fewer have arrived"), "{}", c.detail);
    let c = check_receipt(&env, &run.run, &trusted(&key), hash_at(&run.events));
    assert_eq!(c.state, RunState::Intact, "{}", c.detail);
}

#[test]
fn a_receipt_of_another_run_or_with_a_broken_signature_is_tampered() {
    let (key, _d, run) = sealed();
    let env = run.envelope.clone().unwrap();
    let c = check_receipt(
        &env,
        "run_20261201_140000_ffff",
        &trusted(&key),
        hash_at(&run.events),
    );
    assert_eq!(c.state, RunState::Tampered);
    assert!(c.detail.contains("is for run"), "{}", c.detail);

    let mut broken = env.clone();
    let sig = broken["signatures"][0]["sig"].as_str().unwrap().to_string();
    // Another first character: the same length, another signature.
    let flipped = match sig.strip_prefix('A') {
        Some(rest) => format!("B{rest}"),
        None => format!("A{}", &sig[1..]),
    };
    broken["signatures"][0]["sig"] = Value::String(flipped);
    let c = check_receipt(&broken, &run.run, &trusted(&key), hash_at(&run.events));
    assert_eq!(c.state, RunState::Tampered, "{}", c.detail);
    assert!(c.detail.contains("fails"), "{}", c.detail);

    // A log rewritten after the seal: the bound head no longer matches.
    let mut rewritten = run.events.clone();
    rewritten[5].hash = "e".repeat(64);
    let c = check_receipt(&env, &run.run, &trusted(&key), hash_at(&rewritten));
    assert_eq!(c.state, RunState::Tampered, "{}", c.detail);
    assert!(c.detail.contains("the log was rewritten"), "{}", c.detail);

    let c = check_receipt(
        &json!({"payload": 1}),
        &run.run,
        &trusted(&key),
        hash_at(&run.events),
    );
    assert_eq!(c.state, RunState::Tampered);
}

#[test]
fn an_unsigned_receipt_or_one_by_another_key_is_unattested() {
    let (key, _d, run) = sealed();
    let mut unsigned = run.envelope.clone().unwrap();
    unsigned["signatures"] = json!([]);
    let c = check_receipt(&unsigned, &run.run, &trusted(&key), hash_at(&run.events));
    assert_eq!(
        (c.state, c.detail.as_str()),
        (RunState::Unattested, "the receipt is not signed")
    );
    let other = Key::new();
    let c = check_receipt(
        &run.envelope.clone().unwrap(),
        &run.run,
        &trusted(&other),
        hash_at(&run.events),
    );
    assert_eq!(c.state, RunState::Unattested, "{}", c.detail);
    assert!(c.detail.contains("does not trust"), "{}", c.detail);
}
