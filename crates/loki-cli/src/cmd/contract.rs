//! `loki contract SPEC.md` and `loki answer <run>`: the delivery contract of later build runs,
//! and the follow-up of a BLOCKED one.
//!
//! `loki contract` writes the numbered criteria ([`loki_workspace::contract`], the spec) and
//! prints them. `loki answer` builds again with the task, the question and the answer
//! ([`loki_engine::ops::follow_up`], shared with MCP's `loki_answer`); a run that is not BLOCKED
//! is refused with exit 2.

use std::io::{IsTerminal as _, Read as _};

use loki_core::run::{RunKind, RunStore};
use loki_engine::TaskInput;
use loki_protocol::outcome::ExitCode;

use crate::cli::{AnswerArgs, ContractArgs, GlobalArgs};
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;

/// `loki contract SPEC.md`.
pub fn run(ctx: &Ctx, args: &ContractArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| UsageError(format!("cannot read the spec {}: {e}", args.file.display())))?;
    let source = args.file.display().to_string();
    let adopted = loki_workspace::contract::adopt(&repo, &source, &text)?;
    let (contract, dropped, path) = (adopted.contract, adopted.dropped, adopted.path);
    let text = loki_term::contract::adopted(&contract, dropped, &path, &source);
    crate::output::show(ctx.global.json, &contract, text)
}

/// `loki answer <run> [--text TEXT]`: the answer from `--text`, the control plane or stdin.
pub fn answer(global: &GlobalArgs, args: &AnswerArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load_with(global, args.flags.config_flags())?;
    let repo = ctx.repo()?;
    let id = resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let posted = match &args.text {
        Some(_) => None,
        None => loki_control::admin::take_answer(ctx.home.as_deref(), &repo.root, id.as_str()),
    };
    let text = match (&args.text, posted) {
        (Some(t), _) => t.clone(),
        (None, Some(t)) => {
            if !global.quiet && !global.json {
                anstream::eprintln!("using the answer posted to the control plane");
            }
            t
        }
        (None, None) => {
            if std::io::stdin().is_terminal() {
                anstream::eprintln!("Type the answer, then Ctrl-D:");
            }
            let mut t = String::new();
            std::io::stdin().read_to_string(&mut t)?;
            t
        }
    };
    if text.trim().is_empty() {
        return Err(
            UsageError("the answer is empty: give it with --text or on stdin".into()).into(),
        );
    }
    let f = loki_engine::ops::follow_up(&repo, &id, &text)?;
    if !global.quiet && !global.json {
        anstream::eprintln!("answering {} ({}); building again", f.answers, f.question);
    }
    let task = TaskInput {
        text: f.task,
        source: format!("answer:{}", f.answers),
    };
    // A quick run is followed up as a quick run; every other BLOCKED run is a build.
    let kind = if f.kind == RunKind::Quick {
        RunKind::Quick
    } else {
        RunKind::Build
    };
    crate::cmd::build::run_task_with(global, task, kind, &args.flags, f.contract, None)
}
