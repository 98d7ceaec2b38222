//! The reruns of a newly failing test before it is blamed on the change: alone at head (a failure
//! the head's run alone does not repeat is flaky at head, fact `flaky`), and [`BASE_RERUNS`] times
//! on the base, narrowed to it (one that fails there too is flaky, fact `flaky`, and listed as not
//! proven). Only a test that fails alone at head and passes in every base rerun is a
//! `newly_failing` finding.
//!
//! The head's rerun runs in the head's directory and the base's in the base tree (the one the
//! base run used, or a new export of it), so the two run at once on their own threads; the base's
//! reruns follow each other in their tree, or are one run where the runner repeats tests itself
//! (`go test -count=2`, `pytest --loki-repeat=2`; their reports keep a test failed when any
//! repetition failed). When the head's results were given (the engine ran
//! them), there is no head rerun.

use std::collections::{BTreeMap, BTreeSet};

use loki_git::Git;

use super::matrix::{self, Fact, FactKind};
use super::trees::SideTree;
use super::{JudgeInput, in_checkout};
use loki_protocol::CheckKind;
use loki_protocol::{Finding, FindingKind};
use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions, run_check};
use loki_runner::select::Selection;

/// Reruns on the base of each newly failing test before it is blamed.
pub const BASE_RERUNS: usize = 2;

/// What the reruns need.
pub(super) struct Input<'a> {
    pub judge: &'a JudgeInput<'a>,
    pub git: &'a Git,
    pub base_tree: &'a str,
    pub kinds: &'a BTreeMap<String, CheckKind>,
    /// `(check, base id, head id)` of each newly failing test.
    pub newly_failing: &'a [(String, String, String)],
    /// The base tree the base run used, if it ran in this judgement.
    pub base_side: Option<SideTree>,
}

/// What the reruns showed.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// The reruns' results, the head's first.
    pub results: Vec<CheckResult>,
    pub facts: Vec<Fact>,
    pub findings: Vec<Finding>,
    pub not_proven: Vec<String>,
}

/// One run of the base reruns: the checks, what to select of each, and its log directory's name.
type Rerun<'a> = (&'a [Check], &'a dyn Fn(&Check) -> Selection, String);

/// `(check, id)` pairs a set of reruns found passing (at head) or failing (on the base).
type Seen = BTreeSet<(String, String)>;

/// Reruns the newly failing tests (see the module doc).
pub(super) fn rerun(input: Input<'_>) -> Result<Outcome, ChecksError> {
    let mut out = Outcome::default();
    if input.newly_failing.is_empty() {
        return Ok(out);
    }
    let Input {
        judge,
        git,
        base_tree,
        kinds,
        newly_failing,
        base_side,
    } = input;
    let (head, base) = std::thread::scope(|scope| {
        let base =
            scope.spawn(|| base_reruns(judge, git, base_tree, kinds, newly_failing, base_side));
        let head = head_reruns(judge, kinds, newly_failing);
        let base = base.join().unwrap_or_else(|_| {
            Err(ChecksError::Io {
                action: "rerun the failing tests on the base (their thread panicked) in",
                path: judge.repo_root.to_path_buf(),
                source: std::io::Error::other("thread panicked"),
            })
        });
        (head, base)
    });
    let (head_results, passed_alone) = head?;
    let (base_results, failed_on_base) = base?;
    out.results.extend(head_results);
    out.results.extend(base_results);
    for (check, base_id, head_id) in newly_failing {
        let fact = |detail: String| Fact {
            kind: FactKind::Flaky,
            check: check.clone(),
            test: head_id.clone(),
            detail,
        };
        if passed_alone.contains(&(check.clone(), head_id.clone())) {
            out.facts.push(fact(format!(
                "{head_id} failed in the head's run and passed when rerun alone: flaky at head, not a verdict"
            )));
            out.not_proven.push(format!(
                "{check}: {head_id} is flaky at head (failed once, then passed)"
            ));
        } else if failed_on_base.contains(&(check.clone(), base_id.clone())) {
            out.facts.push(fact(format!(
                "{head_id} failed at head, passed in the base run, and failed again when rerun on the base: flaky, not caused by this change"
            )));
            out.not_proven.push(format!(
                "{check}: {head_id} is flaky (it fails on the base too)"
            ));
        } else {
            out.findings.push(
                Finding::new(
                    FindingKind::NewlyFailing,
                    check,
                    format!(
                        "{head_id} passed at base (and in {BASE_RERUNS} reruns there) and fails now"
                    ),
                )
                .for_test(head_id),
            );
        }
    }
    Ok(out)
}

