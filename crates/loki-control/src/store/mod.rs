//! The control plane's store: one schema and one set of SQL statements on SQLite and PostgreSQL.
//!
//! # Portability
//!
//! Every statement is written once, in the SQL both engines accept: `$1`-style parameters (SQLite
//! reads `$N` as the N-th argument), `INSERT … ON CONFLICT … DO UPDATE/NOTHING`, row-value
//! comparison for keyset pagination, `substr` for days. Values are TEXT, 64-bit integers (flags
//! are 0/1) and doubles; timestamps are RFC 3339 UTC text with milliseconds
//! (`2026-11-29T15:17:36.123Z`), which sort as they compare. Only the DDL differs (integer and
//! float type names, the audit id), in [`MIGRATIONS`]. [`on!`] runs one body against whichever pool
//! is open, so each statement is compiled against both drivers.
//!
//! # Migrations
//!
//! [`Store::open`] applies the migrations it has not applied yet, in order, each in a transaction
//! with its row in `schema_migrations`; on PostgreSQL under an advisory lock, so several servers
//! starting at once on one database migrate it once.
//!
//! # Tables
//!
//! - `sources(id, machine, repo, first_seen, last_seen)`: one machine + repository.
//! - `events(source_id, run_id, seq, ts, type, stage, data, prev, line_sha256, redacted,
//!   received_at)`, primary key (source, run, seq); `line_sha256` is the line's hash as written on
//!   the shipping machine (see [`crate::check`]).
//! - `runs`: the projection ([`crate::project`]), refolded after every ingest of the run. Two
//!   servers refolding one run at once cannot move it backwards: a fold of fewer events than the
//!   row has is not written, and a conflict, once recorded, stays.
//! - `receipts(source_id, run_id, envelope, received_at)`: the last DSSE envelope received.
//! - `trusted_keys(keyid, pem, added_at)`, `audit(id, ts, action, actor, detail)`,
//!   `answers(source_id, run_id, answer, created_at, picked_at)`.

use std::collections::BTreeSet;
use std::path::Path;
use std::str::FromStr as _;
use std::time::Duration;

use loki_events::Event;
use loki_protocol::Stage;
use serde::Serialize;
use serde_json::Value;
use sqlx::Row as _;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use crate::ControlError;
use crate::check::RunState;
use crate::project::{Inputs, RunRow, project};

/// How long SQLite waits for a lock another connection holds before failing a statement.
const SQLITE_BUSY: Duration = Duration::from_secs(10);
/// Connections per pool: enough for the API and a few shippers on two cores.
const POOL_SIZE: u32 = 8;
/// The PostgreSQL advisory lock the migrations run under (the default port, as a number).
const MIGRATION_LOCK: i64 = 47821;
/// The most runs one page of the runs list returns.
pub const MAX_PAGE: i64 = 500;
/// The longest answer to a BLOCKED run, in characters.
pub const MAX_ANSWER_CHARS: usize = 4000;

/// One migration: its version and its DDL for each engine.
struct Migration {
    version: i64,
    sql: &'static str,
}

