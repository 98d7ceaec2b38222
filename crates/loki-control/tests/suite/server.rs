//! The server over real HTTP on 127.0.0.1: routes, bad input and the security rules.

use std::net::{IpAddr, Ipv4Addr};
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use loki_control::server::{ServeOptions, Server, instance_path};
use loki_control::store::DbSpec;
use serde_json::{Value, json};

use super::fixture::{Ending, Key, Run, record};

/// A running server and what stops it.
pub struct Running {
    pub url: String,
    pub port: u16,
    pub home: tempfile::TempDir,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    pub async fn start(token: Option<&str>, bind: IpAddr) -> Running {
        Running::start_on(token, bind, None).await
    }

    /// [`Running::start`] on `db` (default: SQLite in its own home).
    pub async fn start_on(token: Option<&str>, bind: IpAddr, db: Option<DbSpec>) -> Running {
        let home = tempfile::tempdir().unwrap();
        let opts = ServeOptions {
            bind,
            port: Some(0),
            db: db
                .unwrap_or_else(|| DbSpec::Sqlite(home.path().join("control").join("control.db"))),
            home: Some(home.path().to_path_buf()),
            token: token.map(str::to_string),
            version: "test".to_string(),
            key_env: loki_receipt::KeyEnv::default(),
        };
        let server = Server::start(opts).await.unwrap();
        let port = server.addr().port();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .run(async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
        Running {
            url: format!("http://127.0.0.1:{port}"),
            port,
            home,
            stop: Some(tx),
            task: Some(task),
        }
    }

    pub async fn local() -> Running {
        Running::start(None, IpAddr::V4(Ipv4Addr::LOCALHOST)).await
    }

    pub async fn stop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            t.await.unwrap();
        }
    }

    /// Trusts a key through the store the server uses (as `loki serve trust` does).
    pub async fn trust(&self, pem: &str) {
        let store = loki_control::store::Store::open(&DbSpec::Sqlite(
            self.home.path().join("control").join("control.db"),
        ))
        .await
        .unwrap();
        store.trust(pem).await.unwrap();
        store.close().await;
    }
}

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let r = http()
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn get(url: &str) -> (u16, Value) {
    let r = http().get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

fn body(run: &Run, machine: &str) -> Value {
    json!({
        "machine": machine,
        "repo": "/work/widget",
        "run": run.run,
        "events": run.events,
        "receipt": run.envelope,
    })
}

fn source(machine: &str) -> String {
    loki_control::store::source_id(machine, "/work/widget")
}

#[tokio::test]
async fn health_ready_and_an_instance_file_that_goes_away_at_exit() {
    let mut s = Running::local().await;
    let (st, h) = get(&format!("{}/health", s.url)).await;
    assert_eq!(st, 200);
    assert_eq!(h["service"], "loki-control");
    assert_eq!(h["pid"], std::process::id());
    let (st, r) = get(&format!("{}/ready", s.url)).await;
    assert_eq!((st, &r["ready"]), (200, &Value::Bool(true)));
    let path = instance_path(s.home.path());
    let meta = std::fs::metadata(&path).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let inst: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(inst["url"], s.url);
    assert_eq!(inst["port"], s.port);
    assert_eq!(inst["pid"], std::process::id());
    assert!(inst["db"].as_str().unwrap().ends_with("control.db"));
    s.stop().await;
    assert!(
        !path.exists(),
        "instance.json is removed when the server stops"
    );
}

#[tokio::test]
async fn a_taken_default_port_falls_back_and_a_taken_explicit_port_is_an_error() {
    // Hold the default port (if something else holds it already, the point stands).
    let _held = std::net::TcpListener::bind(("127.0.0.1", loki_control::server::DEFAULT_PORT));
    let home = tempfile::tempdir().unwrap();
    let mut opts = ServeOptions::local(home.path(), "test");
    opts.home = None;
    // Without a home nobody creates the store's directory (`--db` never does).
    std::fs::create_dir_all(home.path().join("control")).unwrap();
    let server = Server::start(opts.clone()).await.unwrap();
    assert_ne!(server.addr().port(), loki_control::server::DEFAULT_PORT);
    let taken = server.addr().port();
    opts.port = Some(taken);
    // Another store: one store takes one server (its lock is tested apart).
    opts.db = DbSpec::Sqlite(home.path().join("other.db"));
    let err = Server::start(opts).await.unwrap_err().to_string();
    assert!(
        err.contains(&format!("cannot bind 127.0.0.1:{taken}")),
        "{err}"
    );
    assert!(err.contains("--port"), "{err}");
}

#[tokio::test]
async fn a_run_ingested_over_http_is_listed_shown_paged_and_streamed() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_110000_aaaa",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    let (st, out) = post(&format!("{}/v1/ingest", s.url), &body(&run, "laptop")).await;
    assert_eq!(st, 200, "{out}");
    assert_eq!(out["accepted"], run.events.len());
    assert_eq!(out["state"], "intact");
    let (st, list) = get(&format!(
        "{}/v1/runs?verdict=VERIFIED&repo=/work/widget",
        s.url
    ))
    .await;
    assert_eq!(st, 200);
    assert_eq!(list["runs"][0]["run"], run.run.as_str());
    assert_eq!(list["runs"][0]["state"], "intact");
    let src = source("laptop");
    let (st, one) = get(&format!("{}/v1/runs/{src}/{}", s.url, run.run)).await;
    assert_eq!(st, 200);
    assert_eq!(one["receipt"]["state"], "intact");
    assert!(one["not_proven"].is_array());
    let (st, ev) = get(&format!(
        "{}/v1/runs/{src}/{}/events?after_seq=3",
        s.url, run.run
    ))
    .await;
    assert_eq!(st, 200);
    let seqs: Vec<u64> = ev["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, (4..run.events.len() as u64).collect::<Vec<_>>());
    // The live stream sends every event (the run has ended, so it ends too).
    let text = http()
        .get(format!("{}/v1/runs/{src}/{}/stream", s.url, run.run))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        text.matches("event: event").count(),
        run.events.len(),
        "{text}"
    );
    assert!(text.contains("\"type\":\"run.completed\""), "{text}");
    let (st, stats) = get(&format!("{}/v1/stats?group=model", s.url)).await;
    assert_eq!(st, 200);
    assert_eq!(stats["rows"][0]["key"], "scripted-1");
    let (st, _) = get(&format!("{}/v1/costs?group=weekday", s.url)).await;
    assert_eq!(st, 400);
    s.stop().await;
}

