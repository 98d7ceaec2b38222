//! The error type of the checks crates (`loki-runner`, its `isolate` included, and
//! `loki-checks`): only loki's own failures. A suite that fails, hangs or cannot start is a
//! [`crate::CheckResult`], never an error.

use std::path::PathBuf;

use loki_core::CoreError;
use loki_git::GitError;

/// What went wrong on loki's side while detecting or running checks.
#[derive(Debug, thiserror::Error)]
pub enum ChecksError {
    #[error("{root} is not a directory; point loki at a repository root")]
    NotADir { root: PathBuf },
    #[error(
        "cannot create a temporary directory for the report of check {check}: {source}; check that $TMPDIR is writable"
    )]
    Temp {
        check: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the log of check {check}: {source}")]
    Log {
        check: String,
        #[source]
        source: CoreError,
    },
    #[error(
        "{rev:?} is not a commit or tree in this repository ({source}); pass a branch, tag or commit id"
    )]
    BadRevision {
        rev: String,
        #[source]
        source: GitError,
    },
    #[error("cannot {action} for the integrity scan or baseline: {source}")]
    Git {
        action: &'static str,
        #[source]
        source: GitError,
    },
    #[error(
        "cannot {action} {path}: {source}; check that the directory is writable and has free space"
    )]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the baseline cache {path}: {source}")]
    Cache {
        path: PathBuf,
        #[source]
        source: CoreError,
    },
    #[error(
        "cannot {action} {path} (needed to run another tree of the repository on its own code): {source}"
    )]
    Isolate {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// loki got SIGINT or SIGTERM: no suite starts after it (a run of a tree the signal may have
    /// cut would be no evidence, and the command is ending).
    #[error("check {check} was not started: loki was interrupted ({signal})")]
    Interrupted { check: String, signal: &'static str },
}

impl loki_core::exit::Classify for ChecksError {
    /// The user's input (a root that is not a directory, a revision that does not exist) is
    /// usage; the rest is loki's own failure.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            ChecksError::NotADir { .. } | ChecksError::BadRevision { .. } => ExitClass::Usage,
            ChecksError::Temp { .. }
            | ChecksError::Log { .. }
            | ChecksError::Git { .. }
            | ChecksError::Io { .. }
            | ChecksError::Cache { .. }
            | ChecksError::Isolate { .. }
            // The signal's own exit code (130, 143) replaces this one at the end of the command.
            | ChecksError::Interrupted { .. } => ExitClass::Failure,
        }
    }
}
