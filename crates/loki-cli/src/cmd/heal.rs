//! `loki run`, `loki fix`, `loki replay`: incidents and healing (the work is in `loki-heal`, the
//! text in `loki_term::heal`).
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

use loki_agent::Provider;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_heal::backups;
use loki_heal::web::PageSpec;
use loki_heal::{
    FixOptions, FixReport, FixSession, HealError, ObserveOptions, Observed, PatchSource,
    PlannedEdit,
};
use loki_protocol::outcome::ExitCode;
use loki_receipt::{KeyEnv, Signer};

mod demo;

use crate::cli::{FixArgs, ReplayArgs, RunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::interrupt;

/// Default limit on an observed command (and on its reproduction).
const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(600);

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
    if ctx.global.json {
        let v = loki_term::heal::observed_json(&observed, code, opts.timeout.as_secs());
        // With --auto-heal the fix's summary is the one object; what was observed rides in it.
        let heals = args.auto_heal && matches!(observed, Observed::Crashed { .. });
        if heals {
            crate::output::defer("observed", v);
        } else {
            crate::output::json(v);
        }
    }
    match &observed {
        Observed::Clean { run_id, .. } => {
            if !ctx.global.json && !ctx.global.quiet {
                anstream::eprintln!("{}", loki_term::heal::clean(run_id));
            }
            Ok(observed_exit(0))
        }
        Observed::TimedOut { run_id, .. } => {
            if !ctx.global.json {
                let secs = opts.timeout.as_secs();
                anstream::eprintln!("{}", loki_term::heal::timed_out(secs, run_id));
            }
            Ok(observed_exit(code))
        }
        Observed::Crashed {
            run_id,
            incident,
            run_dir,
            ..
        } => {
            if !ctx.global.json {
                let text = loki_term::heal::crashed(run_id, incident, &repo.root, run_dir);
                anstream::eprint!("{text}");
            }
            if args.auto_heal {
                return apply(ctx, &repo, run_id, true, false, None).map(Into::into);
            }
            Ok(observed_exit(incident.exit.code))
        }
        Observed::Interrupted { run_id, .. } => {
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

pub fn fix(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    if args.demo {
        return demo::demo(ctx, args);
    }
    let repo = ctx.repo()?;
    if args.restore {
        return restore(ctx, &repo);
    }
    anstream::eprint!(
        "{}",
        loki_term::heal::stale_backups(&backups::find_stale(&repo.root))
    );
    let run = loki_heal::incident::named(&repo, args.run.as_deref())?;
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
        crate::output::json(loki_term::heal::diagnosis_json(run, &inc, &res));
        return Ok(ExitCode::Success);
    }
    // The crashing line of the innermost source file, shown under it.
    let code = res.crash_line();
    anstream::print!(
        "{}",
        loki_term::heal::diagnosis(run, &inc, &res, (&repo.root, &dir), code.as_deref())
    );
    Ok(ExitCode::Success)
}

fn restore(ctx: &Ctx, repo: &Repo) -> anyhow::Result<ExitCode> {
    let stale = backups::find_stale(&repo.root);
    if ctx.global.json {
        let mut restored = Vec::new();
        for b in &stale {
            backups::restore(b)?;
            restored.push(b.rel.as_str());
        }
        crate::output::json(serde_json::json!({"root": repo.root, "restored": restored}));
        return Ok(ExitCode::Success);
    }
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
            anstream::println!("{}", loki_term::heal::restored(b));
        }
    }
    Ok(ExitCode::Success)
}

/// The model `loki fix` asks ([`loki_workspace::options::Setup::choose_api`], refused when it is
/// a CLI agent). `None` when auto finds nothing.
fn model(ctx: &Ctx, flag: Option<&str>) -> anyhow::Result<Option<Box<dyn Provider>>> {
    let Some(chosen) = ctx.setup().choose_api(flag)? else {
        return Ok(None);
    };
    Ok(Some(loki_heal::model::loop_only(
        chosen.backend,
        chosen.choice.label(),
    )?))
}

fn signer(ctx: &Ctx) -> anyhow::Result<Signer> {
    Ok(Signer::load_or_create(
        ctx.home()?,
        &KeyEnv::from_process(),
    )?)
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
    let provider = loki_heal::model::required(model(ctx, model_flag)?)?;
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
            anstream::print!("{}", loki_term::heal::proposed(planned));
        }
    }

    fn confirm(&mut self, planned: &PlannedEdit) -> anyhow::Result<bool> {
        interrupt::at_prompt("nothing was changed: the patch was not applied");
        let accepted = confirm(&loki_term::heal::confirm_question(planned))?;
        interrupt::left("nothing was changed: the patch was not applied");
        Ok(accepted)
    }

    fn applied(&mut self, planned: &PlannedEdit, backup: &Path) {
        let shown = backup.strip_prefix(&self.repo.root).unwrap_or(backup);
        interrupt::left(loki_term::heal::applied_note(planned, shown, self.run));
        if !self.ctx.global.quiet {
            anstream::println!("{}", loki_term::heal::applied(planned, shown));
        }
    }

    fn unsealed(&mut self, err: &HealError) {
        anstream::eprintln!("{}", loki_term::heal::unsealed(err));
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
        let words = (status, detail.as_str());
        crate::output::json(loki_term::heal::summary_json(r, incident, words, &file));
    } else {
        let text = loki_term::heal::summary(r, incident, &detail, ctx.global.quiet);
        anstream::print!("{text}");
    }
    code
}

pub fn replay(ctx: &Ctx, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    interrupt::install("the reproduction was stopped; nothing was changed")?;
    let run = loki_heal::incident::named(&repo, args.run.as_deref())?;
    let dir = loki_heal::fix::incident_dir(&repo, &run)?;
    let (inc, _) = loki_heal::incident::load(&dir)?;
    let (video, extra) = loki_heal::web::replay_video(&dir, &inc, run.as_str(), args.video)?;
    let r = loki_heal::repro::run_with(&dir, &inc, None, &[], &extra)?;
    let video = (args.video && video.is_file()).then_some(video);
    let code = ExitCode::from_code(r.verdict.exit_code());
    if ctx.global.json {
        crate::output::json(loki_term::heal::replay_json(
            &run,
            &inc,
            &r,
            video.as_deref(),
        ));
        return Ok(code);
    }
    let shown = video
        .as_deref()
        .map(|v| v.strip_prefix(&repo.root).unwrap_or(v));
    let text = loki_term::heal::replay(&inc, &r, ctx.global.quiet, (shown, args.video));
    anstream::print!("{text}");
    Ok(code)
}
