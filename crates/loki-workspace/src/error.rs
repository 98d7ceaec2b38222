//! The error type of `loki-workspace`: each names what failed and what to do. Errors of the
//! crates it calls pass through unchanged (`transparent`: the same words and causes) and keep
//! their own exit class.

use std::path::PathBuf;

use loki_core::exit::{Classify, ExitClass};

/// Why build options could not be made, or a workspace run or backlog could not start or end.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// No provider is configured and `auto` found none.
    #[error(
        "no model provider is available ({reason}); set ANTHROPIC_API_KEY or OPENAI_API_KEY, point openai.base_url at a local server, install an agent CLI, or pass --provider scripted --script FILE"
    )]
    NoProvider { reason: String },
    /// Neither `LOKI_HOME` nor `HOME` is set.
    #[error(
        "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache"
    )]
    NoHome,
    /// A repository of a workspace is not a git checkout (`why`: the discovery error's words).
    #[error("workspace {workspace}: {name} ({}) is not a git repository: {why}", path.display())]
    NotARepo {
        workspace: String,
        name: String,
        path: PathBuf,
        why: String,
    },
    /// `latest` in a repository with no runs.
    #[error("no runs in {}; a run is recorded when a loki command runs here", dir.display())]
    NoRuns { dir: PathBuf },
    /// A delivery contract for a quick run, which has no acceptance wall to prove it.
    #[error(
        "a quick run has no acceptance wall, so nothing would prove a contract: use `loki run-task` or `loki \"<task>\"`"
    )]
    ContractOnQuick,
    /// A spec with nothing `loki contract` takes as a criterion.
    #[error(
        "no acceptance criteria in {source_name}: loki takes checklist items (- [ ] …) and the items of lists under a heading such as \"Acceptance criteria\", \"Requirements\", \"Must\" or \"Definition of done\""
    )]
    NoCriteria { source_name: String },
    /// `loki checks run NAME`: no detected suite has that name.
    #[error("no check named {name:?}; detected: {detected}")]
    NoSuchCheck { name: String, detected: String },
    /// The directory of the workspace records cannot be created.
    #[error("cannot create {}: {error}", path.display())]
    RecordsDir {
        path: PathBuf,
        error: std::io::Error,
    },
    /// `--contract FILE` names no file.
    #[error("--contract {}: no such file", path.display())]
    NoContractFile { path: PathBuf },
    #[error(transparent)]
    Unknown(#[from] crate::UnknownWorkspace),
    #[error(transparent)]
    Agent(#[from] loki_agent::AgentError),
    #[error(transparent)]
    Engine(#[from] loki_engine::EngineError),
    #[error(transparent)]
    Contract(#[from] loki_contract::ContractError),
    #[error(transparent)]
    Intake(#[from] loki_intake::IntakeError),
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Improve(#[from] loki_improve::ImproveError),
    #[error(transparent)]
    Checks(#[from] loki_runner::ChecksError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl Classify for WorkspaceError {
    fn exit_class(&self) -> ExitClass {
        match self {
            WorkspaceError::NoProvider { .. }
            | WorkspaceError::NoHome
            | WorkspaceError::NotARepo { .. }
            | WorkspaceError::NoSuchCheck { .. }
            | WorkspaceError::ContractOnQuick
            | WorkspaceError::NoCriteria { .. }
            | WorkspaceError::NoRuns { .. }
            | WorkspaceError::NoContractFile { .. } => ExitClass::Usage,
            WorkspaceError::Unknown(e) => e.exit_class(),
            WorkspaceError::Agent(e) => e.exit_class(),
            WorkspaceError::Engine(e) => e.exit_class(),
            WorkspaceError::Contract(e) => e.exit_class(),
            WorkspaceError::Intake(e) => e.exit_class(),
            WorkspaceError::Core(e) => e.exit_class(),
            WorkspaceError::Improve(e) => e.exit_class(),
            WorkspaceError::Checks(e) => e.exit_class(),
            WorkspaceError::Events(e) => e.exit_class(),
            WorkspaceError::RecordsDir { .. } | WorkspaceError::Json(_) | WorkspaceError::Io(_) => {
                ExitClass::Failure
            }
        }
    }
}

/// `err` and its causes as one line, `outer: cause: cause` (how a row of a backlog or workspace
/// run keeps an error it does not stop for).
#[must_use]
pub fn chain_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut s = err.to_string();
    let mut next = err.source();
    while let Some(e) = next {
        s.push_str(": ");
        s.push_str(&e.to_string());
        next = e.source();
    }
    s
}
