//! Shared fixtures: real sealed runs (a real event log, a receipt signed with a real key) and the
//! two store backends every store test runs on.

use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use loki_control::store::{Batch, DbSpec, Store};
use loki_core::run::RunKind;
use loki_events::payload::{
    BuildStarted, CheckResult, Cost, RunCompleted, RunStarted, SessionStarted, StageCompleted,
    StageEnd, StageStarted,
};
use loki_events::{Event, EventWriter, read_events};
use loki_protocol::{CheckStatus, Outcome, Stage};
use loki_receipt::schema::{Check, WallFile, sha256_hex};
use loki_receipt::{KeyEnv, ReceiptBuilder, ReceiptFacts, Signer};
use serde_json::Value;
use sqlx::ConnectOptions as _;

/// A signing key in its own temporary home.
pub struct Key {
    pub signer: Signer,
    pub pem: String,
    _home: tempfile::TempDir,
}

impl Key {
    pub fn new() -> Key {
        let home = tempfile::tempdir().unwrap();
        let signer = Signer::load_or_create(home.path(), &KeyEnv::default()).unwrap();
        let pem = signer.export_public_pem().unwrap();
        Key {
            signer,
            pem,
            _home: home,
        }
    }

    /// The key runs of `home` sign with (created there, as a run creates it).
    pub fn of_home(home: &Path) -> Key {
        let signer = Signer::load_or_create(home, &KeyEnv::default()).unwrap();
        let pem = signer.export_public_pem().unwrap();
        Key {
            signer,
            pem,
            _home: tempfile::tempdir().unwrap(),
        }
    }
}

/// How a fixture run ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Sealed (signed receipt), then `run.completed`.
    Sealed,
    /// `run.completed` BLOCKED with a question, no receipt.
    Blocked,
    /// A seal stop the hook refused: `run.completed` FAILED with the hook's `blocked` flag and a
    /// reason, no receipt. Not a BLOCKED run: nobody is asked anything.
    SealRefused,
}

/// A run recorded for real in `<repo>/.loki/runs/<run>/`.
#[derive(Clone)]
pub struct Run {
    pub dir: PathBuf,
    pub run: String,
    pub events: Vec<Event>,
    pub envelope: Option<Value>,
}

impl Run {
    /// The batch a machine ships for this run (no redaction).
    pub fn batch(&self, machine: &str, repo: &str) -> Batch {
        Batch {
            machine: machine.to_string(),
            repo: repo.to_string(),
            run: self.run.clone(),
            events: self.events.clone(),
            redacted: Default::default(),
            receipt: self.envelope.clone(),
        }
    }
}

/// Records a build run: started, a session with provider and model, a priced cost, one check,
/// stages, then the ending. `note` goes into the plan stage's detail (to carry a secret).
pub fn record(repo: &Path, run: &str, key: &Key, ending: Ending, note: &str) -> Run {
    record_priced(repo, run, key, ending, note, Some(0.25))
}

/// [`record`] with the cost event's price (`None`: the provider's price is unknown).
pub fn record_priced(
    repo: &Path,
    run: &str,
    key: &Key,
    ending: Ending,
    note: &str,
    usd: Option<f64>,
) -> Run {
    let dir = repo.join(".loki").join("runs").join(run);
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = EventWriter::open(&dir, run).unwrap();
    w.record(&RunStarted::Build(BuildStarted {
        task_sha256: sha256_hex(b"add a flag"),
        task_source: "text".to_string(),
        provider: "scripted".to_string(),
        cap_s: 600,
        max_cost_usd: None,
        base: "0".repeat(40),
        agent_revision: None,
    }))
    .unwrap();
    w.record(&SessionStarted {
        provider: Some("scripted".to_string()),
        model: Some("scripted-1".to_string()),
        ..SessionStarted::default()
    })
    .unwrap();
    w.record(&StageStarted { stage: Stage::Plan }).unwrap();
    w.record(&StageCompleted(StageEnd::new(Stage::Plan, note, Some(1.5))))
        .unwrap();
    w.record(&Cost {
        usd,
        input_tokens: 1000,
        output_tokens: 200,
        ..Cost::default()
    })
    .unwrap();
    w.record(&CheckResult {
        run: loki_protocol::CheckRun {
            name: "impacted tests".to_string(),
            kind: loki_protocol::CheckOrigin::Runner(loki_protocol::CheckKind::Cargo),
            cmd: "cargo test".to_string(),
            result: CheckStatus::Pass,
            executed: 3,
            passed: 3,
            failed: 0,
            skipped: 0,
        },
        duration_s: 0.5,
        log_sha256: sha256_hex(b"log"),
        failing_ids: Vec::new(),
        stage: None,
        role: None,
        reason: None,
        exit_code: None,
        new_findings: None,
    })
    .unwrap();
    let mut envelope = None;
    match ending {
        Ending::Sealed => {
            let sealed = ReceiptBuilder::new(facts(run))
                .seal(&dir, &mut w, &key.signer)
                .unwrap();
            w.record(
                &RunCompleted::new(sealed.receipt.verdict)
                    .exit_code(0)
                    .receipt(sealed.receipt.receipt_sha256.clone()),
            )
            .unwrap();
            envelope = Some(serde_json::to_value(&sealed.envelope).unwrap());
        }
        Ending::SealRefused => {
            w.record(&RunCompleted {
                reason: Some("tests/test_calc.py::test_add newly fails".to_string()),
                blocked: true,
                ..RunCompleted::new(Outcome::Failed).exit_code(1)
            })
            .unwrap();
        }
        Ending::Blocked => {
            w.record(&RunCompleted {
                reason: Some("which database should the flag configure?".to_string()),
                blocked: true,
                ..RunCompleted::new(Outcome::Blocked)
            })
            .unwrap();
        }
    }
    drop(w);
    let (events, _) = read_events(&dir.join("events.jsonl"), Some(run)).unwrap();
    Run {
        dir,
        run: run.to_string(),
        events,
        envelope,
    }
}

