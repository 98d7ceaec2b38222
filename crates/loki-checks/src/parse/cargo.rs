//! Rust: libtest's human output (`cargo test`) and nextest's summary (the fallback when its JUnit
//! report is missing).
//!
//! libtest prints, per test binary, a `Running <target> (<path>)` or `Doc-tests <crate>` header,
//! then one line per test — `test <name> ... ok|FAILED|ignored[, reason]` — and a summary
//! `test result: ok. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.07s`.
//! Test ids are `<binary>::<name>` where `<binary>` is the file stem of the test executable without
//! cargo's `-<hash>` suffix (`doctests` for doc-tests), so ids survive rebuilds.
//! Per-test lines are exact matches only; when a test's own output breaks one of them, the summary
//! lines still raise the counts ([`TestReport::raise_counts_to`]).
//!
//! nextest prints `Summary [   0.229s] 2 tests run: 1 passed, 1 failed, 1 skipped` and a
//! `FAIL [   0.228s] (2/2) <binary> <test>` line per failing test.

use crate::report::{TestCase, TestReport, TestStatus, count_parts, strip_ansi};

/// Length of the hex hash cargo appends to test executables (`it-0123456789abcdef`).
const CARGO_HASH_LEN: usize = 16;

/// Parses `cargo test` output; `None` when it holds neither a test line nor a summary line.
#[must_use]
pub fn parse_libtest(text: &str) -> Option<TestReport> {
    let mut binary = String::from("unknown");
    let mut cases = Vec::new();
    let mut summary = TestReport::from_counts("libtest-summary", 0, 0, 0);
    let mut saw_summary = false;
    // Between `failures:` and `test result:` libtest replays the failing tests' own output, which
    // may contain anything, including lines shaped like results.
    let mut in_failures = false;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let line = line.trim_end();
        let trimmed = line.trim_start();
        if line == "failures:" {
            in_failures = true;
        } else if let Some(rest) = trimmed.strip_prefix("Running ") {
            binary = binary_name(rest);
        } else if trimmed.starts_with("Doc-tests ") {
            binary = "doctests".to_owned();
        } else if let Some(rest) = line.strip_prefix("test result: ") {
            saw_summary = true;
            in_failures = false;
            for (n, word) in count_parts(rest.split_once(". ").map_or(rest, |(_, r)| r), ';') {
                match word.as_str() {
                    "passed" => summary.passed += n,
                    "failed" => summary.failed += n,
                    "ignored" => summary.skipped += n,
                    _ => {}
                }
            }
        } else if !in_failures && let Some(case) = test_line(line, &binary) {
            cases.push(case);
        }
    }
    if cases.is_empty() && !saw_summary {
        return None;
    }
    let mut report = TestReport::from_cases("libtest", cases);
    report.raise_counts_to(&summary);
    Some(report)
}

/// `test a::b ... ok` → a case of `binary`.
fn test_line(line: &str, binary: &str) -> Option<TestCase> {
    let rest = line.strip_prefix("test ")?;
    let (name, outcome) = rest.rsplit_once(" ... ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(" ... ") {
        return None;
    }
    let status = match outcome.trim() {
        "ok" => TestStatus::Passed,
        "FAILED" => TestStatus::Failed,
        o if o == "ignored" || o.starts_with("ignored, ") => TestStatus::Skipped,
        _ => return None,
    };
    Some(TestCase {
        id: format!("{binary}::{name}"),
        status,
    })
}

/// `unittests src/lib.rs (target/debug/deps/fixture-0123456789abcdef)` → `fixture`.
fn binary_name(header: &str) -> String {
    let path = header
        .rsplit_once('(')
        .map_or(header, |(_, p)| p.trim_end_matches(')'));
    let stem = path.rsplit('/').next().unwrap_or(path);
    match stem.rsplit_once('-') {
        Some((name, hash))
            if hash.len() == CARGO_HASH_LEN && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            name.to_owned()
        }
        _ => stem.to_owned(),
    }
}

