//! `loki seal start|stop|check|declare|reset|status|install`: the stop hook for coding agents.
//!
//! The hook commands read the agent's JSON from stdin and answer in the agent's protocol
//! (`loki_seal::respond`). `stop` fails closed: any error becomes a block whose reason is the
//! error, so a broken seal can never read as "done". What a person reads is `loki_term::seal`.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use anyhow::Context as _;
use loki_core::outcome::ExitCode;
use loki_seal::{Agent, Decision, HookInput, SealOptions, respond};

use crate::cli::{AgentName, SealCommand};
use crate::context::Ctx;

/// Hook input is a small JSON object; anything larger is not from an agent.
const MAX_STDIN: u64 = 1024 * 1024;

fn agent(a: AgentName) -> Agent {
    match a {
        AgentName::Claude => Agent::Claude,
        AgentName::Codex => Agent::Codex,
        AgentName::Cursor => Agent::Cursor,
        AgentName::Gemini => Agent::Gemini,
    }
}

pub fn run(ctx: &Ctx, cmd: SealCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        SealCommand::Start(a) => start(ctx, agent(a.hook.agent), a.rebaseline),
        SealCommand::Stop(a) => Ok(stop(ctx, agent(a.agent))),
        SealCommand::Reset => reset(ctx),
        SealCommand::Check {
            base,
            declared,
            receipt,
        } => check(ctx, &base, declared.as_deref(), receipt),
        SealCommand::Declare {
            tests,
            reason,
            contradiction,
            session,
        } => declare(ctx, &tests, &reason, contradiction, session.as_deref()),
        SealCommand::Status { all } => status(ctx, all),
        SealCommand::Install {
            agent: a,
            command,
            timeout,
        } => install(ctx, agent(a), command, timeout),
    }
}

fn read_stdin() -> anyhow::Result<String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(String::new());
    }
    let mut text = String::new();
    stdin.lock().take(MAX_STDIN).read_to_string(&mut text)?;
    Ok(text)
}

pub(crate) fn options(ctx: &Ctx, log_dir: PathBuf) -> anyhow::Result<SealOptions> {
    // The judge fences its runs from each other through this binary's `__confine`.
    Ok(SealOptions::from_config(
        &ctx.config,
        ctx.home()?.clone(),
        log_dir,
        std::env::current_exe().ok(),
    ))
}

/// The repository the hook is about: the agent's `cwd`, else ours.
fn repo_root(ctx: &Ctx, input: &HookInput) -> anyhow::Result<PathBuf> {
    let start = input.cwd.clone().unwrap_or_else(|| ctx.cwd.clone());
    Ok(loki_core::layout::Repo::discover(&start)?.root)
}

fn start(ctx: &Ctx, agent: Agent, rebaseline: bool) -> anyhow::Result<ExitCode> {
    let mut input = HookInput::parse(&read_stdin()?)?;
    input.agent = Some(agent);
    let root = repo_root(ctx, &input)?;
    let opts = options(ctx, root.join(".loki"))?;
    loki_core::layout::Repo::discover(&root)?.ensure_loki_dir()?;
    let started = loki_seal::start(&root, &input, &opts, rebaseline)?;
    if ctx.global.json {
        let s = &started.state;
        crate::output::json(
            serde_json::json!({"session": started.session, "repo": s.repo_root,
            "snapshot": s.snapshot, "started_at": s.started_at, "kept": started.kept,
            "baseline_session": s.session, "origin": s.origin, "reset": started.reset,
            "baseline_s": s.baseline_s, "checks": s.baseline}),
        );
    }
    if !ctx.global.quiet {
        anstream::eprintln!(
            "{}",
            loki_term::seal::started(&started, input.source.as_ref())
        );
    }
    Ok(ExitCode::Success)
}

/// `loki seal reset`: the tree now is the worktree's baseline.
fn reset(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    repo.ensure_loki_dir()?;
    let opts = options(ctx, repo.root.join(".loki"))?;
    crate::interrupt::left("the baseline was not reset: the worktree's state is unchanged");
    let report = loki_seal::reset(&repo.root, &opts)?;
    if ctx.global.json {
        let s = &report.state;
        crate::output::json(
            serde_json::json!({"repo": s.repo_root, "snapshot": s.snapshot,
            "started_at": s.started_at, "baseline_s": s.baseline_s, "checks": s.baseline,
            "reset": report.reset, "not_proven": report.reset.as_ref().map(loki_seal::Reset::not_proven)}),
        );
    } else if !ctx.global.quiet {
        anstream::print!("{}", loki_term::seal::reset(&report));
    }
    Ok(ExitCode::Success)
}

