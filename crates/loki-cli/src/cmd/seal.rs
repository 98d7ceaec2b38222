//! `loki seal start|stop|check|declare|reset|status|install`: the stop hook for coding agents.
//!
//! The hook commands read the agent's JSON from stdin; the seal answers in the agent's protocol
//! (`loki_seal::command`: `stop` fails closed, any error becomes a block whose reason is the
//! error, so a broken seal can never read as "done"). What a person reads is `loki_term::seal`.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use loki_protocol::outcome::ExitCode;
use loki_seal::command::Env;
use loki_seal::{Agent, SealOptions};

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

fn read_stdin() -> std::io::Result<String> {
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

/// What the hook commands know of this process ([`loki_seal::command::Env`]).
fn env<'a>(ctx: &'a Ctx, exe: Option<&'a Path>) -> Env<'a> {
    Env {
        cwd: &ctx.cwd,
        home: ctx.home.as_deref(),
        config: &ctx.config,
        confine_exe: exe,
    }
}

fn start(ctx: &Ctx, agent: Agent, rebaseline: bool) -> anyhow::Result<ExitCode> {
    let stdin = read_stdin()?;
    let exe = std::env::current_exe().ok();
    let (input, started) =
        loki_seal::command::start(&env(ctx, exe.as_deref()), agent, &stdin, rebaseline)?;
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
    let stdin = read_stdin();
    let exe = std::env::current_exe().ok();
    let answer = loki_seal::command::stop(&env(ctx, exe.as_deref()), agent, stdin);
    let r = &answer.response;
    if ctx.global.json {
        crate::output::json(loki_term::seal::stop_json(agent, &answer.decision, r));
    }
    anstream::print!("{}", r.stdout);
    anstream::eprint!("{}", r.stderr);
    match r.exit {
        0 => ExitCode::Success,
        _ => ExitCode::Usage,
    }
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
