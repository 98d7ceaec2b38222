//! How long the seal's hooks may run: sized from how long the repository's suite takes.
//!
//! An agent kills a hook that outlives its timeout and carries on as if it had allowed the stop
//! (Claude Code's default is 600 s, Gemini's 60 s), so a timeout shorter than the judge is a
//! silent pass; the start hook runs the suite for the baseline, the stop hook runs it several
//! times (the head, the original tests on the new code and the new tests on the old code when
//! tests changed, reruns of a newly failing test alone and on the base, order checks).
//!
//! The suite's time comes from, in order:
//! 1. `--timeout SECONDS`: both hooks get it as given ([`Basis::Given`]);
//! 2. the newest session of this repository whose SessionStart recorded a baseline: what that
//!    start took ([`Basis::Session`]);
//! 3. running the detected suites once now, as a start would ([`Basis::Measured`]);
//! 4. nothing to measure (no suite detected, or it could not run): the floors ([`Basis::NoSuite`],
//!    [`Basis::Unmeasured`]).
//!
//! start = max([`START_FLOOR_S`], ⌈suite × [`START_RUNS`] × [`MARGIN`]⌉);
//! stop = max([`STOP_FLOOR_S`], ⌈suite × [`STOP_RUNS`] × [`MARGIN`]⌉). [`Budget::explain`] says
//! which basis and numbers were used.

use std::path::Path;
use std::time::Instant;

use loki_runner::{RunOptions, detect, run_check};

use crate::install::Timeouts;
use crate::state::{Origin, sessions};

/// Suite runs a start may make (the baseline, and a rerun of what failed).
pub const START_RUNS: f64 = 2.0;
/// Suite runs a stop may make (see the module doc).
pub const STOP_RUNS: f64 = 6.0;
/// Headroom for a loaded machine.
pub const MARGIN: f64 = 2.0;
/// The least a start hook gets.
pub const START_FLOOR_S: u64 = 120;
/// The least a stop hook gets (Claude Code's own default for command hooks).
pub const STOP_FLOOR_S: u64 = 600;

/// Where the suite's time came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Basis {
    /// `--timeout`: both hooks get this many seconds.
    Given { seconds: u64 },
    /// The SessionStart of session `session` took `suite_s`.
    Session { session: String, suite_s: f64 },
    /// The suites ran once now in `suite_s`.
    Measured { suite_s: f64 },
    /// No suite was detected.
    NoSuite,
    /// The suites could not be run to time them.
    Unmeasured { reason: String },
}

/// The hooks' timeouts and how they were chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    pub timeouts: Timeouts,
    pub basis: Basis,
}

impl Budget {
    /// The timeouts for a suite of `suite_s` seconds (pure).
    #[must_use]
    pub fn sized(basis: Basis) -> Budget {
        let suite_s = match &basis {
            Basis::Given { seconds } => {
                return Budget {
                    timeouts: Timeouts {
                        start_s: *seconds,
                        stop_s: *seconds,
                    },
                    basis,
                };
            }
            Basis::Session { suite_s, .. } | Basis::Measured { suite_s } => suite_s.max(0.0),
            Basis::NoSuite | Basis::Unmeasured { .. } => 0.0,
        };
        let scaled = |runs: f64, floor: u64| {
            #[expect(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "a non-negative number of seconds, far below u64::MAX"
            )]
            let s = (suite_s * runs * MARGIN).ceil() as u64;
            s.max(floor)
        };
        Budget {
            timeouts: Timeouts {
                start_s: scaled(START_RUNS, START_FLOOR_S),
                stop_s: scaled(STOP_RUNS, STOP_FLOOR_S),
            },
            basis,
        }
    }

    /// One sentence: the timeouts, and how they were chosen.
    #[must_use]
    pub fn explain(&self) -> String {
        let t = self.timeouts;
        let rule = format!(
            "start {START_RUNS}× and stop {STOP_RUNS}× the suite, ×{MARGIN} headroom, at least {START_FLOOR_S} s and {STOP_FLOOR_S} s"
        );
        let why = match &self.basis {
            Basis::Given { .. } => "as given with --timeout".to_string(),
            Basis::Session { session, suite_s } => format!(
                "the suite took {suite_s:.1} s at the start of seal session {session}; {rule}"
            ),
            Basis::Measured { suite_s } => {
                format!("the suite took {suite_s:.1} s when run once now; {rule}")
            }
            Basis::NoSuite => format!("no test suite was detected, so the floors: {rule}"),
            Basis::Unmeasured { reason } => {
                format!("the suite could not be timed ({reason}), so the floors: {rule}")
            }
        };
        format!(
            "hook timeouts: start {} s, stop {} s ({why})",
            t.start_s, t.stop_s
        )
    }
}

/// The suite's time for `repo_root` (see the module doc), `home` being loki's home, `run` how
/// suites run. Runs the suites when no session of this repository recorded one.
#[must_use]
pub fn measure(repo_root: &Path, home: &Path, run: &RunOptions) -> Budget {
    if let Some(basis) = from_sessions(repo_root, home) {
        return Budget::sized(basis);
    }
    let checks = match detect(repo_root) {
        Ok(c) if c.is_empty() => return Budget::sized(Basis::NoSuite),
        Ok(c) => c,
        Err(e) => {
            return Budget::sized(Basis::Unmeasured {
                reason: e.to_string(),
            });
        }
    };
    let clock = Instant::now();
    for c in &checks {
        if let Err(e) = run_check(c, run) {
            return Budget::sized(Basis::Unmeasured {
                reason: e.to_string(),
            });
        }
    }
    Budget::sized(Basis::Measured {
        suite_s: clock.elapsed().as_secs_f64(),
    })
}

/// The newest recorded SessionStart baseline of `repo_root`.
fn from_sessions(repo_root: &Path, home: &Path) -> Option<Basis> {
    let root = std::fs::canonicalize(repo_root).unwrap_or_else(|_| repo_root.to_path_buf());
    sessions(home)
        .ok()?
        .into_iter()
        .filter_map(Result::ok)
        .filter(|s| {
            s.origin == Origin::SessionStart
                && s.baseline_s > 0.0
                && (s.repo_root == root || s.repo_root == repo_root)
        })
        .max_by(|a, b| a.started_at.cmp(&b.started_at))
        .map(|s| Basis::Session {
            session: s.session,
            suite_s: s.baseline_s,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_grow_with_the_suite_above_the_floors() {
        let small = Budget::sized(Basis::Measured { suite_s: 1.2 });
        assert_eq!(
            small.timeouts,
            Timeouts {
                start_s: START_FLOOR_S,
                stop_s: STOP_FLOOR_S
            }
        );
        let big = Budget::sized(Basis::Session {
            session: "s1".into(),
            suite_s: 100.0,
        });
        assert_eq!(
            big.timeouts,
            Timeouts {
                start_s: 400,
                stop_s: 1200
            }
        );
        assert_eq!(
            big.explain(),
            "hook timeouts: start 400 s, stop 1200 s (the suite took 100.0 s at the start of seal session s1; start 2× and stop 6× the suite, ×2 headroom, at least 120 s and 600 s)"
        );
        let given = Budget::sized(Basis::Given { seconds: 45 });
        assert_eq!(
            given.timeouts,
            Timeouts {
                start_s: 45,
                stop_s: 45
            }
        );
        assert!(given.explain().contains("as given with --timeout"));
        assert!(
            Budget::sized(Basis::NoSuite)
                .explain()
                .contains("no test suite was detected")
        );
    }
}
