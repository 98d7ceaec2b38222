//! Running one check: the command with its structured-report flags, through
//! [`loki_core::process`], then the verdict from the exit code and the parsed report.
//!
//! Verdict rules ([`judge`], pure), in order:
//! 1. timed out → `timeout` (the process group was killed);
//! 2. the report names a failed test → `fail`;
//! 3. non-zero exit: a runner's own "no tests" exit code with zero executed → `not_run: no tests
//!    executed`; a missing tool (exit 127, `No module named pytest`, ...) → `not_run`; otherwise
//!    `fail`, even when the output claims every test passed (a forged "ok" line cannot pass);
//! 4. exit 0 without the structured report that was asked for, or with no readable result →
//!    `not_run`; exit 0 with zero executed → `not_run: no tests
//!    executed`; else `pass`.
//!
//! A `fail` is rerun once; fail-then-pass is `flaky` (not a pass). A program that cannot be started
//! is `not_run` with the reason (`go not found`), never `fail`.
//!
//! # Reports and the whole output
//! Every byte the runner prints is spooled to a temporary file and parsed from there; only the
//! stored log is capped ([`RunOptions::output_cap`], head and tail), so a long `go test -json`
//! stream is never judged by half of it. Structured reports, best first: pytest through loki's
//! own plugin ([`crate::parse::pytest::PLUGIN_SOURCE`]: node ids, every phase), then its JUnit
//! file; `cargo test` with `--message-format=json-render-diagnostics` (packages of the test
//! binaries); nextest JUnit; vitest/jest JSON; node TAP. A nextest run is followed by `cargo test
//! --doc` with the same package selection, because nextest does not run doctests.
//!
//! # Cross-checks
//! The output is written by the code under test too, so it is checked against itself before it is
//! believed: libtest sections must end with their summary and may not show more results than it
//! counts ([`crate::parse::cargo::LibtestRun::anomalies`]); pytest must reach the end of its
//! session and exit with the status it reported there. A check whose output does not add up is a
//! `fail` with the discrepancy as its reason.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::process::{self, Spec};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ChecksError;
use crate::detect::{Check, CheckKind};
use crate::parse;
use crate::report::{TestCase, TestReport};

/// Default time a suite may run: generous for a full suite on two cores, bounded so a hang ends.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Default log cap: 4 MiB keeps the head (build errors) and tail (failures, summary) of a big suite.
pub const DEFAULT_LOG_CAP: usize = 4 * 1024 * 1024;
/// Failing ids quoted in a reason; the full list is in `failing_ids`.
const REASON_IDS: usize = 5;
/// Exit code of a shell that could not find a command.
const SHELL_NOT_FOUND: i32 = 127;
/// pytest's exit code for "no tests collected".
const PYTEST_NO_TESTS: i32 = 5;
/// nextest's exit code for "no tests to run".
const NEXTEST_NO_TESTS: i32 = 4;
/// Most bytes of spooled output parsed (a test report of this size is beyond any real suite; the
/// rest is reported as not read rather than silently ignored).
const MAX_PARSED_BYTES: u64 = 1024 * 1024 * 1024;
/// cargo's output format that adds JSON artifact messages (package of each test binary) to stdout
/// while diagnostics stay human-readable on stderr.
const CARGO_MESSAGE_FORMAT: &str = "--message-format=json-render-diagnostics";
/// Log-file names keep only these characters of a check name.
fn log_char(c: char) -> char {
    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
        c
    } else {
        '_'
    }
}

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Pass,
    Fail,
    NotRun,
    Flaky,
    Timeout,
}

impl CheckStatus {
    /// The name as serialised (`pass`, `fail`, `not_run`, `flaky`, `timeout`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::NotRun => "not_run",
            CheckStatus::Flaky => "flaky",
            CheckStatus::Timeout => "timeout",
        }
    }
}

/// The facts of one check, as the receipt and the baseline need them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    pub name: String,
    pub kind: CheckKind,
    /// The check's command line (without the temporary report flags, which the log shows).
    pub cmd: String,
    pub result: CheckStatus,
    pub executed: u64,
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
    pub failing_ids: Vec<String>,
    pub duration_s: f64,
    /// Hex sha256 of the log file's bytes.
    pub log_sha256: String,
    pub log_path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Exit code of the first attempt (124 on timeout); absent when it never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    pub attempts: u32,
    /// The parser that produced the counts (`junit`, `go-json`, `pytest-text`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_source: Option<String>,
    /// Every test the first attempt reported, for baseline comparison.
    #[serde(default)]
    pub tests: Vec<TestCase>,
}

