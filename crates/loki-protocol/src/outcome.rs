//! Outcomes, verify verdicts and exit codes: user-visible contracts, pinned by golden tests.
//!
//! Run outcome → exit code: `VERIFIED` 0, `ALREADY_SATISFIED` 0, `FAILED` 1, `PARTIAL` 1, usage or
//! preflight refusal 2, `BUDGET_STOP` 3, `BLOCKED` 4, `STALLED` 5, SIGINT 130, SIGTERM 143. A higher
//! code is never better news. A run ended by a failed model call (auth, unreachable, timeout, bad
//! response, context length, rate limit, server error, refused request) is FAILED with exit 2
//! ([`PROVIDER_FAILURE`]): like a refused preflight, the setup must change before the task can be
//! tried, and the `Reason:` line says what (`model: authentication failed (HTTP 401 from ...)`).
//!
//! The outcome of a run is decided by [`decide`] from facts alone, by rules in this order:
//! tampered → FAILED; interrupted by a signal → INTERRUPTED; VERIFIED / ALREADY_SATISFIED stand; cap or budget hit → BUDGET_STOP; spec
//! conflict → BLOCKED; same failure signature 3 times → STALLED; some progress proven → PARTIAL;
//! else FAILED. Model assessments can only lower a verdict; they never appear as an input here
//! that could raise one.
//!
//! `loki verify` verdicts → exit code: VERIFIED 0, TAMPERED 1, UNCHECKED 2, UNSIGNED (refused) 3,
//! intact receipt whose run outcome is not VERIFIED/ALREADY_SATISFIED 4, no runs found 66.
//!
//! The judge's [`Verdict`] on a change (`loki seal check`, every stop of `loki seal`, a build's
//! verify stage) → exit code: CLEAN 0, FINDINGS 1, CANNOT JUDGE 3, DECLARE 4. When several hold,
//! the first of FINDINGS, DECLARE, CANNOT JUDGE wins ([`Verdict::of`]): a cheat found is worth
//! more than a question left open, and an expectation change must be declared even where some
//! other question stays open, or the open question would let it through unnamed.

use std::fmt;

use serde::{Deserialize, Serialize};

/// How a run ended, as printed on the `Outcome:` line and recorded in the receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Outcome {
    Verified,
    AlreadySatisfied,
    Failed,
    Partial,
    BudgetStop,
    Blocked,
    Stalled,
    /// A signal (Ctrl-C, SIGTERM) stopped the run before it finished: the receipt records the
    /// stages that completed and claims nothing (no check, integrity or contract result) derived
    /// from the half-done state.
    Interrupted,
}

impl Outcome {
    /// Every outcome, in the order of the exit-code table.
    pub const ALL: [Outcome; 8] = [
        Outcome::Verified,
        Outcome::AlreadySatisfied,
        Outcome::Failed,
        Outcome::Partial,
        Outcome::BudgetStop,
        Outcome::Blocked,
        Outcome::Stalled,
        Outcome::Interrupted,
    ];

    /// The process exit code for this outcome.
    #[must_use]
    pub fn exit_code(self) -> ExitCode {
        match self {
            Outcome::Verified | Outcome::AlreadySatisfied => ExitCode::Success,
            Outcome::Failed | Outcome::Partial => ExitCode::Failure,
            Outcome::BudgetStop => ExitCode::BudgetStop,
            Outcome::Blocked => ExitCode::Blocked,
            Outcome::Stalled => ExitCode::Stalled,
            // SIGTERM's 143 is the signal handler's: the receipt does not record which signal.
            Outcome::Interrupted => ExitCode::Interrupted,
        }
    }

