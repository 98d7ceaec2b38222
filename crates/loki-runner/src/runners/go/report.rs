//! Go: `go test -json` (test2json events, one JSON object per line) and, as the fallback, the
//! `go test -v` text lines `--- PASS|FAIL|SKIP: TestName (0.00s)`.
//!
//! A test's result is its last `pass|fail|skip` event with a non-empty `Test`, except that a test
//! that failed once stays failed (`-count=N` runs it N times, and a flaky failure must not be
//! overwritten by the next repetition's pass); its id is
//! `<package>/<Test>` (subtests keep their `Parent/child` names). A package that fails without any
//! failing test (a build error, a panic in `TestMain`, `build-fail`) gets a synthetic failed test
//! `<package> (package failed)` so the failure is counted. Before Go 1.24 a package that does not
//! build has no event at all, only a plain `FAIL\t<package> [build failed]` line (`[setup failed]`
//! likewise) among the JSON lines; that line counts as the package's failure. Other lines that are
//! not JSON (build output, the truncation marker of a capped log) are skipped.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::reports::report::{TestCase, TestReport, TestStatus, strip_ansi};

#[derive(Debug, Deserialize)]
struct Event {
    #[serde(rename = "Action", default)]
    action: String,
    #[serde(rename = "Package", default)]
    package: String,
    #[serde(rename = "Test", default)]
    test: String,
}

/// Parses `go test -json` output; `None` when no line is a test2json event.
#[must_use]
pub fn parse_json(text: &str) -> Option<TestReport> {
    let mut order: Vec<(String, String)> = Vec::new();
    let mut status: BTreeMap<(String, String), TestStatus> = BTreeMap::new();
    let mut failed_pkgs: BTreeSet<String> = BTreeSet::new();
    let mut saw_event = false;
    for line in text.lines() {
        let line = line.trim();
        if !line.starts_with('{') {
            if let Some(pkg) = plain_package_failure(line) {
                failed_pkgs.insert(pkg.to_owned());
            }
            continue;
        }
        let Ok(ev) = serde_json::from_str::<Event>(line) else {
            continue;
        };
        if ev.action.is_empty() {
            continue;
        }
        saw_event = true;
        let st = match ev.action.as_str() {
            "pass" => TestStatus::Passed,
            "fail" | "build-fail" => TestStatus::Failed,
            "skip" => TestStatus::Skipped,
            _ => continue,
        };
        if ev.test.is_empty() {
            // `build-fail` names only an ImportPath; the package's own `fail` event follows it.
            if st == TestStatus::Failed && !ev.package.is_empty() {
                failed_pkgs.insert(ev.package);
            }
            continue;
        }
        let key = (ev.package, ev.test);
        match status.get(&key) {
            None => order.push(key.clone()),
            Some(TestStatus::Failed) => continue,
            Some(_) => {}
        }
        status.insert(key, st);
    }
    if !saw_event {
        return None;
    }
    let mut cases: Vec<TestCase> = order
        .into_iter()
        .map(|key| {
            let st = status.get(&key).copied().unwrap_or(TestStatus::Failed);
            TestCase {
                id: format!("{}/{}", key.0, key.1),
                status: st,
            }
        })
        .collect();
    for pkg in failed_pkgs {
        let prefix = format!("{pkg}/");
        if !cases
            .iter()
            .any(|c| c.status == TestStatus::Failed && c.id.starts_with(&prefix))
        {
            cases.push(TestCase {
                id: format!("{pkg} (package failed)"),
                status: TestStatus::Failed,
            });
        }
    }
    Some(TestReport::from_cases("go-json", cases))
}

/// The package of a plain `FAIL\t<package> [build failed]` / `[setup failed]` line.
fn plain_package_failure(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("FAIL\t")?;
    let (pkg, what) = rest.split_once(char::is_whitespace)?;
    matches!(what.trim(), "[build failed]" | "[setup failed]").then_some(pkg)
}

