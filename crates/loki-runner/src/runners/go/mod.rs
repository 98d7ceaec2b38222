//! `go test` ([`Go`]).
//!
//! - Detection: each directory with a `go.mod` (`./...` does not cross into nested modules):
//!   `go test -json ./...`.
//! - Reports: the `-json` event stream, else the text output ([`report`]).
//! - Narrowing: `./<dir>` per package of the files and of the ids, `-run '^(TestA|TestB)$'` for
//!   the ids' top-level tests, `-count=N` to repeat them in one run. A narrowed run skips vet
//!   (`-vet=off`, about a third of a one-test run): the full runs at head and base vet every
//!   package as the project's suite does, and a narrowed run asks only how the selected tests
//!   behave.
//! - Locating: the id's package directory (the module path stripped) and the `func <Test>(` line
//!   in a `_test.go` file there.
//! - Isolation: `go.work` copied or rewritten into the tree ([`isolate`]).
//!
//! A test id is `<package import path>/<TestName>[/<subtest>…]`: the package is everything before
//! the first segment that starts with `Test`, `Example`, `Benchmark` or `Fuzz`.

pub mod isolate;
pub mod overlay;
pub mod report;

use std::collections::BTreeSet;
use std::path::Path;

use crate::detect::{Check, Scan, Tools, make, place, words};
use crate::isolate::Isolation;
use crate::locate::{Listing, Locator, in_check};
use crate::reports::report::TestReport;
use crate::runners::Runner;
use crate::select::Selection;
use crate::wall::{WallRefusal, WallTest};
use loki_protocol::CheckKind;

/// The prefixes of the test functions `go test` runs.
const TEST_PREFIXES: [&str; 4] = ["Test", "Example", "Benchmark", "Fuzz"];

/// `go test`.
#[derive(Debug)]
pub(crate) struct Go;

impl Runner for Go {
    fn markers(&self) -> &'static [&'static str] {
        &["go.mod"]
    }

    fn detect(&self, root: &Path, scan: &Scan, _tools: Tools, out: &mut Vec<Check>) {
        for rel in scan.dirs.keys().filter(|rel| scan.has(rel, "go.mod")) {
            out.push(make(root, rel, CheckKind::Go, words(&["go", "test", "-json", "./..."]),
                format!("go.mod in {}: `go test` over every package of the module, with -json per-test events", place(rel))));
        }
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        report::parse_json(log).or_else(|| report::parse_text(log))
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        let module = std::fs::read_to_string(root.join(&check.dir).join("go.mod"))
            .ok()
            .and_then(|t| go_module(&t));
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
        let mut out = check.clone();
        out.command = cmd;
        Some(out)
    }

    fn repeats_in_one_run(&self) -> bool {
        true
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        let fallback = (in_check(check, ""), None);
        let Some(module) = at.text(&in_check(check, "go.mod")).and_then(go_module) else {
            return fallback;
        };
        let segs: Vec<&str> = id.split('/').collect();
        let Some(test_idx) = segs
            .iter()
            .position(|s| TEST_PREFIXES.iter().any(|p| s.starts_with(p)))
        else {
            return fallback;
        };
        let pkg = segs[..test_idx].join("/");
        let name = segs[test_idx];
        let rel = if pkg == module {
            String::new()
        } else {
            match pkg.strip_prefix(&format!("{module}/")) {
                Some(r) => r.to_owned(),
                None => return fallback,
            }
        };
        let pkg_dir = in_check(check, &rel);
        let files = at.files_of(&pkg_dir, Listing::GoPackage);
        let func = format!("func {name}(");
        for path in files {
            if let Some(line) = at.line_of(&path, |l| l.starts_with(&func)) {
                return (path, Some(line));
            }
        }
        (pkg_dir, None)
    }

    fn isolation(&self) -> Isolation {
        Isolation::Go
    }

    fn id_separator(&self) -> &'static str {
        "/"
    }

    // `example.com/m/pkg/TestX/sub` → `TestX/sub`
    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        test_part(id)
    }

    // The package.
    fn group(&self, id: &str) -> String {
        let test = test_part(id);
        id[..id.len() - test.len()].trim_end_matches('/').to_owned()
    }

    fn home<'a>(&self, id: &'a str) -> &'a str {
        id.find("/Test").map_or(id, |at| &id[..at])
    }

    fn source_extensions(&self) -> &'static [&'static str] {
        &["go"]
    }

    // A package is selected by any file of its directory.
    fn selects_mixed_files(&self) -> bool {
        true
    }

    // A package's test data belongs to the package: a file of the package (`<pkg>/_`) selects it.
    fn test_data_selection(&self, path: &str) -> Option<String> {
        let pkg = path.find("/testdata/").map_or_else(
            || {
                if path.starts_with("testdata/") {
                    String::new()
                } else {
                    path.to_owned()
                }
            },
            |i| path[..i].to_owned(),
        );
        Some(if pkg.is_empty() {
            "_".to_owned()
        } else {
            format!("{pkg}/_")
        })
    }

    fn wall_language(&self) -> Option<&'static str> {
        Some("Go")
    }

    fn wall(&self, file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        file.name.ends_with("_test.go").then(|| wall(file))
    }
}

