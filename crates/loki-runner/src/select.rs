//! Narrowing a check to part of its suite: the test files a change touched, or the test ids a
//! judgement needs to see again (a rerun of a failing test on the base, the original form of a
//! modified test on the new code).
//!
//! [`narrowed`] rewrites a check's command with the runner's own selection syntax:
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

use std::collections::BTreeSet;
use std::path::Path;

use crate::detect::Check;
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
    matches!(kind, CheckKind::Go | CheckKind::Pytest)
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
    let files = files?;
    let mut out = check.clone();
    match check.kind {
        CheckKind::Pytest => {
            if !sel.tests.is_empty() {
                // A node id's file part must exist where the check runs, or pytest errors out.
                let cwd = root.join(&check.dir);
                if sel
                    .tests
                    .iter()
                    .any(|id| !cwd.join(id.split("::").next().unwrap_or(id)).exists())
                {
                    return None;
                }
            }
            out.command.extend(files);
            out.command.extend(sel.tests.iter().cloned());
            // loki's pytest plugin, which every pytest run loads, defines the options.
            if sel.repeat > 1 {
                out.command.push(format!("--loki-repeat={}", sel.repeat));
            }
            if sel.reverse {
                out.command.push("--loki-reverse".into());
            }
        }
        CheckKind::Cargo | CheckKind::Nextest => {
            let pkg_root = root.join(&check.dir);
            let mut packages = BTreeSet::new();
            let mut test_targets = BTreeSet::new();
            let mut all_integration = sel.tests.is_empty();
            for f in &files {
                let (pkg, target) = cargo_target(&pkg_root, f)?;
                packages.insert(pkg);
                match target {
                    Some(t) => {
                        test_targets.insert(t);
                    }
                    None => all_integration = false,
                }
            }
            let mut exact = Vec::new();
            let mut doctests = 0;
            for id in &sel.tests {
                let mut parts = id.splitn(3, "::");
                let (pkg, binary, path) = (parts.next()?, parts.next()?, parts.next()?);
                packages.insert(pkg.to_owned());
                exact.push(path.to_owned());
                doctests += usize::from(binary == "doctests");
            }
            let head: Vec<String> = check
                .command
                .iter()
                .take_while(|a| *a != "--")
                .filter(|a| *a != "--workspace" && *a != "--all")
                .cloned()
                .collect();
            let own_targets = head.iter().any(|a| names_cargo_targets(a));
            let mut cmd = head;
            for p in &packages {
                cmd.push("-p".into());
                cmd.push(p.clone());
            }
            if all_integration {
                for t in &test_targets {
                    cmd.push("--test".into());
                    cmd.push(t.clone());
                }
            } else if check.kind == CheckKind::Cargo && !exact.is_empty() && !own_targets {
                if doctests == 0 {
                    cmd.push("--tests".into());
                } else if doctests == exact.len() {
                    cmd.push("--doc".into());
                }
            }
            if check.kind == CheckKind::Cargo && !exact.is_empty() {
                cmd.push("--".into());
                cmd.push("--exact".into());
                cmd.extend(exact);
            }
            out.command = cmd;
        }
        CheckKind::Go => {
            let module = go_module(&root.join(&check.dir));
            let mut pkgs = BTreeSet::new();
            for f in &files {
                let dir = f.rsplit_once('/').map_or(".", |(d, _)| d);
                pkgs.insert(go_pkg_arg(dir));
            }
            let mut names = BTreeSet::new();
            for id in &sel.tests {
                let module = module.as_deref()?;
                let (pkg, test) = split_go_id(id)?;
                let dir = if pkg == module {
                    "."
                } else {
                    pkg.strip_prefix(module)?.strip_prefix('/')?
                };
                pkgs.insert(go_pkg_arg(dir));
                names.insert(test.split('/').next().unwrap_or(test).to_owned());
            }
            let mut cmd: Vec<String> = check
                .command
                .iter()
                .filter(|a| !a.starts_with("./") && *a != ".")
                .cloned()
                .collect();
            if !names.is_empty() {
                cmd.push("-run".into());
                cmd.push(format!(
                    "^({})$",
                    names.into_iter().collect::<Vec<_>>().join("|")
                ));
            }
            // After the command's own flags: the last `-vet` and `-count` win.
            cmd.push("-vet=off".into());
            if sel.repeat > 1 {
                cmd.push(format!("-count={}", sel.repeat));
            }
            cmd.extend(pkgs);
            out.command = cmd;
        }
        CheckKind::Vitest | CheckKind::Jest | CheckKind::Node => {
            let mut paths: BTreeSet<String> = files.into_iter().collect();
            for id in &sel.tests {
                let file = id.split(" > ").next()?;
                // An id without its file (an old TAP id) cannot be narrowed to one.
                if file.is_empty()
                    || file.contains(" (")
                    || !root.join(&check.dir).join(file).is_file()
                {
                    return None;
                }
                paths.insert(file.to_owned());
            }
            let names = if sel.exact {
                name_pattern(check.kind, &sel.tests)
            } else {
                None
            };
            match (check.kind, check.script.as_deref()) {
                (CheckKind::Node, None) => {
                    out.command
                        .extend(names.map(|n| format!("--test-name-pattern={n}")));
                    out.command.extend(paths);
                }
                (_, Some(script))
                    if plain_runner_script(script)
                        || crate::script::narrowable(&root.join(&check.dir)) =>
                {
                    if !out.command.iter().any(|a| a == "--") {
                        out.command.push("--".into());
                    }
                    let jest = check.kind == CheckKind::Jest;
                    out.command.extend(
                        paths
                            .into_iter()
                            .map(|p| if jest { regex_escape(&p) } else { p }),
                    );
                    if let Some(n) = names {
                        out.command.push("-t".into());
                        out.command.push(n);
                    }
                }
                _ => return None,
            }
        }
        CheckKind::Maven => {
            let mut patterns = BTreeSet::new();
            for f in &files {
                let class = f.strip_prefix("src/test/java/")?.strip_suffix(".java")?;
                patterns.insert(class.replace('/', "."));
            }
            for id in &sel.tests {
                let (class, method) = id.split_once("::")?;
                // Surefire's filter knows a method by its name: a parameterised or repeated
                // case (`sums(int)[2]`) runs as its whole method.
                let method = method.split(['(', '[']).next().unwrap_or(method);
                if class.is_empty() || method.is_empty() || class.contains(['#', ',']) {
                    return None;
                }
                patterns.insert(format!("{class}#{method}"));
            }
            out.command.push(format!(
                "-Dtest={}",
                patterns.into_iter().collect::<Vec<_>>().join(",")
            ));
        }
        CheckKind::Npm => return None,
    }
    Some(out)
}

