//! The event log of a loki run: `.loki/runs/<run-id>/events.jsonl`.
//!
//! # Format
//!
//! One JSON object per line, `\n`-terminated, UTF-8:
//!
//! ```text
//! {"v":1,"seq":0,"ts":"2026-11-29T15:17:36.123Z","run":"run_20261129_151736_beef",
//!  "type":"stage.started","stage":"intake","data":{…},"prev":"000…0","hash":"<64 hex>"}
//! ```
//!
//! - `v` is 1. `seq` counts from 0 with no gaps. `run` is the run id on every line, so lines cannot
//!   be spliced between runs. `stage` is present only for stage events. `data` is an object.
//! - `prev` is the `hash` of line `seq - 1`, or 64 zeros for line 0.
//! - `hash` is the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical form of the object without
//!   its `hash` member. Hashing the canonical form, not the bytes on disk, means key order and
//!   whitespace do not matter; any change of a value does.
//!
//! # Producers
//!
//! Every producer records a run through [`RunRecorder`] (start, append, seal, finish or
//! interrupt; see [`recorder`](RunRecorder)) with the typed payloads of [`payload`], one type per
//! event type, so the vocabulary has one shape per type. Adding a producer is a `RunStarted`
//! variant and a few `append` calls.
//!
//! # Invariants
//!
//! - Exactly one writer per log ([`EventWriter`]): it holds an exclusive lock on `events.lock`; a
//!   second writer gets [`EventError::Locked`].
//! - Each line is written with one `write(2)` on an `O_APPEND` descriptor, so a reader sees whole
//!   lines or a torn last line, never interleaving.
//! - Durability: the writer `fsync`s after terminal events (`run.completed`, `run.interrupted`),
//!   after `receipt.sealed`, on [`EventWriter::sync`] and when dropped. Other events reach the page
//!   cache only: a power cut can lose the tail after the last sync, which leaves a shorter but valid
//!   chain. The receipt binds `{count, head}` after an explicit sync, so what it vouches for is on
//!   disk.
//!
//! # Failure modes
//!
//! - A torn last line (no final newline) is an interrupted write, not tampering: [`verify_log`]
//!   reports [`LogStatus::Interrupted`]; a writer reopening the log moves the torn bytes to
//!   `events.jsonl.torn` and continues the chain after the last whole line.
//! - Anything else wrong — bad JSON, a missing or mistyped envelope field, a gap in `seq`, a `prev`
//!   that does not match, a `hash` that does not match, another run's id, a line over
//!   [`MAX_LINE_BYTES`] — is [`LogStatus::Broken`] with the first bad line and the reason.
//! - Observers: a process may install one [`EventSink`] ([`install_sink`]) that sees every line
//!   after it is written (the control-plane shipper); it cannot fail or slow a write.
//! - Large payloads (test output) do not belong in the log: store them as files and put their
//!   sha256 in `data`. The writer refuses a line over [`MAX_LINE_BYTES`].

mod event;
mod fold;
pub mod payload;
mod reader;
mod recorder;
mod sink;
mod writer;

pub use event::{Event, EventType, GENESIS, HashError, hash_event};
pub use fold::{Fold, StageState, fold};
pub use payload::Payload;
pub use reader::{BadLine, LogStatus, LogSummary, read_events, verify_log};
pub use recorder::{DROPPED_REASON, RunRecorder};
pub use sink::{EventSink, install_sink};
pub use writer::EventWriter;

use std::path::PathBuf;

/// The longest line the log accepts (1 MiB). Larger payloads are stored as files by digest.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// Errors from writing or reading an event log.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "another loki process is writing {path} (lock {lock} is held); wait for it to finish or check `loki runs list`"
    )]
    Locked { path: PathBuf, lock: PathBuf },
    #[error("{path} cannot be continued: {reason}; `loki events <run-id> --verify` shows where")]
    BrokenLog { path: PathBuf, reason: String },
    #[error(
        "event {event_type} is {bytes} bytes, over the {MAX_LINE_BYTES}-byte line limit; store large payloads as files and log their sha256"
    )]
    TooLarge { event_type: String, bytes: usize },
    #[error("cannot encode event {event_type}: {reason}")]
    Encode { event_type: String, reason: String },
    #[error("run {run} has ended; it takes no more events (got {event_type})")]
    Ended {
        run: String,
        event_type: &'static str,
    },
    #[error(transparent)]
    Store(#[from] loki_core::CoreError),
}

impl loki_core::exit::Classify for EventError {
    /// A broken or locked log, an event too large to record: failures of the machine or of loki,
    /// not of the user's input; a run-store error keeps its own class.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            EventError::Store(e) => e.exit_class(),
            EventError::Io { .. }
            | EventError::Locked { .. }
            | EventError::BrokenLog { .. }
            | EventError::TooLarge { .. }
            | EventError::Encode { .. }
            | EventError::Ended { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}

impl EventError {
    fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EventError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

#[cfg(test)]
mod tests;
