//! The seal end to end with real git and real runners (cargo, pytest, node --test) on fixture
//! repositories in temp dirs: a clean change, a real regression named by `classify`, and cheats
//! caught by the scan or by running the original tests on the new code. Each runner gets one test
//! that walks its cases through one fixture, so builds stay few (two cores).

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use loki_checks::judge::{JudgeInput, Judged, judge};
use loki_checks::{TestClass, classify, run_baseline};
use loki_core::exit::{Classify as _, ExitClass};
use loki_git::Git;
use loki_integrity::scan_changes;
use loki_protocol::CheckStatus;
use loki_protocol::FindingKind;
use loki_runner::{Check, CheckResult, RunOptions, Tools, detect_with, run_check};
use loki_test_support::GitRepo;

pub(super) struct Fixture {
    pub(super) repo: GitRepo,
    pub(super) tmp: tempfile::TempDir,
    pub(super) base: String,
    pub(super) checks: Vec<Check>,
    pub(super) opts: RunOptions,
}

impl Fixture {
    /// Commits `files` as the base and detects the checks.
    pub(super) fn new(files: &[(&str, &str)], env: &[(&str, &Path)]) -> Fixture {
        let repo = GitRepo::new();
        for (p, body) in files {
            repo.write(p, body);
        }
        let base = repo.commit("base");
        let tmp = tempfile::tempdir().unwrap();
        let mut opts = RunOptions::new(tmp.path().join("logs"));
        opts.timeout = Duration::from_secs(300);
        // Two cores: a failing check is not rerun here (flakiness is exec's concern, tested there).
        opts.rerun_failed = false;
        for (k, v) in env {
            opts.env.retain(|(n, _)| n != k);
            opts.env.push((OsString::from(k), v.as_os_str().to_owned()));
        }
        let checks = detect_with(repo.path(), Tools { nextest: false }).unwrap();
        assert_eq!(checks.len(), 1, "{checks:#?}");
        Fixture {
            repo,
            tmp,
            base,
            checks,
            opts,
        }
    }

    pub(super) fn cache(&self) -> std::path::PathBuf {
        self.tmp.path().join("cache")
    }

    /// Writes `files` over the base state (restoring every other base file first).
    pub(super) fn change(&self, files: &[(&str, &str)]) {
        self.repo.git(&["checkout", "-q", "--", "."]);
        self.repo.git(&["clean", "-q", "-fd", "-e", "Cargo.lock"]);
        for (p, body) in files {
            self.repo.write(p, body);
        }
    }

    pub(super) fn head_tree(&self) -> String {
        Git::new(self.repo.path()).snapshot_worktree().unwrap()
    }

    pub(super) fn run_head(&self) -> Vec<CheckResult> {
        self.checks
            .iter()
            .map(|c| run_check(c, &self.opts).unwrap())
            .collect()
    }

    /// The judge on the working tree against the base.
    pub(super) fn judge(&self) -> Judged {
        judge(&JudgeInput {
            repo_root: self.repo.path(),
            head_root: self.repo.path(),
            base: &self.base,
            head_tree: &self.head_tree(),
            checks: &self.checks,
            base_results: None,
            head_results: None,
            opts: &self.opts,
            cache_dir: &self.cache(),
            exclude: &[],
        })
        .unwrap()
    }

    pub(super) fn scan(&self) -> Vec<(FindingKind, String)> {
        let g = Git::new(self.repo.path());
        scan_changes(&g, &self.base, &self.head_tree())
            .unwrap()
            .into_iter()
            .map(|f| (f.kind, f.path))
            .collect()
    }
}

pub(super) fn show(rs: &[CheckResult]) -> String {
    rs.iter()
        .map(|r| {
            format!(
                "{r:#?}\n--- log ---\n{}",
                std::fs::read_to_string(&r.log_path).unwrap_or_default()
            )
        })
        .collect()
}

