//! `loki ask`: one agent session in the repository itself (not a worktree), recorded but
//! neither checked nor signed.
//!
//! # Record
//! The run is recorded with `kind: ask` ([`RunRecorder`]): `run.started` (`Ask`, the provider
//! and why it was chosen), `session.started`, then either `cost` + `session.ended` (the end,
//! its turns) and `run.completed` `ASKED` exit 0, or `session.ended` with the agent's error and
//! its provider-failure kind and `run.completed` `ERROR` with the error's exit code. The tool
//! loop's transcript is `transcript.jsonl` in the run's directory.
//!
//! # Box
//! The model's commands (and a CLI agent) run in the model box ([`Scope::Checkout`]): the
//! checkout is writable, its `.git` read-only and its `.loki` hidden; loki's home, the signing
//! key, other runs and the user's credentials are denied; `HOME` and `TMPDIR` are private (a
//! temporary directory removed at the end). The network is [`AskOptions::network`], except that
//! a CLI agent keeps it (it must reach its model; its egress proxy limits it when the network is
//! off). Without Landlock (or without `confine_exe`) the commands run without the wrapper.
//!
//! # Result
//! [`Asked::result`] is the session's end, or the agent's error (a setup problem, a failed model
//! call): the run is recorded either way. An error of the record itself, the box or the runtime
//! is returned as the error. This module never prints; `started` is called once the run is
//! recorded, before the agent starts (the CLI installs its signal note and announces the box).

use std::ffi::OsString;
use std::path::PathBuf;

use loki_agent::{Backend, PriceTable, SessionConfig, SessionOutcome, Transcript, run_session};
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{Cost, RunCompleted, RunStarted, SessionEnded, SessionStarted};
use loki_process::confine::Network;
use loki_protocol::RunEnd;

use crate::EngineError;
use crate::fence::{Fence, Scope};

/// How much of a CLI agent's output is kept as the session's detail (its end holds the answer).
const CLI_DETAIL_CHARS: usize = 2000;

/// What `loki ask` runs.
#[derive(Debug, Clone)]
pub struct AskOptions {
    pub prompt: String,
    /// loki's own command line, recorded.
    pub argv: Vec<String>,
    /// The provider's label and why it was chosen.
    pub provider: String,
    pub why: String,
    pub model: Option<String>,
    pub max_turns: u32,
    pub prices: PriceTable,
    pub network: Network,
    /// Denied to the model's commands: loki's home, the signing key file.
    pub secrets: Vec<PathBuf>,
    /// The `loki` binary, whose `__confine` boxes the commands.
    pub confine_exe: Option<PathBuf>,
    pub on_run: Option<loki_agent::RunHook>,
}

/// How the session ended.
#[derive(Debug, Clone)]
pub struct AskEnd {
    /// `done`, `max_turns`, … for the tool loop; `exit N` for a CLI agent.
    pub end: String,
    /// The agent's last words (a CLI agent's last output).
    pub detail: String,
    pub cost_usd: Option<f64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub turns: u32,
}

/// A recorded ask session.
#[derive(Debug)]
pub struct Asked {
    pub run_id: RunId,
    pub result: Result<AskEnd, loki_agent::AgentError>,
}

/// Runs the session; see the module doc.
///
/// # Errors
/// The run could not be recorded, the box could not be built, or the runtime could not start;
/// or `started` failed.
pub fn ask<E: From<EngineError>>(
    repo: &Repo,
    backend: Backend,
    opts: &AskOptions,
    started: impl FnOnce(&RunId, bool) -> Result<(), E>,
) -> Result<Asked, E> {
    let mut rec = start_record(repo, opts)?;
    let dir = rec.dir().to_path_buf();
    let cli_agent = matches!(backend, Backend::Cli(_));
    started(rec.id(), cli_agent)?;
    let private = loki_core::scratch::Scratch::new("loki-ask-")
        .map_err(|e| EngineError::io("cannot create", std::env::temp_dir(), e))?;
    let fence = Fence::without_git(private.path(), &repo.root)?;
    let wrapper = box_wrapper(repo, opts, &fence, cli_agent);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(EngineError::Runtime)?;
    let result = match backend {
        Backend::Loop(provider) => {
            let mut cfg = SessionConfig::new(&opts.prompt);
            cfg.limits.max_turns = opts.max_turns;
            cfg.prices = opts.prices.clone();
            cfg.transcript = Transcript::new(Some(dir.join("transcript.jsonl")));
            cfg.tools.run_env = Some(fence.env());
            cfg.tools.run_wrapper = wrapper;
            cfg.tools.on_run = opts.on_run.clone();
            rt.block_on(run_session(provider.as_ref(), &repo.root, &cfg))
                .map(|o| loop_end(&o))
        }
        Backend::Cli(agent) => {
            // The proxy (when the network is off) lives until the agent has finished.
            let (boxed, _egress) =
                crate::session::boxed_cli(&agent, &fence, &wrapper, &repo.root, opts.network)?;
            rt.block_on(boxed.run(&opts.prompt, &repo.root))
                .map_err(loki_agent::AgentError::from)
                .map(|o| cli_end(&o))
        }
    };
    record_end(&mut rec, &result)?;
    Ok(Asked {
        run_id: rec.id().clone(),
        result,
    })
}

