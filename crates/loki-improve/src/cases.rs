//! What a cycle learns from and what it must not break.
//!
//! # Training cases ([`failed_runs`], [`select_training`])
//! Build and quick runs that ended FAILED, PARTIAL or STALLED (not a budget stop, not BLOCKED,
//! not a failed model call: those say nothing about the instructions), stamped with the current
//! revision, whose receipt is on disk. Each is grouped by its failure [`signature`]: the *class*
//! of the failure (which kinds of check did not prove, which integrity rules fired, whether the
//! wall failed), not the test ids, so the same mistake made on different tasks recurs. With
//! `require_recurring` only groups seen twice or more are learnt from; one case per group (the
//! newest), largest groups first.
//!
//! # Protected cases ([`corpus`], `.loki/improve/corpus/<run>.json`)
//! Runs that passed and were admitted with `loki improve --protect RUN` after passing every one
//! of [`PROTECT_REPLAYS`] replays. They are the holdout: the editor never sees them; the canary
//! and the guard replay them, and one that regresses stops or undoes an edit.

use std::path::Path;

use loki_core::layout::Repo;
use loki_core::run::{ListedRun, RunKind, RunRecord, RunStatus, RunStore};
use loki_protocol::{Outcome, RunEnd};
use loki_receipt::schema::Receipt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ImproveError;
use crate::config::Paths;

/// Replays a run must pass, all of them, to become a protected case.
pub const PROTECT_REPLAYS: u32 = 6;
/// The most of a failed run's transcript the editor is shown (its end, where it went wrong).
pub const TRANSCRIPT_TAIL_BYTES: usize = 6_000;

/// A recorded run to replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    pub run: String,
    pub task: String,
    pub kind: RunKind,
    /// The commit the run started from; replays start there too.
    pub base: String,
    pub outcome: String,
    pub signature: String,
    pub started_at: String,
    /// The instructions' revision the run followed.
    pub revision: String,
    /// When it was admitted to the corpus (protected cases only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted_at: Option<String>,
}

/// The failure class of a run, from its receipt (see the module doc).
#[must_use]
pub fn signature(r: &Receipt) -> String {
    let mut parts = vec![format!("outcome {}", r.verdict.as_str())];
    for c in r.checks.iter().filter(|c| !c.proves()) {
        parts.push(format!("check {} {}", c.kind, c.result.describe()));
    }
    for f in &r.integrity {
        parts.push(format!("integrity {}", f.kind));
    }
    if !r.wall.files.is_empty() && !r.wall.passed {
        parts.push("wall failed".to_string());
    }
    if r.diff.files == 0 {
        parts.push("no change".to_string());
    }
    parts.sort();
    parts.dedup();
    let digest = Sha256::digest(parts.join("\n").as_bytes());
    hex::encode(&digest[..6])
}

fn read_receipt(dir: &Path) -> Option<Receipt> {
    let text = std::fs::read_to_string(dir.join(loki_receipt::builder::RECEIPT_FILE)).ok()?;
    serde_json::from_str(&text).ok()
}

fn case_of(store: &RunStore, rec: &RunRecord) -> Option<Case> {
    let dir = store.dir(&rec.id);
    let receipt = read_receipt(&dir)?;
    Some(Case {
        run: rec.id.to_string(),
        task: rec.task.clone()?,
        kind: rec.kind,
        base: receipt.repo.base_sha.clone(),
        outcome: rec
            .outcome
            .map(|o| o.as_str().to_owned())
            .unwrap_or_default(),
        signature: signature(&receipt),
        started_at: rec.started_at.clone(),
        revision: rec.agent_revision.clone().unwrap_or_default(),
        admitted_at: None,
    })
}

fn is_learnable_failure(rec: &RunRecord) -> bool {
    matches!(rec.kind, RunKind::Build | RunKind::Quick)
        && rec.status == RunStatus::Completed
        && matches!(
            rec.outcome.and_then(RunEnd::sealed),
            Some(Outcome::Failed | Outcome::Partial | Outcome::Stalled)
        )
        // Exit 2: the model call failed or the run was refused; not the instructions' doing.
        && rec.exit_code != Some(2)
}

/// The failed runs stamped with `revision`, started after `since` when given, newest first.
pub fn failed_runs(
    repo: &Repo,
    revision: &str,
    since: Option<&str>,
) -> Result<Vec<Case>, ImproveError> {
    let store = RunStore::new(repo.clone());
    let mut out = Vec::new();
    for listed in store.list()? {
        let ListedRun::Ok(rec) = listed else { continue };
        if rec.agent_revision.as_deref() != Some(revision) || !is_learnable_failure(&rec) {
            continue;
        }
        if since.is_some_and(|s| rec.started_at.as_str() <= s) {
            continue;
        }
        if let Some(case) = case_of(&store, &rec) {
            out.push(case);
        }
    }
    Ok(out)
}

