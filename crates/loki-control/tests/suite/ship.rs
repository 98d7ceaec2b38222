//! The client side: redaction, batch validation, the background shipper and backfill, against a
//! real server.

use std::time::Duration;

use loki_control::ship::{Client, IngestBody, Redactor, Shipper, Target, backfill};
use loki_control::store::source_id;
use loki_events::EventSink as _;
use serde_json::{Value, json};

use super::fixture::{Ending, Key, record};
use super::server::{Running, repo_name};

#[test]
fn the_redactor_blanks_secret_values_url_passwords_and_known_tokens() {
    let r = Redactor::from_vars([
        (
            "OPENAI_API_KEY".to_string(),
            "sk-live-abcdefgh12345678".to_string(),
        ),
        (
            "DATABASE_URL".to_string(),
            "postgres://app:pa55word-long@db/x".to_string(),
        ),
        ("SHORT_TOKEN".to_string(), "abc".to_string()),
        ("EDITOR".to_string(), "vim-with-long-name".to_string()),
    ]);
    assert_eq!(
        r.text("key sk-live-abcdefgh12345678 and pa55word-long")
            .as_deref(),
        Some("key [REDACTED] and [REDACTED]")
    );
    // A GitHub token nobody put in the environment.
    assert_eq!(
        r.text("push with ghp_0123456789abcdefABCDEF please")
            .as_deref(),
        Some("push with [REDACTED] please")
    );
    // Short values and ordinary words stay.
    assert_eq!(r.text("abc vim-with-long-name ghp_short"), None);
}

#[test]
fn a_batch_that_does_not_hold_together_is_refused() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_120000_aaaa",
        &key,
        Ending::Sealed,
        "x",
    );
    let base = IngestBody {
        machine: "m".into(),
        repo: "/r".into(),
        run: run.run.clone(),
        events: run.events.clone(),
        redacted: Vec::new(),
        receipt: None,
    };
    let mut dup = base.clone();
    dup.events.push(dup.events[0].clone());
    assert!(
        dup.into_batch()
            .unwrap_err()
            .to_string()
            .contains("one seq twice")
    );
    let mut red = base.clone();
    red.redacted = vec![999];
    assert!(
        red.into_batch()
            .unwrap_err()
            .to_string()
            .contains("seq 999")
    );
    let mut empty = base.clone();
    empty.events.clear();
    assert!(
        empty
            .into_batch()
            .unwrap_err()
            .to_string()
            .contains("no events")
    );
    let mut nameless = base.clone();
    nameless.machine.clear();
    assert!(nameless.into_batch().is_err());
    assert!(base.into_batch().is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shipper_sends_a_runs_events_as_written_with_its_receipt() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_120000_bbbb",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    let home = s.home.path().to_path_buf();
    let dir = run.dir.clone();
    let events = run.events.clone();
    // The shipper finds the server through instance.json in its home.
    let shipper = tokio::task::spawn_blocking(move || {
        let shipper = Shipper::start(Some(home));
        for e in &events {
            shipper.event(&dir, e);
        }
        shipper.flush(Duration::from_secs(2));
        shipper
    })
    .await
    .unwrap();
    assert_eq!(shipper.dropped(), 0);
    let src = source_id(&loki_control::ship::machine(), &repo_name(&run.dir));
    let v: Value = reqwest::get(format!("{}/v1/runs/{src}/{}", s.url, run.run))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["events"], run.events.len(), "{v}");
    assert_eq!(v["state"], "intact", "{v}");
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backfill_ships_every_run_of_a_repository_and_again_is_a_no_op() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let a = record(
        repo.path(),
        "run_20261201_120000_0001",
        &key,
        Ending::Sealed,
        "x",
    );
    let b = record(
        repo.path(),
        "run_20261201_120000_0002",
        &key,
        Ending::Blocked,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    let url = s.url.clone();
    let root = repo.path().to_path_buf();
    let (first, second) = tokio::task::spawn_blocking(move || {
        let client = Client::new(Target { url, token: None }).unwrap();
        (
            backfill(&client, &root).unwrap(),
            backfill(&client, &root).unwrap(),
        )
    })
    .await
    .unwrap();
    assert_eq!(first.runs, vec![a.run.clone(), b.run.clone()]);
    assert!(first.failed.is_empty(), "{:?}", first.failed);
    assert_eq!(first.events, (a.events.len() + b.events.len()) as u64);
    assert_eq!(second.runs.len(), 2);
    let list: Value = reqwest::get(format!("{}/v1/runs", s.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let states: Vec<(&str, &str)> = list["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["verdict"].as_str().unwrap(), r["state"].as_str().unwrap()))
        .collect();
    assert_eq!(states, [("BLOCKED", "unattested"), ("VERIFIED", "intact")]);
    assert_eq!(json!(list["runs"].as_array().unwrap().len()), json!(2));
    s.stop().await;
}

#[test]
fn batches_split_by_count_and_size_and_the_receipt_rides_on_the_last() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_120000_cccc",
        &key,
        Ending::Sealed,
        "x",
    );
    let many: Vec<_> = (0..2500u64)
        .map(|i| {
            let mut e = run.events[1].clone();
            e.seq = i;
            e
        })
        .collect();
    let r = Redactor::default();
    let b = loki_control::ship::batches("m", "/r", &run.run, &many, run.envelope.clone(), &r);
    let sizes: Vec<usize> = b.iter().map(|b| b.events.len()).collect();
    assert_eq!(sizes, [1000, 1000, 500]);
    assert!(b[0].receipt.is_none() && b[2].receipt.is_some());
    let big: Vec<_> = (0..3u64)
        .map(|i| {
            let mut e = run.events[1].clone();
            e.seq = i;
            e.data
                .insert("blob".into(), json!("x".repeat(3 * 1024 * 1024)));
            e
        })
        .collect();
    let b = loki_control::ship::batches("m", "/r", &run.run, &big, None, &r);
    assert_eq!(
        b.iter().map(|b| b.events.len()).collect::<Vec<_>>(),
        [1, 1, 1]
    );
    // Only a receipt: one batch without events.
    let b = loki_control::ship::batches("m", "/r", &run.run, &[], run.envelope.clone(), &r);
    assert_eq!((b.len(), b[0].events.len()), (1, 0));
}
