//! The phases of one judgement that gather its evidence, in the order [`super::judge_runs`] runs
//! them; [`super::settle`] folds what they gather into the verdict. Each phase takes the
//! [`Ctx`] every phase reads, what earlier phases gave it, and the [`Judged`] it adds to; the
//! order of the phases, their events (one `judge phase done` per phase that did something) and
//! their additions to [`Judged`] are the judgement's (the module doc of [`super`]).
//!
//! - [`Ctx::new`]: the input → the git handle, the base as a tree, each check's kind, the clock.
//! - [`changed`]: the change, read once → [`Changed`]: git's list of changed files and the head
//!   tree's listing (for the static rules), every changed file not excluded with its owner, and
//!   the helpers in doubt.
//! - [`super::original::plan`] (not here): the classified change → the plan of O.
//! - [`run_suites`]: the plan of O → H, B and O into [`Judged::head`], [`Judged::base`],
//!   [`Judged::original`] and [`Judged::comparison`]; gives the base tree B ran in, kept for the
//!   reruns.
//! - [`static_rules`]: the change list, the listing and the owners → the static findings.
//! - [`Ctx::sides`]: the changed test data → the two sides that identity, restructuring and
//!   declarations read.
//! - [`decide`]: the three runs, the plan and the sides → the matrix's findings, facts, open
//!   questions and pre-existing failures, identity and restructuring applied, claims about
//!   unedited tests dropped; gives [`Decided`]: the tests N must run, the tests to rerun.
//! - [`new_on_base`]: the tests N must run → N's results, findings, declarations and questions.
//! - [`helpers_in_doubt`]: the helpers in doubt → O and N once more with them as code.
//! - [`reruns()`]: the newly failing tests and the base tree → the reruns' results, the flaky
//!   facts, the findings that stand.
//! - [`order_checks`]: the newly passing tests → the order and repetition checks.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use loki_git::{Git, RawChange};
use loki_protocol::CheckKind;

use super::original::{self, Plan};
use super::owned::{Owner, owner};
use super::trees::{Owned, SideTree};
use super::{
    BaseRun, JudgeInput, Judged, base_run, declare, doubt, git_err, helpers, hidden_runner_files,
    matrix, might_hold_tests, order, reported_test_files, reruns, restructure, shared, status,
};
use crate::baseline::classify;
use loki_integrity::{FindingKind, scan, scan_input_from};
use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions, run_check};
use loki_runner::isolate::overlay;

/// The target of the phases' events: the judge's, as before they were phases, so `LOKI_LOG`
/// filters and `--verbose` lines name them as they did.
const TARGET: &str = "loki_checks::judge";

/// What every phase reads.
pub(super) struct Ctx<'a> {
    pub input: &'a JudgeInput<'a>,
    /// The user's checkout's git: its object store holds both sides.
    pub git: Git,
    /// The base, as a tree id.
    pub base_tree: String,
    /// Each check's kind, by name.
    pub kinds: BTreeMap<String, CheckKind>,
    /// When the judgement started, for the phases' events.
    started: Instant,
}

impl<'a> Ctx<'a> {
    /// The context of a judgement of `input`; fails when the base is not a revision.
    pub fn new(input: &'a JudgeInput<'a>) -> Result<Self, ChecksError> {
        let started = Instant::now();
        let git = Git::new(input.repo_root);
        let base_tree = git
            .tree_of(input.base)
            .map_err(|source| ChecksError::BadRevision {
                rev: input.base.to_owned(),
                source,
            })?;
        let kinds = input
            .checks
            .iter()
            .map(|c| (c.name.clone(), c.kind))
            .collect();
        Ok(Ctx {
            input,
            git,
            base_tree,
            kinds,
            started,
        })
    }

    /// Says that phase `name` is done, and how long after the start.
    pub fn done(&self, name: &str) {
        tracing::info!(
            target: TARGET,
            phase = name,
            secs = self.started.elapsed().as_secs_f64(),
            "judge phase done"
        );
    }

    /// Whether `path` is not judged.
    pub fn excluded(&self, path: &str) -> bool {
        self.input.exclude.iter().any(|e| e == path)
    }

