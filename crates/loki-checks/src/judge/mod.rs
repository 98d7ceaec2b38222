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
//!   the test accept the old behaviour (`weakened_test`); when it fails, the change encodes a
//!   deliberate behaviour change (fact `expectation_changed`).
//!
//! A test that newly fails is rerun alone at head (a failure that does not repeat is flaky at
//! head) and then on the base (twice, narrowed to it) before it is blamed: one that fails there
//! too is flaky (fact `flaky`, listed as not proven). Everything except H runs in a tree
//! exported to a temporary directory and prepared so that its own code runs ([`crate::isolate`]);
//! B runs beside H on a second thread, except for cargo projects (two builds would only share the
//! cores).
//!
//! Added test-owned files run O too when they can change how other tests run: a Go `TestMain` or
//! `init`, a conftest, a test module with import-time side effects, a setup file, a helper. A
//! helper outside the test files (`checks.py`, `testutil/`, a crate's `testing` module, a vendored
//! copy of one; [`helpers`]) belongs to the tests, and O then runs every suite of its language
//! whole.
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

pub mod helpers;
pub mod identity;
pub mod locate;
pub mod matrix;
pub mod owned;
pub mod rename;
pub mod trees;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use loki_git::Git;
use serde::{Deserialize, Serialize};

use crate::ChecksError;
use crate::baseline::{self, BaselineResult, Comparison, classify};
use crate::detect::{Check, CheckKind, checks_for};
use crate::exec::{CheckResult, CheckStatus, RunOptions, run_check};
use crate::integrity::{Finding, scan, scan_input};
use crate::select::Selection;

pub use matrix::{Fact, FactKind};
use owned::{Owner, owner};
use trees::{Owned, SideTree, TestsFrom, hybrid};

