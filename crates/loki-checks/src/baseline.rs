//! Baseline comparison: the same checks on the base commit, then each test classified by how its
//! status moved.
//!
//! # Running the baseline ([`run_baseline`])
//! The base tree (of a commit, or a bare tree id such as a working-tree snapshot from
//! [`loki_git::Git::snapshot_worktree`]) is exported into a fresh temporary directory, prepared so
//! that a run there executes the base's code and not the checkout's ([`loki_runner::isolate`]: the
//! checkout's virtualenv and `node_modules` are used without their links into the checkout, and
//! cargo builds into a target directory of its own, never the head's), the checks run there (each
//! [`Check::at_root`] the tree; a package that does not exist at base is `not_run`), logs go to
//! `<log_dir>/base/`, and the directory is removed on every path out.
//!
//! Results are cached by the base **tree** id and a hash of the check definitions, as
//! `<cache_dir>/<tree>-<checks-hash>.json` (schema [`BASELINE_SCHEMA`], atomic write), so an
//! unchanged base is not re-run. A result set with a timeout is not cached (a timeout says more
//! about the machine's load than about the base); an unreadable cache file is ignored and rewritten.
//!
//! # Classification ([`classify`], pure)
//! Every test id reported by a check on either side lands in exactly one [`TestClass`]:
//!
//! | base \ head | passed | failed | skipped | absent |
//! |---|---|---|---|---|
//! | passed  | passing | newly_failing | newly_skipped | missing |
//! | failed  | fixed | still_failing | newly_skipped | missing |
//! | skipped | passing | newly_failing | skipped | missing |
//! | absent  | new | new | new | — |
//!
//! Ids are compared within a check (by check name). An id reported twice in one run counts as
//! its worst status (failed, then passed, then skipped). A check whose run on either side produced
//! no per-test ids (not run, timed out, or counts from a summary line only) is listed in
//! [`Comparison::uncompared`] with the reason: its `missing`/`new` classes are not evidence.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use loki_git::Git;
use loki_protocol::CheckStatus;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions};
use loki_runner::{TestCase, TestStatus};

/// Schema tag of a cached baseline file.
pub const BASELINE_SCHEMA: &str = "loki.baseline/2";
/// Hex digits of the check-set hash in a cache file name: enough to never collide in one repo.
const CHECKS_KEY_LEN: usize = 16;

/// The checks' results on the base commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineResult {
    pub schema: String,
    /// Absent when the base was a bare tree (no commit to check out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_commit: Option<String>,
    pub base_tree: String,
    /// Hex sha256 over the check definitions the results belong to.
    pub checks_key: String,
    pub results: Vec<CheckResult>,
    /// True when read from the cache instead of run now.
    #[serde(skip)]
    pub cached: bool,
}

