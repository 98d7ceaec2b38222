//! Shipping runs to the control plane: the wire format, redaction, the background shipper and
//! backfill.
//!
//! # Wire format (`POST /v1/ingest`, `Content-Type: application/json`)
//!
//! ```text
//! {"machine": "host", "repo": "/abs/path/of/repo", "run": "run_…",
//!  "events": [<event lines as in events.jsonl>, …],
//!  "redacted": [3, 7],            // seqs whose data the shipper redacted (optional)
//!  "receipt": {<DSSE envelope>}}  // receipt.dsse.json, once the run is sealed (optional)
//! ```
//!
//! `run` is the id the log is stored under: the run id for a run's own log
//! (`.loki/runs/<run>/events.jsonl`), and for a log kept below a run's directory (a deep verify's
//! `.loki/runs/<run>/deep/`) `<run>.<part>.<stamp>`: the run id, the directory's name up to its
//! first `.` (`deep`, also for a kept `deep.<secs>`), and the digits of the log's first timestamp.
//! So every log ships under its own identity, never colliding with its build run or an earlier deep
//! verify; its events carry the run id before the first `.` ([`crate::store::log_run`]).
//!
//! Every event keeps its original `prev` and `hash`; a redacted one has each secret in its string
//! values replaced by `[REDACTED]` and its seq listed in `redacted` (see [`crate::check`] for what
//! the server can and cannot re-verify then). At most [`MAX_BATCH_EVENTS`] events per batch, all of
//! the named run. The answer is the [`crate::store::IngestOutcome`] (200) or, when a line was
//! already stored with another hash, 409 with the same body under `result`.
//!
//! # The shipper
//!
//! Installed as the process's [`loki_events::EventSink`] by the binary. Each event is queued (a
//! bounded channel; when full, events are dropped and counted, never waited for) to one background
//! thread, which finds the server lazily on the first event (`LOKI_CONTROL_URL`, else
//! `$LOKI_HOME/control/instance.json` naming a live pid whose `/health` answers as
//! `loki-control` within [`HEALTH_TIMEOUT`]), batches up to [`BATCH_EVENTS`] events or
//! [`BATCH_WAIT`], and retries failures with doubling backoff up to [`MAX_BACKOFF`]. A terminal
//! event sends its run's batch at once, with the receipt if the run has one. At exit the binary
//! calls [`Shipper::flush`], which tries for at most the time it is given. A run never fails or
//! waits because of the shipper; what it could not ship, `loki serve backfill` sends later.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use loki_events::{Event, EventSink, EventType};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ControlError;
use crate::server::{Instance, SERVICE, instance_path};
use crate::store::Batch;

mod redact;

pub use redact::{REDACTED, Redactor};

/// The most events one ingest batch may carry.
pub const MAX_BATCH_EVENTS: usize = 5000;
/// The most events one batch the shipper builds carries.
pub const SEND_EVENTS: usize = 1000;
/// About the most bytes of event JSON one batch carries: half the server's body limit, so a batch
/// plus its receipt stays under it.
pub const SEND_BYTES: usize = crate::server::MAX_INGEST_BYTES / 2;
/// Events the shipper gathers before sending.
pub const BATCH_EVENTS: usize = 200;
/// How long the shipper gathers events before sending what it has.
pub const BATCH_WAIT: Duration = Duration::from_millis(200);
/// The longest wait between retries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// The first wait after a failed send.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// How long the instance's `/health` has to answer before runs do not ship to it.
pub const HEALTH_TIMEOUT: Duration = Duration::from_millis(300);
/// How long one ingest request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Events queued for the background thread before new ones are dropped.
const QUEUE: usize = 20_000;

/// The body of `POST /v1/ingest`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestBody {
    pub machine: String,
    pub repo: String,
    pub run: String,
    pub events: Vec<Event>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<Value>,
}

