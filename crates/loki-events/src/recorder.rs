//! A run's lifecycle in one place: `run.json` in the run store and the event log, kept in step.
//!
//! ```text
//! start ──► append* ──► seal? ──► finish      (run.completed, status completed)
//!                          └────► interrupt   (run.interrupted, status interrupted)
//! ```
//!
//! - [`RunRecorder::start`] creates the run directory and `run.json` (status `running`), opens the
//!   log and appends `run.started`; the run's kind is the payload's, so the two cannot disagree.
//! - [`RunRecorder::append`] appends one typed event ([`crate::payload`]).
//! - [`RunRecorder::seal`] hands the log to the receipt builder, which syncs it, binds its
//!   `{count, head}` and appends `receipt.sealed`; a run is sealed at most once.
//! - [`RunRecorder::finish`] / [`RunRecorder::interrupt`] append the terminal event (which the
//!   writer fsyncs) and then write `run.json` atomically with the same outcome and exit code. After
//!   either, the recorder takes no more events ([`EventError::Ended`]).
//! - Dropped without either (an error returned with `?`, a panic unwinding), it records
//!   `run.interrupted` with a reason, best effort: a run never stays `running` in its log.
//!
//! The terminal event is written before `run.json`, so a crash between the two leaves a log that
//! says how the run ended and a `run.json` that liveness reports as `interrupted`.

use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::run::{RunRecord, RunStatus, RunStore};
use loki_protocol::RunEnd;

use crate::payload::{Payload, RunCompleted, RunInterrupted, RunStarted};
use crate::{EventError, EventWriter};

/// What the drop guard records when a run ends without `finish` or `interrupt`.
pub const DROPPED_REASON: &str = "the run ended without recording an outcome (an error or a crash)";

/// One run being recorded: its `run.json` and its event log.
#[derive(Debug)]
pub struct RunRecorder {
    store: RunStore,
    record: RunRecord,
    dir: PathBuf,
    log: EventWriter,
    sealed: bool,
    ended: bool,
}

impl RunRecorder {
    /// Starts a run in `store`: creates it (status `running`), opens its log, appends `started`.
    pub fn start(
        store: &RunStore,
        task: Option<String>,
        command: Vec<String>,
        started: &RunStarted,
    ) -> Result<RunRecorder, EventError> {
        let record = store.start(started.kind(), task, command)?;
        let dir = store.dir(&record.id);
        let log = EventWriter::open(&dir, record.id.as_str())?;
        let mut rec = RunRecorder {
            store: store.clone(),
            record,
            dir,
            log,
            sealed: false,
            ended: false,
        };
        rec.append(started)?;
        Ok(rec)
    }

    /// The run's id.
    #[must_use]
    pub fn id(&self) -> &RunId {
        &self.record.id
    }

    /// The run's directory (`.loki/runs/<id>/`).
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The run's `run.json` as last written.
    #[must_use]
    pub fn record(&self) -> &RunRecord {
        &self.record
    }

    /// Changes `run.json` (while the run goes: fields its start could not know yet) and writes it.
    pub fn update_record(&mut self, f: impl FnOnce(&mut RunRecord)) -> Result<(), EventError> {
        f(&mut self.record);
        self.store.save(&self.record)?;
        Ok(())
    }

    /// Events appended so far (including `run.started`).
    #[must_use]
    pub fn count(&self) -> u64 {
        self.log.count()
    }

    /// Hash of the last event appended.
    #[must_use]
    pub fn head(&self) -> &str {
        self.log.head()
    }

    /// The run's `events.jsonl`.
    #[must_use]
    pub fn log_path(&self) -> &Path {
        self.log.path()
    }

    /// Appends one event. Terminal events go through [`RunRecorder::finish`] and
    /// [`RunRecorder::interrupt`], which also write `run.json`.
    pub fn append<P: Payload>(&mut self, payload: &P) -> Result<(), EventError> {
        if self.ended {
            return Err(EventError::Ended {
                run: self.record.id.to_string(),
                event_type: P::TYPE.as_str(),
            });
        }
        if P::TYPE.is_terminal() {
            return Err(EventError::Encode {
                event_type: P::TYPE.as_str().to_string(),
                reason: "a terminal event ends the run: use finish or interrupt".to_string(),
            });
        }
        self.log.record(payload)?;
        Ok(())
    }

    /// Seals the run's receipt: `f` gets the log to bind (it syncs it, reads `{count, head}` and
    /// appends `receipt.sealed`, as `loki_receipt::ReceiptBuilder::seal` does). A run is sealed
    /// once; a second seal, or one after the run ended, is refused.
    pub fn seal<T, E: From<EventError>>(
        &mut self,
        f: impl FnOnce(&mut EventWriter) -> Result<T, E>,
    ) -> Result<T, E> {
        if self.ended || self.sealed {
            return Err(EventError::Ended {
                run: self.record.id.to_string(),
                event_type: crate::EventType::ReceiptSealed.as_str(),
            }
            .into());
        }
        let out = f(&mut self.log)?;
        self.sealed = true;
        Ok(out)
    }

    /// True once [`RunRecorder::seal`] succeeded.
    #[must_use]
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// Ends the run: `run.completed`, then `run.json` with status `completed` and the same outcome
    /// and exit code.
    pub fn finish(&mut self, end: &RunCompleted) -> Result<(), EventError> {
        self.end(end, RunStatus::Completed, Some(end.outcome), end.exit_code)
    }

    /// Ends the run early: `run.interrupted`, then `run.json` with status `interrupted`.
    pub fn interrupt(&mut self, end: &RunInterrupted) -> Result<(), EventError> {
        self.end(end, RunStatus::Interrupted, end.outcome, end.exit_code)
    }

    fn end<P: Payload>(
        &mut self,
        payload: &P,
        status: RunStatus,
        outcome: Option<RunEnd>,
        exit_code: Option<i32>,
    ) -> Result<(), EventError> {
        if self.ended {
            return Err(EventError::Ended {
                run: self.record.id.to_string(),
                event_type: P::TYPE.as_str(),
            });
        }
        // Ended even if a write below fails: the drop guard must not add a second terminal event.
        self.ended = true;
        self.log.record(payload)?;
        self.store
            .finish(&mut self.record, status, outcome, exit_code)?;
        Ok(())
    }
}

impl Drop for RunRecorder {
    fn drop(&mut self) {
        if !self.ended {
            // Best effort: whoever dropped us is already returning an error (or unwinding), and a
            // failure here would hide it. The next reader still sees the run as interrupted through
            // run.json's liveness check.
            let _ = self.interrupt(&RunInterrupted::because(DROPPED_REASON));
        }
    }
}
