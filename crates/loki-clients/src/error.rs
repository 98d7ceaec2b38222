//! The one error type of the crate: why a CLI agent did not finish its task. Each message names
//! the agent and what to do (install it, raise the cap, read the output tail).

use std::time::Duration;

/// A CLI agent that could not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "{agent} is not installed (not found on PATH); install it with `{install}` or choose another provider"
    )]
    NotInstalled {
        agent: &'static str,
        install: &'static str,
    },

    #[error("{agent} did not finish within {}s and was killed with its process group; output tail:\n{tail}", timeout.as_secs())]
    Timeout {
        agent: &'static str,
        timeout: Duration,
        tail: String,
    },

    #[error("{agent} exited with code {code} ({command}); output tail:\n{tail}")]
    Failed {
        agent: &'static str,
        command: String,
        code: i32,
        tail: String,
    },

    #[error("cannot run {agent}: {source}")]
    Process {
        agent: &'static str,
        #[source]
        source: loki_process::ProcessError,
    },

    /// The blocking thread that ran the agent panicked or was cancelled.
    #[error("a tool task failed to complete: {message}")]
    Join { message: String },
}

impl loki_core::exit::Classify for ClientError {
    /// A missing program is the user's setup (usage); an agent that ran and failed is a failure.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            ClientError::NotInstalled { .. } => loki_core::exit::ExitClass::Usage,
            ClientError::Timeout { .. }
            | ClientError::Failed { .. }
            | ClientError::Process { .. }
            | ClientError::Join { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}
