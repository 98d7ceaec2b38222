//! The HTTP server behind `loki serve`.
//!
//! # Listening
//!
//! The default address is `127.0.0.1:47821`; when that port is taken the server takes a free one
//! (an explicit `--port` is not moved). Once listening it writes `$LOKI_HOME/control/instance.json`
//! (`{pid, url, port, version, db}`, mode 0600, atomically) so runs on this machine find it, and
//! removes it when it stops (SIGINT, SIGTERM). Before anything it takes the locks of
//! [`crate::instance`]: a second server of the same home or SQLite store refuses, naming the
//! first's address, and touches nothing.
//!
//! # Trust
//!
//! At start the server trusts the public key its home's runs sign with (and the home's retired
//! keys), so those runs arrive `intact` with no manual step; keys of other homes and machines are
//! trusted with `loki serve trust`.
//!
//! # Security
//!
//! - A loopback bind takes no token. Every request must carry a loopback `Host` header
//!   (`127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`): a web page on another origin that
//!   rebinds its DNS name to 127.0.0.1 still sends its own name, and is refused (403).
//! - A non-loopback bind refuses to start without `LOKI_CONTROL_TOKEN`, and then every request
//!   but `/health` and `/ready` (the API and the UI) needs `Authorization: Bearer <token>` (401
//!   otherwise).
//! - Every POST must be `Content-Type: application/json` (415): a cross-site form cannot send that
//!   without a CORS preflight, which this server never grants.
//! - Actions (answering a BLOCKED run, which starts a follow-up) are routed only on a loopback bind
//!   and also check that the socket peer is a loopback address.
//!
//! # Routes
//!
//! See the README's `/v1` section; [`router`] is the list.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::net::TcpListener;

use crate::ControlError;
use crate::instance::{ServeLock, home_lock_path, store_lock_path};
use crate::ship::IngestBody;
use crate::store::{AnswerOutcome, DbSpec, Group, MAX_ANSWER_CHARS, RunFilter, Store};

/// The port `loki serve` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 47821;
/// The largest ingest body (413 above): the shipper sends batches well under it.
pub const MAX_INGEST_BYTES: usize = 8 * 1024 * 1024;
/// The largest body of other POSTs (an answer is at most 4,000 characters).
const MAX_SMALL_BODY: usize = 64 * 1024;
/// How often the live stream looks for new events (it polls the store, so every instance behind
/// one URL streams the same thing).
const STREAM_POLL: Duration = Duration::from_millis(250);
/// Events per page of `/events` unless `limit` says otherwise.
const DEFAULT_EVENTS_PAGE: i64 = 1000;
/// Runs per page unless `limit` says otherwise.
const DEFAULT_RUNS_PAGE: i64 = 50;
/// The service name `/health` answers with (the shipper checks it).
pub const SERVICE: &str = "loki-control";

/// How to start the server.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub bind: IpAddr,
    /// `None`: the default port, or a free one when it is taken.
    pub port: Option<u16>,
    pub db: DbSpec,
    /// `$LOKI_HOME`, where instance.json goes (`None`: not written).
    pub home: Option<PathBuf>,
    /// `LOKI_CONTROL_TOKEN`.
    pub token: Option<String>,
    pub version: String,
    /// The signing-key environment of `home`'s runs: the key they sign with (and the retired
    /// ones) is trusted at start, so runs of the home the server serves arrive `intact` without
    /// `loki serve trust` (other machines' keys still need it).
    pub key_env: loki_receipt::KeyEnv,
}

impl ServeOptions {
    /// Loopback, default port, the default SQLite file under `home`.
    #[must_use]
    pub fn local(home: &Path, version: &str) -> ServeOptions {
        ServeOptions {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: None,
            db: DbSpec::Sqlite(default_db(home)),
            home: Some(home.to_path_buf()),
            token: None,
            version: version.to_string(),
            key_env: loki_receipt::KeyEnv::default(),
        }
    }
}

/// `$LOKI_HOME/control/control.db`.
#[must_use]
pub fn default_db(home: &Path) -> PathBuf {
    home.join("control").join("control.db")
}

/// `$LOKI_HOME/control/instance.json`.
#[must_use]
pub fn instance_path(home: &Path) -> PathBuf {
    home.join("control").join("instance.json")
}

/// What instance.json says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instance {
    pub pid: u32,
    pub url: String,
    pub port: u16,
    pub version: String,
    pub db: String,
}

