//! One agent session inside a run: the built-in loop or a CLI agent, fenced, bounded by the run's
//! time and money left, recorded as `session.started`, `cost` and `session.ended` events.
//!
//! A session that errors (provider down, script exhausted) is a fact of the run, not a crash of
//! loki: it is returned as a [`SessionReport`] with `error` set, and the run goes on to commit
//! and seal. A failed model call is also kept typed (`failure`), so that the engine can end the
//! run at once with it as the reason; its kind is recorded in `session.ended`.

use std::path::Path;
use std::time::{Duration, Instant};

use loki_agent::{
    Backend, FinishStatus, Limits, SessionConfig, SessionEnd, Transcript, run_session,
};
use loki_clients::Usage;
use loki_events::RunRecorder;
use loki_events::payload::{Cost, SessionEnded, SessionStarted};
use loki_process::Cancel;

use crate::EngineError;
use crate::fence::Fence;

/// How often a running session looks at the cancel flag (SIGINT).
const CANCEL_POLL: Duration = Duration::from_millis(100);

/// What a session did, as the engine needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionReport {
    pub label: String,
    pub end: String,
    pub finish: Option<FinishStatus>,
    pub detail: String,
    pub usage: Usage,
    /// `None`: not measured.
    pub cost_usd: Option<f64>,
    pub error: Option<String>,
    /// The model call that failed, typed (auth, unreachable, ...), when that ended the session.
    pub failure: Option<loki_agent::ProviderFailure>,
    /// The session stopped because the run's time or money ran out.
    pub budget_hit: bool,
    /// Stopped by SIGINT.
    pub interrupted: bool,
    pub model_seconds: f64,
    pub model: String,
    /// Hosts a CLI agent's process tree asked loki's egress proxy for and was refused.
    pub egress_refused: Vec<String>,
}

/// Everything one session needs.
#[derive(Debug)]
pub struct SessionSpec<'a> {
    pub label: &'a str,
    pub system: &'a str,
    pub brief: &'a str,
    pub dir: &'a Path,
    pub fence: &'a Fence,
    pub transcript: &'a Path,
    pub time_left: Duration,
    pub cost_left: Option<f64>,
    /// Tokens (every bucket) the session may still use.
    pub tokens_left: Option<u64>,
    pub max_turns: u32,
    pub prices: &'a loki_agent::PriceTable,
    pub cancel: &'a Cancel,
    /// The confinement wrapper of the session's commands (empty: none).
    pub wrapper: &'a [std::ffi::OsString],
    /// Told each command the model runs.
    pub on_command: Option<loki_agent::RunHook>,
    /// The repository's test command, handed to a CLI agent that takes one (aider).
    pub test_command: Option<String>,
    /// The user's network choice for the model's commands (`agent.network`): off puts a CLI
    /// agent behind loki's egress proxy ([`boxed_cli`]).
    pub network: loki_process::confine::Network,
}

/// Runs one session and records it in `log`.
pub fn run(
    backend: &Backend,
    spec: &SessionSpec<'_>,
    log: &mut RunRecorder,
) -> Result<SessionReport, EngineError> {
    log.append(&SessionStarted {
        session: Some(spec.label.to_string()),
        time_left_s: Some(spec.time_left.as_secs()),
        provider: None,
        model: None,
    })?;
    // IO as well as time: the HTTP providers' client needs the reactor.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(EngineError::Runtime)?;
    let started = Instant::now();
    let mut report = SessionReport {
        label: spec.label.to_string(),
        end: String::new(),
        finish: None,
        detail: String::new(),
        usage: Usage::default(),
        cost_usd: None,
        error: None,
        failure: None,
        budget_hit: false,
        interrupted: false,
        model_seconds: 0.0,
        model: String::new(),
        egress_refused: Vec::new(),
    };
    match backend {
        Backend::Loop(provider) => loop_session(provider.as_ref(), spec, &rt, &mut report),
        Backend::Cli(agent) => cli_session(agent, spec, &rt, &mut report)?,
    }
    // A blocked `run` tool child is killed by its own timeout; do not wait for it here.
    rt.shutdown_background();
    report.model_seconds = started.elapsed().as_secs_f64();
    log.append(&Cost {
        session: Some(spec.label.to_string()),
        usd: report.cost_usd,
        input_tokens: report.usage.input_tokens,
        output_tokens: report.usage.output_tokens,
        cache_read_tokens: report.usage.cache_read_tokens,
        cache_write_tokens: report.usage.cache_write_tokens,
        attempts: None,
    })?;
    log.append(&SessionEnded {
        session: Some(spec.label.to_string()),
        end: Some(report.end.clone()),
        finish: report.finish.map(|f| f.as_str().to_string()),
        error: report.error.clone(),
        failure: report.failure.as_ref().map(|f| f.kind.as_str().to_string()),
        seconds: Some(report.model_seconds),
        turns: None,
    })?;
    Ok(report)
}

