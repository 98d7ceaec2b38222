//! Load: 50 shippers at once on loopback, 100,000 events in all (50 runs of 2,000, in batches of
//! 100, every batch sent twice as a retry would), on SQLite and, where a server is available,
//! PostgreSQL: every event stored exactly once, in order, every run intact, no request refused.

use std::net::{IpAddr, Ipv4Addr};

use loki_control::ship::{Client, IngestBody, Shipped, Target};
use loki_control::store::{Store, source_id};
use loki_events::{EventType, EventWriter};
use serde_json::json;

use super::fixture::backends;
use super::server::Running;

const SHIPPERS: usize = 50;
const EVENTS: usize = 2_000;
const BATCH: usize = 100;

/// A real event log of `EVENTS` events for `run` (a run start, then check results).
fn log(dir: &std::path::Path, run: &str) -> Vec<loki_events::Event> {
    let run_dir = dir.join(run);
    std::fs::create_dir_all(&run_dir).unwrap();
    let mut w = EventWriter::open(&run_dir, run).unwrap();
    let mut events = vec![
        w.append(
            EventType::RunStarted,
            None,
            json!({"kind": "build", "task_sha256": "0".repeat(64), "task_source": "text", "provider": "scripted", "cap_s": 600, "base": "0".repeat(40)}),
        )
        .unwrap(),
    ];
    for i in 1..EVENTS {
        events.push(
            w.append(
                EventType::CheckResult,
                None,
                json!({"name": format!("check {i}"), "kind": "tests", "cmd": "pytest", "result": "pass", "executed": i, "passed": i, "failed": 0, "skipped": 0}),
            )
            .unwrap(),
        );
    }
    events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_shippers_and_a_hundred_thousand_events_lose_and_double_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let runs: Vec<(String, Vec<loki_events::Event>)> = (0..SHIPPERS)
        .map(|i| {
            let run = format!("run_20261203_120000_{i:04x}");
            let events = log(tmp.path(), &run);
            (run, events)
        })
        .collect();
    for backend in backends().await {
        let mut server = Running::start_on(
            None,
            IpAddr::V4(Ipv4Addr::LOCALHOST),
            Some(backend.spec.clone()),
        )
        .await;
        let url = server.url.clone();
        let shipped = tokio::task::spawn_blocking({
            let runs = runs.clone();
            move || {
                let threads: Vec<_> = runs
                    .into_iter()
                    .enumerate()
                    .map(|(i, (run, events))| {
                        let url = url.clone();
                        std::thread::spawn(move || {
                            let client = Client::new(Target { url, token: None }).unwrap();
                            let mut sent = 0;
                            for chunk in events.chunks(BATCH) {
                                let body = IngestBody {
                                    machine: format!("machine-{}", i % 5),
                                    repo: format!("/src/repo-{i}"),
                                    run: run.clone(),
                                    events: chunk.to_vec(),
                                    redacted: Vec::new(),
                                    receipt: None,
                                };
                                // Sent twice: the second is a retry whose answer was lost.
                                for _ in 0..2 {
                                    match ingest_as_a_shipper(&client, &body) {
                                        Shipped::Ok(_) => {}
                                        other @ Shipped::Conflict(_) => panic!("{run}: {other:?}"),
                                    }
                                }
                                sent += chunk.len();
                            }
                            sent
                        })
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|t| t.join().unwrap())
                    .sum::<usize>()
            }
        })
        .await
        .unwrap();
        assert_eq!(shipped, SHIPPERS * EVENTS, "{}", backend.name);
        server.stop().await;

        let store = Store::open(&backend.spec).await.unwrap();
        for (i, (run, events)) in runs.iter().enumerate() {
            let source = source_id(&format!("machine-{}", i % 5), &format!("/src/repo-{i}"));
            let stored = store.events(&source, run, None, 10_000).await.unwrap();
            assert_eq!(stored.len(), EVENTS, "{} {run}", backend.name);
            for (want, got) in events.iter().zip(&stored) {
                assert_eq!(got.event.seq, want.seq, "{} {run}", backend.name);
                assert_eq!(got.event.hash, want.hash, "{} {run}", backend.name);
            }
        }
        store.close().await;
    }
}

/// Several `loki serve` instances behind one URL share one PostgreSQL and nothing else: a run whose
/// batches reach two instances in turn (as a load balancer would send them) is stored once, and
/// both instances list it and show it alike, intact with its receipt.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_on_one_postgresql_agree_on_a_run_shipped_through_both() {
    use super::fixture::{Ending, Key, record};
    let Some(admin) = loki_test_support::require_postgres() else {
        return;
    };
    let db = loki_control::store::DbSpec::Postgres(super::fixture::fresh_database(&admin).await);
    let key = Key::new();
    let store = Store::open(&db).await.unwrap();
    store.trust(&key.pem).await.unwrap();
    store.close().await;
    let local = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let mut a = Running::start_on(None, local, Some(db.clone())).await;
    let mut b = Running::start_on(None, local, Some(db.clone())).await;
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261203_130000_beef",
        &key,
        Ending::Sealed,
        "shipped through two instances",
    );
    let (urls, run_id, events, envelope) = (
        [a.url.clone(), b.url.clone()],
        run.run.clone(),
        run.events.clone(),
        run.envelope.clone(),
    );
    tokio::task::spawn_blocking(move || {
        let half = events.len() / 2;
        let parts = [&events[..half], &events[half..]];
        for (i, part) in parts.iter().enumerate() {
            let client = Client::new(Target {
                url: urls[i].clone(),
                token: None,
            })
            .unwrap();
            let body = IngestBody {
                machine: "m".into(),
                repo: "/r".into(),
                run: run_id.clone(),
                events: part.to_vec(),
                redacted: Vec::new(),
                receipt: (i == 1).then(|| envelope.clone()).flatten(),
            };
            assert!(matches!(client.ingest(&body).unwrap(), Shipped::Ok(_)));
        }
    })
    .await
    .unwrap();
    let mut seen = Vec::new();
    for url in [&a.url, &b.url] {
        let v: serde_json::Value = reqwest::get(format!("{url}/v1/runs"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let runs = v["runs"].as_array().unwrap().clone();
        assert_eq!(runs.len(), 1, "{v:#}");
        assert_eq!(runs[0]["state"], "intact", "{v:#}");
        assert_eq!(runs[0]["verdict"], "VERIFIED", "{v:#}");
        seen.push(runs[0].clone());
    }
    assert_eq!(seen[0], seen[1], "the two instances disagree");
    a.stop().await;
    b.stop().await;
}

/// One ingest as the shipper makes it: a request that times out on a loaded machine is sent
/// again (the shipper keeps the batch in its spool until an answer comes). Each retry is one
/// more copy the server must not store twice, which is what this test is about.
fn ingest_as_a_shipper(client: &Client, body: &IngestBody) -> Shipped {
    let mut tries = 0;
    loop {
        tries += 1;
        match client.ingest(body) {
            Err(loki_control::ControlError::Unreachable { .. }) if tries < 5 => {}
            answer => return answer.unwrap(),
        }
    }
}
