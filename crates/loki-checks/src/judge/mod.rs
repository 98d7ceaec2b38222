//! The judge: one decision on a change, from running the repository's own suites, shared by the
//! stop hook (`loki seal`) and the build engine's verify stage.
//!
//! # Four runs
//! - **B**, base code with base tests, and **H**, head code with head tests: every test classified
//!   by how its status moved ([`matrix`]), tests matched across moves by identity ([`identity`]).
//! - **O**, head code with the base version of every test-owned file the change modified or
//!   deleted ([`owned`], [`trees::hybrid`]): the original tests on the new code. Run only when such
//!   a file exists, narrowed to those files ([`crate::select`]).
//! - **N**, base code with the head version of the test-owned files: the new tests on the old
//!   code. Run only for tests O says needed their edit to pass: when N passes too, the edit made
//!   the test accept the old behaviour (`weakened_test`); when it fails, the change alters what
//!   the test expects, which must be declared ([`declare`]: `expectation_changed`, with the old
//!   and new expectation); when N cannot run it, that question stays open (cannot judge).
//!
//! A test that newly fails is rerun alone at head (a failure that does not repeat is flaky at
//! head) and then on the base (twice, narrowed to it) before it is blamed (module `reruns`): one that
//! fails there too is flaky (fact `flaky`, listed as not proven). A test that newly passes is run
//! again alone, twice where the runner repeats, and for pytest after its neighbours in reverse
//! order (module `order`): a result that changes is `order_dependent`.
//!
//! # Verdict
//! [`Judged::verdict`] is one [`Verdict`]: FINDINGS, else DECLARE ([`declare`]: a test that
//! expects something else now, or was removed with the code it calls, listed with its old and new
//! lines), else CANNOT JUDGE (any question a run could not settle: a form that could not run, a
//! suite that could not start or ran nothing, no suite at all), else CLEAN. A claim about a test's
//! edit needs an edit: a test whose text is the same on both sides owes nothing to the change's
//! test side unless its infrastructure, data or in-source tests changed and the original tests'
//! run really ran it (a hybrid tree that did not build says nothing about any test).
//!
//! # Where the runs are
//! H runs in the head's directory. B, and the reruns on the base, run in the base tree exported
//! to one path per repository and role under the cache ([`trees::SideTree::export`]; the same
//! path every time, so Go's build cache, keyed by directory, is warm for the reruns of a later
//! judgement, and kept with its own index, so a later export writes only the files that differ)
//! and prepared so that its own code runs ([`crate::isolate`]). O and N run in their
//! hybrid trees, exported and kept the same way, or, for Go checks whose hybrid differs from the head only
//! in `.go` files, in the head's directory through `go test -overlay` (only the swapped packages
//! rebuild; see [`trees`]). O's plan is static (module `original`), so B and O run beside H on their own
//! threads (cargo's too: each tree has its own build directory). A Go O that overlays the head's
//! directory runs beside H too; when that directory changed during the two runs (module `shared`:
//! a test wrote into it), O runs again after H, alone. The head's rerun runs beside the base's.
//!
//! Added test-owned files run O too when they can change how other tests run: a Go `TestMain` or
//! `init`, a conftest, a test module with import-time side effects, a setup file, a helper. A
//! helper outside the test files (`checks.py`, `testutil/`, a crate's `testing` module, a vendored
//! copy of one; [`helpers`]) belongs to the tests, and O then runs every suite of its language
//! whole. Which files are helpers is read from their text, so a changed one that existed at base
//! is in doubt: O and N run once more with it as code ([`doubt`]), and a finding of either stands.
//!
//! # Fenced runs
//! The code under test is the agent's, and it runs beside the judge's other runs: it could rewrite
//! the base tree or report of a run beside it, or the cached base results of the next judgement,
//! and turn a regression into a "pre-existing" failure. With [`RunOptions::confine_exe`] set (the
//! `loki` binary) and Landlock in the kernel, every run goes through `loki __confine`
//! ([`crate::exec::RunFence`]): the judge's private directory (every exported tree and every
//! run's report directory), the baseline cache and the logs are read-only to it, except its own
//! tree, build directory and report directory. A kernel without Landlock is said in NOT PROVEN.
//! What a run reports about itself is still written by the process that runs the tests (pytest's
//! plugin, vitest's and jest's reporters, libtest's and `go test`'s output): that is checked
//! against the exit status and the runner's own summary ([`crate::exec`]) and against the static
//! rules for run takeovers, not fenced.
//!
//! # Static rules
//! [`crate::integrity::scan`] over every changed file judges what running cannot see (CI, test
//! configuration, skip and expected-failure markers, outcome rewrites, equality overrides, …).
//!
//! # No silent pass
//! A check that did not run, ran nothing, or timed out, at head or at base, makes the judgement
//! [`Judged::cannot_judge`] with the reason and what to install or change; it is never clean.
//! A package that does not exist at base is judged on the head alone.
//!
//! # Never
//! Write to the user's checkout or index (trees are temporary exports, blobs and trees are
//! written to the object store only), or let an error read as a pass.

