//! The `data` of each event type: one Rust type per entry of the vocabulary ([`EventType`]).
//!
//! A producer builds one of these and hands it to [`crate::RunRecorder::append`] (or
//! [`crate::EventWriter::record`]); the type fixes the event's `type`, and for stage events its
//! `stage`, so a payload cannot be filed under the wrong type or drift into a second shape.
//!
//! Shapes: fields every producer of a type knows are always present; the others are optional and
//! omitted when absent, never `null` (as in the receipt). One exception keeps its meaning in
//! `null`: `cost.usd`, where `null` is "not measured", never $0.
//!
//! `check.result` has the receipt's check shape (`name, kind, cmd, result, executed, passed,
//! failed, skipped, duration_s, log_sha256`) plus what only the log carries (failing ids, the stage
//! and role in a build run, the reason a check did not pass). `result` is the checks' vocabulary:
//! `pass`, `fail`, `not_run`, `flaky`, `timeout`.

use loki_core::run::RunKind;
use loki_protocol::{CapAt, CheckRun, RunEnd, Stage};
use serde::{Deserialize, Serialize};

use crate::event::EventType;

/// The `data` of one event type.
pub trait Payload: Serialize {
    /// The event type this payload is recorded as.
    const TYPE: EventType;

    /// The `stage` of a stage event; `None` for every other type.
    fn stage(&self) -> Option<Stage> {
        None
    }
}

macro_rules! payload {
    ($ty:ident => $kind:ident) => {
        impl Payload for $ty {
            const TYPE: EventType = EventType::$kind;
        }
    };
    ($ty:ident => $kind:ident, stage) => {
        impl Payload for $ty {
            const TYPE: EventType = EventType::$kind;
            fn stage(&self) -> Option<Stage> {
                Some(self.stage)
            }
        }
    };
    ($ty:ident => $kind:ident, end) => {
        impl Payload for $ty {
            const TYPE: EventType = EventType::$kind;
            fn stage(&self) -> Option<Stage> {
                Some(self.0.stage)
            }
        }
    };
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `run.started`: what kind of run, and the facts it starts from. The variant is the run's kind
/// (`data.kind`), so `run.json` and the log cannot disagree on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum RunStarted {
    Build(BuildStarted),
    Quick(BuildStarted),
    Seal {
        session: String,
        base: String,
        head: String,
    },
    Heal {
        incident: String,
        signature: String,
    },
    Incident {
        command: Vec<String>,
        seed: u64,
    },
    Ask {
        provider: String,
        why: String,
    },
    Checks {
        checks: usize,
    },
    /// One `loki improve` cycle that applied (or applied and rolled back) a change of the agent's
    /// instructions: its receipt's facts are the canary and guard results.
    Improve {
        cycle: String,
        trigger: String,
        from_revision: String,
        to_revision: String,
    },
    /// `loki deep <run>`: the deep verify of a finished build run, bound to its receipt and head.
    Deep {
        main_receipt: String,
        head: String,
    },
}

impl RunStarted {
    /// The kind recorded in `run.json`.
    #[must_use]
    pub fn kind(&self) -> RunKind {
        match self {
            RunStarted::Build(_) => RunKind::Build,
            RunStarted::Quick(_) => RunKind::Quick,
            RunStarted::Seal { .. } => RunKind::Seal,
            RunStarted::Heal { .. } => RunKind::Heal,
            RunStarted::Incident { .. } => RunKind::Incident,
            RunStarted::Ask { .. } => RunKind::Ask,
            RunStarted::Checks { .. } => RunKind::Checks,
            RunStarted::Improve { .. } => RunKind::Improve,
            RunStarted::Deep { .. } => RunKind::Deep,
        }
    }
}

impl Payload for RunStarted {
    const TYPE: EventType = EventType::RunStarted;
}

/// The start of a build (or quick) run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildStarted {
    pub task_sha256: String,
    pub task_source: String,
    pub provider: String,
    pub cap_s: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    pub base: String,
    /// The revision of the agent's instructions the run follows (`.loki/agent/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_revision: Option<String>,
}

/// `run.completed`: the run's outcome; `run.json` records the same outcome and exit code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunCompleted {
    /// `VERIFIED`, `FAILED`, … for sealed runs; the producer's word otherwise (`PASS`, `CRASHED`).
    pub outcome: RunEnd,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_sha256: Option<String>,
    /// Why the run could not do its work (a command that did not start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The timeout that ended the observed command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
    /// The seal hook refused the stop.
    #[serde(default, skip_serializing_if = "is_false")]
    pub blocked: bool,
    /// The judge's verdict on the change, for runs a judge decided (seal stops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<loki_protocol::outcome::Verdict>,
}
payload!(RunCompleted => RunCompleted);