/// Why an ingest body is not a batch the store takes; the answer of a 400, naming what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    #[error("machine, repo and run must not be empty")]
    Unnamed,
    #[error("{events} events in one batch, over the {MAX_BATCH_EVENTS} allowed: split it")]
    TooMany { events: usize },
    #[error("the batch has no events and no receipt")]
    Empty,
    #[error("event {seq} is of run {event_run}, the batch is for run {run}")]
    OtherRun {
        seq: u64,
        event_run: String,
        run: String,
    },
    #[error("event {seq} has version {v}, not 1")]
    Version { seq: u64, v: u32 },
    #[error("the batch names one seq twice")]
    DuplicateSeq,
    #[error("redacted names seq {seq}, which is not in the batch")]
    RedactedUnknown { seq: u64 },
}

impl IngestBody {
    /// Checks the batch's shape (the chain is checked by the store's fold).
    pub fn into_batch(self) -> Result<Batch, BatchError> {
        if self.machine.is_empty() || self.repo.is_empty() || self.run.is_empty() {
            return Err(BatchError::Unnamed);
        }
        if self.events.len() > MAX_BATCH_EVENTS {
            return Err(BatchError::TooMany {
                events: self.events.len(),
            });
        }
        if self.events.is_empty() && self.receipt.is_none() {
            return Err(BatchError::Empty);
        }
        let log_run = crate::store::log_run(&self.run);
        for e in &self.events {
            if e.run != log_run {
                return Err(BatchError::OtherRun {
                    seq: e.seq,
                    event_run: e.run.clone(),
                    run: self.run.clone(),
                });
            }
            if e.v != 1 {
                return Err(BatchError::Version { seq: e.seq, v: e.v });
            }
        }
        let seqs: BTreeSet<u64> = self.events.iter().map(|e| e.seq).collect();
        if seqs.len() != self.events.len() {
            return Err(BatchError::DuplicateSeq);
        }
        let redacted: BTreeSet<u64> = self.redacted.into_iter().collect();
        if let Some(s) = redacted.iter().find(|s| !seqs.contains(s)) {
            return Err(BatchError::RedactedUnknown { seq: *s });
        }
        let mut events = self.events;
        events.sort_by_key(|e| e.seq);
        Ok(Batch {
            machine: self.machine,
            repo: self.repo,
            run: self.run,
            events,
            redacted,
            receipt: self.receipt,
        })
    }
}

/// Where to ship: a base URL and the token to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub url: String,
    pub token: Option<String>,
}

/// The control plane runs ship to: `LOKI_CONTROL_URL`, else the live local instance.
#[must_use]
pub fn discover(home: Option<&Path>) -> Option<Target> {
    let token = loki_core::env::CONTROL_TOKEN.get();
    if let Some(url) = loki_core::env::CONTROL_URL.get() {
        return Some(Target {
            url: url.trim_end_matches('/').to_string(),
            token,
        });
    }
    let instance = read_instance(home?)?;
    if !loki_core::run::is_alive(instance.pid, None) {
        return None;
    }
    let client = Client::new(Target {
        url: instance.url.clone(),
        token: token.clone(),
    })
    .ok()?;
    let health = client.get_json("/health", HEALTH_TIMEOUT).ok()?;
    (health.get("service").and_then(Value::as_str) == Some(SERVICE)).then_some(Target {
        url: instance.url,
        token,
    })
}

