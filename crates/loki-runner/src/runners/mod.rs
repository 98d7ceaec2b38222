//! The runners, one module each: what a runner does differently from the others, behind one
//! trait ([`Runner`]) and one table ([`runner`]).
//!
//! The step modules ([`crate::detect`], [`crate::exec`], [`crate::reports`], [`crate::select`],
//! [`crate::locate`], [`crate::isolate`]) hold what every runner shares: the walk of the tree, the
//! process runner and the status rules, the report types and the formats several runners write,
//! the selection, the locator's reads, the isolation of a tree. Where they need a runner's own
//! answer (its marker and test files, its checks, its command and report flags, its flags inside a
//! package script, how to read its report, its "no tests" exit and missing tools, its selection
//! syntax, where its tests are defined, what isolating it needs) they ask `runner(check.kind)`.
//! So do the steps other crates ask about a runner: how its test ids are spelled ([`crate::ids`]:
//! the parts a judgement reads), which files its suites run as tests and which helpers they load
//! ([`crate::detect`]), what a change's files select ([`crate::select`]), where a parameterized
//! test's cases are ([`crate::locate`]), a Go hybrid in the head's directory
//! ([`crate::isolate::overlay`]) and what a wall test must be for it ([`crate::wall`]).
//!
//! | module | runners | holds |
//! |---|---|---|
//! | [`cargo`] | `cargo test`, and nextest ([`cargo::nextest`]) | detection (nextest only when the project opts in), libtest and nextest reports ([`cargo::report`]), keep-going runs ([`cargo::keep_going`]), build directory slots ([`cargo::isolate`]), `-p`/`--test`/`--exact` narrowing, `fn` lookup, toolchain failures |
//! | [`pytest`] | pytest | detection and interpreter, loki's plugin and its report ([`pytest::report`]), node-id narrowing, `def` lookup, stale bytecode |
//! | [`node`] | `node --test`, and the package scripts: vitest and jest ([`node::scripted`]), another runner ([`node::npm`]) | detection of the package scripts, node's reporter, path and name-pattern narrowing, title lookup, `node_modules` of a tree ([`node::isolate`]) |
//! | [`go`] | `go test` | detection, `go test -json` ([`go::report`]), `-run` narrowing, `func` lookup, `go.work` of a tree ([`go::isolate`]) |
//! | [`maven`] | `mvn test` | detection, Surefire's report files ([`maven::surefire`]), `-Dtest` narrowing, method lookup |
//!
//! # Invariants
//! - [`runner`] is the only exhaustive `match` on [`CheckKind`] of the crate: adding a runner is a
//!   module with one `impl Runner` and one row there.
//! - Each method's default is what most runners do (no structured report, no narrowing, nothing
//!   to isolate, ...); a runner overrides only where it differs. No method does I/O beyond what
//!   its doc says, and none panics.
//! - A family's detection (cargo and nextest, the package scripts) and its wall tests are answered
//!   by one runner of the family; the others detect nothing themselves.
//! - No other crate matches on [`CheckKind`]'s variants to know a runner: the judge and the
//!   contract ask the steps above.

pub mod cargo;
pub mod go;
pub mod maven;
pub mod node;
pub mod pytest;

use std::ffi::OsString;
use std::path::Path;

use loki_protocol::CheckKind;

use crate::ChecksError;
use crate::detect::{Check, Scan, Tools};
use crate::exec::Environment;
use crate::exec::plan::ReportPlan;
use crate::isolate::Isolation;
use crate::locate::{CaseSource, Locator, in_check};
use crate::reports::ParsedRun;
use crate::reports::report::TestReport;
use crate::script::ScriptFlags;
use crate::select::Selection;
use crate::wall::{WallRefusal, WallTest};

