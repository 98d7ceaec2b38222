//! `loki seal start|stop|check|install`: the stop hook for coding agents.
//!
//! The hook commands read the agent's JSON from stdin and answer in the agent's protocol
//! (`loki_seal::respond`). `stop` fails closed: any error becomes a block whose reason is the
//! error, so a broken seal can never read as "done".

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::time::Duration;

use loki_checks::RunOptions;
use loki_core::outcome::ExitCode;
use loki_receipt::KeyEnv;
use loki_seal::{Agent, Decision, HookInput, SealOptions, respond};

use crate::cli::{AgentName, SealCommand};
use crate::context::Ctx;
use crate::output::{GREEN, RED, paint};

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
        SealCommand::Start(a) => start(ctx, agent(a.agent)),
        SealCommand::Stop(a) => Ok(stop(ctx, agent(a.agent))),
        SealCommand::Check { base } => check(ctx, &base),
        SealCommand::Install { agent: a, command } => install(ctx, agent(a), &command),
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

fn options(ctx: &Ctx, log_dir: PathBuf) -> anyhow::Result<SealOptions> {
    let mut run = RunOptions::new(log_dir);
    if let Some(t) = ctx.config.uint("checks.timeout_s") {
        run.timeout = Duration::from_secs(t);
    }
    if let Some(cap) = ctx.config.uint("checks.output_cap_bytes") {
        run.output_cap = usize::try_from(cap).unwrap_or(usize::MAX);
    }
    // The judge fences its runs from each other through this binary's `__confine`.
    run.confine_exe = std::env::current_exe().ok();
    let max_blocks = ctx.config.uint("seal.max_blocks").unwrap_or(5);
    Ok(SealOptions {
        home: ctx.home()?.clone(),
        run,
        max_blocks: u32::try_from(max_blocks).unwrap_or(u32::MAX),
        keys: KeyEnv::from_process(),
    })
}

/// The repository the hook is about: the agent's `cwd`, else ours.
fn repo_root(ctx: &Ctx, input: &HookInput) -> anyhow::Result<PathBuf> {
    let start = input.cwd.clone().unwrap_or_else(|| ctx.cwd.clone());
    Ok(loki_core::layout::Repo::discover(&start)?.root)
}

fn start(ctx: &Ctx, _agent: Agent) -> anyhow::Result<ExitCode> {
    let input = HookInput::parse(&read_stdin()?)?;
    let root = repo_root(ctx, &input)?;
    let opts = options(ctx, root.join(".loki"))?;
    loki_core::layout::Repo::discover(&root)?.ensure_loki_dir()?;
    let state = loki_seal::start(&root, &input, &opts)?;
    if !ctx.global.quiet {
        let executed: u64 = state.baseline.iter().map(|r| r.executed).sum();
        anstream::eprintln!(
            "loki seal: baseline recorded for session {}: {} suite(s), {executed} tests",
            state.session,
            state.baseline.len()
        );
    }
    Ok(ExitCode::Success)
}

fn stop(ctx: &Ctx, agent: Agent) -> ExitCode {
    let decision = match stop_inner(ctx) {
        Ok(d) => d,
        Err(e) => Decision::Block {
            reason: format!("loki seal could not check this stop, so it does not accept it: {e:#}"),
        },
    };
    let r = respond(agent, &decision);
    anstream::print!("{}", r.stdout);
    anstream::eprint!("{}", r.stderr);
    match r.exit {
        0 => ExitCode::Success,
        _ => ExitCode::Usage,
    }
}

fn stop_inner(ctx: &Ctx) -> anyhow::Result<Decision> {
    let input = HookInput::parse(&read_stdin()?)?;
    let root = repo_root(ctx, &input)?;
    let opts = options(ctx, root.join(".loki"))?;
    Ok(loki_seal::stop(&root, &input, &opts)?.decision)
}

fn check(ctx: &Ctx, base: &str) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    let opts = options(ctx, root.join(".loki"))?;
    let report = loki_seal::check(&root, base, &opts)?;
    let j = &report.judged;
    let verdict = j.verdict();
    if ctx.global.json {
        let findings: Vec<serde_json::Value> = j
            .findings
            .iter()
            .map(|f| {
                let mut v = serde_json::to_value(f).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("advice".into(), f.advice().into());
                }
                v
            })
            .collect();
        let facts: Vec<serde_json::Value> = j
            .facts
            .iter()
            .map(|f| {
                serde_json::json!({"kind": f.kind.as_str(), "check": f.check, "test": f.test,
                                   "detail": f.detail})
            })
            .collect();
        anstream::println!(
            "{}",
            serde_json::json!({
                "base": report.base,
                "verdict": verdict,
                "clean": verdict == "clean",
                "reasons": report.judgement.reasons,
                "findings": findings,
                "facts": facts,
                "cannot_judge": j.cannot_judge,
                "comparison": j.comparison,
                "checks": j.head,
                "base_checks": j.base,
                "not_proven": report.not_proven,
            })
        );
    } else {
        anstream::print!("{}", crate::cmd::checks::render_results(&j.head));
        for r in &report.judgement.reasons {
            anstream::println!("{} {r}", paint(RED, "FINDING"));
        }
        for f in &j.facts {
            anstream::println!("FACT: {} {}: {}", f.kind.as_str(), f.test, f.detail);
        }
        for c in &report.judgement.cannot_judge {
            anstream::println!("{} {c}", paint(RED, "CANNOT JUDGE"));
        }
        if verdict == "clean" {
            anstream::println!(
                "{} no test newly failing, missing, skipped or weakened since {}",
                paint(GREEN, "CLEAN"),
                &report.base[..12.min(report.base.len())]
            );
        }
        for n in &report.not_proven {
            anstream::println!("NOT PROVEN: {n}");
        }
    }
    Ok(match verdict {
        "findings" => ExitCode::Failure,
        "cannot_judge" => ExitCode::CannotJudge,
        _ => ExitCode::Success,
    })
}

fn install(ctx: &Ctx, agent: Agent, command: &str) -> anyhow::Result<ExitCode> {
    let root = ctx.repo()?.root;
    let report = loki_seal::install(&root, agent, command)?;
    if !ctx.global.quiet {
        if report.changed {
            anstream::println!(
                "registered loki seal's SessionStart and Stop hooks in {}",
                report.path.display()
            );
        } else {
            anstream::println!(
                "loki seal's hooks are already registered in {}",
                report.path.display()
            );
        }
    }
    Ok(ExitCode::Success)
}
