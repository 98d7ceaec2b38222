//! Original tests on new code: the rule that catches a test edited to stop checking.
//!
//! For every test file the change **modified** (added files have no original; deleted ones are
//! `test_file_removed`), the base version of the file runs against the new code: the head tree is
//! exported into a temporary directory ([`loki_git::Git::export_tree`]; the user's checkout is never
//! touched), each modified test file is overwritten there with its base bytes, and the checks whose
//! package holds one of those files run (the deepest package directory containing the file).
//!
//! A test that **passed at base**, **did not fail at head**, and **fails or disappears** under its
//! original file is a `weakened_test` finding naming its id ([`judge`], pure): the original
//! assertion no longer holds on the new code, and the edit to the test hid that. A test already
//! failing at head is a plain regression and belongs to the baseline comparison, not here.
//! When the original file's check ends without any per-test result (the base test file no longer
//! builds against the new code), each restored file of that check gets one finding instead. A
//! check that could not say (not run, timed out) is listed in [`WeakenedReport::not_proven`].
//!
//! Logs go to `<log_dir>/original-tests/`. The same `node_modules` linking and `CARGO_TARGET_DIR`
//! advice as for the baseline apply.

use std::collections::BTreeSet;
use std::path::Path;

use loki_git::{ChangeKind, Git};
use serde::{Deserialize, Serialize};

use crate::ChecksError;
use crate::baseline::{link_untracked_deps, run_in, statuses};
use crate::detect::Check;
use crate::exec::{CheckResult, CheckStatus, RunOptions};
use crate::integrity::{Finding, FindingKind, is_test_file};
use crate::report::TestStatus;

/// What running the original test files on the new code showed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WeakenedReport {
    /// Modified test files that ran in their base version.
    pub restored: Vec<String>,
    /// The checks run with them.
    pub runs: Vec<CheckResult>,
    /// `weakened_test` findings.
    pub findings: Vec<Finding>,
    /// Checks whose run could not prove anything either way, with the reason.
    pub not_proven: Vec<String>,
}

pub use crate::detect::checks_for;

/// The restored file a test id most likely comes from: one whose path (relative to the check's
/// directory) or file stem the id names, else the first.
fn file_of<'a>(check: &Check, id: &str, files: &'a [String]) -> Option<&'a String> {
    let rel = |f: &'a String| -> &'a str {
        if check.dir == "." {
            f
        } else {
            f.strip_prefix(&format!("{}/", check.dir)).unwrap_or(f)
        }
    };
    let stem = |f: &str| {
        let name = f.rsplit('/').next().unwrap_or(f);
        name.split('.').next().unwrap_or(name).to_owned()
    };
    files
        .iter()
        .find(|f| id.contains(rel(f)))
        .or_else(|| {
            files
                .iter()
                .find(|f| id.split([':', '.', '/', ' ']).any(|part| part == stem(f)))
        })
        .or_else(|| files.first())
}

/// The `weakened_test` findings for one check (see the module doc). Pure. `restored` are the
/// check's restored test files; `head` is `None` when the check did not run at head.
#[must_use]
pub fn judge(
    check: &Check,
    restored: &[String],
    base: &CheckResult,
    head: Option<&CheckResult>,
    original: &CheckResult,
) -> Vec<Finding> {
    if original.tests.is_empty() {
        if original.result != CheckStatus::Fail {
            return Vec::new();
        }
        let reason = original.reason.as_deref().unwrap_or("no reason given");
        return restored
            .iter()
            .map(|f| {
                Finding::new(
                    FindingKind::WeakenedTest,
                    f,
                    format!(
                        "the base version of this test file fails against the new code before any test reports ({}: {reason})",
                        check.name
                    ),
                )
            })
            .collect();
    }
    let (b, o) = (statuses(&base.tests), statuses(&original.tests));
    let h = head.map(|r| statuses(&r.tests)).unwrap_or_default();
    b.iter()
        .filter(|(_, s)| **s == TestStatus::Passed)
        .filter(|(id, _)| h.get(*id) != Some(&TestStatus::Failed))
        .filter_map(|(id, _)| {
            let how = match o.get(id) {
                Some(TestStatus::Failed) => "fails",
                None => "disappears",
                Some(TestStatus::Passed | TestStatus::Skipped) => return None,
            };
            let file = file_of(check, id, restored)?;
            Some(Finding::new(
                FindingKind::WeakenedTest,
                file,
                format!(
                    "{id} passed at base and {how} when the base version of {file} runs against the new code"
                ),
            ))
        })
        .collect()
}

