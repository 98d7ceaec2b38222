//! The command line: every command the product has, with one line each.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod ci;
mod seal;
pub use ci::{CiCommand, CiCommentArgs, CiJudgeArgs, CiName, CiPostArgs};
pub use seal::{AgentName, SealCommand};

/// The examples under `loki -h`.
const AFTER_HELP: &str =
    "Build a task:  loki \"add a --verbose flag to the CLI\"\nTry it offline: loki demo";

/// `loki --help` adds the environment variables loki reads, from the one registry.
fn after_long_help() -> String {
    format!("{AFTER_HELP}\n\n{}", loki_core::env::help_text().trim_end())
}

/// Coding agents say "done"; loki proves it.
///
/// Give loki a task: it builds the change in an isolated git worktree with a swappable model,
/// verifies it with the repository's real tests, and seals a signed evidence receipt that says
/// what was proven and what was not.
#[derive(Debug, Parser)]
#[command(
    name = "loki",
    version,
    override_usage = "loki [OPTIONS] \"<TASK>\"\n       loki [OPTIONS] <COMMAND>",
    after_help = AFTER_HELP,
    after_long_help = after_long_help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The task to build, in quotes (same as `loki run-task` with the text)
    #[arg(value_name = "TASK")]
    pub task: Option<String>,

    #[command(flatten)]
    pub build: BuildFlags,

    #[command(flatten)]
    pub global: GlobalArgs,
}

/// Flags every command accepts.
#[derive(Debug, Args, Clone)]
pub struct GlobalArgs {
    /// Print one JSON object instead of text
    #[arg(long, global = true)]
    pub json: bool,

    /// Say more: one line per step
    #[arg(short, long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Say less: only results and errors
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Read settings from this file too (TOML, YAML, JSON or .env of LOKI_*=value)
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// When to use colour [default: auto; NO_COLOR turns it off]
    #[arg(long, global = true, value_name = "WHEN")]
    pub color: Option<ColorWhen>,
}

/// `--color` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build a task described in a file
    RunTask(RunTaskArgs),
    /// Build a small task quickly: no plan, no acceptance wall
    Quick(QuickArgs),
    /// Run the built-in demo end to end: no API key, no network
    Demo(DemoArgs),
    /// Turn a spec, PRD or issue into numbered acceptance criteria (.loki/contract.json)
    Contract(ContractArgs),
    /// Answer a BLOCKED run's question and build again with the answer
    Answer(AnswerArgs),
    /// Show a run's stage, elapsed time, verdict and cost
    Status(StatusArgs),
    /// Show what a run did, step by step (the newest run unless one is named)
    Logs(LogsArg),
    /// Merge a verified run's branch into your branch (fast-forward only)
    Apply(RunArg),
    /// Remove a run's worktree and branch (or every failed run's, with --failed)
    Discard(DiscardArgs),
    /// Check a receipt: integrity, signature and outcome
    Verify(VerifyArgs),
    /// Full suite, app boot, secret scan of a build run; its own signed receipt
    Deep(RunArg),
    /// Show, export or rotate the receipt signing key
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Stop hook for coding agents: refuse "done" when tests fail or were weakened
    #[command(subcommand)]
    Seal(SealCommand),
    /// Detect and run the repository's test suites
    #[command(subcommand)]
    Checks(ChecksCommand),
    /// Run a command under observation; record a crash with a reproduction
    Run(RunArgs),
    /// Diagnose a recorded crash and apply a verified, surgical fix
    Fix(FixArgs),
    /// Re-run a recorded crash's reproduction
    Replay(ReplayArgs),
    /// One agent session in this repository, without verification
    Ask(AskArgs),
    /// List the model providers loki can use and which one it would pick
    Providers,
    /// Improve the agent's instructions from failed runs, with guards and rollback
    Improve(ImproveArgs),
    /// Build a task from a GitHub, GitLab, Jira or Linear issue
    Issue(IssueArgs),
    /// Open a pull request for a verified run
    Pr(PrArgs),
    /// Judge pull and merge requests in CI: one comment, a check, a signed receipt
    #[command(subcommand)]
    Ci(CiCommand),
    /// Build a repository's open issues, one run each, several at a time
    Backlog(BacklogArgs),
    /// Build one task across a workspace's repositories, then test them together
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Start the control plane: an HTTP API and web UI over every run (SQLite or PostgreSQL)
    Serve(ServeArgs),
    /// Serve loki's tools over MCP: stdio, or Streamable HTTP on 127.0.0.1 with --http
    Mcp(McpArgs),
    /// Chat intake: start builds from Slack mentions and answer in the thread
    #[command(subcommand)]
    Slack(SlackCommand),
    /// List runs or show one
    #[command(subcommand)]
    Runs(RunsCommand),
    /// Show a run's event log, or verify its hash chain
    Events(EventsArgs),
    /// Show and change settings, and where each value comes from
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Check this machine for what loki needs
    Doctor(DoctorArgs),
    /// Print version information
    Version,
    /// Print shell completions
    Completions(CompletionsArgs),
}

