//! Narrowing a check to part of its suite: the test files a change touched, or the test ids a
//! judgement needs to see again (a rerun of a failing test on the base, the original form of a
//! modified test on the new code).
//!
//! [`narrowed`] rewrites a check's command with the runner's own selection syntax (each runner's
//! `Runner::narrow`, in `crate::runners`):
//!
//! | runner | files | test ids |
//! |---|---|---|
//! | pytest | the paths, relative to the check's directory | the node ids |
//! | cargo test | `-p <package>` per file, plus `--test <name>` when every file is an integration test | `-p <package>`, `--tests` (or `--doc` when every id is a doctest) and `-- --exact <path>…` |
//! | nextest | `-p <package>`, plus `--test <name>` as for cargo | `-p <package>` |
//! | go test | `./<dir>` per package | the packages, and `-run '^(TestA\|TestB)$'` |
//! | vitest, jest (a plain runner script, or one runner among read-only checkers such as `eslint && vitest run`, which a narrowed run leaves out) | the paths after `--` (jest: as escaped patterns) | the files of the ids |
//! | node --test | the paths | the files of the ids |
//! | maven (Surefire) | `-Dtest=<class>` per file under `src/test/java` | `-Dtest=<class>#<method>` |
//!
//! Test ids may be asked for more than once in one run ([`Selection::repeated`]) where the runner
//! repeats tests itself ([`repeats_in_one_run`]: `go test -count=N`, pytest with loki's plugin's
//! `--loki-repeat=N`); the caller runs the others that many times.
//!
//! A narrowed `go test` skips vet (`-vet=off`, about a third of a one-test run): the full runs at
//! head and base vet every package as the project's suite does, and a narrowed run asks only how
//! the selected tests behave.
//!
//! cargo's target flags keep a rerun of unit or integration tests from also running rustdoc over
//! the crate's doctests (cargo runs them only when no target is named); a command that names its
//! own targets keeps them.
//!
//! Anything it cannot express exactly — an npm script that chains a build step or two runners, a file outside the check's
//! directory, an id without the parts it needs — gives `None`, and the caller runs the whole check:
//! narrowing only ever saves time, it never changes which tests a judgement sees.

use std::path::Path;

use crate::detect::Check;
use crate::runners::runner;
use loki_protocol::CheckKind;

/// What part of a check to run. Paths are relative to the repository root, with `/`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    pub files: Vec<String>,
    pub tests: Vec<String>,
    /// How many times each test runs in the one run; 0 and 1 mean once.
    pub repeat: u32,
    /// Only the named tests, not the rest of their files (vitest and jest `-t`, node
    /// `--test-name-pattern`; pytest, cargo and go select by name anyway).
    pub exact: bool,
    /// The selected tests in reverse order (pytest, with loki's plugin's `--loki-reverse`).
    pub reverse: bool,
}

impl Selection {
    /// Only these files.
    #[must_use]
    pub fn files(files: impl IntoIterator<Item = String>) -> Selection {
        Selection {
            files: files.into_iter().collect(),
            ..Selection::default()
        }
    }

    /// Only these test ids.
    #[must_use]
    pub fn tests(tests: impl IntoIterator<Item = String>) -> Selection {
        Selection {
            tests: tests.into_iter().collect(),
            ..Selection::default()
        }
    }

    /// The same tests, each run `times` times in the one run (see [`repeats_in_one_run`]).
    #[must_use]
    pub fn repeated(self, times: u32) -> Selection {
        Selection {
            repeat: times,
            ..self
        }
    }

    /// The same tests, without the rest of their files.
    #[must_use]
    pub fn exact(self) -> Selection {
        Selection {
            exact: true,
            ..self
        }
    }

