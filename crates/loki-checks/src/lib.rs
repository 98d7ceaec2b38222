//! Test suites as evidence: find a repository's test runners, run them, and say exactly what ran.
//!
//! - [`detect`] finds one [`Check`] per package (cargo/nextest, pytest, npm scripts running vitest,
//!   jest or `node --test`, plain `node --test`, `go test`) and records *why* it chose each;
//!   [`render_detect`] is the text of `loki checks detect`, and `Check` serialises for `--json`.
//! - [`run_check`] runs a check through the one process runner ([`loki_core::process`]): own
//!   process group, timeout that kills the group, stdin closed, `CI=1 NO_COLOR=1`, secrets scrubbed
//!   from the environment, output capped head+tail and written atomically to `<log_dir>/<name>.log`.
//!   It asks each runner for a structured report (nextest and pytest JUnit, `go test -json`,
//!   vitest/jest JSON, node TAP) and falls back to the runner's summary lines.
//! - [`parse`] holds the parsers: pure functions from text to [`TestReport`] that never panic.
//! - [`integrity`] (the `loki-integrity` crate, re-exported) is the seal's rule set over a change
//!   (tests removed, fewer tests or assertions, skip markers, test/CI configuration, outcome
//!   rewrites, mocks of the code under test, always-true equality): [`scan`] is pure over bytes,
//!   [`scan_changes`] reads them from git.
//! - [`baseline`] runs the same checks on the base commit in a throwaway worktree, cached by tree,
//!   and [`classify`] sorts every test id into newly failing, fixed, still failing, missing, new, ...
//! - [`isolate`] makes a run in another tree (base, hybrids) execute that tree's code even when the
//!   environment points at the checkout: editable installs, workspace links, shared build caches.
//! - [`judge`] is the one judgement of a change, for the stop hook and the build engine alike: the
//!   suites on the base and the head, the original tests on the new code and the new tests on the
//!   old code in hybrid trees, tests matched across moves, flaky tests rerun on the base, the
//!   static rules, and "cannot judge" for a suite that could not run.
//! - [`select`] narrows a check to files or test ids; [`script`] runs a package script the way its
//!   package manager would, with a report from every runner in it; [`isolate`] makes another tree
//!   run its own code.
//! - [`splice`] finds the test items inside source files (Rust `#[cfg(test)]` items, test
//!   functions and doctests, Python doctests, vitest in-source blocks) and splices one version's
//!   test items into another version's source, so the original tests run on the new code without
//!   restoring the old code around them.
//! - Every command can run through a wrapper ([`RunOptions::wrapper`]): the engine confines the
//!   checks of an agent's code with `loki __confine` ([`loki_core::confine`]).
//!
//! # Invariants (the "no silent pass" rule)
//! - `pass` requires more than zero executed tests, none failed, and exit code 0.
//! - Exit 0 with zero executed tests is `not_run: no tests executed`.
//! - A non-zero exit is never a pass, whatever the output claims.
//! - A missing tool is `not_run` with the reason, never `fail`; a hang is `timeout`.
//! - A failing check is rerun once; fail-then-pass is `flaky`, which is not a pass.
//!
//! Results are facts in this crate's types; they convert to the shared event vocabulary
//! (`From<&CheckResult>` for `loki_events::payload::CheckResult`, and for integrity findings).
//! How a receipt records them is the receipt's business (`loki-receipt`), not this crate's.
//! Linting changed files is `loki-lint`, built on [`run_check`]'s options and errors.
//!
//! This crate never edits the repository it tests (other checkouts are temporary worktrees or
//! exported trees, always removed; reports go to a temporary directory, pytest's
//! cache is disabled), never prints, and never decides a run's outcome: it reports facts.

pub mod baseline;
pub mod detect;
pub mod error;
pub mod exec;
/// The static rules, from their own crate (`loki-integrity`).
pub use loki_integrity as integrity;
pub mod isolate;
pub mod judge;
pub mod parse;
pub mod report;
pub mod script;
pub mod select;
pub mod splice;

pub use baseline::{
    BaselineResult, ClassifiedTest, Comparison, TestClass, Uncompared, classify, run_baseline,
};
pub use detect::{Check, CheckKind, Tools, detect, detect_with, render_detect};
pub use error::ChecksError;
pub use exec::{CheckResult, CheckStatus, Facts, Judgement, RunOptions, judge, run_check};
pub use integrity::{FileChange, Finding, FindingKind, ScanInput, scan, scan_changes};
pub use isolate::Prepared;
pub use report::{TestCase, TestReport, TestStatus};