/// Flags of a build run (`loki "<task>"`, `run-task`, `quick`).
#[derive(Debug, Args, Clone, Default)]
pub struct BuildFlags {
    /// Provider: scripted, openai, anthropic, claude, codex, aider, opencode or replay:<run-id>
    #[arg(long)]
    pub provider: Option<String>,
    /// Model name for the provider
    #[arg(long)]
    pub model: Option<String>,
    /// Session file for the scripted provider
    #[arg(long, value_name = "FILE")]
    pub script: Option<PathBuf>,
    /// Longer run cap (run.deep_cap_s), the full test suite, then `loki deep` in the background
    #[arg(long)]
    pub deep: bool,
    /// Stop when the measured model cost reaches this many dollars (BUDGET_STOP, exit 3); refused for a model with no price
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
    /// Stop when the model has used this many tokens, all kinds summed (BUDGET_STOP, exit 3)
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    /// Run cap in seconds [default: run.cap_s, 900]
    #[arg(long, value_name = "SECONDS")]
    pub cap: Option<u64>,
    /// Leave the change uncommitted in the run's worktree
    #[arg(long)]
    pub no_commit: bool,
    /// Keep the worktree and branch of a run that made no change (removed by default)
    #[arg(long)]
    pub keep: bool,
    /// Judge the run against this contract (loki.contract/1) instead of .loki/contract.json or the task's criteria
    #[arg(long, value_name = "FILE")]
    pub contract: Option<PathBuf>,
    /// When the run has sealed, push its branch to origin and open its evidence pull request (as `loki pr <run>`)
    #[arg(long)]
    pub pr: bool,
    /// Reviewers in the review council, chosen by the change's content; 0 turns it off [default: council.reviewers, 3]
    #[arg(long, value_name = "N")]
    pub council: Option<u64>,
}

/// `loki improve`: one cycle, or one of its subcommands.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ImproveArgs {
    #[command(subcommand)]
    pub command: Option<ImproveCommand>,
    /// Print what the cycle would do (the failed runs, the protected cases); write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// What the cycle learns from: manual (any failure, no minimum), failures (min_new_failures new ones) or score (every failure, recurring or not)
    #[arg(long, value_name = "TRIGGER", default_value = "manual")]
    pub trigger: ImproveTrigger,
    /// Apply an accepted edit (auto) or queue it for `loki improve approve` (manual) [default: mode in .loki/improve/improve.toml, manual]
    #[arg(long, value_name = "MODE")]
    pub mode: Option<ImproveMode>,
    /// Admit a run that passed as a protected case (it must pass 6 of 6 replays); repeatable
    #[arg(long, value_name = "RUN")]
    pub protect: Vec<String>,
    /// At most this many tokens for the cycle (editor, replays, guard)
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
    #[command(flatten)]
    pub model: ImproveModelFlags,
}

