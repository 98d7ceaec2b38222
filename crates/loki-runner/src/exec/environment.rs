//! Failures of the machine, not of the code: a check whose toolchain could not be found or could
//! not write its temporary files did not run, whatever the runner's exit code says.
//!
//! # What is recognised ([`recognise`])
//! Only the toolchain's own messages, for the check kinds whose toolchain prints them (each
//! runner's `Runner::environment`):
//! - cargo and nextest (`crate::runners::cargo::toolchain_failure`): rustup found no
//!   toolchain; rustc or the linker could not create or write temporary files; no linker at all.
//!
//! # Invariants
//! - A recognised failure is `not_run`, never `pass`: it can keep a run from VERIFIED, never
//!   bring it there. Output the code under test writes can at worst turn its own `fail` into
//!   `not_run`, which proves nothing either.
//! - A report that names a real failing test is the code's failure: only a run whose failures
//!   are all targets that did not compile (or that reported nothing) is the environment's.
//! - Each [`Environment`] names the tool, the problem and what to do, for the person reading.

use serde::{Deserialize, Serialize};

use crate::reports::report::TestReport;
use crate::runners::runner;
use loki_protocol::CheckKind;

/// Why a check could not run on this machine: the tool, what went wrong, what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// The program that failed (`rustup`, `the linker (cc)`).
    pub tool: String,
    pub problem: String,
    /// What the user can do about it.
    pub fix: String,
}

impl std::fmt::Display for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}; {}", self.tool, self.problem, self.fix)
    }
}

impl Environment {
    pub(crate) fn new(tool: &str, problem: &str, fix: &str) -> Environment {
        Environment {
            tool: tool.to_string(),
            problem: problem.to_string(),
            fix: fix.to_string(),
        }
    }
}

/// The environment failure `log` shows for a check of `kind` whose report is `report`, if any
/// (see the module doc).
#[must_use]
pub fn recognise(kind: CheckKind, log: &str, report: Option<&TestReport>) -> Option<Environment> {
    runner(kind).environment(log, report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reports::cargo::NOT_COMPILED;
    use crate::reports::report::TestCase;
    use crate::reports::report::TestStatus;

    const RUSTUP: &str = "error: rustup could not choose a version of cargo to run, because one wasn't specified explicitly, and no default is configured.\nhelp: run 'rustup default stable' to download the latest stable release of Rust and set it as your default toolchain.\n";

    #[test]
    fn a_missing_toolchain_or_an_unwritable_temp_dir_is_the_environment() {
        let e = recognise(CheckKind::Cargo, RUSTUP, None).unwrap();
        assert_eq!(e.tool, "rustup");
        let link = "error: linking with `cc` failed: exit status: 1\n  = note: /usr/bin/ld: cannot open output file /tmp/x/deps/t-123: Permission denied\n";
        let not_compiled = TestReport {
            failed: 1,
            tests: vec![TestCase {
                id: format!("calc::t{NOT_COMPILED}"),
                status: TestStatus::Failed,
            }],
            ..TestReport::default()
        };
        let e = recognise(CheckKind::Cargo, link, Some(&not_compiled)).unwrap();
        assert_eq!(e.tool, "the compiler or linker");
        // Another runner's output, or a real failing test: not the environment.
        assert_eq!(recognise(CheckKind::Pytest, RUSTUP, None), None);
        let real = TestReport {
            failed: 1,
            tests: vec![TestCase {
                id: "calc::tests::adds".into(),
                status: TestStatus::Failed,
            }],
            ..TestReport::default()
        };
        assert_eq!(recognise(CheckKind::Cargo, link, Some(&real)), None);
        assert_eq!(
            recognise(CheckKind::Cargo, "error[E0425]: cannot find value", None),
            None
        );
    }
}