    /// The two sides of the change, with the changed test data `data`.
    pub fn sides<'s>(&'s self, data: &'s [declare::DataChange]) -> declare::Sides<'s> {
        declare::Sides {
            git: &self.git,
            base_tree: &self.base_tree,
            head_root: self.input.head_root,
            checks: self.input.checks,
            data,
        }
    }
}

/// What changed, and whose it is.
pub(super) struct Changed {
    /// Every changed file, excluded ones too (the static rules drop their findings).
    pub changes: Vec<RawChange>,
    /// The head tree's paths.
    pub tree_paths: Vec<String>,
    /// Every changed file not excluded, with its owner.
    pub owned: Vec<Owned>,
    /// Helpers that existed at base, counted as test code from their text alone ([`doubt`]).
    pub doubted: Vec<String>,
}

/// Lists and classifies the change. Every changed file's two sides are read once, in one
/// `cat-file --batch` into the handle's cache, where the owner classification, the static scan,
/// the rename detection and the hybrid trees find them.
pub(super) fn changed(ctx: &Ctx<'_>) -> Result<Changed, ChecksError> {
    let (input, git) = (ctx.input, &ctx.git);
    let changes = git
        .raw_changes(&ctx.base_tree, input.head_tree)
        .map_err(git_err("list the changed files"))?;
    let tree_paths = git
        .ls_tree(input.head_tree)
        .map_err(git_err("list the head tree"))?;
    // The scan's unchanged context files (`go.mod`, test configuration) join the same batch.
    let wanted = loki_integrity::scan_requests(input.head_tree, &changes, &tree_paths);
    git.prefetch(&wanted.iter().map(String::as_str).collect::<Vec<_>>());
    let mut owned = Vec::new();
    for c in changes.iter().filter(|c| !ctx.excluded(&c.path)) {
        let mut sides = Vec::new();
        for e in [&c.base, &c.head].into_iter().flatten() {
            if e.mode != "160000" && might_hold_tests(&c.path) {
                sides.push(
                    git.show_blob(&e.oid)
                        .map_err(git_err("read a changed file"))?,
                );
            }
        }
        let refs: Vec<&[u8]> = sides.iter().map(Vec::as_slice).collect();
        owned.push(Owned {
            owner: owner(&c.path, &refs),
            change: c.clone(),
        });
    }
    let doubted = claim_helpers(ctx, &tree_paths, &mut owned);
    Ok(Changed {
        changes,
        tree_paths,
        owned,
        doubted,
    })
}

/// Gives test helpers outside the test directories to the tests, and returns those that existed
/// at base: which files are helpers is read from their text, so such a one is in doubt
/// ([`doubt`]).
fn claim_helpers(ctx: &Ctx<'_>, tree_paths: &[String], owned: &mut [Owned]) -> Vec<String> {
    let mut doubted: Vec<String> = Vec::new();
    let sources: Vec<String> = owned
        .iter()
        .filter(|o| o.owner == Owner::Source && o.change.head.is_some())
        .map(|o| o.change.path.clone())
        .collect();
    if sources.is_empty() {
        return doubted;
    }
    let found = helpers::helpers(ctx.input.head_root, tree_paths, &sources);
    for o in owned.iter_mut() {
        if !found.contains(&o.change.path) {
            continue;
        }
        let was_support = match &o.change.base {
            Some(e) if e.mode != "160000" => ctx
                .git
                .show_blob(&e.oid)
                .is_ok_and(|b| helpers::was_support(&o.change.path, &String::from_utf8_lossy(&b))),
            Some(_) => false,
            None => true,
        };
        if was_support {
            o.owner = Owner::TestCode;
            if o.change.base.is_some() {
                doubted.push(o.change.path.clone());
            }
        }
    }
    doubted
}

