//! The control plane tells the truth (issue 32, item 3), over real HTTP on 127.0.0.1: a deep
//! verify ships under its own identity, only BLOCKED runs take answers, the home's key is trusted
//! without a manual step, one server per home and store, bad parameters and unknown routes get
//! JSON errors, unmeasured cost is null.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use loki_control::ControlError;
use loki_control::server::{ServeOptions, Server, instance_path};
use loki_control::ship::{Shipper, machine};
use loki_control::store::{DbSpec, source_id};
use loki_events::EventSink as _;
use serde_json::{Value, json};

use super::fixture::{Ending, Key, Run, record, record_deep, record_priced};
use super::server::{Running, repo_name};

async fn get(url: &str) -> (u16, Option<String>, Value) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    let kind = r
        .headers()
        .get("content-type")
        .map(|h| h.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    (
        status,
        kind,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn ingest(s: &Running, run: &Run) -> (u16, Value) {
    post(
        &format!("{}/v1/ingest", s.url),
        &json!({
            "machine": "laptop",
            "repo": "/work/widget",
            "run": run.run,
            "events": run.events,
            "receipt": run.envelope,
        }),
    )
    .await
}

fn src() -> String {
    source_id("laptop", "/work/widget")
}

/// Ships `dirs`' events through the real background shipper, as the runs writing them would.
async fn ship_as_written(s: &Running, runs: Vec<Run>) {
    let home = s.home.path().to_path_buf();
    let shipper = tokio::task::spawn_blocking(move || {
        let shipper = Shipper::start(Some(home));
        for r in &runs {
            for e in &r.events {
                shipper.event(&r.dir, e);
            }
        }
        shipper.flush(Duration::from_secs(3));
        shipper
    })
    .await
    .unwrap();
    assert_eq!(shipper.dropped(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_verify_ships_under_its_own_identity_and_never_conflicts_with_its_build() {
    let repo = tempfile::tempdir().unwrap();
    let mut s = Running::local().await;
    let key = Key::of_home(s.home.path());
    let build = record(
        repo.path(),
        "run_20261201_140000_dee9",
        &key,
        Ending::Sealed,
        "x",
    );
    let first = record_deep(&build, &key, "deep.1764597600");
    // A second deep verify of the same run, a moment later (`loki deep` keeps the first).
    std::thread::sleep(Duration::from_millis(5));
    let second = record_deep(&build, &key, "deep");
    ship_as_written(&s, vec![build.clone(), first.clone(), second.clone()]).await;

    let src = source_id(&machine(), &repo_name(&build.dir));
    let (_, _, list) = get(&format!("{}/v1/runs", s.url)).await;
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{list:#}");
    for r in runs {
        assert_eq!(r["state"], "intact", "{r:#}");
    }
    let (_, _, one) = get(&format!("{}/v1/runs/{src}/{}", s.url, build.run)).await;
    assert_eq!(
        (&one["kind"], &one["state"]),
        (&json!("build"), &json!("intact"))
    );
    let deeps: Vec<&Value> = runs.iter().filter(|r| r["kind"] == "deep").collect();
    assert_eq!(deeps.len(), 2, "{list:#}");
    for d in deeps {
        let id = d["run"].as_str().unwrap();
        assert!(id.starts_with(&format!("{}.deep.", build.run)), "{id}");
        let (st, _, view) = get(&format!("{}/v1/runs/{src}/{id}", s.url)).await;
        assert_eq!(st, 200);
        assert_eq!(view["of_run"], build.run.as_str(), "{view:#}");
        assert_eq!(view["receipt"]["state"], "intact", "{view:#}");
    }
    s.stop().await;
}

/// `loki deep` seals in a staging directory and renames it to `deep/` the moment it is sealed:
/// the receipt must ship with the run's last event even when the worker sends it after the
/// directory moved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deep_verify_moved_into_place_once_sealed_still_ships_its_receipt() {
    let repo = tempfile::tempdir().unwrap();
    let mut s = Running::local().await;
    let key = Key::of_home(s.home.path());
    let build = record(
        repo.path(),
        "run_20261201_140000_5a9e",
        &key,
        Ending::Sealed,
        "x",
    );
    let deep = record_deep(&build, &key, "deep.staging-Ab12Cd");
    let home = s.home.path().to_path_buf();
    let dir = deep.dir.clone();
    let shipper = tokio::task::spawn_blocking(move || {
        let shipper = Shipper::start(Some(home));
        for e in &deep.events {
            shipper.event(&deep.dir, e);
        }
        // As `loki deep` does right after sealing, before the shipper thread gets to the run.
        std::fs::rename(&deep.dir, deep.dir.with_file_name("deep")).unwrap();
        shipper.flush(Duration::from_secs(3));
        shipper
    })
    .await
    .unwrap();
    assert_eq!(shipper.dropped(), 0);
    assert!(!dir.exists());

    let src = source_id(&machine(), &repo_name(&build.dir));
    let (_, _, list) = get(&format!("{}/v1/runs", s.url)).await;
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{list:#}");
    let id = runs[0]["run"].as_str().unwrap();
    assert!(id.starts_with(&format!("{}.deep.", build.run)), "{id}");
    let (_, _, view) = get(&format!("{}/v1/runs/{src}/{id}", s.url)).await;
    assert_eq!(view["receipt"]["state"], "intact", "{view:#}");
    s.stop().await;
}

#[tokio::test]
async fn a_failed_seal_stop_is_not_blocked_and_takes_no_answer() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let key = Key::new();
    let refused = record(
        d1.path(),
        "run_20261201_140000_5ea1",
        &key,
        Ending::SealRefused,
        "x",
    );
    let blocked = record(
        d2.path(),
        "run_20261201_140000_b10c",
        &key,
        Ending::Blocked,
        "x",
    );
    let mut s = Running::local().await;
    assert_eq!(ingest(&s, &refused).await.0, 200);
    assert_eq!(ingest(&s, &blocked).await.0, 200);
    let (_, _, one) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), refused.run)).await;
    assert_eq!(one["verdict"], "FAILED", "{one:#}");
    assert_eq!(one["blocked"], false, "{one:#}");
    assert_eq!(one["question"], Value::Null, "{one:#}");
    let (st, v) = post(
        &format!("{}/v1/runs/{}/{}/answer", s.url, src(), refused.run),
        &json!({"answer": "go on"}),
    )
    .await;
    assert_eq!(st, 409, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("FAILED, not BLOCKED"),
        "{v}"
    );
    let page = reqwest::get(format!("{}/runs/{}/{}", s.url, src(), refused.run))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!page.contains("id=\"answer\""), "{page}");
    // A BLOCKED run still asks.
    let (_, _, one) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), blocked.run)).await;
    assert_eq!(one["blocked"], true, "{one:#}");
    s.stop().await;
}

