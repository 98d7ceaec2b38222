//! Cycle records: `.loki/improve/cycles/<id>.json`, one per cycle, the only writer of that
//! directory.
//!
//! # Crash safety
//! A record is written with outcome `interrupted` before the cycle does any work, checkpointed
//! (atomically) after each step with the tokens spent so far, written again right after an apply
//! (`applied_revision`, `guarded: false`), and replaced at the end. So a cycle killed at any point
//! leaves a record that says `interrupted` and how far it got; one killed after its apply but
//! before its guard is found by the next cycle ([`unguarded`]), which guards it first.
//!
//! # Budgets
//! [`usage_today`] counts, over today's records (UTC): the cycles that reached the editor and
//! every token spent. Records are the source, so the caps hold across processes.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::ImproveError;
use crate::config::{Mode, Paths, Trigger};

/// Schema tag of a cycle record.
pub const CYCLE_SCHEMA: &str = "loki.improve.cycle/1";

/// How a cycle ended. Every one is reachable (see the crate doc for when).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Applied,
    Pending,
    Rejected,
    CanaryFailed,
    RolledBack,
    Stale,
    Refused,
    BudgetExceeded,
    Cooldown,
    Busy,
    Paused,
    Idle,
    NoFailures,
    Outage,
    Interrupted,
    KeepBase,
}

impl Outcome {
    /// The exit code of a cycle that ended so: 0 when nothing went wrong (applied, pending,
    /// keep-base, idle, no-failures, paused, cooldown); 1 for a cycle that tried and did not
    /// improve (rejected, canary-failed, rolled-back, stale, refused); 2 when the setup must
    /// change (busy: another cycle holds the lock; outage: the model cannot be reached); 3 for
    /// budget-exceeded; 130 for interrupted.
    #[must_use]
    pub fn exit_code(self) -> loki_protocol::outcome::ExitCode {
        use loki_protocol::outcome::ExitCode;
        match self {
            Outcome::Applied
            | Outcome::Pending
            | Outcome::KeepBase
            | Outcome::Idle
            | Outcome::NoFailures
            | Outcome::Paused
            | Outcome::Cooldown => ExitCode::Success,
            Outcome::Rejected
            | Outcome::CanaryFailed
            | Outcome::RolledBack
            | Outcome::Stale
            | Outcome::Refused => ExitCode::Failure,
            Outcome::Busy | Outcome::Outage => ExitCode::Usage,
            Outcome::BudgetExceeded => ExitCode::BudgetStop,
            Outcome::Interrupted => ExitCode::Interrupted,
        }
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Applied => "applied",
            Outcome::Pending => "pending",
            Outcome::Rejected => "rejected",
            Outcome::CanaryFailed => "canary-failed",
            Outcome::RolledBack => "rolled-back",
            Outcome::Stale => "stale",
            Outcome::Refused => "refused",
            Outcome::BudgetExceeded => "budget-exceeded",
            Outcome::Cooldown => "cooldown",
            Outcome::Busy => "busy",
            Outcome::Paused => "paused",
            Outcome::Idle => "idle",
            Outcome::NoFailures => "no-failures",
            Outcome::Outage => "outage",
            Outcome::Interrupted => "interrupted",
            Outcome::KeepBase => "keep-base",
        }
    }

    /// Every outcome, for docs and tests.
    pub const ALL: [Outcome; 16] = [
        Outcome::Applied,
        Outcome::Pending,
        Outcome::Rejected,
        Outcome::CanaryFailed,
        Outcome::RolledBack,
        Outcome::Stale,
        Outcome::Refused,
        Outcome::BudgetExceeded,
        Outcome::Cooldown,
        Outcome::Busy,
        Outcome::Paused,
        Outcome::Idle,
        Outcome::NoFailures,
        Outcome::Outage,
        Outcome::Interrupted,
        Outcome::KeepBase,
    ];
}

/// Replays of one case: how many passed of how many, and those that could not be judged.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub run: String,
    pub passed: u32,
    pub runs: u32,
    /// Replays that ended without a verdict (a model call failed, the run could not start).
    #[serde(default)]
    pub unjudged: u32,
    /// Each replay's outcome (`VERIFIED`, `FAILED`, `error: …`).
    #[serde(default)]
    pub outcomes: Vec<String>,
}

/// The canary: the training cases with the current and the candidate files, the protected
/// cases with the candidate.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanaryResult {
    pub baseline: Vec<Score>,
    pub candidate: Vec<Score>,
    pub protected: Vec<Score>,
    pub accepted: bool,
    pub reason: String,
    pub tokens: u64,
    /// Replays run (for the guard's cost estimate).
    pub replays: u32,
}

/// The guard: the protected cases with the applied files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GuardResult {
    pub protected: Vec<Score>,
    pub passed: bool,
    pub reason: String,
    pub tokens: u64,
}

/// `.loki/improve/cycles/<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CycleRecord {
    pub schema: String,
    pub id: String,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    pub pid: u32,
    pub trigger: Trigger,
    pub mode: Mode,
    pub dry_run: bool,
    pub outcome: Outcome,
    /// One line: why the cycle ended as it did.
    pub reason: String,
    /// The last step the cycle finished (`start`, `locked`, `capture`, `editor`, `gate`,
    /// `canary`, `apply`, `guard`, `end`).
    pub step: String,
    /// The cycle captured failures (so it counts as "the last cycle" for new failures).
    #[serde(default)]
    pub captured: bool,
    /// The cycle reached the editor (so it counts against the cycles per day).
    #[serde(default)]
    pub editor_started: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_revision: Option<String>,
    /// Written right after the apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_revision: Option<String>,
    /// After an apply: whether the guard has judged it. `false` after a crash between the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarded: Option<bool>,
    #[serde(default)]
    pub training: Vec<String>,
    #[serde(default)]
    pub protected: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<CanaryResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<GuardResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reflection: Option<String>,
    pub tokens: u64,
    #[serde(default)]
    pub notes: Vec<String>,
}

