//! `loki checks detect|run`: the repository's real test suites as evidence. The recorded run, its
//! verdict and exit code are [`loki_workspace::checks`]'s (its module doc is the spec); this
//! prints.

use std::fmt::Write as _;

use loki_checks::{CheckResult, detect, render_detect};
use loki_core::outcome::ExitCode;
use loki_protocol::CheckStatus;

use crate::cli::ChecksCommand;
use crate::context::Ctx;
use loki_term::{DIM, GREEN, RED, YELLOW, paint};

pub fn run(ctx: &Ctx, cmd: ChecksCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ChecksCommand::Detect => detect_cmd(ctx),
        ChecksCommand::Run { names, no_rerun } => run_cmd(ctx, &names, no_rerun),
    }
}

fn detect_cmd(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let checks = detect(&repo.root)?;
    if ctx.global.json {
        crate::output::json(serde_json::json!({ "checks": checks }));
    } else {
        anstream::print!("{}", render_detect(&checks));
    }
    Ok(ExitCode::Success)
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
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({ "run_id": run.run_id, "proven": run.proven, "checks": run.results }),
        );
    } else {
        anstream::print!("{}", render_results(&run.results));
        if run.results.is_empty() {
            anstream::println!(
                "no test suites found: nothing is proven (`loki checks detect` says what it looked for)"
            );
        }
        if !ctx.global.quiet {
            anstream::println!(
                "{}",
                paint(
                    DIM,
                    &format!("run {} · logs in {}", run.run_id, run.logs.display())
                )
            );
        }
    }
    Ok(run.exit)
}

/// One line per check, with the failing ids and the reason when it did not pass.
pub fn render_results(results: &[CheckResult]) -> String {
    let mut out = String::new();
    for r in results {
        let (tag, style) = match r.result {
            CheckStatus::Pass => ("PASS", GREEN),
            CheckStatus::Fail => ("FAIL", RED),
            CheckStatus::Flaky => ("FLAKY", YELLOW),
            CheckStatus::Timeout => ("TIMEOUT", RED),
            CheckStatus::NotRun => ("NOT RUN", YELLOW),
            CheckStatus::Unparseable => ("UNPARSEABLE", RED),
        };
        let _ = write!(
            out,
            "{} {}: {} executed, {} passed, {} failed, {} skipped ({})",
            paint(style, tag),
            r.name,
            r.executed,
            r.passed,
            r.failed,
            r.skipped,
            loki_core::time::human_duration(r.duration_s)
        );
        if let Some(reason) = &r.reason {
            let _ = write!(out, " — {reason}");
        }
        out.push('\n');
        for id in r.failing_ids.iter().take(20) {
            let _ = writeln!(out, "    failing: {id}");
        }
        if r.failing_ids.len() > 20 {
            let _ = writeln!(out, "    … and {} more", r.failing_ids.len() - 20);
        }
    }
    out
}
