//! `loki checks detect|run`: the repository's real test suites as evidence.
//!
//! `run` records a run of kind `checks`: `run.started`, one `check.result` per suite (its counts,
//! failing ids and the sha256 of its log under `checks/<name>.log`), `run.completed`. Exit 0 only
//! when at least one suite ran and every one passed with executed > 0; anything else is 1, so a
//! repository with no tests, or a suite that did not run, is never reported as proven.

use std::fmt::Write as _;
use std::time::Duration;

use loki_checks::{CheckResult, CheckStatus, RunOptions, detect, render_detect, run_check};
use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{CheckResult as CheckEvent, RunCompleted, RunStarted};

use crate::cli::ChecksCommand;
use crate::cmd::UsageError;
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
        anstream::println!("{}", serde_json::json!({ "checks": checks }));
    } else {
        anstream::print!("{}", render_detect(&checks));
    }
    Ok(ExitCode::Success)
}

fn run_cmd(ctx: &Ctx, names: &[String], no_rerun: bool) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let mut checks = detect(&repo.root)?;
    if !names.is_empty() {
        if let Some(unknown) = names.iter().find(|n| !checks.iter().any(|c| &c.name == *n)) {
            let known: Vec<_> = checks.iter().map(|c| c.name.as_str()).collect();
            return Err(UsageError(format!(
                "no check named {unknown:?}; detected: {}",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
            .into());
        }
        checks.retain(|c| names.contains(&c.name));
    }
    let mut rec = RunRecorder::start(
        &RunStore::new(repo.clone()),
        None,
        std::env::args().collect(),
        &RunStarted::Checks {
            checks: checks.len(),
        },
    )?;
    let dir = rec.dir().to_path_buf();
    let mut opts = RunOptions::new(dir.join("checks"));
    if let Some(t) = ctx.config.uint("checks.timeout_s") {
        opts.timeout = Duration::from_secs(t);
    }
    if let Some(cap) = ctx.config.uint("checks.output_cap_bytes") {
        opts.output_cap = usize::try_from(cap).unwrap_or(usize::MAX);
    }
    opts.rerun_failed = !no_rerun;
    let mut results = Vec::new();
    for check in &checks {
        if ctx.global.verbose {
            anstream::eprintln!(
                "{}",
                paint(
                    DIM,
                    &format!("running {}: {}", check.name, check.command_line())
                )
            );
        }
        let r = run_check(check, &opts)?;
        rec.append(&CheckEvent::from(&r))?;
        results.push(r);
    }
    let proven = !results.is_empty() && results.iter().all(|r| r.result == CheckStatus::Pass);
    let outcome = if proven { "PASS" } else { "FAIL" };
    let code = if proven {
        ExitCode::Success
    } else {
        ExitCode::Failure
    };
    rec.finish(&RunCompleted::new(outcome).exit_code(i32::from(code.code())))?;
    if ctx.global.json {
        anstream::println!(
            "{}",
            serde_json::json!({ "run": rec.id(), "proven": proven, "checks": results })
        );
    } else {
        anstream::print!("{}", render_results(&results));
        if results.is_empty() {
            anstream::println!(
                "no test suites found: nothing is proven (`loki checks detect` says what it looked for)"
            );
        }
        if !ctx.global.quiet {
            anstream::println!(
                "{}",
                paint(
                    DIM,
                    &format!(
                        "run {} · logs in {}",
                        rec.id(),
                        dir.join("checks").display()
                    )
                )
            );
        }
    }
    Ok(code)
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
