//! Running one check: the command with its structured-report flags, through
//! [`loki_process`], then the verdict from the exit code and the parsed report.
//!
//! Verdict rules ([`judge`], pure), in order:
//! 1. timed out → `timeout` (the process group was killed); a non-zero exit whose output is the
//!    toolchain's own failure ([`environment`]) → `not_run` with the [`Environment`];
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
//! own plugin ([`crate::reports::pytest::PLUGIN_SOURCE`]: node ids, every phase), then its JUnit
//! file; `cargo test` with `--message-format=json-render-diagnostics` (packages of the test
//! binaries); nextest JUnit; vitest/jest JSON; node TAP. A nextest run is followed by `cargo test
//! --doc` with the same package selection, because nextest does not run doctests.
//!
//! # Cross-checks
//! The output is written by the code under test too, so it is checked against itself before it is
//! believed: libtest sections must end with their summary and may not show more results than it
//! counts ([`crate::reports::cargo::LibtestRun::anomalies`]); pytest must reach the end of its
//! session and exit with the status it reported there. A check whose output does not add up is a
//! `fail` with the discrepancy as its reason.
//!
//! # Submodules
//! - `status`: the status rules of one attempt ([`status_of`], pure) and missing-tool recognition;
//! - `environment`: failures of the machine (no toolchain, an unwritable temporary directory),
//!   which make a check `not_run` with an [`Environment`] naming the tool and the fix;
//! - `plan`: the structured-report flags and files a check's command gets (each runner's, from
//!   `crate::runners`), the `cargo test --doc` companion of a nextest run ([`doc_companion`]),
//!   and the `cargo test --no-run` that builds what a cargo check runs ([`build_companion`]);
//! - `attempt`: one execution of the command: started, spooled, parsed, cross-checked, judged;
//!   a `cargo test` or `cargo nextest run` whose test target did not compile runs again without
//!   it (`crate::runners::cargo::keep_going`), so the other targets still report.

mod attempt;
pub mod environment;
pub(crate) mod plan;
mod status;

pub use environment::Environment;
pub use plan::{build_check, build_companion, doc_companion};
pub use status::{AttemptStatus, Facts, status_of};

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_process as process;
use loki_protocol::{CheckRun, CheckStatus};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ChecksError;
use crate::detect::Check;
use crate::reports::report::TestCase;
use attempt::{attempt, log_section};
use status::attempt_status;

/// Default time a suite may run: generous for a full suite on two cores, bounded so a hang ends.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(15 * 60);
/// Default log cap: 4 MiB keeps the head (build errors) and tail (failures, summary) of a big suite.
pub const DEFAULT_LOG_CAP: usize = 4 * 1024 * 1024;
/// Failing ids quoted in a reason; the full list is in `failing_ids`.
const REASON_IDS: usize = 5;
/// Exit code of a shell that could not find a command.
pub(crate) const SHELL_NOT_FOUND: i32 = 127;
/// Most bytes of spooled output parsed (a test report of this size is beyond any real suite; the
/// rest is reported as not read rather than silently ignored).
const MAX_PARSED_BYTES: u64 = 1024 * 1024 * 1024;
/// Log-file names keep only these characters of a check name.
fn log_char(c: char) -> char {
    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
        c
    } else {
        '_'
    }
}

/// The facts of one check, as the receipt and the baseline need them: its run's facts
/// ([`CheckRun`], first, so the keys keep their order) and what only the runner knows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    #[serde(flatten)]
    pub run: CheckRun,
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
    /// Why it did not run, when the machine is the reason (`result` is `not_run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<Environment>,
}

impl CheckResult {
    /// The suite's result as the receipt records it; `role` is its kind there (`tests`, `wall`).
    /// The one mapping every producer (build, seal, deep) uses.
    #[must_use]
    pub fn receipt_check(&self, role: loki_protocol::CheckRole) -> loki_receipt::schema::Check {
        loki_receipt::schema::Check::of_event(&self.into(), role)
    }
}

/// The `check.result` event of a suite's run.
impl From<&CheckResult> for loki_events::payload::CheckResult {
    fn from(r: &CheckResult) -> Self {
        loki_events::payload::CheckResult {
            run: r.run.clone().map_kind(loki_protocol::CheckOrigin::Runner),
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
    /// The binary that confines (`loki`, subcommand [`loki_process::confine::WRAPPER_SUBCOMMAND`]).
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
        loki_process::confine::Policy {
            deny: Vec::new(),
            write,
            read_only: self.protect.clone(),
            list: Vec::new(),
            pinned: Vec::new(),
            masked: Vec::new(),
            network: loki_process::confine::Network::Allowed,
            egress_ports: Vec::new(),
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

/// [`ChecksError::Interrupted`] once loki got SIGINT or SIGTERM (its one handler,
/// [`loki_process::signals`]).
fn refuse_after_signal(check: &Check) -> Result<(), ChecksError> {
    match loki_process::signals::signal_name() {
        Some(signal) => Err(ChecksError::Interrupted {
            check: check.name.clone(),
            signal,
        }),
        None => Ok(()),
    }
}

/// Runs `check` (rerunning a failure once), writes `<log_dir>/<name>.log` atomically and returns the
/// result. Errors are loki's own (the log or a temporary directory could not be written); anything
/// that goes wrong with the suite itself is in the result.
pub fn run_check(check: &Check, opts: &RunOptions) -> Result<CheckResult, ChecksError> {
    refuse_after_signal(check)?;
    let first = attempt(check, opts)?;
    // A run the signal cut is no evidence: it never leaves here (to a cache, a baseline, a
    // receipt), whatever its status.
    refuse_after_signal(check)?;
    let mut log = Vec::new();
    log_section(&mut log, check, 1, &first);
    let mut attempts = 1;
    let mut judgement = first.judgement.clone();
    let mut duration = first.duration;
    if first.judgement.status == CheckStatus::Fail && opts.rerun_failed {
        let second = attempt(check, opts)?;
        // A rerun the signal cut would make a failure look flaky.
        refuse_after_signal(check)?;
        attempts = 2;
        duration += second.duration;
        log_section(&mut log, check, 2, &second);
        let first_reason = first.judgement.reason.clone().unwrap_or_default();
        judgement = if second.judgement.status == CheckStatus::Pass {
            attempt_status(
                CheckStatus::Flaky,
                Some(format!(
                    "failed, then passed on rerun; first attempt: {first_reason}"
                )),
            )
        } else {
            attempt_status(
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
    // The target users filter on (`LOKI_LOG=loki_checks=debug`, `--verbose`) stays the one this
    // code had before it moved out of `loki-checks`.
    tracing::info!(
        target: "loki_checks::exec",
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
        run: CheckRun {
            name: check.name.clone(),
            kind: check.kind,
            cmd: check.command_line(),
            result: judgement.status,
            executed: report.executed(),
            passed: report.passed,
            failed: report.failed,
            skipped: report.skipped,
        },
        failing_ids: report.failing_ids(),
        duration_s: (duration.as_millis() as f64) / 1000.0,
        log_sha256: hex::encode(Sha256::digest(&log)),
        log_path,
        reason: judgement.reason,
        exit_code: first.exit_code,
        attempts,
        report_source: (!report.source.is_empty()).then(|| report.source.clone()),
        tests: report.tests,
        environment: judgement.environment,
    })
}

#[cfg(test)]
mod tests;
