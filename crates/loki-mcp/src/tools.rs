//! What each tool does, as plain blocking functions over validated input: the MCP plumbing is in
//! [`crate::server`]. Each calls the same library function the matching `loki` command calls and
//! answers with one JSON object (the tool's `structuredContent`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::config::{Config, Inputs};
use loki_core::layout::Repo;
use loki_core::run::{ListedRun, RunStore};
use loki_protocol::{Outcome, RunEnd};
use loki_receipt::{KeyEnv, VerifyInput, VerifyOptions, render_human, verify};
use serde_json::{Value, json};

use crate::args::{
    AnswerArgs, FixArgs, ReceiptArgs, RunArgs, RunsArgs, SealCheckArgs, StatusArgs, VerifyArgs,
};
use crate::background::{self, Started};
use crate::error::ToolError;
use crate::validate::{self, RunRef, Scope};

/// Runs listed when the client gives no `limit`: a screenful.
const DEFAULT_LIST: usize = 20;
/// The most runs one `loki_runs` answer holds, whatever the client asks.
const MAX_LIST: usize = 1000;
/// The outcome of a run that waits for an answer.
const BLOCKED: RunEnd = RunEnd::Sealed(Outcome::Blocked);

/// What every tool needs: the executable background runs start, the repositories served and
/// `$LOKI_HOME`.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub exe: PathBuf,
    pub scope: Scope,
    pub home: Option<PathBuf>,
}

/// `loki_run`: a build in the background.
pub fn run(ctx: &Ctx, a: &RunArgs) -> Result<Value, ToolError> {
    run_from(ctx, a, None)
}

/// [`run`] with the task's origin (`slack:<channel>/<thread>`) recorded as its `task.source`
/// instead of the task file's path; an issue reference keeps the issue as its source.
pub fn run_from(ctx: &Ctx, a: &RunArgs, source: Option<&str>) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    validate::text("task", &a.task)?;
    let flags = provider_flags(
        a.provider.as_deref(),
        a.model.as_deref(),
        a.script.as_deref(),
    )?;
    let started = build(ctx, &repo, &a.task, flags, source)?;
    Ok(started_json(&repo, &started))
}

/// `loki_status`: where a run is, its outcome and cost, and its question when BLOCKED.
pub fn status(ctx: &Ctx, a: &StatusArgs) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let id = resolve(&repo, "run", a.run.as_deref().unwrap_or(validate::LATEST))?;
    status_of(&repo, &id)
}

/// The status object of one run (also the `loki://runs/<id>` resource).
pub fn status_of(repo: &Repo, id: &RunId) -> Result<Value, ToolError> {
    let view = loki_engine::ops::status(repo, id)?;
    let dir = RunStore::new(repo.clone()).dir(id);
    let mut v = serde_json::to_value(&view)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("done".into(), (view.status != "running").into());
        let receipt = dir.join("receipt.json");
        if receipt.is_file() {
            o.insert("receipt".into(), receipt.display().to_string().into());
        }
        let log = background::log_of(repo, id.as_str());
        if log.is_file() {
            o.insert("log".into(), log.display().to_string().into());
        }
        if view.outcome == Some(BLOCKED) {
            let question = loki_engine::ops::question(&dir)
                .unwrap_or_else(|| "(the run recorded no question)".to_string());
            o.insert("question".into(), question.into());
        }
    }
    Ok(v)
}

/// `loki_verify`: the receipt's checks and the verdict, as `loki verify` computes them.
pub fn verify_target(ctx: &Ctx, a: &VerifyArgs) -> Result<Value, ToolError> {
    validate::reference("target", &a.target)?;
    let repo = a.repo.as_deref().map(|r| ctx.scope.repo(r)).transpose()?;
    let input = if a.target == validate::LATEST || a.target.parse::<RunId>().is_ok() {
        let Some(repo) = repo else {
            return Err(ToolError::bad(
                "repo",
                "is needed when `target` is a run id or `latest`",
            ));
        };
        let id = resolve(&repo, "target", &a.target)?;
        VerifyInput::RunDir(RunStore::new(repo).dir(&id))
    } else {
        let path = validate::file("target", &a.target)?;
        if !ctx.scope.allowed.is_empty() && !ctx.scope.allowed.iter().any(|r| path.starts_with(r)) {
            return Err(ToolError::bad(
                "target",
                format!(
                    "{} is outside the repositories this server serves",
                    path.display()
                ),
            ));
        }
        VerifyInput::File(path)
    };
    let opts = VerifyOptions {
        home: ctx.home.clone(),
        env: KeyEnv::from_process(),
        pubkey: None,
        allow_unsigned: false,
    };
    let report = verify(&input, &opts);
    let mut v = serde_json::to_value(&report)?;
    if let Some(o) = v.as_object_mut() {
        o.insert("text".into(), render_human(&report).into());
    }
    Ok(v)
}

