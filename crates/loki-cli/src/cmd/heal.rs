//! `loki run`, `loki fix`, `loki replay`: incidents and healing (the work is in `loki-heal`).
//!
//! - `loki run [--seed N] [--timeout S] [--clean-env] [--auto-heal] -- <cmd…>` echoes the
//!   command's output and records the run; a crash adds an incident and its `repro.sh`. The
//!   command gets the caller's environment unchanged (`--clean-env` removes secret-looking
//!   variables). loki exits with the command's own status: its exit code, 128 + N for a death by
//!   signal N (recorded as a crash naming the signal), 124 when `--timeout` stopped it; 2 when it
//!   cannot start. With `--auto-heal`, a crash exits with the fix's verdict instead.
//! - `loki fix [run]` diagnoses; `--apply [--yes] [--no-verify] [--model p/m]` heals and exits
//!   with the heal receipt's verdict (0 VERIFIED, 1 otherwise); `--restore` puts stale backups
//!   back; `--demo` heals a bundled example. Without `--yes`, a patch is applied only after a
//!   "y" on a terminal: stdin that is not a terminal is refused with exit 2 before any model call.
//! - `loki run --url URL [--serve DIR] [--steps FILE] [-- SERVER…]` checks a web page in
//!   headless Chromium instead (`loki_heal::web`): the observed command is loki's own page check,
//!   so the incident, `repro.sh`, `loki fix` and `loki replay` are those of a process crash. A
//!   check that cannot tell (no browser, the page never loads) records nothing and exits 2.
//!   `loki fix --demo --browser` heals the bundled web page.
//! - `loki replay [run] [--video]`: REPRODUCED 1, NOT REPRODUCED 0, HARNESS ERROR 2; `--video`
//!   writes a web page's replay as `replay.png` (animated) next to the incident.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::Path;
use std::time::Duration;

use loki_agent::{Backend, Provider, ProviderChoice, build};
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_heal::backups::{self, StaleBackup};
use loki_heal::web::PageSpec;
use loki_heal::{
    FixOptions, FixReport, FixSession, HealError, Incident, ObserveOptions, Observed, PatchSource,
    PlannedEdit, ReplayVerdict, Settled,
};
use loki_receipt::{KeyEnv, Signer};

mod demo;

use crate::cli::{FixArgs, ReplayArgs, RunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::interrupt;
use loki_term::{DIM, GREEN, RED, YELLOW, paint};

/// Default limit on an observed command (and on its reproduction).
const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);
/// Lines of the reproduction's output shown by `loki replay` (the end holds the verdict).
const REPLAY_SHOWN_LINES: usize = 30;

fn label(l: &str) -> String {
    format!("{l:<12}")
}

/// An exit status as the process reports it: statuses are 0..=255, and a code outside (a
/// negative one from a foreign wait status) is reported as a failure.
fn observed_exit(code: i32) -> crate::cmd::Exit {
    crate::cmd::Exit::Observed(u8::try_from(code).unwrap_or(1))
}

pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<crate::cmd::Exit> {
    let repo = ctx.repo()?;
    interrupt::install(
        "the command's process group was stopped; nothing was recorded as an incident",
    )?;
    let timeout = args
        .timeout
        .map_or(DEFAULT_RUN_TIMEOUT, Duration::from_secs);
    let opts = match &args.url {
        Some(url) => page_options(
            &PageSpec {
                cwd: &ctx.cwd,
                url,
                serve: args.serve.as_deref(),
                steps: args.steps.as_deref(),
                server: &args.command,
            },
            args.seed,
            timeout,
            args.clean_env,
        )?,
        None => ObserveOptions {
            command: args.command.clone(),
            cwd: ctx.cwd.clone(),
            seed: args.seed,
            timeout,
            argv: std::env::args().collect(),
            clean_env: args.clean_env,
            browser: None,
        },
    };
    let observed = loki_heal::observe(&repo, &opts)?;
    let out = observed.output();
    // The command's own output first, on the streams it used.
    if ctx.global.json {
        anstream::eprint!("{}", out.output.text());
    } else {
        anstream::print!("{}", out.output.text());
    }
    anstream::eprint!("{}", out.stderr.text());
    let _ = std::io::stdout().flush();
    let code = out.exit_code();
    match &observed {
        Observed::Clean { run_id, .. } => {
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({"run": run_id, "outcome": "CLEAN", "exit_code": 0})
                );
            } else if !ctx.global.quiet {
                anstream::eprintln!(
                    "{}",
                    paint(DIM, &format!("loki: clean run, recorded as {run_id}"))
                );
            }
            Ok(observed_exit(0))
        }
        Observed::TimedOut { run_id, .. } => {
            let secs = opts.timeout.as_secs();
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({"run": run_id, "outcome": "TIMED_OUT", "timeout_s": secs, "exit_code": code})
                );
            } else {
                anstream::eprintln!(
                    "{}: the command was stopped after {secs}s; no incident recorded (a hang has no deterministic reproduction); run {run_id}",
                    paint(YELLOW, "loki")
                );
            }
            Ok(observed_exit(code))
        }
        Observed::Crashed {
            run_id,
            incident,
            run_dir,
            ..
        } => {
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({"run": run_id, "outcome": "CRASHED", "exit_code": incident.exit.code,
                        "signal": incident.exit.signal_name, "kind": incident.crash.kind,
                        "signature": incident.signature, "repro": run_dir.join(&incident.repro)})
                );
            } else {
                anstream::eprintln!("{}: crash recorded as {run_id}", paint(RED, "loki"));
                anstream::eprint!("{}", crash_lines(incident, &repo, run_dir));
                anstream::eprintln!(
                    "{}loki fix (diagnose) · loki fix --apply (patch and verify) · loki replay",
                    label("Next:")
                );
            }
            if args.auto_heal {
                return apply(ctx, &repo, run_id, true, false, None).map(Into::into);
            }
            Ok(observed_exit(incident.exit.code))
        }
        Observed::Interrupted { run_id, signal, .. } => {
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({"run": run_id, "outcome": "INTERRUPTED", "signal": signal, "exit_code": code})
                );
            }
            // `main` prints it and exits with the signal's code.
            interrupt::left(format!(
                "the command's process group was stopped; nothing was recorded as an incident (run {run_id})"
            ));
            Ok(observed_exit(code))
        }
    }
}

/// [`loki_heal::web::page_options`] for this loki binary and command line.
fn page_options(
    page: &PageSpec<'_>,
    seed: Option<u64>,
    timeout: Duration,
    clean_env: bool,
) -> anyhow::Result<ObserveOptions> {
    let exe = std::env::current_exe()?;
    Ok(loki_heal::web::page_options(
        page,
        &exe,
        std::env::args().collect(),
        seed,
        timeout,
        clean_env,
    )?)
}

fn crash_lines(inc: &Incident, repo: &Repo, run_dir: &Path) -> String {
    let mut s = String::new();
    if let Some(b) = &inc.browser {
        s.push_str(&format!("{}{} ({})\n", label("Page:"), b.url, b.version));
    }
    let msg = if inc.crash.message.is_empty() {
        inc.crash.kind.clone()
    } else {
        format!(
            "{}: {}",
            inc.crash.kind,
            inc.crash.message.lines().next().unwrap_or_default()
        )
    };
    let how = match &inc.exit.signal_name {
        Some(sig) if !msg.contains(sig.as_str()) => {
            format!("killed by {sig}, exit {}", inc.exit.code)
        }
        _ => format!("exit {}", inc.exit.code),
    };
    s.push_str(&format!("{}{msg} ({how})\n", label("Crash:")));
    s.push_str(&format!(
        "{}{} [{}]\n",
        label("Signature:"),
        inc.signature.text,
        inc.signature.id
    ));
    let script = run_dir.join(&inc.repro);
    let shown = script.strip_prefix(&repo.root).unwrap_or(&script);
    s.push_str(&format!("{}{}\n", label("Repro:"), shown.display()));
    s
}

