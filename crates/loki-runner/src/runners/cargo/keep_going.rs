//! `cargo test` and `cargo nextest run` past a test target that does not compile.
//!
//! cargo builds every target before it runs one and has no `--keep-going` for tests, so one test
//! target that does not compile (the test-first flow: a test committed before the code it calls)
//! leaves the whole run without a result, and a judge without a base. When cargo names the targets
//! that failed as test builds only ([`reports::cargo::not_compiled`]), the same command runs again
//! without them:
//!
//! - the packages with no broken target: the command's own selection with each broken package
//!   excluded (`--workspace --exclude p`, or the `-p` list without it), all their targets as usual;
//! - each broken package: `-p p` with every test target but the broken ones named (`--lib`,
//!   `--bin b`, `--test t`, from `cargo metadata`), and, under `cargo test`, its doctests in a run
//!   of their own (`--doc` cannot be combined with other target flags; a nextest check runs them
//!   through its `cargo test --doc` companion anyway).
//!
//! Under nextest the broken targets are marked by nextest's binary ids ([`nextest_marks`]):
//! `<package>` for a library's unit tests, `<package>::<test>`, `<package>::bin/<binary>`.
//!
//! The broken targets keep their failure marks from the first run, so the check still fails and
//! their tests are known to have failed as a whole. Anything else gives up (no plan), and the
//! check keeps the first run's result: a library or binary that does not compile as such (every
//! test needs it), a command that selects targets itself, a package selection this cannot tell
//! (a virtual workspace without `--workspace` or `-p`), or metadata that cannot be read.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::reports;

/// `cargo metadata --no-deps --format-version 1`, as far as this needs it.
#[derive(Debug, Deserialize)]
pub(crate) struct Metadata {
    packages: Vec<Package>,
}

#[derive(Debug, Deserialize)]
struct Package {
    name: String,
    targets: Vec<Target>,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
    #[serde(default = "yes")]
    test: bool,
    #[serde(default = "yes")]
    doctest: bool,
}

fn yes() -> bool {
    true
}

impl Target {
    fn is_lib(&self) -> bool {
        self.kind
            .iter()
            .any(|k| k == "lib" || k.ends_with("lib") || k == "proc-macro")
    }
}

/// Flags that select targets: a command with one already chose what it runs.
const TARGET_FLAGS: &[&str] = &[
    "--lib",
    "--bins",
    "--bin",
    "--tests",
    "--test",
    "--examples",
    "--example",
    "--benches",
    "--bench",
    "--all-targets",
    "--doc",
];

/// Flags of `cargo test` and `cargo nextest run` whose value is the next word.
const VALUED: &[&str] = &[
    "-E",
    "--filterset",
    "--filter-expr",
    "-P",
    "--cargo-profile",
    "--retries",
    "--test-threads",
    "--partition",
    "--run-ignored",
    "--max-fail",
    "--status-level",
    "--final-status-level",
    "--failure-output",
    "--success-output",
    "--no-tests",
    "--tool-config-file",
    "--config-file",
    "--features",
    "-F",
    "--manifest-path",
    "--profile",
    "--target",
    "--target-dir",
    "-j",
    "--jobs",
    "--config",
    "-Z",
    "--color",
    "--message-format",
];

/// How many leading words of `command` name the runner: `cargo test` or `cargo nextest run`.
fn runner_words(command: &[String]) -> Option<usize> {
    let words: Vec<&str> = command.iter().take(3).map(String::as_str).collect();
    match words.as_slice() {
        ["cargo", "test", ..] => Some(2),
        ["cargo", "nextest", "run"] => Some(3),
        _ => None,
    }
}

/// The failure marks of the test targets a nextest run could not build, by nextest's binary ids.
#[must_use]
pub(crate) fn nextest_marks(text: &str) -> Vec<crate::reports::report::TestCase> {
    reports::cargo::not_compiled(text)
        .into_iter()
        .filter(|u| u.test_build)
        .map(|u| {
            let binary = match u.kind.as_str() {
                "lib" => u.package.clone(),
                "bin" => format!("{}::bin/{}", u.package, u.name),
                _ => format!("{}::{}", u.package, u.name),
            };
            crate::reports::report::TestCase {
                id: format!("{binary}{}", reports::cargo::NOT_COMPILED),
                status: crate::reports::report::TestStatus::Failed,
            }
        })
        .collect()
}

