//! The error type of `loki-seal`.

use std::path::PathBuf;

/// Errors of the seal. The stop hook turns every one of them into a block (fail closed).
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// `seal install` without `--command`: this binary's path cannot be found.
    #[error("cannot tell where this loki is; name it with --command PATH")]
    NoExe(#[source] std::io::Error),
    /// `seal install` without `--command`: this binary's path cannot go into a hook's JSON.
    #[error("this loki's path {} is not UTF-8; name it with --command PATH", path.display())]
    ExeNotUtf8 { path: std::path::PathBuf },
    /// SIGINT or SIGTERM came while the suites ran: the change was not judged (the signal's exit
    /// code, 130 or 143, ends the command).
    #[error(
        "interrupted ({signal}) before the change was judged: nothing was found or cleared; run the command again"
    )]
    Interrupted { signal: &'static str },
    /// A hook command without loki's home (the seal's state and signing key live there).
    #[error(
        "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache"
    )]
    NoHome,
    #[error(
        "no seal baseline for session {session:?} (looked for {path}); the SessionStart hook `loki seal start` records it — run `loki seal install --agent <agent>` so it runs"
    )]
    NoBaseline { session: String, path: PathBuf },
    #[error("{path} is not a valid seal state: {reason}")]
    BadState { path: PathBuf, reason: String },
    #[error("the hook input on stdin is not valid JSON: {0}")]
    BadInput(String),
    #[error("{path}: {reason}")]
    BadDeclarations { path: PathBuf, reason: String },
    #[error(
        "{test:?} names no test whose expectation this change alters, so the declaration was refused (declare only what the judge listed); the changes to declare: {changes}"
    )]
    Undeclarable { test: String, changes: String },
    #[error(
        "no seal session in {repo} has been judged yet, so there is nothing to declare: stop first (the refusal lists the tests to declare), or name the session with --session"
    )]
    NothingToDeclare { repo: PathBuf },
    #[error("{path} is not valid JSON, so it was left unchanged: {reason}")]
    BadSettings {
        path: PathBuf,
        reason: crate::install::SettingsError,
    },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Checks(#[from] loki_runner::ChecksError),
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

impl loki_core::exit::Classify for SealError {
    /// The user must change something (input, settings) for usage; the rest is a failure.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            SealError::NoBaseline { .. }
            | SealError::NoHome
            | SealError::BadInput(_)
            | SealError::BadDeclarations { .. }
            | SealError::Undeclarable { .. }
            | SealError::NothingToDeclare { .. }
            | SealError::BadSettings { .. } => ExitClass::Usage,
            SealError::Core(e) => e.exit_class(),
            SealError::Checks(e) => e.exit_class(),
            SealError::Git(e) => e.exit_class(),
            SealError::Receipt(e) => e.exit_class(),
            SealError::BadState { .. }
            | SealError::Events(_)
            | SealError::WorkerPanicked { .. }
            | SealError::Io { .. }
            | SealError::NoExe(_)
            | SealError::ExeNotUtf8 { .. }
            | SealError::Interrupted { .. } => ExitClass::Failure,
        }
    }
}