/// Runs H, B and O, each on its own thread: the suites of two trees share nothing but the
/// machine, and a sub-second suite's run is mostly process starts, linking and waiting, which
/// overlap well even on two cores. A Go O may be an overlay on the head's own directory; the
/// state of that directory around the runs ([`shared`]) says whether H and O could have
/// disturbed each other, and when it changed, O runs again after H, alone (a head failure O
/// caused is rerun alone at head like any other, in [`reruns()`]). Returns the base tree B ran in.
pub(super) fn run_suites(
    ctx: &Ctx<'_>,
    plan: &Plan<'_>,
    out: &mut Judged,
) -> Result<Option<SideTree>, ChecksError> {
    let input = ctx.input;
    let go_dirs: Vec<PathBuf> = input
        .checks
        .iter()
        .filter(|c| overlay::serves(c) && plan.in_original.contains(&c.name))
        .map(|c| c.at_root(input.head_root).cwd)
        .collect();
    let before = (!go_dirs.is_empty() && input.head_results.is_none())
        .then(|| shared::DirState::of(&go_dirs));
    let Beside {
        head,
        base,
        original,
    } = beside(ctx, plan);
    let original = match (before, original) {
        (Some(before), Ok(o))
            if o.in_head_dir && !before.as_ref().is_some_and(|b| b.unchanged(&go_dirs)) =>
        {
            tracing::info!(
                target: TARGET,
                "the head's directory changed while O ran beside H: O runs again"
            );
            plan.run(input, &ctx.git, &ctx.base_tree)
        }
        (_, o) => o,
    };
    out.head = head?;
    let base = base?;
    out.base = base.results;
    out.not_proven.extend(base.notes);
    out.comparison = classify(&out.base, &out.head);
    let original = original?;
    out.original = original.results;
    out.not_proven.extend(original.notes);
    ctx.done("head, base and original tests");
    Ok(base.tree)
}

/// What the three runs beside each other gave.
struct Beside {
    head: Result<Vec<CheckResult>, ChecksError>,
    base: Result<BaseRun, ChecksError>,
    original: Result<original::Ran, ChecksError>,
}

/// Runs H here and B and O on threads of their own.
fn beside(ctx: &Ctx<'_>, plan: &Plan<'_>) -> Beside {
    let input = ctx.input;
    let head_opts = RunOptions {
        rerun_failed: false,
        log_dir: input.opts.log_dir.join("head"),
        ..input.opts.clone()
    };
    let run_head = || -> Result<Vec<CheckResult>, ChecksError> {
        match input.head_results {
            Some(h) => Ok(h.to_vec()),
            None => input
                .checks
                .iter()
                .map(|c| run_check(c, &head_opts))
                .collect(),
        }
    };
    let run_base = || base_run(input, &ctx.git, &ctx.base_tree);
    let run_original = || plan.run(input, &ctx.git, &ctx.base_tree);
    std::thread::scope(|scope| {
        let lost = |what: &'static str| ChecksError::Io {
            action: what,
            path: input.repo_root.to_path_buf(),
            source: std::io::Error::other("thread panicked"),
        };
        let base = scope.spawn(run_base);
        let original = scope.spawn(run_original);
        let head = run_head();
        let original = original
            .join()
            .unwrap_or_else(|_| Err(lost("run the original tests (their thread panicked) in")));
        let base = base
            .join()
            .unwrap_or_else(|_| Err(lost("run the base (its thread panicked) in")));
        Beside {
            head,
            base,
            original,
        }
    })
}

/// The static rules, from the same change list and listing; files the runner reported tests
/// from are test files whatever their names.
pub(super) fn static_rules(
    ctx: &Ctx<'_>,
    changes: &[RawChange],
    tree_paths: Vec<String>,
    owned: &[Owned],
    out: &mut Judged,
) -> Result<(), ChecksError> {
    let scan_in = scan_input_from(
        &ctx.git,
        ctx.input.head_tree,
        changes,
        tree_paths,
        &reported_test_files(ctx.input.checks, &out.head),
    )
    .map_err(crate::scan_error)?;
    out.findings.extend(
        scan(&scan_in)
            .into_iter()
            .filter(|f| !ctx.excluded(&f.path)),
    );
    out.findings.extend(hidden_runner_files(&ctx.git, owned)?);
    out.findings.extend(status::rewritten(&out.base, &out.head));
    ctx.done("static rules");
    Ok(())
}