/// The model of `loki improve`: the editor and the replays' agent.
#[derive(Debug, Args, Clone, Default)]
pub struct ImproveModelFlags {
    /// Provider: scripted, openai, anthropic, claude, codex, aider, opencode or replay:<run-id>
    #[arg(long, global = true)]
    pub provider: Option<String>,
    /// Model name for the provider
    #[arg(long, global = true)]
    pub model: Option<String>,
    /// Session file for the scripted provider
    #[arg(long, value_name = "FILE", global = true)]
    pub script: Option<PathBuf>,
    /// Run cap of each replay in seconds [default: run.cap_s, 900]
    #[arg(long, value_name = "SECONDS", global = true)]
    pub cap: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImproveTrigger {
    Manual,
    Failures,
    Score,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImproveMode {
    Auto,
    Manual,
}

#[derive(Debug, Subcommand)]
pub enum ImproveCommand {
    /// Mode, kill switch, revision, today's budget use, pending proposals, protected cases
    Status,
    /// Every cycle, oldest first, with its outcome
    History,
    /// Proposals waiting for approval
    Pending,
    /// Apply a pending proposal (refused when the instructions changed since it was made)
    Approve {
        /// The proposal id (`loki improve pending` lists them)
        id: String,
    },
    /// Drop a pending proposal
    Reject {
        /// The proposal id
        id: String,
        /// Why (kept in the audit trail)
        #[arg(long)]
        reason: Option<String>,
    },
    /// Restore the instructions the last apply replaced, or a kept revision
    Rollback {
        /// A revision (`sha256:…` or its hex) kept in .loki/improve/revisions
        #[arg(long, value_name = "REV")]
        to: Option<String>,
    },
    /// Print the audit trail, or check its hash chain
    Audit {
        /// Check the chain: `intact (N lines, head …)` or the first broken line (exit 1)
        #[arg(long)]
        verify: bool,
    },
    /// Run a cycle after failed runs (debounced, same guards) until Ctrl-C
    Watch {
        /// Seconds between looks at the runs
        #[arg(long, value_name = "SECONDS", default_value_t = 10)]
        interval: u64,
    },
}

/// `loki serve [--port N] [--db PATH|postgres://…] [--bind ADDR]` and its subcommands.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ServeArgs {
    #[command(subcommand)]
    pub action: Option<ServeCommand>,
    /// Listen on this port [default: 47821, or a free port when it is taken]
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// The store: a SQLite file or a postgres:// URL [default: $LOKI_HOME/control/control.db]
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// The address to listen on; beyond loopback LOKI_CONTROL_TOKEN is required
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// Trust a receipt-signing public key (PEM file): runs it signed show as intact
    Trust {
        /// The public key file (`loki keys export` writes one)
        pubkey: PathBuf,
        /// The store [default: $LOKI_HOME/control/control.db]
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
    /// Ship the runs recorded under DIR (a repository, its .loki/runs, or one run) to the server
    Backfill {
        /// A repository, a runs directory or a run directory
        dir: PathBuf,
    },
    /// Say whether a control plane is running and answering
    Status,
    /// Remove the runs of one repository started before a date
    Prune {
        /// The repository as the runs list shows it
        #[arg(long, value_name = "PATH")]
        repo: String,
        /// Runs started before this (RFC 3339 or YYYY-MM-DD) are removed
        #[arg(long, value_name = "DATE")]
        before: String,
        /// List what would be removed, remove nothing
        #[arg(long)]
        dry_run: bool,
        /// The store [default: $LOKI_HOME/control/control.db]
        #[arg(long, value_name = "PATH|URL")]
        db: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio (0: a free port, printed)
    #[arg(long, value_name = "PORT")]
    pub http: Option<u16>,
    /// Serve this repository (repeatable); the one `loki mcp` starts in is served too. With
    /// neither, any git work tree a client names
    #[arg(long = "repo", value_name = "PATH")]
    pub repos: Vec<PathBuf>,
}

/// `loki pr <run>`.
#[derive(Debug, Args)]
pub struct PrArgs {
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    pub run: String,
    /// The branch to merge into [default: the checkout's current branch]
    #[arg(long, value_name = "BRANCH")]
    pub base: Option<String>,
    /// The remote the run's branch is pushed to
    #[arg(long, value_name = "NAME", default_value = "origin")]
    pub remote: String,
}

/// `loki backlog owner/repo (--label X | --issues 1,2,3 | --all)`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("which").required(true).args(["label", "issues", "all"])))]
pub struct BacklogArgs {
    /// owner/repo (GitHub) or group/project (GitLab: three or more segments, or gitlab:group/project)
    pub project: String,
    /// The open issues with this label
    #[arg(long, value_name = "LABEL")]
    pub label: Option<String>,
    /// These issues, by number
    #[arg(long, value_name = "N,N,…", value_delimiter = ',')]
    pub issues: Vec<u64>,
    /// Every open issue
    #[arg(long)]
    pub all: bool,
    /// Runs at a time
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub concurrency: u32,
    /// List the issues that would be built; run nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub flags: BuildFlags,
}

/// `loki workspace …`.
#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// The workspaces declared in loki.toml
    List,
    /// One workspace's repositories (with their setup and after commands) and integration command
    Show {
        /// The workspace's name
        name: String,
    },
    /// One build run per repository with the same task, then the integration command over all heads
    Run(WorkspaceRunArgs),
    /// The last workspace run: each repository's run, outcome and head, and the integration status
    Status {
        /// The workspace's name [default: the newest run of any workspace]
        name: Option<String>,
    },
}

/// `loki workspace run NAME TASK`.
#[derive(Debug, Args)]
pub struct WorkspaceRunArgs {
    /// The workspace's name
    pub name: String,
    /// The task, in quotes, or an issue reference (owner/repo#N, a URL, jira:KEY-1, linear:TEAM-1)
    pub task: String,
    #[command(flatten)]
    pub flags: BuildFlags,
}

/// `loki issue REF`.
#[derive(Debug, Args)]
pub struct IssueArgs {
    /// owner/repo#N, group/project#N, an issue or merge request URL, jira:KEY-1 or linear:TEAM-1
    pub reference: String,
    #[command(flatten)]
    pub flags: BuildFlags,
}

#[derive(Debug, Args)]
pub struct RunTaskArgs {
    /// A file whose text is the task (Markdown or plain text)
    #[arg(long, short, value_name = "FILE")]
    pub file: PathBuf,
    /// Where the task came from, recorded as the run's `task.source` [default: file:FILE]
    #[arg(long, value_name = "SOURCE", hide = true)]
    pub source: Option<String>,
    #[command(flatten)]
    pub flags: BuildFlags,
}

#[derive(Debug, Args)]
pub struct ContractArgs {
    /// The spec, PRD or issue text (Markdown or plain text)
    #[arg(value_name = "SPEC")]
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct AnswerArgs {
    /// The BLOCKED run (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    pub run: String,
    /// The answer [default: the one posted to the running control plane, else stdin]
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,
    #[command(flatten)]
    pub flags: BuildFlags,
}

#[derive(Debug, Args)]
pub struct QuickArgs {
    /// The task, in quotes
    pub task: String,
    #[command(flatten)]
    pub flags: BuildFlags,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Keep the demo repository instead of removing it
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// A run id or `latest` [default: the newest run]
    pub run: Option<String>,
}

#[derive(Debug, Args)]
pub struct LogsArg {
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    #[arg(default_value = "latest")]
    pub run: String,
}

#[derive(Debug, Args)]
pub struct DiscardArgs {
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    #[arg(required_unless_present = "failed", conflicts_with = "failed")]
    pub run: Option<String>,
    /// Every finished run that did not end VERIFIED or ALREADY_SATISFIED
    #[arg(long)]
    pub failed: bool,
}

#[derive(Debug, Args)]
pub struct RunArg {
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    pub run: String,
}

/// `loki doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// List every network destination loki can contact and how to turn it off, then prove a
    /// demo build opens no internet socket with all of them off
    #[arg(long)]
    pub airgap: bool,
}

/// `loki slack …`.
#[derive(Debug, Subcommand)]
pub enum SlackCommand {
    /// Serve the Slack Events API at /slack/events: `@loki <issue ref or task>` builds in this
    /// repository and posts the outcome in the thread (needs SLACK_BOT_TOKEN and
    /// SLACK_SIGNING_SECRET; LOKI_SLACK_INBOUND=0 turns it off)
    Serve {
        /// The port (0: a free port, printed)
        #[arg(long, value_name = "N", default_value_t = 3030)]
        port: u16,
        /// The address to listen on
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
    },
}

#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List runs, newest first
    List,
    /// Show one run: its record and its stages as the event log tells them
    Show {
        /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
        run: String,
    },
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A run id, `latest`, a run directory, a receipt.json or a receipt.dsse.json [default: the newest run]
    pub target: Option<String>,
    /// Trust only this Ed25519 public key (SPKI PEM, as `loki keys export` prints it)
    #[arg(long, value_name = "FILE")]
    pub pubkey: Option<std::path::PathBuf>,
    /// Accept a receipt without a signature (reported, never as signed)
    #[arg(long)]
    pub allow_unsigned: bool,
    /// Print the run's DSSE envelope, only if it verifies with a VERIFIED or ALREADY_SATISFIED outcome
    #[arg(long)]
    pub export_dsse: bool,
}

#[derive(Debug, Args)]
pub struct AskArgs {
    /// What to ask the agent to do
    pub prompt: String,
    /// Provider: scripted, openai, anthropic, claude, codex, aider, opencode or replay:<run-id>
    #[arg(long)]
    pub provider: Option<String>,
    /// Model name for the provider
    #[arg(long)]
    pub model: Option<String>,
    /// Session file for the scripted provider
    #[arg(long, value_name = "FILE")]
    pub script: Option<std::path::PathBuf>,
    /// Stop after this many model turns
    #[arg(long, default_value_t = 30)]
    pub max_turns: u32,
}

#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Show the signing key's id, where it is and when it was made
    Show,
    /// Print the public key (SPKI PEM) so others can `loki verify --pubkey`
    Export,
    /// Make a new signing key; the old public key is kept as retired so old receipts still verify
    Rotate,
}

