//! `loki "<task>"`, `loki run-task --file`, `loki quick`, and what follows a run: `loki status`,
//! `loki logs`, `loki apply`, `loki discard`. The engine (`loki-engine`) does the work; this
//! module turns flags and configuration into [`BuildOptions`] and prints.
//!
//! Output: quiet by default. While the run goes, [`loki_term::progress`] shows a live status line on a
//! terminal, or with `--verbose` one line per stage and a heartbeat. Then the summary of
//! DESIGN.md on stdout, or one JSON object with `--json`.

use std::io::IsTerminal;
use std::time::Duration;

use anyhow::Context as _;
use loki_core::run::{RunKind, RunStore};
use loki_engine::TaskInput;
use loki_protocol::outcome::ExitCode;
use loki_workspace::flags::ConfigFlags;
use loki_workspace::run::RunFlags;
use loki_workspace::single::ContractFrom;

use crate::cli::{BuildFlags, DiscardArgs, GlobalArgs, RunArg, RunTaskArgs, StatusArgs};
use crate::cmd::{UsageError, resolve_run};
use crate::context::Ctx;
use loki_term::progress::Printer;
use loki_term::{DIM, paint};

impl BuildFlags {
    /// What the libraries take of the flags besides configuration.
    pub fn run_flags(&self) -> RunFlags {
        RunFlags {
            deep: self.deep,
            keep: self.keep,
            commit: !self.no_commit,
            pr: self.pr,
        }
    }

    /// The flags that are configuration keys, as the top configuration layer.
    pub fn config_flags(&self) -> ConfigFlags {
        ConfigFlags {
            provider: self.provider.clone(),
            model: self.model.clone(),
            script: self.script.clone(),
            cap: self.cap,
            deep: self.deep,
            max_cost: self.max_cost,
            max_tokens: self.max_tokens,
            council: self.council,
            color: None,
        }
    }
}

/// The `loki "<task>"` entry point (also `run-task` and `quick`).
pub fn run_task(
    global: &GlobalArgs,
    task: TaskInput,
    kind: RunKind,
    flags: &BuildFlags,
) -> anyhow::Result<ExitCode> {
    run_task_with(global, task, kind, flags, None, None)
}

/// [`run_task`] judged against `contract` when given (a follow-up's resolved contract), else
/// `--contract FILE`, else the engine's own choice; `issue` is the issue the task came from.
pub fn run_task_with(
    global: &GlobalArgs,
    task: TaskInput,
    kind: RunKind,
    flags: &BuildFlags,
    contract: Option<loki_contract::Contract>,
    issue: Option<loki_engine::IssueInput>,
) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load_with(global, flags.config_flags())?;
    let repo = ctx.repo()?;
    let contract = match (contract, &flags.contract) {
        (Some(c), _) => ContractFrom::Given(c),
        (None, Some(path)) => ContractFrom::File(path.clone()),
        (None, None) => ContractFrom::Engine,
    };
    let request = loki_workspace::options::SingleBuild {
        task,
        kind,
        flags: flags.run_flags(),
        contract: None,
        issue,
    };
    let (mut opts, label, why) =
        loki_workspace::single::prepare(&ctx.setup(), &repo, contract, request)?;
    opts.on_command = crate::cmd::modelbox::echo_commands(global);
    crate::cmd::modelbox::announce(
        global,
        opts.network,
        matches!(opts.backend, loki_agent::Backend::Cli(_)),
    );
    opts.cancel = crate::interrupt::install_cancel(
        "the run was stopped before it sealed; `loki logs` shows what it recorded",
    )?;
    if global.verbose {
        anstream::eprintln!(
            "{}",
            paint(
                DIM,
                &format!("provider {label} ({why}); cap {}s", opts.cap.as_secs())
            )
        );
    }
    let heartbeat = ctx
        .config
        .uint("output.heartbeat_s")
        .map_or(loki_term::progress::DEFAULT_HEARTBEAT, Duration::from_secs);
    let printer = Printer::new(
        global.verbose,
        std::io::stderr().is_terminal() && !global.json && !global.quiet,
        anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never,
        heartbeat,
        Box::new(std::io::stderr()),
    );
    let report = printer.run_ticking(|| loki_engine::run_build(&repo, &opts, &printer))?;
    crate::interrupt::left(format!(
        "the run {} stopped at a safe point and sealed its receipt (summary above)",
        report.run_id
    ));
    let code = ExitCode::from_code(report.exit_code);
    // An interrupted run stops here: the user asked for nothing more.
    if report.interrupted {
        print_report(global, &report);
        return Ok(code);
    }
    let deep = || {
        if flags.deep && !report.run_id.is_empty() {
            crate::cmd::deep::start_detached(&repo, &report.run_id);
        }
    };
    if !flags.pr {
        print_report(global, &report);
        deep();
        return Ok(code);
    }
    let pr = loki_workspace::publish_after(&repo, &report);
    if global.json {
        let mut v = loki_engine::summary::to_json(&report);
        pr.add_to(&mut v);
        crate::output::json(v);
        // The words go to stderr too, as for any error under --json.
        if matches!(pr, loki_intake::after::AfterBuild::Failed(_)) {
            crate::cmd::pr::print(&pr);
        }
    } else {
        print_report(global, &report);
        crate::cmd::pr::print(&pr);
    }
    deep();
    Ok(pr.exit(code))
}

