//! `loki fix --demo [--browser]`: the bundled example (a script, or a web page in headless
//! Chromium), crashed, recorded and healed end to end in a directory of its own.

use std::path::Path;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_heal::web::PageSpec;
use loki_heal::{ObserveOptions, Observed, PatchSource};

use super::{DEFAULT_RUN_TIMEOUT, crash_lines, heal, label, model, page_options};
use crate::cli::FixArgs;
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::interrupt;
use loki_term::{DIM, RED, paint};

/// `loki fix --demo`: the bundled example, healed end to end in a directory of its own.
pub(super) fn demo(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    interrupt::install("nothing was changed")?;
    if args.browser {
        return demo_browser(ctx, args);
    }
    let dir = std::env::temp_dir().join(format!("loki-demo-heal-{}", RunId::new()));
    let has = |p: &str| which::which(p).is_ok();
    let Some(demo) = loki_heal::demo::write(&dir, &has)? else {
        return Err(UsageError("the healing demo needs python3 or node on PATH".into()).into());
    };
    let repo = Repo::discover(&demo.dir)?;
    anstream::println!(
        "{}{} (a copy of the bundled example in {})",
        label("Demo:"),
        demo.file,
        demo.dir.display()
    );
    anstream::println!("{}{}", label("Running:"), demo.command.join(" "));
    let opts = ObserveOptions {
        command: demo.command.clone(),
        cwd: repo.root.clone(),
        seed: Some(0),
        timeout: DEFAULT_RUN_TIMEOUT,
        argv: std::env::args().collect(),
        clean_env: false,
        browser: None,
    };
    let observed = loki_heal::observe(&repo, &opts)?;
    let Observed::Crashed {
        run_id,
        incident,
        run_dir,
        ..
    } = observed
    else {
        return Err(anyhow::anyhow!(
            "the bundled example did not crash; this build of loki is broken"
        ));
    };
    anstream::print!("{}", paint(DIM, incident.stderr_tail.trim_end()));
    anstream::println!();
    anstream::println!("{}: crash recorded as {run_id}", paint(RED, "loki"));
    anstream::print!("{}", crash_lines(&incident, &repo, &run_dir));
    demo_heal(ctx, args, &repo, &run_id, &demo.dir, demo.file)
}

/// `loki fix --demo --browser`: the bundled web page, served by loki, checked in headless
/// Chromium, healed and verified by replaying the page check.
fn demo_browser(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("loki-demo-web-{}", RunId::new()));
    let site = loki_heal::demo::write_web(&dir)?;
    let repo = Repo::discover(&dir)?;
    anstream::println!(
        "{}{} (a copy of the bundled web page in {})",
        label("Demo:"),
        loki_heal::demo::WEB_PAGE,
        dir.display()
    );
    let opts = page_options(
        &PageSpec {
            cwd: &repo.root,
            url: "/index.html",
            serve: Some(&site),
            steps: None,
            server: &[],
        },
        Some(0),
        DEFAULT_RUN_TIMEOUT,
        false,
    )?;
    anstream::println!(
        "{}/index.html in headless Chromium ({})",
        label("Checking:"),
        opts.browser.as_ref().map_or("", |b| b.version.as_str())
    );
    let Observed::Crashed {
        run_id,
        incident,
        run_dir,
        ..
    } = loki_heal::observe(&repo, &opts)?
    else {
        return Err(anyhow::anyhow!(
            "the bundled web page did not crash; this build of loki is broken"
        ));
    };
    anstream::print!("{}", paint(DIM, incident.stderr_tail.trim_end()));
    anstream::println!();
    anstream::println!("{}: crash recorded as {run_id}", paint(RED, "loki"));
    anstream::print!("{}", crash_lines(&incident, &repo, &run_dir));
    demo_heal(ctx, args, &repo, &run_id, &dir, loki_heal::demo::WEB_FILE)
}

/// Heals a demo's recorded crash: the configured model, else the built-in patch.
fn demo_heal(
    ctx: &Ctx,
    args: &FixArgs,
    repo: &Repo,
    run_id: &RunId,
    dir: &Path,
    file: &str,
) -> anyhow::Result<ExitCode> {
    let provider = match model(ctx, args.model.as_deref()) {
        Ok(p) => p,
        Err(e) if args.model.is_some() => return Err(e),
        Err(_) => None,
    };
    let result = match &provider {
        Some(p) => heal(
            ctx,
            repo,
            run_id,
            PatchSource::Model(p.as_ref()),
            true,
            false,
        ),
        None => {
            let bytes = std::fs::read(dir.join(file))?;
            let Some(fallback) = loki_heal::demo::fallback_for(file, &bytes) else {
                return Err(anyhow::anyhow!(
                    "the bundled example was changed; no built-in patch applies"
                ));
            };
            anstream::println!(
                "{}none configured: using the demo's built-in patch (only ever used for this example)",
                label("Model:")
            );
            heal(
                ctx,
                repo,
                run_id,
                PatchSource::Fallback(fallback),
                true,
                false,
            )
        }
    };
    anstream::println!(
        "{}",
        paint(DIM, &format!("demo files kept in {}", dir.display()))
    );
    result
}
