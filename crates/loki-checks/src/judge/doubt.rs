//! Helpers in doubt: a changed file that existed at base and that [`super::helpers`] calls a test
//! helper is judged both ways.
//!
//! Whether a file outside the test files is a helper is read from its text (what it imports,
//! what its functions are called, what its name says). Either answer, wrong, hides something:
//! - a helper judged as code: the original tests run with the new helper, so a helper edited to
//!   pass everything passes off its own weakening;
//! - code judged as a helper: the original tests run with the base's version of it, so a
//!   regression in it, hidden by a loosened test, is never run against the original tests. A
//!   library module that only the tests import and that has a `check_range` or a `verifyInput`
//!   reads as a helper.
//!
//! So the judge's O and N treat such a file as a helper (the base's form goes with the original
//! tests), and this module runs O and N once more with the file as code: the original tests on
//! the head's form of the file. A finding of either pass stands. The second pass runs only when
//! the change also modified or deleted test-owned files; otherwise its O is the head's run.
//!
//! Its runs log under `as-code/` of the judge's log directory, so the first pass's logs stay.

use std::collections::{BTreeMap, BTreeSet};

use loki_git::Git;

use super::matrix::{self, Runs};
use super::owned::Owner;
use super::trees::Owned;
use super::{JudgeInput, Judged, original};
use loki_protocol::CheckKind;
use loki_protocol::Finding;
use loki_runner::ChecksError;
use loki_runner::exec::RunOptions;

/// What the second pass needs from the first.
pub(super) struct Input<'a> {
    pub judge: &'a JudgeInput<'a>,
    pub git: &'a Git,
    pub base_tree: &'a str,
    pub kinds: &'a BTreeMap<String, CheckKind>,
    /// The classified changes, helpers in doubt among the test code.
    pub owned: &'a [Owned],
    /// The paths of the helpers in doubt.
    pub doubted: &'a [String],
    /// The tests the first pass's N ran (check, head id).
    pub first: &'a [(String, String)],
}

/// `owned` with the `doubted` helpers given back to the code.
pub(super) fn as_code(owned: &[Owned], doubted: &[String]) -> Vec<Owned> {
    owned
        .iter()
        .map(|o| {
            let mut o = o.clone();
            if o.owner == Owner::TestCode && doubted.contains(&o.change.path) {
                o.owner = Owner::Source;
            }
            o
        })
        .collect()
}

/// Runs O, and N where O asks for it, with the helpers in doubt as code, and adds to `out` what
/// they find that the first pass did not.
pub(super) fn judge_as_code(input: &Input<'_>, out: &mut Judged) -> Result<(), ChecksError> {
    let owned = as_code(input.owned, input.doubted);
    let opts = RunOptions {
        log_dir: input.judge.opts.log_dir.join("as-code"),
        ..input.judge.opts.clone()
    };
    let judge = JudgeInput {
        opts: &opts,
        ..*input.judge
    };
    let plan = original::plan(&judge, input.git, &owned)?;
    if plan.base_side_changed.is_empty() {
        return Ok(());
    }
    let ran = plan.run(&judge, input.git, input.base_tree)?;
    out.not_proven.extend(ran.notes);
    let decision = matrix::decide(&matrix::Input {
        kinds: input.kinds,
        base: &out.base,
        head: &out.head,
        original: Runs::new(&ran.results),
        new_on_base: Runs::new(&[]),
        in_original: &plan.in_original,
    });
    merge(&mut out.findings, decision.findings);
    out.facts.extend(decision.facts);
    out.cannot_judge
        .extend(decision.open.into_iter().map(|(_, cj)| cj));
    out.original.extend(ran.results);
    let suspects: Vec<(String, String)> = decision
        .needs_new_on_base
        .into_iter()
        .filter(|s| !input.first.contains(s))
        .collect();
    if suspects.is_empty() {
        return Ok(());
    }
    let ran = plan.run_new(&judge, input.git, input.base_tree, &suspects)?;
    out.not_proven.extend(ran.notes);
    let nb = matrix::decide_new_on_base(input.kinds, &suspects, &Runs::new(&ran.results));
    merge(&mut out.findings, nb.findings);
    out.declare.extend(nb.declare);
    out.cannot_judge.extend(nb.open);
    out.new_on_base.extend(ran.results);
    Ok(())
}

/// Adds the findings of `more` that say something new: one whose kind, place and test a finding
/// already has is the same finding, seen from the other side.
fn merge(findings: &mut Vec<Finding>, more: Vec<Finding>) {
    let known: BTreeSet<(String, String, Option<String>)> = findings.iter().map(key).collect();
    findings.extend(more.into_iter().filter(|f| !known.contains(&key(f))));
}

fn key(f: &Finding) -> (String, String, Option<String>) {
    (format!("{:?}", f.kind), f.path.clone(), f.test.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_protocol::FindingKind;

    #[test]
    fn a_finding_seen_from_both_sides_is_kept_once() {
        let deleted =
            |detail: &str| Finding::new(FindingKind::TestDeleted, "tests", detail).for_test("t::a");
        let mut findings = vec![deleted("t::a ran at base and no longer runs")];
        merge(
            &mut findings,
            vec![
                deleted("t::a was removed, and its original form fails on the new code"),
                Finding::new(FindingKind::WeakenedTest, "tests", "t::b").for_test("t::b"),
            ],
        );
        assert_eq!(findings.len(), 2);
        assert_eq!(findings[0].detail, "t::a ran at base and no longer runs");
        assert_eq!(findings[1].kind, FindingKind::WeakenedTest);
    }
}