/// What one runner does its own way. See the module doc for the defaults.
pub(crate) trait Runner: Sync {
    /// The names of the files that make a directory one of this runner's packages (or tell how
    /// it runs there), which the walk records ([`Scan::markers`]).
    fn markers(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether the file at `rel` (repository-relative, named `name`) is one of this runner's
    /// test files, which the walk collects ([`Scan::tests`]).
    fn is_test_file(&self, _rel: &Path, _name: &str) -> bool {
        false
    }

    /// Adds the checks of this runner (or of its family) found in `scan` of the tree at `root`.
    fn detect(&self, _root: &Path, _scan: &Scan, _tools: Tools, _out: &mut Vec<Check>) {}

    /// What makes the runner write structured reports into `tmp` (files it writes there are
    /// loki's); `env` is the environment the run starts from.
    fn report_plan(
        &self,
        _check: &Check,
        _tmp: &Path,
        _env: &[(OsString, OsString)],
    ) -> Result<ReportPlan, ChecksError> {
        Ok(ReportPlan::default())
    }

    /// `command` (the check's own, or one that completes it) with the flags its report is read
    /// from that belong inside it rather than after it.
    fn command(&self, command: &[String]) -> Vec<String> {
        command.to_vec()
    }

    /// Whether the report plan's arguments go before the command's own (node's options must
    /// precede its file arguments); otherwise they go last.
    fn report_args_first(&self, _check: &Check) -> bool {
        false
    }

    /// The report flags of this runner's command `program args` inside a package script, its
    /// report the `n`th file in `tmp`; `None` when the command is not this runner's.
    fn script_flags(
        &self,
        _program: &str,
        _args: &[&str],
        _tmp: &Path,
        _n: usize,
    ) -> Option<ScriptFlags> {
        None
    }

    /// A file (name in the attempt's directory, text) the runner's commands in a script load
    /// with their report flags.
    fn script_support(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// Clears what an earlier run left that this one would read as its own (stale bytecode,
    /// old report files). Best effort.
    fn before_run(&self, _check: &Check) {}

    /// The report files the runner writes where it runs rather than where it was told
    /// (Surefire's), read after the run.
    fn found_reports(&self, _check: &Check) -> Vec<String> {
        Vec::new()
    }

    /// Whether a run whose test target did not compile runs again without it (cargo).
    fn keeps_going(&self) -> bool {
        false
    }

    /// The `cargo test --doc` run that completes a run of `check` (nextest's).
    fn doc_companion(&self, _check: &Check) -> Option<Vec<String>> {
        None
    }

    /// The `cargo test --no-run` that builds what `check` runs.
    fn build_companion(&self, _check: &Check) -> Option<Vec<String>> {
        None
    }

    /// The report in a structured report file the runner wrote.
    fn parse_file(&self, _text: &str) -> Option<TestReport> {
        None
    }

    /// The report the runner's output shows (summary lines, the fallback).
    fn parse_log(&self, log: &str) -> Option<TestReport>;

    /// One run: `structured` its report files, best first (the first that parses wins), then
    /// its output.
    fn parse_run(&self, structured: &[String], log: &str) -> ParsedRun {
        ParsedRun {
            report: structured
                .iter()
                .find_map(|s| report_of(self, Some(s), ""))
                .or_else(|| report_of(self, None, log)),
            ..ParsedRun::default()
        }
    }

    /// The runner's own exit code for "no tests to run".
    fn no_tests_exit(&self) -> Option<i32> {
        None
    }

    /// The tool a run that exited `exit_code` with output `log` lacked, in words.
    fn missing_tool(&self, _exit_code: i32, _log: &str) -> Option<String> {
        None
    }

    /// The failure of the machine (not of the code) that `log` shows, given the run's report.
    fn environment(&self, _log: &str, _report: Option<&TestReport>) -> Option<Environment> {
        None
    }

    /// `check` (run in `root`) restricted to `sel`, whose files are `files` (relative to the
    /// check's directory); `None` when the runner cannot express it exactly.
    fn narrow(
        &self,
        _check: &Check,
        _root: &Path,
        _files: Vec<String>,
        _sel: &Selection,
    ) -> Option<Check> {
        None
    }

    /// Whether one run can repeat each selected test.
    fn repeats_in_one_run(&self) -> bool {
        false
    }

    /// The repository-relative file and 1-based line where test `id` of `check` is defined;
    /// the check's directory, without a line, when it cannot tell.
    fn locate(&self, _at: &mut Locator<'_>, check: &Check, _id: &str) -> (String, Option<u32>) {
        (in_check(check, ""), None)
    }

    /// What a run in another tree needs so that it runs that tree's code.
    fn isolation(&self) -> Isolation {
        Isolation::Nothing
    }

    /// Whether the runner finds test files in every subdirectory of its package, so that a
    /// workspace's packages without a test script of their own are covered by it.
    fn searches_subpackages(&self) -> bool {
        false
    }

    // The test-id grammar ([`crate::ids`]): how the runner spells a test's id.

    /// The separator between a test id's parent and child parts.
    fn id_separator(&self) -> &'static str {
        "::"
    }

    /// The separator after the test file an id starts with, when the runner's ids start with
    /// their file.
    fn id_file_separator(&self) -> Option<&'static str> {
        None
    }