impl RunCompleted {
    /// A completion with an outcome and nothing else.
    #[must_use]
    pub fn new(outcome: impl Into<RunEnd>) -> RunCompleted {
        RunCompleted {
            outcome: outcome.into(),
            exit_code: None,
            receipt_sha256: None,
            reason: None,
            timeout_s: None,
            blocked: false,
            judgement: None,
        }
    }

    /// With the exit code `run.json` records.
    #[must_use]
    pub fn exit_code(mut self, code: i32) -> RunCompleted {
        self.exit_code = Some(code);
        self
    }

    /// With the sha256 of the run's receipt.
    #[must_use]
    pub fn receipt(mut self, receipt_sha256: impl Into<String>) -> RunCompleted {
        self.receipt_sha256 = Some(receipt_sha256.into());
        self
    }
}

/// `run.interrupted`: the run stopped early (SIGINT, an error, a panic). A run interrupted after
/// its seal still names its outcome and receipt; one that never got there says why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunInterrupted {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<RunEnd>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
payload!(RunInterrupted => RunInterrupted);

impl RunInterrupted {
    /// An interruption before the run could record an outcome.
    #[must_use]
    pub fn because(reason: impl Into<String>) -> RunInterrupted {
        RunInterrupted {
            outcome: None,
            exit_code: None,
            receipt_sha256: None,
            reason: Some(reason.into()),
        }
    }
}

/// `stage.started`: data `{}`, the stage in the envelope. The stage payloads are written, never
/// read back alone: their `data` does not hold the stage, the envelope ([`crate::Event`]) does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageStarted {
    #[serde(skip)]
    pub stage: Stage,
}
payload!(StageStarted => StageStarted, stage);

/// How a stage ended: the `data` of `stage.completed`, `stage.failed` (the detail is the error)
/// and `stage.skipped` (the detail says why there was nothing to do).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StageEnd {
    #[serde(skip)]
    pub stage: Stage,
    pub detail: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
}

impl StageEnd {
    #[must_use]
    pub fn new(stage: Stage, detail: impl Into<String>, seconds: Option<f64>) -> Self {
        StageEnd {
            stage,
            detail: detail.into(),
            seconds,
        }
    }
}

/// `stage.completed`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StageCompleted(pub StageEnd);
payload!(StageCompleted => StageCompleted, end);

/// `stage.failed`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StageFailed(pub StageEnd);
payload!(StageFailed => StageFailed, end);

/// `stage.skipped`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct StageSkipped(pub StageEnd);
payload!(StageSkipped => StageSkipped, end);

/// `session.started`: an agent session begins.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionStarted {
    /// The session's label in a build run (`wall`, `implement`, `fix-1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_left_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}
payload!(SessionStarted => SessionStarted);

/// `session.ended`: how the session ended (`end`), or the error that ended it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionEnded {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// The agent's `finish` status (`done`, `already_done`, `spec_conflict`), when it called it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The kind of model failure that ended it (`auth`, `unreachable`, `timeout`,
    /// `bad_response`, `context_length`, `rate_limited`, `server_error`, `refused`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turns: Option<u32>,
}
payload!(SessionEnded => SessionEnded);

/// `cost`: one session's usage. `usd` is `null` when the price is unknown: not measured, never $0.
/// Cache token counts are omitted when zero (a provider that reports none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub usd: Option<f64>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Model calls it took (a patch synthesis retries on a bad answer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempts: Option<u32>,
}
payload!(Cost => Cost);

/// `tool.called`: one tool call of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCalled {
    pub tool: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}
payload!(ToolCalled => ToolCalled);

/// A file and its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub path: String,
    pub sha256: String,
}

/// A wall file the author wrote that was not sealed, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discarded {
    pub path: String,
    pub reason: String,
}

/// `wall.sealed`: the acceptance tests sealed by hash before implement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WallSealed {
    pub files: Vec<FileDigest>,
    pub discarded: Vec<Discarded>,
}
payload!(WallSealed => WallSealed);

/// `tests.restored`: sealed wall files the agent edited, put back from the sealed copies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestsRestored {
    /// The session after which they were restored.
    pub after: String,
    pub paths: Vec<String>,
    pub why: String,
}
payload!(TestsRestored => TestsRestored);

