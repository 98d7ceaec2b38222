//! `loki workspace list|show|run|status`: one task across the repositories of a workspace
//! (`[workspaces.<name>]` in `loki.toml`, see `loki_core::config::workspaces`).
//!
//! # `run NAME TASK`
//! The task (text, or an issue reference fetched once) is checked like a single build's: every
//! repository must be a clean git checkout, and with `--pr` have a forge token, before anything
//! runs. Then, one repository after another: its `setup` command (in the repository, scrubbed
//! environment, [`SETUP_TIMEOUT`]), its own engine run, and with `--pr` its request published as
//! `loki pr <run>` would. Then the integration step: a scratch directory with a detached
//! worktree of every repository at its run's head (the base when the run left no commit), each
//! under its name; each repository's `after` command in its checkout, then `integration` in the
//! scratch directory ([`INTEGRATION_TIMEOUT`], the scrubbed environment plus `LOKI_WORKSPACE`).
//! The worktrees are removed afterwards. With `--pr`, every request gets a comment with the
//! integration status and every repository's head.
//!
//! # Exit code
//! 0 only when every run ended VERIFIED or ALREADY_SATISFIED and the integration step passed (or
//! there is none); 3 when the only failures are budget stops; else 1.
//!
//! # Record
//! `<first repository>/.loki/workspaces/<id>.json` (`loki.workspace-run/1`), written atomically
//! when the run ends; `status` reads the newest.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_core::config::workspaces::{self, Workspace};
use loki_core::layout::Repo;
use loki_core::outcome::ExitCode;
use loki_core::run::RunKind;
use loki_git::Git;
use loki_intake::{Endpoints, Hosts};
use loki_process::{Spec, run as run_process, scrubbed_env};
use serde::{Deserialize, Serialize};

use crate::cli::{GlobalArgs, WorkspaceCommand, WorkspaceRunArgs};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// How long a repository's `setup` or `after` command may take.
const SETUP_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// How long the integration command may take (an end-to-end suite over several services).
const INTEGRATION_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// How much of a failed command's output the record keeps.
const TAIL_CHARS: usize = 2000;
const SCHEMA: &str = "loki.workspace-run/1";

/// One repository's part of a workspace run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RepoRun {
    pub name: String,
    pub path: PathBuf,
    pub run_id: Option<String>,
    /// The run's outcome, or `ERROR` when there was no run (a failed setup, a refused run).
    pub outcome: String,
    pub exit_code: u8,
    /// The head the integration step checked out.
    pub head_sha: Option<String>,
    pub pr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The integration step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Integration {
    pub command: Option<String>,
    /// `passed`, `failed`, or `not run`.
    pub status: String,
    pub exit_code: Option<i32>,
    /// Why it failed or did not run, and the tail of its output.
    pub detail: String,
}

/// `loki.workspace-run/1`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkspaceRun {
    pub schema: String,
    pub id: String,
    pub workspace: String,
    pub task: String,
    pub started_at: String,
    pub ended_at: String,
    pub repos: Vec<RepoRun>,
    pub integration: Integration,
    pub exit_code: u8,
}

/// `loki workspace …`.
pub fn run(global: &GlobalArgs, c: &WorkspaceCommand) -> anyhow::Result<ExitCode> {
    match c {
        WorkspaceCommand::List => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            if global.json {
                anstream::println!(
                    "{}",
                    serde_json::to_string(&all.values().collect::<Vec<_>>())?
                );
            } else if all.is_empty() {
                anstream::println!(
                    "no workspace is declared: add [workspaces.<name>] with repos = [...] to loki.toml"
                );
            }
            if !global.json {
                for w in all.values() {
                    anstream::println!("{:<16}{} repositories", w.name, w.repos.len());
                }
            }
            Ok(ExitCode::Success)
        }
        WorkspaceCommand::Show { name } => {
            let (_, all) = declared(&Ctx::load(global)?)?;
            let w = named(&all, name)?;
            if global.json {
                anstream::println!("{}", serde_json::to_string(w)?);
                return Ok(ExitCode::Success);
            }
            anstream::println!("{}", w.name);
            for (i, r) in w.repos.iter().enumerate() {
                anstream::println!("  {}. {} ({})", i + 1, r.name, r.path.display());
                if let Some(s) = &r.setup {
                    anstream::println!("     setup: {s}");
                }
                if let Some(a) = &r.after {
                    anstream::println!("     after: {a}");
                }
            }
            anstream::println!(
                "  integration: {}",
                w.integration.as_deref().unwrap_or("none")
            );
            Ok(ExitCode::Success)
        }
        WorkspaceCommand::Status { name } => status(global, name.as_deref()),
        WorkspaceCommand::Run(args) => run_workspace(global, args),
    }
}

