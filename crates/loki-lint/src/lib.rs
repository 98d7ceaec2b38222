//! Lint on changed files, "new from diff": the verify stage's lint step.
//!
//! The changed files are linted at head with the repository's own linter when it has one, else a
//! check that is always available, and only findings on lines the change added or modified count
//! (every line of a file new in the change). Findings on untouched lines are pre-existing: written
//! to the log, never failing the run. This is how `golangci-lint --new-from-rev` keeps a linter
//! useful on a codebase that was never clean.
//!
//! # Flow
//! 1. [`changed_lines`] reads which lines changed from git plumbing ([`lines`] has the format).
//! 2. [`plan()`] picks one linter per language and package and says which files no linter covers
//!    and what to add ([`plan`](mod@plan) has the ladder: ruff → pyflakes → syntax check; ESLint →
//!    `node --check` / `tsc`; `gofmt -l` + `go vet`; clippy → `rustfmt --check`).
//! 3. [`run`] runs each planned linter through the one process runner (own process group,
//!    `opts.timeout` for the whole run, stdin closed, `opts.env` with `CI=1 NO_COLOR=1`, output
//!    capped at `opts.output_cap` head+tail) from the package directory, reads its findings
//!    ([`parse`]), makes their paths repository-relative, and writes everything — the tool's
//!    output and each finding marked `new` or `pre-existing` — to `<log_dir>/<name>.log`.
//!
//! # Verdict of one run ([`LintRun::result`])
//! `not_run` when the tool could not start or crashed (with the reason); `timeout` when it ran
//! out of time (its group is killed); `fail` when a finding is on a changed line; `pass`
//! otherwise — including a non-zero exit over pre-existing findings only, since linters exit
//! non-zero for any finding. A compiler (clippy, go vet, tsc) that exits non-zero with nothing
//! readable is `fail` (the build broke); another linter doing so is `not_run`.
//!
//! # Evidence
//! A [`LintRun`] is evidence like a suite's run: it converts to the `check.result` event
//! (`From<&LintRun>` for `loki_events::payload::CheckResult`, kind `lint`) and, in `loki-receipt`,
//! to a receipt check; both count files as [`LintRun::counts`] says. Processes, timeouts and
//! errors are `loki-runner`'s ([`loki_runner::RunOptions`], [`loki_runner::ChecksError`]).
//!
//! # Never
//! - Modifies the files it lints: no `--fix`, `gofmt -l` not `-w`, `rustfmt --check`, ruff
//!   `--no-cache`, Python checked with `compile()` (no bytecode written). Build output goes where
//!   the environment says (`CARGO_TARGET_DIR`, `GOCACHE`); like `cargo test`, clippy writes a
//!   missing `Cargo.lock` and, without `CARGO_TARGET_DIR`, `target/` in the workspace.
//! - Counts a pre-existing finding against the change, or a syntax-only check as a full lint
//!   without saying so (`syntax only` in its reason).
//!
//! # Limits (by design)
//! Attribution is by line: a change that breaks an untouched line (deleting an import that line
//! uses) is reported there as pre-existing. `gofmt` findings have no line and count for any
//! changed file.

pub mod lines;
pub mod parse;
pub mod plan;
mod runner;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use loki_process as process;
use loki_protocol::CheckStatus;
use serde::{Deserialize, Serialize};

pub use lines::{ChangedFile, LineRange, LineSet, changed_lines, parse_patch};
use loki_runner::ChecksError;
use loki_runner::exec::RunOptions;
pub use parse::LintFinding;
pub use plan::{FileArgs, LintGroup, LintPlan, Linter};

/// What to lint: the worktree at head, its changed files, and how to run processes.
#[derive(Debug, Clone, Copy)]
pub struct LintInput<'a> {
    pub root: &'a Path,
    pub changed: &'a [ChangedFile],
    pub opts: &'a RunOptions,
}

/// A lint run counted as a check: files for tests ([`LintRun::counts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LintCounts {
    pub executed: u64,
    pub passed: u64,
    pub failed: u64,
}

/// One linter's run over some changed files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LintRun {
    /// `lint:<linter>` or `lint:<linter>:<package dir>` (`lint:ruff`, `lint:go-vet:svc`).
    pub name: String,
    /// The command line as a user would type it.
    pub cmd: String,
    /// Why this linter was chosen.
    pub why: String,
    pub result: CheckStatus,
    /// Changed files this run linted.
    pub files: u64,
    /// Every finding read from the tool's output, repository-relative.
    pub findings: Vec<LintFinding>,
    /// The findings on lines the change added or modified (a subset of `findings`).
    pub new_findings: Vec<LintFinding>,
    pub duration_s: f64,
    pub log_path: PathBuf,
    /// Hex sha256 of the log file's bytes.
    pub log_sha256: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The first non-zero exit code of its processes, else 0 (124 on timeout); absent when it
    /// never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

