//! What a parser extracts from a runner's output: per-test statuses and counts.

use serde::{Deserialize, Serialize};

/// The status of one test as far as a verdict is concerned.
///
/// Runner-specific words map onto these three: an error (pytest `ERROR`, a JUnit `<error>`, a
/// cancelled node test) is `failed`; an expected failure (pytest `xfail`) and a todo are `skipped`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestStatus {
    Passed,
    Failed,
    Skipped,
}

/// One test and how it ended. `id` is stable across runs of the same suite (no temp paths, no
/// hashes), so a baseline can be compared with a later run by id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestCase {
    pub id: String,
    pub status: TestStatus,
}

/// The tests one run of a check reported.
///
/// Counts may exceed what `tests` lists: a summary line ("3 passed, 1 skipped") can report tests
/// whose ids the output never named. Executed tests are `passed + failed`; skipped ones were not run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestReport {
    /// Which parser produced it (`junit`, `go-json`, `pytest-summary`, ...), for logs and receipts.
    pub source: String,
    pub tests: Vec<TestCase>,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl TestReport {
    /// A report whose counts are those of `tests`.
    #[must_use]
    pub fn from_cases(source: &str, tests: Vec<TestCase>) -> Self {
        let mut r = TestReport {
            source: source.to_owned(),
            tests,
            ..TestReport::default()
        };
        for t in &r.tests {
            match t.status {
                TestStatus::Passed => r.passed += 1,
                TestStatus::Failed => r.failed += 1,
                TestStatus::Skipped => r.skipped += 1,
            }
        }
        r
    }

    /// A report with counts only (from a summary line).
    #[must_use]
    pub fn from_counts(source: &str, passed: u64, failed: u64, skipped: u64) -> Self {
        TestReport {
            source: source.to_owned(),
            tests: Vec::new(),
            passed,
            failed,
            skipped,
        }
    }

    /// Tests that ran: passed plus failed.
    #[must_use]
    pub fn executed(&self) -> u64 {
        self.passed + self.failed
    }

    /// Ids of the failed tests, in report order, without duplicates.
    #[must_use]
    pub fn failing_ids(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.tests
            .iter()
            .filter(|t| t.status == TestStatus::Failed)
            .filter(|t| seen.insert(t.id.as_str()))
            .map(|t| t.id.clone())
            .collect()
    }

    /// Raises each count to at least the one a summary line claims; never lowers one. Used when
    /// per-test lines may have been lost (interleaved output, a truncated log).
    pub fn raise_counts_to(&mut self, summary: &TestReport) {
        self.passed = self.passed.max(summary.passed);
        self.failed = self.failed.max(summary.failed);
        self.skipped = self.skipped.max(summary.skipped);
    }

    /// Removes `prefix` from the front of every id (absolute working-directory paths that some
    /// runners put into ids would otherwise differ between a checkout and its worktree).
    pub fn strip_id_prefix(&mut self, prefix: &str) {
        if prefix.is_empty() {
            return;
        }
        for t in &mut self.tests {
            if let Some(rest) = t.id.strip_prefix(prefix) {
                t.id = rest.to_owned();
            }
        }
    }
}

/// Removes ANSI escape sequences (colour codes a runner printed despite `NO_COLOR`).
#[must_use]
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // CSI: parameters and intermediates, then one final byte in '@'..='~'.
            for f in chars.by_ref() {
                if ('@'..='~').contains(&f) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

/// Parses "3 passed, 1 failed"-style lists: each comma-separated part's leading number and word.
pub(crate) fn count_parts(list: &str, sep: char) -> Vec<(u64, String)> {
    list.split(sep)
        .filter_map(|part| {
            let mut words = part.split_whitespace();
            let n = words.next()?.parse::<u64>().ok()?;
            let word = words
                .next()?
                .trim_end_matches([',', '.', ';'])
                .to_ascii_lowercase();
            Some((n, word))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_is_stripped() {
        assert_eq!(strip_ansi("\u{1b}[32mok\u{1b}[0m done"), "ok done");
        assert_eq!(strip_ansi("plain"), "plain");
        assert_eq!(strip_ansi("dangling \u{1b}"), "dangling ");
    }

    #[test]
    fn counts_and_failing_ids() {
        let r = TestReport::from_cases(
            "t",
            vec![
                TestCase {
                    id: "a".into(),
                    status: TestStatus::Passed,
                },
                TestCase {
                    id: "b".into(),
                    status: TestStatus::Failed,
                },
                TestCase {
                    id: "b".into(),
                    status: TestStatus::Failed,
                },
                TestCase {
                    id: "c".into(),
                    status: TestStatus::Skipped,
                },
            ],
        );
        assert_eq!((r.passed, r.failed, r.skipped, r.executed()), (1, 2, 1, 3));
        assert_eq!(r.failing_ids(), vec!["b".to_owned()]);
    }
}