#[tokio::test]
async fn the_server_trusts_its_homes_key_and_only_that_one() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = Running::local().await;
    // The key the home's runs sign with: the server created it at start, as a run would.
    let home_key = Key::of_home(s.home.path());
    let other = Key::new();
    let mine = record(
        d1.path(),
        "run_20261201_140000_0a0a",
        &home_key,
        Ending::Sealed,
        "x",
    );
    let theirs = record(
        d2.path(),
        "run_20261201_140000_0b0b",
        &other,
        Ending::Sealed,
        "x",
    );
    assert_eq!(ingest(&s, &mine).await.0, 200);
    assert_eq!(ingest(&s, &theirs).await.0, 200);
    let (_, _, a) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), mine.run)).await;
    assert_eq!(a["state"], "intact", "{a:#}");
    let (_, _, b) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), theirs.run)).await;
    assert_eq!(b["state"], "unattested", "{b:#}");
    s.trust(&other.pem).await;
    let (_, _, b) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), theirs.run)).await;
    assert_eq!(b["state"], "intact", "{b:#}");
    s.stop().await;
}

#[tokio::test]
async fn a_second_server_of_the_same_home_or_store_refuses_with_the_firsts_address() {
    let mut s = Running::local().await;
    let inst = instance_path(s.home.path());
    let before = std::fs::read(&inst).unwrap();
    // Same home (and store).
    let again = ServeOptions::local(s.home.path(), "test");
    let err = Server::start(again).await.unwrap_err();
    assert!(matches!(err, ControlError::AlreadyServing { .. }), "{err}");
    assert!(err.to_string().contains(&s.url), "{err}");
    assert_eq!(
        std::fs::read(&inst).unwrap(),
        before,
        "instance.json untouched"
    );
    // Another home, the same SQLite store.
    let other = tempfile::tempdir().unwrap();
    let mut same_store = ServeOptions::local(other.path(), "test");
    same_store.db = DbSpec::Sqlite(s.home.path().join("control").join("control.db"));
    let err = Server::start(same_store).await.unwrap_err().to_string();
    assert!(err.contains(&s.url) && err.contains("control.db"), "{err}");
    assert!(!instance_path(other.path()).exists());
    // Once the first stops, the home is free again.
    s.stop().await;
    let mut opts = ServeOptions::local(s.home.path(), "test");
    opts.port = Some(0);
    let next = Server::start(opts).await.unwrap();
    drop(next);
}