/// The schema, in order. `{INT}` is a 64-bit integer, `{REAL}` a double, `{ID}` an
/// auto-increment primary key; everything else is written for both engines.
const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    sql: "
CREATE TABLE sources (
  id TEXT PRIMARY KEY, machine TEXT NOT NULL, repo TEXT NOT NULL,
  first_seen TEXT NOT NULL, last_seen TEXT NOT NULL
);
CREATE TABLE events (
  source_id TEXT NOT NULL, run_id TEXT NOT NULL, seq {INT} NOT NULL,
  ts TEXT NOT NULL, type TEXT NOT NULL, stage TEXT, data TEXT NOT NULL,
  prev TEXT NOT NULL, line_sha256 TEXT NOT NULL, redacted {INT} NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (source_id, run_id, seq)
);
CREATE INDEX events_type_ts ON events (type, ts);
CREATE TABLE runs (
  source_id TEXT NOT NULL, run_id TEXT NOT NULL, kind TEXT, repo TEXT NOT NULL,
  machine TEXT NOT NULL, task TEXT, provider TEXT, model TEXT, verdict TEXT NOT NULL,
  blocked {INT} NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, cost_usd {REAL},
  input_tokens {INT} NOT NULL, output_tokens {INT} NOT NULL, events {INT} NOT NULL,
  state TEXT NOT NULL, state_detail TEXT NOT NULL, conflict {INT} NOT NULL,
  receipt_sha256 TEXT, detail TEXT NOT NULL, updated_at TEXT NOT NULL,
  PRIMARY KEY (source_id, run_id)
);
CREATE INDEX runs_started ON runs (started_at, source_id, run_id);
CREATE INDEX runs_repo ON runs (repo, started_at);
CREATE TABLE receipts (
  source_id TEXT NOT NULL, run_id TEXT NOT NULL, envelope TEXT NOT NULL,
  received_at TEXT NOT NULL, PRIMARY KEY (source_id, run_id)
);
CREATE TABLE trusted_keys (keyid TEXT PRIMARY KEY, pem TEXT NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE audit (id {ID}, ts TEXT NOT NULL, action TEXT NOT NULL, actor TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE answers (
  source_id TEXT NOT NULL, run_id TEXT NOT NULL, answer TEXT NOT NULL,
  created_at TEXT NOT NULL, picked_at TEXT, PRIMARY KEY (source_id, run_id)
);
",
}, Migration {
    // Only the BLOCKED outcome takes an answer: rows folded before that rule (a seal stop the
    // hook refused was marked blocked) are corrected without a refold.
    version: 2,
    sql: "UPDATE runs SET blocked = 0 WHERE verdict <> 'BLOCKED'",
}];

/// Where the store lives: a SQLite file or a PostgreSQL URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbSpec {
    Sqlite(std::path::PathBuf),
    Postgres(String),
}

impl DbSpec {
    /// `postgres://…` / `postgresql://…` is PostgreSQL; anything else a SQLite file path.
    #[must_use]
    pub fn parse(s: &str) -> DbSpec {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            DbSpec::Postgres(s.to_string())
        } else {
            DbSpec::Sqlite(s.into())
        }
    }

    /// What to show: the path, or the URL without its password.
    #[must_use]
    pub fn display(&self) -> String {
        match self {
            DbSpec::Sqlite(p) => p.display().to_string(),
            DbSpec::Postgres(url) => match url.split_once("://") {
                Some((scheme, rest)) => match rest.rsplit_once('@') {
                    Some((user, host)) => {
                        let user = user.split(':').next().unwrap_or_default();
                        format!("{scheme}://{user}@{host}")
                    }
                    None => url.clone(),
                },
                None => url.clone(),
            },
        }
    }
}

#[derive(Debug, Clone)]
enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// Runs `$body` with `$p` bound to the open pool, whichever engine it is.
macro_rules! on {
    ($pool:expr, $p:ident => $body:expr) => {
        match $pool {
            Pool::Sqlite($p) => $body,
            Pool::Postgres($p) => $body,
        }
    };
}

mod views;

/// A bind value of a statement built at run time.
#[derive(Debug, Clone)]
enum Arg {
    Text(String),
    Int(i64),
}

/// The store (cheap to clone: a pool).
#[derive(Debug, Clone)]
pub struct Store {
    pool: Pool,
}

/// One event line as shipped.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredEvent {
    #[serde(flatten)]
    pub event: Event,
    pub redacted: bool,
}

/// A batch for one run from one source.
#[derive(Debug, Clone)]
pub struct Batch {
    pub machine: String,
    pub repo: String,
    pub run: String,
    pub events: Vec<Event>,
    pub redacted: BTreeSet<u64>,
    pub receipt: Option<Value>,
}

/// What an ingest did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IngestOutcome {
    pub source: String,
    pub run: String,
    pub accepted: u64,
    pub duplicate: u64,
    /// The first seq shipped again with another hash (the run is now `conflict`).
    pub conflict_seq: Option<u64>,
    pub state: RunState,
}

/// Filters of the runs list.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub verdict: Option<String>,
    pub repo: Option<String>,
    pub provider: Option<String>,
    pub state: Option<String>,
    /// Runs started at or after (RFC 3339 or a date).
    pub since: Option<String>,
    /// Runs started before.
    pub until: Option<String>,
    pub limit: i64,
    /// The `next` of the previous page.
    pub cursor: Option<String>,
}

