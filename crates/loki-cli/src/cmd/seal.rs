//! `loki seal start|stop|check|declare|reset|status|install`: the stop hook for coding agents.
//!
//! The hook commands read the agent's JSON from stdin and answer in the agent's protocol
//! (`loki_seal::respond`). `stop` fails closed: any error becomes a block whose reason is the
//! error, so a broken seal can never read as "done". What a person reads is `loki_term::seal`.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use loki_protocol::outcome::ExitCode;
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
        crate::output::json(loki_term::seal::started_json(&started));
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
        crate::output::json(loki_term::seal::reset_json(&report));
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
    // Every verdict must reach the person, not only the model.
    loki_seal::person::relay(agent, &decision);
    let r = respond(agent, &decision);
    if ctx.global.json {
        crate::output::json(loki_term::seal::stop_json(agent, &decision, &r));
    }
    anstream::print!("{}", r.stdout);
    anstream::eprint!("{}", r.stderr);
    match r.exit {
        0 => ExitCode::Success,
        _ => ExitCode::Usage,
    }
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

fn stop_inner(ctx: &Ctx, input: &HookInput) -> anyhow::Result<Decision> {
    let root = repo_root(ctx, input)?;
    let opts = options(ctx, root.join(".loki"))?;
    crate::interrupt::left(
        "the stop was not judged: its receipt says INTERRUPTED and the session's state is unchanged",
    );
    Ok(loki_seal::stop(&root, input, &opts)?.decision)
}

fn status(ctx: &Ctx, all: bool) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo().ok().map(|r| r.root);
    let o = loki_seal::status::overview(ctx.home()?, repo.as_deref(), all)?;
    if ctx.global.json {
        let v = loki_seal::status::status_json(&o.sessions, &o.agents, &o.unreadable);
        crate::output::json(v);
    } else {
        anstream::print!(
            "{}",
            loki_term::seal::status(&o.sessions, &o.agents, &o.unreadable)
        );
    }
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
        anstream::print!("{}", loki_term::checks::results(&report.judged.head));
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
        crate::output::json(loki_term::seal::declared_json(&recorded));
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
    let program = loki_seal::install::hook_program(command)?;
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