/// A server that is listening (not yet serving).
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    store: Store,
    opts: ServeOptions,
    instance_file: Option<PathBuf>,
    /// Held while serving (see [`crate::instance`]); released when the server is dropped.
    locks: Vec<ServeLock>,
}

#[derive(Debug, Clone)]
pub(crate) struct AppState {
    pub(crate) store: Store,
    token: Option<String>,
    loopback: bool,
    hosts: Vec<String>,
}

impl Server {
    /// Checks the options, takes the instance locks (refusing when another server holds one),
    /// binds, opens (and migrates) the store, trusts the home's keys and writes instance.json.
    pub async fn start(opts: ServeOptions) -> Result<Server, ControlError> {
        if !opts.bind.is_loopback() && opts.token.is_none() {
            return Err(ControlError::TokenRequired {
                addr: opts.bind.to_string(),
            });
        }
        let locks = take_locks(&opts)?;
        let listener = bind(opts.bind, opts.port).await?;
        let addr = listener.local_addr().map_err(|source| ControlError::Bind {
            addr: opts.bind.to_string(),
            source,
        })?;
        let store = Store::open(&opts.db).await?;
        if let Some(home) = &opts.home {
            trust_home_keys(&store, home, &opts.key_env).await?;
        }
        let mut server = Server {
            listener,
            addr,
            store,
            opts,
            instance_file: None,
            locks,
        };
        for lock in &server.locks {
            lock.record(&server.url())?;
        }
        if let Some(home) = &server.opts.home {
            let path = instance_path(home);
            let instance = server.instance();
            let bytes = serde_json::to_vec_pretty(&instance).unwrap_or_default();
            loki_core::fs::write_atomic_mode(&path, &bytes, 0o600)?;
            server.instance_file = Some(path);
        }
        Ok(server)
    }

    /// `http://ADDR:PORT`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address listened on.
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The store.
    #[must_use]
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// What instance.json holds.
    #[must_use]
    pub fn instance(&self) -> Instance {
        Instance {
            pid: std::process::id(),
            url: self.url(),
            port: self.addr.port(),
            version: self.opts.version.clone(),
            db: self.opts.db.display(),
        }
    }

