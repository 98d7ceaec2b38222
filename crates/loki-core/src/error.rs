//! The error type of `loki-core`. Every variant names the file or value that failed and what to do.

use std::path::PathBuf;

use crate::exit::{Classify, ExitClass};

/// Errors from the shared vocabulary: file I/O, layout checks, config parsing and the run store.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "not inside a git repository (looked from {start} upwards for .git); run loki inside a repository or `git init` one"
    )]
    NotARepo { start: PathBuf },
    #[error("{path} is {what}; loki keeps its state in a directory there: move it away and retry")]
    BadLokiDir { path: PathBuf, what: String },
    #[error("invalid run id {id:?}: expected run_YYYYMMDD_HHMMSS_xxxx (UTC time and 4 hex digits)")]
    BadRunId { id: String },
    #[error("no run {id} in {dir}; `loki runs list` shows the runs there")]
    RunNotFound { id: String, dir: PathBuf },
    #[error("{path} is not a valid run record: {reason}")]
    BadRunRecord { path: PathBuf, reason: String },
    #[error("{source_name}{line}: {message}", line = fmt_line(*.line))]
    Config {
        /// Where the bad value came from: a file path, an environment variable or a flag.
        source_name: String,
        line: Option<usize>,
        message: String,
    },
    #[error("unknown key {key:?}; `loki config show` lists the keys")]
    UnknownKey { key: String },
    #[error("{key}: {why}")]
    BadValue { key: String, why: String },
    #[error(
        "{key} is a secret: keep it out of the repository (use the user file or the {env} variable)"
    )]
    SecretInRepo { key: String, env: String },
    #[error("{} is not valid TOML, so it was not changed: {reason}", path.display())]
    NotToml { path: PathBuf, reason: String },
    #[error(
        "{} exists; pass --force to replace it, or `loki config set` to change one key",
        path.display()
    )]
    ConfigExists { path: PathBuf },
    #[error("cannot encode {what} as JSON: {source}")]
    Json {
        what: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

fn fmt_line(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

impl CoreError {
    /// Wraps an I/O error with the action and the path it concerned.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CoreError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl Classify for CoreError {
    /// The user's input or repository (a bad flag, file or value, not a repo) is usage; I/O and
    /// broken records are failures of the machine.
    fn exit_class(&self) -> ExitClass {
        match self {
            CoreError::NotARepo { .. }
            | CoreError::BadLokiDir { .. }
            | CoreError::BadRunId { .. }
            | CoreError::RunNotFound { .. }
            | CoreError::Config { .. }
            | CoreError::UnknownKey { .. }
            | CoreError::BadValue { .. }
            | CoreError::SecretInRepo { .. }
            | CoreError::NotToml { .. }
            | CoreError::ConfigExists { .. } => ExitClass::Usage,
            CoreError::Io { .. } | CoreError::BadRunRecord { .. } | CoreError::Json { .. } => {
                ExitClass::Failure
            }
        }
    }
}