/// The start of the record: `run.started` and `session.started`.
fn start_record(repo: &Repo, opts: &AskOptions) -> Result<RunRecorder, EngineError> {
    let mut rec = RunRecorder::start(
        &RunStore::new(repo.clone()),
        Some(opts.prompt.clone()),
        opts.argv.clone(),
        &RunStarted::Ask {
            provider: opts.provider.clone(),
            why: opts.why.clone(),
        },
    )?;
    rec.append(&SessionStarted {
        provider: Some(opts.provider.clone()),
        model: opts.model.clone(),
        ..SessionStarted::default()
    })?;
    Ok(rec)
}

/// The model box's wrapper for the commands (empty without Landlock or `confine_exe`); a CLI
/// agent keeps the network.
fn box_wrapper(repo: &Repo, opts: &AskOptions, fence: &Fence, cli_agent: bool) -> Vec<OsString> {
    match &opts.confine_exe {
        Some(exe) if loki_process::confine::available() => {
            let net = if cli_agent {
                Network::Allowed
            } else {
                opts.network
            };
            fence
                .policy(repo, Scope::Checkout, &opts.secrets, net)
                .wrapper(exe)
        }
        _ => Vec::new(),
    }
}

/// The tool loop's end.
fn loop_end(o: &SessionOutcome) -> AskEnd {
    AskEnd {
        end: format!("{:?}", o.end).to_lowercase(),
        detail: o
            .finish
            .as_ref()
            .map(|f| f.detail.clone())
            .unwrap_or_default(),
        cost_usd: o.cost_usd,
        input_tokens: o.usage.input_tokens,
        output_tokens: o.usage.output_tokens,
        turns: o.turns,
    }
}

/// A CLI agent's end: its exit code, and the end of its output as the detail.
fn cli_end(o: &loki_clients::CliOutcome) -> AskEnd {
    let (input_tokens, output_tokens) = o
        .usage
        .map_or((0, 0), |u| (u.input_tokens, u.output_tokens));
    let tail: String = o
        .stdout
        .chars()
        .rev()
        .take(CLI_DETAIL_CHARS)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    AskEnd {
        end: format!("exit {}", o.exit_code),
        detail: tail,
        cost_usd: o.cost_usd,
        input_tokens,
        output_tokens,
        turns: 1,
    }
}

/// The end of the record: see the module doc.
fn record_end(
    rec: &mut RunRecorder,
    result: &Result<AskEnd, loki_agent::AgentError>,
) -> Result<(), EngineError> {
    match result {
        Ok(a) => {
            rec.append(&Cost {
                usd: a.cost_usd,
                input_tokens: a.input_tokens,
                output_tokens: a.output_tokens,
                ..Cost::default()
            })?;
            rec.append(&SessionEnded {
                end: Some(a.end.clone()),
                turns: Some(a.turns),
                ..SessionEnded::default()
            })?;
            rec.finish(&RunCompleted::new(RunEnd::Asked).exit_code(0))?;
        }
        Err(e) => {
            let class = loki_core::exit::Classify::exit_class(e);
            rec.append(&SessionEnded {
                error: Some(e.to_string()),
                failure: e.provider_failure().map(|f| f.kind.as_str().to_string()),
                ..SessionEnded::default()
            })?;
            rec.finish(&RunCompleted::new(RunEnd::Error).exit_code(i32::from(class.code())))?;
        }
    }
    Ok(())
}