/// `loki_seal_check`: the seal's judge on the working tree against a base.
pub fn seal_check(ctx: &Ctx, a: &SealCheckArgs) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let base = a.base.as_deref().unwrap_or("HEAD");
    validate::reference("base", base)?;
    let config = config_for(ctx, &repo)?;
    // The judge fences its runs from each other through loki's `__confine`.
    let opts = loki_seal::SealOptions::from_config(
        &config,
        home(ctx)?,
        repo.root.join(".loki"),
        Some(ctx.exe.clone()),
    );
    Ok(loki_seal::check(&repo.root, base, &[], &opts)?.to_json())
}

/// `loki_runs`: the runs of a repository, newest first.
pub fn runs(ctx: &Ctx, a: &RunsArgs) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let limit = a
        .limit
        .map_or(DEFAULT_LIST, |l| usize::try_from(l).unwrap_or(MAX_LIST))
        .min(MAX_LIST);
    let all = RunStore::new(repo).list()?;
    let total = all.len();
    let items: Vec<Value> = all
        .iter()
        .take(limit)
        .map(|r| match r {
            ListedRun::Ok(rec) => serde_json::to_value(rec).unwrap_or_default(),
            ListedRun::Corrupt { dir, reason } => {
                json!({"dir": dir.display().to_string(), "corrupt": reason})
            }
        })
        .collect();
    Ok(json!({"runs": items, "total": total}))
}

/// `loki_receipt`: a run's receipt (JSON) and its Markdown rendering.
pub fn receipt(ctx: &Ctx, a: &ReceiptArgs) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let id = resolve(&repo, "run", &a.run)?;
    receipt_of(&repo, &id)
}

/// The receipt object of one run (also the `loki://runs/<id>/receipt` resource).
pub fn receipt_of(repo: &Repo, id: &RunId) -> Result<Value, ToolError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(id)?;
    let dir = store.dir(id);
    let path = dir.join("receipt.json");
    let Ok(bytes) = std::fs::read(&path) else {
        return Err(ToolError::NoReceipt {
            run: id.to_string(),
            state: rec.status.as_str().to_string(),
        });
    };
    let receipt: Value = serde_json::from_slice(&bytes)?;
    let markdown = std::fs::read_to_string(dir.join("receipt.md")).ok();
    Ok(json!({
        "run_id": id.to_string(),
        "path": path.display().to_string(),
        "receipt": receipt,
        "markdown": markdown,
    }))
}

/// `loki_fix`: the diagnosis of an incident; with `apply: true`, `loki fix --apply --yes` in the
/// background (its heal run is followed with `loki_status`).
pub fn fix(ctx: &Ctx, a: &FixArgs) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let id = match a.run.as_deref() {
        None => loki_heal::latest_incident(&repo)?,
        Some(r) => match validate::run("run", r)? {
            RunRef::Latest => loki_heal::latest_incident(&repo)?,
            RunRef::Id(id) => id,
        },
    };
    let dir = loki_heal::fix::incident_dir(&repo, &id)?;
    if a.apply == Some(true) {
        let mut args: Vec<OsString> = vec![
            "fix".into(),
            id.as_str().into(),
            "--apply".into(),
            "--yes".into(),
        ];
        if let Some(m) = a.model.as_deref() {
            validate::reference("model", m)?;
            args.extend(["--model".into(), m.into()]);
        }
        let stem = background::files_for(&repo, "fix")?;
        let started = background::start(&repo, &ctx.exe, args, &stem)?;
        let mut v = started_json(&repo, &started);
        if let Some(o) = v.as_object_mut() {
            o.insert("incident".into(), id.to_string().into());
        }
        return Ok(v);
    }
    let (inc, _) = loki_heal::incident::load(&dir)?;
    let res = loki_heal::resolve(&repo.root, &inc);
    let sources: Vec<Value> = res
        .files
        .iter()
        .map(|f| json!({"file": f.rel, "line": f.line, "function": f.function, "library": f.library}))
        .collect();
    let refused: Vec<Value> = res
        .refused
        .iter()
        .map(|r| json!({"frame": r.printed, "reason": r.reason}))
        .collect();
    Ok(json!({
        "incident": id.to_string(),
        "command": inc.command,
        "crash": inc.crash,
        "signature": inc.signature,
        "repro": dir.join(&inc.repro).display().to_string(),
        "sources": sources,
        "refused": refused,
        "next": "call loki_fix with apply: true to synthesize, apply and verify a patch",
    }))
}

/// `loki_answer`: a follow-up build of a BLOCKED run, carrying its task, question and answer
/// (the same follow-up `loki answer` builds: [`loki_engine::ops::follow_up`]).
pub fn answer(ctx: &Ctx, a: &AnswerArgs) -> Result<Value, ToolError> {
    answer_from(ctx, a, None)
}

