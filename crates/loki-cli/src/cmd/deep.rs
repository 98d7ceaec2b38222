//! `loki deep <run>`: the deep verify of a finished build run (`loki-deep`), and its detached
//! start after a `--deep` build. This module parses, starts and prints; the work is the crate's, the text
//! `loki_term::deep`'s.
//!
//! Exit: the outcome's (the deep receipt's verdict, the word the summary prints): 0 VERIFIED, 1
//! PARTIAL (something could not run or prove, e.g. a suite the machine kept from running) or
//! FAILED; 2 for bad input (an unknown run, a run without a change or without a receipt).

use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_protocol::outcome::ExitCode;

use crate::cli::RunArg;
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &RunArg) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let store = RunStore::new(repo.clone());
    let run = resolve_run(&store, &args.run)?;
    let req = ctx.setup().deep_request(repo, run)?;
    crate::interrupt::left(
        "the deep verify was stopped: the previous one stays in place, this one's receipt says INTERRUPTED",
    );
    let report = match loki_deep::run(&req) {
        Ok(r) => r,
        Err(e) if e.is_usage() => return Err(UsageError(e.to_string()).into()),
        Err(e) => return Err(e.into()),
    };
    let json = loki_term::deep::json(req.run.as_str(), &report);
    crate::output::print(ctx.global.json, json, loki_term::deep::render(&report));
    Ok(report.outcome().exit_code())
}

/// After a `--deep` build sealed: starts `loki deep <run>` detached ([`loki_deep::detached`])
/// and says where its log and receipt will be, or why it did not start.
pub fn start_detached(repo: &Repo, run_id: &str) {
    if let Some(started) = loki_deep::detached::start(repo, run_id, std::env::current_exe()) {
        anstream::eprintln!("{}", loki_term::deep::detached(&started));
    }
}