fn stop(ctx: &Ctx, agent: Agent) -> ExitCode {
    // Unreadable hook input must not trap the agent: it is judged as the default session against
    // the last commit, and that is said.
    let (mut input, input_problem) = match read_stdin().map(|t| HookInput::parse(&t)) {
        Ok(Ok(i)) => (i, None),
        Ok(Err(e)) => (HookInput::default(), Some(e.to_string())),
        Err(e) => (HookInput::default(), Some(format!("{e:#}"))),
    };
    input.agent = Some(agent);
    let decision = match stop_inner(ctx, &input) {
        Ok(d) => d,
        Err(e) => failed(ctx, &input, &e),
    };
    let decision = match input_problem {
        Some(p) => decision.prefixed(&format!(
            "(the hook input was unreadable: {p}; judged as session \"default\") "
        )),
        None => decision,
    };
    relay(agent, &decision);
    let r = respond(agent, &decision);
    if ctx.global.json {
        crate::output::json(stop_json(agent, &decision, &r));
    }
    anstream::print!("{}", r.stdout);
    anstream::eprint!("{}", r.stderr);
    match r.exit {
        0 => ExitCode::Success,
        _ => ExitCode::Usage,
    }
}

/// The `--json` object of `loki seal stop`: the decision in words every agent shares, and what
/// the agent's own protocol was told (its stdout as JSON when it is, and the exit status).
fn stop_json(agent: Agent, decision: &Decision, r: &loki_seal::HookResponse) -> serde_json::Value {
    let (word, message) = match decision {
        Decision::Allow { message } => ("allow", message),
        Decision::Block { reason } => ("block", reason),
        Decision::Release { message } => ("release", message),
    };
    let hook: Option<serde_json::Value> = serde_json::from_str(r.stdout.trim()).ok();
    serde_json::json!({"agent": agent.as_str(), "decision": word,
        "message": message, "hook_output": hook, "exit_code": r.exit})
}

/// A stop that could not be checked blocks, and counts ([`loki_seal::status::failed`]).
fn failed(ctx: &Ctx, input: &HookInput, e: &anyhow::Error) -> Decision {
    let max_blocks = ctx.config.uint("seal.max_blocks").unwrap_or(5);
    let home = ctx.home().ok().map(PathBuf::as_path);
    let root = repo_root(ctx, input).ok();
    loki_seal::status::failed(
        home,
        root.as_deref(),
        &input.session(),
        max_blocks,
        &format!("{e:#}"),
    )
}

/// Every verdict must reach the person, not only the model: where the client's mode shows
/// nothing a hook says (`claude -p`, `codex exec`), its line goes to the client's own stderr
/// ([`loki_seal::person`]). Best effort and never blocking: one non-blocking write, any error
/// ignored (the hook's answer still carries the verdict).
fn relay(agent: Agent, decision: &Decision) {
    use rustix::fs::{Mode, OFlags};
    let Some(target) = loki_seal::person::relay_target(agent) else {
        return;
    };
    let flags =
        OFlags::WRONLY | OFlags::APPEND | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if let Ok(fd) = rustix::fs::open(&target.path, flags, Mode::empty()) {
        let line = format!("{}\n", loki_seal::person::line(decision));
        // Ignored on purpose: a full pipe or a closed reader loses the line, never the answer.
        let _ = rustix::io::write(&fd, line.as_bytes());
    }
}

fn stop_inner(ctx: &Ctx, input: &HookInput) -> anyhow::Result<Decision> {
    let root = repo_root(ctx, input)?;
    let opts = options(ctx, root.join(".loki"))?;
    crate::interrupt::left(
        "the stop was not judged: its receipt says INTERRUPTED and the session's state is unchanged",
    );
    Ok(loki_seal::stop(&root, input, &opts)?.decision)
}