/// `$LOKI_HOME/control/instance.json`, if it is there and parses.
#[must_use]
pub fn read_instance(home: &Path) -> Option<Instance> {
    let bytes = std::fs::read(instance_path(home)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// A blocking HTTP client of the control plane (its own small runtime).
#[derive(Debug)]
pub struct Client {
    target: Target,
    http: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

/// What the server said to an ingest.
#[derive(Debug, Clone, PartialEq)]
pub enum Shipped {
    Ok(Value),
    /// 409: a line was stored before with another hash.
    Conflict(Value),
}

/// An HTTP error with its causes: reqwest's own words ("error sending request for url …") do
/// not say whether the connection was refused, reset or timed out; its sources do.
fn with_causes(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl Client {
    /// A client of `target`.
    pub fn new(target: Target) -> Result<Client, ControlError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(ControlError::io(
                "start a runtime for",
                "the control-plane client",
            ))?;
        let http = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .build()
            .map_err(|e| ControlError::Unreachable {
                url: target.url.clone(),
                reason: e.to_string(),
            })?;
        Ok(Client { target, http, rt })
    }

    /// The server's base URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.target.url
    }

    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.target.url));
        if let Some(t) = &self.target.token {
            req = req.bearer_auth(t);
        }
        req
    }

    fn send(&self, req: reqwest::RequestBuilder, path: &str) -> Result<(u16, Value), ControlError> {
        let url = format!("{}{path}", self.target.url);
        self.rt.block_on(async {
            let resp = req.send().await.map_err(|e| ControlError::Unreachable {
                url: url.clone(),
                reason: with_causes(&e),
            })?;
            let status = resp.status().as_u16();
            let text = resp.text().await.map_err(|e| ControlError::Unreachable {
                url: url.clone(),
                reason: with_causes(&e),
            })?;
            let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
            Ok((status, value))
        })
    }

    /// GET a JSON document; any status but 200 is an error.
    pub fn get_json(&self, path: &str, timeout: Duration) -> Result<Value, ControlError> {
        let (status, v) = self.send(
            self.request(reqwest::Method::GET, path).timeout(timeout),
            path,
        )?;
        if status == 200 {
            Ok(v)
        } else {
            Err(self.http_error(path, status, &v))
        }
    }

    /// POST JSON; returns the status and the body.
    pub fn post_json(&self, path: &str, body: &Value) -> Result<(u16, Value), ControlError> {
        self.send(
            self.request(reqwest::Method::POST, path)
                .header("content-type", "application/json")
                .body(body.to_string()),
            path,
        )
    }

    /// Ships one batch.
    pub fn ingest(&self, body: &IngestBody) -> Result<Shipped, ControlError> {
        let value = serde_json::to_value(body).map_err(|e| ControlError::Usage(e.to_string()))?;
        let (status, v) = self.post_json("/v1/ingest", &value)?;
        match status {
            200 => Ok(Shipped::Ok(v)),
            409 => Ok(Shipped::Conflict(v)),
            s => Err(self.http_error("/v1/ingest", s, &v)),
        }
    }

    fn http_error(&self, path: &str, status: u16, v: &Value) -> ControlError {
        ControlError::Http {
            url: format!("{}{path}", self.target.url),
            status,
            body: v
                .get("error")
                .and_then(Value::as_str)
                .map_or_else(|| v.to_string(), str::to_string),
        }
    }
}

/// This machine's name (`/proc/sys/kernel/hostname`; `localhost` when unreadable).
#[must_use]
pub fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// The repository a run directory belongs to: the parent of its `.loki` ancestor.
#[must_use]
pub fn repo_of(run_dir: &Path) -> PathBuf {
    let dir = std::fs::canonicalize(run_dir).unwrap_or_else(|_| run_dir.to_path_buf());
    dir.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == ".loki"))
        .and_then(Path::parent)
        .map_or(dir.clone(), Path::to_path_buf)
}

/// The id the log in `run_dir` ships under, given its first line `first` (see the module doc).
#[must_use]
pub fn ship_id(run_dir: &Path, first: &Event) -> String {
    let name = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == first.run {
        return first.run.clone();
    }
    let part: String = name
        .split('.')
        .next()
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    let stamp: String = first.ts.chars().filter(char::is_ascii_digit).collect();
    format!(
        "{}.{}.{stamp}",
        first.run,
        if part.is_empty() {
            "log"
        } else {
            part.as_str()
        }
    )
}