mod cannot;
pub mod declare;
mod doubt;
mod fold;
pub mod helpers;
pub mod identity;
mod loosened;
pub mod matrix;
mod order;
mod original;
pub mod owned;
pub mod rename;
mod reruns;
mod restructure;
mod shared;
mod status;
pub mod trees;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use loki_git::Git;
use loki_protocol::CheckStatus;
use serde::{Deserialize, Serialize};

use crate::ChecksError;
use crate::baseline::{self, BaselineResult, Comparison, classify};
use crate::detect::{Check, checks_for};
use crate::exec::{CheckResult, RunOptions, run_check};
use crate::integrity::{Finding, scan, scan_input_from};
use loki_protocol::CheckKind;

pub use declare::{Declarable, DeclareKind};
pub use loki_core::outcome::Verdict;
pub use matrix::{Fact, FactKind};
use owned::{Owner, owner};
use trees::{Owned, SideTree};

/// What the judge judges.
#[derive(Debug, Clone, Copy)]
pub struct JudgeInput<'a> {
    /// The user's checkout: its git objects build the other trees, its untracked dependencies
    /// (virtualenv, `node_modules`) serve them.
    pub repo_root: &'a Path,
    /// Where the head runs: the checkout (the seal) or a worktree of it (a build run).
    pub head_root: &'a Path,
    /// The base: a commit, or a tree id (a snapshot taken at session start).
    pub base: &'a str,
    /// The head as a tree id (a snapshot of `head_root`).
    pub head_tree: &'a str,
    /// The checks, as detected in `head_root`.
    pub checks: &'a [Check],
    /// The checks' results at base when already known (the seal's session start).
    pub base_results: Option<&'a [CheckResult]>,
    /// The checks' results at head when already run (the engine runs them itself).
    pub head_results: Option<&'a [CheckResult]>,
    /// How suites run; logs go below `opts.log_dir`.
    pub opts: &'a RunOptions,
    /// `$LOKI_HOME/cache`: baselines in `baseline/`, the other trees' build directories in
    /// `target/`.
    pub cache_dir: &'a Path,
    /// Paths not judged (the engine's sealed wall files).
    pub exclude: &'a [String],
}

/// A check that could not be judged, why, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CannotJudge {
    pub check: String,
    pub reason: String,
    pub fix: String,
}

/// The judgement.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Judged {
    pub findings: Vec<Finding>,
    /// Changes whose intent must be declared (expectations changed, tests removed with their
    /// code), each with its old and new expectation.
    pub declare: Vec<Declarable>,
    pub facts: Vec<Fact>,
    pub cannot_judge: Vec<CannotJudge>,
    pub not_proven: Vec<String>,
    /// Tests failing at base and head alike.
    pub pre_existing: Vec<String>,
    pub comparison: Comparison,
    pub base: Vec<CheckResult>,
    pub head: Vec<CheckResult>,
    /// The original tests on the new code (O).
    pub original: Vec<CheckResult>,
    /// The new tests on the base code (N).
    pub new_on_base: Vec<CheckResult>,
    /// Reruns of newly failing tests on the base.
    pub reruns: Vec<CheckResult>,
}

impl Judged {
    /// The verdict when nothing was declared ([`Verdict::of`]: findings, then changes to
    /// declare, then open questions).
    #[must_use]
    pub fn verdict(&self) -> Verdict {
        Verdict::of(
            self.findings.len(),
            self.declare.len(),
            self.cannot_judge.len(),
        )
    }
}

fn git_err(action: &'static str) -> impl Fn(loki_git::GitError) -> ChecksError {
    move |source| ChecksError::Git { action, source }
}