/// [`answer`] with the answer's origin (`slack:<channel>/<thread>`) recorded as the follow-up's
/// `task.source`; without one it is `answer:<run>`, as `loki answer` records.
pub fn answer_from(ctx: &Ctx, a: &AnswerArgs, source: Option<&str>) -> Result<Value, ToolError> {
    let repo = ctx.scope.repo(&a.repo)?;
    let id = resolve(&repo, "run", &a.run)?;
    validate::text("text", &a.text)?;
    let mut flags = provider_flags(
        a.provider.as_deref(),
        a.model.as_deref(),
        a.script.as_deref(),
    )?;
    let f = loki_engine::ops::follow_up(&repo, &id, &a.text)?;
    let stem = background::files_for(&repo, "build")?;
    if let Some(c) = &f.contract {
        // The follow-up is judged against the resolved contract, which the child reads from a
        // file beside its task.
        let path = stem.with_extension("contract.json");
        loki_core::fs::write_atomic(&path, &c.to_file_bytes()?)?;
        flags.extend(["--contract".into(), path.into_os_string()]);
    }
    let source = source.map_or_else(|| format!("answer:{id}"), str::to_string);
    let started = build_at(ctx, &repo, &stem, &f.task, flags, Some(&source))?;
    let mut v = started_json(&repo, &started);
    if let Some(o) = v.as_object_mut() {
        o.insert("answers".into(), id.to_string().into());
        o.insert("question".into(), f.question.into());
    }
    Ok(v)
}

/// A run named by the client, `latest` resolved.
fn resolve(repo: &Repo, field: &'static str, value: &str) -> Result<RunId, ToolError> {
    match validate::run(field, value)? {
        RunRef::Id(id) => Ok(id),
        RunRef::Latest => RunStore::new(repo.clone()).latest()?.ok_or_else(|| {
            ToolError::bad(
                field,
                format!("`latest`: no runs in {}", repo.runs_dir().display()),
            )
        }),
    }
}

/// `--provider`, `--model`, `--script` for a background build.
fn provider_flags(
    provider: Option<&str>,
    model: Option<&str>,
    script: Option<&str>,
) -> Result<Vec<OsString>, ToolError> {
    let mut flags: Vec<OsString> = Vec::new();
    if let Some(p) = provider {
        validate::reference("provider", p)?;
        flags.extend(["--provider".into(), p.into()]);
    }
    if let Some(m) = model {
        validate::reference("model", m)?;
        flags.extend(["--model".into(), m.into()]);
    }
    if let Some(s) = script {
        let path = validate::file("script", s)?;
        flags.extend(["--script".into(), path.into_os_string()]);
    }
    Ok(flags)
}

/// `loki run-task --file` in the background, the task in a file beside its log.
fn build(
    ctx: &Ctx,
    repo: &Repo,
    task: &str,
    flags: Vec<OsString>,
    source: Option<&str>,
) -> Result<Started, ToolError> {
    let stem = background::files_for(repo, "build")?;
    build_at(ctx, repo, &stem, task, flags, source)
}

/// [`build`] with its files at `stem`.
fn build_at(
    ctx: &Ctx,
    repo: &Repo,
    stem: &Path,
    task: &str,
    flags: Vec<OsString>,
    source: Option<&str>,
) -> Result<Started, ToolError> {
    // An issue reference (`owner/repo#N`, an issue URL, `jira:KEY-1`) is fetched by `loki issue`;
    // a malformed one is refused here rather than built as a task.
    let reference = loki_intake::parse(task, &loki_intake::Hosts::from_env())
        .map_err(|e| ToolError::bad("task", e.to_string()))?;
    let mut args: Vec<OsString> = match reference {
        Some(r) => vec!["issue".into(), r.canonical().into()],
        None => {
            let file = background::task_file(stem, task)?;
            let mut args = vec!["run-task".into(), "--file".into(), file.into_os_string()];
            if let Some(s) = source {
                args.extend(["--source".into(), s.into()]);
            }
            args
        }
    };
    args.extend(flags);
    background::start(repo, &ctx.exe, args, stem)
}

fn started_json(repo: &Repo, s: &Started) -> Value {
    json!({
        "repo": repo.root.display().to_string(),
        "run_id": s.run_id,
        "pid": s.pid,
        "log": s.log.display().to_string(),
        "status": s.status,
        "next": "follow it with loki_status {repo, run}",
    })
}

/// The configuration a command run in `repo` would see (user file, `loki.toml`, `LOKI_*`).
fn config_for(ctx: &Ctx, repo: &Repo) -> Result<Config, ToolError> {
    Ok(Config::load(&Inputs {
        home: ctx.home.clone(),
        repo_root: Some(repo.root.clone()),
        file: None,
        env: loki_core::env::process_vars(),
        flags: Vec::new(),
    })?)
}

fn home(ctx: &Ctx) -> Result<PathBuf, ToolError> {
    ctx.home.clone().ok_or_else(|| {
        ToolError::bad(
            "LOKI_HOME",
            "neither LOKI_HOME nor HOME is set in the server's environment",
        )
    })
}
