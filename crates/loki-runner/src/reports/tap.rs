//! node's test runner: TAP (`--test-reporter=tap`, and node 20's default when stdout is not a
//! terminal), with the `spec` reporter's `ℹ tests N` summary as the fallback.
//!
//! TAP result lines are `[indent](ok|not ok) N [- name][ # SKIP|TODO ...]`; four spaces of indent
//! per nesting level, each preceded by `# Subtest: name`. A test's id is its path of names joined by
//! ` > `. As node counts them, a `describe` block (its YAML block says `type: 'suite'`) is not a
//! test, but a test with subtests is; a suite that fails for a reason other than its subtests (a
//! hook, a load error) is counted as a failed test so it is not lost. `# SKIP` and `# TODO` are
//! skipped. `#` inside names is escaped as `\#` and does not start a directive.

use serde::Deserialize;

use crate::reports::report::{TestCase, TestReport, TestStatus, strip_ansi};

/// File name of loki's reporter for node's test runner, written next to its report.
pub const NODE_REPORTER_FILE: &str = "loki-node-reporter.mjs";
/// loki's reporter for `node --test` (`--test-reporter=<this file>`): one JSON line per test,
/// `{"id": "<file> > <parent> > <name>", "status": "passed|failed|skipped"}`, with the file
/// relative to the working directory (node's TAP names no files, so tests of two files with the
/// same name would share an id). A file that fails to load comes as a test named by its path,
/// `<file> > <file>`, read as `<file> (file failed to run)`. As node counts them, a `describe` suite is not a test unless it
/// failed for a reason of its own (a hook), and a skipped or todo test is skipped.
pub const NODE_REPORTER_SOURCE: &str = r#"// loki's reporter for node's test runner: one JSON line per test.
import { relative } from 'node:path';

export default async function* lokiReporter(source) {
  const stacks = new Map();
  const cwd = process.cwd();
  for await (const ev of source) {
    const d = ev.data || {};
    const file = d.file ? relative(cwd, d.file) : '';
    if (ev.type === 'test:start') {
      const s = stacks.get(file) || [];
      s.length = d.nesting;
      s.push(typeof d.name === 'string' && d.name.startsWith(cwd + '/') ? relative(cwd, d.name) : d.name);
      stacks.set(file, s);
      continue;
    }
    if (ev.type !== 'test:pass' && ev.type !== 'test:fail') continue;
    const path = (stacks.get(file) || []).slice(0, d.nesting);
    // A file that fails to load is reported under its absolute path: keep ids tree-independent.
    const name = typeof d.name === 'string' && d.name.startsWith(cwd + '/') ? relative(cwd, d.name) : d.name;
    path.push(name);
    const details = d.details || {};
    const suite = details.type === 'suite';
    let status;
    if (ev.type === 'test:fail') {
      const why = details.error && details.error.failureType;
      if (suite && why === 'subtestsFailed') continue;
      status = 'failed';
    } else {
      if (suite) continue;
      status = d.skip !== undefined || d.todo !== undefined ? 'skipped' : 'passed';
    }
    yield JSON.stringify({ id: (file ? [file, ...path] : path).join(' > '), status }) + '\n';
  }
}
"#;

#[derive(Debug, Deserialize)]
struct NodeEvent {
    id: String,
    status: String,
}

/// Parses the reporter's JSON lines ([`NODE_REPORTER_SOURCE`]); `None` when none parses.
#[must_use]
pub fn parse_node_events(text: &str) -> Option<TestReport> {
    let cases: Vec<TestCase> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<NodeEvent>(l.trim()).ok())
        .map(|e| TestCase {
            id: file_mark(e.id),
            status: match e.status.as_str() {
                "passed" => TestStatus::Passed,
                "skipped" => TestStatus::Skipped,
                _ => TestStatus::Failed,
            },
        })
        .collect();
    (!cases.is_empty()).then(|| TestReport::from_cases("node-events", cases))
}