#[tokio::test]
async fn bad_input_gets_a_clear_status_and_message() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_110000_bbbb",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    let ingest = format!("{}/v1/ingest", s.url);
    // Malformed JSON.
    let r = http()
        .post(&ingest)
        .header("content-type", "application/json")
        .body("{\"machine\":")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .contains("not a valid ingest batch"),
        "{v}"
    );
    // Not JSON at all.
    let r = http()
        .post(&ingest)
        .header("content-type", "text/plain")
        .body("hi")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 415);
    // Too large.
    let big = format!(
        "{{\"pad\":\"{}\"}}",
        "x".repeat(loki_control::server::MAX_INGEST_BYTES + 1)
    );
    let r = http()
        .post(&ingest)
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
    // Events of another run.
    let mut wrong = body(&run, "laptop");
    wrong["run"] = json!("run_20261201_110000_ffff");
    let (st, v) = post(&ingest, &wrong).await;
    assert_eq!(st, 400);
    assert!(v["error"].as_str().unwrap().contains("is of run"), "{v}");
    // An unknown run.
    let (st, v) = get(&format!("{}/v1/runs/{}/run_nope", s.url, source("laptop"))).await;
    assert_eq!(st, 404);
    assert!(
        v["error"].as_str().unwrap().contains("no run run_nope"),
        "{v}"
    );
    let (st, _) = get(&format!(
        "{}/v1/runs/{}/run_nope/events",
        s.url,
        source("laptop")
    ))
    .await;
    assert_eq!(st, 404);
    // Shipped twice: a no-op. Then rewritten: 409, and the run is a conflict.
    assert_eq!(post(&ingest, &body(&run, "laptop")).await.0, 200);
    let (st, v) = post(&ingest, &body(&run, "laptop")).await;
    assert_eq!(
        (st, &v["accepted"], &v["duplicate"]),
        (200, &json!(0), &json!(run.events.len()))
    );
    let mut rewritten = body(&run, "laptop");
    rewritten["events"][2]["hash"] = json!("f".repeat(64));
    let (st, v) = post(&ingest, &rewritten).await;
    assert_eq!(st, 409, "{v}");
    assert_eq!(v["result"]["state"], "conflict");
    let (_, one) = get(&format!(
        "{}/v1/runs/{}/{}",
        s.url,
        source("laptop"),
        run.run
    ))
    .await;
    assert_eq!(one["state"], "conflict");
    s.stop().await;
}

