//! The error type of `loki-heal`. Each variant names what failed, carries the evidence and says
//! what to do next.

use std::path::PathBuf;

/// Errors of recording, diagnosing, patching and replaying incidents.
#[derive(Debug, thiserror::Error)]
pub enum HealError {
    #[error("{path}: {problem}; record the crash again with `loki run -- <command>`")]
    BadIncident { path: PathBuf, problem: String },

    #[error(
        "run {run} has no incident ({path} is missing); `loki runs list` shows runs, incidents come from `loki run`"
    )]
    NotAnIncident { run: String, path: PathBuf },

    #[error(
        "no incident recorded in {dir}; run the crashing command under `loki run -- <command>` first"
    )]
    NoIncident { dir: PathBuf },

    #[error("nothing to run: give the command after `--`, e.g. `loki run -- python3 app.py`")]
    EmptyCommand,

    #[error(
        "the page check could not tell whether the page crashes: {detail}; no incident was recorded"
    )]
    PageHarness { detail: String },

    /// `loki replay --video` of an incident that is not a web page's.
    #[error(
        "--video records a web page's replay; incident {run} is a process crash (record pages with `loki run --url`)"
    )]
    NotAPage { run: String },

    /// `loki run --url`'s page, steps or served directory cannot be used as given.
    #[error("{0}")]
    PageSpec(String),

    #[error(transparent)]
    Browser(#[from] loki_browser::BrowserError),

    /// `loki fix --demo` finds neither interpreter its example is written for.
    #[error("the healing demo needs python3 or node on PATH")]
    NoInterpreter,

    /// The demo's bundled example ran without crashing: the bundled bytes or this loki are wrong.
    #[error("the {what} did not crash; this build of loki is broken")]
    DemoDidNotCrash { what: &'static str },

    /// The demo's file no longer holds the bundled bytes, so its built-in patch does not apply.
    #[error("the bundled example was changed; no built-in patch applies")]
    DemoChanged,

    #[error("{program} not found: {detail}")]
    CommandNotFound { program: String, detail: String },

    #[error(
        "no source file of this crash is inside the repository {root}{refused}; loki only edits files in the repository"
    )]
    NoSource { root: PathBuf, refused: String },

    #[error("the model's patch was rejected {attempts} times; last problem: {problem}")]
    BadModelAnswer { attempts: u32, problem: String },

    #[error("{path} is read-only; loki does not change files you protected: make it writable (`chmod u+w {path}`) and retry", path = path.display())]
    ReadOnly { path: PathBuf },

    #[error("a backup {} exists from an earlier fix that was never verified or rolled back; `loki fix --restore` puts the original back (or delete the backup to keep the current file)", backup.display())]
    StaleBackup { backup: PathBuf },

    #[error("{path} changed after the patch was shown; nothing was applied: run `loki fix --apply` again", path = path.display())]
    ChangedUnderneath { path: PathBuf },

    #[error("no model is configured for `loki fix --apply`: {hint}")]
    NoModel { hint: String },

    #[error(
        "`{provider}` is a CLI agent that edits files itself; `loki fix` asks a model for one JSON patch: choose openai, anthropic or scripted (e.g. --model openai/gpt-4.1)"
    )]
    CliProvider { provider: String },

    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot run `{command}`: {source}")]
    Process {
        command: String,
        #[source]
        source: loki_process::ProcessError,
    },

    #[error("the async runtime for the model call could not start: {0}")]
    Runtime(std::io::Error),

    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Patch(#[from] loki_patch::PatchError),
    #[error(transparent)]
    Agent(#[from] loki_agent::AgentError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
}

impl HealError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        HealError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl loki_core::exit::Classify for HealError {
    /// The user's input or setup (an incident, a command, a protected file, a stale backup, the
    /// model choice) is usage; the rest is a failure while healing.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            HealError::BadIncident { .. }
            | HealError::NotAnIncident { .. }
            | HealError::NoIncident { .. }
            | HealError::EmptyCommand
            | HealError::NoInterpreter
            | HealError::CommandNotFound { .. }
            | HealError::PageHarness { .. }
            | HealError::PageSpec(_)
            | HealError::NotAPage { .. }
            | HealError::NoSource { .. }
            | HealError::ReadOnly { .. }
            | HealError::StaleBackup { .. }
            | HealError::ChangedUnderneath { .. }
            | HealError::NoModel { .. }
            | HealError::CliProvider { .. } => ExitClass::Usage,
            HealError::Patch(e) => e.exit_class(),
            HealError::Core(e) => e.exit_class(),
            HealError::Agent(e) => e.exit_class(),
            HealError::Receipt(e) => e.exit_class(),
            HealError::BadModelAnswer { .. }
            | HealError::DemoDidNotCrash { .. }
            | HealError::DemoChanged
            | HealError::Io { .. }
            | HealError::Process { .. }
            | HealError::Runtime(_)
            | HealError::Browser(_)
            | HealError::Events(_) => ExitClass::Failure,
        }
    }
}