/// A file that failed to load is reported as a test named by its own path (`f > f`): it is the
/// file's failure as a whole, `f (file failed to run)` as the other JS runners' reports name it.
fn file_mark(id: String) -> String {
    match id.split_once(" > ") {
        Some((file, name)) if file == name => format!("{file} (file failed to run)"),
        _ => id,
    }
}

/// Spaces of indentation per subtest level in node's TAP.
const TAP_INDENT: usize = 4;

#[derive(Debug)]
struct Pending {
    id: String,
    status: TestStatus,
    suite: bool,
    /// Failed only because its subtests did (`failureType: 'subtestsFailed'`).
    subtests_failed: bool,
}

/// Parses TAP; `None` when there is no result line.
#[must_use]
pub fn parse_tap(text: &str) -> Option<TestReport> {
    let mut path: Vec<String> = Vec::new();
    let mut cases = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut saw_result = false;
    let mut in_yaml = false;
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let depth = indent / TAP_INDENT;
        let body = line.trim();
        if in_yaml {
            // Diagnostics of the pending result: nothing in here is a result line.
            if body == "..." {
                in_yaml = false;
            } else if let Some(p) = pending.as_mut() {
                if body == "type: 'suite'" {
                    p.suite = true;
                } else if body == "failureType: 'subtestsFailed'" {
                    p.subtests_failed = true;
                }
            }
        } else if body == "---" && pending.is_some() {
            in_yaml = true;
        } else if let Some(name) = body.strip_prefix("# Subtest: ") {
            flush(&mut pending, &mut cases);
            path.truncate(depth);
            path.push(name.to_owned());
        } else if let Some((status, name)) = result_line(body) {
            saw_result = true;
            flush(&mut pending, &mut cases);
            path.truncate(depth);
            let mut id = path.clone();
            id.push(name);
            pending = Some(Pending {
                id: id.join(" > "),
                status,
                suite: false,
                subtests_failed: false,
            });
        }
    }
    flush(&mut pending, &mut cases);
    saw_result.then(|| TestReport::from_cases("tap", cases))
}

fn flush(pending: &mut Option<Pending>, cases: &mut Vec<TestCase>) {
    let Some(p) = pending.take() else {
        return;
    };
    let counts = !p.suite || (p.status == TestStatus::Failed && !p.subtests_failed);
    if counts {
        cases.push(TestCase {
            id: p.id,
            status: p.status,
        });
    }
}

/// `not ok 2 - breaks # TODO later` → (skipped, "breaks").
fn result_line(body: &str) -> Option<(TestStatus, String)> {
    let (failed, rest) = if let Some(r) = body.strip_prefix("not ok") {
        (true, r)
    } else {
        (false, body.strip_prefix("ok")?)
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("- ").unwrap_or(rest);
    let (name, directive) = split_directive(rest);
    let directive = directive.to_ascii_uppercase();
    let status = if directive.starts_with("SKIP") || directive.starts_with("TODO") {
        TestStatus::Skipped
    } else if failed {
        TestStatus::Failed
    } else {
        TestStatus::Passed
    };
    Some((status, name.replace("\\#", "#").trim().to_owned()))
}

/// Splits at the first `#` not escaped by a backslash.
fn split_directive(s: &str) -> (&str, &str) {
    let bytes = s.as_bytes();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'#' && (i == 0 || bytes[i - 1] != b'\\') {
            return (&s[..i], s[i + 1..].trim());
        }
    }
    (s, "")
}

