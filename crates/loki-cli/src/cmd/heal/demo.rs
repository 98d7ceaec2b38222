//! `loki fix --demo [--browser]`: the bundled example (a script, or a web page in headless
//! Chromium), crashed, recorded and healed end to end in a directory of its own.

use std::path::Path;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_heal::web::PageSpec;
use loki_heal::{ObserveOptions, Observed, PatchSource};
use loki_protocol::outcome::ExitCode;

use super::{DEFAULT_RUN_TIMEOUT, heal, model, page_options};
use crate::cli::FixArgs;
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::interrupt;

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
    let intro = loki_term::heal::demo_script(demo.file, &demo.dir, &demo.command);
    anstream::print!("{intro}");
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
    let crashed = loki_term::heal::demo_crashed(&run_id, &incident, &repo.root, &run_dir);
    anstream::print!("{crashed}");
    demo_heal(ctx, args, &repo, &run_id, &demo.dir, demo.file)
}

/// `loki fix --demo --browser`: the bundled web page, served by loki, checked in headless
/// Chromium, healed and verified by replaying the page check.
fn demo_browser(ctx: &Ctx, args: &FixArgs) -> anyhow::Result<ExitCode> {
    let dir = std::env::temp_dir().join(format!("loki-demo-web-{}", RunId::new()));
    let site = loki_heal::demo::write_web(&dir)?;
    let repo = Repo::discover(&dir)?;
    let intro = loki_term::heal::demo_page(loki_heal::demo::WEB_PAGE, &dir);
    anstream::println!("{intro}");
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
    let browser = opts.browser.as_ref().map_or("", |b| b.version.as_str());
    anstream::println!("{}", loki_term::heal::checking("/index.html", browser));
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
    let crashed = loki_term::heal::demo_crashed(&run_id, &incident, &repo.root, &run_dir);
    anstream::print!("{crashed}");
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
    if ctx.global.json {
        crate::output::defer("demo_dir", dir);
    }
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
            anstream::println!("{}", loki_term::heal::demo_fallback());
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
    anstream::println!("{}", loki_term::heal::demo_kept(dir));
    result
}
