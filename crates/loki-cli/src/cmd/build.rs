//! `loki "<task>"`, `loki run-task --file`, `loki quick`, and what follows a run: `loki status`,
//! `loki logs`, `loki apply`, `loki discard`. The engine (`loki-engine`) does the work; this
//! module turns flags and configuration into [`BuildOptions`] and prints.
//!
//! Output: quiet by default. While the run goes, [`loki_term::progress`] shows a live status line on a
//! terminal, or with `--verbose` one line per stage and a heartbeat. Then the summary of
//! DESIGN.md on stdout, or one JSON object with `--json`.

use anyhow::Context as _;
use loki_core::run::{RunKind, RunStore};
use loki_engine::TaskInput;
use loki_intake::after::AfterBuild;
use loki_protocol::outcome::ExitCode;
use loki_workspace::flags::ConfigFlags;
use loki_workspace::run::RunFlags;
use loki_workspace::single::ContractFrom;

use crate::cli::{BuildFlags, DiscardArgs, GlobalArgs, QuickArgs, RunArg, RunTaskArgs, StatusArgs};
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
    let cli_agent = matches!(opts.backend, loki_agent::Backend::Cli(_));
    crate::cmd::modelbox::announce(global, opts.network, cli_agent);
    opts.cancel = crate::interrupt::install_cancel(
        "the run was stopped before it sealed; `loki logs` shows what it recorded",
    )?;
    if global.verbose {
        let line = format!("provider {label} ({why}); cap {}s", opts.cap.as_secs());
        anstream::eprintln!("{}", paint(DIM, &line));
    }
    let heartbeat = ctx.config.uint("output.heartbeat_s");
    let printer = Printer::stderr(global.verbose, global.json || global.quiet, heartbeat);
    let report = printer.run_ticking(|| loki_engine::run_build(&repo, &opts, &printer))?;
    crate::interrupt::left(format!(
        "the run {} stopped at a safe point and sealed its receipt (summary above)",
        report.run_id
    ));
    let code = ExitCode::from_code(report.exit_code);
    // An interrupted run stops at its summary: the user asked for nothing more. A `--pr` run's
    // request is opened before the summary, which ends with its `PR:` line.
    let after = !report.interrupted;
    let pr = (flags.pr && after).then(|| loki_workspace::publish_after(&repo, &report));
    let mut json = loki_term::summary::to_json(&report);
    if let Some(pr) = &pr {
        pr.add_to(&mut json);
    }
    let text = loki_term::summary::text(&report, global.quiet);
    crate::output::print(global.json, json, text);
    // Under --json a failed request's words go to stderr too, as for any error.
    if let Some(pr) = &pr
        && (!global.json || matches!(pr, AfterBuild::Failed(_)))
    {
        crate::cmd::pr::print(pr);
    }
    if flags.deep && after && !report.run_id.is_empty() {
        crate::cmd::deep::start_detached(&repo, &report.run_id);
    }
    Ok(pr.map_or(code, |pr| pr.exit(code)))
}

/// `loki quick "<task>"`.
pub fn quick(global: &GlobalArgs, args: &QuickArgs) -> anyhow::Result<ExitCode> {
    let task = TaskInput {
        text: args.task.clone(),
        source: "text".into(),
    };
    run_task(global, task, RunKind::Quick, &args.flags)
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
        return crate::output::show(true, &v, "");
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
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    crate::output::show(
        ctx.global.json,
        serde_json::json!({"run_id": id, "lines": lines}),
        text,
    )
}

/// `loki apply <run>`.
pub fn apply(ctx: &Ctx, args: &RunArg) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let id = resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let a = loki_engine::ops::apply(&repo, &id).with_context(|| format!("applying run {id}"))?;
    let json = serde_json::json!({"run_id": id, "branch": a.branch, "from": a.from,
        "to": a.to, "fast_forwarded": a.from != a.to});
    let text = format!("{}\n", loki_term::build::applied(&a));
    crate::output::show(ctx.global.json, json, text)
}

/// `loki discard <run>` and `loki discard --failed`.
pub fn discard(ctx: &Ctx, args: &DiscardArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    if args.failed {
        let gone = loki_engine::ops::discard_failed(&repo)?;
        let text = loki_term::build::discarded_failed(&gone);
        return crate::output::show(
            ctx.global.json,
            serde_json::json!({"discarded": gone}),
            text,
        );
    }
    let Some(run) = args.run.as_deref() else {
        return Err(UsageError("name a run to discard, or pass --failed".into()).into());
    };
    let id = resolve_run(&RunStore::new(repo.clone()), run)?;
    let removed = loki_engine::ops::discard(&repo, &id)?;
    let text = loki_term::build::discarded(id.as_str(), &removed);
    let json = serde_json::json!({"run_id": id, "removed": removed});
    crate::output::show(ctx.global.json, json, text)
}
