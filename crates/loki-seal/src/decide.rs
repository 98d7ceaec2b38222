//! The seal's decision, from facts only: findings, the test-by-test comparison with the
//! baseline, and each suite's status then and now. Pure, so every rule has a test.

use std::fmt::Write as _;

use loki_checks::integrity::Finding;
use loki_checks::{CheckResult, CheckStatus, Comparison, TestClass};

/// What the hook tells the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Stopping is fine; `message` is shown to the user.
    Allow { message: String },
    /// Keep working; `reason` becomes the agent's next instruction.
    Block { reason: String },
}

/// The facts a decision is made from.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub findings: &'a [Finding],
    pub comparison: &'a Comparison,
    /// Suite results at session start.
    pub baseline: &'a [CheckResult],
    /// Suite results now.
    pub now: &'a [CheckResult],
    /// Consecutive blocks before this stop.
    pub blocks_so_far: u32,
    pub max_blocks: u32,
}

/// Why the seal refuses, and whether the release valve opened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// One line per reason to block; empty means allow.
    pub reasons: Vec<String>,
    /// Blocked reasons exist, but `max_blocks` consecutive blocks were reached: allowed anyway,
    /// recorded NOT VERIFIED.
    pub released: bool,
}

impl Judgement {
    /// True when the agent must keep working.
    #[must_use]
    pub fn blocks(&self) -> bool {
        !self.reasons.is_empty() && !self.released
    }
}

/// Most ids listed per reason: enough to act on, short enough to read.
const MAX_IDS: usize = 10;

fn ids(list: &[String]) -> String {
    let mut s = list
        .iter()
        .take(MAX_IDS)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if list.len() > MAX_IDS {
        let _ = write!(s, " and {} more", list.len() - MAX_IDS);
    }
    s
}