impl LintRun {
    /// Changed files with at least one new finding.
    #[must_use]
    pub fn failed_files(&self) -> u64 {
        let mut paths: Vec<&str> = self.new_findings.iter().map(|f| f.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        paths.len() as u64
    }

    /// The run's counts as evidence: `executed` is the linted files when the linter judged them
    /// (pass or fail) and 0 when it did not (not run, timed out); `failed` the files with new
    /// findings; `passed` the rest.
    #[must_use]
    pub fn counts(&self) -> LintCounts {
        let judged = matches!(self.result, CheckStatus::Pass | CheckStatus::Fail);
        let executed = if judged { self.files } else { 0 };
        let failed = if judged {
            self.failed_files().min(executed)
        } else {
            0
        };
        LintCounts {
            executed,
            passed: executed - failed,
            failed,
        }
    }

    /// The run is evidence: it passed over more than zero files.
    #[must_use]
    pub fn proves(&self) -> bool {
        self.result == CheckStatus::Pass && self.files > 0
    }
}

/// The `check.result` event of a lint run (kind `lint`, its new findings counted).
impl From<&LintRun> for loki_events::payload::CheckResult {
    fn from(r: &LintRun) -> Self {
        let counts = r.counts();
        loki_events::payload::CheckResult {
            run: loki_protocol::CheckRun {
                name: r.name.clone(),
                kind: loki_protocol::CheckOrigin::Lint,
                cmd: r.cmd.clone(),
                result: r.result,
                executed: counts.executed,
                passed: counts.passed,
                failed: counts.failed,
                skipped: 0,
            },
            duration_s: r.duration_s,
            log_sha256: r.log_sha256.clone(),
            failing_ids: Vec::new(),
            stage: None,
            role: None,
            reason: r.reason.clone(),
            exit_code: r.exit_code,
            new_findings: Some(r.new_findings.len() as u64),
        }
    }
}

/// Every lint run of a change, and the changed files no linter covered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LintReport {
    pub runs: Vec<LintRun>,
    /// `lint: no linter for TypeScript (src/a.ts): add eslint or a tsconfig with typescript
    /// installed`, `lint: eslint did not lint …`.
    pub not_covered: Vec<String>,
}

impl LintReport {
    /// Any run found something new on a changed line (or its compiler failed).
    #[must_use]
    pub fn failed(&self) -> bool {
        self.runs.iter().any(|r| r.result == CheckStatus::Fail)
    }

    /// The report as text: one line per run, each new finding under its run, then what no linter
    /// covered. For the verify summary and for the fix round's brief.
    #[must_use]
    pub fn render(&self) -> String {
        if self.runs.is_empty() && self.not_covered.is_empty() {
            return "lint: no changed source files to lint\n".to_owned();
        }
        let mut out = String::new();
        for r in &self.runs {
            let word = match r.result {
                CheckStatus::Pass => "pass",
                CheckStatus::Fail => "FAIL",
                CheckStatus::NotRun => "not run",
                CheckStatus::Flaky => "flaky",
                CheckStatus::Timeout => "TIMEOUT",
                CheckStatus::Unparseable => "UNPARSEABLE",
            };
            let old = r.findings.len() - r.new_findings.len();
            let _ = write!(
                out,
                "{word:<8}{} ({} file{}, {} new, {old} pre-existing, {})",
                r.name,
                r.files,
                if r.files == 1 { "" } else { "s" },
                r.new_findings.len(),
                loki_core::time::human_duration(r.duration_s)
            );
            match &r.reason {
                Some(reason) if r.result != CheckStatus::Fail => {
                    let _ = writeln!(out, ": {reason}");
                }
                _ => out.push('\n'),
            }
            for f in &r.new_findings {
                let line = f.line.map(|l| format!(":{l}")).unwrap_or_default();
                let code = f
                    .code
                    .as_deref()
                    .map(|c| format!(" [{c}]"))
                    .unwrap_or_default();
                let _ = writeln!(out, "          {}{line}:{code} {}", f.path, f.message);
            }
        }
        for n in &self.not_covered {
            let _ = writeln!(out, "{n}");
        }
        out
    }
}

/// [`plan_with`] in loki's usual child environment ([`process::scrubbed_env`]).
#[must_use]
pub fn plan(root: &Path, changed: &[ChangedFile]) -> LintPlan {
    plan_with(root, changed, &process::scrubbed_env(), &[])
}

/// Which linter runs over which changed files, with tools looked up (and probed) in `env`, the
/// environment the runs will get, through `wrapper` (the confinement of `RunOptions::wrapper`).
#[must_use]
pub fn plan_with(
    root: &Path,
    changed: &[ChangedFile],
    env: &[(OsString, OsString)],
    wrapper: &[OsString],
) -> LintPlan {
    plan::plan_with_probe(root, changed, &plan::Probe::new(env, wrapper))
}

/// Plans with `input.opts.env` and runs the plan ([`run_plan`]).
pub fn run(input: &LintInput<'_>) -> Result<LintReport, ChecksError> {
    if !input.root.is_dir() {
        return Err(ChecksError::NotADir {
            root: input.root.to_path_buf(),
        });
    }
    let plan = plan_with(
        input.root,
        input.changed,
        &input.opts.env,
        &input.opts.wrapper,
    );
    run_plan(&plan, input)
}

/// Runs each group of `plan` in order and collects the report. Errors are loki's own (a log
/// could not be written); a linter that fails, hangs or is missing is in its run.
pub fn run_plan(plan: &LintPlan, input: &LintInput<'_>) -> Result<LintReport, ChecksError> {
    let changed: BTreeMap<&str, &LineSet> = input
        .changed
        .iter()
        .map(|f| (f.path.as_str(), &f.lines))
        .collect();
    let mut report = LintReport {
        runs: Vec::with_capacity(plan.groups.len()),
        not_covered: plan.not_covered.clone(),
    };
    for group in &plan.groups {
        let (run, notes) = runner::run_group(group, input.root, &changed, input.opts)?;
        report.runs.push(run);
        report.not_covered.extend(notes);
    }
    Ok(report)
}

/// A lint run as the receipt records it: a check of kind `lint` whose counts are files
/// ([`LintRun::counts`]).
impl From<&LintRun> for loki_receipt::schema::Check {
    fn from(r: &LintRun) -> Self {
        loki_receipt::schema::Check::of_event(&r.into(), loki_protocol::CheckRole::Lint)
    }
}