/// How many times a newly failing test is rerun on the base before it is blamed on the change.
const BASE_RERUNS: usize = 2;

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
    /// `clean`, `findings` or `cannot_judge`: findings win over cannot-judge.
    #[must_use]
    pub fn verdict(&self) -> &'static str {
        if !self.findings.is_empty() {
            "findings"
        } else if !self.cannot_judge.is_empty() {
            "cannot_judge"
        } else {
            "clean"
        }
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
    if !loki_core::confine::available() {
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
    let private = tempfile::Builder::new()
        .prefix("loki-judge-")
        .tempdir()
        .map_err(|source| ChecksError::Temp {
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

    // What changed, and whose it is.
    let changes: Vec<_> = git
        .raw_changes(&base_tree, input.head_tree)
        .map_err(git_err("list the changed files"))?
        .into_iter()
        .filter(|c| !excluded(&c.path))
        .collect();
    let mut owned = Vec::new();
    for c in changes {
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
            change: c,
        });
    }

    // Test helpers outside the test directories belong to the tests.
    let sources: Vec<String> = owned
        .iter()
        .filter(|o| o.owner == Owner::Source && o.change.head.is_some())
        .map(|o| o.change.path.clone())
        .collect();
    if !sources.is_empty() {
        let tree_paths = git
            .ls_tree(input.head_tree)
            .map_err(git_err("list the head tree"))?;
        let found = helpers::helpers(input.head_root, &tree_paths, &sources);
        for o in &mut owned {
            if found.contains(&o.change.path) {
                o.owner = Owner::TestCode;
            }
        }
    }

    // Static rules.
    let scan_in = scan_input(&git, &base_tree, input.head_tree)?;
    out.findings = scan(&scan_in)
        .into_iter()
        .filter(|f| !excluded(&f.path))
        .collect();
    out.findings.extend(hidden_runner_files(&git, &owned)?);

    // H and B. The base runs in its own tree beside the head on another thread (the suites of
    // two trees share nothing but the machine), except for cargo, whose builds of the two trees
    // would only share the cores.
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
    let compiles = input
        .checks
        .iter()
        .any(|c| matches!(c.kind, CheckKind::Cargo | CheckKind::Nextest));
    let (head, base) = if compiles || input.head_results.is_some() || input.base_results.is_some() {
        let head = run_head();
        (head, base_run(input, &git, &base_tree))
    } else {
        std::thread::scope(|scope| {
            let base = scope.spawn(|| base_run(input, &git, &base_tree));
            let head = run_head();
            let base = base.join().unwrap_or_else(|_| {
                Err(ChecksError::Io {
                    action: "run the base (its thread panicked) in",
                    path: input.repo_root.to_path_buf(),
                    source: std::io::Error::other("thread panicked"),
                })
            });
            (head, base)
        })
    };
    out.head = head?;
    let base = base?;
    out.base = base.results;
    out.not_proven.extend(base.notes);
    let mut base_tree_dir: Option<SideTree> = base.tree;
    out.comparison = classify(&out.base, &out.head);

    // O: the original tests on the new code, for checks whose test-owned files were modified or
    // deleted.
    let test_owned: Vec<&Owned> = owned
        .iter()
        .filter(|o| matches!(o.owner, Owner::TestCode | Owner::TestData | Owner::Mixed))
        .collect();
    let base_side_changed: Vec<&Owned> = test_owned
        .iter()
        .copied()
        .filter(|o| o.change.base.is_some())
        .collect();
    // Added test-owned files that can change how other tests run (a Go `TestMain`, a conftest,
    // a test module that patches things when imported): O, without them, shows what they changed.
    let mut takeovers: Vec<Takeover> = Vec::new();
    for o in test_owned.iter().filter(|o| o.change.base.is_none()) {
        // An added helper outside the test files (a vendored copy of one included) serves
        // whatever tests import it.
        if o.owner == Owner::TestCode && !crate::integrity::is_test_path(&o.change.path) {
            takeovers.push(Takeover {
                path: o.change.path.clone(),
                scope: None,
            });
            continue;
        }
        if let Some(e) = &o.change.head
            && e.mode != "160000"
        {
            let bytes = git
                .show_blob(&e.oid)
                .map_err(git_err("read an added test file"))?;
            if let Some(t) = takes_over(&o.change.path, &bytes) {
                takeovers.push(t);
            }
        }
    }
    let mut in_original: BTreeSet<String> = base_side_changed
        .iter()
        .map(|o| o.change.path.as_str())
        .chain(takeovers.iter().map(|t| t.path.as_str()))
        .flat_map(|p| checks_for(input.checks, p))
        .map(|c| c.name.clone())
        .collect();
    // A helper outside the test files can serve the tests of any suite of its language (another
    // Go module, another package of the workspace): all of them run with its base version.
    for o in &base_side_changed {
        if o.owner == Owner::TestCode && !crate::integrity::is_test_path(&o.change.path) {
            let lang = helper_kinds(&o.change.path);
            in_original.extend(
                input
                    .checks
                    .iter()
                    .filter(|c| lang.contains(&c.kind))
                    .map(|c| c.name.clone()),
            );
        }
    }
    let owned_vec: Vec<Owned> = test_owned.iter().map(|o| (*o).clone()).collect();
    let renames = api_renames(&git, &owned)?;
    if !renames.is_empty() {
        out.not_proven.push(format!(
            "the original tests ran with the change's renames applied ({})",
            renames
                .iter()
                .map(|(o, n)| format!("{o} → {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !in_original.is_empty() {
        let h = hybrid(
            &git,
            &base_tree,
            input.head_tree,
            &owned_vec,
            TestsFrom::Base,
            &renames,
        )?;
        for f in &h.unsplit {
            out.not_proven.push(format!(
                "original tests of {f}: its test items could not be separated from its code, so they were not run on the new code"
            ));
        }
        let side = SideTree::export(
            &git,
            input.repo_root,
            &h.tree,
            "original",
            &in_checkout(input),
            input.opts,
            input.cache_dir,
        )?;
        let to_run: Vec<Check> = input
            .checks
            .iter()
            .filter(|c| in_original.contains(&c.name))
            .cloned()
            .collect();
        let owns = |c: &Check, p: &str| {
            checks_for(std::slice::from_ref(c), p)
                .iter()
                .any(|x| x.name == c.name)
        };
        let helper_changed = base_side_changed
            .iter()
            .any(|o| o.owner == Owner::TestCode && !crate::integrity::is_test_path(&o.change.path));
        let select = |c: &Check| {
            if helper_changed {
                return Selection::default();
            }
            let mine: Vec<&Takeover> = takeovers.iter().filter(|t| owns(c, &t.path)).collect();
            if mine.iter().any(|t| t.scope.is_none()) {
                return Selection::default();
            }
            let sel = selection_for(c, &base_side_changed, Side::Base);
            let had_files = base_side_changed.iter().any(|o| owns(c, &o.change.path));
            if had_files && sel.is_empty() {
                return sel;
            }
            let mut files = sel.files;
            files.extend(mine.iter().filter_map(|t| t.scope.clone()));
            Selection::files(files)
        };
        out.original = side.run_selected(
            &to_run,
            &select,
            input.opts,
            input.opts.log_dir.join("original-tests"),
        )?;
        out.not_proven.extend(side.notes.iter().cloned());
        out.not_proven.extend(side.evidence());
    }

    let decision = matrix::decide(&matrix::Input {
        kinds: &kinds,
        base: &out.base,
        head: &out.head,
        original: matrix::Runs {
            results: &out.original,
        },
        new_on_base: matrix::Runs { results: &[] },
        in_original: &in_original,
    });
    out.findings.extend(decision.findings);
    out.facts.extend(decision.facts);
    out.pre_existing = decision.pre_existing;
    out.not_proven.extend(decision.not_proven);

    // N: the new tests on the old code, for the tests whose edit O says was needed.
    if !decision.needs_new_on_base.is_empty() {
        let suspects: BTreeSet<&str> = decision
            .needs_new_on_base
            .iter()
            .map(|(c, _)| c.as_str())
            .collect();
        let h = hybrid(
            &git,
            &base_tree,
            input.head_tree,
            &owned_vec,
            TestsFrom::Head,
            &renames,
        )?;
        let side = SideTree::export(
            &git,
            input.repo_root,
            &h.tree,
            "new",
            &in_checkout(input),
            input.opts,
            input.cache_dir,
        )?;
        let head_side_changed: Vec<&Owned> = test_owned
            .iter()
            .copied()
            .filter(|o| o.change.head.is_some())
            .collect();
        let to_run: Vec<Check> = input
            .checks
            .iter()
            .filter(|c| suspects.contains(c.name.as_str()))
            .cloned()
            .collect();
        let select = |c: &Check| selection_for(c, &head_side_changed, Side::Head);
        out.new_on_base = side.run_selected(
            &to_run,
            &select,
            input.opts,
            input.opts.log_dir.join("new-tests"),
        )?;
        out.not_proven.extend(side.evidence());
        let (f, facts, np) = matrix::decide_new_on_base(
            &kinds,
            &decision.needs_new_on_base,
            matrix::Runs {
                results: &out.new_on_base,
            },
        );
        out.findings.extend(f);
        out.facts.extend(facts);
        out.not_proven.extend(np);
    }

    // Newly failing tests: rerun alone at head first (a failure the head's run alone does not
    // repeat is flaky, not a verdict), then on the base before blaming the change.
    let mut newly_failing = decision.newly_failing.clone();
    if !newly_failing.is_empty() && input.head_results.is_none() {
        let ids: BTreeMap<&str, Vec<String>> =
            newly_failing
                .iter()
                .fold(BTreeMap::new(), |mut m, (c, _, h)| {
                    m.entry(c.as_str()).or_default().push(h.clone());
                    m
                });
        let rerun_opts = RunOptions {
            rerun_failed: false,
            log_dir: input.opts.log_dir.join("head-rerun"),
            ..input.opts.clone()
        };
        let mut passed_alone: BTreeSet<(String, String)> = BTreeSet::new();
        for c in input
            .checks
            .iter()
            .filter(|c| ids.contains_key(c.name.as_str()))
        {
            let sel = Selection::tests(ids.get(c.name.as_str()).cloned().unwrap_or_default());
            let to_run =
                crate::select::narrowed(c, input.head_root, &sel).unwrap_or_else(|| c.clone());
            let r = run_check(&to_run, &rerun_opts)?;
            let kind = kinds.get(&c.name).copied().unwrap_or(CheckKind::Npm);
            for (check, _, head_id) in newly_failing.iter().filter(|(n, _, _)| *n == c.name) {
                let probe = matrix::Runs {
                    results: std::slice::from_ref(&r),
                }
                .probe(check, kind, head_id);
                if probe == matrix::Probe::Passed {
                    passed_alone.insert((check.clone(), head_id.clone()));
                }
            }
            out.reruns.push(r);
        }
        newly_failing.retain(|(check, _, head_id)| {
            if !passed_alone.contains(&(check.clone(), head_id.clone())) {
                return true;
            }
            out.facts.push(Fact {
                kind: FactKind::Flaky,
                check: check.clone(),
                test: head_id.clone(),
                detail: format!(
                    "{head_id} failed in the head's run and passed when rerun alone: flaky at head, not a verdict"
                ),
            });
            out.not_proven
                .push(format!("{check}: {head_id} is flaky at head (failed once, then passed)"));
            false
        });
    }
    if !newly_failing.is_empty() {
        let side = match base_tree_dir.take() {
            Some(s) => s,
            None => SideTree::export(
                &git,
                input.repo_root,
                &base_tree,
                "base",
                &in_checkout(input),
                input.opts,
                input.cache_dir,
            )?,
        };
        let by_check: BTreeMap<&str, Vec<String>> =
            decision
                .newly_failing
                .iter()
                .fold(BTreeMap::new(), |mut m, (c, b, _)| {
                    m.entry(c.as_str()).or_default().push(b.clone());
                    m
                });
        let to_run: Vec<Check> = input
            .checks
            .iter()
            .filter(|c| by_check.contains_key(c.name.as_str()))
            .cloned()
            .collect();
        let select = |c: &Check| {
            Selection::tests(by_check.get(c.name.as_str()).cloned().unwrap_or_default())
        };
        let mut failed_on_base: BTreeSet<(String, String)> = BTreeSet::new();
        for n in 0..BASE_RERUNS {
            let rs = side.run_selected(
                &to_run,
                &select,
                input.opts,
                input.opts.log_dir.join(format!("base-rerun-{}", n + 1)),
            )?;
            for r in &rs {
                let kind = kinds.get(&r.name).copied().unwrap_or(CheckKind::Npm);
                for (c, b, _) in decision
                    .newly_failing
                    .iter()
                    .filter(|(c, _, _)| *c == r.name)
                {
                    let probe = matrix::Runs {
                        results: std::slice::from_ref(r),
                    }
                    .probe(c, kind, b);
                    if matches!(probe, matrix::Probe::Failed) {
                        failed_on_base.insert((c.clone(), b.clone()));
                    }
                }
            }
            out.reruns.extend(rs);
        }
        for (check, base_id, head_id) in &newly_failing {
            if failed_on_base.contains(&(check.clone(), base_id.clone())) {
                out.facts.push(Fact {
                    kind: FactKind::Flaky,
                    check: check.clone(),
                    test: head_id.clone(),
                    detail: format!(
                        "{head_id} failed at head, passed in the base run, and failed again when rerun on the base: flaky, not caused by this change"
                    ),
                });
                out.not_proven.push(format!(
                    "{check}: {head_id} is flaky (it fails on the base too)"
                ));
            } else {
                out.findings.push(
                    Finding::new(
                        crate::integrity::FindingKind::NewlyFailing,
                        check,
                        format!(
                            "{head_id} passed at base (and in {BASE_RERUNS} reruns there) and fails now"
                        ),
                    )
                    .for_test(head_id),
                );
            }
        }
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

    // No silent pass.
    for c in input.checks {
        let head = out.head.iter().find(|r| r.name == c.name);
        let base = out.base.iter().find(|r| r.name == c.name);
        if let Some(h) = head
            && let Some(cj) = cannot_judge("head", c, h)
        {
            out.cannot_judge.push(cj);
        }
        if let Some(b) = base
            && b.reason.as_deref() != Some("the package directory does not exist in this revision")
            && let Some(cj) = cannot_judge("base", c, b)
        {
            out.cannot_judge.push(cj);
        }
    }

    // Dynamic findings name their check; point them at the test's file and line instead.
    for f in &mut out.findings {
        let Some(check) = input.checks.iter().find(|c| c.name == f.path) else {
            continue;
        };
        match &f.test {
            Some(id) => {
                let (path, line) = locate::locate(input.head_root, check, id);
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

/// The API renames the change makes ([`rename`]): from its modified test files and its source
/// files.
fn api_renames(git: &Git, owned: &[Owned]) -> Result<BTreeMap<String, String>, ChecksError> {
    let text = |e: &Option<loki_git::Entry>| -> Result<Option<String>, ChecksError> {
        match e {
            Some(e) if e.mode != "160000" => Ok(Some(
                String::from_utf8_lossy(
                    &git.show_blob(&e.oid)
                        .map_err(git_err("read a changed file"))?,
                )
                .into_owned(),
            )),
            _ => Ok(None),
        }
    };
    let mut tests = Vec::new();
    let mut sources = Vec::new();
    for o in owned {
        match o.owner {
            Owner::TestCode => {
                if let (Some(b), Some(h)) = (text(&o.change.base)?, text(&o.change.head)?) {
                    tests.push((b, h));
                }
            }
            Owner::Source | Owner::Mixed => {
                sources.push((text(&o.change.base)?, text(&o.change.head)?));
            }
            Owner::TestData | Owner::Other => {}
        }
    }
    if tests.is_empty() || sources.is_empty() {
        return Ok(BTreeMap::new());
    }
    Ok(rename::renames(&tests, &sources))
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

/// Which side's paths a hybrid run selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Base,
    Head,
}

/// The part of `check` a hybrid run needs: the changed test files it owns; the whole check when
/// test data or a mixed file changed (any test may read them), or for Go, the package.
fn selection_for(check: &Check, owned: &[&Owned], _side: Side) -> Selection {
    let mine: Vec<&&Owned> = owned
        .iter()
        .filter(|o| {
            checks_for(std::slice::from_ref(check), &o.change.path)
                .iter()
                .any(|c| c.name == check.name)
        })
        .collect();
    if mine.is_empty() {
        return Selection::default();
    }
    let mut files = BTreeSet::new();
    for o in mine {
        match (o.owner, check.kind) {
            // A helper outside the test files may serve any test: run the check whole.
            (Owner::TestCode, _) if !crate::integrity::is_test_path(&o.change.path) => {
                return Selection::default();
            }
            // A test file, or a mixed Rust or Go file (cargo and go narrow by package).
            (Owner::TestCode, _)
            | (Owner::Mixed, CheckKind::Cargo | CheckKind::Nextest | CheckKind::Go) => {
                files.insert(o.change.path.clone());
            }
            // A Go package's test data belongs to the package: run the package.
            (Owner::TestData, CheckKind::Go) => {
                let p = &o.change.path;
                let pkg = p.find("/testdata/").map_or_else(
                    || {
                        if p.starts_with("testdata/") {
                            String::new()
                        } else {
                            p.clone()
                        }
                    },
                    |i| p[..i].to_owned(),
                );
                files.insert(if pkg.is_empty() {
                    "_".to_owned()
                } else {
                    format!("{pkg}/_")
                });
            }
            (Owner::TestData | Owner::Mixed, _) => return Selection::default(),
            (Owner::Source | Owner::Other, _) => {}
        }
    }
    Selection::files(files)
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

/// The suites a helper written in the language of `path` can serve.
fn helper_kinds(path: &str) -> Vec<CheckKind> {
    match path.rsplit_once('.').map_or("", |(_, e)| e) {
        "py" => vec![CheckKind::Pytest],
        "go" => vec![CheckKind::Go],
        "rs" => vec![CheckKind::Cargo, CheckKind::Nextest],
        _ => vec![
            CheckKind::Vitest,
            CheckKind::Jest,
            CheckKind::Node,
            CheckKind::Npm,
        ],
    }
}

/// An added test-owned file that can change how other tests run, and the part of its suite it
/// can affect (`None`: all of it).
#[derive(Debug, Clone)]
struct Takeover {
    path: String,
    scope: Option<String>,
}

/// Whether an added file can change how the other tests run (see [`judge`]'s O run).
fn takes_over(path: &str, bytes: &[u8]) -> Option<Takeover> {
    let text = String::from_utf8_lossy(bytes);
    let name = path.rsplit('/').next().unwrap_or(path);
    let dir = path.rsplit_once('/').map(|(d, _)| d.to_owned());
    if name.ends_with("_test.go") {
        let hooks = text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("func TestMain(") || l.starts_with("func init(")
        });
        // Go narrows by package: a file in the package's directory names it.
        return hooks.then(|| Takeover {
            path: path.to_owned(),
            scope: Some(dir.map_or_else(|| "_".to_owned(), |d| format!("{d}/_"))),
        });
    }
    if name == "conftest.py" {
        return Some(Takeover {
            path: path.to_owned(),
            scope: dir,
        });
    }
    if name.ends_with(".py") && crate::integrity::is_test_path(path) {
        // Module-level code other than imports, definitions and constants runs at collection, in
        // the same process as every other test.
        let side_effects = text.lines().any(|l| {
            if l.starts_with([' ', '\t', '#', ')', ']', '}', '@', '"', '\'']) || l.trim().is_empty()
            {
                return false;
            }
            let t = l.trim();
            let plain_constant = t
                .split_once('=')
                .is_some_and(|(k, _)| k.trim().chars().all(|c| c.is_alphanumeric() || c == '_'));
            t.starts_with("pytest_plugins")
                || !(t.starts_with("import ")
                    || t.starts_with("from ")
                    || t.starts_with("def ")
                    || t.starts_with("async def ")
                    || t.starts_with("class ")
                    || t.starts_with("if __name__")
                    || plain_constant)
        });
        return side_effects.then(|| Takeover {
            path: path.to_owned(),
            scope: None,
        });
    }
    let stem = name.split('.').next().unwrap_or(name);
    let setup = matches!(
        stem,
        "setupTests" | "setup-tests" | "test-setup" | "testSetup" | "setup"
    ) || (matches!(stem, "jest" | "vitest") && name.contains(".setup."));
    setup.then(|| Takeover {
        path: path.to_owned(),
        scope: None,
    })
}

/// Whether a path can hold tests inside its source (only those are read to classify them).
fn might_hold_tests(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "rs" | "py" | "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts"
    )
}

/// Why a check's result on `side` cannot be judged, and what to do, if it cannot.
fn cannot_judge(side: &str, check: &Check, r: &CheckResult) -> Option<CannotJudge> {
    let reason = r.reason.clone().unwrap_or_else(|| "no reason given".into());
    let fix = match r.result {
        // A suite that fails before any test reports (it does not build, its toolchain is
        // missing) says nothing about any test.
        CheckStatus::Fail if r.tests.is_empty() => {
            let why = first_error(&r.log_path);
            let base_fix = fix_for_error(check, why.as_deref().unwrap_or(&reason));
            let fix = match pinned_toolchain(check) {
                Some(pin) => format!("{pin}; {base_fix}"),
                None => base_fix,
            };
            return Some(CannotJudge {
                check: check.name.clone(),
                reason: format!(
                    "{side}: {reason}{}",
                    why.as_deref().map(|w| format!(": {w}")).unwrap_or_default()
                ),
                fix,
            });
        }
        CheckStatus::Pass | CheckStatus::Fail | CheckStatus::Flaky => return None,
        CheckStatus::Timeout => format!(
            "the suite did not finish in time: raise checks.timeout_s or make `{}` faster",
            check.command_line()
        ),
        CheckStatus::NotRun => fix_for(check, &reason),
    };
    Some(CannotJudge {
        check: check.name.clone(),
        reason: format!("{side}: {reason}"),
        fix,
    })
}

/// The first line of a check's log that reads like the reason it could not run.
fn first_error(log: &Path) -> Option<String> {
    let text = std::fs::read(log).ok()?;
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .map(str::trim)
        .find(|l| {
            let low = l.to_ascii_lowercase();
            (low.starts_with("error")
                || low.starts_with("go: ")
                || low.contains("is not installed")
                || low.contains("requires go")
                || low.contains("unknown directive"))
                && !low.starts_with("error: test failed")
        })
        .map(|l| l.chars().take(300).collect())
}

/// The toolchain a project pins, in words, when it pins one: a suite that cannot build often
/// needs exactly that.
fn pinned_toolchain(check: &Check) -> Option<String> {
    let read = |name: &str| std::fs::read_to_string(check.cwd.join(name)).ok();
    if let Some(t) = read("rust-toolchain.toml").or_else(|| read("rust-toolchain")) {
        let channel = t
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix("channel"))
            .map(|v| {
                v.trim_start_matches([' ', '='])
                    .trim()
                    .trim_matches('"')
                    .to_owned()
            })
            .unwrap_or_else(|| t.trim().to_owned());
        return Some(format!(
            "the project pins Rust {channel} (rust-toolchain): `rustup toolchain install {channel}`"
        ));
    }
    let m = read("go.mod")?;
    let toolchain = m
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("toolchain "))
        .map(str::to_owned);
    let go = m
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("go "))
        .map(|v| format!("go{}", v.trim()));
    let want = toolchain.or(go)?;
    Some(format!(
        "the module asks for {want} (go.mod): install that version of Go"
    ))
}

/// What to change so that a suite that failed before any test can run.
fn fix_for_error(check: &Check, why: &str) -> String {
    let low = why.to_ascii_lowercase();
    if let Some(at) = low.find("toolchain '") {
        let name: String = why[at + "toolchain '".len()..]
            .chars()
            .take_while(|c| *c != '\'')
            .collect();
        let short = name.split('-').next().unwrap_or(&name);
        return format!(
            "install the Rust toolchain the project pins: `rustup toolchain install {short}`"
        );
    }
    if low.contains("requires go") {
        return format!("install the Go version the module requires ({why})");
    }
    format!(
        "make `{}` build and run on the base and the head: {why}",
        check.command_line()
    )
}

/// What to install or change so that `check` can run, from why it did not.
fn fix_for(check: &Check, reason: &str) -> String {
    let r = reason.to_ascii_lowercase();
    if let Some(tool) = r.strip_suffix(" not found").filter(|t| !t.contains(' ')) {
        let tool = tool.rsplit('/').next().unwrap_or(tool);
        return match tool {
            "pnpm" => "install pnpm (`corepack enable pnpm`, or `npm install -g pnpm`), then `pnpm install`".into(),
            "yarn" => "install yarn (`corepack enable yarn`, or `npm install -g yarn`), then `yarn install`".into(),
            "go" => "install Go (https://go.dev/dl, or your package manager's golang package)".into(),
            "cargo" => "install Rust (https://rustup.rs)".into(),
            "node" | "npm" => "install Node.js".into(),
            "cargo-nextest" => "install cargo-nextest (`cargo install cargo-nextest`), which this project opts into".into(),
            other => format!("install `{other}` and put it on PATH"),
        };
    }
    if r.contains("no module named pytest") {
        return format!(
            "install pytest for the interpreter the suite runs with: `{} -m pip install pytest`",
            check.command.first().map_or("python3", String::as_str)
        );
    }
    if r.contains("dependencies are not installed") || r.contains("exit 127") {
        let pm = check.command.first().map_or("npm", String::as_str);
        let install = match pm {
            "pnpm" => "pnpm install",
            "yarn" => "yarn install",
            "bun" => "bun install",
            _ => "npm ci",
        };
        return format!(
            "install the package's dependencies: `{install}` in {}",
            check.dir
        );
    }
    if r.contains("no tests executed") {
        return format!(
            "`{}` ran no test: check its configuration selects the tests",
            check.command_line()
        );
    }
    format!("make `{}` run here: {reason}", check.command_line())
}