#[derive(Debug, Subcommand)]
pub enum ChecksCommand {
    /// Print the test suites loki would run here, and why it chose each
    Detect,
    /// Run the test suites and report what really executed (recorded as a run)
    Run {
        /// Only these checks (names as `loki checks detect` prints them)
        names: Vec<String>,
        /// Do not rerun a failing check to tell flaky from failing
        #[arg(long)]
        no_rerun: bool,
    },
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Seed given to the command as LOKI_SEED and PYTHONHASHSEED [default: a new one, recorded]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Stop the command after this many seconds [default: 600]
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: Option<u64>,
    /// After a crash, run `loki fix --apply --yes` right away
    #[arg(long)]
    pub auto_heal: bool,
    /// Remove every variable that looks like a secret (tokens, keys, passwords) from the
    /// command's environment [default: the command gets your environment unchanged]
    #[arg(long)]
    pub clean_env: bool,
    /// Check a web page in headless Chromium instead: uncaught exceptions, unhandled
    /// rejections, console.error and failed requests become the incident (the command after
    /// `--`, if any, is the page's server, started first and stopped at the end)
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// Serve this directory on 127.0.0.1 for the page (then --url is a path such as /index.html)
    #[arg(long, value_name = "DIR", requires = "url")]
    pub serve: Option<std::path::PathBuf>,
    /// Steps to run on the page, a JSON or YAML list: click SELECTOR, type {selector, text},
    /// navigate URL, wait MS|SELECTOR
    #[arg(long, value_name = "FILE", requires = "url")]
    pub steps: Option<std::path::PathBuf>,
    /// The command to observe (or, with --url, the page's server), after `--`
    #[arg(last = true, required_unless_present = "url", value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct FixArgs {
    /// An incident's run id or `latest` [default: the newest incident]
    pub run: Option<String>,
    /// Ask the model for a patch, apply it with a backup and verify it by replaying the crash
    #[arg(long)]
    pub apply: bool,
    /// Apply without asking for confirmation
    #[arg(long, requires = "apply")]
    pub yes: bool,
    /// Apply without replaying the crash; the backup is kept
    #[arg(long, requires = "apply")]
    pub no_verify: bool,
    /// The model as PROVIDER/MODEL, e.g. openai/gpt-4o [default: provider.name, provider.model]
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub model: Option<String>,
    /// Put every file with a stale .loki.bak backup back as it was
    #[arg(long, conflicts_with_all = ["apply", "demo", "run"])]
    pub restore: bool,
    /// Heal a bundled crashing example (offline when no model is configured)
    #[arg(long, conflicts_with = "run")]
    pub demo: bool,
    /// With --demo: the bundled web page, checked in headless Chromium
    #[arg(long, requires = "demo")]
    pub browser: bool,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// An incident's run id or `latest` [default: the newest incident]
    pub run: Option<String>,
    /// Record a web page's replay as an animated PNG (replay.png) next to the incident
    #[arg(long)]
    pub video: bool,
}

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// A run id (run_YYYYMMDD_HHMMSS_xxxx) or `latest`
    pub run: String,
    /// Check the hash chain: prints `intact (N events, head <hash>)` or the first broken line
    #[arg(long)]
    pub verify: bool,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every setting, its value and where it came from (secrets as set/unset)
    Show,
    /// Print the paths of the config files loki reads
    Path,
    /// Print one setting's value
    Get {
        /// A key such as run.cap_s (`loki config show` lists them)
        key: String,
    },
    /// Change one setting in the user file (or the repository's loki.toml with --repo)
    Set {
        key: String,
        value: String,
        /// Write to loki.toml at the repository root instead of the user file
        #[arg(long)]
        repo: bool,
    },
    /// Write a commented config file with every key
    Init {
        /// Write loki.toml at the repository root instead of the user file
        #[arg(long)]
        repo: bool,
        /// Replace an existing file
        #[arg(long)]
        force: bool,
    },
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print completions for
    pub shell: clap_complete::Shell,
}

impl ConfigCommand {
    /// The subcommands that mend a broken configuration file, so they run without it: `path`
    /// finds it, `init --force` replaces it, `set` changes a bad value. `show` and `get` report
    /// the effective values and refuse to show them from a broken file.
    pub fn repairs(&self) -> bool {
        match self {
            ConfigCommand::Path | ConfigCommand::Set { .. } | ConfigCommand::Init { .. } => true,
            ConfigCommand::Show | ConfigCommand::Get { .. } => false,
        }
    }
}