/// Each newly failing test rerun alone at head: the results, and the tests that passed.
fn head_reruns(
    judge: &JudgeInput<'_>,
    kinds: &BTreeMap<String, CheckKind>,
    newly_failing: &[(String, String, String)],
) -> Result<(Vec<CheckResult>, Seen), ChecksError> {
    let mut results = Vec::new();
    let mut passed = Seen::new();
    if judge.head_results.is_some() {
        return Ok((results, passed));
    }
    let ids = ids_by_check(newly_failing, |(c, _, h)| (c, h));
    let opts = RunOptions {
        rerun_failed: false,
        log_dir: judge.opts.log_dir.join("head-rerun"),
        ..judge.opts.clone()
    };
    for c in judge
        .checks
        .iter()
        .filter(|c| ids.contains_key(c.name.as_str()))
    {
        let sel = Selection::tests(ids.get(c.name.as_str()).cloned().unwrap_or_default());
        let to_run =
            loki_runner::select::narrowed(c, judge.head_root, &sel).unwrap_or_else(|| c.clone());
        let r = run_check(&to_run, &opts)?;
        let kind = super::identity::kind_of(kinds, &c.name);
        for (check, _, head_id) in newly_failing.iter().filter(|(n, _, _)| *n == c.name) {
            let probe = matrix::Runs::new(std::slice::from_ref(&r)).probe(check, kind, head_id);
            if probe == matrix::Probe::Passed {
                passed.insert((check.clone(), head_id.clone()));
            }
        }
        results.push(r);
    }
    Ok((results, passed))
}

/// The newly failing tests rerun [`BASE_RERUNS`] times on the base: the results, and the tests
/// that failed in any of them.
fn base_reruns(
    judge: &JudgeInput<'_>,
    git: &Git,
    base_tree: &str,
    kinds: &BTreeMap<String, CheckKind>,
    newly_failing: &[(String, String, String)],
    base_side: Option<SideTree>,
) -> Result<(Vec<CheckResult>, Seen), ChecksError> {
    let side = match base_side {
        Some(s) => s,
        None => SideTree::export(
            git,
            judge.repo_root,
            base_tree,
            "base",
            &in_checkout(judge),
            judge.opts,
            judge.cache_dir,
        )?,
    };
    let by_check = ids_by_check(newly_failing, |(c, b, _)| (c, b));
    let select =
        |c: &Check| Selection::tests(by_check.get(c.name.as_str()).cloned().unwrap_or_default());
    // A runner that repeats tests itself (`go test -count=N`, pytest with loki's plugin's
    // `--loki-repeat=N`) reruns them in one process: one start, build check and link instead of
    // one per rerun. Only when the selection narrows: a whole check run once is one rerun, not N.
    let (once, each): (Vec<Check>, Vec<Check>) = judge
        .checks
        .iter()
        .filter(|c| by_check.contains_key(c.name.as_str()))
        .cloned()
        .partition(|c| {
            loki_runner::select::repeats_in_one_run(c.kind)
                && loki_runner::select::narrowed(&c.at_root(&side.root), &side.root, &select(c))
                    .is_some()
        });
    let times = u32::try_from(BASE_RERUNS).unwrap_or(u32::MAX);
    let repeated = |c: &Check| select(c).repeated(times);
    let mut runs: Vec<Rerun<'_>> = Vec::new();
    if !once.is_empty() {
        runs.push((&once, &repeated, "base-rerun".to_owned()));
    }
    if !each.is_empty() {
        for n in 0..BASE_RERUNS {
            runs.push((&each, &select, format!("base-rerun-{}", n + 1)));
        }
    }
    let mut results = Vec::new();
    let mut failed = Seen::new();
    for (checks, select, log) in runs {
        let rs = side.run_selected(checks, select, judge.opts, judge.opts.log_dir.join(log))?;
        for r in &rs {
            let kind = super::identity::kind_of(kinds, &r.run.name);
            for (c, b, _) in newly_failing.iter().filter(|(c, _, _)| *c == r.run.name) {
                let probe = matrix::Runs::new(std::slice::from_ref(r)).probe(c, kind, b);
                // A binary that crashed before the test reported did not pass it either.
                if matches!(probe, matrix::Probe::Failed | matrix::Probe::Unknown) {
                    failed.insert((c.clone(), b.clone()));
                }
            }
        }
        results.extend(rs);
    }
    Ok((results, failed))
}

/// The ids `pick` takes from each newly failing test, by check.
fn ids_by_check<'a>(
    newly_failing: &'a [(String, String, String)],
    pick: impl Fn(&'a (String, String, String)) -> (&'a String, &'a String),
) -> BTreeMap<&'a str, Vec<String>> {
    newly_failing.iter().fold(BTreeMap::new(), |mut m, t| {
        let (check, id) = pick(t);
        m.entry(check.as_str()).or_default().push(id.clone());
        m
    })
}