/// The metadata command for `command` (a `cargo test` one): its manifest, no dependencies.
#[must_use]
pub(crate) fn metadata_command(command: &[String]) -> Vec<String> {
    let mut out: Vec<String> = [
        "cargo",
        "metadata",
        "--no-deps",
        "--format-version",
        "1",
        "--offline",
    ]
    .map(str::to_owned)
    .to_vec();
    let mut it = command.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if a == "--manifest-path" {
            out.push(a.clone());
            out.extend(it.next().cloned());
        } else if a.starts_with("--manifest-path=") {
            out.push(a.clone());
        }
    }
    out
}

/// Whether `command`'s first run, whose output is `text`, can be continued by [`plan`]: a plain
/// `cargo test` whose only build failures were test targets.
#[must_use]
pub(crate) fn wanted(command: &[String], text: &str) -> bool {
    let broken = reports::cargo::not_compiled(text);
    // A build failure stops the run before any test: output with a test summary ran tests, and a
    // line shaped like cargo's error there was printed by one.
    runner_words(command).is_some()
        && !broken.is_empty()
        && !text
            .lines()
            .any(|l| l.starts_with("test result: ") || l.trim_start().starts_with("Summary ["))
        && broken.iter().all(|u| u.test_build)
        && !command
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| TARGET_FLAGS.contains(&a.split('=').next().unwrap_or(a)))
}

/// The commands that run everything the first run could not, or `None` to give up (see the
/// module doc).
#[must_use]
pub(crate) fn plan(command: &[String], text: &str, meta: &Metadata) -> Option<Vec<Vec<String>>> {
    if !wanted(command, text) {
        return None;
    }
    let broken: BTreeMap<String, BTreeSet<(String, String)>> = reports::cargo::not_compiled(text)
        .into_iter()
        .fold(BTreeMap::new(), |mut m, u| {
            m.entry(u.package).or_default().insert((u.kind, u.name));
            m
        });
    let words = Words::read(command)?;
    let selected = words.selected(meta)?;
    if broken.keys().any(|b| !selected.contains(&b.as_str())) {
        return None;
    }
    let mut runs = Vec::new();
    let rest: Vec<&str> = selected
        .iter()
        .copied()
        .filter(|p| !broken.contains_key(*p))
        .collect();
    if !rest.is_empty() {
        let mut sel = Vec::new();
        for p in rest {
            sel.push("-p".to_owned());
            sel.push(p.to_owned());
        }
        runs.push(words.with(&sel));
    }
    for (pkg, targets) in &broken {
        let p = meta.packages.iter().find(|p| &p.name == pkg)?;
        let (sel, doc) = unbroken_targets(p, targets);
        // Beyond `-p <package>`: some target is left to run.
        if sel.len() > 2 {
            runs.push(words.with(&sel));
        }
        if doc && words.runner.len() == 2 {
            runs.push(words.with(&["-p".to_owned(), pkg.clone(), "--doc".to_owned()]));
        }
    }
    Some(runs)
}

/// The command's own words, its package selection taken out.
struct Words {
    /// `cargo test` or `cargo nextest run`.
    runner: Vec<String>,
    /// Its other options, in order.
    kept: Vec<String>,
    /// `--` and what follows.
    after: Vec<String>,
    packages: Vec<String>,
    excluded: Vec<String>,
    workspace: bool,
}

impl Words {
    fn read(command: &[String]) -> Option<Words> {
        let runner = runner_words(command)?;
        let mut words = Words {
            runner: command[..runner].to_vec(),
            kept: Vec::new(),
            after: Vec::new(),
            packages: Vec::new(),
            excluded: Vec::new(),
            workspace: false,
        };
        let mut it = command.iter().skip(runner);
        while let Some(a) = it.next() {
            match a.as_str() {
                "--" => {
                    words.after.push(a.clone());
                    words.after.extend(it.by_ref().cloned());
                }
                "--workspace" | "--all" => words.workspace = true,
                "-p" | "--package" => words.packages.push(it.next()?.clone()),
                "--exclude" => words.excluded.push(it.next()?.clone()),
                w if w.starts_with("--package=") => {
                    words.packages.push(w["--package=".len()..].to_owned());
                }
                w if w.starts_with("--exclude=") => {
                    words.excluded.push(w["--exclude=".len()..].to_owned());
                }
                w if VALUED.contains(&w) => {
                    words.kept.push(a.clone());
                    words.kept.push(it.next()?.clone());
                }
                _ => words.kept.push(a.clone()),
            }
        }
        Some(words)
    }