/// The id from its first segment that names a test function (`TestX/sub` of
/// `example.com/m/pkg/TestX/sub`); the whole id when none does.
fn test_part(id: &str) -> &str {
    let mut at = 0;
    for seg in id.split('/') {
        if TEST_PREFIXES.iter().any(|p| seg.starts_with(p)) {
            return &id[at..];
        }
        at += seg.len() + 1;
    }
    id
}

/// A Go wall test: `go test -run` on the Test functions it declares, in its package.
fn wall(file: &WallTest<'_>) -> Result<Check, WallRefusal> {
    let Some(c) = crate::wall::owner(file.checks, file.path, CheckKind::Go) else {
        return Err(WallRefusal::NoSuite("Go module"));
    };
    let tests = test_names(&String::from_utf8_lossy(file.bytes));
    if tests.is_empty() {
        return Err(WallRefusal::NoTests);
    }
    let rel = crate::wall::rel_to(&c, file.path);
    let package = match rel.rsplit_once('/') {
        Some((dir, _)) => format!("./{dir}"),
        None => ".".to_string(),
    };
    Ok(Check {
        command: vec![
            "go".into(),
            "test".into(),
            "-json".into(),
            "-run".into(),
            format!("^({})$", tests.join("|")),
            package,
        ],
        why: "wall test: go test on the Test functions of this file".into(),
        ..c
    })
}

/// The `Test` functions a Go test file declares at top level, in order.
fn test_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("func Test") else {
            continue;
        };
        let tail: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // `Testing(` is not a test: after `Test` comes an upper-case letter, a digit or nothing.
        if rest[tail.len()..].starts_with('(')
            && tail.chars().next().is_none_or(|c| !c.is_lowercase())
        {
            let name = format!("Test{tail}");
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// `pkg/sub` → `./pkg/sub`, `.` → `.`.
fn go_pkg_arg(dir: &str) -> String {
    if dir == "." || dir.is_empty() {
        ".".to_owned()
    } else {
        format!("./{dir}")
    }
}

/// A go id `example.com/m/pkg/TestX/sub` → (`example.com/m/pkg`, `TestX/sub`) (see the module
/// doc); `None` when no segment after the first names a test.
fn split_go_id(id: &str) -> Option<(&str, &str)> {
    let mut at = 0;
    for seg in id.split('/') {
        if TEST_PREFIXES.iter().any(|p| seg.starts_with(p)) && at > 0 {
            return Some((&id[..at - 1], &id[at..]));
        }
        at += seg.len() + 1;
    }
    None
}

/// The `module` path of a `go.mod`'s text.
fn go_module(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("module "))
        .map(|m| m.trim().trim_matches('"').to_owned())
}
