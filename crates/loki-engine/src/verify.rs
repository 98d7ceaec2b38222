//! The verify stage: the impacted tests, the wall, and the integrity rules against the base.
//!
//! - **Impacted tests**: the checks owning a changed path (deepest package directory containing it;
//!   all checks when a changed path belongs to none, or with `--deep`). Each runs once more when it
//!   fails: fail-then-pass is `flaky`, which is not a pass.
//! - **Wall**: each sealed wall file through its own check ([`loki_contract::wall::wall_check`]).
//! - **Lint**: the changed lines through the repository's linter ([`loki_lint`], "new from
//!   diff"): a finding on a line the change touched fails verification; a linter that could not
//!   run, and changed files no linter covers, are listed as not proven.
//! - **The judge** ([`loki_checks::judge`]), the same one `loki seal` uses: the impacted suites on
//!   the base (cached per check and tree), the original tests on the new code and the new tests on
//!   the old code when the change touched tests, the static integrity rules, each test matched
//!   across moves. Wall files are excluded: their edits are handled by restoring, see
//!   [`loki_contract::wall`]. Its findings fail verification; its facts (moved and flaky tests) go
//!   into the receipt; a suite it cannot judge is not proven.
//! - **Expectation changes** (a test that expects something else now, a test removed with its
//!   code): a build run has no one to declare intent, so the task must show it. A change is
//!   accepted when a wall test, written from the task alone, failed on the base, passes now, and
//!   exercises what the changed test exercises (a name both use); it is then recorded as declared
//!   by the wall. Otherwise the run cannot be VERIFIED: "expectation of T changed without evidence
//!   from the task" is in NOT PROVEN (the run ends PARTIAL at best).
//!
//! Afterwards the worktree is put back to the tree that was judged ([`loki_git::Git::reset_to_tree`]):
//! files the checks wrote are listed in [`Verification::generated`] and never reach the commit
//! or the next round's diff.
//!
//! The [`Verification::signature`] of a failing verification (failing test ids, failing checks,
//! findings) is what the fix loop compares to detect a stall.

use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_contract::wall::Wall;
use loki_events::payload::{CheckResult as CheckEvent, IntegrityFinding as FindingEvent};
use loki_git::Git;
use loki_lint::{LintInput, LintRun};
use loki_protocol::Finding;
use loki_protocol::{CheckStatus, Stage};
use loki_receipt::NotProven;
use loki_runner::{Check, CheckResult, RunOptions, run_check};
use sha2::{Digest, Sha256};

use crate::EngineError;
use crate::intake::Intake;
use crate::run::{MIN_CHECK_TIME, Run, Step};

/// Characters of a failing check's log shown to the fixing agent.
const FEEDBACK_LOG_CHARS: usize = 3000;

/// One check's result with its role in the receipt (`tests` or `wall`).
#[derive(Debug, Clone, PartialEq)]
pub struct RoleResult {
    pub role: loki_protocol::CheckRole,
    pub result: CheckResult,
}

/// What one verification found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verification {
    pub head_tree: String,
    pub changed: Vec<String>,
    pub results: Vec<RoleResult>,
    pub findings: Vec<Finding>,
    pub not_proven: Vec<NotProven>,
    pub pre_existing: Vec<String>,
    /// The judge's facts (deliberate behaviour changes, moved tests, flaky tests).
    pub facts: Vec<loki_checks::judge::Fact>,
    pub full_suite: bool,
    /// Paths the checks themselves wrote (lockfiles, snapshots, reports), put back afterwards.
    pub generated: Vec<String>,
    /// The linters that judged the changed lines (`pass` or `fail`); ones that could not run are
    /// in `not_proven` instead.
    pub lint: Vec<LintRun>,
    /// The judge could not judge part of the change (its reasons are in `not_proven`): the run
    /// cannot be VERIFIED, though no retry of the agent's would change that.
    pub unjudged: bool,
    /// The wall files that had their sealed bytes when their checks ran.
    pub wall_intact: Vec<String>,
    /// Expectation changes the wall proves were asked for, as declarations.
    pub declared: Vec<loki_receipt::schema::Declaration>,
}

impl Verification {
    /// Every check proved something and nothing was found.
    #[must_use]
    pub fn passed(&self) -> bool {
        !self.results.is_empty()
            && self.results.iter().all(|r| proves(&r.result))
            && self.findings.is_empty()
            && self.lint.iter().all(|l| l.result == CheckStatus::Pass)
    }