/// One page of runs.
#[derive(Debug, Clone, Serialize)]
pub struct RunPage {
    pub runs: Vec<Value>,
    /// Pass as `cursor` for the next page; absent on the last.
    pub next: Option<String>,
}

/// A group of the stats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatRow {
    pub key: String,
    pub runs: i64,
    pub verified: i64,
    /// The group's total; `None` when any run's cost was not measured (never a partial sum).
    pub cost_usd: Option<f64>,
    /// Runs of the group whose cost was not measured.
    pub cost_unmeasured: i64,
}

/// Grouping of `/v1/stats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Day,
    Repo,
    Model,
    Verdict,
}

impl Group {
    /// Parses `day`, `repo`, `model`, `verdict`.
    #[must_use]
    pub fn parse(s: &str) -> Option<Group> {
        match s {
            "day" => Some(Group::Day),
            "repo" => Some(Group::Repo),
            "model" => Some(Group::Model),
            "verdict" => Some(Group::Verdict),
            _ => None,
        }
    }

    fn expr(self) -> &'static str {
        match self {
            Group::Day => "substr(started_at, 1, 10)",
            Group::Repo => "repo",
            Group::Model => "COALESCE(model, '')",
            Group::Verdict => "verdict",
        }
    }
}

/// What posting an answer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerOutcome {
    Stored,
    UnknownRun,
    NotBlocked(String),
}

/// What a prune removed (or would).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pruned {
    pub runs: Vec<String>,
    pub dry_run: bool,
}

/// The run a stored log's events name: its id up to the first `.` (a deep verify's log is stored
/// as `<run>.deep.<stamp>`, see [`crate::ship`]; run ids have no `.`).
#[must_use]
pub fn log_run(id: &str) -> &str {
    id.split('.').next().unwrap_or(id)
}

/// The id of a source: the first 16 hex digits of sha256(machine, NUL, repo).
#[must_use]
pub fn source_id(machine: &str, repo: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(machine.as_bytes());
    h.update([0]);
    h.update(repo.as_bytes());
    hex::encode(h.finalize())[..16].to_string()
}