/// One case per failure group (the newest), largest groups first, at most `max`; with
/// `recurring`, only groups of two or more.
#[must_use]
pub fn select_training(cases: &[Case], recurring: bool, max: usize) -> Vec<Case> {
    let mut groups: Vec<(String, Vec<&Case>)> = Vec::new();
    for c in cases {
        match groups.iter_mut().find(|(s, _)| *s == c.signature) {
            Some((_, g)) => g.push(c),
            None => groups.push((c.signature.clone(), vec![c])),
        }
    }
    groups.retain(|(_, g)| !recurring || g.len() >= 2);
    // Stable: equal sizes keep the order of their newest case.
    groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
    groups
        .into_iter()
        .take(max)
        .filter_map(|(_, g)| g.into_iter().max_by(|a, b| a.started_at.cmp(&b.started_at)))
        .cloned()
        .collect()
}

/// The protected corpus, in admission order.
pub fn corpus(paths: &Paths) -> Result<Vec<Case>, ImproveError> {
    let mut out: Vec<Case> = crate::config::read_json_dir(&paths.corpus(), "protected case")?;
    out.sort_by(|a, b| a.admitted_at.cmp(&b.admitted_at).then(a.run.cmp(&b.run)));
    Ok(out)
}

/// Adds `case` to the corpus.
pub fn save_protected(paths: &Paths, case: &Case) -> Result<(), ImproveError> {
    let dir = paths.corpus();
    std::fs::create_dir_all(&dir).map_err(|e| ImproveError::io("create", &dir, e))?;
    loki_core::fs::write_json_atomic(&dir.join(format!("{}.json", case.run)), case)?;
    Ok(())
}

/// The run `id` as a candidate protected case: a build or quick run that passed.
pub fn passing_run(repo: &Repo, id: &str) -> Result<Case, ImproveError> {
    let bad = |reason: String| ImproveError::BadProtect {
        id: id.to_string(),
        reason,
    };
    let run_id: loki_core::RunId = id.parse().map_err(|_| bad("not a run id".into()))?;
    let store = RunStore::new(repo.clone());
    let rec = store.load(&run_id)?;
    if !matches!(rec.kind, RunKind::Build | RunKind::Quick) {
        return Err(bad(format!(
            "it is a {} run, not a build",
            rec.kind.as_str()
        )));
    }
    if !rec
        .outcome
        .and_then(RunEnd::sealed)
        .is_some_and(Outcome::is_success)
    {
        return Err(bad(format!(
            "it ended {}, and only a run that passed can guard against regressions",
            rec.outcome.map_or("without an outcome", RunEnd::as_str)
        )));
    }
    case_of(&store, &rec).ok_or_else(|| bad("its receipt or task is missing".into()))
}

/// The end of a run's transcript (what the editor reads of a failed run).
#[must_use]
pub fn transcript_tail(repo: &Repo, run: &str) -> String {
    let Ok(id) = run.parse::<loki_core::RunId>() else {
        return String::new();
    };
    let path = repo
        .run_dir(&id)
        .join(loki_agent::transcript::TRANSCRIPT_FILE);
    let Ok(bytes) = std::fs::read(&path) else {
        return String::new();
    };
    let start = bytes.len().saturating_sub(TRANSCRIPT_TAIL_BYTES);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// A failed run's receipt, summarised for the editor: checks that did not prove and findings.
#[must_use]
pub fn failure_summary(repo: &Repo, run: &str) -> String {
    let Ok(id) = run.parse::<loki_core::RunId>() else {
        return String::new();
    };
    let Some(r) = read_receipt(&repo.run_dir(&id)) else {
        return String::new();
    };
    let mut s = String::new();
    for c in &r.checks {
        s.push_str(&format!(
            "- check {} ({}): {}, {} executed, {} failed\n",
            c.name,
            c.kind,
            c.result.describe(),
            c.executed,
            c.failed
        ));
    }
    for f in &r.integrity {
        s.push_str(&format!(
            "- integrity {}: {} ({})\n",
            f.kind, f.path, f.detail
        ));
    }
    for n in &r.not_proven {
        s.push_str(&format!("- not proven: {n}\n"));
    }
    s
}