fn status(ctx: &Ctx, all: bool) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?.clone();
    let repo = ctx.repo().ok().map(|r| r.root);
    let mut sessions = Vec::new();
    let mut broken = Vec::new();
    for s in loki_seal::sessions(&home)? {
        match s {
            Ok(s) if all || repo.as_ref().is_none_or(|r| *r == s.repo_root) => sessions.push(s),
            Ok(_) => {}
            Err(e) => broken.push(e.to_string()),
        }
    }
    let user = loki_seal::UserEnv::from_process();
    let agents: Vec<loki_seal::Activation> = repo
        .as_ref()
        .map(|r| {
            Agent::ALL
                .into_iter()
                .map(|a| loki_seal::activation(a, r, &user))
                .collect()
        })
        .unwrap_or_default();
    if ctx.global.json {
        crate::output::json(loki_seal::status::status_json(&sessions, &agents, &broken));
        return Ok(ExitCode::Success);
    }
    anstream::print!("{}", loki_term::seal::status(&sessions, &agents, &broken));
    Ok(ExitCode::Success)
}

fn check(
    ctx: &Ctx,
    base: &str,
    declared: Option<&std::path::Path>,
    receipt: bool,
) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    let opts = options(ctx, root.join(".loki"))?;
    let declared = match declared {
        Some(p) => loki_seal::declare::read_file(&ctx.cwd.join(p))?,
        None => Vec::new(),
    };
    crate::interrupt::left("the change was not judged: nothing was found or cleared");
    let report = if receipt {
        let task = format!("loki seal check --base {base}");
        loki_seal::check_sealed(&root, base, &declared, &opts, &task)?
    } else {
        loki_seal::check(&root, base, &declared, &opts)?
    };
    let verdict = report.verdict();
    if ctx.global.json {
        crate::output::json(report.to_json());
    } else {
        anstream::print!(
            "{}",
            crate::cmd::checks::render_results(&report.judged.head)
        );
        anstream::print!("{}", loki_term::seal::check(&report));
    }
    Ok(verdict.exit_code())
}

fn declare(
    ctx: &Ctx,
    tests: &[String],
    reason: &str,
    contradiction: bool,
    session: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    let home = ctx.home()?.clone();
    let recorded = loki_seal::declare::declare(&loki_seal::declare::Request {
        home: &home,
        repo_root: &root,
        session,
        tests,
        reason,
        contradiction,
    })?;
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({"session": recorded.session, "declarations": recorded.declarations}),
        );
    } else if !ctx.global.quiet {
        anstream::print!("{}", loki_term::seal::declared(&recorded, contradiction));
    }
    Ok(ExitCode::Success)
}

fn install(
    ctx: &Ctx,
    agent: Agent,
    command: Option<String>,
    timeout: Option<u64>,
) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    // The agent runs the hook with its own PATH: the hook names this very binary, absolutely.
    let program = match command {
        Some(c) => c,
        None => {
            let exe = std::env::current_exe()
                .and_then(std::fs::canonicalize)
                .context("cannot tell where this loki is; name it with --command PATH")?;
            exe.to_str()
                .ok_or_else(|| {
                    anyhow::anyhow!(
                        "this loki's path {} is not UTF-8; name it with --command PATH",
                        exe.display()
                    )
                })?
                .to_string()
        }
    };
    let budget = match timeout {
        Some(seconds) => loki_seal::Budget::sized(loki_seal::Basis::Given { seconds }),
        None => {
            let opts = options(ctx, root.join(".loki"))?;
            if !ctx.global.quiet && !ctx.global.json {
                anstream::eprintln!("timing the test suite to size the hook timeouts…");
            }
            loki_seal::budget::measure(&root, &opts.home, &opts.run)
        }
    };
    let report = loki_seal::install(&root, agent, &program, budget.timeouts)?;
    let active = loki_seal::activation(agent, &root, &loki_seal::UserEnv::from_process());
    if ctx.global.json {
        crate::output::json(loki_term::seal::installed_json(
            &report, agent, &budget, &active,
        ));
        return Ok(ExitCode::Success);
    }
    if !ctx.global.quiet {
        anstream::print!(
            "{}",
            loki_term::seal::installed(&report, agent, &budget, &active)
        );
    }
    Ok(ExitCode::Success)
}
