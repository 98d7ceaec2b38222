//! JavaScript runners: the Jest-compatible JSON report (jest `--json`, vitest `--reporter=json`),
//! and the summary lines of jest, vitest and mocha as fallbacks.
//!
//! JSON: `testResults[].assertionResults[]` each give one test; its id is `<file> > <fullName>`
//! (the file as the runner wrote it; callers strip the working directory). Status `passed` is
//! passed, `failed` is failed, anything else (`pending`, `skipped`, `todo`, `disabled`) is skipped.
//! A file whose `status` is `failed` with no assertion results (it crashed while loading) is one
//! synthetic failed test `<file> (file failed to run)`.
//!
//! Text: jest `Tests:       1 failed, 1 skipped, 2 passed, 4 total`; vitest `Tests  1 failed | 2
//! passed (3)`; mocha `2 passing (5ms)` / `1 failing` / `1 pending`.

use serde::Deserialize;

use crate::reports::report::{TestCase, TestReport, TestStatus, count_parts, strip_ansi};

#[derive(Debug, Deserialize)]
struct Root {
    #[serde(rename = "testResults")]
    test_results: Vec<FileResult>,
}

#[derive(Debug, Deserialize)]
struct FileResult {
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(rename = "assertionResults", default)]
    assertion_results: Vec<Assertion>,
}

#[derive(Debug, Deserialize)]
struct Assertion {
    #[serde(rename = "fullName", default)]
    full_name: Name,
    #[serde(default)]
    title: Name,
    #[serde(default)]
    status: String,
}

/// A test's name as the report gives it: a string, or whatever the test was named with
/// (`it([2010, 6], ..)` in old jest gives an array), shown as its JSON.
#[derive(Debug, Default, Deserialize)]
#[serde(from = "serde_json::Value")]
struct Name(String);

impl From<serde_json::Value> for Name {
    fn from(v: serde_json::Value) -> Name {
        Name(match v {
            serde_json::Value::String(s) => s,
            serde_json::Value::Null => String::new(),
            other => other.to_string(),
        })
    }
}

/// Parses a Jest-compatible JSON report; `None` when it is not one.
#[must_use]
pub fn parse_json(text: &str) -> Option<TestReport> {
    let root: Root = serde_json::from_str(text).ok()?;
    let mut cases = Vec::new();
    for file in root.test_results {
        if file.assertion_results.is_empty() && file.status == "failed" {
            cases.push(TestCase {
                id: format!("{} (file failed to run)", file.name),
                status: TestStatus::Failed,
            });
        }
        for a in file.assertion_results {
            let name = if a.full_name.0.is_empty() {
                a.title.0
            } else {
                a.full_name.0
            };
            let status = match a.status.as_str() {
                "passed" => TestStatus::Passed,
                "failed" => TestStatus::Failed,
                _ => TestStatus::Skipped,
            };
            cases.push(TestCase {
                id: format!("{} > {name}", file.name),
                status,
            });
        }
    }
    Some(TestReport::from_cases("jest-json", cases))
}

/// Parses jest, vitest or mocha summary lines; `None` when there is none.
#[must_use]
pub fn parse_summary(text: &str) -> Option<TestReport> {
    let mut found: Option<TestReport> = None;
    let mut mocha = TestReport::from_counts("mocha-summary", 0, 0, 0);
    let mut saw_mocha = false;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Tests:") {
            // jest
            let mut r = TestReport::from_counts("jest-summary", 0, 0, 0);
            add_counts(&mut r, &count_parts(rest, ','));
            found = Some(r);
        } else if let Some(rest) = t.strip_prefix("Tests ") {
            // vitest: "Tests  1 failed | 2 passed (3)"
            let rest = rest.split('(').next().unwrap_or(rest);
            let parts = count_parts(rest, '|');
            if !parts.is_empty() {
                let mut r = TestReport::from_counts("vitest-summary", 0, 0, 0);
                add_counts(&mut r, &parts);
                found = Some(r);
            }
        } else if let Some((n, word)) = count_parts(t, ',').first()
            && t.split_whitespace().count() <= 3
        {
            match word.as_str() {
                "passing" => mocha.passed = *n,
                "failing" => mocha.failed = *n,
                "pending" => mocha.skipped = *n,
                _ => continue,
            }
            saw_mocha = true;
        }
    }
    found.or(saw_mocha.then_some(mocha))
}

fn add_counts(r: &mut TestReport, parts: &[(u64, String)]) {
    for (n, word) in parts {
        match word.as_str() {
            "passed" => r.passed += n,
            "failed" => r.failed += n,
            "skipped" | "todo" | "pending" => r.skipped += n,
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const JEST: &str = r#"{"numTotalTests":4,"numPassedTests":2,"numFailedTests":1,"numPendingTests":1,"success":false,
      "testResults":[
        {"name":"/repo/math.test.js","status":"failed","assertionResults":[
          {"ancestorTitles":["math"],"title":"adds","fullName":"math adds","status":"passed","failureMessages":[]},
          {"ancestorTitles":["math"],"title":"breaks","fullName":"math breaks","status":"failed","failureMessages":["x"]},
          {"ancestorTitles":[],"title":"later","fullName":"later","status":"pending"},
          {"title":"only title","status":"passed"}]},
        {"name":"/repo/broken.test.js","status":"failed","message":"Cannot find module","assertionResults":[]}]}"#;

    #[test]
    fn jest_json() {
        let mut r = parse_json(JEST).unwrap();
        r.strip_id_prefix("/repo/");
        assert_eq!((r.passed, r.failed, r.skipped), (2, 2, 1));
        assert_eq!(
            r.failing_ids(),
            vec![
                "math.test.js > math breaks",
                "broken.test.js (file failed to run)"
            ]
        );
        assert!(parse_json("{\"tests\": []}").is_none());
        // Old jest names a test given as an array by that array (dayjs's `it([2010, 6], ..)`):
        // one such test does not lose the report.
        let arrays = r#"{"testResults":[{"name":"/repo/d.test.js","status":"passed","assertionResults":[
          {"title":[2010,6],"fullName":[2010,6],"status":"passed","location":null},
          {"title":"plain","fullName":"plain","status":"passed"}]}]}"#;
        let mut r = parse_json(arrays).unwrap();
        r.strip_id_prefix("/repo/");
        assert_eq!(r.passed, 2);
        assert!(
            r.tests.iter().any(|t| t.id == "d.test.js > [2010,6]"),
            "{r:?}"
        );
    }

    #[test]
    fn summaries() {
        let r = parse_summary("Test Suites: 1 failed, 1 total\r\nTests:       1 failed, 1 skipped, 2 passed, 4 total\r\n").unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (2, 1, 1));
        let r = parse_summary(
            " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed | 1 skipped (4)\n",
        )
        .unwrap();
        assert_eq!(
            (r.passed, r.failed, r.skipped, r.source.as_str()),
            (2, 1, 1, "vitest-summary")
        );
        let r = parse_summary("\n  2 passing (5ms)\n  1 failing\n").unwrap();
        assert_eq!((r.passed, r.failed), (2, 1));
        assert!(parse_summary("npm ERR! missing script: test").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(s in "(Tests:|Tests |[0-9]+ (passed|failed|passing)|[|,(){}\"\\[\\]a-z ]|\n){0,60}") {
            let _ = parse_json(&s);
            let _ = parse_summary(&s);
        }
    }
}
