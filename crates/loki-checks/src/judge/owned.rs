//! Which changed files belong to the tests.
//!
//! A test is its code and everything it reads as its expectation, so the judge moves all of it
//! together between trees:
//! - **test code**: test files by convention ([`loki_integrity::is_test_path`]: `tests/`,
//!   `test_*.py`, `conftest.py`, `*_test.go`, `*.test.ts`, `src/test/java/**.java`, …) and test helpers by name
//!   (`testutil/`, `testutils/`, `test_utils/`, `testhelpers/`, `test_helpers/` directories);
//! - **test data**: files under `testdata/`, `fixtures/`, `__fixtures__/`, `test_data/`,
//!   `test-data/`, `golden/`, `goldens/`, `__snapshots__/`, `snapshots/` (insta), files ending in
//!   `.snap`, `.ambr` (syrupy) or `.golden`, and any file that is not source code under a test
//!   directory (`tests/data/input.json`);
//! - **mixed**: a source file with test items inside it on either side ([`loki_runner::splice`]:
//!   `#[cfg(test)]` modules, doctests, Python doctests, vitest in-source blocks);
//! - everything else is the code under test (**source**) or neither (**other**: docs, config,
//!   CI, which the static rules judge).

use loki_integrity::is_test_path;

/// The role of a changed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    TestCode,
    TestData,
    Mixed,
    Source,
    Other,
}

const DATA_DIRS: &[&str] = &[
    "testdata",
    "fixtures",
    "__fixtures__",
    "test_data",
    "test-data",
    "golden",
    "goldens",
    "__snapshots__",
    "snapshots",
];
const HELPER_DIRS: &[&str] = &[
    "testutil",
    "testutils",
    "test_utils",
    "test-utils",
    "testhelpers",
    "test_helpers",
    "testing_utils",
];
const TEST_DIRS: &[&str] = &["tests", "test", "__tests__", "spec", "specs"];
const DATA_EXTS: &[&str] = &["snap", "ambr", "golden"];
const SOURCE_EXTS: &[&str] = &[
    "rs", "py", "js", "jsx", "ts", "tsx", "mjs", "cjs", "mts", "cts", "go", "java",
];

/// The role of `path`, given its bytes on the sides where it exists.
#[must_use]
pub fn owner(path: &str, sides: &[&[u8]]) -> Owner {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let dirs: Vec<&str> = path.split('/').rev().skip(1).collect();
    let source = SOURCE_EXTS.contains(&ext);
    if DATA_EXTS.contains(&ext) || dirs.iter().any(|d| DATA_DIRS.contains(d)) {
        return Owner::TestData;
    }
    // Code under a test directory (`test/setup.js`, `tests/common/mod.rs`) serves the tests,
    // whatever its name.
    if is_test_path(path)
        || (source
            && dirs
                .iter()
                .any(|d| HELPER_DIRS.contains(d) || TEST_DIRS.contains(d)))
    {
        return Owner::TestCode;
    }
    if !source && dirs.iter().any(|d| TEST_DIRS.contains(d)) {
        return Owner::TestData;
    }
    if !source {
        return Owner::Other;
    }
    if sides
        .iter()
        .any(|bytes| loki_runner::splice::has_test_items(path, bytes))
    {
        Owner::Mixed
    } else {
        Owner::Source
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles() {
        assert_eq!(owner("tests/test_a.py", &[]), Owner::TestCode);
        assert_eq!(owner("pkg/calc_test.go", &[]), Owner::TestCode);
        assert_eq!(
            owner("src/test/java/calc/CalcTest.java", &[]),
            Owner::TestCode
        );
        assert_eq!(owner("src/main/java/calc/Calc.java", &[]), Owner::Source);
        assert_eq!(owner("src/test/resources/cases.csv", &[]), Owner::TestData);
        assert_eq!(owner("internal/testutil/assert.go", &[]), Owner::TestCode);
        assert_eq!(owner("pkg/testdata/case1.json", &[]), Owner::TestData);
        assert_eq!(
            owner("src/__snapshots__/a.test.ts.snap", &[]),
            Owner::TestData
        );
        assert_eq!(
            owner("src/snapshots/crate__tests__x.snap", &[]),
            Owner::TestData
        );
        assert_eq!(owner("tests/data/input.txt", &[]), Owner::TestData);
        assert_eq!(owner("test/setup.js", &[]), Owner::TestCode);
        assert_eq!(owner("tests/common/mod.rs", &[]), Owner::TestCode);
        assert_eq!(owner("tests/golden.out", &[]), Owner::TestData);
        assert_eq!(owner("README.md", &[]), Owner::Other);
        assert_eq!(owner("pytest.ini", &[]), Owner::Other);
        assert_eq!(owner("src/lib.rs", &[b"pub fn f() {}\n"]), Owner::Source);
        assert_eq!(
            owner(
                "src/lib.rs",
                &[b"pub fn f() {}\n", b"#[cfg(test)]\nmod tests {}\n"]
            ),
            Owner::Mixed
        );
        assert_eq!(
            owner(
                "calc.py",
                &[b"def f():\n    \"\"\"\n    >>> f()\n    1\n    \"\"\"\n"]
            ),
            Owner::Mixed
        );
    }
}