/// Judges the change from `input.base` to `input.head_tree` (see the module doc).
pub fn judge(input: &JudgeInput<'_>) -> Result<Judged, ChecksError> {
    let Some(exe) = &input.opts.confine_exe else {
        return judge_runs(input);
    };
    if !loki_process::confine::available() {
        let mut judged = judge_runs(input)?;
        judged.not_proven.push(UNFENCED.into());
        return Ok(judged);
    }
    // Every run is fenced from the others' trees and reports, the logs and the baseline cache.
    // A protected directory must exist before the fence is drawn, or a run could create it.
    for dir in [input.cache_dir.join("baseline"), input.opts.log_dir.clone()] {
        std::fs::create_dir_all(&dir).map_err(|source| ChecksError::Io {
            action: "create",
            path: dir.clone(),
            source,
        })?;
    }
    let private =
        loki_core::scratch::Scratch::new("loki-judge-").map_err(|source| ChecksError::Temp {
            check: "judge".into(),
            source,
        })?;
    let opts = RunOptions {
        fence: Some(crate::exec::RunFence {
            exe: exe.clone(),
            private: private.path().to_path_buf(),
            scratch: private.path().join("head"),
            write: vec![input.head_root.to_path_buf()],
            protect: vec![
                private.path().to_path_buf(),
                input.cache_dir.to_path_buf(),
                input.opts.log_dir.clone(),
            ],
        }),
        ..input.opts.clone()
    };
    judge_runs(&JudgeInput {
        opts: &opts,
        ..*input
    })
}

/// What NOT PROVEN says when the judge's runs could not be fenced from each other.
const UNFENCED: &str = "fenced judge runs: this kernel has no Landlock, so the code of one run could write another run's tree or reports";