/// Records the deep verify of the sealed build run `build` as `loki deep` does: its own log and
/// receipt in `<run>/<dir_name>/`, whose events and receipt carry the build's run id.
pub fn record_deep(build: &Run, key: &Key, dir_name: &str) -> Run {
    let dir = build.dir.join(dir_name);
    std::fs::create_dir_all(&dir).unwrap();
    let mut w = EventWriter::open(&dir, &build.run).unwrap();
    w.record(&RunStarted::Deep {
        main_receipt: "3".repeat(64),
        head: "1".repeat(40),
    })
    .unwrap();
    let mut f = facts(&build.run);
    f.kind = RunKind::Deep;
    let sealed = ReceiptBuilder::new(f)
        .seal(&dir, &mut w, &key.signer)
        .unwrap();
    w.record(
        &RunCompleted::new(sealed.receipt.verdict)
            .exit_code(0)
            .receipt(sealed.receipt.receipt_sha256.clone()),
    )
    .unwrap();
    drop(w);
    let (events, _) = read_events(&dir.join("events.jsonl"), Some(&build.run)).unwrap();
    Run {
        dir,
        run: build.run.clone(),
        events,
        envelope: Some(serde_json::to_value(&sealed.envelope).unwrap()),
    }
}

/// The facts of a build that verifies.
fn facts(run: &str) -> ReceiptFacts {
    let mut f = ReceiptFacts::new(run, RunKind::Build);
    f.tool.version = "0.1.0".to_string();
    f.task.source = "text".to_string();
    f.task.sha256 = sha256_hex(b"add a flag");
    f.repo.base_sha = "0".repeat(40);
    f.repo.head_sha = "1".repeat(40);
    f.repo.tree = "2".repeat(40);
    f.diff.sha256 = sha256_hex(b"diff");
    f.diff.files = 1;
    f.diff.insertions = 3;
    f.wall.files = vec![WallFile {
        path: "tests/wall.rs".to_string(),
        sha256: sha256_hex(b"wall"),
    }];
    f.wall.base_run.fail = 1;
    f.wall.passed = true;
    f.checks = vec![Check {
        name: "impacted tests".to_string(),
        kind: loki_protocol::CheckRole::Tests,
        cmd: "cargo test".to_string(),
        result: CheckStatus::Pass,
        executed: 3,
        passed: 3,
        failed: 0,
        skipped: 0,
        duration_s: 0.5,
        log_sha256: sha256_hex(b"log"),
    }];
    f.cost.usd = Some(0.25);
    f.cost.input_tokens = 1000;
    f.cost.output_tokens = 200;
    f.cost.measured_sessions = 1;
    f.cost.total_sessions = 1;
    f.provider = "scripted".to_string();
    f.model = "scripted-1".to_string();
    f
}

/// One store under test and what keeps it alive.
pub struct Backend {
    pub name: &'static str,
    pub store: Store,
    pub spec: DbSpec,
    _dir: tempfile::TempDir,
}

/// A fresh SQLite store and, when a PostgreSQL server is available, a fresh database on it: every
/// store test runs its scenario on each.
pub async fn backends() -> Vec<Backend> {
    let dir = tempfile::tempdir().unwrap();
    let spec = DbSpec::Sqlite(dir.path().join("control.db"));
    let mut out = vec![Backend {
        name: "sqlite",
        store: Store::open(&spec).await.unwrap(),
        spec,
        _dir: dir,
    }];
    if let Some(url) = loki_test_support::require_postgres() {
        let spec = DbSpec::Postgres(fresh_database(&url).await);
        out.push(Backend {
            name: "postgres",
            store: Store::open(&spec).await.unwrap(),
            spec,
            _dir: tempfile::tempdir().unwrap(),
        });
    }
    out
}

/// Creates a database of its own for one test (tests run in parallel) and returns its URL.
pub async fn fresh_database(admin_url: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let name = format!(
        "loki_test_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    let opts = sqlx::postgres::PgConnectOptions::from_str(admin_url).unwrap();
    let mut conn = opts.connect().await.unwrap();
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .unwrap();
    // The same URL with the new database as its path.
    let (base, query) = admin_url.split_once('?').unwrap_or((admin_url, ""));
    let (server, _) = base.rsplit_once('/').unwrap();
    if query.is_empty() {
        format!("{server}/{name}")
    } else {
        format!("{server}/{name}?{query}")
    }
}
