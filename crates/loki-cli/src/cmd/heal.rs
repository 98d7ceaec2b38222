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
use loki_heal::demo::Demo;
use loki_heal::sequence::{HealUi, Request, Steps};
use loki_heal::web::PageSpec;
use loki_heal::{FixReport, HealError, ObserveOptions, Observed, PatchSource, PlannedEdit};
use loki_protocol::outcome::ExitCode;

use crate::cli::{FixArgs, ReplayArgs, RunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::interrupt;

fn argv() -> Vec<String> {
    std::env::args().collect()
}

pub fn run(ctx: &Ctx, args: &RunArgs) -> anyhow::Result<crate::cmd::Exit> {
    let repo = ctx.repo()?;
    interrupt::install(
        "the command's process group was stopped; nothing was recorded as an incident",
    )?;
    let timeout = args
        .timeout
        .map_or(loki_heal::DEFAULT_TIMEOUT, Duration::from_secs);
    let opts = match &args.url {
        Some(url) => {
            let page = PageSpec {
                cwd: &ctx.cwd,
                url,
                serve: args.serve.as_deref(),
                steps: args.steps.as_deref(),
                server: &args.command,
            };
            let exe = std::env::current_exe()?;
            loki_heal::web::page_options(&page, &exe, argv(), args.seed, timeout, args.clean_env)?
        }
        None => ObserveOptions {
            command: args.command.clone(),
            cwd: ctx.cwd.clone(),
            seed: args.seed,
            timeout,
            argv: argv(),
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
    let secs = opts.timeout.as_secs();
    let heals = args.auto_heal && matches!(observed, Observed::Crashed { .. });
    if ctx.global.json {
        let v = loki_term::heal::observed_json(&observed, secs);
        // With --auto-heal the fix's summary is the one object; what was observed rides in it.
        if heals {
            crate::output::defer("observed", v);
        } else {
            crate::output::json(v);
        }
    } else {
        let text = loki_term::heal::observed(&observed, &repo.root, secs, ctx.global.quiet);
        anstream::eprint!("{text}");
    }
    if heals {
        return apply(ctx, &repo, observed.run_id(), true, false, None).map(Into::into);
    }
    if let Observed::Interrupted { run_id, .. } = &observed {
        // `main` prints it and exits with the signal's code.
        interrupt::left(format!(
            "the command's process group was stopped; nothing was recorded as an incident (run {run_id})"
        ));
    }
    // A status is 0..=255; one outside (a negative one from a foreign wait status) is a failure.
    let status = u8::try_from(observed.exit_status()).unwrap_or(1);
    Ok(crate::cmd::Exit::Observed(status))
}

pub fn fix(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    if args.demo {
        return demo(ctx, args);
    }
    let repo = ctx.repo()?;
    if args.restore {
        return restore(ctx, &repo);
    }
    let stale = loki_heal::backups::find_stale(&repo.root);
    anstream::eprint!("{}", loki_term::heal::stale_backups(&stale));
    let run = loki_heal::incident::named(&repo, args.run.as_deref())?;
    if !args.apply {
        let d = loki_heal::diagnose(&repo, &run)?;
        if ctx.global.json {
            crate::output::json(loki_term::heal::diagnosis_json(&run, &d));
        } else {
            anstream::print!("{}", loki_term::heal::diagnosis(&run, &d, &repo.root));
        }
        return Ok(ExitCode::Success);
    }
    if !args.yes && !std::io::stdin().is_terminal() {
        return Err(UsageError(
            "loki fix --apply asks before changing a file, but stdin is not a terminal: pass --yes to apply without asking".into(),
        )
        .into());
    }
    interrupt::install("nothing was changed: no patch was applied")?;
    let model = args.model.as_deref();
    apply(ctx, &repo, &run, args.yes, args.no_verify, model)
}

fn restore(ctx: &Ctx, repo: &Repo) -> anyhow::Result<ExitCode> {
    let mut r = loki_heal::backups::restore_all(&repo.root);
    let failed = r.failed.take();
    if ctx.global.json {
        if let Some(e) = failed {
            return Err(e.into());
        }
        crate::output::json(loki_term::heal::restored_json(&repo.root, &r));
        return Ok(ExitCode::Success);
    }
    let text = loki_term::heal::restored(&repo.root, &r, ctx.global.quiet);
    anstream::print!("{text}");
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(ExitCode::Success),
    }
}

/// The model `loki fix` asks ([`loki_workspace::options::Setup::choose_api`], refused when it is
/// a CLI agent). `None` when auto finds nothing.
fn model(ctx: &Ctx, flag: Option<&str>) -> anyhow::Result<Option<Box<dyn Provider>>> {
    let Some(chosen) = ctx.setup().choose_api(flag)? else {
        return Ok(None);
    };
    let label = chosen.choice.label();
    Ok(Some(loki_heal::model::loop_only(chosen.backend, label)?))
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
    let source = PatchSource::Model(provider.as_ref());
    heal(ctx, repo, run, source, yes, no_verify)
}

/// What `loki fix` shows and asks during [`loki_heal::sequence::heal`], and the interrupt
/// notes it keeps.
struct Terminal<'a> {
    quiet: bool,
    repo: &'a Repo,
    run: &'a RunId,
}

impl HealUi<anyhow::Error> for Terminal<'_> {
    fn started(&mut self) {
        interrupt::left("nothing was changed: no patch was applied");
    }

    fn signal(&self) -> Option<&'static str> {
        interrupt::signal_name()
    }

    fn proposed(&mut self, planned: &PlannedEdit) {
        if !self.quiet {
            anstream::print!("{}", loki_term::heal::proposed(planned));
        }
    }

    fn confirm(&mut self, planned: &PlannedEdit) -> anyhow::Result<bool> {
        interrupt::at_prompt("nothing was changed: the patch was not applied");
        anstream::eprint!("{} [y/N] ", loki_term::heal::confirm_question(planned));
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        interrupt::left("nothing was changed: the patch was not applied");
        Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
    }

    fn applied(&mut self, planned: &PlannedEdit, backup: &Path) {
        let shown = backup.strip_prefix(&self.repo.root).unwrap_or(backup);
        interrupt::left(loki_term::heal::applied_note(planned, shown, self.run));
        if !self.quiet {
            anstream::println!("{}", loki_term::heal::applied(planned, shown));
        }
    }

    fn unsealed(&mut self, err: &HealError) {
        anstream::eprintln!("{}", loki_term::heal::unsealed(err));
    }
}

