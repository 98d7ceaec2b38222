//! A process-wide observer of every event written, for shipping runs to a control plane.
//!
//! The binary installs at most one [`EventSink`] at start ([`install_sink`]); every
//! [`crate::EventWriter`] hands it each line right after the line is on disk, with the run's
//! directory. The sink must return at once (queue and return): a slow or failing sink would
//! otherwise slow or fail the run it watches, and a run never depends on being observed. Nothing is
//! installed in libraries or tests that do not ask for it, so loki-events stays free of I/O it does
//! not own.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::event::Event;

/// Receives each event after it was written to its log.
pub trait EventSink: Send + Sync + std::fmt::Debug {
    /// One event of the run in `run_dir`, already durable in the page cache. Must not block.
    fn event(&self, run_dir: &Path, event: &Event);
}

static SINK: OnceLock<Arc<dyn EventSink>> = OnceLock::new();

/// Installs the process's sink. Returns false (and keeps the first) when one is installed.
pub fn install_sink(sink: Arc<dyn EventSink>) -> bool {
    SINK.set(sink).is_ok()
}

/// Hands an event to the installed sink, if any.
pub(crate) fn notify(run_dir: &Path, event: &Event) {
    if let Some(sink) = SINK.get() {
        sink.event(run_dir, event);
    }
}
