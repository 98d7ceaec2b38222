//! The errors of the MCP server: [`ToolError`] for one tool call (it becomes a tool result with
//! `isError: true`, never a crashed server) and [`McpError`] for the server itself (it cannot bind
//! its port, its transport broke).

use std::path::PathBuf;

/// Why a tool call failed. The message is what the client shows the model and the person: it
/// names the input and the problem, or the library step that failed and why.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// An argument broke a validation rule (see the crate doc): the field and the problem.
    #[error("invalid `{field}`: {problem}")]
    BadInput {
        field: &'static str,
        problem: String,
    },
    /// A repository the server was not started for.
    #[error(
        "invalid `repo`: {repo} is not one of the repositories this server serves ({allowed}); start `loki mcp` there or add `--repo {repo}`"
    )]
    NotServed { repo: PathBuf, allowed: String },
    /// A run that has no receipt (still running, or ended before its seal).
    #[error("run {run} has no receipt ({state})")]
    NoReceipt { run: String, state: String },
    /// The background `loki` exited before it recorded its run.
    #[error(
        "the background loki exited with status {code} before it recorded a run; its output:\n{output}"
    )]
    NotStarted { code: i32, output: String },
    /// The background `loki` is running but recorded no run in time.
    #[error(
        "the background loki (pid {pid}) recorded no run within {seconds}s; its output so far is in {log}"
    )]
    NoRunYet {
        pid: u32,
        seconds: u64,
        log: PathBuf,
    },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Process(#[from] loki_process::ProcessError),
    #[error(transparent)]
    Engine(#[from] loki_engine::EngineError),
    #[error(transparent)]
    Seal(#[from] loki_seal::SealError),
    #[error(transparent)]
    Heal(#[from] loki_heal::HealError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl ToolError {
    /// A validation failure of `field`.
    pub(crate) fn bad(field: &'static str, problem: impl Into<String>) -> ToolError {
        ToolError::BadInput {
            field,
            problem: problem.into(),
        }
    }

    /// The message shown to the client: this error and every cause under it, so a library error's
    /// evidence (a git message, a path) is not lost behind a summary line.
    #[must_use]
    pub fn message(&self) -> String {
        let mut out = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            let text = s.to_string();
            if !out.contains(&text) {
                out.push_str(": ");
                out.push_str(&text);
            }
            source = s.source();
        }
        out
    }
}

/// Why the server itself could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("cannot start the server's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the MCP session over stdio failed: {0}")]
    Stdio(String),
    #[error("the HTTP server failed: {0}")]
    Http(#[source] std::io::Error),
}

impl loki_core::exit::Classify for McpError {
    /// A port in use or a broken transport is a failure of the run, not of the command line.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            McpError::Runtime(_)
            | McpError::Bind { .. }
            | McpError::Stdio(_)
            | McpError::Http(_) => loki_core::exit::ExitClass::Failure,
        }
    }
}
