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
use loki_term::{GREEN, RED, paint};

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
        SealCommand::Check { base } => check(ctx, &base),
        SealCommand::Status { all } => status(ctx, all),
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

fn start(ctx: &Ctx, _agent: Agent, rebaseline: bool) -> anyhow::Result<ExitCode> {
    let input = HookInput::parse(&read_stdin()?)?;
    let root = repo_root(ctx, &input)?;
    let opts = options(ctx, root.join(".loki"))?;
    loki_core::layout::Repo::discover(&root)?.ensure_loki_dir()?;
    let started = loki_seal::start(&root, &input, &opts, rebaseline)?;
    if !ctx.global.quiet {
        let state = &started.state;
        let executed: u64 = state.baseline.iter().map(|r| r.executed).sum();
        if started.kept {
            anstream::eprintln!(
                "loki seal: session {} already has a baseline (recorded {}): kept{}",
                state.session,
                state.started_at,
                input
                    .source
                    .as_deref()
                    .map(|s| format!(" on {s}"))
                    .unwrap_or_default()
            );
        } else {
            anstream::eprintln!(
                "loki seal: baseline recorded for session {}: {} suite(s), {executed} tests",
                state.session,
                state.baseline.len()
            );
        }
    }
    Ok(ExitCode::Success)
}

fn stop(ctx: &Ctx, agent: Agent) -> ExitCode {
    // Unreadable hook input must not trap the agent: it is judged as the default session against
    // the last commit, and that is said.
    let (input, input_problem) = match read_stdin().map(|t| HookInput::parse(&t)) {
        Ok(Ok(i)) => (i, None),
        Ok(Err(e)) => (HookInput::default(), Some(e.to_string())),
        Err(e) => (HookInput::default(), Some(format!("{e:#}"))),
    };
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
    if let Decision::Release { message } = &decision {
        tell_the_terminal(message);
    }
    let r = respond(agent, &decision);
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
    loki_seal::status::failed(home, &input.session(), max_blocks, &format!("{e:#}"))
}

/// A release must reach the person, not only the model: the agent's own channel carries it too,
/// but the controlling terminal (when there is one) shows it whatever the agent does with hook
/// output. Best effort: a headless agent has no terminal.
fn tell_the_terminal(message: &str) {
    use std::io::Write as _;
    if let Ok(mut tty) = std::fs::OpenOptions::new().write(true).open("/dev/tty") {
        // Ignored on purpose: the agent's channel still carries the message.
        let _ = writeln!(tty, "{message}");
    }
}

fn stop_inner(ctx: &Ctx, input: &HookInput) -> anyhow::Result<Decision> {
    let root = repo_root(ctx, input)?;
    let opts = options(ctx, root.join(".loki"))?;
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
        anstream::println!(
            "{}",
            loki_seal::status::status_json(&sessions, &agents, &broken)
        );
        return Ok(ExitCode::Success);
    }
    anstream::print!("{}", render_status(&sessions, &agents, &broken));
    Ok(ExitCode::Success)
}