/// A regex of the tests' names for the runner's name filter: vitest and jest match a test's
/// full name (its suites' names and its own, joined by spaces), node `--test` its own name.
fn name_pattern(kind: CheckKind, ids: &[String]) -> Option<String> {
    let names: Vec<String> = ids
        .iter()
        .filter_map(|id| {
            let parts: Vec<&str> = id.split(" > ").skip(1).collect();
            if parts.is_empty() {
                return None;
            }
            let name = if kind == CheckKind::Node {
                parts.last().map(|s| (*s).to_owned()).unwrap_or_default()
            } else {
                parts.join(" ")
            };
            Some(regex_escape(&name))
        })
        .collect();
    (!names.is_empty()).then(|| format!("^({})$", names.join("|")))
}

/// Whether a `cargo test` argument picks targets (then cargo runs doctests only if it is `--doc`).
fn names_cargo_targets(arg: &str) -> bool {
    let name = arg.split_once('=').map_or(arg, |(n, _)| n);
    matches!(
        name,
        "--lib"
            | "--bin"
            | "--bins"
            | "--test"
            | "--tests"
            | "--example"
            | "--examples"
            | "--bench"
            | "--benches"
            | "--all-targets"
            | "--doc"
    )
}

/// A package.json test script that is one runner call, so arguments reach that runner.
fn plain_runner_script(script: &str) -> bool {
    !script.contains(['&', '|', ';', '>', '<', '$', '`'])
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `pkg/sub` → `./pkg/sub`, `.` → `.`.
fn go_pkg_arg(dir: &str) -> String {
    if dir == "." || dir.is_empty() {
        ".".to_owned()
    } else {
        format!("./{dir}")
    }
}

/// A go id `example.com/m/pkg/TestX/sub` → (`example.com/m/pkg`, `TestX/sub`): the package is
/// everything before the first segment that starts with `Test`, `Example`, `Benchmark` or `Fuzz`.
fn split_go_id(id: &str) -> Option<(&str, &str)> {
    let mut at = 0;
    for seg in id.split('/') {
        if ["Test", "Example", "Benchmark", "Fuzz"]
            .iter()
            .any(|p| seg.starts_with(p))
            && at > 0
        {
            return Some((&id[..at - 1], &id[at..]));
        }
        at += seg.len() + 1;
    }
    None
}

/// The `module` path of `dir/go.mod`.
fn go_module(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("go.mod")).ok()?;
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("module "))
        .map(|m| m.trim().trim_matches('"').to_owned())
}

/// The package owning `file` (relative to the cargo root `root`) and, when the file is an
/// integration test target of it (`tests/x.rs`, `tests/x/main.rs`), that target's name.
fn cargo_target(root: &Path, file: &str) -> Option<(String, Option<String>)> {
    let mut dir = Path::new(file).parent();
    while let Some(d) = dir {
        let manifest = root.join(d).join("Cargo.toml");
        if let Some(name) = package_name(&manifest) {
            let inner = Path::new(file).strip_prefix(d).ok()?;
            let parts: Vec<&str> = inner
                .components()
                .filter_map(|c| c.as_os_str().to_str())
                .collect();
            let target = match parts.as_slice() {
                ["tests", f] => f.strip_suffix(".rs").map(str::to_owned),
                ["tests", t, "main.rs"] => Some((*t).to_owned()),
                _ => None,
            };
            return Some((name, target));
        }
        if d.as_os_str().is_empty() {
            break;
        }
        dir = d.parent();
    }
    None
}

/// `[package] name` of a manifest, if it has a package.
fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let value: toml::Value = toml::from_str(&text).ok()?;
    value
        .get("package")?
        .get("name")?
        .as_str()
        .map(str::to_owned)
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