/// The first line of the log in `run_dir`, if it parses.
fn first_event(run_dir: &Path) -> Option<Event> {
    use std::io::BufRead as _;
    let f = std::fs::File::open(run_dir.join("events.jsonl")).ok()?;
    let mut line = String::new();
    std::io::BufReader::new(f).read_line(&mut line).ok()?;
    serde_json::from_str(line.trim_end()).ok()
}

/// The run's DSSE envelope, if it was sealed.
fn read_receipt(run_dir: &Path) -> Option<Value> {
    let bytes = std::fs::read(run_dir.join(loki_receipt::builder::ENVELOPE_FILE)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Builds the batches of one run's events: redacted, at most [`SEND_EVENTS`] events and about
/// [`SEND_BYTES`] of event JSON each (one event of up to 1 MiB always fits the server's limit).
#[must_use]
pub fn batches(
    machine: &str,
    repo: &str,
    run: &str,
    events: &[Event],
    receipt: Option<Value>,
    redactor: &Redactor,
) -> Vec<IngestBody> {
    let empty = || IngestBody {
        machine: machine.to_string(),
        repo: repo.to_string(),
        run: run.to_string(),
        events: Vec::new(),
        redacted: Vec::new(),
        receipt: None,
    };
    let mut out: Vec<IngestBody> = Vec::new();
    let mut current = empty();
    let mut bytes = 0;
    for e in events {
        let mut e = e.clone();
        let changed = redactor.event(&mut e);
        let size = serde_json::to_vec(&e).map_or(0, |v| v.len());
        if !current.events.is_empty()
            && (current.events.len() >= SEND_EVENTS || bytes + size > SEND_BYTES)
        {
            out.push(std::mem::replace(&mut current, empty()));
            bytes = 0;
        }
        if changed {
            current.redacted.push(e.seq);
        }
        bytes += size;
        current.events.push(e);
    }
    if !current.events.is_empty() {
        out.push(current);
    }
    if let Some(r) = receipt {
        match out.last_mut() {
            Some(last) => last.receipt = Some(r),
            None => out.push(IngestBody {
                machine: machine.to_string(),
                repo: repo.to_string(),
                run: run.to_string(),
                events: Vec::new(),
                redacted: Vec::new(),
                receipt: Some(r),
            }),
        }
    }
    out
}

/// What a backfill shipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backfilled {
    pub runs: Vec<String>,
    pub failed: Vec<(String, String)>,
    pub events: u64,
}

/// The logs under `dir`: `dir` itself, its runs, or `dir/.loki/runs/*`, each followed by the logs
/// kept below it (a deep verify's `deep/`, kept `deep.<secs>/`).
#[must_use]
pub fn run_dirs(dir: &Path) -> Vec<PathBuf> {
    let with_children = |d: PathBuf| {
        let mut kids: Vec<PathBuf> = std::fs::read_dir(&d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("events.jsonl").is_file())
            .collect();
        kids.sort();
        std::iter::once(d).chain(kids)
    };
    if dir.join("events.jsonl").is_file() {
        return with_children(dir.to_path_buf()).collect();
    }
    let runs = if dir.join(".loki").join("runs").is_dir() {
        dir.join(".loki").join("runs")
    } else {
        dir.to_path_buf()
    };
    let mut out: Vec<PathBuf> = std::fs::read_dir(&runs)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("events.jsonl").is_file())
        .collect();
    out.sort();
    out.into_iter().flat_map(with_children).collect()
}

