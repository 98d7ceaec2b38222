//! The one error type of delivery contracts and the wall.

use std::path::PathBuf;

/// What went wrong, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    #[error(
        "the contract {path} cannot be used: {reason}; fix it, or write it again with `loki contract SPEC.md`"
    )]
    BadContract { path: PathBuf, reason: String },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ContractError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        ContractError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl loki_core::exit::Classify for ContractError {
    /// A contract file the user wrote that cannot be used is usage (exit 2: fix it and run
    /// again); failing to read or write is a failure of loki.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            ContractError::BadContract { .. } => ExitClass::Usage,
            ContractError::Core(e) => e.exit_class(),
            ContractError::Events(_) | ContractError::Io { .. } => ExitClass::Failure,
        }
    }
}
