//! The engine's one error type. A stage that fails *inside* a run is recorded in the run (a
//! `stage.failed` event, a NOT PROVEN entry) and the run still commits and seals; these errors are
//! what stops a run from starting or from being sealed at all.

use std::path::PathBuf;

/// What went wrong, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(
        "the working tree has uncommitted changes to tracked files: {}; commit or stash them first (loki builds from a clean commit and never touches your checkout)",
        files.join(", ")
    )]
    DirtyTree { files: Vec<String> },
    #[error(
        "the repository has no commits yet; commit something first (loki builds from a commit)"
    )]
    NoCommits,
    #[error("the task is empty; describe what to build")]
    EmptyTask,
    #[error(
        "--max-cost {} cannot hold: {model:?} has no price in the price table, so its cost is not measured; add its price to a file named by provider.prices (TOML: [\"{model}\"] input = 0.0, output = 0.0, cache_read = 0.0, cache_write = 0.0, in USD per million tokens), or cap tokens with --max-tokens N instead",
        loki_agent::cost::usd(*max_usd)
    )]
    UnpricedCap { model: String, max_usd: f64 },
    #[error("run {run} is not BLOCKED ({state}): there is no question to answer")]
    NotBlocked { run: String, state: String },
    #[error(
        "run {run} asked which of {first} and {second} holds: name exactly one of them in the answer (for example \"{first}: <why>\")"
    )]
    UnclearAnswer {
        run: String,
        first: String,
        second: String,
    },
    #[error("run {run} not found in {dir}")]
    RunNotFound { run: String, dir: PathBuf },
    #[error("{action}: {detail}")]
    Refused {
        action: &'static str,
        detail: String,
    },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Git(#[from] loki_git::GitError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
    #[error(transparent)]
    Checks(#[from] loki_runner::ChecksError),
    #[error(transparent)]
    Agent(#[from] loki_agent::AgentError),
    #[error(transparent)]
    RepoMap(#[from] loki_repomap::RepoMapError),
    #[error(transparent)]
    Contract(#[from] loki_contract::ContractError),
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
}

impl EngineError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        EngineError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl loki_core::exit::Classify for EngineError {
    /// The user's input or repository state (a dirty tree, no commits, an empty task, a refused
    /// action) is usage; the rest is a failure of loki.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            EngineError::DirtyTree { .. }
            | EngineError::NoCommits
            | EngineError::EmptyTask
            | EngineError::UnpricedCap { .. }
            | EngineError::RunNotFound { .. }
            | EngineError::NotBlocked { .. }
            | EngineError::UnclearAnswer { .. }
            | EngineError::Refused { .. } => ExitClass::Usage,
            EngineError::Core(e) => e.exit_class(),
            EngineError::Receipt(e) => e.exit_class(),
            EngineError::Checks(e) => e.exit_class(),
            EngineError::Agent(e) => e.exit_class(),
            EngineError::Git(e) => e.exit_class(),
            EngineError::RepoMap(e) => e.exit_class(),
            EngineError::Contract(e) => e.exit_class(),
            EngineError::Events(_) | EngineError::Io { .. } | EngineError::Runtime(_) => {
                ExitClass::Failure
            }
        }
    }
}
