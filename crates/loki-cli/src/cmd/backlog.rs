//! `loki backlog owner/repo (--label X | --issues 1,2,3 | --all) [--concurrency N] [--dry-run]
//! [--pr]`: one build run per open issue of a GitHub repository or GitLab project. The flow
//! (listing, preflights, the workers, running several runs in one repository) is
//! [`loki_workspace::backlog`]'s; this prints.
//!
//! # Output and exit code
//! `--dry-run` prints what would run and stops. Otherwise a line on stderr as each issue ends,
//! then a table on stdout (issue, title, verdict, run, pull request) or, with `--json`, one
//! object `{project, issues: [...], exit_code}`. The exit code is the worst of the runs' own
//! codes (the outcome ladder: a higher code is never better news); an issue that could not be
//! built counts with the code of its error.

use loki_protocol::outcome::ExitCode;
use loki_workspace::backlog::Backlog;

use crate::cli::{BacklogArgs, GlobalArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// `loki backlog`.
pub fn run(global: &GlobalArgs, args: &BacklogArgs) -> anyhow::Result<ExitCode> {
    if args.flags.contract.is_some() {
        return Err(UsageError(
            "--contract names one contract, and a backlog builds many issues: each is judged by its own criteria".into(),
        )
        .into());
    }
    let ctx = Ctx::load_with(global, args.flags.config_flags())?;
    let repo = ctx.repo()?;
    let setup = ctx.setup();
    let label = if args.all {
        None
    } else {
        args.label.as_deref()
    };
    let backlog = loki_workspace::backlog::plan(&setup, &args.project, &args.issues, label)?;
    if args.dry_run {
        return dry_run(global, &backlog, args.concurrency);
    }
    if backlog.items.is_empty() {
        anstream::eprintln!(
            "{}: no open issue matches; nothing to build",
            backlog.project.canonical()
        );
        return Ok(ExitCode::Success);
    }
    let flags = args.flags.run_flags();
    backlog.preflight(&setup, &repo, flags)?;
    let cancel = crate::interrupt::install_cancel(
        "the backlog was stopped: each started run sealed its receipt; `loki runs list` shows them",
    )?;
    let rows = backlog.run(
        &setup,
        &repo,
        flags,
        args.concurrency as usize,
        &cancel,
        |row| {
            if !global.quiet {
                anstream::eprintln!("{}", loki_term::backlog::row(row));
            }
        },
    );
    let worst = loki_intake::batch::worst(&rows);
    let json = serde_json::json!({"project": backlog.project.canonical(), "issues": rows,
        "exit_code": worst});
    crate::output::print(global.json, json, loki_intake::batch::table(&rows));
    if !global.json {
        anstream::eprint!("{}", loki_term::backlog::errors(&rows));
    }
    Ok(ExitCode::from_code(worst))
}

/// `--dry-run`: what would run, nothing run.
fn dry_run(global: &GlobalArgs, backlog: &Backlog, concurrency: u32) -> anyhow::Result<ExitCode> {
    let json = loki_term::backlog::dry_run_json(backlog, concurrency);
    let text = loki_term::backlog::dry_run(backlog, concurrency);
    crate::output::show(global.json, json, text)
}
