//! pytest: the report of loki's own pytest plugin ([`PLUGIN_SOURCE`], loaded with `-p`), and
//! pytest's text output as the fallback.
//!
//! # The plugin report
//! One JSON object per line: `{"event":"start","rootdir":…}`, then per test phase
//! `{"event":"test","nodeid":…,"when":"setup|call|teardown","outcome":"passed|failed|skipped",
//! "xfail":bool}`, per failed collector `{"event":"collect_error","nodeid":…}`, and
//! `{"event":"finish","exitstatus":N}`; the start event also carries the arguments pytest was
//! started with (`args`) and `PYTEST_ADDOPTS` (`env_addopts`), and each test deselected by `-k`,
//! `-m`, `--deselect` or a plugin is `{"event":"deselected","nodeid":…}`. A test's id is its node id (`tests/test_a.py::TestX::test_y[1]`,
//! relative to pytest's rootdir), so a run can be narrowed to exactly these ids again. A test failed
//! when any phase failed (an error in setup or teardown is a failure); it was skipped when setup or
//! call was skipped (xfail included); else passed. A collection error is a failed test named by the
//! collector's node id (the file), `(collection)` for the session. Lines that do not parse are
//! skipped; a report without a `finish` event comes from a run that did not end normally, and says
//! so in [`PluginReport::finished`].
//!
//! The plugin turns on `--continue-on-collection-errors`: a test file that cannot be collected
//! (it imports what does not exist yet) still fails the run, but no longer stops every other
//! file's tests from running, so the judge sees them at base and at head.
//!
//! `--loki-reverse` runs the selected tests in reverse order (the judge's order check: a test
//! that passes only after its neighbours ran first leans on what they left behind).
//!
//! The plugin also adds `--loki-repeat=N`: each selected test runs N times in the one session,
//! every repetition but the last torn down completely (session fixtures included), so the next
//! starts from a fresh setup, as pytest-rerunfailures reruns a test. Every repetition reports
//! under the same node id, and a test failed when any phase of any repetition failed: that is
//! how the judge's reruns on the base ask "does it ever fail there?" in one process instead of
//! one pytest start per rerun.
//!
//! # Text
//! The `-rA` "short test summary info" lines and the final summary line.
//!
//! `-rA` lines are `PASSED|FAILED|ERROR|XFAIL|XPASS <node id>[ - message]`; `SKIPPED [n] file:line:
//! reason` names no node id and is counted from the summary only. The summary is the last line
//! shaped like `=== 1 failed, 2 passed, 1 skipped, 1 xfailed in 0.12s ===` (the `=` rulers are absent
//! under `-q`); `no tests ran` means zero. Errors count as failed; xfail counts as skipped and xpass
//! as passed, as in the JUnit report.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::reports::report::{TestCase, TestReport, TestStatus, count_parts, strip_ansi};

/// The module name the plugin is loaded under (`-p loki_pytest_report`).
pub const PLUGIN_MODULE: &str = "loki_pytest_report";
/// The variable that tells the plugin where to write.
pub const PLUGIN_ENV: &str = loki_core::env::PYTEST_REPORT.name;
/// The plugin: written next to the report, put first on `PYTHONPATH`, loaded with `-p`.
pub const PLUGIN_SOURCE: &str = r#"# loki's pytest reporter: one JSON line per test phase, for loki's judge.
import json as _json
import os as _os

import pytest as _pytest

_PATH = _os.environ.get("LOKI_PYTEST_REPORT")
_OUT = []


def _emit(obj):
    if not _PATH:
        return
    if not _OUT:
        _OUT.append(open(_PATH, "a", encoding="utf-8"))
    _OUT[0].write(_json.dumps(obj) + "\n")
    _OUT[0].flush()


def pytest_configure(config):
    # A file that cannot be collected must not hide the rest of the suite from the judge: every
    # collectable test runs, and the error still fails the run (exit status 1).
    config.option.continue_on_collection_errors = True