/// Hex sha256 over each check's name, kind, directory, command and script.
#[must_use]
pub fn checks_key(checks: &[Check]) -> String {
    let mut h = Sha256::new();
    for c in checks {
        let line = serde_json::json!([c.name, c.kind, c.dir, c.command, c.script]).to_string();
        h.update(line.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// The result of a check whose package directory does not exist in a checkout.
pub(crate) fn absent_result(
    check: &Check,
    log_dir: &Path,
    reason: &str,
) -> Result<CheckResult, ChecksError> {
    let log = format!("loki: not started: {reason}\n");
    let log_path = log_dir.join(format!(
        "{}.log",
        check.name.replace(
            |c: char| !c.is_ascii_alphanumeric() && !matches!(c, '-' | '_' | '.'),
            "_"
        )
    ));
    std::fs::create_dir_all(log_dir).map_err(|source| ChecksError::Io {
        action: "create",
        path: log_dir.to_path_buf(),
        source,
    })?;
    loki_core::fs::write_atomic(&log_path, log.as_bytes()).map_err(|source| ChecksError::Log {
        check: check.name.clone(),
        source,
    })?;
    Ok(CheckResult {
        run: loki_protocol::CheckRun {
            name: check.name.clone(),
            kind: check.kind,
            cmd: check.command_line(),
            result: CheckStatus::NotRun,
            executed: 0,
            passed: 0,
            failed: 0,
            skipped: 0,
        },
        failing_ids: Vec::new(),
        duration_s: 0.0,
        log_sha256: hex::encode(Sha256::digest(log.as_bytes())),
        log_path,
        reason: Some(reason.to_owned()),
        exit_code: None,
        attempts: 0,
        report_source: None,
        tests: Vec::new(),
        environment: None,
    })
}

fn read_cache(path: &Path, tree: &str, key: &str) -> Option<BaselineResult> {
    let bytes = std::fs::read(path).ok()?;
    let mut b: BaselineResult = serde_json::from_slice(&bytes).ok()?;
    (b.schema == BASELINE_SCHEMA && b.base_tree == tree && b.checks_key == key).then(|| {
        b.cached = true;
        b
    })
}

/// Where the baseline of `tree` for `checks` is cached.
pub(crate) fn cache_path(cache_dir: &Path, tree: &str, checks: &[Check]) -> (PathBuf, String) {
    let key = checks_key(checks);
    (
        cache_dir.join(format!("{tree}-{}.json", &key[..CHECKS_KEY_LEN])),
        key,
    )
}

/// The cached baseline of `tree` for `checks`, if there is a valid one.
pub(crate) fn cached(cache_dir: &Path, tree: &str, checks: &[Check]) -> Option<BaselineResult> {
    let (path, key) = cache_path(cache_dir, tree, checks);
    read_cache(&path, tree, &key)
}

/// Caches `baseline` unless a check timed out (a timeout says more about the machine's load than
/// about the base).
pub(crate) fn store(
    cache_dir: &Path,
    checks: &[Check],
    baseline: &BaselineResult,
) -> Result<(), ChecksError> {
    if baseline
        .results
        .iter()
        .any(|r| r.run.result == CheckStatus::Timeout)
    {
        return Ok(());
    }
    let (path, _) = cache_path(cache_dir, &baseline.base_tree, checks);
    std::fs::create_dir_all(cache_dir).map_err(|source| ChecksError::Io {
        action: "create",
        path: cache_dir.to_path_buf(),
        source,
    })?;
    loki_core::fs::write_json_atomic(&path, baseline)
        .map_err(|source| ChecksError::Cache { path, source })
}

/// Runs `checks` (detected in the checkout at `repo_root`) on `base_rev` (a commit, or a tree
/// id), or reads the result cached for its tree in `cache_dir`. The tree is exported into a
/// temporary directory (nothing of the user's repository changes) and prepared so that its own
/// code runs ([`loki_runner::isolate`]). See the module doc.
pub fn run_baseline(
    repo_root: &Path,
    base_rev: &str,
    checks: &[Check],
    opts: &RunOptions,
    cache_dir: &Path,
) -> Result<BaselineResult, ChecksError> {
    let git = Git::new(repo_root);
    let bad_rev = |source| ChecksError::BadRevision {
        rev: base_rev.to_owned(),
        source,
    };
    let tree = git.tree_of(base_rev).map_err(bad_rev)?;
    // A bare tree (a working-tree snapshot taken when an agent session started) has no commit.
    let commit = match git.rev_parse(&format!("{base_rev}^{{commit}}")) {
        Ok(c) => Some(c),
        Err(loki_git::GitError::Failed { .. }) => None,
        Err(source) => return Err(bad_rev(source)),
    };
    let (_, key) = cache_path(cache_dir, &tree, checks);
    if let Some(hit) = cached(cache_dir, &tree, checks) {
        return Ok(hit);
    }
    let side = crate::judge::trees::SideTree::export(
        &git, repo_root, &tree, "base", checks, opts, cache_dir,
    )?;
    let results = side.run(checks, opts, opts.log_dir.join("base"))?;
    let baseline = BaselineResult {
        schema: BASELINE_SCHEMA.to_owned(),
        base_commit: commit,
        base_tree: tree,
        checks_key: key,
        results,
        cached: false,
    };
    store(cache_dir, checks, &baseline)?;
    Ok(baseline)
}

/// How a test's status moved from base to head (the table in the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestClass {
    NewlyFailing,
    Fixed,
    StillFailing,
    Missing,
    New,
    NewlySkipped,
    Passing,
    Skipped,
}

/// One test id and its class.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassifiedTest {
    pub check: String,
    pub id: String,
    pub class: TestClass,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<TestStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head: Option<TestStatus>,
}

/// A check whose tests could not be compared id by id, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uncompared {
    pub check: String,
    pub reason: String,
}

/// Every test of base and head, classified.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparison {
    /// Sorted by check, then id.
    pub tests: Vec<ClassifiedTest>,
    pub uncompared: Vec<Uncompared>,
}

impl Comparison {
    /// The tests of one class.
    pub fn of(&self, class: TestClass) -> impl Iterator<Item = &ClassifiedTest> {
        self.tests.iter().filter(move |t| t.class == class)
    }