/// Parses the summary of node's `spec` or `tap` reporter (`ℹ tests 7` / `# tests 7`, `pass`, `fail`,
/// `cancelled`, `skipped`, `todo`); `None` without a `tests` line.
#[must_use]
pub fn parse_node_summary(text: &str) -> Option<TestReport> {
    let mut saw = false;
    let mut r = TestReport::from_counts("node-summary", 0, 0, 0);
    for raw in text.lines() {
        let line = strip_ansi(raw);
        let t = line.trim();
        let Some(rest) = t.strip_prefix("ℹ ").or_else(|| t.strip_prefix("# ")) else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let (Some(word), Some(n), None) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        let Ok(n) = n.parse::<u64>() else {
            continue;
        };
        match word {
            "tests" => saw = true,
            "pass" => r.passed = n,
            "fail" | "cancelled" => r.failed += n,
            "skipped" | "todo" => r.skipped += n,
            _ => {}
        }
    }
    saw.then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_file_that_fails_to_load_is_the_file_failing_as_a_whole() {
        let text = "{\"id\":\"test/a.test.js > adds\",\"status\":\"passed\"}\n\
            {\"id\":\"test/b.test.js > test/b.test.js\",\"status\":\"failed\"}\n\
            {\"id\":\"test/c.test.js > test/c.test.js > inner\",\"status\":\"passed\"}\n";
        let ids: Vec<String> = parse_node_events(text)
            .unwrap()
            .tests
            .into_iter()
            .map(|t| t.id)
            .collect();
        assert_eq!(
            ids,
            [
                "test/a.test.js > adds",
                "test/b.test.js (file failed to run)",
                "test/c.test.js > test/c.test.js > inner"
            ]
        );
    }

    /// Abridged from node 20's real output for a file with a describe block and a nested test.
    const TAP: &str = "TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 6.5
  ...
# Subtest: breaks
not ok 2 - breaks
  ---
  failureType: 'testCodeFailure'
  error: |-
    ok 9 - not a result, inside YAML
  ...
# Subtest: later
ok 3 - later # SKIP
# Subtest: group
    # Subtest: inner ok
    ok 1 - inner ok
    # Subtest: inner bad
    not ok 2 - inner bad
    1..2
not ok 4 - group
  ---
  type: 'suite'
  failureType: 'subtestsFailed'
  ...
# Subtest: parent
    # Subtest: child \\# 1
    ok 1 - child \\# 1
    1..1
ok 5 - parent
1..5
# tests 7
# pass 4
# fail 2
# skipped 1
";

    #[test]
    fn node_tap_counts_like_node() {
        let r = parse_tap(TAP).unwrap();
        assert_eq!((r.passed, r.failed, r.skipped), (4, 2, 1));
        assert_eq!(r.failing_ids(), vec!["breaks", "group > inner bad"]);
        assert!(r.tests.iter().any(|t| t.id == "parent > child # 1"));
        let s = parse_node_summary(TAP).unwrap();
        assert_eq!((s.passed, s.failed, s.skipped), (4, 2, 1));
    }

    #[test]
    fn crlf_and_load_failure() {
        let r = parse_tap("TAP version 13\r\n# Subtest: /repo/test/a.test.js\r\nnot ok 1 - /repo/test/a.test.js\r\n  ---\r\n  failureType: 'testCodeFailure'\r\n  ...\r\n1..1\r\n").unwrap();
        assert_eq!(r.failing_ids(), vec!["/repo/test/a.test.js"]);
        assert!(parse_tap("okay then\nnothing here").is_none());
    }

    #[test]
    fn spec_summary() {
        let r = parse_node_summary("✔ adds (1ms)\nℹ tests 3\nℹ suites 0\nℹ pass 2\nℹ fail 1\nℹ cancelled 0\nℹ skipped 0\nℹ todo 0\n").unwrap();
        assert_eq!((r.passed, r.failed), (2, 1));
        assert!(parse_node_summary("ℹ pass 2").is_none());
    }

    proptest! {
        #[test]
        fn never_panics(s in "( {0,8}(ok|not ok) [0-9]+ - |# Subtest: |# (tests|pass|fail) [0-9]|ℹ |\\\\#|#|[a-z' ]|\n){0,60}") {
            let _ = parse_tap(&s);
            let _ = parse_node_summary(&s);
        }
    }
}