impl CycleRecord {
    /// The record as `loki improve --json` and `loki improve history --json` show it: the
    /// outcome, its reason and revisions, without the bookkeeping fields (`step`, `pid`, …).
    #[must_use]
    pub fn summary_json(&self) -> serde_json::Value {
        serde_json::json!({
            "cycle": self.id,
            "outcome": self.outcome.as_str(),
            "reason": self.reason,
            "trigger": self.trigger.as_str(),
            "mode": self.mode.as_str(),
            "dry_run": self.dry_run,
            "base_revision": self.base_revision,
            "candidate_revision": self.candidate_revision,
            "applied_revision": self.applied_revision,
            "training": self.training,
            "protected": self.protected,
            "canary": self.canary,
            "guard": self.guard,
            "pending": self.pending,
            "receipt": self.receipt,
            "tokens": self.tokens,
            "notes": self.notes,
        })
    }

    /// A new record (not yet written): outcome `interrupted` until the cycle says otherwise.
    #[must_use]
    pub fn new(paths: &Paths, trigger: Trigger, mode: Mode, dry_run: bool) -> CycleRecord {
        let mut id = new_id();
        while paths.cycles().join(format!("{id}.json")).exists() {
            id = new_id();
        }
        CycleRecord {
            schema: CYCLE_SCHEMA.to_string(),
            id,
            started_at: loki_core::time::now_rfc3339(),
            ended_at: None,
            pid: std::process::id(),
            trigger,
            mode,
            dry_run,
            outcome: Outcome::Interrupted,
            reason: "the cycle stopped before it ended (killed, or a crash)".to_string(),
            step: "start".to_string(),
            captured: false,
            editor_started: false,
            base_revision: None,
            candidate_revision: None,
            applied_revision: None,
            guarded: None,
            training: Vec::new(),
            protected: Vec::new(),
            rationale: None,
            canary: None,
            guard: None,
            pending: None,
            receipt: None,
            reflection: None,
            tokens: 0,
            notes: Vec::new(),
        }
    }

    /// Where this record lives.
    #[must_use]
    pub fn path(&self, paths: &Paths) -> PathBuf {
        paths.cycles().join(format!("{}.json", self.id))
    }

    /// Writes the record atomically (a checkpoint, or the end). A dry run writes nothing.
    pub fn save(&self, paths: &Paths) -> Result<(), ImproveError> {
        if self.dry_run {
            return Ok(());
        }
        let dir = paths.cycles();
        std::fs::create_dir_all(&dir).map_err(|e| ImproveError::io("create", &dir, e))?;
        loki_core::fs::write_json_atomic(&self.path(paths), self)?;
        Ok(())
    }

    /// A checkpoint after `step`.
    pub fn checkpoint(&mut self, paths: &Paths, step: &str) -> Result<(), ImproveError> {
        step.clone_into(&mut self.step);
        self.save(paths)
    }

    /// The end: the outcome and why, written over the checkpoint.
    pub fn end(
        &mut self,
        paths: &Paths,
        outcome: Outcome,
        reason: impl Into<String>,
    ) -> Result<(), ImproveError> {
        self.outcome = outcome;
        self.reason = reason.into();
        self.ended_at = Some(loki_core::time::now_rfc3339());
        "end".clone_into(&mut self.step);
        self.save(paths)
    }
}

fn new_id() -> String {
    let run = loki_core::RunId::new();
    format!("cyc_{}", run.as_str().trim_start_matches("run_"))
}

/// Every cycle record, oldest first. Unreadable records are errors naming the file.
pub fn list(paths: &Paths) -> Result<Vec<CycleRecord>, ImproveError> {
    let mut out: Vec<CycleRecord> = crate::config::read_json_dir(&paths.cycles(), "cycle record")?;
    out.sort_by(|a, b| a.started_at.cmp(&b.started_at).then(a.id.cmp(&b.id)));
    Ok(out)
}

/// Today's (UTC) use: cycles that reached the editor, and tokens.
#[must_use]
pub fn usage_today(records: &[CycleRecord]) -> (u32, u64) {
    let today = today();
    let todays = records.iter().filter(|r| r.started_at.starts_with(&today));
    todays.fold((0, 0), |(c, t), r| {
        (c + u32::from(r.editor_started), t + r.tokens)
    })
}

/// `YYYY-MM-DD` of now, UTC: the prefix of today's timestamps.
#[must_use]
pub fn today() -> String {
    loki_core::time::now_rfc3339()
        .get(..10)
        .unwrap_or_default()
        .to_string()
}

/// The newest cycle that applied a revision and was never guarded (it was killed in between).
#[must_use]
pub fn unguarded(records: &[CycleRecord]) -> Option<&CycleRecord> {
    records
        .iter()
        .rev()
        .find(|r| r.applied_revision.is_some() && r.guarded == Some(false))
}

/// When the newest cycle that captured failures started: failures before it are not new.
#[must_use]
pub fn last_capture(records: &[CycleRecord]) -> Option<&str> {
    records
        .iter()
        .rev()
        .find(|r| r.captured)
        .map(|r| r.started_at.as_str())
}