/// The incident a `run` argument names: an id, or the newest incident for `latest` / none.
fn incident_run(repo: &Repo, arg: Option<&str>) -> anyhow::Result<RunId> {
    match arg {
        None | Some("latest") => Ok(loki_heal::latest_incident(repo)?),
        Some(id) => {
            let id: RunId = id.parse()?;
            loki_heal::fix::incident_dir(repo, &id)?;
            Ok(id)
        }
    }
}

fn report_stale(stale: &[StaleBackup]) {
    for b in stale {
        anstream::eprintln!(
            "{}: stale backup {}.loki.bak from a fix that was never verified: {} may hold an unverified patch",
            paint(YELLOW, "warning"),
            b.rel,
            b.rel
        );
    }
    if !stale.is_empty() {
        anstream::eprintln!(
            "  `loki fix --restore` puts the original back; `loki replay` checks the current file; deleting the .loki.bak keeps it"
        );
    }
}

pub fn fix(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    if args.demo {
        return demo::demo(ctx, args);
    }
    let repo = ctx.repo()?;
    if args.restore {
        return restore(ctx, &repo);
    }
    report_stale(&backups::find_stale(&repo.root));
    let run = incident_run(&repo, args.run.as_deref())?;
    if args.apply {
        if !args.yes && !std::io::stdin().is_terminal() {
            return Err(UsageError(
                "loki fix --apply asks before changing a file, but stdin is not a terminal: pass --yes to apply without asking".into(),
            )
            .into());
        }
        interrupt::install("nothing was changed: no patch was applied")?;
        return apply(
            ctx,
            &repo,
            &run,
            args.yes,
            args.no_verify,
            args.model.as_deref(),
        );
    }
    diagnose(ctx, &repo, &run)
}

fn diagnose(ctx: &Ctx, repo: &Repo, run: &RunId) -> anyhow::Result<ExitCode> {
    let dir = loki_heal::fix::incident_dir(repo, run)?;
    let (inc, _) = loki_heal::incident::load(&dir)?;
    let res = loki_heal::resolve(&repo.root, &inc);
    if ctx.global.json {
        let files: Vec<_> = res
            .files
            .iter()
            .map(|f| serde_json::json!({"file": f.rel, "line": f.line, "function": f.function, "library": f.library}))
            .collect();
        let refused: Vec<_> = res
            .refused
            .iter()
            .map(|r| serde_json::json!({"frame": r.printed, "reason": r.reason}))
            .collect();
        anstream::println!(
            "{}",
            serde_json::json!({"incident": run, "command": inc.command, "crash": inc.crash,
                "signature": inc.signature, "sources": files, "refused": refused})
        );
        return Ok(ExitCode::Success);
    }
    anstream::println!("{}{run}", label("Incident:"));
    anstream::println!("{}{}", label("Command:"), inc.command.join(" "));
    anstream::print!("{}", crash_lines(&inc, repo, &dir));
    if res.files.is_empty() {
        anstream::println!("{}none in this repository", label("Source:"));
    }
    for (i, f) in res.files.iter().enumerate() {
        let at = format!(
            "{}{}{}",
            f.rel,
            f.line.map(|l| format!(":{l}")).unwrap_or_default(),
            f.function
                .as_deref()
                .map(|n| format!(" in {n}"))
                .unwrap_or_default()
        );
        anstream::println!("{}{at}", label(if i == 0 { "Source:" } else { "" }));
        if i == 0
            && let Some(line) = f.line
            && let Ok(text) = std::fs::read_to_string(&f.abs)
            && let Some(code) = text.lines().nth((line as usize).saturating_sub(1))
        {
            anstream::println!("{}{}", label(""), paint(DIM, &format!("{line:>5}| {code}")));
        }
    }
    for (i, r) in res.refused.iter().enumerate() {
        anstream::println!(
            "{}{} — {}",
            label(if i == 0 { "Refused:" } else { "" }),
            r.printed,
            r.reason
        );
    }
    anstream::println!(
        "{}loki fix --apply to synthesize, apply and verify a patch",
        label("Next:")
    );
    Ok(ExitCode::Success)
}