    /// Ids of one class, in order.
    #[must_use]
    pub fn ids(&self, class: TestClass) -> Vec<String> {
        self.of(class).map(|t| t.id.clone()).collect()
    }
}

fn rank(s: TestStatus) -> u8 {
    match s {
        TestStatus::Failed => 2,
        TestStatus::Passed => 1,
        TestStatus::Skipped => 0,
    }
}

/// Each id's worst status in one run.
pub(crate) fn statuses(tests: &[TestCase]) -> BTreeMap<&str, TestStatus> {
    let mut m: BTreeMap<&str, TestStatus> = BTreeMap::new();
    for t in tests {
        m.entry(t.id.as_str())
            .and_modify(|s| {
                if rank(t.status) > rank(*s) {
                    *s = t.status;
                }
            })
            .or_insert(t.status);
    }
    m
}

/// The class of one id from its base and head status (`None` = absent), or `None` when absent on both.
#[must_use]
pub fn class_of(base: Option<TestStatus>, head: Option<TestStatus>) -> Option<TestClass> {
    use TestStatus::{Failed, Passed, Skipped};
    Some(match (base, head) {
        (None, None) => return None,
        (None, Some(_)) => TestClass::New,
        (Some(_), None) => TestClass::Missing,
        (Some(Passed | Skipped), Some(Passed)) => TestClass::Passing,
        (Some(Passed | Skipped), Some(Failed)) => TestClass::NewlyFailing,
        (Some(Passed | Failed), Some(Skipped)) => TestClass::NewlySkipped,
        (Some(Failed), Some(Passed)) => TestClass::Fixed,
        (Some(Failed), Some(Failed)) => TestClass::StillFailing,
        (Some(Skipped), Some(Skipped)) => TestClass::Skipped,
    })
}

/// Why a run's per-test list cannot be trusted as complete, if it cannot.
fn incomplete(side: &str, r: &CheckResult) -> Option<String> {
    let named = r
        .tests
        .iter()
        .filter(|t| t.status != TestStatus::Skipped)
        .count();
    let named = u64::try_from(named).unwrap_or(u64::MAX);
    if !r.tests.is_empty() && named >= r.run.executed {
        return None;
    }
    let reason = r.reason.as_deref().unwrap_or("no reason given");
    Some(match r.run.result {
        CheckStatus::NotRun => format!("{side}: not run ({reason})"),
        CheckStatus::Timeout => format!("{side}: timed out ({reason})"),
        CheckStatus::Unparseable => format!("{side}: unparseable output ({reason})"),
        CheckStatus::Pass | CheckStatus::Fail | CheckStatus::Flaky if r.tests.is_empty() => {
            format!("{side}: no per-test results ({reason})")
        }
        CheckStatus::Pass | CheckStatus::Fail | CheckStatus::Flaky => format!(
            "{side}: only {named} of {} executed tests were named (counts from a summary line)",
            r.run.executed
        ),
    })
}

/// Classifies every test id of `base` and `head` (results of the same checks). Pure.
#[must_use]
pub fn classify(base: &[CheckResult], head: &[CheckResult]) -> Comparison {
    let by_name = |rs: &'_ [CheckResult]| -> BTreeMap<String, usize> {
        rs.iter()
            .enumerate()
            .map(|(i, r)| (r.run.name.clone(), i))
            .collect()
    };
    let (bn, hn) = (by_name(base), by_name(head));
    let names: BTreeSet<&String> = bn.keys().chain(hn.keys()).collect();
    let mut out = Comparison::default();
    for name in names {
        let b = bn.get(name).map(|&i| &base[i]);
        let h = hn.get(name).map(|&i| &head[i]);
        let reasons: Vec<String> = [("base", b), ("head", h)]
            .iter()
            .filter_map(|(side, r)| r.and_then(|r| incomplete(side, r)))
            .collect();
        if !reasons.is_empty() {
            out.uncompared.push(Uncompared {
                check: name.clone(),
                reason: reasons.join("; "),
            });
        }
        let bs = b.map(|r| statuses(&r.tests)).unwrap_or_default();
        let hs = h.map(|r| statuses(&r.tests)).unwrap_or_default();
        let ids: BTreeSet<&str> = bs.keys().chain(hs.keys()).copied().collect();
        for id in ids {
            let (base, head) = (bs.get(id).copied(), hs.get(id).copied());
            if let Some(class) = class_of(base, head) {
                out.tests.push(ClassifiedTest {
                    check: name.clone(),
                    id: id.to_owned(),
                    class,
                    base,
                    head,
                });
            }
        }
    }
    out
}