def pytest_sessionstart(session):
    _emit({
        "event": "start",
        "rootdir": str(session.config.rootpath),
        "args": [str(a) for a in session.config.invocation_params.args],
        "env_addopts": _os.environ.get("PYTEST_ADDOPTS", ""),
        "ini_addopts": str(session.config.inicfg.get("addopts", "") or ""),
    })


def pytest_deselected(items):
    for item in items:
        _emit({"event": "deselected", "nodeid": item.nodeid})


def pytest_collectreport(report):
    if report.failed:
        _emit({"event": "collect_error", "nodeid": report.nodeid})


def pytest_runtest_logreport(report):
    _emit({
        "event": "test",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "xfail": hasattr(report, "wasxfail"),
    })


def pytest_sessionfinish(session, exitstatus):
    _emit({"event": "finish", "exitstatus": int(exitstatus)})


def pytest_addoption(parser):
    parser.getgroup("loki").addoption(
        "--loki-repeat",
        type=int,
        default=1,
        dest="loki_repeat",
        help="run each test this many times, each from a fresh setup (loki's reruns)",
    )
    parser.getgroup("loki").addoption(
        "--loki-reverse",
        action="store_true",
        default=False,
        dest="loki_reverse",
        help="run the selected tests in reverse order (loki's order check)",
    )


@_pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if config.getoption("loki_reverse"):
        items.reverse()


@_pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    times = item.config.getoption("loki_repeat")
    if times <= 1:
        return None
    from _pytest.runner import runtestprotocol

    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for i in range(times):
        # Every repetition but the last tears down everything it set up (session fixtures too),
        # so the next starts from a fresh setup on any pytest version, as pytest-rerunfailures
        # reruns a test.
        runtestprotocol(item, nextitem=nextitem if i == times - 1 else None, log=True)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True
"#;

#[derive(Debug, Deserialize)]
struct PluginEvent {
    #[serde(default)]
    event: String,
    #[serde(default)]
    nodeid: String,
    #[serde(default)]
    when: String,
    #[serde(default)]
    outcome: String,
    #[serde(default)]
    xfail: bool,
    #[serde(default)]
    rootdir: Option<String>,
    #[serde(default)]
    exitstatus: Option<i64>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env_addopts: String,
    #[serde(default)]
    ini_addopts: String,
}

/// The plugin's report, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginReport {
    pub report: TestReport,
    /// pytest's rootdir, which node ids are relative to.
    pub rootdir: Option<String>,
    /// The session reached `pytest_sessionfinish`, with this exit status.
    pub finished: Option<i64>,
    /// The arguments pytest was started with (its `invocation_params.args`).
    pub args: Vec<String>,
    /// `PYTEST_ADDOPTS` as the session saw it.
    pub env_addopts: String,
    /// The `addopts` of the project's ini file (committed configuration).
    pub ini_addopts: String,
    /// Tests deselected by `-k`, `-m`, `--deselect` or a plugin.
    pub deselected: Vec<String>,
}