/// What the decision leaves for the runs after it.
pub(super) struct Decided {
    /// `(check, head id)`: the tests O says needed their edit, for N.
    pub needs_new_on_base: Vec<(String, String)>,
    /// `(check, base id, head id)`: the newly failing tests, for the reruns.
    pub newly_failing: Vec<(String, String, String)>,
}

/// Decides on H, B and O ([`matrix`]). A missing test still run under another name or shape is
/// moved, not deleted; one renamed and changed is an edit, judged by N like any other.
pub(super) fn decide(
    ctx: &Ctx<'_>,
    plan: &Plan<'_>,
    sides: &declare::Sides<'_>,
    out: &mut Judged,
) -> Decided {
    let checks = ctx.input.checks;
    let mut decision = matrix::decide(&matrix::Input {
        kinds: &ctx.kinds,
        base: &out.base,
        head: &out.head,
        original: matrix::Runs::new(&out.original),
        new_on_base: matrix::Runs::new(&[]),
        in_original: &plan.in_original,
    });
    let (kept, moved, replaced) = restructure::restructured(
        std::mem::take(&mut decision.findings),
        checks,
        &out.base,
        &out.head,
        sides,
    );
    decision.findings = kept;
    decision.facts.extend(moved);
    decision.needs_new_on_base.extend(replaced);
    let unedited = Unedited {
        checks,
        base: &out.base,
        original: matrix::Runs::new(&out.original),
        sides,
    };
    decision
        .needs_new_on_base
        .retain(|(check, id)| !unedited.is(check, id));
    decision.findings.retain(|f| {
        !(f.kind == FindingKind::WeakenedTest
            && f.detail.contains(EDIT_CLAIM)
            && f.test.as_deref().is_some_and(|id| unedited.is(&f.path, id)))
    });
    credit_test_side(&mut decision.findings, plan, sides);
    out.findings.extend(decision.findings);
    out.facts.extend(decision.facts);
    out.pre_existing = decision.pre_existing;
    out.not_proven.extend(decision.not_proven);
    // A question about a test's edit is no question for a test the base never defined, nor for
    // one with no edit that O could not tell about.
    out.cannot_judge.extend(
        decision
            .open
            .into_iter()
            .filter(|(id, cj)| sides.defined_at_base(&cj.check, id) && !unedited.is(&cj.check, id))
            .map(|(_, cj)| cj),
    );
    Decided {
        needs_new_on_base: decision.needs_new_on_base,
        newly_failing: decision.newly_failing,
    }
}

/// What a `weakened_test` finding says when it blames a test's edit.
const EDIT_CLAIM: &str = "passes now only in its edited form";

/// A claim about a test's edit needs an edit: a test whose text is the same on both sides owes
/// nothing to the change's test side unless its infrastructure, data or in-source tests changed
/// and the original run really ran it; a hybrid that did not build says nothing.
struct Unedited<'a> {
    checks: &'a [Check],
    base: &'a [CheckResult],
    original: matrix::Runs<'a>,
    sides: &'a declare::Sides<'a>,
}

impl Unedited<'_> {
    /// Whether test `id` of `check` owes the change nothing provable.
    fn is(&self, check: &str, id: &str) -> bool {
        let Some(c) = self.checks.iter().find(|c| c.name == check) else {
            return false;
        };
        // The test ran in O and failed there: whatever changed on its side (its text, its
        // file's imports or `init`, a helper, a conftest) is evidence. Only a test whose own
        // text is the same and that O did not run as a test (its group failed as a whole: the
        // hybrid did not build) owes the change nothing provable.
        // Absent, for a test that passed at base under the same id: its group ran without it
        // (a selection that reached another target of the same name, a lib and an integration
        // test both called `calc`), so O did not run it. A test new under its id (a parametrize
        // row whose expected value changed) is absent from O because it is new: not spared.
        let passed_before = self.base.iter().filter(|r| r.run.name == check).any(|r| {
            r.tests
                .iter()
                .any(|t| t.id == id && t.status == loki_runner::TestStatus::Passed)
        });
        let not_run = match self.original.probe(check, c.kind, id) {
            matrix::Probe::GroupFailed | matrix::Probe::Unknown | matrix::Probe::NotCovered => true,
            matrix::Probe::Absent => passed_before,
            _ => false,
        };
        not_run && !self.sides.form_changed(check, id)
    }
}