    /// The name as printed (`ALREADY_SATISFIED`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Verified => "VERIFIED",
            Outcome::AlreadySatisfied => "ALREADY_SATISFIED",
            Outcome::Failed => "FAILED",
            Outcome::Partial => "PARTIAL",
            Outcome::BudgetStop => "BUDGET_STOP",
            Outcome::Blocked => "BLOCKED",
            Outcome::Stalled => "STALLED",
            Outcome::Interrupted => "INTERRUPTED",
        }
    }

    /// True for the two outcomes that mean "the task is done and proven".
    #[must_use]
    pub fn is_success(self) -> bool {
        matches!(self, Outcome::Verified | Outcome::AlreadySatisfied)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every exit code loki uses. The binary maps errors and outcomes to these in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitCode {
    Success,
    Failure,
    /// Bad usage, bad input or a refused preflight (dirty tree, not a repo, unknown command).
    Usage,
    BudgetStop,
    Blocked,
    Stalled,
    /// `loki verify` found no runs to check (sysexits `EX_NOINPUT`).
    NoInput,
    /// `loki seal check` could not judge the change (a suite could not run or ran nothing): 3,
    /// never 0.
    CannotJudge,
    /// `loki seal check`: the change alters what existing tests expect, and no declaration says
    /// it was asked for (4, the code a build run's BLOCKED has: someone must answer).
    Declare,
    Interrupted,
    Terminated,
}

impl ExitCode {
    /// The numeric process exit status.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            ExitCode::Success => 0,
            ExitCode::Failure => 1,
            ExitCode::Usage => 2,
            // `seal check`'s "cannot judge" shares 3 with a build's budget stop: neither is a pass.
            ExitCode::BudgetStop | ExitCode::CannotJudge => 3,
            ExitCode::Blocked | ExitCode::Declare => 4,
            ExitCode::Stalled => 5,
            ExitCode::NoInput => 66,
            ExitCode::Interrupted => 130,
            ExitCode::Terminated => 143,
        }
    }

    /// The exit code whose number is `code`, as a run reports it ([`ExitCode::code`] read
    /// back): 3 is a build's `BudgetStop`, and a number loki never uses is `Failure`.
    #[must_use]
    pub fn from_code(code: u8) -> ExitCode {
        [
            ExitCode::Success,
            ExitCode::Failure,
            ExitCode::Usage,
            ExitCode::BudgetStop,
            ExitCode::Blocked,
            ExitCode::Stalled,
            ExitCode::NoInput,
            ExitCode::Interrupted,
            ExitCode::Terminated,
        ]
        .into_iter()
        .find(|c| c.code() == code)
        .unwrap_or(ExitCode::Failure)
    }
}

/// The exit code of a run that a failed model call ended (its outcome is FAILED): the usage or
/// preflight code, because a key, a URL, a server or the model must change first.
pub const PROVIDER_FAILURE: ExitCode = ExitCode::Usage;

/// The deterministic facts an outcome is decided from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutcomeFacts {
    /// The event log, wall or receipt was changed by someone other than loki.
    pub tampered: bool,
    /// Every requirement for VERIFIED holds (non-empty diff, every check passed with executed > 0,
    /// no integrity finding, no reverted wall edit, nothing unproven the verdict depends on).
    pub verified: bool,
    /// The sealed acceptance checks passed on the unchanged base.
    pub already_satisfied: bool,
    /// The run cap or the cost budget was reached.
    pub budget_hit: bool,
    /// The agent reported a conflict in the specification it could not resolve.
    pub spec_conflict: bool,
    /// The same failure signature was seen three times.
    pub stalled: bool,
    /// Some checks passed and the diff is non-empty, but not everything was proven.
    pub partial: bool,
    /// A signal stopped the run before it finished.
    pub interrupted: bool,
}

/// Applies the outcome rules in order. See the module doc.
#[must_use]
pub fn decide(f: OutcomeFacts) -> Outcome {
    if f.tampered {
        Outcome::Failed
    } else if f.interrupted {
        // Nothing half-done is vouched for, not even a verification that completed before.
        Outcome::Interrupted
    } else if f.verified {
        Outcome::Verified
    } else if f.already_satisfied {
        Outcome::AlreadySatisfied
    } else if f.budget_hit {
        Outcome::BudgetStop
    } else if f.spec_conflict {
        Outcome::Blocked
    } else if f.stalled {
        Outcome::Stalled
    } else if f.partial {
        Outcome::Partial
    } else {
        Outcome::Failed
    }
}

