//! Test items spliced between versions of a source file, proven with real runners on temp git
//! repositories: in each fixture the head regresses a function *and* weakens its test in the same
//! file. "Head code + base tests" (the splice the judge runs as "the original tests on the new
//! code") must fail where restoring the whole base file passes (it restores the old function too),
//! and "base code + head tests" shows the weakened test passing on the old code: the two facts the
//! judge needs to call the test weakened.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_process::{Spec, run, scrubbed_env};
use loki_runner::splice::{ItemKind, has_test_items, splice, test_items};
use loki_test_support::GitRepo;

/// A repository with a base and a head commit, and a temp dir for checkouts and build output.
struct Fixture {
    repo: GitRepo,
    base: String,
    head: String,
    scratch: tempfile::TempDir,
}

impl Fixture {
    fn new(common: &[(&str, &str)], base: &[(&str, &str)], head: &[(&str, &str)]) -> Fixture {
        let repo = GitRepo::new();
        for (path, body) in common.iter().chain(base) {
            repo.write(path, body);
        }
        let base = repo.commit("base");
        for (path, body) in head {
            repo.write(path, body);
        }
        let head = repo.commit("head: regress and weaken");
        Fixture {
            repo,
            base,
            head,
            scratch: tempfile::tempdir().unwrap(),
        }
    }

    fn show(&self, rev: &str, path: &str) -> Vec<u8> {
        self.repo
            .git(&["show", &format!("{rev}:{path}")])
            .into_bytes()
    }

    /// A new worktree of `rev` with `path` replaced by `bytes`.
    fn checkout(&self, name: &str, rev: &str, path: &str, bytes: &[u8]) -> PathBuf {
        let dir = self.scratch.path().join(name);
        self.repo.git(&[
            "worktree",
            "add",
            "-q",
            "--detach",
            dir.to_str().unwrap(),
            rev,
        ]);
        std::fs::write(dir.join(path), bytes).unwrap();
        dir
    }

    /// The two hybrids the judge builds for `path`, checked out: original tests on the new code
    /// (head code + base tests) and new tests on the old code (base code + head tests).
    fn hybrids(&self, path: &str) -> (PathBuf, PathBuf) {
        let (base, head) = (self.show(&self.base, path), self.show(&self.head, path));
        assert!(has_test_items(path, &base) && has_test_items(path, &head));
        let original_on_new = splice(path, &head, &base).expect("splice head code + base tests");
        let new_on_old = splice(path, &base, &head).expect("splice base code + head tests");
        (
            self.checkout("original-on-new", &self.head, path, &original_on_new),
            self.checkout("new-on-old", &self.base, path, &new_on_old),
        )
    }

    /// What a whole-file restore would give: the base file, on the head checkout.
    fn whole_file(&self, path: &str) -> PathBuf {
        self.checkout("whole-file", &self.head, path, &self.show(&self.base, path))
    }
}

/// Runs a command to completion: whether it succeeded, and its combined output.
fn run_in(dir: &Path, program: &str, args: &[&str], env: &[(&str, &Path)]) -> (bool, String) {
    let mut vars: Vec<(OsString, OsString)> = scrubbed_env()
        .into_iter()
        .filter(|(k, _)| k != "CARGO_TARGET_DIR" && k != "RUSTFLAGS")
        .collect();
    vars.push(("CARGO_TERM_COLOR".into(), "never".into()));
    vars.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
    for (k, v) in env {
        vars.push(((*k).into(), v.as_os_str().to_owned()));
    }
    let spec = Spec::new(program, dir)
        .args(args)
        .envs(vars)
        .timeout(Duration::from_secs(600));
    let out = run(&spec).unwrap_or_else(|e| panic!("{program} {args:?}: {e}"));
    (out.success(), out.output.text())
}

const CARGO_TOML: &str =
    "[package]\nname = \"fixture\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";

