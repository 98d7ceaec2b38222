//! `loki improve`: one guarded cycle of `loki-improve`, and its subcommands (`status`,
//! `history`, `pending`, `approve`, `reject`, `rollback`, `audit`, `watch`); the text is
//! `loki_term::improve`'s.
//!
//! The editor and the replays' agent are the provider chosen as for a build (`--provider`,
//! `--script`, `--model`, or the configuration): [`loki_workspace::improve::cycle`].
//!
//! Exit codes of a cycle: 0 for applied, pending, keep-base, idle, no-failures, paused and
//! cooldown (nothing went wrong); 1 for rejected, canary-failed, rolled-back, stale and refused (a
//! cycle that tried and did not improve); 2 for busy and outage (the setup must change: another
//! cycle holds the lock, the model cannot be reached); 3 for budget-exceeded; 130 for interrupted.

use std::time::Duration;

use loki_improve::{CycleOptions, CycleRecord, Mode, Paths, Trigger};
use loki_protocol::outcome::ExitCode;

use crate::cli::{GlobalArgs, ImproveArgs, ImproveCommand, ImproveMode, ImproveTrigger};
use crate::context::Ctx;
use loki_term::{DIM, paint};

fn config_flags(args: &ImproveArgs) -> loki_workspace::flags::ConfigFlags {
    let m = &args.model;
    loki_workspace::flags::ConfigFlags {
        provider: m.provider.clone(),
        model: m.model.clone(),
        script: m.script.clone(),
        cap: m.cap,
        ..Default::default()
    }
}

pub fn run(global: &GlobalArgs, args: &ImproveArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load_with(global, config_flags(args))?;
    let repo = ctx.repo()?;
    let paths = Paths::new(&repo);
    match &args.command {
        None => {
            let cancel = crate::interrupt::install_cancel(
                "the cycle stopped between steps; `loki improve history` shows how far it got",
            )?;
            let opts = CycleOptions {
                trigger: trigger(args.trigger),
                mode: args.mode.map(mode),
                dry_run: args.dry_run,
                protect: args.protect.clone(),
                max_tokens: args.max_tokens,
            };
            let rec = loki_workspace::improve::cycle(&ctx.setup(), &repo, &opts, cancel)?;
            print_cycle(global, &rec);
            Ok(rec.outcome.exit_code())
        }
        Some(ImproveCommand::Status) => status(global, &paths),
        Some(ImproveCommand::History) => history(global, &paths),
        Some(ImproveCommand::Pending) => pending(global, &paths),
        Some(ImproveCommand::Approve { id }) => change(
            global,
            &loki_improve::ops::approve(&paths, id)?,
            &format!("approved {id}"),
        ),
        Some(ImproveCommand::Reject { id, reason }) => {
            loki_improve::ops::reject(&paths, id, reason.as_deref())?;
            let json = serde_json::json!({"rejected": id, "reason": reason});
            let text = format!("{}\n", loki_term::improve::rejected(id));
            crate::output::show(global.json, json, text)
        }
        Some(ImproveCommand::Rollback { to }) => change(
            global,
            &loki_improve::ops::rollback(&paths, to.as_deref())?,
            "rolled back",
        ),
        Some(ImproveCommand::Audit { verify }) => audit(global, &paths, *verify),
        Some(ImproveCommand::Watch { interval }) => watch(&ctx, &repo, global, *interval),
    }
}

fn trigger(t: ImproveTrigger) -> Trigger {
    match t {
        ImproveTrigger::Manual => Trigger::Manual,
        ImproveTrigger::Failures => Trigger::Failures,
        ImproveTrigger::Score => Trigger::Score,
    }
}

fn mode(m: ImproveMode) -> Mode {
    match m {
        ImproveMode::Auto => Mode::Auto,
        ImproveMode::Manual => Mode::Manual,
    }
}

fn print_cycle(global: &GlobalArgs, r: &CycleRecord) {
    let text = loki_term::improve::cycle(r, global.quiet);
    crate::output::print(global.json, r.summary_json(), text);
}

fn status(global: &GlobalArgs, paths: &Paths) -> anyhow::Result<ExitCode> {
    let s = loki_improve::ops::status(paths)?;
    crate::output::show(global.json, &s, loki_term::improve::status(&s))
}

fn history(global: &GlobalArgs, paths: &Paths) -> anyhow::Result<ExitCode> {
    let records = loki_improve::cycles::list(paths)?;
    let all: Vec<_> = records.iter().map(CycleRecord::summary_json).collect();
    let text = loki_term::improve::history(&records);
    crate::output::show(global.json, serde_json::json!({"cycles": all}), text)
}

fn pending(global: &GlobalArgs, paths: &Paths) -> anyhow::Result<ExitCode> {
    let list = loki_improve::proposal::list_pending(paths)?;
    let text = loki_term::improve::pending(&list);
    crate::output::show(global.json, serde_json::json!({"pending": list}), text)
}

/// An approval or a rollback: applied exits 0 (its line on stdout), stale or refused 1 (on
/// stderr).
fn change(
    global: &GlobalArgs,
    c: &loki_improve::ops::Change,
    done: &str,
) -> anyhow::Result<ExitCode> {
    let applied = matches!(c, loki_improve::ops::Change::Applied { .. });
    let text = loki_term::improve::change(c, done);
    if global.json {
        crate::output::json(c);
    } else if applied {
        anstream::println!("{text}");
    } else {
        anstream::eprintln!("{text}");
    }
    Ok(crate::output::pass_fail(applied))
}

fn audit(global: &GlobalArgs, paths: &Paths, verify: bool) -> anyhow::Result<ExitCode> {
    if verify {
        let v = loki_improve::audit::verify(&paths.audit())?;
        let text = format!("{}\n", loki_term::improve::audit_verdict(&v));
        crate::output::print(
            global.json,
            loki_term::improve::audit_verdict_json(&v),
            text,
        );
        let intact = matches!(v, loki_improve::audit::Verdict::Intact { .. });
        return Ok(crate::output::pass_fail(intact));
    }
    let lines = loki_improve::audit::read(paths)?;
    let text = loki_term::improve::audit(&lines);
    crate::output::show(global.json, serde_json::json!({"audit": lines}), text)
}

/// Runs a cycle when failed runs stopped arriving ([`loki_improve::watch`]); until Ctrl-C.
fn watch(
    ctx: &Ctx,
    repo: &loki_core::layout::Repo,
    global: &GlobalArgs,
    interval: u64,
) -> anyhow::Result<ExitCode> {
    let cancel = crate::interrupt::install_cancel("the watcher stopped between cycles")?;
    anstream::eprintln!("{}", paint(DIM, "watching for failed runs (Ctrl-C stops)"));
    // Under --json the cycles are one object, printed when the watcher stops.
    let mut cycles = Vec::new();
    loki_improve::watch::watch(repo, Duration::from_secs(interval), &cancel, |opts| {
        let rec = loki_workspace::improve::cycle(&ctx.setup(), repo, &opts, cancel.clone())?;
        if global.json {
            cycles.push(rec.summary_json());
        } else {
            print_cycle(global, &rec);
        }
        anyhow::Ok(())
    })?;
    if global.json {
        crate::output::json(serde_json::json!({"cycles": cycles}));
    }
    Ok(ExitCode::Success)
}
