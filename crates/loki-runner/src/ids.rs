//! Test ids: how each runner spells one, and the parts of it a judgement reads.
//!
//! | runner | id | own name | group | home | parent ⇢ child |
//! |---|---|---|---|---|---|
//! | pytest | `tests/test_a.py::TestX::test_y[1]` | `TestX::test_y[1]` | the file | the file | `::` |
//! | cargo, nextest | `pkg::binary::module::test` | `test` | `pkg::binary` | `pkg` | `::` |
//! | go | `example.com/m/pkg/TestX/sub` | `TestX/sub` | the package | up to `/Test` | `/` |
//! | vitest, jest, node | `src/a.test.ts > describe > name` | `describe > name` | the file | the file | ` > ` |
//! | maven | `calc.CalcTest::adds` | `adds` | the class | the class | `::` |
//! | another runner (npm) | its own words | the id | none | up to ` > ` | `::` |
//!
//! The *group* is what fails as a whole when it cannot load (a pytest or JS file, a Go package,
//! a cargo test binary, a Java test class); the *home* is where a replacement of a test must
//! live (a cargo test moves between a crate's modules and binaries). Each runner's answers are
//! its module's (`Runner`'s test-id methods, in `crate::runners`); the ids of a check whose
//! runner is unknown are read as [`OPAQUE`]'s.

use loki_protocol::CheckKind;

use crate::reports::cargo::{CRASHED, NOT_COMPILED};
use crate::runners::runner;

/// The runner whose ids say nothing of their structure (another runner behind a package
/// script): how the ids of a check of unknown kind are read.
pub const OPAQUE: CheckKind = CheckKind::Npm;

/// The separator between a test id's parent and child parts for `kind` (a Go test and its
/// subtests, a JS suite and its tests).
#[must_use]
pub fn separator(kind: CheckKind) -> &'static str {
    runner(kind).id_separator()
}

/// The test file `id` starts with, as the runner of `kind` wrote it, for the runners whose ids
/// start with their file (pytest's node ids, the JS runners'); `None` otherwise.
#[must_use]
pub fn file_part(kind: CheckKind, id: &str) -> Option<&str> {
    let sep = runner(kind).id_file_separator()?;
    id.split_once(sep).map(|(file, _)| file)
}

/// The test's own name: `id` without the file, module, binary or package it lives in.
#[must_use]
pub fn own_name(kind: CheckKind, id: &str) -> &str {
    runner(kind).own_name(id)
}

/// The group a test belongs to: what fails as a whole when it cannot load (a pytest or JS file,
/// a Go package, a cargo test binary, a Java test class).
#[must_use]
pub fn group(kind: CheckKind, id: &str) -> String {
    runner(kind).group(id)
}

/// The file (or package, or module) part of a test id: where a replacement must live.
#[must_use]
pub fn home(kind: CheckKind, id: &str) -> &str {
    runner(kind).home(id)
}

/// Whether `id` is not a test but the mark of a group that failed as a whole: a pytest file that
/// could not be collected (its path, no `::`), a Go package that did not build or crashed
/// (`<pkg> (package failed)`), a JS file that could not run (`<file> (file failed to run)`), a
/// cargo test binary that crashed mid-run (`<binary> (binary crashed)`) or whose target did not
/// compile (`<binary> (did not compile)`).
#[must_use]
pub fn is_group_mark(kind: CheckKind, id: &str) -> bool {
    id.ends_with(" (package failed)")
        || id.ends_with(" (file failed to run)")
        || id.ends_with(CRASHED)
        || id.ends_with(NOT_COMPILED)
        || runner(kind).marks_group(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_per_runner() {
        assert_eq!(
            group(CheckKind::Pytest, "tests/test_a.py::t"),
            "tests/test_a.py"
        );
        assert_eq!(group(CheckKind::Cargo, "pkg::it::t::x"), "pkg::it");
        assert_eq!(
            group(CheckKind::Go, "example.com/m/calc/TestAdd/small"),
            "example.com/m/calc"
        );
        assert_eq!(group(CheckKind::Jest, "a.test.js > x"), "a.test.js");
    }

    #[test]
    fn homes_per_runner() {
        assert_eq!(
            home(CheckKind::Go, "example.com/m/pkg/TestX/row"),
            "example.com/m/pkg"
        );
    }
}
