//! Rust: libtest's human output (`cargo test`) and nextest's summary (the fallback when its JUnit
//! report is missing).
//!
//! libtest prints, per test binary, a `Running <target> (<path>)` or `Doc-tests <crate>` header,
//! then one line per test — `test <name> ... ok|FAILED|ignored[, reason]` — and a summary
//! `test result: ok. 1 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.07s`.
//! Test ids are `<binary>::<name>` where `<binary>` is the file stem of the test executable without
//! cargo's `-<hash>` suffix (`doctests` for doc-tests), so ids survive rebuilds. When the run was
//! asked for `--message-format=json-render-diagnostics`, cargo's `compiler-artifact` messages (JSON
//! lines on stdout) map each executable to its package, and ids become `<package>::<binary>::<name>`,
//! so a failure is attributed to the package it occurred in even when two packages have a test
//! target of the same name (`tests/all.rs`). Doc-tests map through the library's crate name.
//! Per-test lines are exact matches only; when a test's own output breaks one of them, the summary
//! lines still raise the counts ([`TestReport::raise_counts_to`]).
//!
//! # A binary that crashed
//! A test that aborts the process (a panic while panicking, a stack overflow, a segfault,
//! `std::process::abort`) ends its binary mid-run: no summary, and the tests still running or not
//! yet started never report. libtest runs every test on a thread named after it, and the runtime
//! names that thread when it dies (`thread 'a::b' (123) panicked at`, `thread 'a::b' has
//! overflowed its stack`), so a test named so in a section without a summary, with no result line
//! of its own, failed: it crashed the binary. Every such section also gets a synthetic failed test
//! `<binary> (binary crashed)` ([`CRASHED`]): the tests of that binary that did not report are
//! unknown in that run, not absent from it, and the judge must not read them as gone.
//!
//! # A test target that did not compile
//! cargo builds every target before it runs any, so one test target that does not compile (a test
//! written before the code it calls) stops the whole run. cargo names it on stderr: ``error: could
//! not compile `<package>` (test "<name>") due to 2 previous errors`` (`(lib test)` for a library's
//! unit tests, `(bin "<name>" test)` for a binary's). Each such target gets a synthetic failed
//! test `<package>::<binary> (did not compile)` ([`NOT_COMPILED`]; `<binary>` as in the ids of
//! its tests, the package left out when no artifact line was seen), so its tests are known to
//! have failed as a whole, and a later run of the other targets (see `loki-runner`'s keep-going)
//! can report the rest. [`not_compiled`] lists them for that run.
//!
//! # Cross-checks ([`LibtestRun::anomalies`])
//! The output is written by the code under test too, so it is checked against itself: every
//! binary that started must end with its `test result:` summary (a test that calls
//! `std::process::exit` ends the binary without one), and no binary may show more per-test result
//! lines than its summary counts (lines printed by a test to look like results).
//!
//! nextest prints `Summary [   0.229s] 2 tests run: 1 passed, 1 failed, 1 skipped` and a
//! `FAIL [   0.228s] (2/2) <binary> <test>` line per failing test.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::reports::report::{TestCase, TestReport, TestStatus, count_parts, strip_ansi};

/// The suffix of the synthetic test that marks a binary which ended mid-run (see the module doc).
pub const CRASHED: &str = " (binary crashed)";

/// The suffix of the synthetic test that marks a test target which did not compile.
pub const NOT_COMPILED: &str = " (did not compile)";

/// A target cargo reported as not compiling, from ``error: could not compile `<package>` (<what>)``.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Uncompiled {
    pub package: String,
    /// `lib`, `bin`, `test`, `example`, `bench`, `build-script`, ...
    pub kind: String,
    /// The target's name; empty for `lib` and `build-script`.
    pub name: String,
    /// Whether it was its test build (`(lib test)`, `(bin "x" test)`, any `(test "x")`).
    pub test_build: bool,
}