/// The `check.result` event of a suite's run.
impl From<&CheckResult> for loki_events::payload::CheckResult {
    fn from(r: &CheckResult) -> Self {
        loki_events::payload::CheckResult {
            name: r.name.clone(),
            kind: r.kind.as_str().to_string(),
            cmd: r.cmd.clone(),
            result: r.result.as_str().to_string(),
            executed: r.executed,
            passed: r.passed,
            failed: r.failed,
            skipped: r.skipped,
            duration_s: r.duration_s,
            log_sha256: r.log_sha256.clone(),
            failing_ids: r.failing_ids.clone(),
            stage: None,
            role: None,
            reason: r.reason.clone(),
            exit_code: r.exit_code,
            new_findings: None,
        }
    }
}

/// How checks run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub timeout: Duration,
    /// Cap of the captured output per attempt (head half + tail half).
    pub output_cap: usize,
    /// Where `<name>.log` is written (created when missing).
    pub log_dir: PathBuf,
    /// The child's environment before `CI=1 NO_COLOR=1` are forced; defaults to the scrubbed one.
    pub env: Vec<(OsString, OsString)>,
    /// Rerun a failing check once to tell flaky from failing.
    pub rerun_failed: bool,
    /// An argv prefix the check's command runs through (the engine confines checks of the
    /// agent's code with `loki __confine …`); empty: it runs directly.
    pub wrapper: Vec<OsString>,
    /// The `loki` binary, whose `__confine` the judge runs each of its runs through (see
    /// [`RunFence`]); `None`: the judge's runs are not confined from each other.
    pub confine_exe: Option<PathBuf>,
    /// This run's fence, set by the judge per run; `None`: not fenced.
    pub fence: Option<RunFence>,
}

/// What one run of the judge may write (Landlock, through `loki __confine`), so that no run's
/// code can forge another run's evidence.
///
/// The run writes anywhere the user can, except in [`RunFence::protect`] (read-only: the judge's
/// private directory with every other run's tree and reports, the baseline cache, the logs);
/// inside those it writes only [`RunFence::write`] (its own tree and build directory) and its
/// own report directory, created per attempt under [`RunFence::scratch`]. `TMPDIR` points into
/// that report directory: the carve-out leaves the directories on the way to a protected path
/// (usually `/tmp`) without a rule of their own, so new files cannot be created directly in them.
#[derive(Debug, Clone)]
pub struct RunFence {
    /// The binary that confines (`loki`, subcommand [`loki_core::confine::WRAPPER_SUBCOMMAND`]).
    pub exe: PathBuf,
    /// The judge's private directory (protected): the other trees are exported below it.
    pub private: PathBuf,
    /// Where this run's per-attempt report directories go (inside a protected path).
    pub scratch: PathBuf,
    /// Writable even inside a protected path.
    pub write: Vec<PathBuf>,
    /// Read-only to the run.
    pub protect: Vec<PathBuf>,
}

impl RunFence {
    /// The wrapper argv for one attempt whose report directory is `own` and environment `env`.
    fn wrapper(&self, own: &Path, env: &[(OsString, OsString)]) -> Vec<OsString> {
        let mut write = vec![PathBuf::from("/"), own.to_path_buf()];
        write.extend(self.write.iter().cloned());
        // A build directory named by the environment (a role's own, or the user's) is built in.
        write.extend(
            env.iter()
                .filter(|(k, _)| k == "CARGO_TARGET_DIR")
                .map(|(_, v)| PathBuf::from(v)),
        );
        loki_core::confine::Policy {
            deny: Vec::new(),
            write,
            read_only: self.protect.clone(),
            list: Vec::new(),
            network: loki_core::confine::Network::Allowed,
        }
        .wrapper(&self.exe)
    }
}

impl RunOptions {
    /// Defaults: [`DEFAULT_CHECK_TIMEOUT`], [`DEFAULT_LOG_CAP`], the scrubbed environment, rerun on.
    #[must_use]
    pub fn new(log_dir: impl Into<PathBuf>) -> Self {
        RunOptions {
            timeout: DEFAULT_CHECK_TIMEOUT,
            output_cap: DEFAULT_LOG_CAP,
            log_dir: log_dir.into(),
            env: process::scrubbed_env(),
            rerun_failed: true,
            wrapper: Vec::new(),
            confine_exe: None,
            fence: None,
        }
    }
}

/// The verdict on one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub status: CheckStatus,
    pub reason: Option<String>,
}

fn judged(status: CheckStatus, reason: Option<String>) -> Judgement {
    Judgement { status, reason }
}

/// The facts of one attempt that a verdict is computed from.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub kind: CheckKind,
    /// The runner's exit code (124 on timeout).
    pub exit_code: i32,
    pub timed_out: bool,
    pub timeout: Duration,
    /// The parsed report, from the structured file or the fallback parsers.
    pub report: Option<&'a TestReport>,
    /// A structured report was asked for and the runner did not write it.
    pub structured_missing: bool,
    /// The captured output (to recognise a missing tool).
    pub log: &'a str,
}

