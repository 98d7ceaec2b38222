//! The error type of `loki-improve`. Outcomes of a cycle (busy, paused, stale, …) are not errors:
//! they are [`crate::Outcome`]s. An error is something that stopped the cycle from reaching one.

use std::path::PathBuf;

use loki_core::exit::{Classify, ExitClass};

/// What went wrong outside the cycle's own outcomes.
#[derive(Debug, thiserror::Error)]
pub enum ImproveError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}: {reason}; fix or remove it (`loki improve status` shows the settings in force)"
    )]
    BadConfig { path: PathBuf, reason: String },
    #[error("{path} is not a valid {what}: {reason}")]
    BadRecord {
        what: &'static str,
        path: PathBuf,
        reason: String,
    },
    #[error("no pending proposal {id} in {dir}; `loki improve pending` lists them")]
    NoPending { id: String, dir: PathBuf },
    #[error("no revision {revision} is kept in {dir}; `loki improve history` lists the revisions")]
    NoRevision { revision: String, dir: PathBuf },
    #[error("nothing to roll back: no applied change is recorded in {audit}")]
    NothingToRollBack { audit: PathBuf },
    #[error("run {id} cannot be a protected case: {reason}")]
    BadProtect { id: String, reason: String },
    #[error(
        "another `loki improve` is working on this repository (lock {lock} held by pid {pid}); wait for it, or `loki improve status`"
    )]
    Busy { lock: PathBuf, pid: String },
    #[error("`loki improve` is paused ({by}); nothing is applied while it is")]
    Paused { by: String },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
    #[error(transparent)]
    Git(#[from] loki_git::GitError),
    #[error(transparent)]
    Engine(#[from] loki_engine::EngineError),
    #[error(transparent)]
    Agent(#[from] loki_agent::AgentError),
}

impl ImproveError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        ImproveError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl Classify for ImproveError {
    fn exit_class(&self) -> ExitClass {
        match self {
            ImproveError::BadConfig { .. }
            | ImproveError::NoPending { .. }
            | ImproveError::NoRevision { .. }
            | ImproveError::NothingToRollBack { .. }
            | ImproveError::BadProtect { .. }
            | ImproveError::Busy { .. }
            | ImproveError::Paused { .. } => ExitClass::Usage,
            ImproveError::Io { .. } | ImproveError::BadRecord { .. } => ExitClass::Failure,
            ImproveError::Core(e) => e.exit_class(),
            ImproveError::Events(e) => e.exit_class(),
            ImproveError::Receipt(e) => e.exit_class(),
            ImproveError::Git(e) => e.exit_class(),
            ImproveError::Engine(e) => e.exit_class(),
            ImproveError::Agent(e) => e.exit_class(),
        }
    }
}
