//! `loki deep <run>`: the deep verify of a finished build run (`loki-deep`), and its detached
//! start after a `--deep` build. This module parses, starts and prints; the work is the crate's.
//!
//! Exit: 0 when every item that ran passed, 1 when one failed (a suite, a boot, a secret found),
//! 2 for bad input (an unknown run, a run without a change or without a receipt).

use std::fmt::Write as _;
use std::time::Duration;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_deep::{BootStatus, DeepReport, DeepRequest, describe_boot};
use loki_process::{Spec, spawn_detached};
use loki_receipt::KeyEnv;

use crate::cli::RunArg;
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &RunArg) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let store = RunStore::new(repo.clone());
    let run = resolve_run(&store, &args.run)?;
    let req = DeepRequest {
        repo,
        run,
        home: ctx.home()?.clone(),
        key_env: KeyEnv::from_process(),
        boot_window: Duration::from_secs(
            ctx.config
                .uint("deep.boot_window_s")
                .unwrap_or(loki_deep::boot::DEFAULT_BOOT_WINDOW.as_secs()),
        ),
        check_timeout: ctx.config.uint("checks.timeout_s").map(Duration::from_secs),
        confine_exe: std::env::current_exe().ok(),
    };
    let report = match loki_deep::run(&req) {
        Ok(r) => r,
        Err(e) if e.is_usage() => return Err(UsageError(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    if ctx.global.json {
        anstream::println!(
            "{}",
            serde_json::json!({
                "run": req.run.as_str(),
                "failed": report.failed(),
                "verdict": report.receipt.verdict,
                "receipt_sha256": report.receipt.receipt_sha256,
                "main_receipt": report.receipt.main_receipt,
                "suite": report.suite,
                "boot": report.boots.iter().map(|b| serde_json::json!({
                    "command": b.command.command_line(),
                    "status": b.status,
                })).collect::<Vec<_>>(),
                "secrets": report.scan,
                "not_proven": report.receipt.not_proven,
                "dir": report.dir,
            })
        );
    } else {
        anstream::print!("{}", render(&report));
    }
    Ok(if report.failed() {
        ExitCode::Failure
    } else {
        ExitCode::Success
    })
}

/// The human summary (labels padded to 12 columns, like the run summary).
pub fn render(r: &DeepReport) -> String {
    let mut s = String::new();
    let mut line = |label: &str, text: &str| {
        let _ = writeln!(s, "{:<12}{text}", format!("{label}:"));
    };
    line("Deep", if r.failed() { "FAILED" } else { "PASSED" });
    line("Run", &r.receipt.run_id);
    if r.suite.is_empty() {
        line("Full suite", "no test suite detected");
    }
    for c in &r.suite {
        let mut t = format!(
            "{} {}: {} executed, {} passed, {} failed",
            c.name,
            c.result.as_str(),
            c.executed,
            c.passed,
            c.failed
        );
        if !c.failing_ids.is_empty() {
            let _ = write!(
                t,
                " ({})",
                c.failing_ids
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        line("Full suite", &t);
    }
    if r.boots.is_empty() {
        line("App boot", "no start command found");
    }
    for b in &r.boots {
        line(
            "App boot",
            &format!(
                "{} `{}`: {}",
                b.command.ecosystem,
                b.command.command_line(),
                describe_boot(&b.status)
            ),
        );
        if let BootStatus::Crashed { tail, .. } = &b.status
            && !tail.trim().is_empty()
        {
            for l in tail
                .trim_end()
                .lines()
                .rev()
                .take(10)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                line("", &format!("  | {l}"));
            }
        }
    }
    if r.scan.findings.is_empty() {
        line(
            "Secrets",
            &format!(
                "none in {} file(s), {} added line(s)",
                r.scan.files, r.scan.lines
            ),
        );
    }
    for f in &r.scan.findings {
        line(
            "Secrets",
            &format!("{}:{}: {} {}", f.path, f.line, f.rule, f.redacted),
        );
    }
    line("Receipt", &format!("sha256:{}", r.receipt.receipt_sha256));
    line("NOT PROVEN", &r.receipt.not_proven.join(", "));
    line(
        "Written",
        &r.dir
            .join(loki_receipt::builder::MARKDOWN_FILE)
            .display()
            .to_string(),
    );
    s
}

/// After a `--deep` build sealed: starts `loki deep <run>` detached and says where its log and
/// receipt will be. Never changes the build's exit code; a run it cannot deep-verify is named.
pub fn start_detached(repo: &Repo, run_id: &str) {
    let Ok(run) = run_id.parse::<RunId>() else {
        return;
    };
    if let Err(e) = loki_deep::main_receipt(repo, &run) {
        anstream::eprintln!("Deep:       not started: {e}");
        return;
    }
    let (log, receipt) = loki_deep::detached_paths(repo, &run);
    let started = std::env::current_exe()
        .map_err(|e| e.to_string())
        .and_then(|exe| {
            let spec = Spec::new(exe.as_os_str(), &repo.root)
                .args(["deep", run.as_str()])
                .envs(std::env::vars_os().collect());
            spawn_detached(&spec, &log).map_err(|e| e.to_string())
        });
    match started {
        Ok(child) => {
            anstream::eprintln!(
                "Deep:       started in the background (pid {}); log {}, receipt {}",
                child.pid,
                log.display(),
                receipt.display()
            );
        }
        Err(e) => anstream::eprintln!("Deep:       could not start `loki deep {run}`: {e}"),
    }
}