/// The verdict rules of the module doc, over one attempt's facts. Pure.
#[must_use]
pub fn judge(facts: &Facts<'_>) -> Judgement {
    let Facts {
        kind,
        exit_code,
        timed_out,
        timeout,
        report,
        structured_missing,
        log,
    } = *facts;
    if timed_out {
        return judged(
            CheckStatus::Timeout,
            Some(format!(
                "timed out after {}s; its process group was killed",
                timeout.as_secs()
            )),
        );
    }
    if let Some(r) = report.filter(|r| r.failed > 0) {
        let ids = r.failing_ids();
        let reason = if ids.is_empty() {
            format!("{} failed", r.failed)
        } else {
            let more = if ids.len() > REASON_IDS { ", ..." } else { "" };
            format!(
                "{} failed: {}{more}",
                r.failed,
                ids[..ids.len().min(REASON_IDS)].join(", ")
            )
        };
        return judged(CheckStatus::Fail, Some(reason));
    }
    let executed = report.map_or(0, TestReport::executed);
    if exit_code != 0 {
        let no_tests_code = match kind {
            CheckKind::Pytest => exit_code == PYTEST_NO_TESTS,
            CheckKind::Nextest => exit_code == NEXTEST_NO_TESTS,
            CheckKind::Cargo
            | CheckKind::Vitest
            | CheckKind::Jest
            | CheckKind::Node
            | CheckKind::Npm
            | CheckKind::Go => false,
        };
        if no_tests_code && executed == 0 {
            return judged(CheckStatus::NotRun, Some("no tests executed".into()));
        }
        if report.is_none()
            && let Some(missing) = missing_tool(kind, exit_code, log)
        {
            return judged(CheckStatus::NotRun, Some(missing));
        }
        let reason = match report {
            Some(r) if r.executed() > 0 => format!(
                "exited with code {exit_code} although its output reports {} passed and none failed",
                r.passed
            ),
            _ => format!("exited with code {exit_code} before reporting any test result"),
        };
        return judged(CheckStatus::Fail, Some(reason));
    }
    if structured_missing {
        // A runner that exits 0 without writing the report it was asked for did not finish its
        // run; whatever its output says ("5 passed") is not evidence of a pass.
        return judged(
            CheckStatus::NotRun,
            Some(
                "exited 0 without writing its test report; its output is not taken as a pass"
                    .into(),
            ),
        );
    }
    match report {
        None => judged(
            CheckStatus::NotRun,
            Some("exited 0 but no test results could be read from its output".into()),
        ),
        Some(_) if executed == 0 => judged(CheckStatus::NotRun, Some("no tests executed".into())),
        Some(_) => judged(CheckStatus::Pass, None),
    }
}

/// A runner that exited because a tool it needs is missing (it was not run, it did not fail).
fn missing_tool(kind: CheckKind, exit_code: i32, log: &str) -> Option<String> {
    let says = |s: &str| log.contains(s);
    // The confining wrapper could not exec the program (it says so, then exits 127).
    if exit_code == SHELL_NOT_FOUND
        && let Some(rest) = log
            .lines()
            .find_map(|l| l.strip_prefix("loki: cannot run "))
        && rest.contains("No such file or directory")
    {
        let program = rest.split(": ").next().unwrap_or(rest);
        return Some(format!("{program} not found"));
    }
    match kind {
        CheckKind::Pytest if says("No module named pytest") => {
            Some("pytest not installed for this interpreter (No module named pytest)".into())
        }
        CheckKind::Nextest if says("no such command: `nextest`") => Some("cargo-nextest not found".into()),
        CheckKind::Vitest | CheckKind::Jest | CheckKind::Node | CheckKind::Npm if exit_code == SHELL_NOT_FOUND => {
            Some(match not_found_name(log) {
                Some(tool @ ("pnpm" | "yarn" | "npm" | "npx" | "node" | "bun" | "corepack")) => format!("{tool} not found"),
                Some(tool) => format!("{tool} not found: the package's dependencies are not installed"),
                None => "the test script's command was not found (exit 127): the package's dependencies are not installed".into(),
            })
        }
        CheckKind::Cargo
        | CheckKind::Nextest
        | CheckKind::Pytest
        | CheckKind::Vitest
        | CheckKind::Jest
        | CheckKind::Node
        | CheckKind::Npm
        | CheckKind::Go => None,
    }
}

/// The command a shell said it could not find: `sh: 1: vitest: not found`, `vitest: command not
/// found`.
fn not_found_name(log: &str) -> Option<&str> {
    log.lines().rev().find_map(|l| {
        let l = l.trim();
        let rest = l
            .strip_suffix(": not found")
            .or_else(|| l.strip_suffix(": command not found"))?;
        let name = rest.rsplit(": ").next()?.trim();
        (!name.is_empty() && !name.contains(' ')).then_some(name)
    })
}

