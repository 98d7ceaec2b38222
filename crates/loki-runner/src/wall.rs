//! Wall tests (`loki-contract`'s: tests written from the task before the code): the one check
//! that runs a new test file alone, restricted to that file so that its result is the file's.
//!
//! The file's name says its language, and the runner family of that language answers
//! (`Runner::wall`, in `crate::runners`):
//! - Rust `<crate>/tests/loki_wall_*.rs`: `cargo test --test <stem>` in the crate;
//! - Python `loki_wall_*_test.py`: the package's pytest command with the file;
//! - JavaScript `loki_wall_*.test.{js,mjs}`: `node --test <file>` where node's runner owns the
//!   package (directly or through its test script); `<pm> test -- <file>` where the test script
//!   runs vitest or jest (`.test.ts` too under vitest);
//! - Go `<package dir>/loki_wall_*_test.go`: `go test -json -run '^(TestA|TestB)$' ./<dir>` in the
//!   module, with the `Test` functions the file declares (a file declaring none is refused);
//! - Java `src/test/java/…/loki_wall_<Name>Test.java`: the project's Maven run on that one class.
//!
//! A package whose test script runs another runner (mocha, ava, …) cannot run one file by a known
//! flag, so its wall files are refused with that reason.

use std::path::Path;

use loki_protocol::CheckKind;

use crate::detect::{Check, checks_for};
use crate::runners::runner;

/// A wall test file, and the checks of the worktree it is to run in.
#[derive(Debug, Clone, Copy)]
pub struct WallTest<'a> {
    /// Repository-relative, with `/`.
    pub path: &'a str,
    /// The file's name (the last part of its path).
    pub name: &'a str,
    pub bytes: &'a [u8],
    /// The worktree.
    pub root: &'a Path,
    /// The checks of the worktree.
    pub checks: &'a [Check],
}

/// Why a wall test cannot run alone. The words are the reasons the wall names a discarded file
/// by.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WallRefusal {
    /// No suite of the file's runner covers its path.
    #[error("no {0} covers this path")]
    NoSuite(&'static str),
    /// The file's name or place is not the one its runner runs.
    #[error("{0}")]
    Misplaced(&'static str),
    /// A Rust wall test outside a crate's `tests/`.
    #[error("a Rust wall test belongs in <crate>/tests/, not {0:?}")]
    NotInTests(String),
    /// A Rust wall test's crate directory has no manifest.
    #[error("no Cargo.toml in {0}")]
    NoManifest(String),
    /// The package's test script runs a runner that cannot be pointed at one file.
    #[error("the package's test script ({0}) runs a runner loki cannot point at one file")]
    Unpointable(String),
    /// A Go wall test without a `Test` function.
    #[error("declares no `func TestXxx(t *testing.T)`")]
    NoTests,
    /// A file of no runner's language; the languages wall tests may be written in.
    #[error("not a {0} test file")]
    NoRunner(String),
}

/// The check, named `name`, that runs the wall test at `path` (with `bytes`) alone in the
/// worktree at `root` whose checks are `checks` (see the module doc).
pub fn check(
    path: &str,
    bytes: &[u8],
    root: &Path,
    checks: &[Check],
    name: String,
) -> Result<Check, WallRefusal> {
    let file = WallTest {
        path,
        name: path.rsplit('/').next().unwrap_or(path),
        bytes,
        root,
        checks,
    };
    match CheckKind::ALL
        .into_iter()
        .find_map(|k| runner(k).wall(&file))
    {
        Some(check) => check.map(|c| Check { name, ..c }),
        None => Err(WallRefusal::NoRunner(languages())),
    }
}

/// The languages wall tests may be written in, in words: `Rust, Python or Go`.
fn languages() -> String {
    let all: Vec<&str> = CheckKind::ALL
        .into_iter()
        .filter_map(|k| runner(k).wall_language())
        .collect();
    match all.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The suite of `kind` that covers `path` and runs its runner directly (not a package script).
pub(crate) fn owner(checks: &[Check], path: &str, kind: CheckKind) -> Option<Check> {
    checks_for(checks, path)
        .into_iter()
        .find(|c| c.kind == kind && c.script.is_none())
        .cloned()
}

/// Why `suite`, whose runner cannot be pointed at one file, cannot run a wall test.
pub(crate) fn unpointable(suite: &Check) -> WallRefusal {
    WallRefusal::Unpointable(suite.script.as_deref().unwrap_or("unknown").to_owned())
}

/// `path` relative to the directory of check `c`.
pub(crate) fn rel_to(c: &Check, path: &str) -> String {
    if c.dir == "." {
        path.to_string()
    } else {
        path.strip_prefix(&format!("{}/", c.dir))
            .unwrap_or(path)
            .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_no_runner_names_the_languages() {
        let e = check(
            "x/loki_wall_notes.md",
            b"",
            Path::new("/r"),
            &[],
            String::new(),
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "not a Rust, Python, JavaScript, Go or Java test file"
        );
    }
}
