//! `loki demo`: before the run, two dim lines (what the example is and where, the task); after
//! it, the run's summary (which points at no run when the example is removed) and the
//! verification as `loki verify` prints it, under a dim `$ loki verify <run>`; with `--keep`, a
//! dim `kept <dir>` at the end.

use std::path::Path;

use loki_engine::BuildReport;
use loki_receipt::VerifyReport;

use crate::style::{DIM, paint};
use crate::summary::{Place, render_for};

/// The lines printed before the demo runs in `dir`.
#[must_use]
pub fn intro(dir: &Path) -> String {
    let what = format!(
        "loki demo: a Rust crate with a leap-year bug in {}; scripted model, offline",
        dir.display()
    );
    let task = format!("task: {}", loki_engine::demo::TASK);
    format!("{}\n{}\n", paint(DIM, &what), paint(DIM, &task))
}

/// The summary and the verification of the demo's run; `kept` when its repository stays.
#[must_use]
pub fn ended(report: &BuildReport, verified: &VerifyReport, kept: bool) -> String {
    let place = if kept { Place::Kept } else { Place::Removed };
    let verify = format!("$ loki verify {}", report.run_id);
    format!(
        "{}\n{}\n{}",
        render_for(report, place),
        paint(DIM, &verify),
        crate::verify::human(verified, false)
    )
}

/// The line printed when the demo's repository is kept.
#[must_use]
pub fn kept(dir: &Path) -> String {
    format!("{}\n", paint(DIM, &format!("kept {}", dir.display())))
}