/// One execution of the command.
#[derive(Debug)]
struct Attempt {
    argv: String,
    exit_code: Option<i32>,
    duration: Duration,
    log: Vec<u8>,
    report: Option<TestReport>,
    judgement: Judgement,
}

/// The repository root a check's `cwd` lies in (its `dir` removed).
fn root_of(check: &Check) -> PathBuf {
    if check.dir == "." {
        return check.cwd.clone();
    }
    let depth = Path::new(&check.dir).components().count();
    check
        .cwd
        .ancestors()
        .nth(depth)
        .map_or_else(|| check.cwd.clone(), Path::to_path_buf)
}

/// The package script of `check` as loki runs it ([`crate::script`]), when it has one.
fn script_plan(check: &Check, tmp: &Path) -> Option<crate::script::Plan> {
    check.script.as_ref()?;
    let text = std::fs::read_to_string(check.cwd.join("package.json")).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let pm = check.command.first().map_or("npm", String::as_str);
    let extra: Vec<String> = check
        .command
        .iter()
        .skip_while(|a| *a != "--")
        .skip(1)
        .cloned()
        .collect();
    crate::script::plan(&check.cwd, &root_of(check), &manifest, pm, &extra, tmp)
}

/// How one attempt asks its runner for structured reports.
#[derive(Debug, Default)]
struct ReportPlan {
    /// Arguments appended to the command (or inserted before its `--`, for cargo).
    args: Vec<String>,
    /// Variables added to the child's environment.
    env: Vec<(OsString, OsString)>,
    /// Report files, best first; the first that exists and parses is used.
    files: Vec<PathBuf>,
}

/// `args` placed before a `--` in `command` (cargo's own flags must precede the test binary's).
fn insert_before_separator(command: &[String], args: &[String]) -> Vec<String> {
    let mut out = command.to_vec();
    let at = out.iter().position(|a| a == "--").unwrap_or(out.len());
    for (i, a) in args.iter().enumerate() {
        out.insert(at + i, a.clone());
    }
    out
}

/// `PYTHONPATH` with `dir` first, keeping what the environment already has.
fn pythonpath_with(env: &[(OsString, OsString)], dir: &Path) -> OsString {
    let mut value = dir.as_os_str().to_owned();
    if let Some((_, old)) = env.iter().rev().find(|(k, _)| k == "PYTHONPATH")
        && !old.is_empty()
    {
        value.push(":");
        value.push(old);
    }
    value
}

/// What makes the runner write structured reports into `tmp`.
fn report_plan(
    check: &Check,
    tmp: &Path,
    env: &[(OsString, OsString)],
) -> Result<ReportPlan, ChecksError> {
    let file = |name: &str| tmp.join(name);
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let write = |path: &Path, body: &[u8]| {
        loki_core::fs::write_atomic(path, body).map_err(|source| ChecksError::Log {
            check: check.name.clone(),
            source,
        })
    };
    Ok(match check.kind {
        CheckKind::Nextest => {
            let junit = file("junit.xml");
            let config = file("nextest.toml");
            let body = format!("[profile.loki-junit.junit]\npath = {:?}\n", s(&junit));
            write(&config, body.as_bytes())?;
            ReportPlan {
                args: vec![
                    "--no-tests=warn".into(),
                    format!("--tool-config-file=loki:{}", s(&config)),
                    "--profile=loki-junit".into(),
                ],
                env: Vec::new(),
                files: vec![junit],
            }
        }
        CheckKind::Pytest => {
            let plugin_dir = file("pytest-plugin");
            std::fs::create_dir_all(&plugin_dir).map_err(|source| ChecksError::Io {
                action: "create",
                path: plugin_dir.clone(),
                source,
            })?;
            write(
                &plugin_dir.join(format!("{}.py", parse::pytest::PLUGIN_MODULE)),
                parse::pytest::PLUGIN_SOURCE.as_bytes(),
            )?;
            let events = file("pytest-events.jsonl");
            let junit = file("junit.xml");
            ReportPlan {
                args: vec![
                    "-p".into(),
                    parse::pytest::PLUGIN_MODULE.into(),
                    "-rA".into(),
                    format!("--junitxml={}", s(&junit)),
                    "-p".into(),
                    "no:cacheprovider".into(),
                ],
                env: vec![
                    ("PYTHONPATH".into(), pythonpath_with(env, &plugin_dir)),
                    (parse::pytest::PLUGIN_ENV.into(), events.clone().into()),
                ],
                files: vec![events, junit],
            }
        }
        CheckKind::Node if check.script.is_none() => {
            let reporter = file(parse::tap::NODE_REPORTER_FILE);
            write(&reporter, parse::tap::NODE_REPORTER_SOURCE.as_bytes())?;
            let events = file("node-events.jsonl");
            ReportPlan {
                args: vec![
                    "--test-reporter=spec".into(),
                    "--test-reporter-destination=stdout".into(),
                    format!("--test-reporter={}", s(&reporter)),
                    format!("--test-reporter-destination={}", s(&events)),
                ],
                env: Vec::new(),
                files: vec![events],
            }
        }
        CheckKind::Cargo
        | CheckKind::Node
        | CheckKind::Vitest
        | CheckKind::Jest
        | CheckKind::Npm
        | CheckKind::Go => ReportPlan::default(),
    })
}

