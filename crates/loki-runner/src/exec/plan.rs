//! What a check's command is given so that it writes a structured report: the flags, the
//! report files and the environment, each runner's (`Runner::report_plan`); the package
//! script's plan; the cargo commands that complete or prepare a check's run.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::ChecksError;
use crate::detect::Check;
use crate::runners::runner;
use loki_protocol::CheckKind;

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
pub(super) fn script_plan(check: &Check, tmp: &Path) -> Option<crate::script::Plan> {
    check.script.as_ref()?;
    let manifest = crate::script::manifest(&check.cwd)?;
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
pub(crate) struct ReportPlan {
    /// Arguments appended to the command (or put before its own, `Runner::report_args_first`;
    /// inserted before its `--` in the runs that complete a nextest run).
    pub(crate) args: Vec<String>,
    /// Variables added to the child's environment.
    pub(crate) env: Vec<(OsString, OsString)>,
    /// Report files, best first; the first that exists and parses is used.
    pub(crate) files: Vec<PathBuf>,
}

/// `args` placed before a `--` in `command` (cargo's own flags must precede the test binary's).
pub(crate) fn insert_before_separator(command: &[String], args: &[String]) -> Vec<String> {
    let mut out = command.to_vec();
    let at = out.iter().position(|a| a == "--").unwrap_or(out.len());
    for (i, a) in args.iter().enumerate() {
        out.insert(at + i, a.clone());
    }
    out
}

/// Writes a file the report plan needs (a config, a plugin, a reporter) at `path`.
pub(crate) fn write_report_file(
    check: &Check,
    path: &Path,
    body: &[u8],
) -> Result<(), ChecksError> {
    loki_core::fs::write_atomic(path, body).map_err(|source| ChecksError::Log {
        check: check.name.clone(),
        source,
    })
}

/// What makes the runner write structured reports into `tmp` (`Runner::report_plan`).
pub(super) fn report_plan(
    check: &Check,
    tmp: &Path,
    env: &[(OsString, OsString)],
) -> Result<ReportPlan, ChecksError> {
    runner(check.kind).report_plan(check, tmp, env)
}

/// The `cargo test --doc` run that completes a nextest run: the same package selection, no
/// target filters. `None` when the check is not nextest's, or its command selects targets that
/// hold no doctests.
#[must_use]
pub fn doc_companion(check: &Check) -> Option<Vec<String>> {
    runner(check.kind).doc_companion(check)
}

/// The `cargo test --no-run` that builds what a cargo or nextest check's command runs, and runs
/// nothing: the same package, feature, target and profile selection. `None` when the command is
/// not `cargo test` or `cargo nextest run`, or runs doctests only (which build at run time).
/// Nextest's own options are left out; a selection this gets wrong only builds something else, and
/// the check's run then builds what it needs.
#[must_use]
pub fn build_companion(check: &Check) -> Option<Vec<String>> {
    runner(check.kind).build_companion(check)
}

/// [`build_companion`] as a check of its own, beside `check`: a `cargo test` run, read as
/// cargo's whatever `check`'s runner is.
#[must_use]
pub fn build_check(check: &Check) -> Option<Check> {
    build_companion(check).map(|command| Check {
        kind: CheckKind::Cargo,
        command,
        ..check.clone()
    })
}