/// Test files modified between `base` and `head_tree` (commits or trees), with their base bytes.
pub fn modified_test_files(
    git: &Git,
    base: &str,
    head_tree: &str,
) -> Result<Vec<(String, Vec<u8>)>, ChecksError> {
    let fail = |action| move |source| ChecksError::Git { action, source };
    let mut out = Vec::new();
    for c in git
        .changes(base, head_tree)
        .map_err(fail("list the changed files"))?
    {
        if !matches!(c.kind, ChangeKind::Modified | ChangeKind::TypeChanged) {
            continue;
        }
        if let Some(bytes) = git
            .show_file(base, &c.path)
            .map_err(fail("read a test file at base"))?
            && is_test_file(&c.path, &bytes)
        {
            out.push((c.path, bytes));
        }
    }
    Ok(out)
}

/// Runs the base version of every modified test file against the head tree `head_tree` of the
/// repository at `repo_root` (module doc). `checks` are the checks detected in `repo_root`;
/// `base_rev` is a commit or a tree id; `base` and `head` are the checks' results there and on the
/// head.
pub fn original_tests_on_new_code(
    repo_root: &Path,
    base_rev: &str,
    head_tree: &str,
    checks: &[Check],
    base: &[CheckResult],
    head: &[CheckResult],
    opts: &RunOptions,
) -> Result<WeakenedReport, ChecksError> {
    let git = Git::new(repo_root);
    let base_tree = git
        .tree_of(base_rev)
        .map_err(|source| ChecksError::BadRevision {
            rev: base_rev.to_owned(),
            source,
        })?;
    let files = modified_test_files(&git, &base_tree, head_tree)?;
    let mut report = WeakenedReport {
        restored: files.iter().map(|(p, _)| p.clone()).collect(),
        ..WeakenedReport::default()
    };
    let affected: BTreeSet<&str> = report
        .restored
        .iter()
        .flat_map(|f| checks_for(checks, f))
        .map(|c| c.name.as_str())
        .collect();
    if affected.is_empty() {
        return Ok(report);
    }
    let tmp = tempfile::Builder::new()
        .prefix("loki-original-tests-")
        .tempdir()
        .map_err(|source| ChecksError::Temp {
            check: "original tests".into(),
            source,
        })?;
    let root = tmp.path().join("head");
    git.export_tree(head_tree, &root)
        .map_err(|source| ChecksError::Git {
            action: "export the head tree",
            source,
        })?;
    for (path, bytes) in &files {
        let dest = root.join(path);
        // The head may have replaced the file by a symlink; the original is a regular file.
        if dest
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            std::fs::remove_file(&dest).map_err(|source| ChecksError::Io {
                action: "remove",
                path: dest.clone(),
                source,
            })?;
        }
        loki_core::fs::write_atomic(&dest, bytes).map_err(|source| ChecksError::Log {
            check: "original tests".into(),
            source,
        })?;
    }
    let to_run: Vec<Check> = checks
        .iter()
        .filter(|c| affected.contains(c.name.as_str()))
        .cloned()
        .collect();
    link_untracked_deps(repo_root, &root, &to_run)?;
    report.runs = run_in(&root, &to_run, opts, opts.log_dir.join("original-tests"))?;
    for (check, original) in to_run.iter().zip(&report.runs) {
        let restored: Vec<String> = report
            .restored
            .iter()
            .filter(|f| checks_for(checks, f).iter().any(|c| c.name == check.name))
            .cloned()
            .collect();
        let Some(b) = base.iter().find(|r| r.name == check.name) else {
            report.not_proven.push(format!(
                "{}: no baseline result to compare with",
                check.name
            ));
            continue;
        };
        match original.result {
            CheckStatus::NotRun | CheckStatus::Timeout => {
                report.not_proven.push(format!(
                    "{}: the original test files could not be run ({})",
                    check.name,
                    original.reason.as_deref().unwrap_or("no reason given")
                ));
                continue;
            }
            CheckStatus::Pass | CheckStatus::Fail | CheckStatus::Flaky => {}
        }
        let h = head.iter().find(|r| r.name == check.name);
        report
            .findings
            .extend(judge(check, &restored, b, h, original));
    }
    report.findings.sort();
    report.findings.dedup();
    Ok(report)
}
