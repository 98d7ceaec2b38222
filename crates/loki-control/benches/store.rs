//! The control plane under load, SQLite and PostgreSQL side by side: ingest throughput (events/s
//! through `POST /v1/ingest` from concurrent shippers, every line re-verified) and the runs list's
//! latency (`GET /v1/runs`, first page and a filtered page, p50 and p95) with 10,000 runs stored.
//! PostgreSQL is measured when `LOKI_TEST_POSTGRES_URL` names a server (`scripts/test` starts a
//! private one); the ratio column is PostgreSQL / SQLite. Prints figures; asserts nothing.
//!
//! Run: `LOKI_TEST_POSTGRES_URL=… cargo bench -p loki-control --bench store [-- RUNS]`
//! (RUNS instead of 10,000).

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark prints its figures and stops loudly on a broken fixture"
)]

use std::net::{IpAddr, Ipv4Addr};
use std::str::FromStr as _;
use std::time::{Duration, Instant};

use loki_control::server::{ServeOptions, Server};
use loki_control::ship::{Client, IngestBody, Target};
use loki_control::store::DbSpec;
use loki_events::payload::{
    BuildStarted, RunCompleted, RunStarted, StageCompleted, StageEnd, StageStarted,
};
use loki_events::{Event, EventWriter};
use loki_protocol::{Outcome, Stage};
use sqlx::ConnectOptions as _;

const SHIPPERS: usize = 8;

/// One finished run's events (start, a stage, the outcome), written by the real writer.
fn run_events(dir: &std::path::Path, run: &str, i: usize) -> Vec<Event> {
    let run_dir = dir.join(run);
    std::fs::create_dir_all(&run_dir).unwrap();
    let mut w = EventWriter::open(&run_dir, run).unwrap();
    let mut out = vec![
        w.record(&RunStarted::Build(BuildStarted {
            task_sha256: "0".repeat(64),
            task_source: "text".to_string(),
            provider: ["scripted", "anthropic", "openai"][i % 3].to_string(),
            cap_s: 600,
            max_cost_usd: None,
            base: "0".repeat(40),
            agent_revision: None,
        }))
        .unwrap(),
        w.record(&StageStarted {
            stage: Stage::Verify,
        })
        .unwrap(),
        w.record(&StageCompleted(StageEnd::new(
            Stage::Verify,
            "ok",
            Some(1.0),
        )))
        .unwrap(),
    ];
    let outcome = [
        Outcome::Verified,
        Outcome::Partial,
        Outcome::Failed,
        Outcome::Blocked,
    ][i % 4];
    out.push(w.record(&RunCompleted::new(outcome)).unwrap());
    drop(w);
    let _ = std::fs::remove_dir_all(&run_dir);
    out
}

async fn fresh_postgres(admin_url: &str) -> String {
    let name = format!("loki_bench_{}", std::process::id());
    let mut conn = sqlx::postgres::PgConnectOptions::from_str(admin_url)
        .unwrap()
        .connect()
        .await
        .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name}"
    )))
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap();
    let (base, query) = admin_url.split_once('?').unwrap_or((admin_url, ""));
    let (server, _) = base.rsplit_once('/').unwrap();
    if query.is_empty() {
        format!("{server}/{name}")
    } else {
        format!("{server}/{name}?{query}")
    }
}

struct Figures {
    events_per_s: f64,
    list_p50: Duration,
    list_p95: Duration,
    filtered_p95: Duration,
}

#[expect(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "an index into a few hundred samples"
)]
fn percentile(times: &mut [Duration], p: f64) -> Duration {
    times.sort();
    let i = ((times.len() as f64 - 1.0) * p).round() as usize;
    times[i]
}

#[expect(
    clippy::cast_precision_loss,
    reason = "a rate over at most millions of events"
)]
fn measure(db: DbSpec, runs: &[(String, Vec<Event>)]) -> Figures {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(Server::start(ServeOptions {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: Some(0),
            db,
            home: None,
            token: None,
            version: "bench".to_string(),
            key_env: loki_receipt::KeyEnv::default(),
        }))
        .unwrap();
    let url = format!("http://127.0.0.1:{}", server.addr().port());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = rt.spawn(async move {
        server
            .run(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });

    let started = Instant::now();
    let per = runs.len().div_ceil(SHIPPERS);
    let events: usize = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .chunks(per)
            .map(|chunk| {
                let url = url.clone();
                s.spawn(move || {
                    let client = Client::new(Target { url, token: None }).unwrap();
                    let mut n = 0;
                    for (k, (run, events)) in chunk.iter().enumerate() {
                        client
                            .ingest(&IngestBody {
                                machine: "bench".to_string(),
                                repo: format!("/src/repo-{}", k % 20),
                                run: run.clone(),
                                events: events.clone(),
                                redacted: Vec::new(),
                                receipt: None,
                            })
                            .unwrap();
                        n += events.len();
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let events_per_s = events as f64 / started.elapsed().as_secs_f64();

    let client = Client::new(Target { url, token: None }).unwrap();
    let time = |path: &str| {
        let mut t: Vec<Duration> = (0..200)
            .map(|_| {
                let s = Instant::now();
                client.get_json(path, Duration::from_secs(30)).unwrap();
                s.elapsed()
            })
            .collect();
        (percentile(&mut t, 0.5), percentile(&mut t, 0.95))
    };
    let (list_p50, list_p95) = time("/v1/runs?limit=50");
    let (_, filtered_p95) = time("/v1/runs?limit=50&verdict=FAILED&repo=/src/repo-3");
    stop.send(()).expect("the server is running");
    rt.block_on(task).unwrap();
    Figures {
        events_per_s,
        list_p50,
        list_p95,
        filtered_p95,
    }
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let tmp = tempfile::tempdir().unwrap();
    let runs: Vec<(String, Vec<Event>)> = (0..n)
        .map(|i| {
            let run = format!("run_20261203_{:06}_{:04x}", i / 65_536, i % 65_536);
            let events = run_events(tmp.path(), &run, i);
            (run, events)
        })
        .collect();
    let sqlite = measure(DbSpec::Sqlite(tmp.path().join("control.db")), &runs);
    let pg = loki_core::env::TEST_POSTGRES_URL.get().map(|admin| {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let url = rt.block_on(fresh_postgres(&admin));
        measure(DbSpec::Postgres(url), &runs)
    });
    println!(
        "control plane, {n} runs ({} events), {SHIPPERS} shippers",
        n * 4
    );
    println!(
        "{:<26}{:>12}{:>12}{:>8}",
        "", "SQLite", "PostgreSQL", "ratio"
    );
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let row = |name: &str, a: f64, b: Option<f64>| match b {
        Some(b) => println!("{name:<26}{a:>12.1}{b:>12.1}{:>8.2}", b / a),
        None => println!("{name:<26}{a:>12.1}{:>12}{:>8}", "-", "-"),
    };
    let pg_of = |f: fn(&Figures) -> f64| pg.as_ref().map(f);
    row(
        "ingest (events/s)",
        sqlite.events_per_s,
        pg_of(|p| p.events_per_s),
    );
    row(
        "runs list p50 (ms)",
        ms(sqlite.list_p50),
        pg_of(|p| p.list_p50.as_secs_f64() * 1000.0),
    );
    row(
        "runs list p95 (ms)",
        ms(sqlite.list_p95),
        pg_of(|p| p.list_p95.as_secs_f64() * 1000.0),
    );
    row(
        "filtered list p95 (ms)",
        ms(sqlite.filtered_p95),
        pg_of(|p| p.filtered_p95.as_secs_f64() * 1000.0),
    );
}
