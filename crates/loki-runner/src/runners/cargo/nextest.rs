//! `cargo nextest run`: detected by [`super::Cargo`] when the project opts in; JUnit through a
//! tool config of loki's own (profile `loki-junit`, written in the attempt's directory, so the
//! project's config is untouched), its summary lines as the fallback; `cargo test --doc` with the
//! same package selection completes each run ([`Nextest::doc_companion`]), because nextest does
//! not run doctests. Narrowing, locating, isolation and toolchain failures are cargo's.

use std::ffi::OsString;
use std::path::Path;

use crate::ChecksError;
use crate::detect::Check;
use crate::exec::Environment;
use crate::exec::plan::{ReportPlan, write_report_file};
use crate::isolate::Isolation;
use crate::locate::Locator;
use crate::reports::junit;
use crate::reports::report::TestReport;
use crate::runners::Runner;
use crate::select::Selection;

use super::report;

/// nextest's exit code for "no tests to run".
const NEXTEST_NO_TESTS: i32 = 4;

/// `cargo nextest run`.
#[derive(Debug)]
pub(crate) struct Nextest;

impl Runner for Nextest {
    fn report_plan(
        &self,
        check: &Check,
        tmp: &Path,
        _env: &[(OsString, OsString)],
    ) -> Result<ReportPlan, ChecksError> {
        let junit = tmp.join("junit.xml");
        let config = tmp.join("nextest.toml");
        let body = format!(
            "[profile.loki-junit.junit]\npath = {:?}\n",
            junit.to_string_lossy().into_owned()
        );
        write_report_file(check, &config, body.as_bytes())?;
        Ok(ReportPlan {
            args: vec![
                "--no-tests=warn".into(),
                format!("--tool-config-file=loki:{}", config.to_string_lossy()),
                "--profile=loki-junit".into(),
            ],
            env: Vec::new(),
            files: vec![junit],
        })
    }

    fn keeps_going(&self) -> bool {
        true
    }

    /// The `cargo test --doc` run that completes a nextest run: the same package selection, no
    /// target filters. `None` when the nextest command selects targets that hold no doctests.
    fn doc_companion(&self, check: &Check) -> Option<Vec<String>> {
        // `cargo test --doc` runs the doctests of a library that turned them off (`doctest =
        // false`): the project's own `cargo test` would not.
        let manifest = std::fs::read_to_string(check.cwd.join("Cargo.toml")).unwrap_or_default();
        if let Ok(value) = manifest.parse::<toml::Table>()
            && value.get("workspace").is_none()
            && value
                .get("lib")
                .and_then(|l| l.get("doctest"))
                .and_then(toml::Value::as_bool)
                == Some(false)
        {
            return None;
        }
        let args = check.command.get(3..)?;
        let mut out = vec!["cargo".to_owned(), "test".to_owned(), "--doc".to_owned()];
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--" => break,
                "--workspace"
                | "--all"
                | "--no-fail-fast"
                | "--all-features"
                | "--no-default-features" => out.push(a.clone()),
                "-p" | "--package" | "--features" | "-F" | "--manifest-path" | "--exclude" => {
                    out.push(a.clone());
                    out.push(it.next()?.clone());
                }
                "--lib" | "--bins" | "--bin" | "--tests" | "--test" | "-E" | "--filterset"
                | "--filter-expr" | "--examples" | "--benches" => return None,
                other if other.starts_with("--package=") || other.starts_with("--features=") => {
                    out.push(a.clone());
                }
                _ => {}
            }
        }
        Some(out)
    }

    fn build_companion(&self, check: &Check) -> Option<Vec<String>> {
        let words: Vec<&str> = check.command.iter().map(String::as_str).collect();
        let ["cargo", "nextest", "run", args @ ..] = words.as_slice() else {
            return None;
        };
        super::build_companion(args, false)
    }

    fn parse_file(&self, text: &str) -> Option<TestReport> {
        junit::parse(text)
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        report::parse_nextest_summary(log).or_else(|| report::parse_libtest(log))
    }

    fn no_tests_exit(&self) -> Option<i32> {
        Some(NEXTEST_NO_TESTS)
    }

    fn missing_tool(&self, _exit_code: i32, log: &str) -> Option<String> {
        log.contains("no such command: `nextest`")
            .then(|| "cargo-nextest not found".into())
    }

    fn environment(&self, log: &str, report: Option<&TestReport>) -> Option<Environment> {
        super::toolchain_failure(log, report)
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        super::narrow(check, root, &files, sel, false)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        super::locate(at, check, id)
    }

    fn isolation(&self) -> Isolation {
        Isolation::Cargo
    }

    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        super::own_name(id)
    }

    fn group(&self, id: &str) -> String {
        super::group(id)
    }

    fn runs_as_test_file(&self, path: &str) -> bool {
        super::runs_as_test_file(path)
    }

    fn source_extensions(&self) -> &'static [&'static str] {
        &["rs"]
    }

    fn selects_mixed_files(&self) -> bool {
        true
    }
}