/// Parses `go test -v` text; `None` without any `--- PASS|FAIL|SKIP` line or `FAIL` package line.
#[must_use]
pub fn parse_text(text: &str) -> Option<TestReport> {
    let mut cases = Vec::new();
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let trimmed = line.trim();
        let Some(rest) = trimmed.strip_prefix("--- ") else {
            // `FAIL\tpkg [build failed]` / `FAIL\tpkg\t0.01s`: a package-level failure.
            if let Some(pkg) = trimmed.strip_prefix("FAIL\t") {
                let pkg = pkg.split_whitespace().next().unwrap_or(pkg);
                cases.push(TestCase {
                    id: format!("{pkg} (package failed)"),
                    status: TestStatus::Failed,
                });
            }
            continue;
        };
        let Some((word, name)) = rest.split_once(": ") else {
            continue;
        };
        let status = match word {
            "PASS" => TestStatus::Passed,
            "FAIL" => TestStatus::Failed,
            "SKIP" => TestStatus::Skipped,
            _ => continue,
        };
        let name = name.rsplit_once(" (").map_or(name, |(n, _)| n).trim();
        if !name.is_empty() {
            cases.push(TestCase {
                id: name.to_owned(),
                status,
            });
        }
    }
    (!cases.is_empty()).then(|| TestReport::from_cases("go-text", cases))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const JSON: &str = r#"{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"example.com/m"}
{"Action":"run","Package":"example.com/m","Test":"TestAdd"}
{"Action":"output","Package":"example.com/m","Test":"TestAdd","Output":"=== RUN   TestAdd\n"}
{"Action":"pass","Package":"example.com/m","Test":"TestAdd","Elapsed":0}
{"Action":"run","Package":"example.com/m","Test":"TestBreak"}
{"Action":"output","Package":"example.com/m","Test":"TestBreak","Output":"--- PASS: TestFake (0.00s)\n"}
{"Action":"run","Package":"example.com/m","Test":"TestBreak/sub"}
{"Action":"fail","Package":"example.com/m","Test":"TestBreak/sub","Elapsed":0}
{"Action":"fail","Package":"example.com/m","Test":"TestBreak","Elapsed":0}
{"Action":"skip","Package":"example.com/m","Test":"TestLater","Elapsed":0}
{"Action":"fail","Package":"example.com/m","Elapsed":0.01}
[loki: 100 bytes of output dropped here]
{"ImportPath":"example.com/m/broken","Action":"build-output","Output":"broken.go:3:1: syntax error\n"}
{"ImportPath":"example.com/m/broken","Action":"build-fail"}
{"Action":"start","Package":"example.com/m/broken"}
{"Action":"output","Package":"example.com/m/broken","Output":"FAIL\texample.com/m/broken [build failed]\n"}
{"Action":"fail","Package":"example.com/m/broken","Elapsed":0,"FailedBuild":"example.com/m/broken"}
"#;

    #[test]
    fn test2json_events() {
        let r = parse_json(JSON).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 3, 1));
        assert_eq!(
            r.failing_ids(),
            vec![
                "example.com/m/TestBreak/sub",
                "example.com/m/TestBreak",
                "example.com/m/broken (package failed)"
            ]
        );
    }

    #[test]
    fn a_failure_in_any_repetition_stays_a_failure() {
        // `-count=3`: failed in the second run, passed in the first and the third.
        let ev = |a: &str, t: &str| {
            format!("{{\"Action\":\"{a}\",\"Package\":\"m\",\"Test\":\"{t}\"}}\n")
        };
        let text = [
            ev("pass", "TestFlaky"),
            ev("pass", "TestSteady"),
            ev("fail", "TestFlaky"),
            ev("pass", "TestSteady"),
            ev("pass", "TestFlaky"),
            ev("pass", "TestSteady"),
        ]
        .concat();
        let r = parse_json(&text).unwrap();
        assert_eq!((r.passed, r.failed), (1, 1));
        assert_eq!(r.failing_ids(), ["m/TestFlaky"]);
    }

    #[test]
    fn plain_build_failures_among_events_count() {
        // Go before 1.24: one package passed, another did not compile and has no event.
        let r = parse_json(
            "{\"Action\":\"pass\",\"Package\":\"m\",\"Test\":\"TestAdd\"}\n\
             {\"Action\":\"pass\",\"Package\":\"m\"}\n\
             FAIL\tm/sub [build failed]\n\
             FAIL\tm/other\t0.01s\n",
        )
        .unwrap();
        assert_eq!((r.passed, r.failed), (1, 1));
        assert_eq!(r.failing_ids(), ["m/sub (package failed)"]);
    }

    #[test]
    fn no_test_files_is_zero_and_text_is_not_json() {
        let r = parse_json(
            r#"{"Action":"start","Package":"m"}
{"Action":"output","Package":"m","Output":"?   \tm\t[no test files]\n"}
{"Action":"skip","Package":"m","Elapsed":0}"#,
        )
        .unwrap();
        assert_eq!((r.executed(), r.skipped), (0, 0));
        assert!(parse_json("ok  \tm\t0.01s\n").is_none());
    }

    #[test]
    fn verbose_text_fallback() {
        let r = parse_text("=== RUN   TestA\r\n--- PASS: TestA (0.00s)\r\n--- FAIL: TestB (0.01s)\r\n    --- SKIP: TestB/x (0.00s)\r\nFAIL\texample.com/m\t0.02s\r\n").unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (1, 2, 1));
        assert!(parse_text("ok  \tm\t0.01s").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(s in "(\\{\"Action\":\"(pass|fail|skip)\",\"Package\":\"p\"(,\"Test\":\"T\")?\\}|--- (PASS|FAIL): |FAIL\t|[a-z{}\":, ]|\n){0,40}") {
            let _ = parse_json(&s);
            let _ = parse_text(&s);
        }
    }
}