impl Store {
    /// Opens (creating a SQLite file if needed, never its directory: a mistyped `--db` path
    /// must not leave directories behind) and migrates the store.
    pub async fn open(spec: &DbSpec) -> Result<Store, ControlError> {
        let pool = match spec {
            DbSpec::Sqlite(path) => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
                    && !dir.is_dir()
                {
                    return Err(ControlError::Usage(format!(
                        "cannot open the SQLite store {}: the directory {} does not exist; create it first, or leave --db out to use the default store",
                        path.display(),
                        dir.display()
                    )));
                }
                let opts = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .busy_timeout(SQLITE_BUSY);
                Pool::Sqlite(
                    SqlitePoolOptions::new()
                        .max_connections(POOL_SIZE)
                        .connect_with(opts)
                        .await
                        .map_err(ControlError::db(format!("open {}", path.display())))?,
                )
            }
            DbSpec::Postgres(url) => {
                let opts = sqlx::postgres::PgConnectOptions::from_str(url)
                    .map_err(ControlError::db("parse the PostgreSQL URL"))?;
                Pool::Postgres(
                    PgPoolOptions::new()
                        .max_connections(POOL_SIZE)
                        .acquire_timeout(Duration::from_secs(10))
                        .connect_with(opts)
                        .await
                        .map_err(ControlError::db(format!("connect to {}", spec.display())))?,
                )
            }
        };
        let store = Store { pool };
        store.migrate().await?;
        Ok(store)
    }

    /// Opens a SQLite file store (tests and the default).
    pub async fn open_sqlite(path: &Path) -> Result<Store, ControlError> {
        Store::open(&DbSpec::Sqlite(path.to_path_buf())).await
    }

    /// The engine's name.
    #[must_use]
    pub fn engine(&self) -> &'static str {
        match self.pool {
            Pool::Sqlite(_) => "sqlite",
            Pool::Postgres(_) => "postgres",
        }
    }

    fn begin_sql(&self) -> &'static str {
        match self.pool {
            // Take the write lock at BEGIN: a deferred transaction that reads, then writes, can
            // fail with SQLITE_BUSY at once instead of waiting (busy_timeout does not apply).
            Pool::Sqlite(_) => "BEGIN IMMEDIATE",
            Pool::Postgres(_) => "BEGIN",
        }
    }

    async fn migrate(&self) -> Result<(), ControlError> {
        let (int, real, id, lock) = match self.pool {
            Pool::Sqlite(_) => ("INTEGER", "REAL", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
            Pool::Postgres(_) => (
                "BIGINT",
                "DOUBLE PRECISION",
                "BIGSERIAL PRIMARY KEY",
                Some(format!("SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")),
            ),
        };
        let begin = self.begin_sql();
        let err = ControlError::db;
        on!(&self.pool, p => {
            let mut tx = p.begin_with(begin).await.map_err(err("begin the migration"))?;
            if let Some(lock) = &lock {
                sqlx::query(sqlx::AssertSqlSafe(lock.clone())).execute(&mut *tx).await.map_err(err("take the migration lock"))?;
            }
            sqlx::query("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL)")
                .execute(&mut *tx).await.map_err(err("create schema_migrations"))?;
            let done: Vec<i64> = sqlx::query("SELECT version FROM schema_migrations")
                .fetch_all(&mut *tx).await.map_err(err("read schema_migrations"))?
                .iter().map(|r| r.try_get::<i64, _>(0)).collect::<Result<_, _>>().map_err(err("read schema_migrations"))?;
            for m in MIGRATIONS.iter().filter(|m| !done.contains(&m.version)) {
                let ddl = m.sql.replace("{INT}", int).replace("{REAL}", real).replace("{ID}", id);
                for stmt in ddl.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                    sqlx::query(sqlx::AssertSqlSafe(stmt.to_string())).execute(&mut *tx).await
                        .map_err(ControlError::db(format!("apply migration {}", m.version)))?;
                }
                sqlx::query("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)")
                    .bind(m.version).bind(loki_core::time::now_rfc3339())
                    .execute(&mut *tx).await.map_err(err("record the migration"))?;
            }
            tx.commit().await.map_err(err("commit the migration"))?;
            Ok(())
        })
    }

    /// True when the database answers.
    pub async fn ping(&self) -> bool {
        on!(&self.pool, p => sqlx::query("SELECT 1").execute(p).await.is_ok())
    }

    /// The keys receipts are checked against.
    pub async fn trusted_keys(&self) -> Result<loki_receipt::TrustedKeys, ControlError> {
        let pems: Vec<(String, String)> = on!(&self.pool, p => {
            sqlx::query("SELECT keyid, pem FROM trusted_keys ORDER BY keyid")
                .fetch_all(p).await.map_err(ControlError::db("read the trusted keys"))?
                .iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect::<Result<_, sqlx::Error>>()
                .map_err(ControlError::db("read the trusted keys"))?
        });
        let mut keys = Vec::new();
        for (keyid, pem) in pems {
            let key = loki_receipt::keys::parse_public_pem(&pem, &format!("trusted key {keyid}"))?;
            keys.push(loki_receipt::keys::TrustedKey::new(
                key,
                loki_receipt::SignerRole::Pubkey,
                format!("loki serve trust ({keyid})"),
            ));
        }
        Ok(loki_receipt::TrustedKeys::from_keys(keys))
    }

    /// Trusts a public key (PEM) as `loki serve trust` does; returns its keyid.
    pub async fn trust(&self, pem: &str) -> Result<String, ControlError> {
        self.trust_by(pem, "cli").await
    }

    /// Trusts a public key (PEM) on behalf of `actor`; returns its keyid. A key new to the store
    /// is audited and the runs already stored are re-checked; a key already trusted changes
    /// nothing.
    pub async fn trust_by(&self, pem: &str, actor: &str) -> Result<String, ControlError> {
        let key = loki_receipt::keys::parse_public_pem(pem, "the public key")?;
        let keyid = loki_receipt::keys::keyid_of(&key);
        let now = loki_core::time::now_rfc3339();
        let added = on!(&self.pool, p => {
            sqlx::query("INSERT INTO trusted_keys (keyid, pem, added_at) VALUES ($1, $2, $3) ON CONFLICT (keyid) DO NOTHING")
                .bind(&keyid).bind(pem).bind(&now)
                .execute(p).await.map_err(ControlError::db("store the trusted key"))?
                .rows_affected()
        });
        if added == 0 {
            return Ok(keyid);
        }
        self.audit("trust", actor, &keyid).await?;
        for (source, run) in self.run_keys().await? {
            self.refold(&source, &run).await?;
        }
        Ok(keyid)
    }

    async fn run_keys(&self) -> Result<Vec<(String, String)>, ControlError> {
        on!(&self.pool, p => {
            sqlx::query("SELECT source_id, run_id FROM runs")
                .fetch_all(p).await.map_err(ControlError::db("list the runs"))?
                .iter().map(|r| Ok((r.try_get(0)?, r.try_get(1)?))).collect::<Result<_, sqlx::Error>>()
                .map_err(ControlError::db("list the runs"))
        })
    }

    /// Records an action in the audit table.
    pub async fn audit(&self, action: &str, actor: &str, detail: &str) -> Result<(), ControlError> {
        on!(&self.pool, p => {
            sqlx::query("INSERT INTO audit (ts, action, actor, detail) VALUES ($1, $2, $3, $4)")
                .bind(loki_core::time::now_rfc3339()).bind(action).bind(actor).bind(detail)
                .execute(p).await.map_err(ControlError::db("write the audit log"))?;
        });
        Ok(())
    }

    /// The audit log, newest first.
    pub async fn audit_log(&self, limit: i64) -> Result<Vec<Value>, ControlError> {
        on!(&self.pool, p => {
            sqlx::query("SELECT ts, action, actor, detail FROM audit ORDER BY id DESC LIMIT $1")
                .bind(limit).fetch_all(p).await.map_err(ControlError::db("read the audit log"))?
                .iter().map(|r| Ok(serde_json::json!({
                    "ts": r.try_get::<String, _>(0)?, "action": r.try_get::<String, _>(1)?,
                    "actor": r.try_get::<String, _>(2)?, "detail": r.try_get::<String, _>(3)?,
                }))).collect::<Result<_, sqlx::Error>>().map_err(ControlError::db("read the audit log"))
        })
    }

    /// Stores a batch: new lines are inserted, lines already stored with the same hash are
    /// duplicates (a no-op), a line stored with another hash is a conflict (the run is marked, the
    /// batch's other lines are kept). Then the run is refolded.
    pub async fn ingest(&self, batch: &Batch) -> Result<IngestOutcome, ControlError> {
        let source = source_id(&batch.machine, &batch.repo);
        let now = loki_core::time::now_rfc3339();
        let begin = self.begin_sql();
        let err = ControlError::db;
        let mut accepted = 0u64;
        let mut duplicate = 0u64;
        let mut conflict_seq = None;
        on!(&self.pool, p => {
            let mut tx = p.begin_with(begin).await.map_err(err("begin the ingest"))?;
            sqlx::query("INSERT INTO sources (id, machine, repo, first_seen, last_seen) VALUES ($1, $2, $3, $4, $4) ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen")
                .bind(&source).bind(&batch.machine).bind(&batch.repo).bind(&now)
                .execute(&mut *tx).await.map_err(err("store the source"))?;
            for e in &batch.events {
                let seq = i64::try_from(e.seq).map_err(|_| ControlError::Usage(format!("seq {} is too large", e.seq)))?;
                let data = serde_json::to_string(&e.data).unwrap_or_else(|_| "{}".to_string());
                let inserted = sqlx::query("INSERT INTO events (source_id, run_id, seq, ts, type, stage, data, prev, line_sha256, redacted, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (source_id, run_id, seq) DO NOTHING")
                    .bind(&source).bind(&batch.run).bind(seq).bind(&e.ts).bind(&e.kind).bind(e.stage.map(Stage::as_str))
                    .bind(&data).bind(&e.prev).bind(&e.hash).bind(i64::from(batch.redacted.contains(&e.seq))).bind(&now)
                    .execute(&mut *tx).await.map_err(err("store an event"))?
                    .rows_affected();
                if inserted == 1 {
                    accepted += 1;
                    continue;
                }
                let stored: String = sqlx::query("SELECT line_sha256 FROM events WHERE source_id = $1 AND run_id = $2 AND seq = $3")
                    .bind(&source).bind(&batch.run).bind(seq)
                    .fetch_one(&mut *tx).await.map_err(err("read a stored event"))?
                    .try_get(0).map_err(err("read a stored event"))?;
                if stored == e.hash {
                    duplicate += 1;
                } else if conflict_seq.is_none() {
                    conflict_seq = Some(e.seq);
                }
            }
            if let Some(env) = &batch.receipt {
                sqlx::query("INSERT INTO receipts (source_id, run_id, envelope, received_at) VALUES ($1, $2, $3, $4) ON CONFLICT (source_id, run_id) DO UPDATE SET envelope = excluded.envelope, received_at = excluded.received_at")
                    .bind(&source).bind(&batch.run).bind(env.to_string()).bind(&now)
                    .execute(&mut *tx).await.map_err(err("store the receipt"))?;
            }
            if let Some(seq) = conflict_seq {
                sqlx::query("INSERT INTO audit (ts, action, actor, detail) VALUES ($1, 'conflict', $2, $3)")
                    .bind(&now).bind(&source).bind(format!("run {} line {seq} shipped again with another hash", batch.run))
                    .execute(&mut *tx).await.map_err(err("write the audit log"))?;
            }
            tx.commit().await.map_err(err("commit the ingest"))?;
        });
        let row = self
            .refold_with(&source, &batch.run, conflict_seq.is_some())
            .await?;
        Ok(IngestOutcome {
            source,
            run: batch.run.clone(),
            accepted,
            duplicate,
            conflict_seq,
            state: row.map_or(RunState::Unattested, |r| r.state),
        })
    }

    /// Refolds a run's row from what is stored.
    pub async fn refold(&self, source: &str, run: &str) -> Result<Option<RunRow>, ControlError> {
        self.refold_with(source, run, false).await
    }

    async fn refold_with(
        &self,
        source: &str,
        run: &str,
        new_conflict: bool,
    ) -> Result<Option<RunRow>, ControlError> {
        let keys = self.trusted_keys().await?;
        let err = ControlError::db;
        let (machine, repo): (String, String) = match on!(&self.pool, p => {
            sqlx::query("SELECT machine, repo FROM sources WHERE id = $1").bind(source)
                .fetch_optional(p).await.map_err(err("read the source"))?
                .map(|r| Ok::<_, sqlx::Error>((r.try_get(0)?, r.try_get(1)?))).transpose().map_err(err("read the source"))?
        }) {
            Some(x) => x,
            None => return Ok(None),
        };
        let events = self.events(source, run, None, i64::MAX).await?;
        if events.is_empty() {
            return Ok(None);
        }
        let (envelope, was_conflict): (Option<String>, bool) = on!(&self.pool, p => {
            let env = sqlx::query("SELECT envelope FROM receipts WHERE source_id = $1 AND run_id = $2")
                .bind(source).bind(run).fetch_optional(p).await.map_err(err("read the receipt"))?
                .map(|r| r.try_get::<String, _>(0)).transpose().map_err(err("read the receipt"))?;
            let c = sqlx::query("SELECT conflict FROM runs WHERE source_id = $1 AND run_id = $2")
                .bind(source).bind(run).fetch_optional(p).await.map_err(err("read the run"))?
                .map(|r| r.try_get::<i64, _>(0)).transpose().map_err(err("read the run"))?;
            (env, c == Some(1))
        });
        let envelope: Option<Value> = envelope.and_then(|e| serde_json::from_str(&e).ok());
        let redacted: BTreeSet<u64> = events
            .iter()
            .filter(|e| e.redacted)
            .map(|e| e.event.seq)
            .collect();
        let plain: Vec<Event> = events.into_iter().map(|e| e.event).collect();
        let row = project(&Inputs {
            source_id: source,
            run_id: run,
            machine: &machine,
            repo: &repo,
            events: &plain,
            redacted: &redacted,
            envelope: envelope.as_ref(),
            keys: &keys,
            conflict: was_conflict || new_conflict,
        });
        self.upsert_run(&row).await?;
        Ok(Some(row))
    }

    async fn upsert_run(&self, r: &RunRow) -> Result<(), ControlError> {
        let now = loki_core::time::now_rfc3339();
        on!(&self.pool, p => {
            sqlx::query("INSERT INTO runs (source_id, run_id, kind, repo, machine, task, provider, model, verdict, blocked, started_at, ended_at, cost_usd, input_tokens, output_tokens, events, state, state_detail, conflict, receipt_sha256, detail, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) ON CONFLICT (source_id, run_id) DO UPDATE SET kind = excluded.kind, repo = excluded.repo, machine = excluded.machine, task = excluded.task, provider = excluded.provider, model = excluded.model, verdict = excluded.verdict, blocked = excluded.blocked, started_at = excluded.started_at, ended_at = excluded.ended_at, cost_usd = excluded.cost_usd, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, events = excluded.events, state = CASE WHEN runs.conflict = 1 THEN 'conflict' ELSE excluded.state END, state_detail = CASE WHEN runs.conflict = 1 THEN runs.state_detail ELSE excluded.state_detail END, conflict = CASE WHEN runs.conflict = 1 THEN 1 ELSE excluded.conflict END, receipt_sha256 = excluded.receipt_sha256, detail = excluded.detail, updated_at = excluded.updated_at WHERE excluded.events >= runs.events")
                .bind(&r.source_id).bind(&r.run_id).bind(&r.kind).bind(&r.repo).bind(&r.machine)
                .bind(&r.task).bind(&r.provider).bind(&r.model).bind(&r.verdict).bind(i64::from(r.blocked))
                .bind(&r.started_at).bind(&r.ended_at).bind(r.cost_usd).bind(r.input_tokens).bind(r.output_tokens)
                .bind(r.events).bind(r.state.as_str()).bind(&r.state_detail).bind(i64::from(r.conflict))
                .bind(&r.receipt_sha256).bind(r.detail.to_string()).bind(&now)
                .execute(p).await.map_err(ControlError::db("store the run"))?;
        });
        Ok(())
    }

    /// A run's events after `after_seq` (all when `None`), in order, at most `limit`.
    pub async fn events(
        &self,
        source: &str,
        run: &str,
        after_seq: Option<u64>,
        limit: i64,
    ) -> Result<Vec<StoredEvent>, ControlError> {
        let after = after_seq.map_or(-1, |s| i64::try_from(s).unwrap_or(i64::MAX));
        let err = ControlError::db;
        on!(&self.pool, p => {
            sqlx::query("SELECT seq, ts, type, stage, data, prev, line_sha256, redacted FROM events WHERE source_id = $1 AND run_id = $2 AND seq > $3 ORDER BY seq LIMIT $4")
                .bind(source).bind(run).bind(after).bind(limit)
                .fetch_all(p).await.map_err(err("read the events"))?
                .iter().map(|r| {
                    let data: String = r.try_get(4)?;
                    let seq: i64 = r.try_get(0)?;
                    Ok(StoredEvent {
                        event: Event {
                            v: 1,
                            seq: u64::try_from(seq).unwrap_or_default(),
                            ts: r.try_get(1)?,
                            run: log_run(run).to_string(),
                            kind: r.try_get(2)?,
                            // Stored from a parsed event, so a stage word; refused, not dropped, if not.
                            stage: r
                                .try_get::<Option<String>, _>(3)?
                                .map(|s| s.parse::<Stage>())
                                .transpose()
                                .map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
                            data: serde_json::from_str(&data).unwrap_or_default(),
                            prev: r.try_get(5)?,
                            hash: r.try_get(6)?,
                        },
                        redacted: r.try_get::<i64, _>(7)? == 1,
                    })
                }).collect::<Result<_, sqlx::Error>>().map_err(err("read the events"))
        })
    }

    /// When a run was last stored or refolded (`None` with no runs).
    pub async fn last_update(&self) -> Result<Option<String>, ControlError> {
        on!(&self.pool, p => {
            sqlx::query("SELECT MAX(updated_at) FROM runs")
                .fetch_one(p).await.map_err(ControlError::db("read the last update"))?
                .try_get::<Option<String>, _>(0).map_err(ControlError::db("read the last update"))
        })
    }

    /// Closes the pool (waits for connections to return).
    pub async fn close(&self) {
        on!(&self.pool, p => p.close().await);
    }
}