const LIB_BASE: &str = r"/// Clamps a percentage into `0..=100`.
pub fn percent(x: i32) -> i32 {
    x.clamp(0, 100)
}

/// Doubles.
///
/// ```
/// assert_eq!(fixture::double(3), 6);
/// ```
pub fn double(x: i32) -> i32 {
    x * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_high() {
        assert_eq!(percent(150), 100);
    }
}
";

/// Both functions regressed; the unit test and the doctest weakened to accept the bug.
const LIB_HEAD: &str = r"/// Clamps a percentage into `0..=100`.
pub fn percent(x: i32) -> i32 {
    x.max(0)
}

/// Doubles.
///
/// ```
/// assert!(fixture::double(3) > 4);
/// ```
pub fn double(x: i32) -> i32 {
    x + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_high() {
        assert!(percent(150) >= 100);
    }
}
";

#[test]
fn rust_unit_tests_and_doctests_spliced_under_cargo_test() {
    let f = Fixture::new(
        &[("Cargo.toml", CARGO_TOML), (".gitignore", "target\n")],
        &[("src/lib.rs", LIB_BASE)],
        &[("src/lib.rs", LIB_HEAD)],
    );
    let keys: Vec<(String, ItemKind)> = test_items("src/lib.rs", LIB_BASE.as_bytes())
        .unwrap()
        .into_iter()
        .map(|i| (i.key, i.kind))
        .collect();
    assert_eq!(
        keys,
        vec![
            ("doc fn double".to_string(), ItemKind::Doctest),
            ("mod tests".to_string(), ItemKind::TestModule),
        ]
    );
    let target = f.scratch.path().join("target");
    let cargo = |dir: &Path, what: &str| {
        run_in(
            dir,
            "cargo",
            &["test", what],
            &[("CARGO_TARGET_DIR", &target)],
        )
    };

    // The cheat is green on its own terms.
    let head = f.checkout("head", &f.head, "src/lib.rs", LIB_HEAD.as_bytes());
    for what in ["--lib", "--doc"] {
        let (ok, log) = cargo(&head, what);
        assert!(ok, "head {what} should pass:\n{log}");
    }

    let (original_on_new, new_on_old) = f.hybrids("src/lib.rs");
    let hybrid = std::fs::read_to_string(original_on_new.join("src/lib.rs")).unwrap();
    assert!(
        hybrid.contains("x.max(0)") && hybrid.contains("x + 2"),
        "{hybrid}"
    );
    assert!(hybrid.contains("assert_eq!(percent(150), 100)") && hybrid.contains("double(3), 6"));

    // Original tests on the new code: both fail, each for its own reason.
    let (ok, log) = cargo(&original_on_new, "--lib");
    assert!(
        !ok,
        "the original unit test must fail on the new code:\n{log}"
    );
    assert!(log.contains("test tests::clamps_high ... FAILED"), "{log}");
    let (ok, log) = cargo(&original_on_new, "--doc");
    assert!(
        !ok,
        "the original doctest must fail on the new code:\n{log}"
    );
    assert!(log.contains("double (line 8) ... FAILED"), "{log}");

    // A whole-file restore brings the old functions back with the old tests: blind.
    let whole = f.whole_file("src/lib.rs");
    for what in ["--lib", "--doc"] {
        let (ok, log) = cargo(&whole, what);
        assert!(
            ok,
            "whole-file restore {what} passes (that is the bug):\n{log}"
        );
    }

    // New tests on the old code: the weakened forms pass there too, so they were weakened.
    for what in ["--lib", "--doc"] {
        let (ok, log) = cargo(&new_on_old, what);
        assert!(ok, "the weakened tests pass on the old code {what}:\n{log}");
    }
    let (_, log) = cargo(&new_on_old, "--lib");
    assert!(log.contains("test tests::clamps_high ... ok"), "{log}");
}

const PY_BASE: &str = r#"def percent(x):
    """Clamp a percentage into 0..100.

    >>> percent(150)
    100
    """
    return max(0, min(100, x))
