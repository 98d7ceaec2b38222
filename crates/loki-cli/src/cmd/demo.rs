//! `loki demo`: the whole build engine on a bundled example, offline, with no API key. The
//! example, its run and the verification are [`loki_workspace::demo`]'s, the text
//! [`loki_term::demo`]'s: the summary and the verification as `loki verify` prints it. The
//! directory is removed afterwards unless `--keep`.

use loki_protocol::outcome::{ExitCode, VerifyVerdict};

use crate::cli::DemoArgs;
use crate::cmd::Exit;
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &DemoArgs) -> anyhow::Result<Exit> {
    let setup = ctx.setup();
    let demo = loki_workspace::demo::prepare(&setup)?;
    let dir = demo.dir.clone();
    let talk = !ctx.global.json && !ctx.global.quiet;
    if talk {
        anstream::print!("{}", loki_term::demo::intro(&dir));
    }
    let cancel = crate::interrupt::install_cancel(
        "the run was stopped before it sealed; `loki logs` shows what it recorded",
    )?;
    let (report, vr) = demo.run(&setup, cancel)?;
    crate::interrupt::left(format!(
        "the demo's run {} stopped at a safe point and sealed its receipt",
        report.run_id
    ));
    let json = serde_json::json!({"run_id": report.run_id,
        "summary": loki_term::summary::to_json(&report),
        "verify": loki_term::verify::json(&vr), "repo": dir});
    let text = if ctx.global.quiet {
        loki_term::summary::outcome_line(&report)
    } else {
        loki_term::demo::ended(&report, &vr, args.keep)
    };
    crate::output::print(ctx.global.json, json, text);
    if args.keep {
        let kept = demo.keep();
        if talk {
            anstream::print!("{}", loki_term::demo::kept(&kept));
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