/// The built-in loop's session with `provider`, into `report`; a cancel ends it at once.
fn loop_session(
    provider: &dyn loki_agent::Provider,
    spec: &SessionSpec<'_>,
    rt: &tokio::runtime::Runtime,
    report: &mut SessionReport,
) {
    report.model = provider.model().to_string();
    let mut cfg = SessionConfig::new(spec.brief);
    cfg.system = spec.system.to_string();
    cfg.label = Some(spec.label.to_string());
    cfg.limits = Limits {
        max_turns: spec.max_turns,
        max_tokens: spec.tokens_left,
        max_cost_usd: spec.cost_left,
        max_duration: Some(spec.time_left),
    };
    cfg.prices = spec.prices.clone();
    cfg.transcript = Transcript::new(Some(spec.transcript.to_path_buf()));
    cfg.tools.run_env = Some(spec.fence.env_in(spec.dir));
    cfg.tools.cancel = Some(spec.cancel.clone());
    cfg.tools.run_wrapper = spec.wrapper.to_vec();
    cfg.tools.on_run.clone_from(&spec.on_command);
    let result = rt.block_on(async {
        tokio::select! {
            r = run_session(provider, spec.dir, &cfg) => Some(r),
            () = cancelled(spec.cancel) => None,
        }
    });
    match result {
        None => {
            report.interrupted = true;
            report.end = "interrupted".into();
        }
        Some(Ok(o)) => {
            report.end = end_name(o.end).into();
            report.budget_hit = matches!(
                o.end,
                SessionEnd::TimeLimit | SessionEnd::CostLimit | SessionEnd::TokenLimit
            );
            report.finish = o.finish.as_ref().map(|f| f.status);
            report.detail = o.finish.map(|f| f.detail).unwrap_or_default();
            report.usage = o.usage;
            report.cost_usd = o.cost_usd;
        }
        Some(Err(e)) => {
            report.end = "error".into();
            report.error = Some(e.to_string());
            report.failure = e.provider_failure().cloned();
        }
    }
}