/// The text of `loki seal status`.
fn render_status(
    sessions: &[loki_seal::SealState],
    agents: &[loki_seal::Activation],
    broken: &[String],
) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if sessions.is_empty() {
        out.push_str("no seal sessions recorded\n");
    }
    for s in sessions {
        let last = s.history.last();
        let _ = writeln!(
            out,
            "session {}  started {}{}  blocks {}  {}",
            s.session,
            s.started_at,
            match s.origin {
                loki_seal::Origin::SessionStart => "",
                loki_seal::Origin::LastCommit => " (baseline: last commit)",
            },
            s.blocks,
            last.map_or_else(
                || "no stop yet".to_string(),
                |l| format!(
                    "last stop {} {}{}",
                    l.at,
                    l.decision.as_str(),
                    l.verdict
                        .as_deref()
                        .map(|v| format!(" ({v})"))
                        .unwrap_or_default()
                )
            )
        );
        for r in s
            .history
            .iter()
            .filter(|r| r.decision == loki_seal::Stopped::Released)
        {
            let _ = writeln!(
                out,
                "  {} RELEASED, NOT VERIFIED{}: {}",
                paint(RED, "!"),
                r.receipt_sha256
                    .as_deref()
                    .map(|h| format!(" (receipt sha256:{h})"))
                    .unwrap_or_default(),
                r.reasons.join("; ")
            );
        }
    }
    for b in broken {
        let _ = writeln!(out, "unreadable session state: {b}");
    }
    for a in agents {
        let _ = writeln!(
            out,
            "hooks {:<7} {}: {}{}",
            a.agent.as_str(),
            a.active.as_str(),
            a.detail,
            a.fix
                .as_deref()
                .map(|f| format!(" (fix: {f})"))
                .unwrap_or_default()
        );
    }
    out
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
    let active = loki_seal::activation(agent, &root, &loki_seal::UserEnv::from_process());
    let events = agent.hook_events();
    if !ctx.global.quiet {
        if report.changed {
            anstream::println!(
                "registered loki seal's {events} hooks in {}",
                report.path.display()
            );
        } else {
            anstream::println!(
                "loki seal's hooks are already registered in {}",
                report.path.display()
            );
        }
        match active.active {
            loki_seal::Active::Yes => anstream::println!("{}: {}", agent.as_str(), active.detail),
            _ => {
                anstream::println!(
                    "{} {} will not run them yet ({}): {}",
                    paint(RED, "NOT ACTIVE"),
                    agent.as_str(),
                    active.active.as_str(),
                    active.detail
                );
                if let Some(fix) = &active.fix {
                    anstream::println!("to make them run: {fix}");
                }
            }
        }
    }
    Ok(ExitCode::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_format_is_pinned() {
        let record = |decision, verdict: Option<&str>, reasons: &[&str]| loki_seal::StopRecord {
            at: "2026-12-01T10:00:00Z".into(),
            decision,
            verdict: verdict.map(str::to_string),
            receipt_sha256: verdict.map(|_| "ab12".into()),
            run_id: Some("r1".into()),
            reasons: reasons.iter().map(|r| (*r).to_string()).collect(),
        };
        let session = |id: &str, origin, blocks, history| loki_seal::SealState {
            schema: loki_seal::session::STATE_SCHEMA.into(),
            session: id.into(),
            repo_root: "/repo".into(),
            snapshot: "c0ffee".into(),
            started_at: "2026-12-01T09:00:00Z".into(),
            checks: Vec::new(),
            baseline: Vec::new(),
            blocks,
            baseline_s: 1.5,
            origin,
            history,
        };
        let sessions = [
            session(
                "s1",
                loki_seal::Origin::SessionStart,
                0,
                vec![
                    record(
                        loki_seal::Stopped::Blocked,
                        Some("FAILED"),
                        &["newly_skipped: test_sub"],
                    ),
                    record(
                        loki_seal::Stopped::Released,
                        Some("PARTIAL"),
                        &["newly_skipped: test_sub"],
                    ),
                ],
            ),
            session("s2", loki_seal::Origin::LastCommit, 1, Vec::new()),
        ];
        let agents = [
            loki_seal::Activation {
                agent: Agent::Claude,
                active: loki_seal::Active::Yes,
                detail: "/repo/.claude/settings.json registers the hooks".into(),
                fix: None,
            },
            loki_seal::Activation {
                agent: Agent::Codex,
                active: loki_seal::Active::No,
                detail: "/repo is not a trusted project".into(),
                fix: Some("codex trust".into()),
            },
        ];
        let out = render_status(&sessions, &agents, &["bad.json: not JSON".into()]);
        insta::assert_snapshot!(anstream::adapter::strip_str(&out).to_string());
    }
}