/// Parses the plugin's JSON lines; `None` when none is an event.
#[must_use]
pub fn parse_plugin(text: &str) -> Option<PluginReport> {
    #[derive(Default)]
    struct Seen {
        failed: bool,
        skipped: bool,
        call_passed: bool,
    }
    let mut order: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    let mut rootdir = None;
    let mut finished = None;
    let mut args = Vec::new();
    let mut env_addopts = String::new();
    let mut ini_addopts = String::new();
    let mut deselected = Vec::new();
    let mut any = false;
    for line in text.lines() {
        let Ok(ev) = serde_json::from_str::<PluginEvent>(line.trim()) else {
            continue;
        };
        match ev.event.as_str() {
            "start" => {
                any = true;
                rootdir = ev.rootdir;
                args = ev.args;
                env_addopts = ev.env_addopts;
                ini_addopts = ev.ini_addopts;
            }
            "deselected" => {
                any = true;
                deselected.push(ev.nodeid);
            }
            "finish" => {
                any = true;
                finished = ev.exitstatus;
            }
            "collect_error" | "test" => {
                any = true;
                let id = if ev.nodeid.is_empty() {
                    "(collection)".to_owned()
                } else {
                    ev.nodeid
                };
                if !seen.contains_key(&id) {
                    order.push(id.clone());
                }
                let s = seen.entry(id).or_default();
                if ev.event == "collect_error" {
                    s.failed = true;
                    continue;
                }
                match (ev.when.as_str(), ev.outcome.as_str()) {
                    (_, "failed") => s.failed = true,
                    ("setup" | "call", "skipped") => s.skipped = true,
                    ("call", "passed") => s.call_passed = true,
                    _ => {}
                }
                // A non-strict xpass is reported passed with `wasxfail`: it passed.
                if ev.xfail && ev.outcome == "skipped" {
                    s.skipped = true;
                }
            }
            _ => {}
        }
    }
    if !any {
        return None;
    }
    let cases = order
        .into_iter()
        .filter_map(|id| {
            let s = seen.get(&id)?;
            let status = if s.failed {
                TestStatus::Failed
            } else if s.skipped {
                TestStatus::Skipped
            } else if s.call_passed {
                TestStatus::Passed
            } else {
                // Only a setup phase was seen: the session ended before the test ran.
                return None;
            };
            Some(TestCase { id, status })
        })
        .collect();
    Some(PluginReport {
        report: TestReport::from_cases("pytest-plugin", cases),
        rootdir,
        finished,
        args,
        env_addopts,
        ini_addopts,
        deselected,
    })
}

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

    #[test]
    fn plugin_report_phases_collection_errors_and_xfail() {
        let text = r#"{"event": "start", "rootdir": "/r"}
{"event": "collect_error", "nodeid": "tests/test_b.py"}
{"event": "test", "nodeid": "tests/test_a.py::test_ok", "when": "setup", "outcome": "passed", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_ok", "when": "call", "outcome": "passed", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_ok", "when": "teardown", "outcome": "passed", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_teardown_error", "when": "call", "outcome": "passed", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_teardown_error", "when": "teardown", "outcome": "failed", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_skip", "when": "setup", "outcome": "skipped", "xfail": false}
{"event": "test", "nodeid": "tests/test_a.py::test_xf", "when": "call", "outcome": "skipped", "xfail": true}
{"event": "test", "nodeid": "tests/test_a.py::test_p[1-2]", "when": "call", "outcome": "failed", "xfail": false}
not json
{"event": "finish", "exitstatus": 1}
"#;
        let p = parse_plugin(text).unwrap();
        assert_eq!(p.rootdir.as_deref(), Some("/r"));
        assert_eq!(p.finished, Some(1));
        let r = p.report;
        assert_eq!((r.passed, r.failed, r.skipped), (1, 3, 2));
        assert_eq!(
            r.failing_ids(),
            vec![
                "tests/test_b.py",
                "tests/test_a.py::test_teardown_error",
                "tests/test_a.py::test_p[1-2]"
            ]
        );
        assert!(parse_plugin("plain text\n").is_none());
        let unfinished = parse_plugin(r#"{"event": "start", "rootdir": "/r"}"#).unwrap();
        assert_eq!(
            (unfinished.finished, unfinished.report.executed()),
            (None, 0)
        );
    }

    proptest! {
        #[test]
        fn never_panics(s in "(PASSED |FAILED |ERROR |=+ | in |[0-9]+ passed|s|[a-z_.:\\[\\] -]|\n){0,60}") {
            let _ = parse_text(&s);
            let _ = parse_plugin(&s);
        }

        #[test]
        fn plugin_never_panics(s in "(\\{\"event\": \"(test|start|finish|collect_error)\"|, \"nodeid\": \"[a-z:]{0,6}\"|, \"when\": \"(setup|call)\"|, \"outcome\": \"(passed|failed|skipped)\"|\\}|\n){0,40}") {
            let _ = parse_plugin(&s);
        }
    }
}
