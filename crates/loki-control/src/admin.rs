//! The blocking calls of the commands that run, administer or ask the control plane: `loki
//! serve` itself ([`serve`], with the store it uses: [`db_spec`]), `loki serve trust|prune` on
//! the store, `loki serve status`, `backfill` and `loki answer` against a running server
//! ([`running`]). Each opens what it needs, does one thing and closes it.

use std::path::Path;
use std::time::Duration;

use crate::ControlError;
use crate::server::{ServeOptions, Server, default_db, runtime, stop_signal};
use crate::ship::{self, Client, Target};
use crate::store::{DbSpec, Pruned, Store};

/// The store `--db` names (its directory must exist: it is never created), else the default
/// one under `$LOKI_HOME/control` (created, private); `home` is `None` when no home is set.
pub fn db_spec(db: Option<&str>, home: Option<&Path>) -> Result<DbSpec, ControlError> {
    if let Some(d) = db {
        return Ok(DbSpec::parse(d));
    }
    let path = default_db(home.ok_or(ControlError::NoHome)?);
    if let Some(dir) = path.parent() {
        loki_core::fs::ensure_private_dir(dir)?;
    }
    Ok(DbSpec::Sqlite(path))
}

/// The running server the subcommands talk to ([`ship::discover`]), or the error that says how
/// to start one.
pub fn running(home: Option<&Path>) -> Result<Target, ControlError> {
    ship::discover(home).ok_or(ControlError::NotRunning)
}

/// Serves the control plane until SIGINT or SIGTERM; `listening` is told the server once it
/// listens.
pub fn serve(opts: ServeOptions, listening: impl FnOnce(&Server)) -> Result<(), ControlError> {
    runtime()?.block_on(async {
        let server = Server::start(opts).await?;
        listening(&server);
        server.run(stop_signal()).await
    })
}

/// Trusts the public key `pem` in the store `spec`: its key id.
pub fn trust(spec: &DbSpec, pem: &str) -> Result<String, ControlError> {
    runtime()?.block_on(async {
        let store = Store::open(spec).await?;
        let id = store.trust(pem).await;
        store.close().await;
        id
    })
}

/// Removes the runs of `repo` started before `before` from the store `spec`, or only lists them
/// with `dry_run` ([`Store::prune`]).
pub fn prune(
    spec: &DbSpec,
    repo: &str,
    before: &str,
    dry_run: bool,
) -> Result<Pruned, ControlError> {
    runtime()?.block_on(async {
        let store = Store::open(spec).await?;
        let p = store.prune(repo, before, dry_run).await;
        store.close().await;
        p
    })
}

/// What `loki serve status` says of a running server.
#[derive(Debug, Clone)]
pub struct Status {
    pub url: String,
    /// The server's process id, as `/health` gives it (JSON).
    pub pid: serde_json::Value,
    /// The store's engine (`sqlite`, `postgres`), `?` when not said.
    pub engine: String,
    /// The newest run it holds, `none` without one.
    pub latest: String,
}

/// Asks the server `client` talks to for its health and newest run, each answer within
/// `timeout`.
pub fn status(client: &Client, timeout: Duration) -> Result<Status, ControlError> {
    let health = client.get_json("/health", timeout)?;
    let runs = client.get_json("/v1/runs?limit=1", timeout)?;
    Ok(Status {
        url: client.url().to_string(),
        pid: health["pid"].clone(),
        engine: health["engine"].as_str().unwrap_or("?").to_string(),
        latest: runs["runs"][0]["run"]
            .as_str()
            .unwrap_or("none")
            .to_string(),
    })
}

/// The answer posted for run `run` of the repository at `repo` through a running control plane
/// (`POST /v1/runs/:source/:run/answer`), taken so it is used once. `None` when no server is
/// found from `home`, it cannot be reached, or it holds no answer (the caller then asks the
/// user).
#[must_use]
pub fn take_answer(home: Option<&Path>, repo: &Path, run: &str) -> Option<String> {
    let target = ship::discover(home)?;
    let client = Client::new(target).ok()?;
    let root = std::fs::canonicalize(repo).unwrap_or_else(|_| repo.to_path_buf());
    let source = crate::store::source_id(&ship::machine(), &root.display().to_string());
    let (status, body) = client
        .post_json(
            &format!("/v1/runs/{source}/{run}/answer/take"),
            &serde_json::json!({}),
        )
        .ok()?;
    (status == 200)
        .then(|| body.get("answer")?.as_str().map(str::to_string))
        .flatten()
}