    /// The wall's checks all proved something (false when there are none).
    #[must_use]
    pub fn wall_passed(&self) -> bool {
        let wall: Vec<&RoleResult> = self
            .results
            .iter()
            .filter(|r| r.role == loki_protocol::CheckRole::Wall)
            .collect();
        !wall.is_empty() && wall.iter().all(|r| proves(&r.result))
    }

    /// A short hash of what failed: equal signatures mean the same failure.
    #[must_use]
    pub fn signature(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for r in self.results.iter().filter(|r| !proves(&r.result)) {
            parts.push(format!(
                "check {} {:?}",
                r.result.run.name, r.result.run.result
            ));
            parts.extend(
                r.result
                    .failing_ids
                    .iter()
                    .map(|id| format!("test {}:{id}", r.result.run.name)),
            );
        }
        parts.extend(
            self.findings
                .iter()
                .map(|f| format!("finding {} {}", f.kind.as_str(), f.path)),
        );
        for l in self.lint.iter().filter(|l| l.result != CheckStatus::Pass) {
            parts.extend(l.new_findings.iter().map(|f| {
                format!(
                    "lint {} {}:{} {}",
                    l.name,
                    f.path,
                    f.line.unwrap_or(0),
                    f.code.as_deref().unwrap_or(&f.message)
                )
            }));
        }
        parts.sort();
        let digest = Sha256::digest(parts.join("\n").as_bytes());
        hex::encode(&digest[..8])
    }

    /// The failures grouped by check, for the fixing agent.
    #[must_use]
    pub fn feedback(&self) -> String {
        let mut s = String::new();
        for r in self.results.iter().filter(|r| !proves(&r.result)) {
            let c = &r.result;
            s.push_str(&format!(
                "## {} `{}`: {} ({} failed of {} executed){}\n",
                r.role,
                c.run.cmd,
                c.run.result.describe(),
                c.run.failed,
                c.run.executed,
                c.reason
                    .as_ref()
                    .map(|x| format!(": {x}"))
                    .unwrap_or_default()
            ));
            for id in &c.failing_ids {
                s.push_str(&format!("- failing: {id}\n"));
            }
            let log = std::fs::read(&c.log_path)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            let tail: String = log
                .chars()
                .rev()
                .take(FEEDBACK_LOG_CHARS)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            s.push_str(&format!("```\n{tail}\n```\n"));
        }
        for l in self.lint.iter().filter(|l| l.result != CheckStatus::Pass) {
            s.push_str(&format!(
                "## lint `{}`: {} finding(s) on lines you changed\n",
                l.cmd,
                l.new_findings.len()
            ));
            for f in &l.new_findings {
                let line = f.line.map(|n| format!(":{n}")).unwrap_or_default();
                let code = f
                    .code
                    .as_deref()
                    .map(|c| format!("{c} "))
                    .unwrap_or_default();
                s.push_str(&format!("- {}{line}: {code}{}\n", f.path, f.message));
            }
        }
        if !self.findings.is_empty() {
            s.push_str("## integrity findings (changes that weaken the tests are not accepted)\n");
            for f in &self.findings {
                s.push_str(&format!("- {} {}: {}\n", f.kind.as_str(), f.path, f.detail));
            }
        }
        s
    }
}

/// A check result proves something: passed, more than zero executed, none failed (the one rule,
/// [`loki_protocol::CheckRun::proves`]).
#[must_use]
pub fn proves(c: &CheckResult) -> bool {
    c.run.proves()
}

/// Where and how verification runs.
#[derive(Debug)]
pub struct VerifyInput<'a> {
    pub worktree: &'a Path,
    pub base: &'a str,
    pub checks: &'a [Check],
    pub wall: &'a Wall,
    pub env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    pub log_dir: PathBuf,
    pub timeout: Duration,
    pub deep: bool,
    pub baseline_cache: PathBuf,
    /// The confinement wrapper of the checks (they run the agent's code); empty: none.
    pub wrapper: Vec<std::ffi::OsString>,
    /// The `loki` binary that fences the judge's runs from each other; `None`: not fenced.
    pub confine_exe: Option<PathBuf>,
    /// The user's checkout, whose untracked dependencies (virtualenv, `node_modules`) the base and
    /// the judge's other trees use.
    pub checkout: &'a Path,
    /// Each wall file's run on the unchanged base (the gate): what the wall proves new.
    pub wall_base: &'a [CheckResult],
}

