//! What a user does with a build run afterwards: `status`, `logs`, `apply`, `discard`.
//!
//! - [`apply`] fast-forwards the user's current branch to the run's branch, only when the run ended
//!   VERIFIED or ALREADY_SATISFIED, the checkout has no uncommitted tracked changes, and the branch
//!   is a fast-forward of the user's HEAD. Anything else is refused with the reason; nothing is
//!   merged, rebased or overwritten.
//! - [`discard`] removes the run's worktree and branch (never a running run's); [`discard_failed`]
//!   does it for every finished run that did not end VERIFIED or ALREADY_SATISFIED.
//! - [`status`] and [`logs`] read `run.json` and the event log; they never write.
//! - [`follow_up`] answers a BLOCKED run (`loki answer`, MCP's `loki_answer`): the follow-up
//!   build's task carries the original task, the question ([`question`]) and the answer. When the
//!   question was a contradiction in the contract, the answer must name exactly one of the two
//!   criteria: that one holds and the other is dropped from the follow-up's contract (which is
//!   otherwise the contract the BLOCKED run used, so both runs are judged alike).

use std::path::Path;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::{RunRecord, RunStatus, RunStore};
use loki_events::{Event, fold, read_events};
use loki_git::Git;
use loki_protocol::{Outcome, RunEnd, Stage};
use serde::Serialize;

use crate::EngineError;
use crate::intake::branch_of;

/// A run as `loki status` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusView {
    pub run_id: String,
    pub kind: String,
    pub status: String,
    /// The stage running now, or the last one that ran.
    pub stage: Option<Stage>,
    pub elapsed_s: f64,
    pub outcome: Option<RunEnd>,
    pub exit_code: Option<i32>,
    pub cost_usd: Option<f64>,
    pub cost_measured: bool,
    pub tokens: u64,
    pub task: Option<String>,
    pub branch: String,
}

fn seconds_between(a: &str, b: &str) -> Option<f64> {
    // RFC 3339 UTC with milliseconds, as loki writes them: compare via seconds of the day and date.
    let parse = |t: &str| -> Option<(i64, f64)> {
        let (date, time) = t.split_once('T')?;
        let days: i64 = date.replace('-', "").parse().ok()?;
        let time = time.trim_end_matches('Z');
        let mut parts = time.split(':');
        let h: f64 = parts.next()?.parse().ok()?;
        let m: f64 = parts.next()?.parse().ok()?;
        let s: f64 = parts.next()?.parse().ok()?;
        Some((days, h * 3600.0 + m * 60.0 + s))
    };
    let (da, sa) = parse(a)?;
    let (db, sb) = parse(b)?;
    // Runs spanning midnight: one day later adds a day (runs are capped far below a day).
    let day = if db > da { 86_400.0 } else { 0.0 };
    Some(sb + day - sa)
}

/// The status of one run.
pub fn status(repo: &Repo, run: &RunId) -> Result<StatusView, EngineError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(run)?;
    let events = events_of(&store, &rec)?;
    let f = fold(&events);
    let stage = f
        .stages
        .iter()
        .rev()
        .find(|s| s.state == loki_events::StageState::Started)
        .or_else(|| f.stages.last())
        .map(|s| s.name);
    let now = loki_core::time::now_rfc3339();
    let end = rec.ended_at.clone().unwrap_or(now);
    Ok(StatusView {
        run_id: rec.id.to_string(),
        kind: rec.kind.as_str().to_string(),
        status: rec.status.as_str().to_string(),
        stage,
        elapsed_s: seconds_between(&rec.started_at, &end)
            .unwrap_or(0.0)
            .max(0.0),
        outcome: rec.outcome,
        exit_code: rec.exit_code,
        cost_usd: f.cost_usd,
        cost_measured: f.cost_usd.is_some(),
        tokens: f.input_tokens + f.output_tokens,
        task: rec.task.clone(),
        branch: rec.branch(),
    })
}

fn events_of(store: &RunStore, rec: &RunRecord) -> Result<Vec<Event>, EngineError> {
    let path = store.dir(&rec.id).join("events.jsonl");
    if !path.exists() {
        return Ok(Vec::new());
    }
    Ok(read_events(&path, Some(rec.id.as_str()))?.0)
}

/// One line per event: `HH:MM:SS type [stage] detail`.
pub fn logs(repo: &Repo, run: &RunId) -> Result<Vec<String>, EngineError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(run)?;
    Ok(events_of(&store, &rec)?.iter().map(log_line).collect())
}

/// How one event reads in `loki logs` (pure).
#[must_use]
pub fn log_line(e: &Event) -> String {
    let time =
        e.ts.split_once('T')
            .map_or(e.ts.as_str(), |(_, t)| t.trim_end_matches('Z'));
    let time = time.split('.').next().unwrap_or(time);
    let mut s = format!("{time} {:<18}", e.kind);
    if let Some(stage) = &e.stage {
        s.push_str(&format!(" {stage:<10}"));
    }
    let detail = e
        .data
        .get("detail")
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_else(|| {
            let mut data = e.data.clone();
            data.remove("detail");
            if data.is_empty() {
                String::new()
            } else {
                serde_json::Value::Object(data).to_string()
            }
        });
    if !detail.is_empty() {
        s.push(' ');
        s.push_str(&detail);
    }
    s.trim_end().to_string()
}