fn restore(ctx: &Ctx, repo: &Repo) -> anyhow::Result<ExitCode> {
    let stale = backups::find_stale(&repo.root);
    if stale.is_empty() {
        anstream::println!(
            "no .loki.bak backups in {}: nothing to restore",
            repo.root.display()
        );
        return Ok(ExitCode::Success);
    }
    for b in &stale {
        backups::restore(b)?;
        if !ctx.global.quiet {
            anstream::println!(
                "{} {} from {}.loki.bak",
                paint(GREEN, "restored"),
                b.rel,
                b.rel
            );
        }
    }
    Ok(ExitCode::Success)
}

/// The model `loki fix` asks: `--model provider[/model]`, else the configuration, else `auto`
/// among API providers. `None` when auto finds nothing.
fn model(ctx: &Ctx, flag: Option<&str>) -> anyhow::Result<Option<Box<dyn Provider>>> {
    let mut settings = crate::cmd::providers::settings(ctx);
    let choice = match flag {
        Some(spec) => {
            let (name, m) = match spec.split_once('/') {
                Some((p, m)) => (p, Some(m)),
                None => (spec, None),
            };
            if let Some(m) = m.filter(|m| !m.is_empty()) {
                settings.model = Some(m.to_string());
            }
            ProviderChoice::parse(name)?
        }
        None => ProviderChoice::parse(ctx.config.str("provider.name").unwrap_or("auto"))?,
    };
    let choice = match choice {
        Some(c) => c,
        None => match crate::cmd::providers::detect(ctx).choice {
            Some(c @ (ProviderChoice::OpenAi | ProviderChoice::Anthropic)) => c,
            _ => return Ok(None),
        },
    };
    match build(&choice, &settings)? {
        Backend::Loop(p) => Ok(Some(p)),
        Backend::Cli(_) => Err(HealError::CliProvider {
            provider: choice.label(),
        }
        .into()),
    }
}

fn signer(ctx: &Ctx) -> anyhow::Result<Signer> {
    Ok(Signer::load_or_create(
        ctx.home()?,
        &KeyEnv::from_process(),
    )?)
}

