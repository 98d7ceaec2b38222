//! Pure parsers: runner output in, [`TestReport`] out. None of them panics on any input (each has a
//! proptest saying so); each returns `None` when the text holds nothing it recognises, which is how
//! "could not tell" stays distinct from "zero tests".
//!
//! - [`report`]: the result types ([`TestReport`], [`report::TestCase`], [`report::TestStatus`]),
//!   one per test, with the runner's own id.
//! - [`parse_run`] asks the runner of a [`CheckKind`] (which runner ran) to read its structured
//!   reports first, its summary lines last.
//! - one module per format: here those several runners share, [`js`] (jest and vitest JSON,
//!   their summaries), [`junit`] (nextest, pytest and Maven Surefire), [`tap`] (node's test
//!   runner, and other runners' TAP); with their runner, and named here too, the formats one
//!   runner writes: [`cargo`] (libtest and nextest), [`gotest`] (`go test -json`), [`pytest`]
//!   (loki's plugin and the terminal summary).
//!
//! # Invariants
//! Every parser is a pure function of text: no I/O, no process, no panic on any input.

pub mod js;
pub mod junit;
pub mod report;
pub mod tap;

pub use crate::runners::cargo::report as cargo;
pub use crate::runners::go::report as gotest;
pub use crate::runners::pytest::report as pytest;

use loki_protocol::CheckKind;

use crate::reports::report::TestReport;
use crate::runners::{report_of, runner};

/// What one run's output says, and where it contradicts itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedRun {
    pub report: Option<TestReport>,
    /// Discrepancies between the output's own channels (see [`cargo::LibtestRun::anomalies`]).
    pub anomalies: Vec<String>,
    /// The exit status the runner itself reported at the end of its session (pytest's plugin).
    pub reported_exit: Option<i64>,
    /// The arguments the runner says it was started with (pytest's plugin), to compare with
    /// what was run: a wrapper between them changes what runs.
    pub started_with: Option<Vec<String>>,
}

/// Parses one run of a check of `kind`: `structured` are the report files the runner wrote, best
/// first (the first that parses wins), `log` the whole output; see [`report_for`] for the order.
/// The runner decides (`Runner::parse_run`): pytest cross-checks its plugin's report, `cargo
/// test` its libtest sections, Maven merges every class's report.
#[must_use]
pub fn parse_run(kind: CheckKind, structured: &[String], log: &str) -> ParsedRun {
    runner(kind).parse_run(structured, log)
}

/// The report for one run of a check of `kind`: the structured report (`structured`, the file the
/// runner wrote) when it parses, else the fallback parsers over the captured log, in order of trust.
#[must_use]
pub fn report_for(kind: CheckKind, structured: Option<&str>, log: &str) -> Option<TestReport> {
    report_of(runner(kind), structured, log)
}
