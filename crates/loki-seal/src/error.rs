//! The error type of `loki-seal`.

use std::path::PathBuf;

/// Errors of the seal. The stop hook turns every one of them into a block (fail closed).
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error(
        "no seal baseline for session {session:?} (looked for {path}); the SessionStart hook `loki seal start` records it — run `loki seal install --agent <agent>` so it runs"
    )]
    NoBaseline { session: String, path: PathBuf },
    #[error("{path} is not a valid seal state: {reason}")]
    BadState { path: PathBuf, reason: String },
    #[error("the hook input on stdin is not valid JSON: {0}")]
    BadInput(String),
    #[error("{path} is not valid JSON, so it was left unchanged: {reason}")]
    BadSettings { path: PathBuf, reason: String },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Checks(#[from] loki_checks::ChecksError),
    #[error(transparent)]
    Git(#[from] loki_git::GitError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
    #[error("a seal worker thread panicked while {task}; this is a bug in loki, please report it")]
    WorkerPanicked { task: &'static str },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl SealError {
    /// True when the user must change something (input, settings), as opposed to a failure.
    #[must_use]
    pub fn is_usage(&self) -> bool {
        match self {
            SealError::NoBaseline { .. }
            | SealError::BadInput(_)
            | SealError::BadSettings { .. } => true,
            SealError::Core(e) => e.is_usage(),
            SealError::Checks(e) => e.is_usage(),
            SealError::BadState { .. }
            | SealError::Git(_)
            | SealError::Events(_)
            | SealError::Receipt(_)
            | SealError::WorkerPanicked { .. }
            | SealError::Io { .. } => false,
        }
    }
}
