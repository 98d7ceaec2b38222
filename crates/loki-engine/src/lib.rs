//! The build engine of loki: from a task to a verified commit on its own branch and a signed
//! evidence receipt.
//!
//! # The stage machine ([`run_build`])
//! [contract (a build run with acceptance criteria: a contradiction ⇒ BLOCKED) →] intake (clean-tree check, base, worktree `.loki/worktrees/<run-id>` on branch `loki/<run-id>`,
//! repo map, test map) → plan ‖ wall (acceptance tests written from the task and the file list
//! only, sealed by hash) → gate (the wall green on the unchanged base ⇒ ALREADY_SATISFIED) →
//! implement (fixed rules + quoted task + plan; wall edits reverted) → verify (impacted tests,
//! wall, integrity rules against the base) ⇄ fix (at most [`engine::MAX_FIX_ROUNDS`]; the same
//! failure [`engine::STALL_REPEATS`] times ⇒ STALLED) → commit (`Loki-Run: <id>` trailer; never
//! the wall or `.loki/`) → council (reviewers chosen by the change read it and its checks; their
//! answers are assessments that can only lower the verdict, [`loki_council`]) → seal (the receipt). One module per stage (`intake`, `acceptance` for
//! plan ‖ wall, `gate`, `implement`, `verify`, `commit`, `seal`), one loop ([`engine`]) that
//! emits `stage.started|completed|failed|skipped`. Commit and seal always run: after a cap, a budget
//! stop, SIGINT or a stage that failed.
//!
//! After commit, when the change touched a page of a web app, the `visual` stage (`visual.rs`)
//! screenshots the changed routes into the run directory and the receipt (`evidence.screens`).
//!
//! # Outcome
//! Facts decide, through [`loki_receipt::ReceiptBuilder`] and `loki_protocol::outcome::decide`:
//! VERIFIED needs a non-empty diff, every check proving (passed, executed > 0, none failed), the
//! wall sealed and passing, no integrity finding, no reverted wall edit and an untampered log.
//! The agent's own claim (`finish: done`) is recorded, never trusted. A failed model call ends the
//! run's work at once: it is the `Reason:`, the first NOT PROVEN entry and exit 2 (see
//! [`engine`]). A run that made no change removes its worktree and branch unless `keep`.
//!
//! # Delivery contract ([`proof`], and `loki-contract` for the criteria, the wall and the proof)
//! A build run with acceptance criteria (`.loki/contract.json`, or checklists and requirement
//! lists in its task) first checks them for a contradiction (the same thing required and
//! forbidden: BLOCKED with one question, before any code is written), tells the wall author to
//! name a test after each criterion, and seals which criteria the wall proved: VERIFIED needs
//! every criterion not marked advisory proven.
//!
//! # The fence ([`fence`])
//! The agent, its commands and the checks run with a scrubbed environment, a run-private `HOME` and
//! a private git directory that shows only the base. The user's checkout is never written:
//! [`ops::apply`] fast-forwards the user's branch to a VERIFIED run's branch or refuses.
//!
//! # Ask ([`ask`])
//! `loki ask`'s one unverified session in the checkout itself, in the model box, recorded as a
//! run of kind `ask`; its module doc is the spec.
//!
//! # Never
//! Print (the CLI prints; progress goes to an [`Observer`]), modify the user's checkout, commit the
//! wall, or leave a started run without a receipt.

mod acceptance;
pub mod ask;
mod commit;
mod council;
pub mod demo;
pub mod engine;
mod error;
pub mod fence;
mod gate;
pub mod implement;
pub mod intake;
pub mod ops;
pub mod options;
pub mod plan;
pub mod proof;
pub mod report;
mod run;
mod seal;
pub mod session;
pub mod verify;
mod visual;

pub use engine::{reserve_for, run_build};
/// The review council's size unless configured.
pub use loki_council::DEFAULT_REVIEWERS;

/// Writes `bytes` to `path` atomically, creating its parent directories.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), EngineError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| EngineError::io("create", parent, e))?;
    }
    loki_core::fs::write_atomic(path, bytes)?;
    Ok(())
}
pub use error::EngineError;
pub use options::{
    BuildOptions, DEFAULT_CAP, DEFAULT_DEEP_CAP, IssueInput, Observer, Progress, Silent, TaskInput,
};
pub use report::BuildReport;