    /// The test's own name in `id`: the id without its file, module, binary or package.
    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        id
    }

    /// The group `id` belongs to: what fails as a whole when it cannot load.
    fn group(&self, _id: &str) -> String {
        String::new()
    }

    /// The file (or package, class or test binary) part of `id`: where a replacement of the test
    /// must live.
    fn home<'a>(&self, id: &'a str) -> &'a str {
        id.split("::").next().unwrap_or(id)
    }

    /// Whether `id` is not a test but, in this runner's own spelling, the mark of a group that
    /// failed as a whole (the marks every runner's report parser writes are [`crate::ids`]'s).
    fn marks_group(&self, _id: &str) -> bool {
        false
    }

    // The files a suite owns ([`crate::detect`]) and how a change's files narrow it
    // ([`crate::select`]).

    /// Whether the runner runs the file at `path` as a test file by its default patterns (a
    /// test-side file it does not run is a helper of the test files it serves).
    fn runs_as_test_file(&self, _path: &str) -> bool {
        true
    }

    /// The extensions of the source files whose helpers this runner's suites load.
    fn source_extensions(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether the runner's suites may load a helper of a language no runner names.
    fn loads_other_sources(&self) -> bool {
        false
    }

    /// Whether a narrowed run can select a file that holds tests inside its source (the runner
    /// narrows by package).
    fn selects_mixed_files(&self) -> bool {
        false
    }

    /// The file to select so that the tests reading the test data at `path` run; `None`: any
    /// test of the check may read it.
    fn test_data_selection(&self, _path: &str) -> Option<String> {
        None
    }

    /// Whether a narrowed run can run a file's tests in reverse order ([`Selection::reverse`]).
    fn reverses(&self) -> bool {
        false
    }

    /// Where a parameterized test's cases are when its own item does not hold them.
    fn case_source(&self, _test: &str, _item: &str) -> Option<CaseSource> {
        None
    }

    // Wall tests ([`crate::wall`]).

    /// The language this runner family's wall tests are written in, named in the reason a file
    /// of no runner's language is refused for; one runner of the family answers.
    fn wall_language(&self) -> Option<&'static str> {
        None
    }

    /// The check that runs the wall test `file` alone, or why none can; `None` when the file is
    /// not of this runner family's language.
    fn wall(&self, _file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        None
    }

    /// The check that runs the wall test at `file` (relative to its directory) alone in `suite`,
    /// one of this runner's checks, found by its family's [`Runner::wall`].
    fn wall_in_suite(&self, suite: Check, _file: String) -> Result<Check, WallRefusal> {
        Err(crate::wall::unpointable(&suite))
    }
}

/// The runner of `kind`: the one table of the crate.
pub(crate) fn runner(kind: CheckKind) -> &'static dyn Runner {
    match kind {
        CheckKind::Cargo => &cargo::Cargo,
        CheckKind::Nextest => &cargo::nextest::Nextest,
        CheckKind::Pytest => &pytest::Pytest,
        CheckKind::Vitest => &node::scripted::VITEST,
        CheckKind::Jest => &node::scripted::JEST,
        CheckKind::Node => &node::Node,
        CheckKind::Npm => &node::npm::Npm,
        CheckKind::Go => &go::Go,
        CheckKind::Maven => &maven::Maven,
    }
}

/// The report of one run: the structured report when it parses, else the output's.
pub(crate) fn report_of<R: Runner + ?Sized>(
    r: &R,
    structured: Option<&str>,
    log: &str,
) -> Option<TestReport> {
    structured
        .and_then(|s| r.parse_file(s))
        .or_else(|| r.parse_log(log))
}