/// The paths changed from `base` to the worktree as it is now, wall files excluded, and the tree.
pub fn changed_paths(
    worktree: &Path,
    base: &str,
    wall: &Wall,
) -> Result<(String, Vec<String>), EngineError> {
    let git = Git::new(worktree);
    let tree = git.snapshot_worktree_cached()?;
    let changed = git
        .changes(base, &tree)?
        .into_iter()
        .map(|c| c.path)
        .filter(|p| !wall.files.iter().any(|w| &w.path == p))
        .collect();
    Ok((tree, changed))
}

/// The checks a change impacts (see the module doc).
#[must_use]
pub fn impacted(checks: &[Check], changed: &[String], deep: bool) -> (Vec<Check>, bool) {
    if deep
        || changed
            .iter()
            .any(|p| loki_runner::detect::checks_for(checks, p).is_empty())
    {
        return (checks.to_vec(), true);
    }
    let mut out: Vec<Check> = Vec::new();
    for p in changed {
        for c in loki_runner::detect::checks_for(checks, p) {
            if !out.iter().any(|o| o.name == c.name) {
                out.push(c.clone());
            }
        }
    }
    let all = out.len() == checks.len();
    (out, all)
}

/// Runs one verification.
pub fn run(input: &VerifyInput<'_>) -> Result<Verification, EngineError> {
    let (head_tree, changed) = changed_paths(input.worktree, input.base, input.wall)?;
    let mut v = Verification {
        head_tree: head_tree.clone(),
        changed: changed.clone(),
        ..Verification::default()
    };
    let opts = RunOptions {
        timeout: input.timeout,
        output_cap: loki_runner::exec::DEFAULT_LOG_CAP,
        log_dir: input.log_dir.clone(),
        env: input.env.clone(),
        rerun_failed: true,
        wrapper: input.wrapper.clone(),
        confine_exe: input.confine_exe.clone(),
        fence: None,
    };
    let (to_run, full) = if changed.is_empty() {
        (Vec::new(), false)
    } else {
        impacted(input.checks, &changed, input.deep)
    };
    v.full_suite = full;
    let mut head_results = Vec::new();
    for c in &to_run {
        let r = run_check(&c.at_root(input.worktree), &opts)?;
        head_results.push(r.clone());
        v.results.push(RoleResult {
            role: loki_protocol::CheckRole::Tests,
            result: r,
        });
    }
    for w in &input.wall.files {
        // What runs must be what was sealed, or the result proves nothing about the contract.
        if std::fs::read(input.worktree.join(&w.path)).is_ok_and(|b| b == w.bytes) {
            v.wall_intact.push(w.path.clone());
        }
        let r = run_check(&w.check, &opts)?;
        v.results.push(RoleResult {
            role: loki_protocol::CheckRole::Wall,
            result: r,
        });
    }
    let git = Git::new(input.worktree);
    let wall_paths: Vec<&str> = input.wall.files.iter().map(|w| w.path.as_str()).collect();
    lint(input, &git, &head_tree, &wall_paths, &opts, &mut v)?;
    if to_run.is_empty() {
        v.findings = loki_integrity::scan_changes(&git, input.base, &head_tree)
            .map_err(loki_checks::scan_error)?
            .into_iter()
            .filter(|f| !wall_paths.contains(&f.path.as_str()))
            .collect();
    } else {
        judge_change(
            input,
            &head_tree,
            &wall_paths,
            &to_run,
            &head_results,
            &opts,
            &mut v,
        )?;
    }
    v.findings.sort();
    v.findings.dedup();
    // The worktree goes back to the tree that was judged, so what the tests wrote is neither
    // committed nor mistaken for the agent's work by the next round.
    v.generated = git.reset_to_tree(&head_tree)?;
    Ok(v)
}

/// Judges the change: the judge's findings, facts and NOT PROVEN entries, and the
/// declarations a wall test supports.
fn judge_change(
    input: &VerifyInput<'_>,
    head_tree: &str,
    wall_paths: &[&str],
    to_run: &[Check],
    head_results: &[loki_runner::CheckResult],
    opts: &RunOptions,
    v: &mut Verification,
) -> Result<(), EngineError> {
    let exclude: Vec<String> = wall_paths.iter().map(|p| (*p).to_owned()).collect();
    let judged = loki_checks::judge::judge(&loki_checks::judge::JudgeInput {
        repo_root: input.checkout,
        head_root: input.worktree,
        base: input.base,
        head_tree,
        checks: to_run,
        base_results: None,
        head_results: Some(head_results),
        opts: &RunOptions {
            log_dir: input.log_dir.join("judge"),
            ..opts.clone()
        },
        cache_dir: &input.baseline_cache,
        exclude: &exclude,
    })?;
    v.findings = judged.findings;
    v.facts = judged.facts;
    declare(input, v, &judged.declare);
    v.pre_existing = judged.pre_existing;
    v.unjudged |= !judged.cannot_judge.is_empty();
    v.not_proven.extend(
        judged.cannot_judge.iter().map(|c| {
            loki_receipt::not_proven::cannot_judge(&c.check, &c.reason, &c.fix, input.base)
        }),
    );
    v.not_proven.extend(
        judged
            .not_proven
            .into_iter()
            .map(|n| loki_receipt::not_proven::judge_note(n, input.base)),
    );
    Ok(())
}