/// Heals the incident of `run` ([`loki_heal::sequence::heal_incident`]) and shows its summary.
fn heal(
    ctx: &Ctx,
    repo: &Repo,
    run: &RunId,
    source: PatchSource<'_>,
    yes: bool,
    no_verify: bool,
) -> anyhow::Result<ExitCode> {
    let exe = std::env::current_exe().ok();
    let req = Request {
        repo,
        run,
        home: ctx.home()?,
        exe: exe.as_deref(),
        steps: Steps {
            yes,
            verify: !no_verify,
        },
    };
    let quiet = ctx.global.quiet;
    let mut ui = Terminal { quiet, repo, run };
    let r: FixReport = loki_heal::sequence::heal_incident(req, argv(), source, &mut ui)?;
    let file = r.planned.as_ref().map_or(String::new(), |p| p.rel.clone());
    let (status, detail) = loki_heal::fix::settled_words(&r.settled, &file, run);
    // What an interruption from here on leaves is what this summary says.
    interrupt::left(detail.clone());
    if ctx.global.json {
        let words = (status, detail.as_str());
        crate::output::json(loki_term::heal::summary_json(&r, run, words, &file));
    } else {
        anstream::print!("{}", loki_term::heal::summary(&r, run, &detail, quiet));
    }
    Ok(r.outcome.exit_code())
}

pub fn replay(ctx: &Ctx, args: &ReplayArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    interrupt::install("the reproduction was stopped; nothing was changed")?;
    let run = loki_heal::incident::named(&repo, args.run.as_deref())?;
    let r = loki_heal::replay(&repo, &run, args.video)?;
    if ctx.global.json {
        crate::output::json(loki_term::heal::replay_json(&run, &r));
    } else {
        let quiet = ctx.global.quiet;
        anstream::print!(
            "{}",
            loki_term::heal::replay(&r, &repo.root, quiet, args.video)
        );
    }
    Ok(ExitCode::from_code(r.replay.verdict.exit_code()))
}

/// `loki fix --demo [--browser]`: the bundled example (a script, or a web page in headless
/// Chromium), crashed, recorded and healed end to end in a directory of its own; healed by the
/// configured model, else by the example's built-in patch.
fn demo(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    interrupt::install("nothing was changed")?;
    let (demo, opts) = if args.browser {
        let demo = Demo::page()?;
        let page = loki_heal::demo::WEB_PAGE;
        anstream::println!("{}", loki_term::heal::demo_page(page, &demo.dir));
        let opts = demo.page_options(&std::env::current_exe()?, argv())?;
        let browser = opts.browser.as_ref().map_or("", |b| b.version.as_str());
        let url = loki_heal::demo::WEB_URL;
        anstream::println!("{}", loki_term::heal::checking(url, browser));
        (demo, opts)
    } else {
        let demo = Demo::script(&|p: &str| which::which(p).is_ok())?;
        let intro = loki_term::heal::demo_script(demo.file, &demo.dir, &demo.command);
        anstream::print!("{intro}");
        let opts = demo.script_options(argv());
        (demo, opts)
    };
    let c = demo.crash(&opts)?;
    let root = &demo.repo.root;
    let crashed = loki_term::heal::demo_crashed(&c.run_id, &c.incident, root, &c.run_dir);
    anstream::print!("{crashed}");
    let provider = match model(ctx, args.model.as_deref()) {
        Ok(p) => p,
        Err(e) if args.model.is_some() => return Err(e),
        Err(_) => None,
    };
    if ctx.global.json {
        crate::output::defer("demo_dir", &demo.dir);
    }
    let source = match &provider {
        Some(p) => PatchSource::Model(p.as_ref()),
        None => {
            let fallback = demo.fallback()?;
            anstream::println!("{}", loki_term::heal::demo_fallback());
            PatchSource::Fallback(fallback)
        }
    };
    let result = heal(ctx, &demo.repo, &c.run_id, source, true, false);
    anstream::println!("{}", loki_term::heal::demo_kept(&demo.dir));
    result
}
