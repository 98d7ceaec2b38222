//! pytest's text output: the `-rA` "short test summary info" lines and the final summary line
//! (the fallback when the `--junitxml` report is missing).
//!
//! `-rA` lines are `PASSED|FAILED|ERROR|XFAIL|XPASS <node id>[ - message]`; `SKIPPED [n] file:line:
//! reason` names no node id and is counted from the summary only. The summary is the last line
//! shaped like `=== 1 failed, 2 passed, 1 skipped, 1 xfailed in 0.12s ===` (the `=` rulers are absent
//! under `-q`); `no tests ran` means zero. Errors count as failed; xfail counts as skipped and xpass
//! as passed, as in the JUnit report.

use crate::report::{TestCase, TestReport, TestStatus, count_parts, strip_ansi};

/// Parses pytest output; `None` when there is neither a result line nor a summary line.
#[must_use]
pub fn parse_text(text: &str) -> Option<TestReport> {
    let mut cases = Vec::new();
    let mut summary: Option<TestReport> = None;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let line = line.trim_end();
        if let Some(case) = result_line(line) {
            cases.push(case);
        } else if let Some(s) = summary_line(line) {
            summary = Some(s);
        }
    }
    if cases.is_empty() && summary.is_none() {
        return None;
    }
    let mut report = TestReport::from_cases("pytest-text", cases);
    if let Some(s) = summary {
        report.raise_counts_to(&s);
    }
    Some(report)
}

fn result_line(line: &str) -> Option<TestCase> {
    let (word, rest) = line.split_once(' ')?;
    let status = match word {
        "PASSED" | "XPASS" => TestStatus::Passed,
        "FAILED" | "ERROR" => TestStatus::Failed,
        "XFAIL" => TestStatus::Skipped,
        _ => return None,
    };
    let id = rest.trim_start().split(" - ").next()?.trim();
    // A node id is one token with a file part; prose that happens to start with PASSED is not.
    if id.is_empty() || id.contains(' ') && !id.contains("::") {
        return None;
    }
    Some(TestCase {
        id: id.to_owned(),
        status,
    })
}

fn summary_line(line: &str) -> Option<TestReport> {
    let inner = line.trim().trim_matches('=').trim();
    let (counts, time) = inner.rsplit_once(" in ")?;
    let secs = time.split_whitespace().next()?;
    if !secs.ends_with('s') || secs.trim_end_matches('s').parse::<f64>().is_err() {
        return None;
    }
    if counts.trim() == "no tests ran" {
        return Some(TestReport::from_counts("pytest-summary", 0, 0, 0));
    }
    let parts = count_parts(counts, ',');
    if parts.is_empty() {
        return None;
    }
    let mut r = TestReport::from_counts("pytest-summary", 0, 0, 0);
    for (n, word) in parts {
        match word.as_str() {
            "passed" | "xpassed" => r.passed += n,
            "failed" | "error" | "errors" => r.failed += n,
            "skipped" | "xfailed" => r.skipped += n,
            _ => {}
        }
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RA: &str = "\
============================= test session starts ==============================
collected 5 items

test_a.py .F.sx                                                          [100%]
=========================== short test summary info ============================
PASSED test_a.py::test_ok
PASSED test_a.py::test_param[1]
SKIPPED [1] test_a.py:4: later
XFAIL test_a.py::test_xf
FAILED test_a.py::test_bad - assert 1 == 2
==================== 1 failed, 2 passed, 1 skipped, 1 xfailed in 0.05s ====================
";

    #[test]
    fn short_summary_and_final_line() {
        let r = parse_text(RA).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (2, 1, 2));
        assert_eq!(r.failing_ids(), vec!["test_a.py::test_bad"]);
    }

    #[test]
    fn collection_error_and_no_tests() {
        let text = "ERROR test_b.py\r\n!!!!!!!! Interrupted: 1 error during collection !!!!!!!!\r\n=============== 1 error in 0.41s ===============\r\n";
        let r = parse_text(text).unwrap();
        assert_eq!(
            (r.failed, r.failing_ids()),
            (1, vec!["test_b.py".to_owned()])
        );
        let r =
            parse_text("collected 0 items\n\n============ no tests ran in 0.01s ============\n")
                .unwrap();
        assert_eq!(r.executed(), 0);
        assert!(parse_text("Traceback (most recent call last):\nImportError").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(s in "(PASSED |FAILED |ERROR |=+ | in |[0-9]+ passed|s|[a-z_.:\\[\\] -]|\n){0,60}") {
            let _ = parse_text(&s);
        }
    }
}