"#;

const PY_HEAD: &str = r#"def percent(x):
    """Clamp a percentage into 0..100.

    >>> percent(150) >= 100
    True
    """
    return max(0, x)
"#;

#[test]
fn python_doctests_spliced_under_pytest() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let f = Fixture::new(&[], &[("calc.py", PY_BASE)], &[("calc.py", PY_HEAD)]);
    let pytest = |dir: &Path| {
        run_in(
            dir,
            "python3",
            &[
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--doctest-modules",
                "calc.py",
            ],
            &[],
        )
    };
    let head = f.checkout("head", &f.head, "calc.py", PY_HEAD.as_bytes());
    let (ok, log) = pytest(&head);
    assert!(
        ok && log.contains("1 passed"),
        "head passes its own doctest:\n{log}"
    );

    let (original_on_new, new_on_old) = f.hybrids("calc.py");
    let hybrid = std::fs::read_to_string(original_on_new.join("calc.py")).unwrap();
    assert!(hybrid.contains("return max(0, x)") && hybrid.contains(">>> percent(150)\n    100"));

    let (ok, log) = pytest(&original_on_new);
    assert!(
        !ok,
        "the original doctest must fail on the new code:\n{log}"
    );
    assert!(
        log.contains("calc.percent") && log.contains("1 failed"),
        "{log}"
    );

    let (ok, log) = pytest(&f.whole_file("calc.py"));
    assert!(ok, "whole-file restore passes (that is the bug):\n{log}");

    let (ok, log) = pytest(&new_on_old);
    assert!(
        ok && log.contains("1 passed"),
        "the weakened doctest passes on the old code:\n{log}"
    );
}

const JS_BASE: &str = "export function percent(x) {\n  return Math.max(0, Math.min(100, x));\n}\n\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('clamps high', () => {\n    expect(percent(150)).toBe(100);\n  });\n}\n";
const JS_HEAD: &str = "export function percent(x) {\n  return Math.max(0, x);\n}\n\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('clamps high', () => {\n    expect(percent(150)).toBeGreaterThanOrEqual(100);\n  });\n}\n";

#[test]
fn vitest_in_source_tests_spliced_under_vitest() {
    let Some(modules) = loki_test_support::require_npm(&["vitest"]) else {
        return;
    };
    let f = Fixture::new(
        &[
            (
                "package.json",
                "{ \"type\": \"module\", \"private\": true }\n",
            ),
            (
                "vitest.config.mjs",
                "export default { test: { includeSource: ['src/**/*.js'] } };\n",
            ),
            (".gitignore", "node_modules\n"),
        ],
        &[("src/percent.js", JS_BASE)],
        &[("src/percent.js", JS_HEAD)],
    );
    let vitest = |dir: &Path| {
        std::os::unix::fs::symlink(&modules, dir.join("node_modules")).unwrap();
        let entry = modules.join("vitest/vitest.mjs");
        run_in(dir, "node", &[entry.to_str().unwrap(), "run"], &[])
    };
    let head = f.checkout("head", &f.head, "src/percent.js", JS_HEAD.as_bytes());
    let (ok, log) = vitest(&head);
    assert!(
        ok && log.contains("1 passed"),
        "head passes its own test:\n{log}"
    );

    let (original_on_new, new_on_old) = f.hybrids("src/percent.js");
    let (ok, log) = vitest(&original_on_new);
    assert!(
        !ok,
        "the original in-source test must fail on the new code:\n{log}"
    );
    assert!(
        log.contains("clamps high") && log.contains("1 failed"),
        "{log}"
    );

    let (ok, log) = vitest(&f.whole_file("src/percent.js"));
    assert!(ok, "whole-file restore passes (that is the bug):\n{log}");

    let (ok, log) = vitest(&new_on_old);
    assert!(
        ok && log.contains("1 passed"),
        "the weakened test passes on the old code:\n{log}"
    );
}