/// `check.result`: one suite, lint run or reproduction (see the module doc for the shape): its
/// run's facts ([`CheckRun`], first, so the keys keep their order; what ran it is the runner,
/// `lint` or `repro`) and what only the log carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    #[serde(flatten)]
    pub run: CheckRun<loki_protocol::CheckOrigin>,
    pub duration_s: f64,
    pub log_sha256: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failing_ids: Vec<String>,
    /// The stage that ran it (`gate`, `verify`; `deep` for `loki deep`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    /// Its role in a build run (`tests`, `wall`, `lint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<loki_protocol::CheckRole>,
    /// Why it did not pass, when the runner says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Lint findings on the lines the change touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_findings: Option<u64>,
}
payload!(CheckResult => CheckResult);

impl CheckResult {
    /// As run by `stage` in the role `role`.
    #[must_use]
    pub fn in_stage(mut self, stage: Stage, role: loki_protocol::CheckRole) -> CheckResult {
        self.stage = Some(stage);
        self.role = Some(role);
        self
    }
}

/// `integrity.finding`: a rule of the seal that the change broke (also the receipt's
/// `integrity[]` entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegrityFinding {
    pub kind: loki_protocol::FindingKind,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    pub detail: String,
    /// What to do about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}
payload!(IntegrityFinding => IntegrityFinding);

/// `fix.round`: a fix round starts after a failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FixRound {
    pub round: u32,
    /// The failure signature the round is to fix.
    pub signature: String,
}
payload!(FixRound => FixRound);

/// `cap.hit`: the run's time cap, cost budget or token cap was reached (`data.cap`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "cap", rename_all = "lowercase")]
pub enum CapHit {
    Time {
        cap_s: u64,
        stage: CapAt,
    },
    Cost {
        max_cost_usd: f64,
        spent_usd: f64,
        stage: CapAt,
    },
    /// The token cap (`--max-tokens`, every bucket summed).
    Tokens {
        max_tokens: u64,
        spent_tokens: u64,
        stage: CapAt,
    },
}

impl Payload for CapHit {
    const TYPE: EventType = EventType::CapHit;
}

/// `incident.recorded`: a crash became an incident with a reproduction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IncidentRecorded {
    pub signature: String,
    pub signature_text: String,
    /// The crash's kind (`ZeroDivisionError`, `panic`, `SIGSEGV`).
    pub kind: String,
    pub exit_code: i32,
    pub frames: usize,
}
payload!(IncidentRecorded => IncidentRecorded);

/// `patch.applied`: a heal patch written, with its byte-exact backup.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatchApplied {
    pub file: String,
    pub line: usize,
    /// The rung of the strictness ladder that matched the snippet.
    pub rung: String,
    pub backup: String,
    pub diff_sha256: String,
    pub before_sha256: String,
    pub after_sha256: String,
    pub insertions: u64,
    pub deletions: u64,
    pub root_cause: String,
}
payload!(PatchApplied => PatchApplied);

/// `patch.verified`: the reproduction no longer crashes; the backup is removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatchVerified {
    pub file: String,
    pub signature: String,
}
payload!(PatchVerified => PatchVerified);

/// `patch.rolled_back`: the program still crashed with the patch (the recorded crash, or
/// `new_crash`); the file was restored from its backup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatchRolledBack {
    pub file: String,
    pub restored_sha256: String,
    pub original_sha256: String,
    pub byte_identical: bool,
    /// The crash the patched program had instead of the recorded one; absent when the recorded
    /// crash itself reproduced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_crash: Option<CrashSeen>,
}
payload!(PatchRolledBack => PatchRolledBack);

/// A crash seen when a reproduction ran, named as `incident.recorded` names the recorded one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrashSeen {
    /// The crash's signature id and text (kind and top frames).
    pub signature: String,
    pub signature_text: String,
    /// `KeyError`, `panic`, `exit 3` when nothing in the output named a crash.
    pub kind: String,
    /// The crash's message (`'missing'`), empty when it printed none.
    pub message: String,
    /// Where it happened, innermost frame first: `app.py:2 in average`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The command's exit code.
    pub exit_code: i32,
}

/// `receipt.sealed`: the receipt written and signed; the log is synced after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceiptSealed {
    pub receipt_sha256: String,
    pub keyid: String,
}
payload!(ReceiptSealed => ReceiptSealed);

/// `pr.opened`: the change was proposed as a pull request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrOpened {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
}
payload!(PrOpened => PrOpened);

/// The `integrity.finding` event of a finding.
impl From<&loki_protocol::Finding> for IntegrityFinding {
    fn from(f: &loki_protocol::Finding) -> Self {
        IntegrityFinding {
            kind: f.kind,
            path: f.path.clone(),
            line: f.line,
            test: f.test.clone(),
            detail: f.detail.clone(),
            advice: Some(f.advice().to_owned()),
        }
    }
}