    /// Serves until `shutdown` resolves, then removes instance.json.
    pub async fn run(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ControlError> {
        let app = router(&self);
        let served = axum::serve(
            self.listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await;
        if let Some(path) = &self.instance_file {
            // Only our own file: a second server may have replaced it since.
            let ours = std::fs::read(path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Instance>(&b).ok())
                .is_some_and(|i| i.pid == std::process::id() && i.port == self.addr.port());
            if ours {
                std::fs::remove_file(path).map_err(ControlError::io("remove", path))?;
            }
        }
        self.store.close().await;
        served.map_err(ControlError::io("serve on", self.addr.to_string()))
    }
}

/// The locks of [`crate::instance`]: the home's (creating `$LOKI_HOME/control`, private), and a
/// SQLite store's when its directory exists (when it does not, [`Store::open`] says so).
fn take_locks(opts: &ServeOptions) -> Result<Vec<ServeLock>, ControlError> {
    let mut locks = Vec::new();
    if let Some(home) = &opts.home {
        loki_core::fs::ensure_private_dir(&home.join("control"))?;
        locks.push(ServeLock::take(
            &home_lock_path(home),
            &format!("LOKI_HOME {}", home.display()),
        )?);
    }
    if let DbSpec::Sqlite(db) = &opts.db {
        let dir_exists = db
            .parent()
            .is_none_or(|d| d.as_os_str().is_empty() || d.is_dir());
        if dir_exists {
            locks.push(ServeLock::take(
                &store_lock_path(db),
                &format!("the store {}", db.display()),
            )?);
        }
    }
    Ok(locks)
}

/// Trusts the key `home`'s runs sign with (created as a run would create it, so the first run
/// is trusted too) and its retired keys. Keys already trusted are left as they are.
async fn trust_home_keys(
    store: &Store,
    home: &Path,
    env: &loki_receipt::KeyEnv,
) -> Result<(), ControlError> {
    loki_receipt::Signer::load_or_create(home, env)?;
    let keys = loki_receipt::TrustedKeys::local(Some(home), env)?;
    for k in keys.all() {
        let pem = loki_receipt::keys::public_key_pem(&k.key)?;
        store
            .trust_by(&pem, &format!("serve ({})", k.origin))
            .await?;
    }
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
pub async fn stop_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

async fn bind(ip: IpAddr, port: Option<u16>) -> Result<TcpListener, ControlError> {
    let bind_err = |port: u16| {
        move |source| ControlError::Bind {
            addr: SocketAddr::new(ip, port).to_string(),
            source,
        }
    };
    match port {
        Some(p) => TcpListener::bind(SocketAddr::new(ip, p))
            .await
            .map_err(bind_err(p)),
        None => match TcpListener::bind(SocketAddr::new(ip, DEFAULT_PORT)).await {
            Ok(l) => Ok(l),
            Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
                TcpListener::bind(SocketAddr::new(ip, 0))
                    .await
                    .map_err(bind_err(0))
            }
            Err(e) => Err(bind_err(DEFAULT_PORT)(e)),
        },
    }
}

fn router(server: &Server) -> Router {
    let loopback = server.opts.bind.is_loopback();
    let port = server.addr.port();
    let state = AppState {
        store: server.store.clone(),
        token: server.opts.token.clone(),
        loopback,
        hosts: vec![
            format!("127.0.0.1:{port}"),
            format!("localhost:{port}"),
            format!("[::1]:{port}"),
        ],
    };
    let mut v1 = Router::new()
        .route(
            "/ingest",
            post(ingest).layer(DefaultBodyLimit::max(MAX_INGEST_BYTES)),
        )
        .route("/runs", get(list_runs))
        .route("/runs/{source}/{run}", get(one_run))
        .route("/runs/{source}/{run}/events", get(run_events))
        .route("/runs/{source}/{run}/stream", get(run_stream))
        .route("/stats", get(stats))
        .route("/costs", get(stats))
        .route("/audit", get(audit))
        .route("/live", get(live));
    if loopback {
        // Actions exist only on a loopback bind (see the module doc).
        v1 = v1
            .route(
                "/runs/{source}/{run}/answer",
                post(post_answer).layer(DefaultBodyLimit::max(MAX_SMALL_BODY)),
            )
            .route(
                "/runs/{source}/{run}/answer/take",
                post(take_answer).layer(DefaultBodyLimit::max(MAX_SMALL_BODY)),
            );
    }
    Router::new()
        .route("/health", get(health))
        .route("/ready", get(ready))
        .nest("/v1", v1)
        .merge(crate::ui::routes())
        .fallback(crate::params::not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

use crate::params::{Params, fail};

async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> Response {
    fail(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("{method} is not served at {}", uri.path()),
    )
}

fn internal(e: &ControlError) -> Response {
    match e {
        ControlError::Usage(m) => fail(StatusCode::BAD_REQUEST, m.clone()),
        other => fail(StatusCode::INTERNAL_SERVER_ERROR, other.to_string()),
    }
}

/// The security rules of the module doc, before any route.
async fn guard(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if st.loopback {
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or_default();
        if !st.hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
            return fail(
                StatusCode::FORBIDDEN,
                format!(
                    "Host {host:?} is not this server's loopback address ({}): refused to protect against DNS rebinding",
                    st.hosts.join(", ")
                ),
            );
        }
    }
    // Everything but the probes needs the token when there is one: the UI shows what /v1 does.
    let probe = matches!(req.uri().path(), "/health" | "/ready");
    if let Some(token) = &st.token
        && !probe
    {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|h| h.to_str().ok())
            .and_then(|h| h.strip_prefix("Bearer "))
            .unwrap_or_default();
        if !constant_time_eq(given.as_bytes(), token.as_bytes()) {
            return fail(
                StatusCode::UNAUTHORIZED,
                "missing or wrong token: send Authorization: Bearer $LOKI_CONTROL_TOKEN",
            );
        }
    }
    if req.method() == axum::http::Method::POST && !is_json(headers) {
        return fail(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "POST bodies must be Content-Type: application/json",
        );
    }
    next.run(req).await
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// Compares without an early exit, so timing does not tell how much of a token was right.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn health(State(st): State<AppState>) -> Response {
    axum::Json(json!({
        "service": SERVICE,
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "engine": st.store.engine(),
    }))
    .into_response()
}

async fn ready(State(st): State<AppState>) -> Response {
    if st.store.ping().await {
        axum::Json(json!({"ready": true})).into_response()
    } else {
        fail(
            StatusCode::SERVICE_UNAVAILABLE,
            "the database does not answer",
        )
    }
}

async fn ingest(State(st): State<AppState>, body: Bytes) -> Response {
    let parsed: IngestBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => {
            return fail(
                StatusCode::BAD_REQUEST,
                format!("the body is not a valid ingest batch: {e}"),
            );
        }
    };
    let batch = match parsed.into_batch() {
        Ok(b) => b,
        Err(e) => return fail(StatusCode::BAD_REQUEST, e.to_string()),
    };
    match st.store.ingest(&batch).await {
        Ok(out) if out.conflict_seq.is_some() => (
            StatusCode::CONFLICT,
            axum::Json(json!({
                "error": format!(
                    "line {} of run {} was already stored with another hash: the run is marked conflict",
                    out.conflict_seq.unwrap_or_default(),
                    out.run
                ),
                "result": out,
            })),
        )
            .into_response(),
        Ok(out) => axum::Json(out).into_response(),
        Err(e) => internal(&e),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunsQuery {
    verdict: Option<String>,
    repo: Option<String>,
    provider: Option<String>,
    state: Option<String>,
    since: Option<String>,
    until: Option<String>,
    limit: Option<i64>,
    cursor: Option<String>,
}

/// The filter a runs query asks for, or the 400 that says which parameter is wrong.
fn run_filter(q: RunsQuery) -> Result<RunFilter, crate::params::BadParam> {
    let bound =
        |name: &str, v: Option<String>| v.map(|v| crate::params::time_bound(name, &v)).transpose();
    Ok(RunFilter {
        verdict: q.verdict,
        repo: q.repo,
        provider: q.provider,
        state: crate::params::state(q.state)?,
        since: bound("since", q.since)?,
        until: bound("until", q.until)?,
        limit: crate::params::page_size(q.limit, DEFAULT_RUNS_PAGE)?,
        cursor: q.cursor,
    })
}

async fn list_runs(State(st): State<AppState>, Params(q): Params<RunsQuery>) -> Response {
    let filter = match run_filter(q) {
        Ok(f) => f,
        Err(bad) => return bad.into_response(),
    };
    match st.store.runs(&filter).await {
        Ok(page) => axum::Json(page).into_response(),
        Err(e) => internal(&e),
    }
}

fn unknown_run(source: &str, run: &str) -> Response {
    fail(
        StatusCode::NOT_FOUND,
        format!("no run {run} from source {source}: `GET /v1/runs` lists the runs"),
    )
}

async fn one_run(
    State(st): State<AppState>,
    UrlPath((source, run)): UrlPath<(String, String)>,
) -> Response {
    match st.store.run(&source, &run).await {
        Ok(Some(r)) => axum::Json(r).into_response(),
        Ok(None) => unknown_run(&source, &run),
        Err(e) => internal(&e),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EventsQuery {
    after_seq: Option<u64>,
    limit: Option<i64>,
}

async fn run_events(
    State(st): State<AppState>,
    UrlPath((source, run)): UrlPath<(String, String)>,
    Params(q): Params<EventsQuery>,
) -> Response {
    match st.store.run(&source, &run).await {
        Ok(Some(_)) => {}
        Ok(None) => return unknown_run(&source, &run),
        Err(e) => return internal(&e),
    }
    let limit = match crate::params::page_size(q.limit, DEFAULT_EVENTS_PAGE) {
        Ok(n) => n.min(10_000),
        Err(bad) => return bad.into_response(),
    };
    match st.store.events(&source, &run, q.after_seq, limit).await {
        Ok(ev) => axum::Json(json!({"events": ev})).into_response(),
        Err(e) => internal(&e),
    }
}

async fn run_stream(
    State(st): State<AppState>,
    UrlPath((source, run)): UrlPath<(String, String)>,
    Params(q): Params<EventsQuery>,
) -> Response {
    match st.store.run(&source, &run).await {
        Ok(Some(_)) => {}
        Ok(None) => return unknown_run(&source, &run),
        Err(e) => return internal(&e),
    }
    // State: the last seq sent, and whether the terminal event went out (then the stream ends).
    let init = (st.store.clone(), source, run, q.after_seq, false);
    let stream =
        futures_util::stream::unfold(init, |(store, source, run, after, done)| async move {
            if done {
                return None;
            }
            loop {
                match store.events(&source, &run, after, 500).await {
                    Ok(ev) if !ev.is_empty() => {
                        let last = ev.last().map(|e| e.event.seq);
                        let ended = ev.iter().any(|e| {
                            loki_events::EventType::parse(&e.event.kind)
                                .is_some_and(loki_events::EventType::is_terminal)
                        });
                        let frames: Vec<Result<SseEvent, std::convert::Infallible>> = ev
                            .iter()
                            .map(|e| {
                                Ok(SseEvent::default()
                                    .event("event")
                                    .id(e.event.seq.to_string())
                                    .data(serde_json::to_string(e).unwrap_or_default()))
                            })
                            .collect();
                        return Some((
                            futures_util::stream::iter(frames),
                            (store, source, run, last, ended),
                        ));
                    }
                    Ok(_) => tokio::time::sleep(STREAM_POLL).await,
                    Err(_) => return None,
                }
            }
        });
    Sse::new(futures_util::StreamExt::flatten(stream))
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StatsQuery {
    group: Option<String>,
}

async fn stats(State(st): State<AppState>, Params(q): Params<StatsQuery>) -> Response {
    let name = q.group.as_deref().unwrap_or("day");
    let Some(group) = Group::parse(name) else {
        return fail(
            StatusCode::BAD_REQUEST,
            format!("group {name:?} is not one of day, repo, model, verdict"),
        );
    };
    match st.store.stats(group).await {
        Ok(rows) => axum::Json(json!({"group": name, "rows": rows})).into_response(),
        Err(e) => internal(&e),
    }
}

/// SSE: a `changed` event whenever a run is stored or refolded (the store is polled, so every
/// instance behind one URL sends the same).
async fn live(State(st): State<AppState>) -> Response {
    let init = (st.store.clone(), None::<String>, true);
    let stream = futures_util::stream::unfold(init, |(store, seen, first)| async move {
        loop {
            if !first {
                tokio::time::sleep(STREAM_POLL).await;
            }
            let now = store.last_update().await.ok()?;
            if first {
                // The first look only sets where the page is.
                let ev = SseEvent::default()
                    .event("ready")
                    .data(now.clone().unwrap_or_default());
                return Some((Ok::<_, std::convert::Infallible>(ev), (store, now, false)));
            }
            if now != seen {
                let ev = SseEvent::default()
                    .event("changed")
                    .data(now.clone().unwrap_or_default());
                return Some((Ok(ev), (store, now, false)));
            }
        }
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

async fn audit(State(st): State<AppState>) -> Response {
    match st.store.audit_log(200).await {
        Ok(rows) => axum::Json(json!({"audit": rows})).into_response(),
        Err(e) => internal(&e),
    }
}

fn peer_check(peer: SocketAddr) -> Option<Response> {
    (!peer.ip().is_loopback()).then(|| {
        fail(
            StatusCode::FORBIDDEN,
            "actions are taken only from this machine (a loopback peer)",
        )
    })
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    answer: String,
}

async fn post_answer(
    State(st): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    UrlPath((source, run)): UrlPath<(String, String)>,
    body: Bytes,
) -> Response {
    if let Some(r) = peer_check(peer) {
        return r;
    }
    let parsed: AnswerBody = match serde_json::from_slice(&body) {
        Ok(b) => b,
        Err(e) => {
            return fail(
                StatusCode::BAD_REQUEST,
                format!("the body must be {{\"answer\": \"...\"}}: {e}"),
            );
        }
    };
    let text = parsed.answer.trim();
    if text.is_empty() {
        return fail(StatusCode::BAD_REQUEST, "the answer is empty");
    }
    let chars = text.chars().count();
    if chars > MAX_ANSWER_CHARS {
        return fail(
            StatusCode::BAD_REQUEST,
            format!("the answer is {chars} characters, over the {MAX_ANSWER_CHARS} allowed"),
        );
    }
    match st.store.answer(&source, &run, text).await {
        Ok(AnswerOutcome::Stored) => axum::Json(json!({
            "stored": true,
            "next": format!("`loki answer {run}` in the repository builds again with this answer"),
        }))
        .into_response(),
        Ok(AnswerOutcome::UnknownRun) => unknown_run(&source, &run),
        Ok(AnswerOutcome::NotBlocked(verdict)) => fail(
            StatusCode::CONFLICT,
            format!("run {run} is {verdict}, not BLOCKED: only a blocked run takes an answer"),
        ),
        Err(e) => internal(&e),
    }
}

async fn take_answer(
    State(st): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    UrlPath((source, run)): UrlPath<(String, String)>,
) -> Response {
    if let Some(r) = peer_check(peer) {
        return r;
    }
    match st.store.pending_answer(&source, &run, true).await {
        Ok(a) => axum::Json(json!({"answer": a})).into_response(),
        Err(e) => internal(&e),
    }
}

/// Worker threads of the server's runtime: the machine it targets has two cores.
const WORKERS: usize = 2;

/// The runtime `loki serve` (and its store subcommands) run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, ControlError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .map_err(ControlError::io("start the runtime for", "loki serve"))
}