/// The `cargo test --doc` run that completes a nextest run: the same package selection, no
/// target filters. `None` when the nextest command selects targets that hold no doctests.
#[must_use]
pub fn doc_companion(check: &Check) -> Option<Vec<String>> {
    if check.kind != CheckKind::Nextest {
        return None;
    }
    // `cargo test --doc` runs the doctests of a library that turned them off (`doctest = false`):
    // the project's own `cargo test` would not.
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

fn attempt(check: &Check, opts: &RunOptions) -> Result<Attempt, ChecksError> {
    let temp_err = |source| ChecksError::Temp {
        check: check.name.clone(),
        source,
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix("loki-check-");
    let tmp = match &opts.fence {
        Some(f) => {
            std::fs::create_dir_all(&f.scratch).map_err(temp_err)?;
            builder.tempdir_in(&f.scratch)
        }
        None => builder.tempdir(),
    }
    .map_err(temp_err)?;
    // A fenced run's temporary files go in its own directory (see [`RunFence`]).
    let fenced: Option<(Vec<OsString>, PathBuf)> = match &opts.fence {
        Some(f) => {
            let own_tmp = tmp.path().join("tmp");
            std::fs::create_dir_all(&own_tmp).map_err(temp_err)?;
            let mut argv = opts.wrapper.clone();
            argv.extend(f.wrapper(tmp.path(), &opts.env));
            Some((argv, own_tmp))
        }
        None => None,
    };
    let wrapper = fenced
        .as_ref()
        .map_or(opts.wrapper.as_slice(), |(w, _)| w.as_slice());
    let plan = report_plan(check, tmp.path(), &opts.env)?;
    let script = script_plan(check, tmp.path());
    if script
        .as_ref()
        .is_some_and(|p| p.reports.iter().any(|r| r.kind == CheckKind::Node))
    {
        loki_core::fs::write_atomic(
            &tmp.path().join(parse::tap::NODE_REPORTER_FILE),
            parse::tap::NODE_REPORTER_SOURCE.as_bytes(),
        )
        .map_err(|source| ChecksError::Log {
            check: check.name.clone(),
            source,
        })?;
    }
    let command = match (&script, check.kind) {
        (Some(p), _) => vec!["sh".to_owned(), "-c".to_owned(), p.script.clone()],
        (None, CheckKind::Cargo) => {
            insert_before_separator(&check.command, &[CARGO_MESSAGE_FORMAT.to_owned()])
        }
        (None, _) => check.command.clone(),
    };
    let Some((program, args)) = command.split_first() else {
        return Ok(not_started(
            String::new(),
            "the check has an empty command".into(),
        ));
    };
    let spool = tmp.path().join("output.log");
    // node's options must come before its file arguments; other runners take them last.
    let (first, rest) = match (check.kind, script.is_none()) {
        (CheckKind::Node, true) => (plan.args.clone(), Vec::new()),
        _ => (Vec::new(), plan.args.clone()),
    };
    let mut spec = Spec::new(program, &check.cwd)
        .args(&first)
        .args(args)
        .args(&rest)
        .envs(opts.env.clone())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("CARGO_TERM_COLOR", "never")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .timeout(opts.timeout)
        .output_cap(opts.output_cap)
        .spool(&spool)
        .wrapped(wrapper);
    if let Some((_, own_tmp)) = &fenced {
        spec = spec.env("TMPDIR", own_tmp);
    }
    for (k, v) in &plan.env {
        spec = spec.env(k, v);
    }
    if let Some(p) = &script {
        let mut path = OsString::new();
        for dir in &p.path {
            path.push(dir.as_os_str());
            path.push(":");
        }
        path.push(spec.env_value("PATH").unwrap_or_default());
        spec = spec.env("PATH", path);
        for (k, v) in &p.env {
            spec = spec.env(k, v);
        }
        if let Some(extra) = &p.node_options {
            let mut opts = spec
                .env_value("NODE_OPTIONS")
                .unwrap_or_default()
                .to_owned();
            if !opts.is_empty() {
                opts.push(" ");
            }
            opts.push(extra);
            spec = spec.env("NODE_OPTIONS", opts);
        }
    }
    let argv = spec.display();
    let started = std::time::Instant::now();
    let out = match process::run(&spec) {
        Ok(out) => out,
        Err(e) if e.is_not_found() => {
            return Ok(not_started(argv, format!("{} not found", e.program())));
        }
        Err(e) => return Ok(not_started(argv, e.to_string())),
    };
    let mut log = out.output.bytes();
    let (mut text, unread) = read_spool(out.spooled.as_ref(), &log);
    let mut exit_code = out.exit_code();
    let mut timed_out = out.timed_out;
    let mut duration = out.duration;
    // nextest does not run doctests: the same selection through `cargo test --doc`.
    let mut doc_report = None;
    if let Some(doc) = doc_companion(check).filter(|_| !timed_out) {
        let doc = insert_before_separator(&doc, &[CARGO_MESSAGE_FORMAT.to_owned()]);
        let left = opts.timeout.saturating_sub(started.elapsed());
        let doc_spool = tmp.path().join("doc-output.log");
        let doc_spec = Spec::new(&doc[0], &check.cwd)
            .args(&doc[1..])
            .envs(spec.env.clone())
            .timeout(left.max(Duration::from_secs(1)))
            .output_cap(opts.output_cap)
            .spool(&doc_spool)
            .wrapped(wrapper);
        log.extend_from_slice(format!("\n==== loki: {}\n", doc_spec.display()).as_bytes());
        match process::run(&doc_spec) {
            Ok(d) => {
                let dlog = d.output.bytes();
                let (dtext, _) = read_spool(d.spooled.as_ref(), &dlog);
                log.extend_from_slice(&dlog);
                duration += d.duration;
                timed_out |= d.timed_out;
                let no_lib = dtext.contains("no library targets found");
                if !no_lib && exit_code == 0 {
                    exit_code = d.exit_code();
                }
                if !no_lib {
                    doc_report = parse::cargo::parse_libtest_run(&dtext);
                }
                text.push('\n');
                text.push_str(&dtext);
            }
            Err(e) => {
                log.extend_from_slice(
                    format!("loki: cargo test --doc not started: {e}\n").as_bytes(),
                );
                if exit_code == 0 {
                    exit_code = 1;
                }
            }
        }
    }
    let structured = plan
        .files
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect::<Vec<_>>();
    let mut structured_missing = !plan.files.is_empty() && structured.is_empty();
    let mut parsed = parse::parse_run(check.kind, &structured, &text);
    if let Some(p) = &script
        && !p.reports.is_empty()
    {
        let mut merged: Option<TestReport> = None;
        for r in &p.reports {
            let Ok(bytes) = std::fs::read(&r.path) else {
                continue;
            };
            let body = String::from_utf8_lossy(&bytes);
            let one = match r.kind {
                CheckKind::Node => {
                    parse::tap::parse_node_events(&body).or_else(|| parse::tap::parse_tap(&body))
                }
                _ => parse::js::parse_json(&body),
            };
            if let Some(one) = one {
                let m = merged.get_or_insert_with(|| TestReport {
                    source: "script".into(),
                    ..TestReport::default()
                });
                m.source = format!("{}+{}", m.source, one.source);
                m.passed += one.passed;
                m.failed += one.failed;
                m.skipped += one.skipped;
                m.tests.extend(one.tests);
            }
        }
        structured_missing = merged.is_none();
        if merged.is_some() {
            parsed.report = merged;
        }
    }
    let mut report = parsed.report;
    let mut anomalies = parsed.anomalies;
    if let Some(d) = doc_report {
        anomalies.extend(d.anomalies());
        let r = report.get_or_insert_with(TestReport::default);
        r.tests.extend(d.report.tests);
        r.passed += d.report.passed;
        r.failed += d.report.failed;
        r.skipped += d.report.skipped;
    }
    if let (Some(status), false) = (parsed.reported_exit, timed_out)
        && i64::from(exit_code) != status
    {
        anomalies.push(format!(
            "pytest reported exit status {status} at the end of its session but the process exited with {exit_code} (something changed the exit)"
        ));
    }
    if let Some(r) = report.as_mut() {
        for dir in id_prefix_dirs(&check.cwd) {
            r.strip_id_prefix(&format!("{}/", dir.display()));
        }
    }
    let mut judgement = judge(&Facts {
        kind: check.kind,
        exit_code,
        timed_out,
        timeout: opts.timeout,
        report: report.as_ref(),
        structured_missing,
        log: &text,
    });
    if let Some(unread) = unread
        && judgement.status != CheckStatus::Timeout
    {
        judgement = judged(CheckStatus::NotRun, Some(unread));
    } else if !anomalies.is_empty()
        && matches!(judgement.status, CheckStatus::Pass | CheckStatus::NotRun)
        && report.is_some()
    {
        judgement = judged(
            CheckStatus::Fail,
            Some(format!(
                "its output does not add up: {}",
                anomalies.join("; ")
            )),
        );
    }
    Ok(Attempt {
        argv,
        exit_code: Some(exit_code),
        duration,
        log,
        report,
        judgement,
    })
}

/// The whole output of a run: the spool when there is one, else the capture. The second value
/// says what could not be read, when something could not.
fn read_spool(spooled: Option<&process::Spooled>, captured: &[u8]) -> (String, Option<String>) {
    let Some(sp) = spooled else {
        return (String::from_utf8_lossy(captured).into_owned(), None);
    };
    let mut note = None;
    if sp.truncated || sp.failed || sp.bytes > MAX_PARSED_BYTES {
        note = Some(format!(
            "only the first {} bytes of its output could be read",
            sp.bytes.min(MAX_PARSED_BYTES)
        ));
    }
    let read = std::fs::File::open(&sp.path).and_then(|f| {
        use std::io::Read as _;
        let mut buf = Vec::new();
        f.take(MAX_PARSED_BYTES).read_to_end(&mut buf)?;
        Ok(buf)
    });
    match read {
        Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), note),
        Err(e) => (
            String::from_utf8_lossy(captured).into_owned(),
            Some(format!("its spooled output could not be read ({e})")),
        ),
    }
}

