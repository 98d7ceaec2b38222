//! `loki demo`: the whole build engine on a bundled example, offline, with no API key. The
//! example, its run and the verification are [`loki_workspace::demo`]'s; this prints the summary
//! and the verification as `loki verify` does. The directory is removed afterwards unless
//! `--keep`.

use loki_protocol::outcome::{ExitCode, VerifyVerdict};
use loki_receipt::render_human;

use crate::cli::DemoArgs;
use crate::cmd::Exit;
use crate::context::Ctx;
use loki_term::{DIM, paint};

pub fn run(ctx: &Ctx, args: &DemoArgs) -> anyhow::Result<Exit> {
    let setup = ctx.setup();
    let demo = loki_workspace::demo::prepare(&setup)?;
    let dir = demo.dir.clone();
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
    let cancel = crate::interrupt::install_cancel(
        "the run was stopped before it sealed; `loki logs` shows what it recorded",
    )?;
    let (report, vr) = demo.run(&setup, cancel)?;
    crate::interrupt::left(format!(
        "the demo's run {} stopped at a safe point and sealed its receipt",
        report.run_id
    ));
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({"run_id": report.run_id, "summary": loki_engine::summary::to_json(&report), "verify": loki_term::verify::json(&vr), "repo": dir}),
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
        let kept = demo.keep();
        if !ctx.global.json && !ctx.global.quiet {
            anstream::println!("{}", paint(DIM, &format!("kept {}", kept.display())));
        }
    }
    if report.exit_code != 0 {
        return Ok(Exit::Run(ExitCode::from_code(report.exit_code)));
    }
    Ok(match vr.verdict {
        VerifyVerdict::Verified => Exit::Run(ExitCode::Success),
        other => Exit::Verify(other),
    })
}