fn declared(ctx: &Ctx) -> anyhow::Result<(Repo, std::collections::BTreeMap<String, Workspace>)> {
    let repo = ctx.repo()?;
    let all = workspaces::load(&repo.root)?;
    Ok((repo, all))
}

fn named<'a>(
    all: &'a std::collections::BTreeMap<String, Workspace>,
    name: &str,
) -> anyhow::Result<&'a Workspace> {
    all.get(name).ok_or_else(|| {
        let known: Vec<&str> = all.keys().map(String::as_str).collect();
        UsageError(format!(
            "no workspace {name:?} in loki.toml (declared: {})",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        ))
        .into()
    })
}

/// Runs `command` with `sh -c` in `cwd`: `Ok(())` or the failure with its output's tail.
fn shell(
    command: &str,
    cwd: &Path,
    timeout: Duration,
    extra: &[(&str, &str)],
) -> Result<(), (Option<i32>, String)> {
    let mut spec = Spec::new("sh", cwd)
        .arg("-c")
        .arg(command)
        .envs(scrubbed_env())
        .timeout(timeout);
    for (k, v) in extra {
        spec = spec.env(*k, *v);
    }
    match run_process(&spec) {
        Ok(out) if out.success() => Ok(()),
        Ok(out) => Err((
            Some(out.exit_code()),
            format!(
                "`{command}` exited {}{}: {}",
                out.exit_code(),
                if out.timed_out { " (timed out)" } else { "" },
                out.output.tail_text(TAIL_CHARS)
            ),
        )),
        Err(e) => Err((None, format!("`{command}` could not run: {e}"))),
    }
}