/// The three seal cases on one fixture: clean, regression, weakened test. `weakened` breaks the
/// code and rewrites the test so the head passes; `expect_weakened` is the test id it hides.
pub(super) fn walk(
    f: &Fixture,
    clean: &[(&str, &str)],
    regression: &[(&str, &str)],
    weakened: &[(&str, &str)],
    regressed_id: &str,
) {
    // Clean change: no findings, the head passes, nothing newly failing against the baseline.
    f.change(clean);
    assert_eq!(f.scan(), []);
    let head = f.run_head();
    assert_eq!(head[0].run.result, CheckStatus::Pass, "{}", show(&head));
    let base = run_baseline(f.repo.path(), &f.base, &f.checks, &f.opts, &f.cache()).unwrap();
    assert!(!base.cached);
    assert_eq!(
        base.results[0].run.result,
        CheckStatus::Pass,
        "{}",
        show(&base.results)
    );
    assert!(
        base.results[0]
            .log_path
            .starts_with(f.tmp.path().join("logs/base"))
    );
    let c = classify(&base.results, &head);
    assert!(c.ids(TestClass::NewlyFailing).is_empty(), "{c:#?}");
    assert!(
        c.uncompared.is_empty(),
        "per-test ids on both sides: {c:#?}"
    );
    assert!(
        c.ids(TestClass::Passing)
            .iter()
            .any(|id| id.ends_with(regressed_id)),
        "{c:#?}"
    );
    let j = f.judge();
    assert_eq!(j.verdict(), loki_checks::judge::Verdict::Clean, "{j:#?}");
    assert!(j.original.is_empty() && j.new_on_base.is_empty(), "{j:#?}");
    // No base worktree is left behind.
    assert_eq!(
        f.repo
            .git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );

    // A real regression: the baseline comes from the cache and classify names the test.
    f.change(regression);
    assert_eq!(f.scan(), []);
    let head = f.run_head();
    assert_eq!(head[0].run.result, CheckStatus::Fail, "{}", show(&head));
    let base = run_baseline(f.repo.path(), &f.base, &f.checks, &f.opts, &f.cache()).unwrap();
    assert!(base.cached);
    let c = classify(&base.results, &head);
    let newly = c.ids(TestClass::NewlyFailing);
    assert!(
        newly.len() == 1 && newly[0].ends_with(regressed_id),
        "{c:#?}"
    );

    // The cheat: code broken, test weakened so the head passes; the original test file catches it.
    f.change(weakened);
    let head = f.run_head();
    assert_eq!(
        head[0].run.result,
        CheckStatus::Pass,
        "the cheat passes its own tests: {}",
        show(&head)
    );
    let j = f.judge();
    let finding = j
        .findings
        .iter()
        .find(|x| x.kind == FindingKind::WeakenedTest)
        .unwrap_or_else(|| panic!("{j:#?}\n{}", show(&j.original)));
    assert!(
        finding
            .test
            .as_deref()
            .is_some_and(|t| t.ends_with(regressed_id)),
        "{finding:?}"
    );
    assert!(
        j.original[0]
            .log_path
            .starts_with(f.tmp.path().join("logs/original-tests")),
        "{j:#?}"
    );
    // The regression on its own is newly failing.
    f.change(regression);
    let j = f.judge();
    assert!(
        j.findings
            .iter()
            .any(|x| x.kind == FindingKind::NewlyFailing
                && x.test.as_deref().is_some_and(|t| t.ends_with(regressed_id))),
        "{j:#?}"
    );
    f.change(weakened);
    // The user's checkout still holds the weakened test (the original ran in a temporary copy).
    let (path, body) = weakened.iter().find(|(p, _)| *p == finding.path).unwrap();
    assert_eq!(
        std::fs::read_to_string(f.repo.path().join(path)).unwrap(),
        *body
    );
}

const CARGO_TOML: &str =
    "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
const ADD_TEST: &str = "use fixture::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n\n#[test]\nfn adds_zero() {\n    assert_eq!(add(0, 0), 0);\n}\n";