/// Every target an output says did not compile. Only lines cargo itself writes at the start of a
/// line count; an `error: could not compile` without a target (cargo before 1.72) names none.
#[must_use]
pub fn not_compiled(text: &str) -> Vec<Uncompiled> {
    let mut out: Vec<Uncompiled> = text
        .lines()
        .filter_map(|l| {
            let rest = strip_ansi(l)
                .trim_end()
                .strip_prefix("error: could not compile `")?
                .to_owned();
            let (package, rest) = rest.split_once("` (")?;
            let (what, _) = rest.split_once(')')?;
            let mut words = what.split(' ');
            let kind = words.next()?.to_owned();
            let mut name = String::new();
            let mut test_build = kind == "test";
            for w in words {
                match w {
                    "test" => test_build = true,
                    w if w.starts_with('"') => name = w.trim_matches('"').to_owned(),
                    _ => {}
                }
            }
            Some(Uncompiled {
                package: package.to_owned(),
                kind,
                name,
                test_build,
            })
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Length of the hex hash cargo appends to test executables (`it-0123456789abcdef`).
const CARGO_HASH_LEN: usize = 16;

/// A `compiler-artifact` message, as far as ids need it.
#[derive(Debug, Deserialize)]
struct Artifact {
    #[serde(default)]
    reason: String,
    #[serde(default)]
    package_id: String,
    #[serde(default)]
    target: ArtifactTarget,
    #[serde(default)]
    executable: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct ArtifactTarget {
    #[serde(default)]
    name: String,
    #[serde(default)]
    kind: Vec<String>,
}

/// The package name in a cargo package id: `path+file:///x/dir#name@1.0`, `…/name#1.0`, or the old
/// `name 1.0 (path+file:///x)`.
#[must_use]
pub fn package_name(id: &str) -> String {
    if let Some((url, frag)) = id.rsplit_once('#') {
        return match frag.split_once('@') {
            Some((name, _)) => name.to_owned(),
            None => url
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or(url)
                .to_owned(),
        };
    }
    id.split_whitespace().next().unwrap_or(id).to_owned()
}

/// What the compiler-artifact lines say: executable file name → package, lib crate name → package.
#[derive(Debug, Default)]
struct Artifacts {
    executables: BTreeMap<String, String>,
    libs: BTreeMap<String, String>,
    /// Whether any artifact line came (ids are then package-qualified).
    seen: bool,
}

impl Artifacts {
    fn read(line: &str) -> Option<Artifact> {
        let line = line.trim();
        if !line.starts_with("{\"reason\":\"compiler-artifact\"") {
            return None;
        }
        serde_json::from_str::<Artifact>(line)
            .ok()
            .filter(|a| a.reason == "compiler-artifact")
    }

    fn add(&mut self, a: Artifact) {
        self.seen = true;
        let pkg = package_name(&a.package_id);
        if a.target
            .kind
            .iter()
            .any(|k| k == "lib" || k.ends_with("lib"))
        {
            self.libs
                .insert(a.target.name.replace('-', "_"), pkg.clone());
        }
        if let Some(exe) = a.executable {
            let file = exe.rsplit('/').next().unwrap_or(&exe).to_owned();
            self.executables.insert(file, pkg);
        }
    }
}

/// One test binary's section of the output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// The id prefix of its tests (`binary` or `package::binary`).
    pub binary: String,
    /// libtest's `running N tests` line: the binary is a libtest harness (a `harness = false`
    /// target prints its own format, and is not cross-checked).
    pub announced: Option<u64>,
    /// Per-test result lines seen.
    pub lines: u64,
    /// The summary's passed + failed + ignored, when the summary line came.
    pub summary: Option<u64>,
    /// Tests the runtime named as their thread died (a panic or a stack overflow), in order.
    pub died: Vec<String>,
}

/// `cargo test` output, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibtestRun {
    pub report: TestReport,
    pub sections: Vec<Section>,
}

impl LibtestRun {
    /// What does not add up, in words (see the module doc); empty when the output is consistent.
    #[must_use]
    pub fn anomalies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in self.sections.iter().filter(|s| s.announced.is_some()) {
            match s.summary {
                None => out.push(format!(
                    "test binary {} ended without libtest's `test result:` summary (a test ended the process)",
                    s.binary
                )),
                Some(n) if s.lines > n => out.push(format!(
                    "test binary {} printed {} result lines but its summary counts {n} tests (lines printed by a test to look like results)",
                    s.binary, s.lines
                )),
                Some(_) => {}
            }
        }
        out
    }
}

/// Parses `cargo test` output; `None` when it holds neither a test line nor a summary line.
#[must_use]
pub fn parse_libtest(text: &str) -> Option<TestReport> {
    parse_libtest_run(text).map(|r| r.report)
}

/// [`parse_libtest`] with the per-binary sections for the cross-checks.
#[must_use]
pub fn parse_libtest_run(text: &str) -> Option<LibtestRun> {
    let mut reader = LibtestReader {
        artifacts: Artifacts::default(),
        binary: String::from("unknown"),
        cases: Vec::new(),
        sections: Vec::new(),
        summary: TestReport::from_counts("libtest-summary", 0, 0, 0),
        saw_summary: false,
        in_failures: false,
    };
    for raw in text.lines() {
        reader.read(raw);
    }
    let LibtestReader {
        artifacts,
        mut cases,
        sections,
        summary,
        saw_summary,
        ..
    } = reader;
    crashed_sections(&sections, &mut cases);
    uncompiled_binaries(text, &artifacts, &mut cases);
    if cases.is_empty() && !saw_summary {
        return None;
    }
    let mut report = TestReport::from_cases("libtest", cases);
    report.raise_counts_to(&summary);
    Some(LibtestRun { report, sections })
}

/// `cargo test` output read line by line.
struct LibtestReader {
    artifacts: Artifacts,
    /// The id prefix of the tests of the binary being read.
    binary: String,
    cases: Vec<TestCase>,
    sections: Vec<Section>,
    /// The summary lines' counts, added up.
    summary: TestReport,
    saw_summary: bool,
    /// Between `failures:` and `test result:` libtest replays the failing tests' own output,
    /// which may contain anything, including lines shaped like results.
    in_failures: bool,
}

impl LibtestReader {
    fn read(&mut self, raw: &str) {
        if let Some(a) = Artifacts::read(raw) {
            self.artifacts.add(a);
            return;
        }
        let line = strip_ansi(raw);
        let line = line.trim_end();
        let trimmed = line.trim_start();
        if line == "failures:" {
            self.in_failures = true;
        } else if let Some(rest) = trimmed.strip_prefix("Running ") {
            let (file, name) = binary_name(rest);
            let binary = match self.artifacts.executables.get(&file) {
                Some(pkg) => format!("{pkg}::{name}"),
                None => name,
            };
            self.start_section(binary);
        } else if let Some(krate) = trimmed.strip_prefix("Doc-tests ") {
            let binary = match self.artifacts.libs.get(krate.trim()) {
                Some(pkg) => format!("{pkg}::doctests"),
                None => "doctests".to_owned(),
            };
            self.start_section(binary);
        } else if let Some(n) = running_count(trimmed) {
            if let Some(s) = self.sections.last_mut().filter(|s| s.announced.is_none()) {
                s.announced = Some(n);
            }
        } else if let Some(rest) = line.strip_prefix("test result: ") {
            self.summary_line(rest);
        } else if !self.in_failures
            && let Some(case) = test_line(line, &self.binary)
        {
            if let Some(s) = self.sections.last_mut() {
                s.lines += 1;
            }
            self.cases.push(case);
        }
        if let (Some(name), Some(s)) = (thread_died(line), self.sections.last_mut())
            && !s.died.iter().any(|d| d == name)
        {
            s.died.push(name.to_owned());
        }
    }

    /// A test binary (or a crate's doctests) starts.
    fn start_section(&mut self, binary: String) {
        self.binary = binary;
        self.in_failures = false;
        self.sections.push(Section {
            binary: self.binary.clone(),
            announced: None,
            lines: 0,
            summary: None,
            died: Vec::new(),
        });
    }

    /// `test result: ok. 3 passed; 0 failed; 1 ignored; ...` (the text after `test result: `).
    fn summary_line(&mut self, rest: &str) {
        self.saw_summary = true;
        self.in_failures = false;
        let mut total = 0;
        for (n, word) in count_parts(rest.split_once(". ").map_or(rest, |(_, r)| r), ';') {
            match word.as_str() {
                "passed" => self.summary.passed += n,
                "failed" => self.summary.failed += n,
                "ignored" => self.summary.skipped += n,
                _ => continue,
            }
            total += n;
        }
        if let Some(s) = self.sections.last_mut().filter(|s| s.summary.is_none()) {
            s.summary = Some(total);
        }
    }
}

/// A libtest binary that ended without its summary crashed: the tests whose threads died fail,
/// and so does the binary (its `CRASHED` case).
fn crashed_sections(sections: &[Section], cases: &mut Vec<TestCase>) {
    for s in sections
        .iter()
        .filter(|s| s.announced.is_some() && s.summary.is_none())
    {
        for name in &s.died {
            let id = format!("{}::{name}", s.binary);
            if !cases.iter().any(|c| c.id == id) {
                cases.push(TestCase {
                    id,
                    status: TestStatus::Failed,
                });
            }
        }
        cases.push(TestCase {
            id: format!("{}{CRASHED}", s.binary),
            status: TestStatus::Failed,
        });
    }
}

/// A test target that did not compile fails as one case (`NOT_COMPILED`), named like its
/// binary's tests.
fn uncompiled_binaries(text: &str, artifacts: &Artifacts, cases: &mut Vec<TestCase>) {
    for u in not_compiled(text).iter().filter(|u| u.test_build) {
        let binary = match u.kind.as_str() {
            "lib" => artifacts
                .libs
                .iter()
                .find(|(_, pkg)| **pkg == u.package)
                .map_or_else(|| u.package.replace('-', "_"), |(lib, _)| lib.clone()),
            _ => u.name.replace('-', "_"),
        };
        let id = if artifacts.seen {
            format!("{}::{binary}{NOT_COMPILED}", u.package)
        } else {
            format!("{binary}{NOT_COMPILED}")
        };
        if !cases.iter().any(|c| c.id == id) {
            cases.push(TestCase {
                id,
                status: TestStatus::Failed,
            });
        }
    }
}

/// The test whose thread the runtime reports dead on this line: `thread 'a::b' (42) panicked at
/// src/lib.rs:3:5:` (the id in parentheses since Rust 1.89), `thread 'a::b' panicked at`,
/// `thread 'a::b' has overflowed its stack`. The line may carry other output before it (stdout and
/// stderr share the log). Only a Rust path names a test: `main`, unnamed threads and the threads
/// tests spawn under names of their own (`tokio-runtime-worker`) are not tests.
fn thread_died(line: &str) -> Option<&str> {
    let at = line.find("thread '")?;
    let rest = &line[at + "thread '".len()..];
    let (name, after) = rest.split_once('\'')?;
    let after = after.trim_start();
    let after = match after.strip_prefix('(') {
        Some(r) => r.split_once(')')?.1.trim_start(),
        None => after,
    };
    let died = after.starts_with("panicked at") || after.starts_with("has overflowed its stack");
    let path = name
        .split("::")
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'));
    (died && path && name != "main").then_some(name)
}

/// `running 3 tests` → 3.
fn running_count(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("running ")?;
    let (n, word) = rest.split_once(' ')?;
    matches!(word, "test" | "tests")
        .then(|| n.parse().ok())
        .flatten()
}

/// `test a::b ... ok` → a case of `binary`.
fn test_line(line: &str, binary: &str) -> Option<TestCase> {
    let rest = line.strip_prefix("test ")?;
    let (name, outcome) = rest.rsplit_once(" ... ")?;
    // `#[should_panic]` tests are listed as `name - should panic`: the test is still `name`.
    let name = name.trim();
    let name = name.strip_suffix(" - should panic").unwrap_or(name);
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

/// `unittests src/lib.rs (target/debug/deps/fixture-0123456789abcdef)` →
/// (`fixture-0123456789abcdef`, `fixture`): the executable's file name and the binary's name.
fn binary_name(header: &str) -> (String, String) {
    let path = header
        .rsplit_once('(')
        .map_or(header, |(_, p)| p.trim_end_matches(')'));
    let stem = path.rsplit('/').next().unwrap_or(path);
    let name = match stem.rsplit_once('-') {
        Some((name, hash))
            if hash.len() == CARGO_HASH_LEN && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            name.to_owned()
        }
        _ => stem.to_owned(),
    };
    (stem.to_owned(), name)
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
        // A test gaining `#[should_panic]` keeps its id.
        let r = parse_libtest("test tests::adds - should panic ... ok\n").unwrap();
        assert_eq!(r.tests[0].id, "unknown::tests::adds");
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

    #[test]
    fn packages_from_artifact_messages_and_cross_checks() {
        let text = concat!(
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/a#alpha@0.1.0","target":{"name":"alpha","kind":["lib"]},"profile":{"test":true},"executable":"/w/target/debug/deps/alpha-0123456789abcdef"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/beta#0.2.0","target":{"name":"all","kind":["test"]},"profile":{"test":true},"executable":"/w/target/debug/deps/all-fedcba9876543210"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/gamma#0.2.0","target":{"name":"all","kind":["test"]},"profile":{"test":true},"executable":"/w/target/debug/deps/all-00000000000000aa"}"#,
            "\n",
            r#"{"reason":"compiler-artifact","package_id":"path+file:///w/crates/a#alpha@0.1.0","target":{"name":"alpha","kind":["lib"]},"profile":{"test":false},"executable":null}"#,
            "\n",
            "     Running unittests src/lib.rs (target/debug/deps/alpha-0123456789abcdef)\n\nrunning 1 test\ntest t::a ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
            "     Running tests/all.rs (target/debug/deps/all-fedcba9876543210)\n\nrunning 1 test\ntest x ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
            "     Running tests/all.rs (target/debug/deps/all-00000000000000aa)\n\nrunning 1 test\ntest x ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
            "   Doc-tests alpha\n\nrunning 1 test\ntest src/lib.rs - f (line 3) ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
        );
        let run = parse_libtest_run(text).unwrap();
        assert_eq!(run.report.failing_ids(), vec!["gamma::all::x"]);
        let ids: Vec<&str> = run.report.tests.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "alpha::alpha::t::a",
                "beta::all::x",
                "gamma::all::x",
                "alpha::doctests::src/lib.rs - f (line 3)"
            ]
        );
        assert!(run.anomalies().is_empty(), "{:?}", run.anomalies());
        // A test that exits the process: the binary's summary never comes.
        let exited = parse_libtest_run("     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\nrunning 2 tests\ntest a ... ok\n").unwrap();
        assert_eq!(exited.anomalies().len(), 1);
        assert!(exited.anomalies()[0].contains("without libtest's"));
        assert_eq!(exited.report.failing_ids(), ["it (binary crashed)"]);
        // Result-shaped lines printed by a test.
        let forged = parse_libtest_run("     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\nrunning 1 test\ntest real ... ok\ntest fake_a ... ok\ntest fake_b ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n").unwrap();
        assert!(forged.anomalies()[0].contains("3 result lines"));
        // A custom harness (`harness = false`) prints its own format: not cross-checked.
        let custom = parse_libtest_run("     Running tests/custom.rs (target/debug/deps/custom-0123456789abcdef)\nall 3 cases fine\n     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\nrunning 1 test\ntest a ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n").unwrap();
        assert!(custom.anomalies().is_empty(), "{:?}", custom.anomalies());
        assert_eq!(package_name("my-pkg 0.1.0 (path+file:///x)"), "my-pkg");
        assert_eq!(
            package_name("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0"),
            "serde"
        );
    }

    #[test]
    fn test_targets_that_did_not_compile_are_marked_by_package_and_binary() {
        let text = concat!(
            "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/my-calc#0.1.0\",\"target\":{\"name\":\"my_calc\",\"kind\":[\"lib\"]},\"executable\":null}\n",
            "error[E0425]: cannot find function `triple` in crate `my_calc`\n",
            "error: could not compile `my-calc` (test \"tri-ple\") due to 1 previous error\n",
            "error: could not compile `my-calc` (lib test) due to 2 previous errors; 1 warning emitted\n",
            "error: could not compile `my-calc` (bin \"cli\" test) due to 1 previous error\n",
            "error: could not compile `other` (example \"demo\") due to 1 previous error\n",
            "  error: could not compile `forged` (test \"x\") due to 1 previous error\n",
        );
        let u = not_compiled(text);
        assert_eq!(
            u.iter()
                .map(|u| format!("{} {} {} {}", u.package, u.kind, u.name, u.test_build))
                .collect::<Vec<_>>(),
            [
                "my-calc bin cli true",
                "my-calc lib  true",
                "my-calc test tri-ple true",
                "other example demo false",
            ]
        );
        let r = parse_libtest(text).unwrap();
        let ids: Vec<(&str, TestStatus)> =
            r.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("my-calc::cli (did not compile)", TestStatus::Failed),
                ("my-calc::my_calc (did not compile)", TestStatus::Failed),
                ("my-calc::tri_ple (did not compile)", TestStatus::Failed),
            ]
        );
        // Without artifact lines the ids carry no package, as the tests' ids do not.
        let plain = "error: could not compile `calc` (test \"triple\") due to 1 previous error\n";
        assert_eq!(
            parse_libtest(plain).unwrap().tests[0].id,
            "triple (did not compile)"
        );
    }

    #[test]
    fn a_binary_that_crashed_names_the_test_that_crashed_it() {
        // A panic while panicking aborts the binary: the dying thread names the test, a test that
        // passed before it keeps its result, the rest of the binary is unknown.
        let text = "     Running unittests src/lib.rs (target/debug/deps/vec-0123456789abcdef)\n\n\
            running 4 tests\ntest tests::early ... ok\n\
            thread 'tests::overflow' (2694) panicked at library/core/src/panicking.rs:233:5:\n\
            panic in a destructor during cleanup\nthread caused non-unwinding panic. aborting.\n\
            error: test failed, to rerun pass `--lib`\n";
        let r = parse_libtest(text).unwrap();
        let ids: Vec<(&str, TestStatus)> =
            r.tests.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            ids,
            [
                ("vec::tests::early", TestStatus::Passed),
                ("vec::tests::overflow", TestStatus::Failed),
                ("vec (binary crashed)", TestStatus::Failed),
            ]
        );
        // A stack overflow, before Rust 1.89's thread ids, after other output on the same line.
        let text = "running 2 tests\n     Running tests/deep.rs (target/debug/deps/deep-0123456789abcdef)\n\n\
            running 2 tests\nnoise thread 'recurses' has overflowed its stack\nfatal runtime error: stack overflow\n";
        assert_eq!(
            parse_libtest(text).unwrap().failing_ids(),
            ["deep::recurses", "deep (binary crashed)"]
        );
        // A test that already reported, or a thread a test named itself, is not the crash; an
        // abort that names nobody leaves only the binary's mark.
        let text = "     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\n\
            running 3 tests\ntest fails ... FAILED\nthread 'fails' panicked at tests/it.rs:1:1:\n\
            thread 'tokio-runtime-worker' panicked at src/lib.rs:9:9:\n";
        assert_eq!(
            parse_libtest(text).unwrap().failing_ids(),
            ["it::fails", "it (binary crashed)"]
        );
        // A binary that finished is not marked, whatever its tests' threads said.
        let done = "     Running tests/it.rs (target/debug/deps/it-0123456789abcdef)\n\nrunning 1 test\n\
            thread 'x' panicked at tests/it.rs:1:1:\ntest x ... FAILED\n\n\
            test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
        assert_eq!(parse_libtest(done).unwrap().failing_ids(), ["it::x"]);
    }

    proptest! {
        #[test]
        fn never_panic(s in "(test |Running |Summary \\[|FAIL \\[|test result: |[a-z0-9 .;:,()\\[\\]\n-]){0,60}") {
            let _ = parse_libtest_run(&s).map(|r| r.anomalies());
            let _ = parse_nextest_summary(&s);
        }
    }
}