    /// The packages the command runs, or `None` when it cannot be told (a virtual workspace
    /// without `--workspace` or `-p`).
    fn selected<'m>(&'m self, meta: &'m Metadata) -> Option<Vec<&'m str>> {
        let all: Vec<&str> = meta.packages.iter().map(|p| p.name.as_str()).collect();
        if self.workspace {
            Some(
                all.iter()
                    .copied()
                    .filter(|p| !self.excluded.iter().any(|e| e == p))
                    .collect(),
            )
        } else if !self.packages.is_empty() {
            Some(self.packages.iter().map(String::as_str).collect())
        } else if all.len() == 1 {
            Some(all)
        } else {
            None
        }
    }

    /// The command again with the selection `extra` instead of its own.
    fn with(&self, extra: &[String]) -> Vec<String> {
        let mut c = self.runner.clone();
        c.extend(self.kept.iter().cloned());
        c.extend(extra.iter().cloned());
        c.extend(self.after.iter().cloned());
        c
    }
}

/// `-p <package>` and every test target of package `p` but the `broken` ones, and whether its
/// library has doctests.
fn unbroken_targets(p: &Package, broken: &BTreeSet<(String, String)>) -> (Vec<String>, bool) {
    let is_broken = |kind: &str, name: &str| {
        broken
            .iter()
            .any(|(k, n)| k == kind && (kind == "lib" || n == name))
    };
    let mut sel = vec!["-p".to_owned(), p.name.clone()];
    let mut doc = false;
    for t in p.targets.iter().filter(|t| t.test || t.is_lib()) {
        if t.is_lib() {
            doc = t.doctest;
            if t.test && !is_broken("lib", "") {
                sel.push("--lib".to_owned());
            }
        } else if t.kind.iter().any(|k| k == "bin") && !is_broken("bin", &t.name) {
            sel.extend(["--bin".to_owned(), t.name.clone()]);
        } else if t.kind.iter().any(|k| k == "test") && !is_broken("test", &t.name) {
            sel.extend(["--test".to_owned(), t.name.clone()]);
        }
    }
    (sel, doc)
}