    /// The same selection run in reverse order.
    #[must_use]
    pub fn reversed(self) -> Selection {
        Selection {
            reverse: true,
            ..self
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.tests.is_empty()
    }
}

/// Whether one run of `kind` can repeat each selected test ([`Selection::repeated`]).
#[must_use]
pub fn repeats_in_one_run(kind: CheckKind) -> bool {
    runner(kind).repeats_in_one_run()
}

/// Whether a narrowed run of `kind` can select a file that holds tests inside its source (cargo
/// and go narrow by package).
#[must_use]
pub fn selects_mixed_files(kind: CheckKind) -> bool {
    runner(kind).selects_mixed_files()
}

/// The file to select in a check of `kind` so that the tests reading the test data at `path` run
/// (a Go package's `testdata/` belongs to the package: a file of the package names it); `None`
/// when any test of the check may read it.
#[must_use]
pub fn test_data_selection(kind: CheckKind, path: &str) -> Option<String> {
    runner(kind).test_data_selection(path)
}

/// Whether a narrowed run of `kind` can run a file's tests in reverse order
/// ([`Selection::reversed`]).
#[must_use]
pub fn reverses(kind: CheckKind) -> bool {
    runner(kind).reverses()
}

/// `check` (as it runs in `root`, the tree its `cwd` lies in) restricted to `sel`, or `None` when
/// the runner cannot be narrowed that way. See the module doc.
#[must_use]
pub fn narrowed(check: &Check, root: &Path, sel: &Selection) -> Option<Check> {
    if sel.is_empty() {
        return None;
    }
    let rel = |f: &str| -> Option<String> {
        if check.dir == "." {
            Some(f.to_owned())
        } else {
            f.strip_prefix(&format!("{}/", check.dir))
                .map(str::to_owned)
        }
    };
    let files: Option<Vec<String>> = sel.files.iter().map(|f| rel(f)).collect();
    runner(check.kind).narrow(check, root, files?, sel)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::path::PathBuf;

    pub(crate) fn check(
        kind: CheckKind,
        dir: &str,
        command: &[&str],
        script: Option<&str>,
    ) -> Check {
        Check {
            name: kind.as_str().into(),
            kind,
            dir: dir.into(),
            cwd: PathBuf::from("/r").join(dir),
            command: command.iter().map(|s| (*s).to_owned()).collect(),
            script: script.map(str::to_owned),
            why: String::new(),
        }
    }

    pub(crate) fn write(root: &Path, rel: &str, body: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        loki_core::fs::write_atomic(&p, body.as_bytes()).unwrap();
    }

    #[test]
    fn pytest_files_and_node_ids() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "py/tests/test_a.py", "");
        let c = check(CheckKind::Pytest, "py", &["python3", "-m", "pytest"], None);
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::files(["py/tests/test_a.py".to_owned()]),
        )
        .unwrap();
        assert_eq!(n.command, ["python3", "-m", "pytest", "tests/test_a.py"]);
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::tests(["tests/test_a.py::test_x[1]".to_owned()]),
        )
        .unwrap();
        assert_eq!(n.command.last().unwrap(), "tests/test_a.py::test_x[1]");
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::tests(["tests/test_a.py::test_x[1]".to_owned()]).repeated(2),
        )
        .unwrap();
        assert_eq!(
            n.command[3..],
            ["tests/test_a.py::test_x[1]", "--loki-repeat=2"]
        );
        // A file outside the check, or an id whose file is not there: run it whole.
        assert!(narrowed(&c, tmp.path(), &Selection::files(["other/t.py".to_owned()])).is_none());
        assert!(
            narrowed(
                &c,
                tmp.path(),
                &Selection::tests(["tests/gone.py::t".to_owned()])
            )
            .is_none()
        );
    }

    #[test]
    fn cargo_packages_targets_and_exact_filters() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "Cargo.toml",
            "[workspace]\nmembers = [\"a\", \"b\"]\n",
        );
        write(tmp.path(), "a/Cargo.toml", "[package]\nname = \"alpha\"\n");
        write(tmp.path(), "b/Cargo.toml", "[package]\nname = \"beta\"\n");
        let c = check(
            CheckKind::Cargo,
            ".",
            &["cargo", "test", "--workspace", "--no-fail-fast"],
            None,
        );
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::files([
                "a/tests/it.rs".to_owned(),
                "a/tests/more/main.rs".to_owned(),
            ]),
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "cargo",
                "test",
                "--no-fail-fast",
                "-p",
                "alpha",
                "--test",
                "it",
                "--test",
                "more"
            ]
        );
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::files(["a/tests/it.rs".to_owned(), "b/src/lib.rs".to_owned()]),
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "cargo",
                "test",
                "--no-fail-fast",
                "-p",
                "alpha",
                "-p",
                "beta"
            ]
        );
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::tests(["beta::beta::tests::adds".to_owned()]),
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "cargo",
                "test",
                "--no-fail-fast",
                "-p",
                "beta",
                "--tests",
                "--",
                "--exact",
                "tests::adds"
            ]
        );
        // Doctests alone run as doctests; a mix keeps every target; so does a command that names
        // its own targets.
        let doc = "beta::doctests::src/lib.rs - f (line 3)".to_owned();
        let n = narrowed(&c, tmp.path(), &Selection::tests([doc.clone()])).unwrap();
        assert_eq!(n.command[3..6], ["-p", "beta", "--doc"]);
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::tests([doc, "beta::beta::tests::adds".to_owned()]),
        )
        .unwrap();
        assert_eq!(n.command[3..6], ["-p", "beta", "--"]);
        let lib_only = check(CheckKind::Cargo, ".", &["cargo", "test", "--lib"], None);
        let n = narrowed(
            &lib_only,
            tmp.path(),
            &Selection::tests(["beta::beta::tests::adds".to_owned()]),
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "cargo",
                "test",
                "--lib",
                "-p",
                "beta",
                "--",
                "--exact",
                "tests::adds"
            ]
        );
        assert!(narrowed(&c, tmp.path(), &Selection::tests(["it::x".to_owned()])).is_none());
    }

    #[test]
    fn go_packages_and_run_patterns() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "go.mod", "module example.com/m\n\ngo 1.19\n");
        let c = check(CheckKind::Go, ".", &["go", "test", "-json", "./..."], None);
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection {
                files: vec!["calc/calc_test.go".into()],
                tests: vec![
                    "example.com/m/TestRoot".into(),
                    "example.com/m/calc/TestAdd/small".into(),
                ],
                ..Selection::default()
            },
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "go",
                "test",
                "-json",
                "-run",
                "^(TestAdd|TestRoot)$",
                "-vet=off",
                ".",
                "./calc"
            ]
        );
        // Repeated: one process runs each test that many times, over a `-count` of its own.
        let own = check(
            CheckKind::Go,
            ".",
            &["go", "test", "-count=1", "./..."],
            None,
        );
        let n = narrowed(
            &own,
            tmp.path(),
            &Selection::tests(["example.com/m/TestRoot".to_owned()]).repeated(2),
        )
        .unwrap();
        assert_eq!(
            n.command,
            [
                "go",
                "test",
                "-count=1",
                "-run",
                "^(TestRoot)$",
                "-vet=off",
                "-count=2",
                "."
            ]
        );
        assert!(repeats_in_one_run(CheckKind::Go));
        assert!(repeats_in_one_run(CheckKind::Pytest));
        assert!(!repeats_in_one_run(CheckKind::Cargo));
    }

    #[test]
    fn js_runners() {
        let tmp = tempfile::tempdir().unwrap();
        write(tmp.path(), "src/a.test.ts", "");
        let c = check(CheckKind::Vitest, ".", &["npm", "test"], Some("vitest run"));
        let n = narrowed(
            &c,
            tmp.path(),
            &Selection::tests(["src/a.test.ts > math > adds".to_owned()]),
        )
        .unwrap();
        assert_eq!(n.command, ["npm", "test", "--", "src/a.test.ts"]);
        // An id whose file is not there (node's TAP names none): run it whole.
        assert!(narrowed(&c, tmp.path(), &Selection::tests(["adds".to_owned()])).is_none());
        let j = check(CheckKind::Jest, ".", &["npm", "test"], Some("jest"));
        let n = narrowed(&j, tmp.path(), &Selection::files(["a.test.js".to_owned()])).unwrap();
        assert_eq!(n.command, ["npm", "test", "--", "a\\.test\\.js"]);
        let chained = check(
            CheckKind::Vitest,
            ".",
            &["npm", "test"],
            Some("vitest run && jest"),
        );
        assert!(
            narrowed(
                &chained,
                tmp.path(),
                &Selection::files(["a.test.js".to_owned()])
            )
            .is_none()
        );
        let node = check(CheckKind::Node, ".", &["node", "--test"], None);
        let n = narrowed(
            &node,
            tmp.path(),
            &Selection::files(["test/a.test.js".to_owned()]),
        )
        .unwrap();
        assert_eq!(n.command, ["node", "--test", "test/a.test.js"]);
    }
}