/// Each changed expectation the judge would have the agent declare: declared with the wall
/// test that shows the task asked for it, else NOT PROVEN (and the run is not judged clean).
fn declare(
    input: &VerifyInput<'_>,
    v: &mut Verification,
    declare: &[loki_checks::judge::Declarable],
) {
    for d in declare {
        match wall_evidence(input, v, d) {
            Some(by) => v.declared.push(loki_receipt::schema::Declaration {
                kind: match d.kind {
                    loki_checks::judge::DeclareKind::ExpectationChanged => {
                        loki_receipt::schema::DeclarationKind::ExpectationChanged
                    }
                    loki_checks::judge::DeclareKind::RemovedWithCode => {
                        loki_receipt::schema::DeclarationKind::RemovedWithCode
                    }
                },
                test: d.test.clone(),
                reason: format!(
                    "the task's acceptance test {by} failed on the base and passes now"
                ),
                was: d.was.clone(),
                now: d.now.clone(),
            }),
            None => {
                v.unjudged = true;
                v.not_proven.push(NotProven::new(
                    format!("expectation of {}", d.test),
                    "changed without evidence from the task (no acceptance test that failed on the base and passes now exercises it)",
                    format!("loki seal check --base {} --declared FILE", input.base),
                ));
            }
        }
    }
}

/// The wall test that shows a changed expectation was asked for: it failed on the base, passes
/// now with its sealed bytes, and its file names something the changed test's lines name.
fn wall_evidence(
    input: &VerifyInput<'_>,
    v: &Verification,
    d: &loki_checks::judge::Declarable,
) -> Option<String> {
    let words = |text: &str| -> std::collections::BTreeSet<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| w.len() >= 3 && w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
            .filter(|w| !COMMON_WORDS.contains(&w.to_ascii_lowercase().as_str()))
            .map(str::to_owned)
            .collect()
    };
    let changed = words(
        &d.was
            .iter()
            .chain(&d.now)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n"),
    );
    for w in &input.wall.files {
        if !v.wall_intact.contains(&w.path) {
            continue;
        }
        let head = v.results.iter().find(|r| {
            r.role == loki_protocol::CheckRole::Wall && r.result.run.name == w.check.name
        })?;
        let base = input.wall_base.iter().find(|r| r.run.name == w.check.name);
        let newly: Vec<&str> = head
            .result
            .tests
            .iter()
            .filter(|t| t.status == loki_runner::TestStatus::Passed)
            .filter(|t| {
                base.is_some_and(|b| {
                    b.tests
                        .iter()
                        .any(|bt| bt.id == t.id && bt.status == loki_runner::TestStatus::Failed)
                })
            })
            .map(|t| t.id.as_str())
            .collect();
        if newly.is_empty() {
            continue;
        }
        let text = String::from_utf8_lossy(&w.bytes);
        if words(&text).iter().any(|x| changed.contains(x)) {
            return Some(format!("{} ({})", w.path, newly.join(", ")));
        }
    }
    None
}

/// Words every test has: they link nothing.
const COMMON_WORDS: &[&str] = &[
    "assert",
    "assert_eq",
    "expect",
    "tobe",
    "toequal",
    "equal",
    "strictequal",
    "deepequal",
    "true",
    "false",
    "none",
    "null",
    "nil",
    "self",
    "return",
    "test",
    "tests",
    "def",
    "func",
    "const",
    "let",
    "var",
    "import",
    "from",
    "want",
    "got",
    "err",
    "error",
    "len",
    "str",
    "int",
];