/// How a BLOCKED run's receipt records its question: a NOT PROVEN entry starting with one of
/// these (the agent's `finish: spec_conflict`, or a contradiction in the contract).
pub const AGENT_CONFLICT: &str = "spec conflict reported by the agent: ";
pub const CONTRACT_CONFLICT: &str = "spec conflict in the contract: ";
/// The outcome of a run waiting for an answer, as `run.json` records it.
const BLOCKED: RunEnd = RunEnd::Sealed(Outcome::Blocked);

/// The question a BLOCKED run asked, from its receipt's NOT PROVEN list.
#[must_use]
pub fn question(run_dir: &Path) -> Option<String> {
    let bytes = std::fs::read(run_dir.join(loki_receipt::builder::RECEIPT_FILE)).ok()?;
    let receipt: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    receipt
        .get("not_proven")?
        .as_array()?
        .iter()
        // An entry is `{what, why, prove}`; a receipt sealed before that holds bare strings.
        .filter_map(|n| {
            n.as_str()
                .or_else(|| n.get("what").and_then(serde_json::Value::as_str))
        })
        .find_map(|n| {
            n.strip_prefix(AGENT_CONFLICT)
                .or_else(|| n.strip_prefix(CONTRACT_CONFLICT))
                .map(str::to_string)
        })
}

/// A follow-up build of a BLOCKED run: what [`follow_up`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowUp {
    /// The BLOCKED run answered.
    pub answers: RunId,
    pub question: String,
    /// The follow-up's task ([`follow_up_task`]).
    pub task: String,
    /// The contract to judge the follow-up against (`None`: the usual choice, [`crate::proof`]).
    pub contract: Option<loki_contract::Contract>,
    /// The BLOCKED run's kind: a quick run is followed up by a quick run.
    pub kind: loki_core::run::RunKind,
}

/// The follow-up of BLOCKED run `run` answered with `answer` (see the module doc). Refuses a run
/// that is not BLOCKED, and an answer to a contradiction that does not name exactly one of its
/// two criteria.
pub fn follow_up(repo: &Repo, run: &RunId, answer: &str) -> Result<FollowUp, EngineError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(run)?;
    if rec.outcome != Some(BLOCKED) {
        return Err(EngineError::NotBlocked {
            run: run.to_string(),
            state: rec.outcome.map_or_else(
                || rec.status.as_str().to_string(),
                |o| o.as_str().to_owned(),
            ),
        });
    }
    let dir = store.dir(run);
    let question = question(&dir).unwrap_or_else(|| "(the run recorded no question)".to_string());
    let mut contract = loki_contract::proof::load(&dir.join(loki_contract::CONTRACT_FILE))?;
    if let Some(c) = &mut contract
        && let Some((a, b)) = loki_contract::conflict(&c.criteria)
    {
        let named = loki_contract::proof::ids_in_text(answer);
        let (first, second) = (&c.criteria[a], &c.criteria[b]);
        let holds = |x: &loki_contract::Criterion| x.number().is_some_and(|n| named.contains(&n));
        let dropped = match (holds(first), holds(second)) {
            (true, false) => b,
            (false, true) => a,
            _ => {
                return Err(EngineError::UnclearAnswer {
                    run: run.to_string(),
                    first: first.id.clone(),
                    second: second.id.clone(),
                });
            }
        };
        c.criteria.remove(dropped);
    }
    let original = rec.task.clone().unwrap_or_default();
    Ok(FollowUp {
        answers: run.clone(),
        task: follow_up_task(&original, run.as_str(), &question, answer),
        question,
        contract,
        kind: rec.kind,
    })
}