/// Ships every run under `dir` (see [`run_dirs`]) as it is on disk now.
pub fn backfill(client: &Client, dir: &Path) -> Result<Backfilled, ControlError> {
    let machine = machine();
    let redactor = Redactor::from_env();
    let mut report = Backfilled::default();
    for run_dir in run_dirs(dir) {
        let name = run_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (events, _) = match loki_events::read_events(&run_dir.join("events.jsonl"), None) {
            Ok(x) => x,
            Err(e) => {
                report.failed.push((name, e.to_string()));
                continue;
            }
        };
        let Some(run) = events.first().map(|e| ship_id(&run_dir, e)) else {
            continue;
        };
        let repo = repo_of(&run_dir).display().to_string();
        let mut failed = None;
        for b in batches(
            &machine,
            &repo,
            &run,
            &events,
            read_receipt(&run_dir),
            &redactor,
        ) {
            match client.ingest(&b) {
                Ok(Shipped::Ok(_)) => report.events += b.events.len() as u64,
                Ok(Shipped::Conflict(v)) => {
                    failed = Some(format!(
                        "conflict: {}",
                        v.get("error").and_then(Value::as_str).unwrap_or_default()
                    ));
                    break;
                }
                Err(e) => {
                    failed = Some(e.to_string());
                    break;
                }
            }
        }
        match failed {
            Some(why) => report.failed.push((run, why)),
            None => report.runs.push(run),
        }
    }
    Ok(report)
}

enum Msg {
    /// An event of the log in the directory, and, for the event that ends the run, its sealed
    /// receipt as it was on disk when the event was written.
    Event(PathBuf, Box<Event>, Option<Value>),
    Flush(Instant, SyncSender<()>),
}

/// The background shipper (see the module doc).
#[derive(Debug)]
pub struct Shipper {
    tx: Mutex<Option<SyncSender<Msg>>>,
    dropped: Arc<AtomicU64>,
}