/// Lints the lines the change touched (wall files excluded: they are sealed, not the agent's).
fn lint(
    input: &VerifyInput<'_>,
    git: &Git,
    head_tree: &str,
    wall_paths: &[&str],
    opts: &RunOptions,
    v: &mut Verification,
) -> Result<(), EngineError> {
    let changed: Vec<loki_lint::ChangedFile> =
        loki_lint::changed_lines(git, input.base, head_tree)?
            .into_iter()
            .filter(|f| !wall_paths.contains(&f.path.as_str()))
            .collect();
    if changed.is_empty() {
        return Ok(());
    }
    let opts = RunOptions {
        log_dir: input.log_dir.join("lint"),
        rerun_failed: false,
        ..opts.clone()
    };
    let report = loki_lint::run(&LintInput {
        root: input.worktree,
        changed: &changed,
        opts: &opts,
    })?;
    for run in report.runs {
        match run.result {
            CheckStatus::Pass | CheckStatus::Fail => v.lint.push(run),
            CheckStatus::NotRun
            | CheckStatus::Flaky
            | CheckStatus::Timeout
            | CheckStatus::Unparseable => {
                v.not_proven.push(NotProven::new(
                    run.name.clone(),
                    format!(
                        "{} ({})",
                        run.result.describe(),
                        run.reason.as_deref().unwrap_or("no reason given")
                    ),
                    run.cmd.clone(),
                ));
            }
        }
    }
    v.not_proven.extend(report.not_covered.into_iter().map(|n| {
        NotProven::new(
            n,
            "no linter loki knows ran on these files (loki doctor lists the linters it finds and how to install them)",
            "loki doctor",
        )
    }));
    Ok(())
}

/// The verify stage of a run: [`run`] on the worktree `i` with the wall `wall` (whose run on
/// the base is `wall_base`), each result and finding logged; `round` counts the verifications
/// before this one (it names the logs' directory).
pub(crate) fn stage(
    s: &mut Run<'_>,
    i: &Intake,
    wall: &Wall,
    wall_base: &[loki_runner::CheckResult],
    round: usize,
) -> Result<(Step, Verification), EngineError> {
    let input = VerifyInput {
        worktree: &i.worktree,
        base: &s.base,
        checks: &i.tests.checks,
        wall,
        env: i.fence.check_env(&s.repo),
        log_dir: s.run_dir.join("checks").join(format!("verify-{round}")),
        timeout: s.opts.check_timeout.min(s.time_left()).max(MIN_CHECK_TIME),
        deep: s.opts.deep,
        baseline_cache: s.opts.home.join("cache"),
        checkout: &s.repo.root,
        wrapper: s.check_wrapper.clone(),
        confine_exe: s.opts.confine_exe.clone(),
        wall_base,
    };
    let v = run(&input)?;
    for r in &v.results {
        s.checks_s += r.result.duration_s;
        s.log
            .append(&CheckEvent::from(&r.result).in_stage(Stage::Verify, r.role))?;
    }
    for l in &v.lint {
        s.checks_s += l.duration_s;
        s.log
            .append(&CheckEvent::from(l).in_stage(Stage::Verify, loki_protocol::CheckRole::Lint))?;
    }
    for f in &v.findings {
        s.log.append(&FindingEvent::from(f))?;
    }
    let detail = format!(
        "{} changed file(s) · {} check(s), {} proving · {} lint run(s), {} new lint finding(s) · {} finding(s){}",
        v.changed.len(),
        v.results.len(),
        v.results.iter().filter(|r| proves(&r.result)).count(),
        v.lint.len(),
        v.lint.iter().map(|l| l.new_findings.len()).sum::<usize>(),
        v.findings.len(),
        generated_note(&v.generated)
    );
    Ok((Step::Done(detail), v))
}

/// ` · N file(s) the checks wrote put back (a, b, …)`, or nothing.
pub(crate) fn generated_note(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    if paths.is_empty() {
        return String::new();
    }
    let mut shown = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        shown.push_str(", …");
    }
    format!(
        " · {} file(s) the checks wrote put back ({shown})",
        paths.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_protocol::CheckKind;

    fn check(name: &str, dir: &str) -> Check {
        Check {
            name: name.into(),
            kind: CheckKind::Pytest,
            dir: dir.into(),
            cwd: PathBuf::from("/r").join(dir),
            command: vec![],
            script: None,
            why: String::new(),
        }
    }

    #[test]
    fn impacted_checks_are_the_owners_of_the_changed_paths() {
        let checks = [check("pytest:a", "a"), check("pytest:b", "b")];
        let (got, full) = impacted(&checks, &["a/x.py".into()], false);
        assert_eq!(
            got.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["pytest:a"]
        );
        assert!(!full);
        let (got, full) = impacted(&checks, &["README.md".into()], false);
        assert_eq!(got.len(), 2);
        assert!(full);
    }
}