fn run_workspace(global: &GlobalArgs, args: &WorkspaceRunArgs) -> anyhow::Result<ExitCode> {
    if args.flags.contract.is_some() {
        return Err(UsageError(
            "--contract is for one repository; a workspace's runs are judged by the task".into(),
        )
        .into());
    }
    let ctx = Ctx::load_with(global, &args.flags.config_flags())?;
    let (_, all) = declared(&ctx)?;
    let ws = named(&all, &args.name)?.clone();
    let hosts = Hosts::from_env();
    // Every repository is checked before anything runs.
    let mut repos = Vec::new();
    for r in &ws.repos {
        let repo = Repo::discover(&r.path).map_err(|e| {
            UsageError(format!(
                "workspace {}: {} ({}) is not a git repository: {e}",
                ws.name,
                r.name,
                r.path.display()
            ))
        })?;
        loki_engine::intake::preflight(&repo)?;
        repos.push(repo);
    }
    let reference = loki_intake::parse(&args.task, &hosts)?;
    if args.flags.pr {
        let canonical = reference.as_ref().map(loki_intake::IssueRef::canonical);
        for repo in &repos {
            crate::cmd::pr::preflight(repo, canonical.as_deref())?;
        }
    }
    let cap = ctx
        .config
        .uint("run.cap_s")
        .map_or(loki_engine::DEFAULT_CAP, Duration::from_secs);
    let (task, issue) = match &reference {
        Some(r) => {
            let issue = loki_intake::fetch(r, &Endpoints::from_env(), Instant::now() + cap)?;
            let json = serde_json::to_vec_pretty(&issue)?;
            (
                loki_engine::TaskInput {
                    text: issue.task_text(),
                    source: issue.source.clone(),
                },
                Some(loki_engine::IssueInput {
                    reference: issue.reference.clone(),
                    json,
                }),
            )
        }
        None => (
            loki_engine::TaskInput {
                text: args.task.clone(),
                source: "text".into(),
            },
            None,
        ),
    };
    let cancel = crate::interrupt::install_cancel(
        "the workspace run was stopped: each started run sealed its receipt",
    )?;
    let started_at = loki_core::time::now_rfc3339();
    let mut rows = Vec::new();
    for (r, repo) in ws.repos.iter().zip(&repos) {
        let mut row = RepoRun {
            name: r.name.clone(),
            path: repo.root.clone(),
            run_id: None,
            outcome: "ERROR".into(),
            exit_code: ExitCode::Failure.code(),
            head_sha: None,
            pr: None,
            error: None,
        };
        if cancel.is_cancelled() {
            row.error = Some("interrupted before this repository's run".into());
            rows.push(row);
            continue;
        }
        if let Some(setup) = &r.setup
            && let Err((_, why)) = shell(setup, &repo.root, SETUP_TIMEOUT, &[])
        {
            row.error = Some(format!("setup failed: {why}"));
            rows.push(row);
            continue;
        }
        let (mut opts, _, _) =
            crate::cmd::build::options(&ctx, task.clone(), RunKind::Build, args.flags.deep)?;
        opts.issue.clone_from(&issue);
        opts.keep = args.flags.keep;
        opts.commit = !args.flags.no_commit;
        opts.cancel = cancel.clone();
        match loki_engine::run_build(repo, &opts, &loki_engine::Silent) {
            Ok(report) => {
                row.run_id = Some(report.run_id.clone());
                row.outcome = report.outcome.as_str().to_string();
                row.exit_code = report.exit_code;
                row.head_sha = Some(if report.head_sha.is_empty() {
                    report.base_sha.clone()
                } else {
                    report.head_sha.clone()
                });
                if args.flags.pr && !report.interrupted {
                    match crate::cmd::pr::after_build(repo, &report) {
                        crate::cmd::pr::AfterBuild::Published(p) => row.pr = Some(p.result.url),
                        crate::cmd::pr::AfterBuild::Nothing => {}
                        crate::cmd::pr::AfterBuild::Failed(m) => row.error = Some(m),
                    }
                }
            }
            Err(e) => row.error = Some(e.to_string()),
        }
        if !global.quiet {
            anstream::eprintln!(
                "{}: {} {}",
                row.name,
                row.outcome,
                row.run_id.as_deref().unwrap_or("")
            );
        }
        rows.push(row);
    }
    let integration = if cancel.is_cancelled() {
        Integration {
            command: ws.integration.clone(),
            status: "not run".into(),
            exit_code: None,
            detail: "interrupted".into(),
        }
    } else {
        integrate(&ws, &repos, &rows)
    };
    let exit = exit_of(&rows, &integration);
    let mut record = WorkspaceRun {
        schema: SCHEMA.into(),
        id: record_id(),
        workspace: ws.name.clone(),
        task: args.task.clone(),
        started_at,
        ended_at: loki_core::time::now_rfc3339(),
        repos: rows,
        integration,
        exit_code: exit.code(),
    };
    if args.flags.pr {
        comment_all(&ws, &repos, &mut record, reference.as_ref());
    }
    let dir = records_dir(&repos[0]);
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", dir.display()))?;
    loki_core::fs::write_json_atomic(&dir.join(format!("{}.json", record.id)), &record)?;
    print_record(global, &record)?;
    Ok(exit)
}

/// `ws_<UTC time>_<random>`: sorts by time, like run ids.
fn record_id() -> String {
    let id = loki_core::RunId::new();
    format!("ws_{}", id.as_str().trim_start_matches("run_"))
}

fn records_dir(first: &Repo) -> PathBuf {
    first.loki_dir().join("workspaces")
}

/// See the module doc: 0 all good, 3 only budget stops, else 1.
fn exit_of(rows: &[RepoRun], integration: &Integration) -> ExitCode {
    let good = |r: &RepoRun| r.exit_code == 0 && r.error.is_none();
    let budget = ExitCode::BudgetStop.code();
    let integration_ok = integration.status != "failed";
    if rows.iter().all(good) && integration_ok {
        ExitCode::Success
    } else if integration_ok
        && rows
            .iter()
            .all(|r| good(r) || (r.exit_code == budget && r.error.is_none()))
    {
        ExitCode::BudgetStop
    } else {
        ExitCode::Failure
    }
}