impl Shipper {
    /// Starts the background thread. `home` is where instance.json is looked for.
    #[must_use]
    pub fn start(home: Option<PathBuf>) -> Arc<Shipper> {
        let (tx, rx) = sync_channel(QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let spawned = std::thread::Builder::new()
            .name("loki-shipper".to_string())
            .spawn(move || worker(&rx, home.as_deref()));
        Arc::new(Shipper {
            // No thread, no shipping: the run goes on regardless.
            tx: Mutex::new(spawned.ok().map(|_| tx)),
            dropped,
        })
    }

    /// Waits up to `budget` for what is queued to be sent.
    pub fn flush(&self, budget: Duration) {
        let Some(tx) = self.tx.lock().ok().and_then(|g| g.clone()) else {
            return;
        };
        let (ack_tx, ack_rx) = sync_channel(1);
        let deadline = Instant::now() + budget;
        if tx.send(Msg::Flush(deadline, ack_tx)).is_ok() {
            let _ = ack_rx.recv_timeout(budget + Duration::from_millis(100));
        }
    }

    /// Events dropped because the queue was full.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

impl EventSink for Shipper {
    fn event(&self, run_dir: &Path, event: &Event) {
        let Some(tx) = self.tx.lock().ok().and_then(|g| g.clone()) else {
            return;
        };
        // The receipt is read here, on the writer's thread, as the run ends: a producer may move
        // its directory once sealed (a deep verify's staging directory becomes `deep/`), and the
        // worker reading it later would find nothing and ship the run as never sealed.
        let receipt = EventType::parse(&event.kind)
            .is_some_and(EventType::is_terminal)
            .then(|| read_receipt(run_dir))
            .flatten();
        match tx.try_send(Msg::Event(
            run_dir.to_path_buf(),
            Box::new(event.clone()),
            receipt,
        )) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// One run's unsent events.
struct Pending {
    machine: String,
    repo: String,
    run: String,
    events: Vec<Event>,
    ended: bool,
    /// The receipt read when the run ended (see [`Shipper`]'s `event`).
    receipt: Option<Value>,
}

/// The shipper thread: gather, send, back off, flush.
fn worker(rx: &Receiver<Msg>, home: Option<&Path>) {
    // Found on the first event: commands that record no run never probe.
    let mut client: Option<Option<Client>> = None;
    let redactor = Redactor::from_env();
    let machine = machine();
    let mut pending: BTreeMap<PathBuf, Pending> = BTreeMap::new();
    // The id each log ships under, found once per directory (see the module doc).
    let mut ids: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut backoff = FIRST_BACKOFF;
    let mut retry_at: Option<Instant> = None;
    let mut oldest: Option<Instant> = None;
    loop {
        let msg = rx.recv_timeout(BATCH_WAIT);
        let mut flush: Option<(Instant, SyncSender<()>)> = None;
        match msg {
            Ok(Msg::Event(dir, event, receipt)) => {
                let c =
                    client.get_or_insert_with(|| discover(home).and_then(|t| Client::new(t).ok()));
                if c.is_none() {
                    continue;
                }
                let ended = EventType::parse(&event.kind).is_some_and(EventType::is_terminal);
                let run = ids.entry(dir.clone()).or_insert_with(|| {
                    let first = (event.seq == 0)
                        .then(|| (*event).clone())
                        .or_else(|| first_event(&dir));
                    first.map_or_else(|| event.run.clone(), |f| ship_id(&dir, &f))
                });
                let p = pending.entry(dir.clone()).or_insert_with(|| Pending {
                    machine: machine.clone(),
                    repo: repo_of(&dir).display().to_string(),
                    run: run.clone(),
                    events: Vec::new(),
                    ended: false,
                    receipt: None,
                });
                p.events.push(*event);
                p.ended |= ended;
                p.receipt = receipt.or(p.receipt.take());
                oldest.get_or_insert_with(Instant::now);
            }
            Ok(Msg::Flush(deadline, ack)) => flush = Some((deadline, ack)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(Some(c)) = &client else {
            if let Some((_, ack)) = flush {
                let _ = ack.send(());
            }
            continue;
        };
        let total: usize = pending.values().map(|p| p.events.len()).sum();
        let due = total >= BATCH_EVENTS
            || pending.values().any(|p| p.ended)
            || oldest.is_some_and(|t| t.elapsed() >= BATCH_WAIT);
        let waiting = retry_at.is_some_and(|t| Instant::now() < t);
        if let Some((deadline, ack)) = flush {
            while !pending.is_empty() && Instant::now() < deadline {
                if send_all(c, &redactor, &mut pending) {
                    break;
                }
                std::thread::sleep(backoff.min(deadline.saturating_duration_since(Instant::now())));
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            let _ = ack.send(());
            continue;
        }
        if due && !waiting && total > 0 {
            if send_all(c, &redactor, &mut pending) {
                backoff = FIRST_BACKOFF;
                retry_at = None;
                oldest = None;
            } else {
                retry_at = Some(Instant::now() + backoff);
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
        }
    }
}

/// Sends every pending run; true when all went (or were refused for good).
fn send_all(c: &Client, redactor: &Redactor, pending: &mut BTreeMap<PathBuf, Pending>) -> bool {
    let dirs: Vec<PathBuf> = pending.keys().cloned().collect();
    for dir in dirs {
        let Some(p) = pending.get_mut(&dir) else {
            continue;
        };
        let receipt = if p.ended {
            p.receipt.clone().or_else(|| read_receipt(&dir))
        } else {
            None
        };
        for b in batches(&p.machine, &p.repo, &p.run, &p.events, receipt, redactor) {
            match c.ingest(&b) {
                // A conflict is recorded by the server; sending again would not change it.
                Ok(Shipped::Ok(_) | Shipped::Conflict(_)) => {
                    let sent: BTreeSet<u64> = b.events.iter().map(|e| e.seq).collect();
                    p.events.retain(|e| !sent.contains(&e.seq));
                }
                // A refusal (4xx) will not change on retry either: drop it, backfill can resend.
                Err(ControlError::Http { status, .. }) if (400..500).contains(&status) => {
                    p.events.clear();
                    break;
                }
                Err(_) => return false,
            }
        }
        if p.events.is_empty() {
            pending.remove(&dir);
        }
    }
    true
}