/// Parses `cargo metadata` output.
#[must_use]
pub(crate) fn read_metadata(text: &str) -> Option<Metadata> {
    text.lines()
        .find(|l| l.trim_start().starts_with('{'))
        .and_then(|l| serde_json::from_str(l).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    fn meta(json: &str) -> Metadata {
        read_metadata(json).unwrap()
    }

    /// The plan for `command` after `err`, each run as one string.
    fn joined(command: &str, err: &str, meta_json: &str) -> Vec<String> {
        plan(&words(command), err, &meta(meta_json))
            .unwrap()
            .iter()
            .map(|r| r.join(" "))
            .collect()
    }

    const ONE: &str = r#"{"packages":[{"name":"calc","targets":[{"name":"calc","kind":["lib"],"test":true,"doctest":true},{"name":"calc-cli","kind":["bin"],"test":true,"doctest":false},{"name":"calc","kind":["test"],"test":true,"doctest":false},{"name":"triple","kind":["test"],"test":true,"doctest":false},{"name":"demo","kind":["example"],"test":false,"doctest":false},{"name":"build-script-build","kind":["custom-build"],"test":false,"doctest":false}]}],"workspace_members":[]}"#;

    const ERR: &str = "error[E0425]: cannot find function `triple` in crate `calc`\nerror: could not compile `calc` (test \"triple\") due to 1 previous error\n";

    #[test]
    fn a_broken_test_target_is_left_out_and_the_rest_runs() {
        let runs = joined(
            "cargo test --workspace --no-fail-fast -- --test-threads 1",
            ERR,
            ONE,
        );
        assert_eq!(
            runs,
            [
                "cargo test --no-fail-fast -p calc --lib --bin calc-cli --test calc -- --test-threads 1",
                "cargo test --no-fail-fast -p calc --doc -- --test-threads 1",
            ]
        );
    }

    #[test]
    fn broken_unit_tests_leave_the_library_out_but_keep_its_doctests() {
        let err = "error: could not compile `calc` (lib test) due to 2 previous errors; 1 warning emitted\n";
        let runs = joined("cargo test", err, ONE);
        assert_eq!(
            runs,
            [
                "cargo test -p calc --bin calc-cli --test calc --test triple",
                "cargo test -p calc --doc",
            ]
        );
    }

    #[test]
    fn other_packages_run_whole_and_the_broken_one_by_its_targets() {
        let ws = r#"{"packages":[{"name":"a","targets":[{"name":"a","kind":["lib"]},{"name":"it","kind":["test"]}]},{"name":"b-c","targets":[{"name":"b_c","kind":["lib"],"doctest":false},{"name":"x","kind":["test"]}]},{"name":"gone","targets":[]}]}"#;
        let err = "error: could not compile `a` (test \"it\") due to 1 previous error\n";
        let runs = joined(
            "cargo test --workspace --exclude gone --features f",
            err,
            ws,
        );
        assert_eq!(
            runs,
            [
                "cargo test --features f -p b-c",
                "cargo test --features f -p a --lib",
                "cargo test --features f -p a --doc",
            ]
        );
    }

    #[test]
    fn gives_up_where_the_rest_cannot_be_told() {
        let m = meta(ONE);
        // The library itself does not compile: every test needs it.
        let lib = "error: could not compile `calc` (lib) due to 1 previous error\n";
        assert!(plan(&words("cargo test"), lib, &m).is_none());
        // The command chose its targets.
        assert!(plan(&words("cargo test --test calc"), ERR, &m).is_none());
        assert!(plan(&words("cargo test --tests"), ERR, &m).is_none());
        // Nothing failed to compile, or cargo did not say what.
        assert!(plan(&words("cargo test"), "test result: FAILED.", &m).is_none());
        let old = "error: could not compile `calc` due to previous error\n";
        assert!(plan(&words("cargo test"), old, &m).is_none());
        // Not cargo.
        assert!(plan(&words("npx vitest run"), ERR, &m).is_none());
        // Tests ran: the error line was a test's output.
        let ran = format!("{ERR}test result: ok. 1 passed; 0 failed\n");
        assert!(plan(&words("cargo test"), &ran, &m).is_none());
        // A package the metadata does not have.
        let other = "error: could not compile `zzz` (test \"t\") due to 1 previous error\n";
        assert!(plan(&words("cargo test -p zzz"), other, &m).is_none());
        // A virtual workspace without a selection.
        let ws = r#"{"packages":[{"name":"a","targets":[]},{"name":"b","targets":[]}]}"#;
        let err = "error: could not compile `a` (test \"it\") due to 1 previous error\n";
        assert!(plan(&words("cargo test"), err, &meta(ws)).is_none());
    }

    #[test]
    fn nextest_runs_the_rest_by_its_targets_and_leaves_doctests_to_its_companion() {
        let runs = joined("cargo nextest run --workspace -E not(test(slow))", ERR, ONE);
        assert_eq!(
            runs,
            ["cargo nextest run -E not(test(slow)) -p calc --lib --bin calc-cli --test calc"]
        );
        // It ran tests: nothing to continue.
        let ran = format!("{ERR}     Summary [   0.005s] 2 tests run: 2 passed, 0 skipped\n");
        assert!(plan(&words("cargo nextest run"), &ran, &meta(ONE)).is_none());
        let err = "error: could not compile `my-calc` (lib test) due to 1 previous error\nerror: could not compile `my-calc` (bin \"cli\" test) due to 1 previous error\nerror: could not compile `my-calc` (test \"it\") due to 1 previous error\n";
        let ids: Vec<String> = nextest_marks(err).into_iter().map(|t| t.id).collect();
        assert_eq!(
            ids,
            [
                "my-calc::bin/cli (did not compile)",
                "my-calc (did not compile)",
                "my-calc::it (did not compile)",
            ]
        );
    }

    #[test]
    fn the_metadata_command_keeps_the_manifest() {
        assert_eq!(
            metadata_command(&words("cargo test --manifest-path sub/Cargo.toml -- --x")).join(" "),
            "cargo metadata --no-deps --format-version 1 --offline --manifest-path sub/Cargo.toml"
        );
    }
}
