//! What a build run is asked to do, and how it reports progress while it runs.

use std::path::PathBuf;
use std::time::Duration;

use loki_agent::{Backend, PriceTable};
use loki_core::run::RunKind;
use loki_process::Cancel;
use loki_protocol::{Stage, StageState};
use loki_receipt::KeyEnv;

/// Default run cap (`run.cap_s`): long enough for a model to implement and a mid-sized suite to
/// run twice, short enough that a stuck run ends within a coffee break.
pub const DEFAULT_CAP: Duration = Duration::from_secs(900);
/// Default run cap with `--deep` (`run.deep_cap_s`).
pub const DEFAULT_DEEP_CAP: Duration = Duration::from_secs(2700);

/// The task as the user gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInput {
    pub text: String,
    /// `text`, `file:<path>`, `demo`: the receipt's `task.source`.
    pub source: String,
}

/// The issue a task came from (`loki owner/repo#N`): its canonical reference, the receipt's
/// `task.ref`, and its normalised JSON, written as `issue.json` in the run's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssueInput {
    pub reference: String,
    pub json: Vec<u8>,
}

/// How one build run goes.
#[derive(Debug)]
pub struct BuildOptions {
    pub task: TaskInput,
    /// [`RunKind::Build`] (plan and wall) or [`RunKind::Quick`] (neither).
    pub kind: RunKind,
    /// The model: a provider for the built-in loop or a CLI agent.
    pub backend: Backend,
    /// The provider's name as chosen (`scripted`, `anthropic`, ...), for the receipt.
    pub provider_label: String,
    pub prices: PriceTable,
    /// The run cap; the soft cap leaves [`crate::caps::reserve_for`] of it for commit and seal.
    pub cap: Duration,
    /// Stop when the measured cost reaches this many dollars. Refused before the run starts
    /// when the backend's cost cannot be measured (an unpriced model).
    pub max_cost_usd: Option<f64>,
    /// Stop when the tokens used (every bucket, all sessions) reach this many: the cap that
    /// holds for any model, priced or not.
    pub max_tokens: Option<u64>,
    /// Keep the worktree and branch of a run that produced no change (`--keep`).
    pub keep: bool,
    /// Run every check (the full suite), not only the impacted ones.
    pub deep: bool,
    /// Commit the change on the run's branch (`--no-commit` turns it off).
    pub commit: bool,
    /// `$LOKI_HOME`: signing key and caches.
    pub home: PathBuf,
    /// Where the signing key comes from besides `home`.
    pub key_env: KeyEnv,
    /// Timeout of one check run (`checks.timeout_s`).
    pub check_timeout: Duration,
    /// Set by SIGINT (or a caller): the run stops at the next safe point and still seals.
    pub cancel: Cancel,
    /// The command line recorded in `run.json`.
    pub command: Vec<String>,
    /// Model turns per agent session.
    pub max_turns: u32,
    /// The `loki` binary, whose hidden `__confine` subcommand confines the agent's commands and
    /// the checks of its code ([`loki_process::confine`]). `None` (a library caller without the
    /// binary): nothing is confined, and the receipt says so in NOT PROVEN.
    pub confine_exe: Option<PathBuf>,
    /// Whether the agent's commands may use the network (`agent.network`); the choice to allow
    /// it is recorded in NOT PROVEN.
    pub network: loki_process::confine::Network,
    /// Told each command the model runs (`-v`).
    pub on_command: Option<loki_agent::RunHook>,
    /// The delivery contract the caller chose (`--contract FILE`, a follow-up's resolved
    /// contract); `None`: `.loki/contract.json`, else the task's criteria ([`crate::proof`]).
    pub contract: Option<loki_contract::Contract>,
    /// The issue the task came from, if it did.
    pub issue: Option<IssueInput>,
    /// The branch to build on instead of `loki/<run-id>` (a backlog's `loki/backlog-<N>`); it
    /// must not exist yet, and it is recorded in `run.json`.
    pub branch: Option<String>,
    /// Screenshot the web pages the change touched into the receipt (`visual.rs`);
    /// default from `LOKI_VISUAL_EVIDENCE` (on unless `0`).
    pub visual_evidence: bool,
    /// The browser for the screenshots (`None`: `LOKI_BROWSER`, else Chromium on `PATH`).
    pub browser: Option<PathBuf>,
    /// Reviewers in the review council (`council.reviewers`, `--council N`; 0: none), chosen by
    /// the change's content ([`loki_council::choose`]).
    pub council: usize,
}

impl BuildOptions {
    /// Options with the defaults for everything but the task, backend and home.
    #[must_use]
    pub fn new(task: TaskInput, backend: Backend, provider_label: &str, home: PathBuf) -> Self {
        BuildOptions {
            task,
            kind: RunKind::Build,
            backend,
            provider_label: provider_label.to_string(),
            prices: PriceTable::builtin(),
            cap: DEFAULT_CAP,
            max_cost_usd: None,
            max_tokens: None,
            keep: false,
            deep: false,
            commit: true,
            home,
            key_env: KeyEnv::from_lookup(|_| None),
            check_timeout: Duration::from_secs(600),
            cancel: Cancel::new(),
            command: Vec::new(),
            max_turns: loki_agent::agent::DEFAULT_MAX_TURNS,
            confine_exe: None,
            network: loki_process::confine::Network::Denied,
            on_command: None,
            contract: None,
            issue: None,
            branch: None,
            visual_evidence: crate::visual::enabled_by_env(),
            browser: None,
            council: loki_council::DEFAULT_REVIEWERS,
        }
    }
}

/// What the engine tells its caller while it runs (the CLI's status line, `--verbose`).
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// The run exists: its id, branch and worktree.
    Started {
        run_id: String,
        branch: String,
        worktree: PathBuf,
    },
    StageStarted {
        stage: Stage,
    },
    StageEnded {
        stage: Stage,
        state: StageState,
        seconds: f64,
        detail: String,
    },
    /// Something worth a line in `--verbose`.
    Note(String),
}

/// Receives progress. The engine never prints; the CLI decides what to show.
pub trait Observer {
    fn progress(&self, event: &Progress);
}

/// An observer that ignores everything (tests, benchmarks).
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {
    fn progress(&self, _event: &Progress) {}
}