/// A test whose own text did not change passes only with the change's test infrastructure (a
/// setup file, a conftest, a helper): say so, not that its edit did it.
fn credit_test_side(
    findings: &mut [loki_integrity::Finding],
    plan: &Plan<'_>,
    sides: &declare::Sides<'_>,
) {
    for f in findings {
        if f.kind == FindingKind::WeakenedTest
            && f.detail.contains(EDIT_CLAIM)
            && f.test
                .as_deref()
                .is_some_and(|id| !sides.form_changed(&f.path, id))
        {
            let id = f.test.clone().unwrap_or_default();
            let files: Vec<&str> = plan
                .base_side_changed
                .iter()
                .chain(plan.test_owned.iter().filter(|o| o.change.base.is_none()))
                .map(|o| o.change.path.as_str())
                .take(3)
                .collect();
            f.detail = format!(
                "{id} did not pass at base and passes now only with the change's test-side files ({}): run without them it still fails on the new code, so they, not the code, made it pass",
                files.join(", ")
            );
        }
    }
}

/// N: the new tests on the old code, for the tests whose edit O says was needed.
pub(super) fn new_on_base(
    ctx: &Ctx<'_>,
    plan: &Plan<'_>,
    needs: &[(String, String)],
    out: &mut Judged,
) -> Result<(), ChecksError> {
    if needs.is_empty() {
        return Ok(());
    }
    let ran = plan.run_new(ctx.input, &ctx.git, &ctx.base_tree, needs)?;
    out.new_on_base = ran.results;
    out.not_proven.extend(ran.notes);
    let nb = matrix::decide_new_on_base(&ctx.kinds, needs, &matrix::Runs::new(&out.new_on_base));
    out.findings.extend(nb.findings);
    out.declare.extend(nb.declare);
    out.cannot_judge.extend(nb.open);
    ctx.done("new tests on the old code");
    Ok(())
}

/// Helpers in doubt are judged as code too; `first` is what the first pass's N ran.
pub(super) fn helpers_in_doubt(
    ctx: &Ctx<'_>,
    owned: &[Owned],
    doubted: &[String],
    first: &[(String, String)],
    out: &mut Judged,
) -> Result<(), ChecksError> {
    if doubted.is_empty() {
        return Ok(());
    }
    doubt::judge_as_code(
        &doubt::Input {
            judge: ctx.input,
            git: &ctx.git,
            base_tree: &ctx.base_tree,
            kinds: &ctx.kinds,
            owned,
            doubted,
            first,
        },
        out,
    )?;
    ctx.done("helpers in doubt judged as code");
    Ok(())
}

/// Newly failing tests: rerun alone at head and on the base (in `base_side` when B ran in this
/// judgement) before blaming the change.
pub(super) fn reruns(
    ctx: &Ctx<'_>,
    newly_failing: &[(String, String, String)],
    base_side: Option<SideTree>,
    out: &mut Judged,
) -> Result<(), ChecksError> {
    let rr = reruns::rerun(reruns::Input {
        judge: ctx.input,
        git: &ctx.git,
        base_tree: &ctx.base_tree,
        kinds: &ctx.kinds,
        newly_failing,
        base_side,
    })?;
    if !rr.results.is_empty() {
        ctx.done("reruns");
    }
    out.reruns.extend(rr.results);
    out.facts.extend(rr.facts);
    out.findings.extend(rr.findings);
    out.not_proven.extend(rr.not_proven);
    Ok(())
}

/// Answers that depend on order or repetition: every newly passing test alone and reordered.
pub(super) fn order_checks(ctx: &Ctx<'_>, out: &mut Judged) -> Result<(), ChecksError> {
    let candidates = order::newly_passing(&ctx.kinds, &out.base, &out.head);
    if candidates.is_empty() {
        return Ok(());
    }
    let o = order::check(ctx.input, &ctx.kinds, &candidates)?;
    out.reruns.extend(o.results);
    out.findings.extend(o.findings);
    out.not_proven.extend(o.not_proven);
    ctx.done("order checks");
    Ok(())
}
