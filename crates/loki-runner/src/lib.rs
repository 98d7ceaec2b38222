//! Test suites as evidence: find a repository's test runners, run them, and say exactly what ran.
//!
//! - [`detect`](mod@detect) finds one [`Check`] per package (cargo/nextest, pytest, npm scripts running vitest,
//!   jest or `node --test`, plain `node --test`, `go test`, Maven) and records *why* it chose each;
//!   `loki_term::checks::detect` is the text of `loki checks detect`, and `Check` serialises for
//!   `--json`.
//! - [`run_check`] runs a check through the one process runner ([`loki_process`]): own
//!   process group, timeout that kills the group, stdin closed, `CI=1 NO_COLOR=1`, secrets scrubbed
//!   from the environment, output capped head+tail and written atomically to `<log_dir>/<name>.log`.
//!   It asks each runner for a structured report (nextest and pytest JUnit, `go test -json`,
//!   vitest/jest JSON, node TAP, Surefire XML) and falls back to the runner's summary lines, read
//!   by the parsers in [`reports`] (pure: runner output in, per-test results out).
//! - [`select`] narrows a check to files or test ids; [`script`] runs a package script the way its
//!   package manager would, with a report from every runner in it; [`locate`] finds the file and
//!   line a test id names; [`ids`] reads a test id's parts (own name, group, home, parent and
//!   child) the runner's way; [`wall`] makes the check that runs a wall test alone.
//! - [`isolate`] makes a run in another tree (base, hybrid) execute that tree's code; [`splice`]
//!   finds the test items inside source files and splices one version's into another's.
//! - Every command can run through a wrapper ([`RunOptions::wrapper`]): the engine confines the
//!   checks of an agent's code with `loki __confine` ([`loki_process::confine`]).
//! - [`ChecksError`] is the one error type of the checks crates (this one and `loki-checks`):
//!   only loki's own failures.
//!
//! # Layout: steps, and one module per runner
//! The modules above are the steps every check goes through, and hold what the runners share.
//! What one runner does its own way lives in `runners/` (private), one module per runner family,
//! each with that runner's detection, command and report flags, report parsing, status hints,
//! narrowing, test location and isolation part: `runners::cargo` (with `cargo::nextest`),
//! `runners::pytest`, `runners::node` (with `node::scripted` for vitest and jest, `node::npm`),
//! `runners::go`, `runners::maven`. The steps reach them through one trait (`runners::Runner`,
//! whose defaults are what most runners do) and one table (`runners::runner(kind)`, the crate's
//! only exhaustive `match` on [`loki_protocol::CheckKind`]): adding a runner is one module and
//! one row. The report formats one runner writes stay reachable where they were
//! ([`reports::cargo`], [`reports::gotest`], [`reports::pytest`]).
//!
//! # Invariants (the "no silent pass" rule)
//! - `pass` requires more than zero executed tests, none failed, and exit code 0.
//! - Exit 0 with zero executed tests is `not_run: no tests executed`.
//! - A non-zero exit is never a pass, whatever the output claims.
//! - A missing tool is `not_run` with the reason, never `fail`; a hang is `timeout`.
//! - A failing check is rerun once; fail-then-pass is `flaky`, which is not a pass.
//!
//! Results are facts in this crate's types; they convert to the shared event vocabulary
//! (`From<&CheckResult>` for `loki_events::payload::CheckResult`). Linting changed files is
//! `loki-lint`, built on [`run_check`]'s options and errors.
//!
//! This crate never edits the repository it tests (reports go to a temporary directory, pytest's
//! cache is disabled), never prints, and never decides a run's outcome: it reports facts.

pub mod detect;
pub mod error;
pub mod exec;
pub mod ids;
pub mod isolate;
pub mod locate;
pub mod reports;
mod runners;
pub mod script;
pub mod select;
pub mod splice;
pub mod wall;

pub use detect::{Check, Tools, detect, detect_with};
pub use error::ChecksError;
pub use exec::{AttemptStatus, CheckResult, Facts, RunOptions, run_check, status_of};
pub use reports::report::{TestCase, TestReport, TestStatus};