/// The spellings of `cwd` a runner may put before a test file's path: as given (without a trailing
/// `/`, which `root.join("")` leaves) and resolved through symlinks (vitest and jest report real
/// paths).
fn id_prefix_dirs(cwd: &Path) -> Vec<PathBuf> {
    let given: PathBuf = cwd.components().collect();
    let mut dirs = vec![given.clone()];
    if let Ok(real) = std::fs::canonicalize(cwd)
        && real != given
    {
        dirs.push(real);
    }
    dirs
}

fn not_started(argv: String, reason: String) -> Attempt {
    Attempt {
        argv,
        exit_code: None,
        duration: Duration::ZERO,
        log: format!("loki: not started: {reason}\n").into_bytes(),
        report: None,
        judgement: judged(CheckStatus::NotRun, Some(reason)),
    }
}

fn log_section(out: &mut Vec<u8>, check: &Check, n: u32, a: &Attempt) {
    let exit = a
        .exit_code
        .map_or_else(|| "not started".to_owned(), |c| format!("exit {c}"));
    out.extend_from_slice(
        format!(
            "==== loki check {} attempt {n}: {} ({exit}, {}) in {}\n",
            check.name,
            a.argv,
            loki_core::time::human_duration(a.duration.as_secs_f64()),
            check.dir
        )
        .as_bytes(),
    );
    out.extend_from_slice(&a.log);
    if !a.log.ends_with(b"\n") {
        out.push(b'\n');
    }
}