/// The judge's verdict on a change: one vocabulary for `loki seal check`, the stop hook's
/// answers, the event log, the receipt and `--json`. Serialised `clean`, `declare`, `findings`,
/// `cannot_judge`; printed `CLEAN`, `DECLARE`, `FINDINGS`, `CANNOT JUDGE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Nothing found and every question settled.
    Clean,
    /// The change alters what existing tests expect, or removes tests with the code they test:
    /// intent cannot be read from a tree, so it must be declared.
    Declare,
    /// The change games the tests.
    Findings,
    /// An integrity question stayed open (a form that could not run, a suite that could not
    /// start or ran nothing, no suite at all): never reported as clean.
    CannotJudge,
}

impl Verdict {
    /// Every verdict, in the order of the exit-code table.
    pub const ALL: [Verdict; 4] = [
        Verdict::Clean,
        Verdict::Findings,
        Verdict::CannotJudge,
        Verdict::Declare,
    ];

    /// The verdict of a judgement with `findings` findings, `undeclared` expectation changes
    /// nobody declared and `open` questions it could not settle (see the module doc's order).
    #[must_use]
    pub fn of(findings: usize, undeclared: usize, open: usize) -> Verdict {
        if findings > 0 {
            Verdict::Findings
        } else if undeclared > 0 {
            Verdict::Declare
        } else if open > 0 {
            Verdict::CannotJudge
        } else {
            Verdict::Clean
        }
    }

    /// The exit code of `loki seal check` for this verdict.
    #[must_use]
    pub fn exit_code(self) -> ExitCode {
        match self {
            Verdict::Clean => ExitCode::Success,
            Verdict::Findings => ExitCode::Failure,
            Verdict::CannotJudge => ExitCode::CannotJudge,
            Verdict::Declare => ExitCode::Declare,
        }
    }

    /// The name as printed (`CANNOT JUDGE`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Clean => "CLEAN",
            Verdict::Declare => "DECLARE",
            Verdict::Findings => "FINDINGS",
            Verdict::CannotJudge => "CANNOT JUDGE",
        }
    }

    /// The serialised name (`cannot_judge`), as `--json` and the receipt carry it.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Declare => "declare",
            Verdict::Findings => "findings",
            Verdict::CannotJudge => "cannot_judge",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `loki verify` concluded about a receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum VerifyVerdict {
    /// Intact, signed by a trusted key, and the run's outcome is a success.
    Verified,
    /// The receipt, its signature or the event log it binds was changed.
    Tampered,
    /// Could not be checked: unknown key, unreadable input, bad `--pubkey`.
    Unchecked,
    /// No signature, and `--allow-unsigned` was not given.
    Unsigned,
    /// Intact and authentic, but the run's outcome is not VERIFIED or ALREADY_SATISFIED.
    NotVerified,
    /// There was no run to verify.
    NoRuns,
}

impl VerifyVerdict {
    /// Every verdict, in the order of the exit-code table.
    pub const ALL: [VerifyVerdict; 6] = [
        VerifyVerdict::Verified,
        VerifyVerdict::Tampered,
        VerifyVerdict::Unchecked,
        VerifyVerdict::Unsigned,
        VerifyVerdict::NotVerified,
        VerifyVerdict::NoRuns,
    ];

    /// The `loki verify` exit status.
    #[must_use]
    pub fn exit_status(self) -> u8 {
        match self {
            VerifyVerdict::Verified => 0,
            VerifyVerdict::Tampered => 1,
            VerifyVerdict::Unchecked => 2,
            VerifyVerdict::Unsigned => 3,
            VerifyVerdict::NotVerified => 4,
            VerifyVerdict::NoRuns => 66,
        }
    }

    /// The name as printed.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyVerdict::Verified => "VERIFIED",
            VerifyVerdict::Tampered => "TAMPERED",
            VerifyVerdict::Unchecked => "UNCHECKED",
            VerifyVerdict::Unsigned => "UNSIGNED",
            VerifyVerdict::NotVerified => "NOT_VERIFIED",
            VerifyVerdict::NoRuns => "NO_RUNS",
        }
    }
}

