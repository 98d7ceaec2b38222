//! One event: its envelope, its vocabulary, and how its hash is computed.

use loki_protocol::Stage;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// `prev` of the first line: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    pub v: u32,
    pub seq: u64,
    pub ts: String,
    pub run: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// The stage of a stage event (every stage word ever written is a [`Stage`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<Stage>,
    pub data: serde_json::Map<String, serde_json::Value>,
    pub prev: String,
    pub hash: String,
}

/// The event vocabulary, shared by every producer: add to it, never fork it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    RunStarted,
    RunCompleted,
    RunInterrupted,
    StageStarted,
    StageCompleted,
    StageFailed,
    StageSkipped,
    SessionStarted,
    SessionEnded,
    Cost,
    ToolCalled,
    WallSealed,
    TestsRestored,
    CheckResult,
    IntegrityFinding,
    FixRound,
    CapHit,
    IncidentRecorded,
    PatchApplied,
    PatchVerified,
    PatchRolledBack,
    ReceiptSealed,
    PrOpened,
}

impl EventType {
    /// Every event type.
    pub const ALL: [EventType; 23] = [
        EventType::RunStarted,
        EventType::RunCompleted,
        EventType::RunInterrupted,
        EventType::StageStarted,
        EventType::StageCompleted,
        EventType::StageFailed,
        EventType::StageSkipped,
        EventType::SessionStarted,
        EventType::SessionEnded,
        EventType::Cost,
        EventType::ToolCalled,
        EventType::WallSealed,
        EventType::TestsRestored,
        EventType::CheckResult,
        EventType::IntegrityFinding,
        EventType::FixRound,
        EventType::CapHit,
        EventType::IncidentRecorded,
        EventType::PatchApplied,
        EventType::PatchVerified,
        EventType::PatchRolledBack,
        EventType::ReceiptSealed,
        EventType::PrOpened,
    ];

    /// The `type` field as written.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::RunStarted => "run.started",
            EventType::RunCompleted => "run.completed",
            EventType::RunInterrupted => "run.interrupted",
            EventType::StageStarted => "stage.started",
            EventType::StageCompleted => "stage.completed",
            EventType::StageFailed => "stage.failed",
            EventType::StageSkipped => "stage.skipped",
            EventType::SessionStarted => "session.started",
            EventType::SessionEnded => "session.ended",
            EventType::Cost => "cost",
            EventType::ToolCalled => "tool.called",
            EventType::WallSealed => "wall.sealed",
            EventType::TestsRestored => "tests.restored",
            EventType::CheckResult => "check.result",
            EventType::IntegrityFinding => "integrity.finding",
            EventType::FixRound => "fix.round",
            EventType::CapHit => "cap.hit",
            EventType::IncidentRecorded => "incident.recorded",
            EventType::PatchApplied => "patch.applied",
            EventType::PatchVerified => "patch.verified",
            EventType::PatchRolledBack => "patch.rolled_back",
            EventType::ReceiptSealed => "receipt.sealed",
            EventType::PrOpened => "pr.opened",
        }
    }

    /// Parses a `type` field.
    #[must_use]
    pub fn parse(s: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// True for the events that end a run.
    #[must_use]
    pub fn is_terminal(self) -> bool {
        matches!(self, EventType::RunCompleted | EventType::RunInterrupted)
    }

    /// True for stage events, which carry a `stage` field.
    #[must_use]
    pub fn is_stage(self) -> bool {
        matches!(
            self,
            EventType::StageStarted
                | EventType::StageCompleted
                | EventType::StageFailed
                | EventType::StageSkipped
        )
    }
}

/// An event whose hash cannot be computed: its JSON could not be built or put in canonical (JCS)
/// form (a number JCS cannot write, such as a non-finite float).
#[derive(Debug, thiserror::Error)]
#[error("cannot put the event in canonical JSON to hash it: {source}")]
pub struct HashError {
    #[from]
    source: serde_json::Error,
}

/// The hash of an event: hex SHA-256 of the JCS form of the event without `hash`.
///
/// # Errors
/// [`HashError`] when the event cannot be written as canonical JSON.
pub fn hash_event(event: &Event) -> Result<String, HashError> {
    let mut value = serde_json::to_value(event)?;
    if let Some(obj) = value.as_object_mut() {
        obj.remove("hash");
    }
    hash_value(&value)
}

/// Hex SHA-256 of the JCS form of a JSON value.
pub(crate) fn hash_value(value: &serde_json::Value) -> Result<String, HashError> {
    let canonical = serde_json_canonicalizer::to_vec(value)?;
    Ok(hex::encode(Sha256::digest(&canonical)))
}
