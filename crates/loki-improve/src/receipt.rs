//! The signed receipt of a cycle that applied an edit (kind `improve`): its facts are the canary
//! and guard results, as checks, and the edit, as the diff of the instruction files.
//!
//! It is recorded like every run (`RunRecorder`: `run.json`, a hash-chained event log, the
//! receipt, its DSSE envelope and markdown), in `.loki/improve/runs/<run-id>/`, beside the rest of
//! the cycle's state, so that a cycle writes nothing outside `.loki/improve/` and the instruction
//! files. `loki verify <that dir>/receipt.json` checks it.
//!
//! Checks: `canary: failed runs` (the candidate's passes over its replays of the training cases;
//! it proves only if it beat the current files), `canary: protected` and `guard: protected` (every
//! replay of every protected case passed). With no protected case, the guard executed nothing and
//! proves nothing: the receipt is PARTIAL at best and says so in NOT PROVEN.

use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{RunCompleted, RunStarted};
use loki_instructions::AgentFile;
use loki_protocol::CheckStatus;
use loki_receipt::schema::{Check, Cost, DiffStats, RepoState, Task, Time};
use loki_receipt::{NotProven, ReceiptBuilder, ReceiptFacts, Signer};
use sha2::{Digest, Sha256};

use crate::ImproveError;
use crate::config::Paths;
use crate::cycles::{CycleRecord, Score};

fn check(name: &str, cmd: &str, scores: &[Score], proves: bool, seconds: f64) -> Check {
    let runs: u32 = scores.iter().map(|s| s.runs).sum();
    let passed: u32 = scores.iter().map(|s| s.passed).sum();
    let log = scores
        .iter()
        .map(|s| format!("{} {}/{} {}", s.run, s.passed, s.runs, s.outcomes.join(",")))
        .collect::<Vec<_>>()
        .join("\n");
    Check {
        name: name.to_string(),
        kind: loki_protocol::CheckRole::Replay,
        cmd: cmd.to_string(),
        result: if proves && runs > 0 {
            CheckStatus::Pass
        } else if runs == 0 {
            CheckStatus::NotRun
        } else {
            CheckStatus::Fail
        },
        executed: u64::from(runs),
        passed: u64::from(passed),
        failed: u64::from(runs - passed),
        skipped: 0,
        duration_s: seconds,
        log_sha256: hex::encode(Sha256::digest(log.as_bytes())),
    }
}

/// Seals the receipt of `rec` (which applied `from` → `to`); returns the receipt's path.
pub fn seal(
    paths: &Paths,
    rec: &CycleRecord,
    old: &[AgentFile],
    new: &[AgentFile],
    rt: &crate::Runtime<'_>,
    seconds: f64,
) -> Result<String, ImproveError> {
    let from = rec.base_revision.clone().unwrap_or_default();
    let to = rec.applied_revision.clone().unwrap_or_default();
    let store = RunStore::at(paths.repo.clone(), paths.runs());
    let mut log = RunRecorder::start(
        &store,
        rec.rationale.clone(),
        std::env::args().collect(),
        &RunStarted::Improve {
            cycle: rec.id.clone(),
            trigger: rec.trigger.as_str().to_string(),
            from_revision: from.clone(),
            to_revision: to.clone(),
        },
    )?;
    let mut facts = ReceiptFacts::new(log.id().to_string(), loki_core::run::RunKind::Improve);
    let rationale = rec.rationale.clone().unwrap_or_default();
    facts.task = Task {
        source: "improve".to_string(),
        sha256: hex::encode(Sha256::digest(rationale.as_bytes())),
        reference: Some(rec.id.clone()),
    };
    let head = loki_git::Git::new(&paths.repo.root)
        .rev_parse("HEAD")
        .unwrap_or_default();
    facts.repo = RepoState {
        origin: None,
        base_sha: head.clone(),
        head_sha: head,
        tree: to.clone(),
    };
    let (files, insertions, deletions) = crate::proposal::line_changes(old, new);
    let mut diff_text = format!("{from}\n{to}\n");
    for f in new {
        diff_text.push_str(&format!("{}\n{}\n", f.path, f.content.len()));
    }
    facts.diff = DiffStats {
        sha256: hex::encode(Sha256::digest(diff_text.as_bytes())),
        files,
        insertions,
        deletions,
    };
    facts.checks = replay_checks(rec, seconds);
    facts.extra_not_proven = unproven(rec, &from);
    facts.cost = Cost {
        usd: None,
        input_tokens: rec.tokens,
        ..Cost::default()
    };
    facts.time = Time {
        wall_s: seconds,
        stages: Vec::new(),
    };
    facts.provider.clone_from(&rt.provider);
    // Replays run whole builds; "full suite" is a build's gap, not this receipt's.
    facts.full_suite_ran = true;
    facts.agent_revision = Some(to.clone());
    let signer = Signer::load_or_create(&rt.home, &rt.key_env)?;
    let builder = ReceiptBuilder::new(facts);
    let dir = log.dir().to_path_buf();
    let sealed = log.seal(|events| builder.seal(&dir, events, &signer))?;
    log.finish(
        &RunCompleted::new(sealed.receipt.verdict).receipt(sealed.receipt.receipt_sha256.clone()),
    )?;
    Ok(sealed.receipt_path.display().to_string())
}

/// The receipt's checks: the canary's replays of the failed runs and of the protected cases,
/// and the guard's replays of the protected cases.
fn replay_checks(rec: &CycleRecord, seconds: f64) -> Vec<Check> {
    let mut checks = Vec::new();
    let cmd = format!("loki improve (cycle {})", rec.id);
    if let Some(c) = &rec.canary {
        checks.push(check(
            "canary: failed runs",
            &cmd,
            &c.candidate,
            c.accepted,
            seconds,
        ));
        let protected_ok = c
            .protected
            .iter()
            .all(|s| s.passed == s.runs && s.unjudged == 0);
        checks.push(check(
            "canary: protected",
            &cmd,
            &c.protected,
            protected_ok,
            0.0,
        ));
    }
    if let Some(g) = &rec.guard {
        checks.push(check("guard: protected", &cmd, &g.protected, g.passed, 0.0));
    }
    checks
}

/// What the receipt does not prove: other tasks (protected or not), and the edit itself when
/// it was rolled back to `from`.
fn unproven(rec: &CycleRecord, from: &str) -> Vec<NotProven> {
    let mut out = Vec::new();
    if rec.protected.is_empty() {
        out.push(NotProven::new(
            "regressions on tasks other than the failed runs",
            "no protected case was given, so no other task was replayed",
            "loki improve --protect RUN",
        ));
    }
    out.push(NotProven::new(
        "tasks other than the replayed runs",
        "the edit is proven only on the recorded tasks",
        "loki improve --protect RUN",
    ));
    if rec.outcome == crate::Outcome::RolledBack {
        out.push(NotProven::new(
            "the edit",
            format!("the guard found a regression and the edit was rolled back to {from}"),
            "loki improve",
        ));
    }
    out
}