/// Runs `check` (rerunning a failure once), writes `<log_dir>/<name>.log` atomically and returns the
/// result. Errors are loki's own (the log or a temporary directory could not be written); anything
/// that goes wrong with the suite itself is in the result.
pub fn run_check(check: &Check, opts: &RunOptions) -> Result<CheckResult, ChecksError> {
    let first = attempt(check, opts)?;
    let mut log = Vec::new();
    log_section(&mut log, check, 1, &first);
    let mut attempts = 1;
    let mut judgement = first.judgement.clone();
    let mut duration = first.duration;
    if first.judgement.status == CheckStatus::Fail && opts.rerun_failed {
        let second = attempt(check, opts)?;
        attempts = 2;
        duration += second.duration;
        log_section(&mut log, check, 2, &second);
        let first_reason = first.judgement.reason.clone().unwrap_or_default();
        judgement = if second.judgement.status == CheckStatus::Pass {
            judged(
                CheckStatus::Flaky,
                Some(format!(
                    "failed, then passed on rerun; first attempt: {first_reason}"
                )),
            )
        } else {
            judged(
                CheckStatus::Fail,
                Some(format!("{first_reason} (failed again on rerun)")),
            )
        };
    }
    std::fs::create_dir_all(&opts.log_dir).map_err(|e| ChecksError::Log {
        check: check.name.clone(),
        source: loki_core::CoreError::io("create directory", &opts.log_dir, e),
    })?;
    let log_path = opts.log_dir.join(format!(
        "{}.log",
        check.name.chars().map(log_char).collect::<String>()
    ));
    loki_core::fs::write_atomic(&log_path, &log).map_err(|source| ChecksError::Log {
        check: check.name.clone(),
        source,
    })?;
    let report = first.report.unwrap_or_default();
    tracing::info!(
        check = %check.name,
        cmd = %check.command_line(),
        cwd = %check.cwd.display(),
        status = ?judgement.status,
        exit = first.exit_code,
        executed = report.executed(),
        attempts,
        secs = duration.as_secs_f64(),
        "ran a check"
    );
    Ok(CheckResult {
        name: check.name.clone(),
        kind: check.kind,
        cmd: check.command_line(),
        result: judgement.status,
        executed: report.executed(),
        passed: report.passed,
        failed: report.failed,
        skipped: report.skipped,
        failing_ids: report.failing_ids(),
        duration_s: (duration.as_millis() as f64) / 1000.0,
        log_sha256: hex::encode(Sha256::digest(&log)),
        log_path,
        reason: judgement.reason,
        exit_code: first.exit_code,
        attempts,
        report_source: (!report.source.is_empty()).then(|| report.source.clone()),
        tests: report.tests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::TestStatus;

    fn facts<'a>(kind: CheckKind, exit_code: i32, report: Option<&'a TestReport>) -> Facts<'a> {
        Facts {
            kind,
            exit_code,
            timed_out: false,
            timeout: Duration::from_secs(60),
            report,
            structured_missing: false,
            log: "",
        }
    }

    fn counts(passed: u64, failed: u64) -> TestReport {
        TestReport::from_counts("t", passed, failed, 0)
    }

    #[test]
    fn pass_needs_executed_tests_no_failures_and_exit_zero() {
        let ok = counts(3, 0);
        assert_eq!(
            judge(&facts(CheckKind::Cargo, 0, Some(&ok))).status,
            CheckStatus::Pass
        );
        let none = counts(0, 0);
        let j = judge(&facts(CheckKind::Cargo, 0, Some(&none)));
        assert_eq!(
            (j.status, j.reason.as_deref()),
            (CheckStatus::NotRun, Some("no tests executed"))
        );
        assert_eq!(
            judge(&facts(CheckKind::Cargo, 0, None)).status,
            CheckStatus::NotRun
        );
    }

    #[test]
    fn forged_passes_with_a_nonzero_exit_fail() {
        let forged = counts(5, 0);
        let j = judge(&facts(CheckKind::Npm, 1, Some(&forged)));
        assert_eq!(j.status, CheckStatus::Fail);
        assert!(j.reason.unwrap().contains("exited with code 1 although"));
    }

    #[test]
    fn failures_are_named() {
        let mut r = TestReport::from_cases(
            "t",
            (0..7)
                .map(|i| TestCase {
                    id: format!("t{i}"),
                    status: TestStatus::Failed,
                })
                .collect(),
        );
        r.passed = 1;
        let j = judge(&facts(CheckKind::Go, 0, Some(&r)));
        assert_eq!(j.status, CheckStatus::Fail);
        assert_eq!(j.reason.unwrap(), "7 failed: t0, t1, t2, t3, t4, ...");
    }

    #[test]
    fn no_tests_exit_codes_missing_tools_timeouts_and_missing_reports() {
        let none = counts(0, 0);
        assert_eq!(
            judge(&facts(CheckKind::Pytest, 5, Some(&none))).status,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(CheckKind::Pytest, 5, None)).status,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(CheckKind::Nextest, 4, Some(&none))).status,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(CheckKind::Go, 4, Some(&none))).status,
            CheckStatus::Fail
        );
        let mut f = facts(CheckKind::Pytest, 1, None);
        f.log = "/usr/bin/python3: No module named pytest";
        assert_eq!(judge(&f).status, CheckStatus::NotRun);
        assert_eq!(
            judge(&facts(CheckKind::Vitest, 127, None)).status,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(CheckKind::Cargo, 127, None)).status,
            CheckStatus::Fail
        );
        // Through the confining wrapper, which cannot exec a missing program.
        let mut f = facts(CheckKind::Cargo, 127, None);
        f.log = "loki: cannot run cargo: No such file or directory (os error 2)\n";
        let j = judge(&f);
        assert_eq!(j.status, CheckStatus::NotRun);
        assert_eq!(j.reason.as_deref(), Some("cargo not found"));
        let ok = counts(3, 0);
        let mut f = facts(CheckKind::Pytest, 0, Some(&ok));
        f.structured_missing = true;
        assert_eq!(judge(&f).status, CheckStatus::NotRun);
        f.timed_out = true;
        let j = judge(&f);
        assert_eq!(j.status, CheckStatus::Timeout);
        assert_eq!(
            j.reason.unwrap(),
            "timed out after 60s; its process group was killed"
        );
    }

    #[test]
    fn log_names_are_safe() {
        let name: String = "pytest:services/api v2".chars().map(log_char).collect();
        assert_eq!(name, "pytest_services_api_v2");
    }
}