fn judge_runs(input: &JudgeInput<'_>) -> Result<Judged, ChecksError> {
    let started = std::time::Instant::now();
    let phase = |name: &str| {
        tracing::info!(
            phase = name,
            secs = started.elapsed().as_secs_f64(),
            "judge phase done"
        );
    };
    let git = Git::new(input.repo_root);
    let base_tree = git
        .tree_of(input.base)
        .map_err(|source| ChecksError::BadRevision {
            rev: input.base.to_owned(),
            source,
        })?;
    let kinds: BTreeMap<String, CheckKind> = input
        .checks
        .iter()
        .map(|c| (c.name.clone(), c.kind))
        .collect();
    let excluded = |p: &str| input.exclude.iter().any(|e| e == p);
    let mut out = Judged::default();

    // What changed, and whose it is. Every changed file's two sides are read once, in one
    // `cat-file --batch` into the handle's cache, where the owner classification, the static
    // scan, the rename detection and the hybrid trees find them.
    let all_changes = git
        .raw_changes(&base_tree, input.head_tree)
        .map_err(git_err("list the changed files"))?;
    let tree_paths = git
        .ls_tree(input.head_tree)
        .map_err(git_err("list the head tree"))?;
    // The scan's unchanged context files (`go.mod`, test configuration) join the same batch.
    let wanted = crate::integrity::scan_requests(input.head_tree, &all_changes, &tree_paths);
    git.prefetch(&wanted.iter().map(String::as_str).collect::<Vec<_>>());
    let mut owned = Vec::new();
    for c in all_changes.iter().filter(|c| !excluded(&c.path)) {
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

    // Test helpers outside the test directories belong to the tests. Which files are helpers is
    // read from their text, so one that existed at base is in doubt ([`doubt`]).
    let mut doubted: Vec<String> = Vec::new();
    let sources: Vec<String> = owned
        .iter()
        .filter(|o| o.owner == Owner::Source && o.change.head.is_some())
        .map(|o| o.change.path.clone())
        .collect();
    if !sources.is_empty() {
        let found = helpers::helpers(input.head_root, &tree_paths, &sources);
        for o in &mut owned {
            if !found.contains(&o.change.path) {
                continue;
            }
            let was_support = match &o.change.base {
                Some(e) if e.mode != "160000" => git.show_blob(&e.oid).is_ok_and(|b| {
                    helpers::was_support(&o.change.path, &String::from_utf8_lossy(&b))
                }),
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
    }

    // H, B and O, each on its own thread: the suites of two trees share nothing but the machine,
    // and a sub-second suite's run is mostly process starts, linking and waiting, which overlap
    // well even on two cores. A Go O may be an overlay on the head's own directory; the state of
    // that directory around the runs ([`shared`]) says whether H and O could have disturbed each
    // other, and when it changed, O runs again after H, alone (a head failure O caused is rerun
    // alone at head like any other, below).
    let plan = original::plan(input, &git, &owned)?;
    out.not_proven.extend(plan.notes());
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
    let run_base = || base_run(input, &git, &base_tree);
    let run_original = || plan.run(input, &git, &base_tree);
    let go_dirs: Vec<PathBuf> = input
        .checks
        .iter()
        .filter(|c| c.kind == CheckKind::Go && plan.in_original.contains(&c.name))
        .map(|c| c.at_root(input.head_root).cwd)
        .collect();
    let before = (!go_dirs.is_empty() && input.head_results.is_none())
        .then(|| shared::DirState::of(&go_dirs));
    let (head, base, original) = std::thread::scope(|scope| {
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
        (head, base, original)
    });
    let original = match (before, original) {
        (Some(before), Ok(o))
            if o.in_head_dir && !before.as_ref().is_some_and(|b| b.unchanged(&go_dirs)) =>
        {
            tracing::info!("the head's directory changed while O ran beside H: O runs again");
            run_original()
        }
        (_, o) => o,
    };
    out.head = head?;
    let base = base?;
    out.base = base.results;
    out.not_proven.extend(base.notes);
    let mut base_tree_dir: Option<SideTree> = base.tree;
    out.comparison = classify(&out.base, &out.head);
    let original = original?;
    out.original = original.results;
    out.not_proven.extend(original.notes);
    let in_original = &plan.in_original;
    phase("head, base and original tests");

    // Static rules, from the same change list and listing; files the runner reported tests from
    // are test files whatever their names.
    let scan_in = scan_input_from(
        &git,
        input.head_tree,
        &all_changes,
        tree_paths,
        &reported_test_files(input.checks, &out.head),
    )
    .map_err(crate::scan_error)?;
    out.findings
        .extend(scan(&scan_in).into_iter().filter(|f| !excluded(&f.path)));
    out.findings.extend(hidden_runner_files(&git, &owned)?);
    out.findings.extend(status::rewritten(&out.base, &out.head));
    phase("static rules");

    let data = test_data_changes(&git, &owned);
    let sides = declare::Sides {
        git: &git,
        base_tree: &base_tree,
        head_root: input.head_root,
        checks: input.checks,
        data: &data,
    };
    let mut decision = matrix::decide(&matrix::Input {
        kinds: &kinds,
        base: &out.base,
        head: &out.head,
        original: matrix::Runs::new(&out.original),
        new_on_base: matrix::Runs::new(&[]),
        in_original,
    });
    // A missing test still run under another name or shape is moved, not deleted; one renamed
    // and changed is an edit, judged by N like any other.
    let (kept, moved, replaced) = restructure::restructured(
        std::mem::take(&mut decision.findings),
        input.checks,
        &out.base,
        &out.head,
        &sides,
    );
    decision.findings = kept;
    decision.facts.extend(moved);
    decision.needs_new_on_base.extend(replaced);
    // A claim about a test's edit needs an edit: a test whose text is the same on both sides owes
    // nothing to the change's test side unless its infrastructure, data or in-source tests
    // changed and the original run really ran it; a hybrid that did not build says nothing.
    let o_runs = matrix::Runs::new(&out.original);
    let unedited = |check: &str, id: &str| {
        let Some(c) = input.checks.iter().find(|c| c.name == check) else {
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
        let passed_before = out.base.iter().filter(|r| r.name == check).any(|r| {
            r.tests
                .iter()
                .any(|t| t.id == id && t.status == crate::report::TestStatus::Passed)
        });
        let not_run = match o_runs.probe(check, c.kind, id) {
            matrix::Probe::GroupFailed | matrix::Probe::Unknown | matrix::Probe::NotCovered => true,
            matrix::Probe::Absent => passed_before,
            _ => false,
        };
        not_run && !sides.form_changed(check, id)
    };
    decision
        .needs_new_on_base
        .retain(|(check, id)| !unedited(check, id));
    decision.findings.retain(|f| {
        !(f.kind == crate::integrity::FindingKind::WeakenedTest
            && f.detail.contains("passes now only in its edited form")
            && f.test.as_deref().is_some_and(|id| unedited(&f.path, id)))
    });
    // A test whose own text did not change passes only with the change's test infrastructure
    // (a setup file, a conftest, a helper): say so, not that its edit did it.
    for f in &mut decision.findings {
        if f.kind == crate::integrity::FindingKind::WeakenedTest
            && f.detail.contains("passes now only in its edited form")
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
            .filter(|(id, cj)| sides.defined_at_base(&cj.check, id) && !unedited(&cj.check, id))
            .map(|(_, cj)| cj),
    );

    // N: the new tests on the old code, for the tests whose edit O says was needed.
    if !decision.needs_new_on_base.is_empty() {
        let ran = plan.run_new(input, &git, &base_tree, &decision.needs_new_on_base)?;
        out.new_on_base = ran.results;
        out.not_proven.extend(ran.notes);
        let nb = matrix::decide_new_on_base(
            &kinds,
            &decision.needs_new_on_base,
            &matrix::Runs::new(&out.new_on_base),
        );
        out.findings.extend(nb.findings);
        out.declare.extend(nb.declare);
        out.cannot_judge.extend(nb.open);
        phase("new tests on the old code");
    }

    // Helpers in doubt are judged as code too.
    if !doubted.is_empty() {
        doubt::judge_as_code(
            &doubt::Input {
                judge: input,
                git: &git,
                base_tree: &base_tree,
                kinds: &kinds,
                owned: &owned,
                doubted: &doubted,
                first: &decision.needs_new_on_base,
            },
            &mut out,
        )?;
        phase("helpers in doubt judged as code");
    }

    // Newly failing tests: rerun alone at head and on the base before blaming the change.
    let rr = reruns::rerun(reruns::Input {
        judge: input,
        git: &git,
        base_tree: &base_tree,
        kinds: &kinds,
        newly_failing: &decision.newly_failing,
        base_side: base_tree_dir.take(),
    })?;
    if !rr.results.is_empty() {
        phase("reruns");
    }
    out.reruns.extend(rr.results);
    out.facts.extend(rr.facts);
    out.findings.extend(rr.findings);
    out.not_proven.extend(rr.not_proven);

    // Answers that depend on order or repetition: every newly passing test alone and reordered.
    let candidates = order::newly_passing(&kinds, &out.base, &out.head);
    if !candidates.is_empty() {
        let o = order::check(input, &kinds, &candidates)?;
        out.reruns.extend(o.results);
        out.findings.extend(o.findings);
        out.not_proven.extend(o.not_proven);
        phase("order checks");
    }

    // Static counts stand in for what running could not compare: where the owning suite reported
    // every test on both sides, a deleted, skipped or weakened test is judged by running it (a
    // test moved or split is not a deletion, a skip that does not apply here is not a skip).
    let compared = |name: &str| {
        let full = |rs: &[CheckResult]| {
            rs.iter()
                .find(|r| r.name == name)
                .is_some_and(|r| !r.tests.is_empty())
        };
        full(&out.base)
            && full(&out.head)
            && !out.comparison.uncompared.iter().any(|u| u.check == name)
    };
    out.findings.retain(|f| {
        use crate::integrity::FindingKind as K;
        if !matches!(
            f.kind,
            K::TestFileRemoved | K::FewerTests | K::FewerAssertions | K::SkipMarkerAdded
        ) {
            return true;
        }
        let owners = checks_for(input.checks, &f.path);
        owners.is_empty() || !owners.iter().all(|c| compared(&c.name))
    });

    // A test removed together with the code it calls is a change to declare, not a cheat.
    let (kept, removed) = declare::removed_with_code(
        std::mem::take(&mut out.findings),
        &removed_definitions(&git, &owned),
        &sides,
    );
    out.findings = kept;
    out.declare.extend(removed);
    declare::describe(&mut out.declare, &sides);
    // An edit that dropped cases (rows deleted beside rows added), or whose new form could not
    // be built on the base (it uses the new code's API) and only removed or loosened what it
    // checks, hid the regression its original form shows: weakened, not a behaviour to declare.
    let n_runs = matrix::Runs::new(&out.new_on_base);
    let (loose, keep): (Vec<_>, Vec<_>) =
        std::mem::take(&mut out.declare).into_iter().partition(|d| {
            let unbuilt = kinds
                .get(&d.check)
                .is_some_and(|k| n_runs.probe(&d.check, *k, &d.test) == matrix::Probe::GroupFailed);
            d.kind == declare::DeclareKind::ExpectationChanged
                && ((unbuilt && loosened::only_loosened(&d.was, &d.now))
                    || loosened::dropped_cases(&d.was, &d.now))
        });
    out.declare = keep;
    out.findings.extend(loose.into_iter().map(|d| {
        crate::integrity::Finding::new(
            crate::integrity::FindingKind::WeakenedTest,
            &d.check,
            format!(
                "{} now checks less than it did: its edit removed or loosened what it expected (`{}`), and its original form fails on the new code",
                d.test,
                d.was.first().map_or("", |l| l.trim())
            ),
        )
        .for_test(&d.test)
    }));
    // A test made weaker while no code changed is a fact for the person, not a finding.
    if !owned
        .iter()
        .any(|o| matches!(o.owner, Owner::Source | Owner::Mixed))
    {
        let texts: Vec<(String, String, String)> = owned
            .iter()
            .filter(|o| o.owner == Owner::TestCode)
            .filter_map(|o| {
                let read = |e: &Option<loki_git::Entry>| {
                    e.as_ref()
                        .filter(|e| e.mode != "160000")
                        .and_then(|e| git.show_blob(&e.oid).ok())
                        .map(|b| String::from_utf8_lossy(&b).into_owned())
                };
                Some((
                    o.change.path.clone(),
                    read(&o.change.base)?,
                    read(&o.change.head)?,
                ))
            })
            .collect();
        out.facts.extend(declare::weakened_without_code(&texts));
        // A skip or an expected failure added while no code changed hides nothing the change
        // did: it is a weakening to show, not a cheat to refuse.
        // A test that failed at base, or could not report there (its binary crashed), is not
        // weakened by a skip: the skip hides that failure, and stays a finding.
        let passed_at_base = |f: &Finding| {
            f.test.as_deref().is_none_or(|id| {
                out.base.iter().any(|r| {
                    r.tests
                        .iter()
                        .any(|t| t.id == id && t.status == crate::report::TestStatus::Passed)
                })
            })
        };
        let (weak, keep): (Vec<Finding>, Vec<Finding>) = std::mem::take(&mut out.findings)
            .into_iter()
            .partition(|f| {
                use crate::integrity::FindingKind as K;
                matches!(
                    f.kind,
                    K::NewlySkipped | K::SkipMarkerAdded | K::FailureExpected | K::FewerAssertions
                ) && (f.kind != K::NewlySkipped || passed_at_base(f))
            });
        out.findings = keep;
        out.facts.extend(weak.into_iter().map(|f| Fact {
            kind: FactKind::WeakenedWithoutCodeChange,
            check: String::new(),
            test: f.test.clone().unwrap_or_else(|| f.path.clone()),
            detail: format!(
                "{} while no code changed: nothing fails because of it now, but it catches less from now on",
                f.detail
            ),
        }));
    }
    out.declare.sort();
    out.declare.dedup();

    // No silent pass: a repository without a suite proves nothing.
    if input.checks.is_empty() {
        out.cannot_judge.push(CannotJudge {
            check: "tests".into(),
            reason: "no test suite was found (no pytest, cargo, go, node, vitest or jest tests in this repository), so nothing the change does was run".into(),
            fix: "add tests that exercise the change where loki finds them (`loki checks detect` lists what it finds: pytest, cargo, go test, node --test, vitest, jest)".into(),
        });
    }
    for c in input.checks {
        let head = out.head.iter().find(|r| r.name == c.name);
        let base = out.base.iter().find(|r| r.name == c.name);
        if let Some(h) = head
            && unexplained(h)
        {
            let (f, cj) = unexplained_failure(c, h, base);
            out.findings.extend(f);
            out.cannot_judge.extend(cj);
        }
        if let Some(h) = head
            && let Some(cj) = cannot::cannot_judge("head", c, h)
        {
            out.cannot_judge.push(cj);
        }
        // A suite the base did not have yet (it ran no test there) leaves nothing of the base to
        // compare when the head runs tests: every one of them is new.
        let base_had_none = base.is_some_and(|b| {
            b.tests.is_empty()
                && b.result == CheckStatus::NotRun
                && b.reason
                    .as_deref()
                    .is_some_and(|r| r.contains("no tests executed"))
        }) && head.is_some_and(|h| !h.tests.is_empty());
        if let Some(b) = base
            && !base_had_none
            && b.reason.as_deref() != Some("the package directory does not exist in this revision")
            && let Some(cj) = cannot::cannot_judge("base", c, b)
        {
            out.cannot_judge.push(cj);
        }
    }

    // Dynamic findings name their check; point them at the test's file and line instead, once
    // per table (a deleted table's rows are one finding).
    out.findings.sort();
    out.findings.dedup();
    out.findings = fold::fold_subtests(std::mem::take(&mut out.findings), &kinds);
    // A deleted test is no longer at head: it is shown where the base defined it.
    let mut locator = crate::locate::Locator::new(input.head_root);
    let mut in_base: Option<crate::locate::Locator<'_>> = None;
    for f in &mut out.findings {
        let Some(check) = input.checks.iter().find(|c| c.name == f.path) else {
            continue;
        };
        match &f.test {
            Some(id) => {
                let (mut path, mut line) = locator.locate(check, id);
                if line.is_none() && f.kind == crate::integrity::FindingKind::TestDeleted {
                    let base = in_base.get_or_insert_with(|| {
                        crate::locate::Locator::over(crate::locate::Source::Tree {
                            paths: git.ls_tree(&base_tree).unwrap_or_default(),
                            read: Box::new(|p| git.show_file(&base_tree, p).ok().flatten()),
                        })
                    });
                    if let (at, Some(l)) = base.locate(check, id) {
                        f.detail = format!("{}; the base defined it at {at}:{l}", f.detail);
                        (path, line) = (at, Some(l));
                    }
                }
                f.path = path;
                f.line = line;
            }
            None => f.path.clone_from(&check.dir),
        }
        if !f.detail.contains(&check.name) {
            f.detail = format!("{} ({})", f.detail, check.name);
        }
    }
    out.findings.sort();
    out.findings.dedup();
    out.facts.sort();
    out.facts.dedup();
    out.not_proven.sort();
    out.not_proven.dedup();
    Ok(out)
}

/// The checks' results at base: given, cached per check and base tree (so a different set of
/// impacted checks reuses what is known), or run in an exported base tree, which is returned for
/// reruns, with the isolation's notes.
fn base_run(input: &JudgeInput<'_>, git: &Git, base_tree: &str) -> Result<BaseRun, ChecksError> {
    if let Some(b) = input.base_results {
        return Ok(BaseRun {
            results: b.to_vec(),
            tree: None,
            notes: Vec::new(),
        });
    }
    let cache = input.cache_dir.join("baseline");
    let mut known: Vec<Option<CheckResult>> = input
        .checks
        .iter()
        .map(|c| {
            baseline::cached(&cache, base_tree, std::slice::from_ref(c))
                .and_then(|b| b.results.into_iter().next())
                // A base that could not be judged (a tool missing, a build broken by the
                // environment) is tried again, not remembered: the cause may be gone.
                .filter(|r| cannot::cannot_judge("base", c, r).is_none())
        })
        .collect();
    let missing: Vec<Check> = input
        .checks
        .iter()
        .zip(&known)
        .filter(|(_, k)| k.is_none())
        .map(|(c, _)| c.clone())
        .collect();
    if missing.is_empty() {
        return Ok(BaseRun {
            results: known.into_iter().flatten().collect(),
            tree: None,
            notes: Vec::new(),
        });
    }
    let side = SideTree::export(
        git,
        input.repo_root,
        base_tree,
        "base",
        &in_checkout(input),
        input.opts,
        input.cache_dir,
    )?;
    let mut notes = side.notes.clone();
    let results = side.run(&missing, input.opts, input.opts.log_dir.join("base"))?;
    notes.extend(side.evidence());
    let commit = git.rev_parse(&format!("{}^{{commit}}", input.base)).ok();
    for (c, r) in missing.iter().zip(&results) {
        if cannot::cannot_judge("base", c, r).is_some() {
            continue;
        }
        baseline::store(
            &cache,
            std::slice::from_ref(c),
            &BaselineResult {
                schema: baseline::BASELINE_SCHEMA.to_owned(),
                base_commit: commit.clone(),
                base_tree: base_tree.to_owned(),
                checks_key: baseline::checks_key(std::slice::from_ref(c)),
                results: vec![r.clone()],
                cached: false,
            },
        )?;
    }
    let mut fresh = results.into_iter();
    for k in &mut known {
        if k.is_none() {
            *k = fresh.next();
        }
    }
    Ok(BaseRun {
        results: known.into_iter().flatten().collect(),
        tree: Some(side),
        notes,
    })
}

/// What the base run gave: its results, the exported tree it ran in (kept for reruns), and the
/// isolation's notes.
struct BaseRun {
    results: Vec<CheckResult>,
    tree: Option<SideTree>,
    notes: Vec<String>,
}

/// The checks as they would run in the checkout (where the untracked dependencies are).
fn in_checkout(input: &JudgeInput<'_>) -> Vec<Check> {
    input
        .checks
        .iter()
        .map(|c| c.at_root(input.repo_root))
        .collect()
}

/// Files the change adds that the runner or the build loads but that git ignores: what passes here
/// is not what is committed, and a reviewer of the diff never sees them.
fn hidden_runner_files(git: &Git, owned: &[Owned]) -> Result<Vec<Finding>, ChecksError> {
    let loaded = |p: &str| {
        let name = p.rsplit('/').next().unwrap_or(p);
        let stem = name.split('.').next().unwrap_or(name);
        matches!(
            name,
            "build.rs"
                | "conftest.py"
                | "sitecustomize.py"
                | "usercustomize.py"
                | ".npmrc"
                | "pytest.ini"
                | "tox.ini"
                | "setup.cfg"
                | "pyproject.toml"
                | "go.work"
                | "go.mod"
                | "Cargo.toml"
                | "package.json"
        ) || name.ends_with(".pth")
            // Go compiles every `.go` file of a package directory, committed or not.
            || name.ends_with(".go")
            || p.ends_with(".cargo/config.toml")
            || p.ends_with(".cargo/config")
            || (matches!(stem, "vitest" | "jest" | "vite") && name.contains(".config."))
            || (matches!(stem, "vitest" | "jest") && name.contains(".setup."))
            || matches!(stem, "setupTests" | "setup-tests" | "test-setup")
    };
    let added: Vec<&str> = owned
        .iter()
        .filter(|o| o.change.base.is_none() && loaded(&o.change.path))
        .map(|o| o.change.path.as_str())
        .collect();
    if added.is_empty() {
        return Ok(Vec::new());
    }
    let hidden = git
        .ignored(&added)
        .map_err(git_err("ask git which files it ignores"))?;
    Ok(hidden
        .into_iter()
        .map(|p| {
            Finding::new(
                crate::integrity::FindingKind::TestConfigChanged,
                &p,
                format!(
                    "{p} is new, loaded by the test run or the build, and hidden from git by an ignore rule: the code that passes here is not the code that would be committed"
                ),
            )
            .at_line(1)
        })
        .collect())
}

/// A run that failed although every test it reported passed: a part of the command failed that
/// its report does not show (a later run of a chained command, a step after the tests, a crash).
fn unexplained(r: &CheckResult) -> bool {
    r.result == CheckStatus::Fail
        && !r.tests.is_empty()
        && r.tests
            .iter()
            .all(|t| t.status != crate::report::TestStatus::Failed)
}

/// What an unexplained failure at head means: the change broke what passed at base (a finding),
/// or, when the base failed too, nobody can say what the failure hides (cannot judge).
fn unexplained_failure(
    c: &Check,
    h: &CheckResult,
    base: Option<&CheckResult>,
) -> (Option<Finding>, Option<CannotJudge>) {
    let reported = h.tests.len();
    let why = h.reason.as_deref().unwrap_or("it failed");
    if base.is_some_and(|b| b.result == CheckStatus::Pass) {
        (
            Some(crate::integrity::Finding::new(
                crate::integrity::FindingKind::SuiteBroken,
                &c.name,
                format!(
                    "suite {} passed at base and fails now ({why}), though all {reported} tests it reported passed: the failure is in a part of `{}` loki cannot read test by test (a later run of a chained command, a step after the tests)",
                    c.name,
                    c.command_line()
                ),
            )),
            None,
        )
    } else {
        (
            None,
            Some(CannotJudge {
                check: c.name.clone(),
                reason: format!(
                    "head: {why}, though all {reported} tests it reported passed: what failed is not in its report"
                ),
                fix: format!(
                    "run each part of `{}` on its own (one runner per script) so every test's result is read, or fix what fails after the tests",
                    c.command_line()
                ),
            }),
        )
    }
}

/// The test data the change touched (snapshots, golden files, fixtures), both sides as text, for
/// showing what an expectation that lives in data was and is.
fn test_data_changes(git: &Git, owned: &[Owned]) -> Vec<declare::DataChange> {
    let text = |e: &Option<loki_git::Entry>| {
        e.as_ref()
            .filter(|e| e.mode != "160000")
            .and_then(|e| git.show_blob(&e.oid).ok())
            .filter(|b| b.len() <= crate::integrity::MAX_SCAN_BYTES && !b.contains(&0))
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    owned
        .iter()
        .filter(|o| o.owner == Owner::TestData)
        .map(|o| declare::DataChange {
            path: o.change.path.clone(),
            base: text(&o.change.base),
            head: text(&o.change.head),
        })
        .collect()
}

/// The names the base's code defined and the head's code no longer does (over every changed
/// source file, so a definition moved to another file is not removed).
fn removed_definitions(git: &Git, owned: &[Owned]) -> std::collections::BTreeSet<String> {
    let mut before = std::collections::BTreeSet::new();
    let mut after = std::collections::BTreeSet::new();
    for o in owned
        .iter()
        .filter(|o| matches!(o.owner, Owner::Source | Owner::Mixed))
    {
        for (side, set) in [(&o.change.base, &mut before), (&o.change.head, &mut after)] {
            if let Some(e) = side.as_ref().filter(|e| e.mode != "160000")
                && let Ok(b) = git.show_blob(&e.oid)
            {
                set.extend(declare::definitions(
                    &o.change.path,
                    &String::from_utf8_lossy(&b),
                ));
            }
        }
    }
    before.difference(&after).cloned().collect()
}

/// The files the runners reported tests from, repository-relative: the file part of pytest's node
/// ids and of the JS runners' ids (`<file> > <suite> > <test>`).
fn reported_test_files(
    checks: &[Check],
    head: &[CheckResult],
) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    for r in head {
        let Some(c) = checks.iter().find(|c| c.name == r.name) else {
            continue;
        };
        let sep = match c.kind {
            CheckKind::Pytest => "::",
            CheckKind::Vitest | CheckKind::Jest | CheckKind::Node | CheckKind::Npm => " > ",
            _ => continue,
        };
        for t in &r.tests {
            let Some((file, _)) = t.id.split_once(sep) else {
                continue;
            };
            let looks_like_file = file.rsplit_once('.').is_some_and(|(_, e)| {
                matches!(
                    e,
                    "py" | "js" | "ts" | "mjs" | "cjs" | "mts" | "cts" | "jsx" | "tsx"
                )
            });
            if looks_like_file {
                out.insert(if c.dir == "." {
                    file.to_owned()
                } else {
                    format!("{}/{file}", c.dir)
                });
            }
        }
    }
    out
}

/// Whether a path can hold tests inside its source (only those are read to classify them).
fn might_hold_tests(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "rs" | "py" | "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts"
    )
}