#[test]
fn cargo_seal() {
    let target = tempfile::tempdir().unwrap();
    let f = Fixture::new(
        &[
            ("Cargo.toml", CARGO_TOML),
            ("src/lib.rs", LIB),
            ("tests/add.rs", ADD_TEST),
            (".gitignore", "Cargo.lock\n"),
        ],
        &[("CARGO_TARGET_DIR", target.path())],
    );
    let broken = LIB.replace("a + b", "a - b");
    walk(
        &f,
        &[(
            "src/lib.rs",
            &format!("{LIB}\npub fn mul(a: i32, b: i32) -> i32 {{\n    a * b\n}}\n"),
        )],
        &[("src/lib.rs", &broken)],
        &[
            ("src/lib.rs", &broken),
            (
                "tests/add.rs",
                &ADD_TEST.replace("assert_eq!(add(2, 2), 4);", "assert!(true);"),
            ),
        ],
        "adds",
    );
    // A scripted cheat per Rust rule, caught by the scan without running anything.
    f.change(&[(
        "tests/add.rs",
        &ADD_TEST.replace("#[test]\nfn adds()", "#[test]\n#[ignore]\nfn adds()"),
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::SkipMarkerAdded, "tests/add.rs".to_owned())]
    );
    f.change(&[(".cargo/config.toml", "[alias]\ntest = \"build\"\n")]);
    assert_eq!(
        f.scan(),
        [(
            FindingKind::TestConfigChanged,
            ".cargo/config.toml".to_owned()
        )]
    );
    f.change(&[]);
    std::fs::remove_file(f.repo.path().join("tests/add.rs")).unwrap();
    assert_eq!(
        f.scan(),
        [(FindingKind::TestFileRemoved, "tests/add.rs".to_owned())]
    );
}

const CALC: &str = "def add(a, b):\n    return a + b\n";
const PY_TEST: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
const FAKE_PASS_CONFTEST: &str = "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    report = outcome.get_result()\n    if report.failed:\n        report.outcome = 'passed'\n";

#[test]
fn pytest_seal() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let f = Fixture::new(
        &[
            ("calc.py", CALC),
            ("tests/test_calc.py", PY_TEST),
            ("pytest.ini", "[pytest]\npythonpath = .\n"),
        ],
        &[],
    );
    // Wrong only when a > 1: test_add fails, test_zero still passes.
    let broken = CALC.replace("a + b", "a + b + (1 if a > 1 else 0)");
    walk(
        &f,
        &[(
            "calc.py",
            &format!("{CALC}\n\ndef sub(a, b):\n    return a - b\n"),
        )],
        &[("calc.py", &broken)],
        &[
            ("calc.py", &broken),
            (
                "tests/test_calc.py",
                &PY_TEST.replace("assert add(2, 2) == 4", "assert True"),
            ),
        ],
        "test_add",
    );
    // A conftest hook that turns failures into passes: the head "passes", the scan refuses it.
    f.change(&[
        ("calc.py", &CALC.replace("a + b", "a - b")),
        ("tests/conftest.py", FAKE_PASS_CONFTEST),
    ]);
    let head = f.run_head();
    assert_eq!(
        head[0].run.result,
        CheckStatus::Pass,
        "the cheat fools pytest: {}",
        show(&head)
    );
    let found = f.scan();
    assert!(
        found.contains(&(FindingKind::OutcomeRewrite, "tests/conftest.py".to_owned())),
        "{found:?}"
    );
    // A conftest is test code, not configuration: only what it does is a finding.
    assert!(
        !found.contains(&(
            FindingKind::TestConfigChanged,
            "tests/conftest.py".to_owned()
        )),
        "{found:?}"
    );
    // Expected failures and deselection through configuration.
    f.change(&[(
        "tests/test_calc.py",
        &PY_TEST.replace(
            "def test_add",
            "import pytest\n\n@pytest.mark.xfail\ndef test_add",
        ),
    )]);
    // An expected failure is its own class since the judge vocabulary (not a skip).
    assert_eq!(
        f.scan(),
        [(
            FindingKind::FailureExpected,
            "tests/test_calc.py".to_owned()
        )]
    );
    f.change(&[(
        "pytest.ini",
        "[pytest]\npythonpath = .\naddopts = -k 'not add'\n",
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::TestConfigChanged, "pytest.ini".to_owned())]
    );
}

