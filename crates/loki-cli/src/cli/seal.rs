//! `loki seal start|stop|check|declare|status|install`: the stop hook for coding agents.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub enum SealCommand {
    /// SessionStart hook: join this worktree's open baseline, or record the first one (the suites'
    /// results and a snapshot of the tree; hook JSON on stdin)
    Start(SealStartArgs),
    /// Stop and SubagentStop hook: refuse "done" when tests newly fail or were deleted, skipped
    /// or weakened since the worktree's baseline
    Stop(SealHookArgs),
    /// Make the tree as it is now this worktree's baseline (snapshot and suites now); the
    /// changes before it are named NOT PROVEN in the next receipt
    Reset,
    /// Compare the working tree with a revision, without an agent (exit 0 clean, 1 findings,
    /// 3 cannot judge, 4 declare: the change alters what existing tests expect)
    Check {
        /// The revision to compare against
        #[arg(long, default_value = "HEAD")]
        base: String,
        /// Declarations of intent (JSON: `[{"test", "reason", "kind": "expectation"|"contradiction"}]`)
        #[arg(long, value_name = "FILE")]
        declared: Option<PathBuf>,
        /// Record the check as a run with a signed receipt (.loki/runs/<run>/)
        #[arg(long)]
        receipt: bool,
    },
    /// Declare that a test's changed expectation (or its removal with its code) was asked for,
    /// or, with --contradiction, that a test contradicts the task; then stop again
    Declare {
        /// The tests, as the refusal named them
        #[arg(required = true, value_name = "TEST")]
        tests: Vec<String>,
        /// Why: the user's words (or which requirement the test contradicts)
        #[arg(long)]
        reason: String,
        /// The tests contradict the task: the session ends released, NOT VERIFIED
        #[arg(long)]
        contradiction: bool,
        /// Any session of the worktree's lineage (default: the worktree of the current directory)
        #[arg(long)]
        session: Option<String>,
    },
    /// This worktree's baseline (when and by which session it was taken, the sessions that
    /// joined it, blocks, releases) and whether each agent will run its hooks
    Status {
        /// Every worktree's baseline, not only this one's
        #[arg(long)]
        all: bool,
    },
    /// Register the seal's hooks in this repository's agent settings (merged, never clobbered)
    Install {
        #[arg(long, value_enum)]
        agent: AgentName,
        /// The program the hooks run [default: the absolute path of this loki]
        #[arg(long)]
        command: Option<String>,
        /// Seconds each hook may run [default: sized from the suite's measured time: the last
        /// seal session's start in this repository, else one run of the suite now]
        #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
        timeout: Option<u64>,
    },
}

#[derive(Debug, Args)]
pub struct SealStartArgs {
    #[command(flatten)]
    pub hook: SealHookArgs,
    /// Reset the worktree's baseline to the tree now, as `loki seal reset` (recorded the same way)
    #[arg(long)]
    pub rebaseline: bool,
}

#[derive(Debug, Args)]
pub struct SealHookArgs {
    /// Which agent's hook protocol to speak
    #[arg(long, value_enum, default_value = "claude")]
    pub agent: AgentName,
}

/// Coding agents with a hook protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentName {
    Claude,
    Codex,
    Cursor,
    Gemini,
}
