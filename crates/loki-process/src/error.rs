//! The errors of the process runner.

use std::io;
use std::path::PathBuf;

/// Errors of the process runner. Each names the program; none leaves a child running.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("{program} not found (PATH={path}); install it or put it on PATH")]
    NotFound { program: String, path: String },
    #[error("cannot run {program}: working directory {cwd} does not exist or is not a directory")]
    NoCwd { program: String, cwd: PathBuf },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error(
        "cannot start {program}: its input is {bytes} bytes, more than the {cap} a child may be fed; pass it in a file instead"
    )]
    StdinTooLarge {
        program: String,
        bytes: usize,
        cap: usize,
    },
    #[error("lost track of {program} while {action} (its process group was killed): {source}")]
    Io {
        program: String,
        action: &'static str,
        #[source]
        source: io::Error,
    },
}

impl ProcessError {
    /// The program is not installed or not on PATH: callers report `not_run`, never `fail`.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        match self {
            ProcessError::NotFound { .. } => true,
            ProcessError::NoCwd { .. }
            | ProcessError::Spawn { .. }
            | ProcessError::StdinTooLarge { .. }
            | ProcessError::Io { .. } => false,
        }
    }

    /// The program the error is about.
    #[must_use]
    pub fn program(&self) -> &str {
        match self {
            ProcessError::NotFound { program, .. }
            | ProcessError::NoCwd { program, .. }
            | ProcessError::Spawn { program, .. }
            | ProcessError::StdinTooLarge { program, .. }
            | ProcessError::Io { program, .. } => program,
        }
    }
}

impl loki_core::exit::Classify for ProcessError {
    /// A program that cannot start is a failure here: the caller knows what it was for, and a
    /// caller for which a missing program is the user's to install says so in its own error
    /// (`HealError::CommandNotFound`), or records the check as not run.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            ProcessError::NotFound { .. }
            | ProcessError::NoCwd { .. }
            | ProcessError::Spawn { .. }
            | ProcessError::StdinTooLarge { .. }
            | ProcessError::Io { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}
