//! JUnit XML (the Jenkins/Ant dialect that nextest and pytest `--junitxml` write).
//!
//! Every `<testcase>` anywhere in the document is one test; its id is `classname::name` (just
//! `name` when the class name is empty, as pytest writes it for collection errors). A `<failure>` or
//! `<error>` child means failed, `<skipped>` means skipped (pytest writes xfail this way), no child
//! means passed. A document that is not XML, or has no `<testsuite>`/`<testsuites>` root, is `None`:
//! an empty-but-valid report (`<testsuites tests="0">`) is `Some` with zero tests, which is how
//! "no tests executed" is told apart from "no report".
//!
//! Maven's Surefire writes one such document per test class (`TEST-<class>.xml`, root
//! `<testsuite>`, `classname` the class's full name, `name` the method): [`merge`] joins them.
//! Without them, [`parse_surefire_summary`] reads Maven's closing `Tests run:` line (counts only).

use crate::reports::report::{TestCase, TestReport, TestStatus};

/// Parses a JUnit XML document.
#[must_use]
pub fn parse(xml: &str) -> Option<TestReport> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let root = doc.root_element().tag_name().name();
    if root != "testsuites" && root != "testsuite" {
        return None;
    }
    let tests = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| {
            let name = case.attribute("name").unwrap_or("");
            let class = case.attribute("classname").unwrap_or("");
            let id = if class.is_empty() {
                name.to_owned()
            } else {
                format!("{class}::{name}")
            };
            let child = |tag: &str| case.children().any(|c| c.has_tag_name(tag));
            let status = if child("failure") || child("error") {
                TestStatus::Failed
            } else if child("skipped") {
                TestStatus::Skipped
            } else {
                TestStatus::Passed
            };
            TestCase { id, status }
        })
        .collect();
    Some(TestReport::from_cases("junit", tests))
}

/// The reports of several documents as one (Surefire's one per class); `None` when there are none.
#[must_use]
pub fn merge(reports: impl IntoIterator<Item = TestReport>) -> Option<TestReport> {
    let mut cases = Vec::new();
    let mut any = false;
    for r in reports {
        any = true;
        cases.extend(r.tests);
    }
    any.then(|| TestReport::from_cases("junit", cases))
}

/// Maven's closing Surefire summary, `Tests run: 3, Failures: 1, Errors: 0, Skipped: 1` (the last
/// such line without a `Time elapsed`, which the per-class lines carry): counts only.
#[must_use]
pub fn parse_surefire_summary(log: &str) -> Option<TestReport> {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("Tests run: ") && !l.contains("Time elapsed"))?;
    let rest = &line[line.find("Tests run: ")?..];
    let mut counts = [0u64; 4];
    for (i, label) in ["Tests run: ", "Failures: ", "Errors: ", "Skipped: "]
        .iter()
        .enumerate()
    {
        let at = rest.find(label)? + label.len();
        let digits: String = rest[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        counts[i] = digits.parse().ok()?;
    }
    let [run, failures, errors, skipped] = counts;
    let failed = failures.saturating_add(errors);
    let passed = run.saturating_sub(failed).saturating_sub(skipped);
    Some(TestReport::from_counts(
        "surefire-summary",
        passed,
        failed,
        skipped,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NEXTEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="nextest-run" tests="2" skipped="0" failures="1" errors="0">
    <testsuite name="fixture" tests="2" skipped="0" errors="0" failures="1">
        <testcase name="tests::adds" classname="fixture" time="0.020"/>
        <testcase name="tests::breaks" classname="fixture" time="0.228">
            <failure message="panicked" type="test failure with exit code 101">trace</failure>
            <system-out>running 1 test</system-out>
        </testcase>
    </testsuite>
</testsuites>"#;

    const PYTEST: &str = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="0" skipped="1" tests="3"><testcase classname="" name="test_b" time="0.000"><error message="collection failure">ImportError</error></testcase><testcase classname="test_a" name="test_ok" time="0.001" /><testcase classname="test_a" name="test_xf" time="0.001"><skipped type="pytest.xfail" message="" /></testcase></testsuite></testsuites>"#;

    #[test]
    fn nextest_report() {
        let r = parse(NEXTEST).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 1, 0));
        assert_eq!(r.failing_ids(), vec!["fixture::tests::breaks"]);
    }

    #[test]
    fn pytest_report_with_collection_error_and_xfail() {
        let r = parse(PYTEST).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 1, 1));
        assert_eq!(r.failing_ids(), vec!["test_b"]);
    }

    const SUREFIRE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="calc.CalcTest" time="0.104" tests="3" errors="0" skipped="1" failures="1">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="adds" classname="calc.CalcTest" time="0.064"/>
  <testcase name="fails" classname="calc.CalcTest" time="0.006">
    <failure message="expected: &lt;4&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[trace]]></failure>
  </testcase>
  <testcase name="later" classname="calc.CalcTest" time="0"><skipped message="disabled"/></testcase>
</testsuite>"#;

    #[test]
    fn surefire_reports_merge_per_class() {
        let other = SUREFIRE.replace("calc.CalcTest", "calc.MoreTest");
        let r = merge([SUREFIRE, other.as_str()].iter().filter_map(|s| parse(s))).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (2, 2, 2));
        assert_eq!(r.tests[0].id, "calc.CalcTest::adds");
        assert_eq!(r.tests[3].id, "calc.MoreTest::adds");
        assert!(merge(std::iter::empty()).is_none());
    }

    #[test]
    fn surefire_summary_counts() {
        let log = "[ERROR] Tests run: 2, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in calc.CalcTest\n[ERROR] Tests run: 5, Failures: 1, Errors: 1, Skipped: 1\n[ERROR] BUILD FAILURE";
        let r = parse_surefire_summary(log).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (2, 2, 1));
        assert!(parse_surefire_summary("[INFO] BUILD SUCCESS").is_none());
    }

    #[test]
    fn empty_suite_is_a_report_and_garbage_is_not() {
        let r = parse(r#"<testsuites tests="0"><testsuite name="pytest" tests="0"/></testsuites>"#)
            .unwrap();
        assert_eq!(r.executed(), 0);
        assert!(parse("<html><body/></html>").is_none());
        assert!(parse("not xml at all").is_none());
        assert!(parse("<testsuites><testcase").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(s in ".{0,400}") {
            let _ = parse_surefire_summary(&s);
            let _ = parse(&s);
        }
    }
}