impl fmt::Display for VerifyVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exit_status_reads_back_as_its_exit_code() {
        for c in [0u8, 1, 2, 3, 4, 5, 66, 130, 143] {
            assert_eq!(ExitCode::from_code(c).code(), c);
        }
        assert_eq!(ExitCode::from_code(3), ExitCode::BudgetStop);
        assert_eq!(ExitCode::from_code(77), ExitCode::Failure);
    }
    use std::fmt::Write as _;

    #[test]
    fn outcome_exit_table_is_pinned() {
        let mut table = String::new();
        for o in Outcome::ALL {
            let json = serde_json::to_string(&o).unwrap();
            writeln!(
                table,
                "{:<18} {:>3}  {json}",
                o.as_str(),
                o.exit_code().code()
            )
            .unwrap();
        }
        for (name, c) in [
            ("usage", ExitCode::Usage),
            ("model failure", PROVIDER_FAILURE),
            ("no input", ExitCode::NoInput),
            ("cannot judge", ExitCode::CannotJudge),
            ("SIGINT", ExitCode::Interrupted),
            ("SIGTERM", ExitCode::Terminated),
        ] {
            writeln!(table, "{name:<18} {:>3}", c.code()).unwrap();
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn judge_verdict_table_is_pinned() {
        let mut table = String::new();
        for v in Verdict::ALL {
            let json = serde_json::to_string(&v).unwrap();
            writeln!(
                table,
                "{:<13} {:>3}  {json}",
                v.as_str(),
                v.exit_code().code()
            )
            .unwrap();
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn findings_win_then_declare_then_open_questions() {
        assert_eq!(Verdict::of(0, 0, 0), Verdict::Clean);
        assert_eq!(Verdict::of(1, 1, 1), Verdict::Findings);
        assert_eq!(Verdict::of(0, 1, 1), Verdict::Declare);
        assert_eq!(Verdict::of(0, 0, 1), Verdict::CannotJudge);
        // An open question never reads as clean, and an undeclared change is never hidden by one.
        assert_ne!(Verdict::of(0, 0, 1), Verdict::Clean);
    }

    #[test]
    fn verify_exit_table_is_pinned() {
        let mut table = String::new();
        for v in VerifyVerdict::ALL {
            writeln!(table, "{:<13} {:>3}", v.as_str(), v.exit_status()).unwrap();
        }
        insta::assert_snapshot!(table);
    }

    #[test]
    fn every_rule_row_in_order() {
        let base = OutcomeFacts::default();
        let all = OutcomeFacts {
            tampered: true,
            verified: true,
            already_satisfied: true,
            budget_hit: true,
            spec_conflict: true,
            stalled: true,
            partial: true,
            interrupted: true,
        };
        // Each row: switch off the rules above it; the first remaining true one decides.
        let rows = [
            (all, Outcome::Failed),
            (
                OutcomeFacts {
                    tampered: false,
                    ..all
                },
                Outcome::Interrupted,
            ),
            (
                OutcomeFacts {
                    tampered: false,
                    interrupted: false,
                    ..all
                },
                Outcome::Verified,
            ),
            (
                OutcomeFacts {
                    tampered: false,
                    interrupted: false,
                    verified: false,
                    ..all
                },
                Outcome::AlreadySatisfied,
            ),
            (
                OutcomeFacts {
                    budget_hit: true,
                    spec_conflict: true,
                    stalled: true,
                    partial: true,
                    ..base
                },
                Outcome::BudgetStop,
            ),
            (
                OutcomeFacts {
                    spec_conflict: true,
                    stalled: true,
                    partial: true,
                    ..base
                },
                Outcome::Blocked,
            ),
            (
                OutcomeFacts {
                    stalled: true,
                    partial: true,
                    ..base
                },
                Outcome::Stalled,
            ),
            (
                OutcomeFacts {
                    partial: true,
                    ..base
                },
                Outcome::Partial,
            ),
            (
                OutcomeFacts {
                    interrupted: true,
                    verified: true,
                    partial: true,
                    ..base
                },
                Outcome::Interrupted,
            ),
            (
                OutcomeFacts {
                    interrupted: true,
                    tampered: true,
                    ..base
                },
                Outcome::Failed,
            ),
            (base, Outcome::Failed),
        ];
        for (facts, want) in rows {
            assert_eq!(decide(facts), want, "{facts:?}");
        }
    }

    #[test]
    fn a_higher_code_is_never_better_news() {
        // Successes are 0, every failure is non-zero.
        for o in Outcome::ALL {
            assert_eq!(o.is_success(), o.exit_code().code() == 0, "{o}");
        }
    }
}
