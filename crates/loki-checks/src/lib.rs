//! The judgement of a change.
//!
//! - [`judge`](mod@judge) is the one judgement of a change, for the stop hook and the build engine alike: the
//!   suites on the base and the head, the original tests on the new code and the new tests on the
//!   old code in hybrid trees, tests matched across moves, flaky tests rerun on the base, the
//!   static rules, and "cannot judge" for a suite that could not run.
//! - [`baseline`] runs the same checks on the base commit in a throwaway worktree, cached by tree,
//!   and [`classify`] sorts every test id into newly failing, fixed, still failing, missing, new, ...
//!
//! Finding and running suites, their reports, isolation and splicing are `loki-runner`'s
//! (see its invariants: no silent pass); the static rules over a change are `loki-integrity`'s
//! (`scan` is pure over bytes, `scan_changes` reads them from git); findings and facts are
//! `loki-protocol`'s words. This crate re-exports none of them: callers name the crate that owns
//! a thing.
//!
//! # Invariants
//! Results are facts in the runner's types; they convert to the shared event vocabulary
//! (`From<&CheckResult>` for `loki_events::payload::CheckResult`, and for integrity findings). How
//! a receipt records them is the receipt's business (`loki-receipt`), not this crate's.
//!
//! This crate never edits the repository it tests (other checkouts are temporary worktrees or
//! exported trees, always removed), never prints, and never decides a run's outcome: it reports
//! facts. Its tracing target is `loki_checks::judge` (what `LOKI_LOG` filters on).

pub mod baseline;
/// The static rules, from their own crate (`loki-integrity`).
pub mod judge;

pub use baseline::{
    BaselineResult, ClassifiedTest, Comparison, TestClass, Uncompared, classify, run_baseline,
};
use loki_runner::ChecksError;

/// The integrity scan's git errors as the checks' own (same words, same exit class): the scan
/// lives below the runner, so the conversion is here rather than a `From` that would tie the
/// runner crate to the rules.
#[must_use]
pub fn scan_error(e: loki_integrity::IntegrityError) -> ChecksError {
    match e {
        loki_integrity::IntegrityError::Git { action, source } => {
            ChecksError::Git { action, source }
        }
    }
}