fn colour_diff(diff: &str) -> String {
    diff.lines()
        .map(|l| {
            if l.starts_with("+++") || l.starts_with("---") {
                l.to_string()
            } else if l.starts_with('+') {
                paint(GREEN, l)
            } else if l.starts_with('-') {
                paint(RED, l)
            } else if l.starts_with("@@") {
                paint(DIM, l)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

fn confirm(question: &str) -> anyhow::Result<bool> {
    anstream::eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
}

fn apply(
    ctx: &Ctx,
    repo: &Repo,
    run: &RunId,
    yes: bool,
    no_verify: bool,
    model_flag: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let provider = model(ctx, model_flag)?;
    let Some(provider) = provider else {
        return Err(HealError::NoModel {
            hint: "set ANTHROPIC_API_KEY or OPENAI_API_KEY, point openai.base_url at a local server, pass --model provider/model, or try `loki fix --demo`".into(),
        }
        .into());
    };
    heal(
        ctx,
        repo,
        run,
        PatchSource::Model(provider.as_ref()),
        yes,
        no_verify,
    )
}

/// The box a fix's verifying replay runs in ([`loki_heal::replay_box`]). Empty when Landlock
/// is unavailable.
fn replay_box(ctx: &Ctx, repo: &Repo) -> anyhow::Result<Vec<std::ffi::OsString>> {
    let Ok(exe) = std::env::current_exe() else {
        return Ok(Vec::new());
    };
    if !loki_process::confine::available() {
        return Ok(Vec::new());
    }
    Ok(loki_heal::replay_box::wrapper(&exe, ctx.home()?, repo))
}

/// What `loki fix` shows and asks during [`loki_heal::sequence::heal`], and the interrupt
/// notes it keeps.
struct Terminal<'a> {
    ctx: &'a Ctx,
    repo: &'a Repo,
    run: &'a RunId,
}

impl loki_heal::sequence::HealUi<anyhow::Error> for Terminal<'_> {
    fn signal(&self) -> Option<&'static str> {
        interrupt::signal_name()
    }

    fn proposed(&mut self, planned: &PlannedEdit) {
        if !self.ctx.global.quiet {
            anstream::println!("{}{}", label("Patch:"), planned.rel);
            anstream::println!("{}{}", label("Root cause:"), planned.proposal.root_cause);
            anstream::println!("{}{}", label("Fix:"), planned.proposal.explanation);
            anstream::print!("{}", colour_diff(&planned.diff));
        }
    }

    fn confirm(&mut self, planned: &PlannedEdit) -> anyhow::Result<bool> {
        interrupt::at_prompt("nothing was changed: the patch was not applied");
        let accepted = confirm(&format!("Apply this patch to {}?", planned.rel))?;
        interrupt::left("nothing was changed: the patch was not applied");
        Ok(accepted)
    }

    fn applied(&mut self, planned: &PlannedEdit, backup: &Path) {
        let shown = backup.strip_prefix(&self.repo.root).unwrap_or(backup);
        interrupt::left(format!(
            "the patch stays applied to {}; the original is kept in {}: `loki fix --restore` puts it back, `loki replay {}` checks the patched file",
            planned.rel,
            shown.display(),
            self.run
        ));
        if !self.ctx.global.quiet {
            anstream::println!(
                "{}{} (backup {})",
                label("Applied:"),
                planned.rel,
                shown.display()
            );
        }
    }

    fn unsealed(&mut self, err: &HealError) {
        anstream::eprintln!(
            "{}: the heal receipt could not be sealed: {err}",
            paint(YELLOW, "warning")
        );
    }
}

fn heal(
    ctx: &Ctx,
    repo: &Repo,
    run: &RunId,
    source: PatchSource<'_>,
    yes: bool,
    no_verify: bool,
) -> anyhow::Result<ExitCode> {
    let signer = signer(ctx)?;
    let opts = FixOptions {
        argv: std::env::args().collect(),
        repro_timeout: None,
        replay_wrapper: replay_box(ctx, repo)?,
    };
    let session = FixSession::start(repo, run, opts)?;
    interrupt::left("nothing was changed: no patch was applied");
    let steps = loki_heal::sequence::Steps {
        yes,
        verify: !no_verify,
    };
    let mut ui = Terminal { ctx, repo, run };
    let report = loki_heal::sequence::heal(session, source, &signer, steps, &mut ui)?;
    Ok(summary(ctx, run, &report))
}

fn summary(ctx: &Ctx, incident: &RunId, r: &FixReport) -> ExitCode {
    let code = r.outcome.exit_code();
    let file = r.planned.as_ref().map_or(String::new(), |p| p.rel.clone());
    let (status, detail) = loki_heal::fix::settled_words(&r.settled, &file, incident);
    // What an interruption from here on leaves is what this summary says.
    interrupt::left(detail.clone());
    if ctx.global.json {
        anstream::println!(
            "{}",
            serde_json::json!({
                "run": r.run_id, "incident": incident, "outcome": r.outcome.as_str(), "status": status,
                "detail": detail, "file": file, "receipt_sha256": r.sealed.receipt.receipt_sha256,
                "not_proven": r.not_proven, "cost_usd": r.cost_usd, "provider": r.provider, "model": r.model,
            })
        );
        return code;
    }
    let style = if r.outcome.is_success() { GREEN } else { RED };
    anstream::println!("{}{}", label("Outcome:"), paint(style, r.outcome.as_str()));
    if code != ExitCode::Success || !matches!(r.settled, Settled::Verified) {
        anstream::println!("{}{detail}", label("Reason:"));
    } else if !ctx.global.quiet {
        anstream::println!("{}{detail}", label("Result:"));
    }
    anstream::println!(
        "{}sha256:{}",
        label("Receipt:"),
        r.sealed.receipt.receipt_sha256
    );
    anstream::println!("{}{}", label("NOT PROVEN:"), r.not_proven.join(", "));
    let cost = match r.cost_usd {
        Some(usd) if !r.provider.is_empty() && r.usage.total() > 0 => {
            format!("${usd:.2} ({}, {} tokens)", r.provider, r.usage.total())
        }
        _ => format!(
            "not measured ({})",
            if r.model.is_empty() {
                "no model call"
            } else {
                &r.model
            }
        ),
    };
    anstream::println!("{}{cost}", label("Cost:"));
    anstream::println!(
        "{}{}",
        label("Time:"),
        loki_core::time::human_duration(r.elapsed.as_secs_f64())
    );
    anstream::println!(
        "{}",
        paint(DIM, &format!("heal run {} · incident {incident}", r.run_id))
    );
    code
}

pub fn replay(ctx: &Ctx, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    interrupt::install("the reproduction was stopped; nothing was changed")?;
    let run = incident_run(&repo, args.run.as_deref())?;
    let dir = loki_heal::fix::incident_dir(&repo, &run)?;
    let (inc, _) = loki_heal::incident::load(&dir)?;
    let video = dir.join(loki_heal::web::VIDEO_FILE);
    let mut extra = Vec::new();
    if args.video {
        if inc.browser.is_none() {
            return Err(UsageError(format!(
                "--video records a web page's replay; incident {run} is a process crash (record pages with `loki run --url`)"
            ))
            .into());
        }
        // A video left by an earlier replay must not pass for this one's.
        match std::fs::remove_file(&video) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        extra.push((
            loki_heal::web::VIDEO_ENV.into(),
            video.clone().into_os_string(),
        ));
    }
    let r = loki_heal::repro::run_with(&dir, &inc, None, &[], &extra)?;
    let video = (args.video && video.is_file()).then_some(video);
    let code = match r.verdict {
        ReplayVerdict::Reproduced => ExitCode::Failure,
        ReplayVerdict::NotReproduced => ExitCode::Success,
        ReplayVerdict::Harness(_) => ExitCode::Usage,
    };
    if ctx.global.json {
        let reason = match &r.verdict {
            ReplayVerdict::Harness(m) => Some(m.clone()),
            ReplayVerdict::Reproduced | ReplayVerdict::NotReproduced => None,
        };
        anstream::println!(
            "{}",
            serde_json::json!({"incident": run, "verdict": r.verdict.label(), "exit_code": r.verdict.exit_code(),
                "signature": inc.signature.text, "reason": reason, "video": video})
        );
        return Ok(code);
    }
    if !ctx.global.quiet {
        let lines: Vec<&str> = r.output.lines().collect();
        for l in &lines[lines.len().saturating_sub(REPLAY_SHOWN_LINES)..] {
            anstream::println!("{}", paint(DIM, l));
        }
    }
    let line = match &r.verdict {
        ReplayVerdict::Reproduced => {
            format!("{}: {}", paint(RED, "REPRODUCED"), inc.signature.text)
        }
        ReplayVerdict::NotReproduced => format!(
            "{}: the command completed without the crash",
            paint(GREEN, "NOT REPRODUCED")
        ),
        ReplayVerdict::Harness(m) => format!("{}: {m}", paint(YELLOW, "HARNESS ERROR")),
    };
    anstream::println!("{line}");
    if let Some(v) = &video {
        let shown = v.strip_prefix(&repo.root).unwrap_or(v);
        anstream::println!("{}{}", label("Video:"), shown.display());
    } else if args.video {
        anstream::println!(
            "{}none: the page check ended before a screencast was written (see its output above)",
            label("Video:")
        );
    }
    Ok(code)
}