/// The integration step (module doc).
fn integrate(ws: &Workspace, repos: &[Repo], rows: &[RepoRun]) -> Integration {
    let not_run = |detail: String| Integration {
        command: ws.integration.clone(),
        status: "not run".into(),
        exit_code: None,
        detail,
    };
    let Some(command) = ws.integration.clone() else {
        return not_run("the workspace has no integration command".into());
    };
    if let Some(r) = rows.iter().find(|r| r.head_sha.is_none()) {
        return not_run(format!("{} has no run to check out", r.name));
    }
    let scratch = match tempfile::Builder::new().prefix("loki-workspace-").tempdir() {
        Ok(d) => d,
        Err(e) => return not_run(format!("cannot create a scratch directory: {e}")),
    };
    let mut added: Vec<(Git, PathBuf)> = Vec::new();
    let mut failure = None;
    for ((spec, repo), row) in ws.repos.iter().zip(repos).zip(rows) {
        let at = scratch.path().join(&spec.name);
        let git = Git::new(&repo.root);
        let head = row.head_sha.clone().unwrap_or_default();
        if let Err(e) = git.worktree_add_detached(&at, &head) {
            failure = Some(not_run(format!(
                "cannot check out {} at {head}: {e}",
                spec.name
            )));
            break;
        }
        added.push((git, at.clone()));
        if let Some(after) = &spec.after
            && let Err((code, why)) = shell(after, &at, SETUP_TIMEOUT, &[])
        {
            failure = Some(Integration {
                command: Some(command.clone()),
                status: "failed".into(),
                exit_code: code,
                detail: format!("{}'s after command failed: {why}", spec.name),
            });
            break;
        }
    }
    let result = failure.unwrap_or_else(|| {
        match shell(
            &command,
            scratch.path(),
            INTEGRATION_TIMEOUT,
            &[(loki_core::env::WORKSPACE.name, &ws.name)],
        ) {
            Ok(()) => Integration {
                command: Some(command.clone()),
                status: "passed".into(),
                exit_code: Some(0),
                detail: String::new(),
            },
            Err((code, why)) => Integration {
                command: Some(command.clone()),
                status: "failed".into(),
                exit_code: code,
                detail: why,
            },
        }
    });
    // The checkouts are scratch: a failure to remove one leaves a prunable worktree, no harm.
    for (git, at) in added {
        let _ = git.worktree_remove(&at);
    }
    result
}

/// The integration status line of the summary and of the comments.
fn integration_line(i: &Integration) -> String {
    match (i.status.as_str(), i.exit_code) {
        ("failed", Some(c)) => format!("failed (exit {c})"),
        ("not run", _) => format!("not run ({})", i.detail),
        (s, _) => s.to_string(),
    }
}

/// The comment each request gets: the integration status and every repository's head.
fn comment_body(record: &WorkspaceRun) -> String {
    let mut s = format!(
        "## loki workspace `{}`: integration {}\n\n",
        record.workspace,
        integration_line(&record.integration)
    );
    if let Some(c) = &record.integration.command {
        s.push_str(&format!("Integration command: `{c}`\n\n"));
    }
    s.push_str("| repository | run | outcome | head |\n|---|---|---|---|\n");
    for r in &record.repos {
        s.push_str(&format!(
            "| {} | {} | {} | `{}` |\n",
            r.name,
            r.run_id.as_deref().unwrap_or("-"),
            r.outcome,
            r.head_sha.as_deref().unwrap_or("-")
        ));
    }
    s
}

/// Comments on every request the run opened; a comment that fails is noted on its row.
fn comment_all(
    ws: &Workspace,
    repos: &[Repo],
    record: &mut WorkspaceRun,
    reference: Option<&loki_intake::IssueRef>,
) {
    let body = comment_body(record);
    let canonical = reference.map(loki_intake::IssueRef::canonical);
    let (e, hosts) = (Endpoints::from_env(), Hosts::from_env());
    for ((row, repo), _) in record.repos.iter_mut().zip(repos).zip(&ws.repos) {
        let Some(run_id) = row.run_id.clone() else {
            continue;
        };
        if row.pr.is_none() {
            continue;
        }
        let number = std::fs::read(
            loki_core::run::RunStore::new(repo.clone())
                .dir(&match run_id.parse() {
                    Ok(id) => id,
                    Err(_) => continue,
                })
                .join("pr.json"),
        )
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["number"].as_u64());
        let forge = loki_intake::pr::forge_of_run(
            repo,
            crate::cmd::pr::DEFAULT_REMOTE,
            canonical.as_deref(),
            &hosts,
        );
        let result = match (forge, number) {
            (Some(f), Some(n)) => loki_intake::pr::comment(
                &f,
                n,
                &body,
                &e,
                Instant::now() + loki_engine::DEFAULT_CAP,
            )
            .map_err(|err| err.to_string()),
            _ => Err("its request cannot be found again (pr.json)".into()),
        };
        if let Err(why) = result {
            row.error = Some(format!("the integration comment failed: {why}"));
        }
    }
}