#[tokio::test]
async fn bad_query_parameters_are_400_and_unknown_routes_404_in_json() {
    let mut s = Running::local().await;
    let run = record(
        tempfile::tempdir().unwrap().path(),
        "run_20261201_140000_9a9a",
        &Key::new(),
        Ending::Sealed,
        "x",
    );
    assert_eq!(ingest(&s, &run).await.0, 200);
    let events = format!("/v1/runs/{}/{}/events", src(), run.run);
    for (path, says) in [
        ("/v1/runs?since=garbage", "since=\"garbage\" is not a time"),
        (
            "/v1/runs?until=2026-13-45",
            "until=\"2026-13-45\" is not a time",
        ),
        ("/v1/runs?limit=abc", "limit"),
        ("/v1/runs?limit=0", "limit=0"),
        ("/v1/runs?state=fine", "state=\"fine\""),
        ("/v1/runs?verdcit=FAILED", "verdcit"),
        (&format!("{events}?after_seq=x") as &str, "after_seq"),
        ("/v1/stats?group=day&x=1", "unknown field `x`"),
    ] {
        let (st, kind, v) = get(&format!("{}{path}", s.url)).await;
        assert_eq!(st, 400, "{path}: {v}");
        assert_eq!(kind.as_deref(), Some("application/json"), "{path}");
        assert!(v["error"].as_str().unwrap().contains(says), "{path}: {v}");
    }
    // Good times and dates filter, in UTC.
    let (st, _, v) = get(&format!("{}/v1/runs?since=2000-01-01", s.url)).await;
    assert_eq!((st, v["runs"].as_array().unwrap().len()), (200, 1), "{v}");
    let (st, _, v) = get(&format!(
        "{}/v1/runs?since=2999-01-01T00:00:00%2B02:00",
        s.url
    ))
    .await;
    assert_eq!((st, v["runs"].as_array().unwrap().len()), (200, 0), "{v}");
    for path in ["/nope", "/v1/nope", "/v1/runs/a/b/c/d"] {
        let (st, kind, v) = get(&format!("{}{path}", s.url)).await;
        assert_eq!(st, 404, "{path}");
        assert_eq!(kind.as_deref(), Some("application/json"), "{path}");
        assert!(v["error"].as_str().unwrap().contains(path), "{path}: {v}");
    }
    s.stop().await;
}

#[tokio::test]
async fn a_cost_never_measured_is_null_in_the_stats_never_zero() {
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let key = Key::new();
    let priced = record_priced(
        d1.path(),
        "run_20261201_140000_c001",
        &key,
        Ending::Blocked,
        "x",
        Some(0.25),
    );
    let unpriced = record_priced(
        d2.path(),
        "run_20261201_140000_c002",
        &key,
        Ending::Blocked,
        "x",
        None,
    );
    let mut s = Running::start(None, IpAddr::V4(Ipv4Addr::LOCALHOST)).await;
    assert_eq!(ingest(&s, &unpriced).await.0, 200);
    let (_, _, stats) = get(&format!("{}/v1/stats?group=verdict", s.url)).await;
    assert_eq!(stats["rows"][0]["cost_usd"], Value::Null, "{stats:#}");
    assert_eq!(stats["rows"][0]["cost_unmeasured"], 1, "{stats:#}");
    // One priced run beside it does not make the group's total that run's price.
    assert_eq!(ingest(&s, &priced).await.0, 200);
    let (_, _, stats) = get(&format!("{}/v1/stats?group=day", s.url)).await;
    assert_eq!(stats["rows"][0]["runs"], 2, "{stats:#}");
    assert_eq!(stats["rows"][0]["cost_usd"], Value::Null, "{stats:#}");
    let (_, _, one) = get(&format!("{}/v1/runs/{}/{}", s.url, src(), unpriced.run)).await;
    assert_eq!(one["cost_usd"], Value::Null, "{one:#}");
    s.stop().await;
}