/// Prints the summary (or the JSON object).
pub fn print_report(global: &GlobalArgs, report: &loki_engine::BuildReport) {
    if global.json {
        crate::output::json(loki_engine::summary::to_json(report));
    } else if global.quiet {
        anstream::print!("{}", loki_engine::summary::outcome_line(report));
    } else {
        anstream::print!("{}", loki_engine::summary::render(report));
    }
}

/// `loki run-task --file task.md`.
pub fn run_file(global: &GlobalArgs, args: &RunTaskArgs) -> anyhow::Result<ExitCode> {
    let text = std::fs::read_to_string(&args.file).map_err(|e| {
        UsageError(format!(
            "cannot read the task file {}: {e}",
            args.file.display()
        ))
    })?;
    let task = TaskInput {
        text,
        source: args
            .source
            .clone()
            .unwrap_or_else(|| format!("file:{}", args.file.display())),
    };
    run_task(global, task, RunKind::Build, &args.flags)
}

/// `loki status [run]`.
pub fn status(ctx: &Ctx, args: &StatusArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let store = RunStore::new(repo.clone());
    let id = resolve_run(&store, args.run.as_deref().unwrap_or("latest"))?;
    let v = loki_engine::ops::status(&repo, &id)?;
    if ctx.global.json {
        crate::output::json(&v);
        return Ok(ExitCode::Success);
    }
    let question = (v.outcome.and_then(loki_protocol::RunEnd::sealed)
        == Some(loki_protocol::Outcome::Blocked))
    .then(|| loki_engine::ops::question(&store.dir(&id)))
    .flatten();
    anstream::print!("{}", loki_term::build::status(&v, question.as_deref()));
    Ok(ExitCode::Success)
}

/// `loki logs <run>`.
pub fn logs(ctx: &Ctx, args: &crate::cli::LogsArg) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let id = resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let lines = loki_engine::ops::logs(&repo, &id)?;
    if ctx.global.json {
        crate::output::json(serde_json::json!({"run_id": id, "lines": lines}));
        return Ok(ExitCode::Success);
    }
    for line in lines {
        anstream::println!("{line}");
    }
    Ok(ExitCode::Success)
}

/// `loki apply <run>`.
pub fn apply(ctx: &Ctx, args: &RunArg) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let id = resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let a = loki_engine::ops::apply(&repo, &id).with_context(|| format!("applying run {id}"))?;
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({"run_id": id, "branch": a.branch, "from": a.from,
            "to": a.to, "fast_forwarded": a.from != a.to}),
        );
    } else {
        anstream::println!("{}", loki_term::build::applied(&a));
    }
    Ok(ExitCode::Success)
}

/// `loki discard <run>` and `loki discard --failed`.
pub fn discard(ctx: &Ctx, args: &DiscardArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    if args.failed {
        let gone = loki_engine::ops::discard_failed(&repo)?;
        if ctx.global.json {
            crate::output::json(serde_json::json!({"discarded": gone}));
        } else {
            anstream::print!("{}", loki_term::build::discarded_failed(&gone));
        }
        return Ok(ExitCode::Success);
    }
    let Some(run) = args.run.as_deref() else {
        return Err(UsageError("name a run to discard, or pass --failed".into()).into());
    };
    let id = resolve_run(&RunStore::new(repo.clone()), run)?;
    let removed = loki_engine::ops::discard(&repo, &id)?;
    if ctx.global.json {
        crate::output::json(serde_json::json!({"run_id": id, "removed": removed}));
        return Ok(ExitCode::Success);
    }
    anstream::print!("{}", loki_term::build::discarded(id.as_str(), &removed));
    Ok(ExitCode::Success)
}
