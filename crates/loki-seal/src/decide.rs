//! The seal's decision, from the judge's facts only ([`loki_checks::judge`]): every finding blocks,
//! with its class, test or file and line, evidence and what to do instead, and so does every
//! change whose intent nobody declared ([`crate::declare`]). A change that cannot be
//! judged (a suite that could not run at session start either) is never accepted as verified, but
//! does not trap the agent: the stop is allowed and recorded NOT VERIFIED with what to install. Pure,
//! so every rule has a test.

use std::fmt::Write as _;

use loki_checks::judge::{Declarable, Judged};
use loki_protocol::CheckStatus;

/// What the hook tells the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Stopping is fine; `message` is shown to the user.
    Allow { message: String },
    /// Keep working; `reason` becomes the agent's next instruction.
    Block { reason: String },
    /// The release valve: the stop goes through although the change was refused `max_blocks`
    /// times in a row. `message` must reach the person (not only the model), and where the agent
    /// can say so, the turn is marked as not successful.
    Release { message: String },
}

/// The facts a decision is made from.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub judged: &'a Judged,
    /// Changes nobody declared ([`crate::declare::apply`]): they block like findings.
    pub undeclared: &'a [Declarable],
    /// Consecutive blocks before this stop.
    pub blocks_so_far: u32,
    pub max_blocks: u32,
}

/// Why the seal refuses, and whether the release valve opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// One line per finding; with `undeclared`, the reasons to block.
    pub reasons: Vec<String>,
    /// One line per change whose intent nobody declared.
    pub undeclared: Vec<String>,
    /// Suites that could not be judged, each with what to do; never "clean".
    pub cannot_judge: Vec<String>,
    /// Blocked reasons exist, but `max_blocks` consecutive blocks were reached: allowed anyway,
    /// recorded NOT VERIFIED.
    pub released: bool,
}

impl Judgement {
    /// True when the agent must keep working.
    #[must_use]
    pub fn blocks(&self) -> bool {
        self.refused() && !self.released
    }

    /// Findings or undeclared changes: what refuses a stop until the valve opens.
    #[must_use]
    pub fn refused(&self) -> bool {
        !self.reasons.is_empty() || !self.undeclared.is_empty()
    }

    /// Nothing found, nothing to declare and everything judged.
    #[must_use]
    pub fn clean(&self) -> bool {
        !self.refused() && self.cannot_judge.is_empty()
    }

    /// Every unresolved reason, findings first.
    #[must_use]
    pub fn unresolved(&self) -> Vec<String> {
        self.reasons
            .iter()
            .chain(&self.undeclared)
            .cloned()
            .collect()
    }
}

/// Applies the rules in the module doc.
#[must_use]
pub fn decide(e: &Evidence<'_>) -> Judgement {
    let reasons: Vec<String> = e
        .judged
        .findings
        .iter()
        .map(|f| format!("{} — {}", f.describe(), f.advice()))
        .collect();
    let cannot_judge = e
        .judged
        .cannot_judge
        .iter()
        .map(|c| format!("{}: {} — {}", c.check, c.reason, c.fix))
        .collect();
    let undeclared: Vec<String> = e
        .undeclared
        .iter()
        .map(|d| format!("{} {}: {}", d.kind.as_str(), d.test, d.detail))
        .collect();
    let released =
        (!reasons.is_empty() || !undeclared.is_empty()) && e.blocks_so_far >= e.max_blocks;
    Judgement {
        reasons,
        undeclared,
        cannot_judge,
        released,
    }
}

/// The word for a suite status in messages.
#[must_use]
pub fn status_word(s: CheckStatus) -> &'static str {
    match s {
        CheckStatus::Pass => "passing",
        CheckStatus::Fail => "failing",
        CheckStatus::NotRun => "not running",
        CheckStatus::Flaky => "flaky",
        CheckStatus::Timeout => "timing out",
        CheckStatus::Unparseable => "unparseable",
    }
}

/// The block message: what is wrong, the instruction, and the tail of the failing output.
#[must_use]
pub fn block_message(j: &Judgement, tails: &[(String, String)]) -> String {
    let mut s = String::from(
        "loki seal: not done. Fix the code, not the tests: do not delete, skip or weaken tests, and do not edit test configuration or CI to make them pass.\n",
    );
    for r in &j.reasons {
        let _ = writeln!(s, "- {r}");
    }
    let _ = writeln!(s, "{}", crate::declare::HONEST_WAY_OUT);
    for (name, tail) in tails {
        let tail = tail.trim();
        if !tail.is_empty() {
            let _ = writeln!(s, "\nEnd of {name}'s output:\n{tail}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_checks::judge::CannotJudge;
    use loki_protocol::{Finding, FindingKind};

    fn judged(findings: Vec<Finding>, cannot: Vec<CannotJudge>) -> Judged {
        Judged {
            findings,
            cannot_judge: cannot,
            ..Judged::default()
        }
    }

    fn run(j: &Judged, blocks: u32) -> Judgement {
        decide(&Evidence {
            judged: j,
            undeclared: &[],
            blocks_so_far: blocks,
            max_blocks: 5,
        })
    }

    #[test]
    fn a_clean_stop_is_allowed() {
        let j = run(&judged(vec![], vec![]), 0);
        assert!(!j.blocks() && j.clean());
    }

    #[test]
    fn every_finding_blocks_with_its_class_test_line_evidence_and_advice() {
        let f = Finding::new(
            FindingKind::WeakenedTest,
            "tests/test_a.py",
            "its original fails on the new code",
        )
        .at_line(7)
        .for_test("tests/test_a.py::test_total");
        let j = run(&judged(vec![f], vec![]), 0);
        assert!(j.blocks());
        assert_eq!(
            j.reasons,
            [
                "weakened_test tests/test_a.py:7 (tests/test_a.py::test_total): its original fails on the new code — restore the test's original expectations and fix the code until they hold"
            ]
        );
    }

    #[test]
    fn cannot_judge_is_never_clean_but_does_not_block() {
        let c = CannotJudge {
            check: "vitest".into(),
            reason: "head: pnpm not found".into(),
            fix: "install pnpm".into(),
        };
        let j = run(&judged(vec![], vec![c]), 0);
        assert!(!j.blocks() && !j.clean());
        assert_eq!(
            j.cannot_judge,
            ["vitest: head: pnpm not found — install pnpm"]
        );
    }

    #[test]
    fn the_release_valve_opens_after_max_blocks() {
        let f = Finding::new(FindingKind::NewlyFailing, "cargo", "t fails").for_test("t");
        let j = judged(vec![f], vec![]);
        assert!(run(&j, 4).blocks());
        let r = run(&j, 5);
        assert!(r.released && !r.blocks() && !r.reasons.is_empty());
    }

    #[test]
    fn statuses_have_words() {
        assert_eq!(status_word(CheckStatus::NotRun), "not running");
    }
}