const MATH: &str = "exports.add = (a, b) => a + b;\n";
const NODE_TEST: &str = "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../math.js');\n\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n\ntest('adds zero', () => {\n  assert.strictEqual(add(0, 0), 0);\n});\n";

#[test]
fn node_seal() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let f = Fixture::new(&[("math.js", MATH), ("test/math.test.js", NODE_TEST)], &[]);
    // Wrong only when a > 1: 'adds' fails, 'adds zero' still passes.
    let broken = MATH.replace("a + b", "a + b + (a > 1 ? 1 : 0)");
    walk(
        &f,
        &[(
            "math.js",
            &format!("{MATH}exports.sub = (a, b) => a - b;\n"),
        )],
        &[("math.js", &broken)],
        &[
            ("math.js", &broken),
            (
                "test/math.test.js",
                &NODE_TEST.replace("assert.strictEqual(add(2, 2), 4);", "assert.ok(add(2, 2));"),
            ),
        ],
        "adds",
    );
    f.change(&[(
        "test/math.test.js",
        &NODE_TEST.replace("test('adds zero'", "test.skip('adds zero'"),
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::SkipMarkerAdded, "test/math.test.js".to_owned())]
    );
}

#[test]
fn baseline_of_a_package_new_at_head_and_a_bad_revision() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let repo = GitRepo::new();
    repo.write("README.md", "hi\n");
    let base = repo.commit("base");
    repo.write("py/pyproject.toml", "[project]\nname = \"p\"\n")
        .write("py/tests/test_a.py", "def test_a():\n    assert True\n");
    let checks = detect_with(repo.path(), Tools { nextest: false }).unwrap();
    assert_eq!(checks.len(), 1, "{checks:#?}");
    assert_eq!(checks[0].dir, "py");
    let tmp = tempfile::tempdir().unwrap();
    let opts = RunOptions::new(tmp.path().join("logs"));
    let b = run_baseline(
        repo.path(),
        "HEAD",
        &checks,
        &opts,
        &tmp.path().join("cache"),
    )
    .unwrap();
    assert_eq!(b.base_commit.as_deref(), Some(base.as_str()));
    assert_eq!(b.results[0].run.result, CheckStatus::NotRun);
    assert_eq!(
        b.results[0].reason.as_deref(),
        Some("the package directory does not exist in this revision")
    );
    assert!(b.results[0].log_path.is_file());
    // The baseline is cached; beside it, the exported base tree is kept for the next run.
    let cached: Vec<String> = tmp
        .path()
        .join("cache")
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "trees")
        .collect();
    assert_eq!(cached.len(), 1, "{cached:?}");
    let err = run_baseline(
        repo.path(),
        "no-such-rev",
        &checks,
        &opts,
        &tmp.path().join("cache"),
    )
    .unwrap_err();
    assert_eq!(err.exit_class(), ExitClass::Usage, "{err}");
    assert!(err.to_string().contains("no-such-rev"), "{err}");
    // A bare tree (the working tree as an agent session found it) is exported and run.
    let snapshot = Git::new(repo.path()).snapshot_worktree().unwrap();
    let b = run_baseline(
        repo.path(),
        &snapshot,
        &checks,
        &opts,
        &tmp.path().join("cache"),
    )
    .unwrap();
    assert_eq!(
        (b.base_commit.as_deref(), b.base_tree.as_str()),
        (None, snapshot.as_str())
    );
    assert_eq!(
        b.results[0].run.result,
        CheckStatus::Pass,
        "{}",
        show(&b.results)
    );
    assert_eq!(b.results[0].tests.len(), 1);
    assert_eq!(
        repo.git(&["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
}
