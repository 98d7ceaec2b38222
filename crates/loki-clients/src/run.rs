//! Running a CLI agent: [`CliAgent`] (the client, its program, environment, wrapper, model and
//! timeout) through [`loki_process`], and what it reported ([`CliOutcome`]).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use crate::error::ClientError;
use crate::files::codex_home_of;
use crate::kind::CliKind;
use crate::report::{codex_model, reported};
use crate::usage::Usage;

/// Default time a CLI agent may take: the default run cap (`run.cap_s`).
pub const DEFAULT_CLI_TIMEOUT: Duration = Duration::from_secs(900);
/// Output kept from a CLI agent (head + tail): its final JSON is at the end, its plan at the start.
pub const CLI_OUTPUT_CAP: usize = 4 * 1024 * 1024;
/// Bytes of output quoted in an error.
const ERROR_TAIL_BYTES: usize = 2000;
/// What a finished CLI agent reported.
#[derive(Debug, Clone, PartialEq)]
pub struct CliOutcome {
    pub agent: &'static str,
    /// The command line, for logs.
    pub command: String,
    pub exit_code: i32,
    /// stdout (capped head+tail).
    pub stdout: String,
    /// stderr (capped head+tail).
    pub stderr: String,
    /// Dollars the agent reported; `None` = not measured.
    pub cost_usd: Option<f64>,
    /// Tokens the agent reported, when it reports them.
    pub usage: Option<Usage>,
    /// The model the agent reported it used (else the one it was asked to use).
    pub model: Option<String>,
    /// Its final reply, when it reports one apart from its log (claude's `result`, opencode's
    /// last text); otherwise its whole stdout.
    pub reply: String,
    pub duration: Duration,
}

/// A CLI agent ready to run.
#[derive(Debug, Clone)]
pub struct CliAgent {
    pub kind: CliKind,
    /// The program to start (default: the agent's name, looked up on the env's `PATH`).
    pub program: OsString,
    pub timeout: Duration,
    /// The child's whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// An argv prefix the agent runs through (the engine's filesystem confinement); empty: none.
    pub wrapper: Vec<OsString>,
    /// The model asked for (`--model`); `None`: the client's own default.
    pub model: Option<String>,
    /// The repository's test command, for clients that take one ([`CliKind::test_flags`]).
    pub test_command: Option<String>,
}

impl CliAgent {
    /// An agent with the current environment and [`DEFAULT_CLI_TIMEOUT`].
    #[must_use]
    pub fn new(kind: CliKind) -> CliAgent {
        CliAgent {
            kind,
            program: kind.name().into(),
            timeout: DEFAULT_CLI_TIMEOUT,
            env: std::env::vars_os().collect(),
            wrapper: Vec::new(),
            model: None,
            test_command: None,
        }
    }

    /// Runs the agent on `task` in `worktree`, blocking the thread.
    pub fn run_blocking(&self, task: &str, worktree: &Path) -> Result<CliOutcome, ClientError> {
        let agent = self.kind.name();
        let spec = loki_process::Spec::new(self.program.clone(), worktree)
            .args(self.kind.argv_with_tests(
                task,
                self.model.as_deref(),
                self.test_command.as_deref(),
            ))
            .envs(self.env.clone())
            .timeout(self.timeout)
            .output_cap(CLI_OUTPUT_CAP)
            .streams(loki_process::Streams::Separate)
            .wrapped(&self.wrapper);
        let command = spec.display();
        let out = loki_process::run(&spec).map_err(|e| {
            if e.is_not_found() {
                ClientError::NotInstalled {
                    agent,
                    install: self.kind.install_hint(),
                }
            } else {
                ClientError::Process { agent, source: e }
            }
        })?;
        let tail = || {
            let mut t = out.stderr.tail_text(ERROR_TAIL_BYTES / 2);
            t.push_str(&out.output.tail_text(ERROR_TAIL_BYTES / 2));
            t
        };
        if out.timed_out {
            return Err(ClientError::Timeout {
                agent,
                timeout: self.timeout,
                tail: tail(),
            });
        }
        if !out.success() {
            return Err(ClientError::Failed {
                agent,
                command,
                code: out.exit_code(),
                tail: tail(),
            });
        }
        let stdout = out.output.text();
        let stderr = out.stderr.text();
        let r = reported(self.kind, &stdout, &stderr);
        let codex_model = match self.kind {
            CliKind::Codex => codex_home_of(&self.env).and_then(|home| codex_model(&stdout, &home)),
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => None,
        };
        Ok(CliOutcome {
            agent,
            command,
            exit_code: out.exit_code(),
            cost_usd: r.cost_usd,
            usage: r.usage,
            model: r.model.or(codex_model).or_else(|| self.model.clone()),
            reply: r.reply.unwrap_or_else(|| stdout.clone()),
            stdout,
            stderr,
            duration: out.duration,
        })
    }

    /// [`CliAgent::run_blocking`] on a blocking thread.
    pub async fn run(&self, task: &str, worktree: &Path) -> Result<CliOutcome, ClientError> {
        let me = self.clone();
        let task = task.to_string();
        let worktree = worktree.to_path_buf();
        tokio::task::spawn_blocking(move || me.run_blocking(&task, &worktree))
            .await
            .map_err(|e| ClientError::Join {
                message: e.to_string(),
            })?
    }
}