#[tokio::test]
async fn a_foreign_host_header_is_refused() {
    let mut s = Running::local().await;
    let r = http()
        .get(format!("{}/v1/runs", s.url))
        .header("host", format!("evil.example:{}", s.port))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"].as_str().unwrap().contains("DNS rebinding"),
        "{v}"
    );
    let r = http()
        .get(format!("{}/health", s.url))
        .header("host", format!("localhost:{}", s.port))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    s.stop().await;
}

#[tokio::test]
async fn a_token_is_required_beyond_loopback_and_checked_when_set() {
    let home = tempfile::tempdir().unwrap();
    let mut opts = ServeOptions::local(home.path(), "test");
    opts.bind = IpAddr::V4(Ipv4Addr::UNSPECIFIED);
    opts.port = Some(0);
    let err = Server::start(opts).await.unwrap_err().to_string();
    assert!(err.contains("without LOKI_CONTROL_TOKEN"), "{err}");

    let mut s = Running::start(Some("s3cret-token"), IpAddr::V4(Ipv4Addr::UNSPECIFIED)).await;
    let runs = format!("{}/v1/runs", s.url);
    assert_eq!(
        http().get(&runs).send().await.unwrap().status().as_u16(),
        401
    );
    let wrong = http()
        .get(&runs)
        .bearer_auth("s3cret-tokem")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let right = http()
        .get(&runs)
        .bearer_auth("s3cret-token")
        .send()
        .await
        .unwrap();
    assert_eq!(right.status().as_u16(), 200);
    assert_eq!(get(&format!("{}/health", s.url)).await.0, 200);
    // The web UI shows what /v1 does: it needs the token too.
    assert_eq!(get(&format!("{}/", s.url)).await.0, 401);
    // Actions are not routed beyond loopback.
    let r = http()
        .post(format!(
            "{}/v1/runs/{}/run_x/answer",
            s.url,
            source("laptop")
        ))
        .bearer_auth("s3cret-token")
        .header("content-type", "application/json")
        .body("{\"answer\":\"yes\"}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 404);
    s.stop().await;
}

#[tokio::test]
async fn an_answer_is_taken_only_for_a_blocked_run_and_only_as_json() {
    let key = Key::new();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let blocked = record(
        d1.path(),
        "run_20261201_110000_b10c",
        &key,
        Ending::Blocked,
        "x",
    );
    let done = record(
        d2.path(),
        "run_20261201_110000_d0e0",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    for r in [&blocked, &done] {
        assert_eq!(
            post(&format!("{}/v1/ingest", s.url), &body(r, "laptop"))
                .await
                .0,
            200
        );
    }
    let src = source("laptop");
    let answer = |run: &str| format!("{}/v1/runs/{src}/{run}/answer", s.url);
    let (st, v) = post(&answer(&done.run), &json!({"answer": "yes"})).await;
    assert_eq!(st, 409, "{v}");
    assert!(v["error"].as_str().unwrap().contains("not BLOCKED"), "{v}");
    assert_eq!(
        post(&answer("run_nope"), &json!({"answer": "yes"})).await.0,
        404
    );
    let (st, v) = post(&answer(&blocked.run), &json!({"answer": "x".repeat(4001)})).await;
    assert_eq!(st, 400);
    assert!(v["error"].as_str().unwrap().contains("4000"), "{v}");
    // A cross-site form post (not JSON) never reaches the handler.
    let r = http()
        .post(answer(&blocked.run))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("answer=yes")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 415);
    let (st, _) = post(&answer(&blocked.run), &json!({"answer": "use PostgreSQL"})).await;
    assert_eq!(st, 200);
    let (st, v) = post(&format!("{}/take", answer(&blocked.run)), &json!({})).await;
    assert_eq!((st, &v["answer"]), (200, &json!("use PostgreSQL")));
    let (_, v) = post(&format!("{}/take", answer(&blocked.run)), &json!({})).await;
    assert_eq!(v["answer"], Value::Null);
    s.stop().await;
}

/// A run directory's repository, as the shipper names it.
pub fn repo_name(dir: &Path) -> String {
    loki_control::ship::repo_of(dir).display().to_string()
}