/// A CLI agent's session, boxed ([`boxed_cli`]), into `report`; the scratch files it left in
/// the worktree are removed.
fn cli_session(
    agent: &loki_clients::CliAgent,
    spec: &SessionSpec<'_>,
    rt: &tokio::runtime::Runtime,
    report: &mut SessionReport,
) -> Result<(), EngineError> {
    let (mut agent, egress) = boxed_cli(agent, spec.fence, spec.wrapper, spec.dir, spec.network)?;
    agent.timeout = agent.timeout.min(spec.time_left);
    agent.test_command.clone_from(&spec.test_command);
    report.model = agent
        .model
        .clone()
        .unwrap_or_else(|| agent.kind.name().to_string());
    let brief = format!("{}\n\n{}", spec.system, spec.brief);
    let before = scratch_in(spec.dir, agent.kind);
    let result = rt.block_on(async {
        tokio::select! {
            r = agent.run(&brief, spec.dir) => Some(r),
            () = cancelled(spec.cancel) => None,
        }
    });
    report.egress_refused = egress
        .as_ref()
        .map(|e| e.refused().iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    drop(egress);
    for leftover in scratch_in(spec.dir, agent.kind) {
        if !before.contains(&leftover) {
            remove_scratch(&leftover)?;
        }
    }
    match result {
        None => {
            report.interrupted = true;
            report.end = "interrupted".into();
        }
        Some(Ok(o)) => {
            report.end = format!("exit {}", o.exit_code);
            let (status, detail) = loki_agent::finish_from_reply(&o.reply);
            report.finish = Some(status);
            report.detail = detail;
            report.usage = o.usage.unwrap_or_default();
            report.cost_usd = o.cost_usd;
            if let Some(m) = o.model {
                report.model = m;
            }
        }
        Some(Err(e)) => {
            report.budget_hit = matches!(e, loki_clients::ClientError::Timeout { .. })
                && agent.timeout >= spec.time_left;
            report.end = "error".into();
            report.error = Some(e.to_string());
        }
    }
    Ok(())
}

/// `agent` in the box: the fence's environment plus what its own table names
/// ([`loki_clients::CliKind`]): the variables of its own model (keys, endpoints) from the caller's
/// environment, the variables loki sets for it, and its login and configuration files copied
/// into the private home. Its command runs through `wrapper` (when the program exists: a
/// missing one must stay a clear "not installed", not the wrapper's exit 127). It works in
/// `dir`: no variable it gets names the user's checkout ([`Fence::moved_to`]).
///
/// With `network` off and Landlock's TCP rules here, the agent gets loki's egress proxy
/// ([`loki_clients::egress`]): its process tree may connect only to the proxy (and to a model
/// server on this machine's loopback), and the proxy forwards only to the hosts of its model.
/// The proxy runs until the returned [`loki_clients::egress::Egress`] is dropped.
pub fn boxed_cli(
    agent: &loki_clients::CliAgent,
    fence: &Fence,
    wrapper: &[std::ffi::OsString],
    dir: &Path,
    network: loki_process::confine::Network,
) -> Result<(loki_clients::CliAgent, Option<loki_clients::egress::Egress>), EngineError> {
    let mut agent = agent.clone();
    let kind = agent.kind;
    fence.add_client_files(kind.client_files(), &agent.env)?;
    let mut env = fence.env();
    for (k, v) in &agent.env {
        let name = k.to_string_lossy();
        let own = kind.env_prefixes().iter().any(|p| name.starts_with(p));
        if own && !env.iter().any(|(n, _)| n == k) {
            env.push((k.clone(), v.clone()));
        }
    }
    // Codex reads the key its provider's config names.
    if agent.kind == loki_clients::CliKind::Codex {
        for (k, v) in loki_clients::files::codex_passthrough(&agent.env) {
            if !env.iter().any(|(n, _)| *n == k) {
                env.push((k, v));
            }
        }
    }
    let tmp = env
        .iter()
        .find(|(k, _)| k == "TMPDIR")
        .map(|(_, v)| std::path::PathBuf::from(v));
    let home = env
        .iter()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| std::path::PathBuf::from(v));
    for (k, v) in kind.fixed_env() {
        let under = |prefix: &str, dir: &Option<std::path::PathBuf>| {
            v.strip_prefix(prefix)
                .zip(dir.as_ref())
                .map(|(rest, d)| d.join(rest).into_os_string())
        };
        let value: std::ffi::OsString = under("$TMPDIR/", &tmp)
            .or_else(|| under("$HOME/", &home))
            .unwrap_or_else(|| (*v).into());
        env.retain(|(n, _)| n != k);
        env.push(((*k).into(), value));
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone());
    let mut egress = None;
    if which::which_in(&agent.program, path, dir).is_ok() {
        // Its shell tool may start commands outside its process group: a PID namespace of its
        // own makes them end with it (a cap, Ctrl-C, kill -9 of loki).
        let mut boxed = loki_process::confine::with_own_pids(wrapper.to_vec());
        if egress_applies(wrapper, network) {
            let allow = kind.egress_allowlist(&agent.env, fence.home(), dir);
            let proxy = loki_clients::egress::Egress::start(allow)
                .map_err(|e| EngineError::io("start the egress proxy on", "127.0.0.1", e))?;
            let pointers = proxy.env();
            env.retain(|(k, _)| {
                !pointers.iter().any(|(p, _)| p == k)
                    && !loki_clients::egress::Egress::BYPASS_VARS
                        .iter()
                        .any(|b| k == *b)
            });
            env.extend(pointers);
            let mut ports = vec![proxy.port()];
            ports.extend(
                proxy
                    .allowed()
                    .iter()
                    .filter(|h| h.is_loopback())
                    .map(|h| h.port),
            );
            ports.sort_unstable();
            ports.dedup();
            boxed = loki_process::confine::with_egress(boxed, &ports);
            egress = Some(proxy);
        }
        agent.wrapper = boxed;
    }
    // Everything it inherited that names the user's checkout now names `dir` (or is gone).
    agent.env = fence.moved_to(env, dir);
    Ok((agent, egress))
}

/// Whether a CLI agent boxed by `wrapper` goes behind the egress proxy: the user left the network
/// off, there is a box, and Landlock has TCP rules (the proxy is on the host's loopback, so a
/// network namespace cannot be used).
#[must_use]
pub fn egress_applies(
    wrapper: &[std::ffi::OsString],
    network: loki_process::confine::Network,
) -> bool {
    network == loki_process::confine::Network::Denied
        && !wrapper.is_empty()
        && loki_process::confine::support().network()
            == loki_process::confine::NetworkMechanism::LandlockTcp
}

/// The top-level entries of `dir` that are `kind`'s scratch files ([`loki_clients::CliKind::scratch`]).
fn scratch_in(dir: &Path, kind: loki_clients::CliKind) -> Vec<std::path::PathBuf> {
    let prefixes = kind.scratch();
    if prefixes.is_empty() {
        return Vec::new();
    }
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            prefixes.iter().any(|p| name.starts_with(p))
        })
        .map(|e| e.path())
        .collect()
}

fn remove_scratch(path: &Path) -> Result<(), EngineError> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| EngineError::io("read", path, e))?;
    if meta.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
    .map_err(|e| EngineError::io("remove", path, e))
}

async fn cancelled(cancel: &Cancel) {
    while !cancel.is_cancelled() {
        tokio::time::sleep(CANCEL_POLL).await;
    }
}

fn end_name(end: SessionEnd) -> &'static str {
    match end {
        SessionEnd::Finished => "finished",
        SessionEnd::TurnLimit => "turn_limit",
        SessionEnd::TokenLimit => "token_limit",
        SessionEnd::CostLimit => "cost_limit",
        SessionEnd::TimeLimit => "time_limit",
        SessionEnd::NoFinish => "no_finish",
    }
}
