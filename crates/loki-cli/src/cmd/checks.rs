//! `loki checks detect|run`: the repository's real test suites as evidence. The recorded run, its
//! verdict and exit code are [`loki_workspace::checks`]'s (its module doc is the spec); this
//! prints.

use loki_protocol::outcome::ExitCode;
use loki_runner::detect;

use crate::cli::ChecksCommand;
use crate::context::Ctx;
use loki_term::{DIM, paint};

pub fn run(ctx: &Ctx, cmd: ChecksCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ChecksCommand::Detect => detect_cmd(ctx),
        ChecksCommand::Run { names, no_rerun } => run_cmd(ctx, &names, no_rerun),
    }
}

fn detect_cmd(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let checks = detect(&repo.root)?;
    let text = loki_term::checks::detect(&checks);
    crate::output::show(
        ctx.global.json,
        serde_json::json!({ "checks": checks }),
        text,
    )
}

fn run_cmd(ctx: &Ctx, names: &[String], no_rerun: bool) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let argv = std::env::args().collect();
    let run = loki_workspace::checks::run(&repo, &ctx.config, names, no_rerun, argv, |check| {
        if ctx.global.verbose {
            anstream::eprintln!(
                "{}",
                paint(
                    DIM,
                    &format!("running {}: {}", check.name, check.command_line())
                )
            );
        }
    })?;
    let json =
        serde_json::json!({ "run_id": run.run_id, "proven": run.proven, "checks": run.results });
    let text = loki_term::checks::ran(&run, ctx.global.quiet);
    crate::output::print(ctx.global.json, json, text);
    Ok(run.exit)
}
