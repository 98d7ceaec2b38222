//! `loki demo`: the whole build engine on a bundled example, offline, with no API key.
//!
//! It writes a small Rust crate with a real bug and failing tests into a temporary directory
//! (`git init` + commit), runs `loki "<task>"` on it with the bundled scripted sessions (one writes
//! the acceptance wall, one fixes the bug), prints the summary, then verifies the receipt as
//! `loki verify` does and prints that too. The receipt is signed with your key
//! (`$LOKI_HOME/keys`), as any run's would be. The directory is removed afterwards unless `--keep`.

use std::path::Path;
use std::time::Duration;

use loki_agent::Backend;
use loki_agent::scripted::Scripted;
use loki_core::layout::Repo;
use loki_core::outcome::{ExitCode, VerifyVerdict};
use loki_engine::{BuildOptions, TaskInput};
use loki_receipt::{KeyEnv, VerifyInput, VerifyOptions, render_human, verify};

use crate::cli::DemoArgs;
use crate::cmd::Exit;
use crate::context::Ctx;
use loki_term::{DIM, paint};

/// The demo's own cap: its tests build in seconds; a minute means something is wrong.
const DEMO_CAP: Duration = Duration::from_secs(300);

pub fn run(ctx: &Ctx, args: &DemoArgs) -> anyhow::Result<Exit> {
    let home = ctx.home()?.clone();
    let tmp = tempfile::Builder::new().prefix("loki-demo-").tempdir()?;
    let dir = tmp.path().join("calendar");
    loki_engine::demo::write_repo(&dir)?;
    if !ctx.global.json && !ctx.global.quiet {
        anstream::println!(
            "{}",
            paint(
                DIM,
                &format!(
                    "loki demo: a Rust crate with a leap-year bug in {}; scripted model, offline",
                    dir.display()
                )
            )
        );
        anstream::println!(
            "{}",
            paint(DIM, &format!("task: {}", loki_engine::demo::TASK))
        );
    }
    let provider = Scripted::parse(
        Path::new("<bundled demo script>"),
        loki_engine::demo::SCRIPT,
    )?;
    let mut opts = BuildOptions::new(
        TaskInput {
            text: loki_engine::demo::TASK.into(),
            source: "demo".into(),
        },
        Backend::Loop(Box::new(provider)),
        "scripted",
        home.clone(),
    );
    opts.cap = DEMO_CAP;
    opts.key_env = KeyEnv::from_process();
    opts.command = std::env::args().collect();
    // The agent's commands run confined through this binary's hidden `__confine` subcommand.
    opts.confine_exe = std::env::current_exe().ok();
    opts.cancel = crate::interrupt::install_cancel(
        "the run was stopped before it sealed; `loki logs` shows what it recorded",
    )?;
    let repo = Repo::discover(&dir)?;
    let report = loki_engine::run_build(&repo, &opts, &loki_engine::Silent)?;
    crate::interrupt::left(format!(
        "the demo's run {} stopped at a safe point and sealed its receipt",
        report.run_id
    ));
    let run_dir = repo.runs_dir().join(&report.run_id);
    let vr = verify(
        &VerifyInput::RunDir(run_dir),
        &VerifyOptions {
            home: Some(home),
            env: KeyEnv::from_process(),
            pubkey: None,
            allow_unsigned: false,
        },
    );
    if ctx.global.json {
        anstream::println!(
            "{}",
            serde_json::json!({"run": loki_engine::summary::to_json(&report), "verify": vr, "repo": dir})
        );
    } else if ctx.global.quiet {
        anstream::print!("{}", loki_engine::summary::outcome_line(&report));
    } else {
        let place = if args.keep {
            loki_engine::summary::Place::Kept
        } else {
            loki_engine::summary::Place::Removed
        };
        anstream::print!("{}", loki_engine::summary::render_for(&report, place));
        anstream::println!();
        anstream::println!(
            "{}",
            paint(DIM, &format!("$ loki verify {}", report.run_id))
        );
        anstream::print!("{}", render_human(&vr));
    }
    if args.keep {
        let kept = tmp.keep();
        if !ctx.global.json && !ctx.global.quiet {
            anstream::println!(
                "{}",
                paint(DIM, &format!("kept {}", kept.join("calendar").display()))
            );
        }
    }
    if report.exit_code != 0 {
        return Ok(Exit::Run(crate::cmd::build::exit_of(report.exit_code)));
    }
    Ok(match vr.verdict {
        VerifyVerdict::Verified => Exit::Run(ExitCode::Success),
        other => Exit::Verify(other),
    })
}