/// Parses nextest's human output; `None` without a `Summary` line.
#[must_use]
pub fn parse_nextest_summary(text: &str) -> Option<TestReport> {
    let mut summary = None;
    let mut failing = Vec::new();
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("Summary [") {
            let Some((_, counts)) = rest.split_once(" run: ") else {
                continue;
            };
            let mut r = TestReport::from_counts("nextest-summary", 0, 0, 0);
            // "1 passed (1 flaky)": only the part before a parenthesis counts.
            let counts: String = counts
                .split(',')
                .map(|p| p.split('(').next().unwrap_or(""))
                .collect::<Vec<_>>()
                .join(",");
            for (n, word) in count_parts(&counts, ',') {
                match word.as_str() {
                    "passed" => r.passed += n,
                    "skipped" => r.skipped += n,
                    // failed, timed out, exec failed, ...: anything else that ran and did not pass.
                    "leaky" | "slow" => {}
                    _ => r.failed += n,
                }
            }
            summary = Some(r);
        } else if let Some(id) = failing_line(trimmed) {
            failing.push(id);
        }
    }
    let mut summary = summary?;
    failing.sort();
    failing.dedup();
    summary.tests = failing
        .into_iter()
        .map(|id| TestCase {
            id,
            status: TestStatus::Failed,
        })
        .collect();
    summary.failed = summary.failed.max(summary.tests.len() as u64);
    Some(summary)
}

/// `FAIL [   0.228s] (2/2) fixture tests::breaks` → `fixture::tests::breaks`.
fn failing_line(line: &str) -> Option<String> {
    let (word, rest) = line.split_once(' ')?;
    if !(word == "FAIL" || word == "TIMEOUT" || word.starts_with("SIG")) {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('[')?;
    let (_, rest) = rest.split_once(']')?;
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('(') {
        Some(r) => r.split_once(')')?.1.trim_start(),
        None => rest,
    };
    let (binary, test) = rest.split_once(' ')?;
    (!test.trim().is_empty()).then(|| format!("{binary}::{}", test.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const CARGO_TEST: &str = "\
   Compiling fixture v0.1.0 (/tmp/x)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 0.50s
     Running unittests src/lib.rs (target/debug/deps/fixture-0123456789abcdef)

running 3 tests
test tests::adds ... ok
test tests::later ... ignored, not yet
test tests::breaks ... FAILED

failures:

---- tests::breaks stdout ----
thread 'tests::breaks' panicked at src/lib.rs:4:27:
test tests::fake ... ok

failures:
    tests::breaks

test result: FAILED. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/it.rs (target/debug/deps/it-fedcba9876543210)

running 1 test
test works ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests fixture

running 1 test
test src/lib.rs - add (line 3) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
";

    #[test]
    fn cargo_test_human_output() {
        let r = parse_libtest(CARGO_TEST).unwrap();
        // The "fake" line in the failing test's replayed output is not a result.
        assert_eq!(r.failing_ids(), vec!["fixture::tests::breaks"]);
        assert_eq!((r.passed, r.failed, r.skipped), (3, 1, 1));
        assert!(!r.tests.iter().any(|t| t.id.ends_with("tests::fake")));
        assert!(r.tests.iter().any(|t| t.id == "it::works"));
        assert!(
            r.tests
                .iter()
                .any(|t| t.id == "doctests::src/lib.rs - add (line 3)")
        );
    }

    #[test]
    fn crlf_and_zero_tests() {
        let r = parse_libtest("running 0 tests\r\n\r\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\r\n").unwrap();
        assert_eq!(r.executed(), 0);
        let r = parse_libtest("test a ... ok\r\ntest b ... FAILED\r\n").unwrap();
        assert_eq!((r.passed, r.failed), (1, 1));
        assert!(parse_libtest("error[E0425]: cannot find value `x`").is_none());
    }

    #[test]
    fn nextest_summary() {
        let text = "        FAIL [   0.228s] (2/2) fixture tests::breaks\n\
            ────────────\n     Summary [   0.229s] 3 tests run: 1 passed (1 flaky), 1 failed, 1 timed out, 1 skipped\n\
            \u{1b}[31m        FAIL\u{1b}[0m [   0.228s] (2/2) fixture tests::breaks\n     TIMEOUT [  60.001s] fixture tests::hangs\n";
        let r = parse_nextest_summary(text).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 2, 1));
        assert_eq!(
            r.failing_ids(),
            vec!["fixture::tests::breaks", "fixture::tests::hangs"]
        );
        assert!(parse_nextest_summary("error: test run failed").is_none());
    }

    proptest! {
        #[test]
        fn never_panic(s in "(test |Running |Summary \\[|FAIL \\[|test result: |[a-z0-9 .;:,()\\[\\]\n-]){0,60}") {
            let _ = parse_libtest(&s);
            let _ = parse_nextest_summary(&s);
        }
    }
}
