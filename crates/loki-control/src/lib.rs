//! loki's control plane: every run of every repository on one HTTP API (and, later, a web UI),
//! stored in SQLite for one person or PostgreSQL for a team.
//!
//! # Pieces
//!
//! - [`store`]: one schema, migrated at start, with the same SQL on SQLite and PostgreSQL.
//! - [`check`]: the pure verification of what arrives: a run's hash chain (with redacted lines)
//!   and its signed receipt, giving the run's state `intact`, `tampered`, `unattested` or
//!   `conflict`.
//! - [`project`]: the runs projection, folded from a run's stored events and receipt.
//! - [`instance`]: one server per `LOKI_HOME` and per SQLite store (a file lock).
//! - [`server`]: the axum server behind `loki serve` (`/health`, `/ready`, `/v1/…`), its security
//!   rules and `$LOKI_HOME/control/instance.json`.
//! - [`ui`]: the web UI (server-rendered HTML and SVG, embedded assets).
//! - [`ship`]: the client side: the wire format of `POST /v1/ingest`, redaction, the background
//!   shipper every run feeds through [`loki_events::EventSink`], and backfill.
//! - [`admin`]: the blocking one-shot calls of `loki serve trust|prune|status` and of
//!   `loki answer` (an answer posted to a running server).
//!
//! # Scale
//!
//! The server keeps no state of its own between requests: everything (runs, conflicts, answers,
//! the live stream, which polls the store) lives in the database, so several `loki serve`
//! instances behind one URL on one PostgreSQL agree by construction.

pub mod admin;
pub mod check;
pub mod instance;
mod params;
pub mod project;
pub mod server;
pub mod ship;
pub mod store;
pub mod ui;

use std::path::PathBuf;

/// Errors of the control plane.
#[derive(Debug, thiserror::Error)]
pub enum ControlError {
    #[error(
        "database {what}: {source}; check that the database is reachable and writable (`loki serve --db`)"
    )]
    Db {
        what: String,
        #[source]
        source: sqlx::Error,
    },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot bind {addr}: {source}; pick another port with --port, or stop what listens there"
    )]
    Bind {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "refusing to listen on {addr} without LOKI_CONTROL_TOKEN: a non-loopback bind serves the network, so set LOKI_CONTROL_TOKEN (clients send it as a Bearer token) or bind 127.0.0.1"
    )]
    TokenRequired { addr: String },
    #[error(
        "another loki serve already serves {what}{}: use it (`loki serve status`), or stop it first (its lock: {})",
        holder(.url.as_deref(), .pid.as_ref().copied()),
        .lock.display()
    )]
    AlreadyServing {
        what: String,
        pid: Option<u32>,
        url: Option<String>,
        lock: PathBuf,
    },
    #[error("{0}")]
    Usage(String),
    #[error(
        "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache"
    )]
    NoHome,
    #[error("no control plane is running: start `loki serve`, or set LOKI_CONTROL_URL")]
    NotRunning,
    #[error("the control plane at {url} answered {status}: {body}")]
    Http {
        url: String,
        status: u16,
        body: String,
    },
    #[error("cannot reach the control plane at {url}: {reason}; is `loki serve` running?")]
    Unreachable { url: String, reason: String },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
}

/// ` at URL (pid N)` for a refusal message; a holder that has not bound yet is "still starting".
fn holder(url: Option<&str>, pid: Option<u32>) -> String {
    let at = url.map_or_else(|| " (still starting)".to_string(), |u| format!(" at {u}"));
    match pid {
        Some(p) => format!("{at} (pid {p})"),
        None => at,
    }
}

impl ControlError {
    pub(crate) fn db(what: impl Into<String>) -> impl FnOnce(sqlx::Error) -> ControlError {
        let what = what.into();
        move |source| ControlError::Db { what, source }
    }

    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> ControlError {
        let path = path.into();
        move |source| ControlError::Io {
            action,
            path,
            source,
        }
    }
}

impl loki_core::exit::Classify for ControlError {
    /// A bad flag or a refused bind is the user's to fix; everything else is the machine's.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            ControlError::Usage(_)
            | ControlError::NoHome
            | ControlError::NotRunning
            | ControlError::TokenRequired { .. }
            | ControlError::AlreadyServing { .. } => ExitClass::Usage,
            ControlError::Core(e) => e.exit_class(),
            ControlError::Events(e) => e.exit_class(),
            ControlError::Receipt(e) => e.exit_class(),
            ControlError::Db { .. }
            | ControlError::Io { .. }
            | ControlError::Bind { .. }
            | ControlError::Http { .. }
            | ControlError::Unreachable { .. } => ExitClass::Failure,
        }
    }
}