/// Applies the rules in the crate doc.
#[must_use]
pub fn decide(e: &Evidence<'_>) -> Judgement {
    let mut reasons = Vec::new();
    let newly = e.comparison.ids(TestClass::NewlyFailing);
    if !newly.is_empty() {
        reasons.push(format!(
            "tests that passed at session start now fail: {}",
            ids(&newly)
        ));
    }
    let missing = e.comparison.ids(TestClass::Missing);
    if !missing.is_empty() {
        reasons.push(format!(
            "tests that ran at session start no longer run (deleted or renamed?): {}",
            ids(&missing)
        ));
    }
    let newly_skipped = e.comparison.ids(TestClass::NewlySkipped);
    if !newly_skipped.is_empty() {
        reasons.push(format!(
            "tests that ran at session start are now skipped: {}",
            ids(&newly_skipped)
        ));
    }
    for base in e.baseline.iter().filter(|b| b.result == CheckStatus::Pass) {
        match e.now.iter().find(|n| n.name == base.name) {
            None => reasons.push(format!(
                "suite {} passed at session start and is gone now",
                base.name
            )),
            Some(n) if n.result != CheckStatus::Pass => {
                let why = n
                    .reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default();
                reasons.push(format!(
                    "suite {} passed at session start and is now {}{why}",
                    n.name,
                    status_word(n.result)
                ));
            }
            Some(_) => {}
        }
    }
    for f in e.findings {
        reasons.push(format!(
            "integrity: {} {}: {}",
            f.kind.as_str(),
            f.path,
            f.detail
        ));
    }
    let released = !reasons.is_empty() && e.blocks_so_far >= e.max_blocks;
    Judgement { reasons, released }
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
    use loki_checks::integrity::FindingKind;
    use loki_checks::{CheckKind, ClassifiedTest};

    fn result(name: &str, status: CheckStatus) -> CheckResult {
        CheckResult {
            name: name.into(),
            kind: CheckKind::Cargo,
            cmd: "cargo test".into(),
            result: status,
            executed: 1,
            passed: u64::from(status == CheckStatus::Pass),
            failed: u64::from(status == CheckStatus::Fail),
            skipped: 0,
            failing_ids: vec![],
            duration_s: 0.1,
            log_sha256: String::new(),
            log_path: "x.log".into(),
            reason: None,
            exit_code: Some(0),
            attempts: 1,
            report_source: None,
            tests: vec![],
        }
    }

    fn comparison(items: &[(&str, TestClass)]) -> Comparison {
        Comparison {
            tests: items
                .iter()
                .map(|(id, class)| ClassifiedTest {
                    check: "cargo".into(),
                    id: (*id).into(),
                    class: *class,
                    base: None,
                    head: None,
                })
                .collect(),
            uncompared: vec![],
        }
    }

    fn judge(
        findings: &[Finding],
        cmp: &Comparison,
        base: &[CheckResult],
        now: &[CheckResult],
        blocks: u32,
    ) -> Judgement {
        decide(&Evidence {
            findings,
            comparison: cmp,
            baseline: base,
            now,
            blocks_so_far: blocks,
            max_blocks: 5,
        })
    }

    #[test]
    fn a_clean_stop_is_allowed() {
        let ok = [result("cargo", CheckStatus::Pass)];
        let j = judge(
            &[],
            &comparison(&[
                ("a", TestClass::Passing),
                ("b", TestClass::Fixed),
                ("c", TestClass::New),
            ]),
            &ok,
            &ok,
            0,
        );
        assert!(!j.blocks() && j.reasons.is_empty());
    }

    #[test]
    fn pre_existing_failures_do_not_block() {
        let f = [result("cargo", CheckStatus::Fail)];
        let j = judge(
            &[],
            &comparison(&[("a", TestClass::StillFailing)]),
            &f,
            &f,
            0,
        );
        assert!(!j.blocks());
    }

    #[test]
    fn each_rule_blocks_and_names_its_evidence() {
        let ok = [result("cargo", CheckStatus::Pass)];
        let cases: Vec<(Judgement, &str)> = vec![
            (
                judge(
                    &[],
                    &comparison(&[("t::adds", TestClass::NewlyFailing)]),
                    &ok,
                    &ok,
                    0,
                ),
                "now fail: t::adds",
            ),
            (
                judge(
                    &[],
                    &comparison(&[("t::gone", TestClass::Missing)]),
                    &ok,
                    &ok,
                    0,
                ),
                "no longer run (deleted or renamed?): t::gone",
            ),
            (
                judge(
                    &[],
                    &comparison(&[("t::s", TestClass::NewlySkipped)]),
                    &ok,
                    &ok,
                    0,
                ),
                "now skipped: t::s",
            ),
            (
                judge(
                    &[],
                    &comparison(&[]),
                    &ok,
                    &[result("cargo", CheckStatus::NotRun)],
                    0,
                ),
                "suite cargo passed at session start and is now not running",
            ),
            (judge(&[], &comparison(&[]), &ok, &[], 0), "is gone now"),
            (
                judge(
                    &[Finding::new(
                        FindingKind::SkipMarkerAdded,
                        "tests/a.rs",
                        "#[ignore] added",
                    )],
                    &comparison(&[]),
                    &ok,
                    &ok,
                    0,
                ),
                "integrity: skip_marker_added tests/a.rs: #[ignore] added",
            ),
        ];
        for (j, want) in cases {
            assert!(j.blocks(), "{want}");
            assert!(
                j.reasons.iter().any(|r| r.contains(want)),
                "{want}: {:?}",
                j.reasons
            );
        }
    }

    #[test]
    fn the_release_valve_opens_after_max_blocks() {
        let ok = [result("cargo", CheckStatus::Pass)];
        let cmp = comparison(&[("t", TestClass::NewlyFailing)]);
        assert!(judge(&[], &cmp, &ok, &ok, 4).blocks());
        let j = judge(&[], &cmp, &ok, &ok, 5);
        assert!(j.released && !j.blocks() && !j.reasons.is_empty());
    }

    #[test]
    fn long_id_lists_are_capped() {
        let many: Vec<String> = (0..25).map(|i| format!("t{i}")).collect();
        assert!(ids(&many).ends_with("and 15 more"));
    }
}