/// The task of a follow-up build: the original task, then the question and the answer (pure).
#[must_use]
pub fn follow_up_task(original: &str, run: &str, question: &str, answer: &str) -> String {
    format!(
        "{}\n\nA previous attempt ({run}) stopped BLOCKED with this question:\n{}\n\nThe answer:\n{}\n",
        original.trim_end(),
        question.trim_end(),
        answer.trim_end()
    )
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Applied {
    pub branch: String,
    pub from: String,
    pub to: String,
}

/// Fast-forwards the user's current branch to the run's branch (see the module doc).
pub fn apply(repo: &Repo, run: &RunId) -> Result<Applied, EngineError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(run)?;
    let refuse = |detail: String| EngineError::Refused {
        action: "loki apply refused",
        detail,
    };
    if !rec
        .outcome
        .and_then(RunEnd::sealed)
        .is_some_and(Outcome::is_success)
    {
        return Err(refuse(format!(
            "run {run} ended {}; only a VERIFIED run is applied (its branch {} is there to inspect)",
            rec.outcome.map_or("without an outcome", RunEnd::as_str),
            rec.branch()
        )));
    }
    let g = Git::new(&repo.root);
    let branch = g
        .current_branch()?
        .ok_or_else(|| refuse("HEAD is detached; check out the branch to apply to".into()))?;
    let dirty = g.dirty_tracked()?;
    if !dirty.is_empty() {
        return Err(refuse(format!(
            "uncommitted changes to tracked files: {}",
            dirty.join(", ")
        )));
    }
    let from = g.head()?.ok_or(EngineError::NoCommits)?;
    // The receipt's head is what was verified: the branch tip, or for a --no-commit run a commit
    // on no branch.
    let to = match receipt_head(&store.dir(run)) {
        Some(head) => head,
        None => g.rev_parse(&rec.branch())?,
    };
    if from == to {
        return Ok(Applied { branch, from, to });
    }
    if !g.is_ancestor(&from, &to)? {
        return Err(refuse(format!(
            "{} is not a fast-forward of {branch} (it moved since the run started); rebase {} yourself or run the task again",
            rec.branch(),
            rec.branch()
        )));
    }
    g.fast_forward(&to)
        .map_err(|e| refuse(format!("git merge --ff-only failed: {e}")))?;
    Ok(Applied { branch, from, to })
}

/// `repo.head_sha` of the run's receipt, when it has a readable one.
fn receipt_head(run_dir: &Path) -> Option<String> {
    let bytes = std::fs::read(run_dir.join("receipt.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    v.pointer("/repo/head_sha")?.as_str().map(str::to_string)
}

/// Removes the run's worktree and branch.
pub fn discard(repo: &Repo, run: &RunId) -> Result<Vec<String>, EngineError> {
    let store = RunStore::new(repo.clone());
    let rec = store.load(run)?;
    if rec.status == RunStatus::Running {
        return Err(EngineError::Refused {
            action: "loki discard refused",
            detail: format!("run {run} is still running (pid {})", rec.pid),
        });
    }
    remove(repo, run)
}

/// What [`discard_failed`] removed of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Discarded {
    pub run_id: String,
    pub outcome: Option<RunEnd>,
    pub removed: Vec<String>,
}

/// Removes the worktree and branch of every run that is not running and did not end VERIFIED
/// or ALREADY_SATISFIED (a run with no outcome, interrupted or crashed, counts as failed).
/// Runs with nothing left to remove are not listed; a run that cannot be read is skipped.
pub fn discard_failed(repo: &Repo) -> Result<Vec<Discarded>, EngineError> {
    let store = RunStore::new(repo.clone());
    let mut out = Vec::new();
    for listed in store.list()? {
        let loki_core::run::ListedRun::Ok(rec) = listed else {
            continue;
        };
        let succeeded = rec
            .outcome
            .and_then(RunEnd::sealed)
            .is_some_and(Outcome::is_success);
        if rec.status == RunStatus::Running || succeeded {
            continue;
        }
        let removed = remove(repo, &rec.id)?;
        if !removed.is_empty() {
            out.push(Discarded {
                run_id: rec.id.to_string(),
                outcome: rec.outcome,
                removed,
            });
        }
    }
    Ok(out)
}

/// Removes a finished run's worktree and branch, ignoring failures (the engine's cleanup of a
/// run that made no change: a leftover is for `loki discard --failed`, not a failed run).
pub(crate) fn remove_checkout(repo: &Repo, run: &RunId) -> Vec<String> {
    remove(repo, run).unwrap_or_default()
}

fn remove(repo: &Repo, run: &RunId) -> Result<Vec<String>, EngineError> {
    let g = Git::new(&repo.root);
    let mut removed = Vec::new();
    let wt = repo.worktree_dir(run);
    if wt.exists() {
        g.worktree_remove(&wt)?;
        removed.push(format!("worktree {}", wt.display()));
    }
    // A run whose record cannot be read had the default branch (a recorded one is in run.json).
    let branch = RunStore::new(repo.clone())
        .load(run)
        .map_or_else(|_| branch_of(run), |rec| rec.branch());
    if g.rev_parse(&branch).is_ok() {
        g.delete_branch(&branch)?;
        removed.push(format!("branch {branch}"));
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follow_up_task_carries_the_task_the_question_and_the_answer() {
        let t = follow_up_task(
            "make add() sum\n",
            "run_20261203_075000_ab12",
            "integers or floats?",
            "integers",
        );
        assert_eq!(
            t,
            "make add() sum\n\nA previous attempt (run_20261203_075000_ab12) stopped BLOCKED with this question:\nintegers or floats?\n\nThe answer:\nintegers\n"
        );
    }

    #[test]
    fn elapsed_is_computed_from_rfc3339() {
        assert_eq!(
            seconds_between("2026-01-01T10:00:00.000Z", "2026-01-01T10:01:12.500Z"),
            Some(72.5)
        );
        assert_eq!(
            seconds_between("2026-01-01T23:59:59.000Z", "2026-01-02T00:00:01.000Z"),
            Some(2.0)
        );
    }
}
