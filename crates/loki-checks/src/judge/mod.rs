//! The judge: one decision on a change, from running the repository's own suites, shared by the
//! stop hook (`loki seal`) and the build engine's verify stage.
//!
//! # Four runs
//! - **B**, base code with base tests, and **H**, head code with head tests: every test classified
//!   by how its status moved ([`matrix`]), tests matched across moves by identity ([`identity`]).
//! - **O**, head code with the base version of every test-owned file the change modified or
//!   deleted ([`owned`], [`trees::hybrid`]): the original tests on the new code. Run only when such
//!   a file exists, narrowed to those files ([`loki_runner::select`]).
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
//! and prepared so that its own code runs ([`loki_runner::isolate`]). O and N run in their
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
//! ([`loki_runner::exec::RunFence`]): the judge's private directory (every exported tree and every
//! run's report directory), the baseline cache and the logs are read-only to it, except its own
//! tree, build directory and report directory. A kernel without Landlock is said in NOT PROVEN.
//! What a run reports about itself is still written by the process that runs the tests (pytest's
//! plugin, vitest's and jest's reporters, libtest's and `go test`'s output): that is checked
//! against the exit status and the runner's own summary ([`loki_runner::exec`]) and against the
//! static rules for run takeovers, not fenced.
//!
//! # Static rules
//! [`loki_integrity::scan`] over every changed file judges what running cannot see (CI, test
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
mod phases;
pub mod rename;
mod reruns;
mod restructure;
mod settle;
mod shared;
mod status;
pub mod trees;

use std::path::Path;

use loki_git::Git;
use loki_protocol::CheckStatus;
use serde::{Deserialize, Serialize};

use crate::baseline::{self, BaselineResult, Comparison};
use loki_protocol::Finding;
use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions};

pub use declare::{Declarable, DeclareKind};
pub use loki_protocol::outcome::Verdict;
pub use matrix::{Fact, FactKind};
use owned::Owner;
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
        fence: Some(loki_runner::exec::RunFence {
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

/// The judgement, phase by phase: [`phases`] gathers the evidence, [`settle`] folds it into the
/// verdict (each module's doc says what its phases take and give).
fn judge_runs(input: &JudgeInput<'_>) -> Result<Judged, ChecksError> {
    let ctx = phases::Ctx::new(input)?;
    let mut out = Judged::default();
    let phases::Changed {
        changes,
        tree_paths,
        owned,
        doubted,
    } = phases::changed(&ctx)?;
    let plan = original::plan(input, &ctx.git, &owned)?;
    out.not_proven.extend(plan.notes());
    let base_side = phases::run_suites(&ctx, &plan, &mut out)?;
    phases::static_rules(&ctx, &changes, tree_paths, &owned, &mut out)?;
    let data = test_data_changes(&ctx.git, &owned);
    let sides = ctx.sides(&data);
    let decided = phases::decide(&ctx, &plan, &sides, &mut out);
    let needs = &decided.needs_new_on_base;
    phases::new_on_base(&ctx, &plan, needs, &mut out)?;
    phases::helpers_in_doubt(&ctx, &owned, &doubted, needs, &mut out)?;
    phases::reruns(&ctx, &decided.newly_failing, base_side, &mut out)?;
    phases::order_checks(&ctx, &mut out)?;
    settle::counted_by_running(input, &mut out);
    settle::declarations(&ctx, &owned, &sides, &mut out);
    settle::weakened_without_code(&ctx, &owned, &mut out);
    settle::no_silent_pass(input, &mut out);
    settle::locate_findings(&ctx, &mut out);
    settle::tidy(&mut out);
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
                loki_protocol::FindingKind::TestConfigChanged,
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
    r.run.result == CheckStatus::Fail
        && !r.tests.is_empty()
        && r.tests
            .iter()
            .all(|t| t.status != loki_runner::TestStatus::Failed)
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
    if base.is_some_and(|b| b.run.result == CheckStatus::Pass) {
        (
            Some(loki_protocol::Finding::new(
                loki_protocol::FindingKind::SuiteBroken,
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
            .filter(|b| b.len() <= loki_integrity::MAX_SCAN_BYTES && !b.contains(&0))
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
        let Some(c) = checks.iter().find(|c| c.name == r.run.name) else {
            continue;
        };
        for t in &r.tests {
            let Some(file) = loki_runner::ids::file_part(c.kind, &t.id) else {
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