fn print_record(global: &GlobalArgs, record: &WorkspaceRun) -> anyhow::Result<()> {
    if global.json {
        anstream::println!("{}", serde_json::to_string(record)?);
        return Ok(());
    }
    anstream::println!("Workspace:  {} ({})", record.workspace, record.id);
    for r in &record.repos {
        anstream::println!(
            "  {:<16}{:<18}{:<26}{}",
            r.name,
            r.outcome,
            r.run_id.as_deref().unwrap_or("-"),
            r.pr.as_deref().unwrap_or("")
        );
        if let Some(e) = &r.error {
            anstream::println!("  {:<16}{e}", "");
        }
    }
    anstream::println!("Integration: {}", integration_line(&record.integration));
    if record.integration.status == "failed" {
        anstream::println!("  {}", record.integration.detail.trim());
    }
    Ok(())
}

/// `loki workspace status [NAME]`: the newest record (of that workspace).
fn status(global: &GlobalArgs, name: Option<&str>) -> anyhow::Result<ExitCode> {
    let (_, all) = declared(&Ctx::load(global)?)?;
    let candidates: Vec<&Workspace> = match name {
        Some(n) => vec![named(&all, n)?],
        None => all.values().collect(),
    };
    let mut newest: Option<WorkspaceRun> = None;
    for w in candidates {
        let Some(first) = w.repos.first() else {
            continue;
        };
        let Ok(repo) = Repo::discover(&first.path) else {
            continue;
        };
        let Ok(entries) = std::fs::read_dir(records_dir(&repo)) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(bytes) = std::fs::read(e.path()) else {
                continue;
            };
            let Ok(rec) = serde_json::from_slice::<WorkspaceRun>(&bytes) else {
                continue;
            };
            if rec.workspace == w.name && newest.as_ref().is_none_or(|n| rec.id > n.id) {
                newest = Some(rec);
            }
        }
    }
    match newest {
        Some(rec) => {
            print_record(global, &rec)?;
            Ok(ExitCode::Success)
        }
        None => Err(UsageError(format!(
            "no workspace run recorded{}; `loki workspace run NAME \"<task>\"` makes one",
            name.map(|n| format!(" for {n}")).unwrap_or_default()
        ))
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(exit_code: u8, error: Option<&str>) -> RepoRun {
        RepoRun {
            name: "r".into(),
            path: PathBuf::from("/r"),
            run_id: None,
            outcome: String::new(),
            exit_code,
            head_sha: None,
            pr: None,
            error: error.map(str::to_string),
        }
    }

    fn integration(status: &str) -> Integration {
        Integration {
            command: None,
            status: status.into(),
            exit_code: None,
            detail: String::new(),
        }
    }

    #[test]
    fn the_exit_code_is_0_only_when_all_succeed_and_3_for_budget_stops_only() {
        let (ok, budget, failed) = (row(0, None), row(3, None), row(1, None));
        let passed = integration("passed");
        let cases = [
            (vec![ok.clone(), ok.clone()], &passed, 0),
            (vec![ok.clone()], &integration("not run"), 0),
            (vec![ok.clone(), budget.clone()], &passed, 3),
            (vec![budget.clone(), budget.clone()], &passed, 3),
            (vec![budget.clone(), failed.clone()], &passed, 1),
            (vec![ok.clone(), ok.clone()], &integration("failed"), 1),
            (vec![budget.clone()], &integration("failed"), 1),
            (
                vec![ok.clone(), row(0, Some("the comment failed"))],
                &passed,
                1,
            ),
            (vec![row(4, None)], &passed, 1),
        ];
        for (rows, i, want) in cases {
            assert_eq!(exit_of(&rows, i).code(), want, "{rows:?} {i:?}");
        }
    }
}
