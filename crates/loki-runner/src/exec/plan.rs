//! What a check's command is given so that it writes a structured report: the flags, the
//! report files and the environment, per runner.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::detect::Check;
use crate::{ChecksError, reports};
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
pub(super) struct ReportPlan {
    /// Arguments appended to the command (or inserted before its `--`, for cargo).
    pub(super) args: Vec<String>,
    /// Variables added to the child's environment.
    pub(super) env: Vec<(OsString, OsString)>,
    /// Report files, best first; the first that exists and parses is used.
    pub(super) files: Vec<PathBuf>,
}

/// `args` placed before a `--` in `command` (cargo's own flags must precede the test binary's).
pub(super) fn insert_before_separator(command: &[String], args: &[String]) -> Vec<String> {
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
pub(super) fn report_plan(
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
                &plugin_dir.join(format!("{}.py", reports::pytest::PLUGIN_MODULE)),
                reports::pytest::PLUGIN_SOURCE.as_bytes(),
            )?;
            let events = file("pytest-events.jsonl");
            let junit = file("junit.xml");
            ReportPlan {
                args: vec![
                    "-p".into(),
                    reports::pytest::PLUGIN_MODULE.into(),
                    "-rA".into(),
                    format!("--junitxml={}", s(&junit)),
                    "-p".into(),
                    "no:cacheprovider".into(),
                ],
                env: vec![
                    ("PYTHONPATH".into(), pythonpath_with(env, &plugin_dir)),
                    (reports::pytest::PLUGIN_ENV.into(), events.clone().into()),
                ],
                files: vec![events, junit],
            }
        }
        CheckKind::Node if check.script.is_none() => {
            let reporter = file(reports::tap::NODE_REPORTER_FILE);
            write(&reporter, reports::tap::NODE_REPORTER_SOURCE.as_bytes())?;
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
        | CheckKind::Go
        | CheckKind::Maven => ReportPlan::default(),
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

/// The `cargo test --no-run` that builds what a cargo or nextest check's command runs, and runs
/// nothing: the same package, feature, target and profile selection. `None` when the command is
/// not `cargo test` or `cargo nextest run`, or runs doctests only (which build at run time).
/// Nextest's own options are left out; a selection this gets wrong only builds something else, and
/// the check's run then builds what it needs.
#[must_use]
pub fn build_companion(check: &Check) -> Option<Vec<String>> {
    let words: Vec<&str> = check.command.iter().map(String::as_str).collect();
    let ((CheckKind::Cargo, ["cargo", "test", args @ ..])
    | (CheckKind::Nextest, ["cargo", "nextest", "run", args @ ..])) =
        (check.kind, words.as_slice())
    else {
        return None;
    };
    let mut out = vec!["cargo".to_owned(), "test".to_owned(), "--no-run".to_owned()];
    let mut it = args.iter();
    while let Some(&a) = it.next() {
        match a {
            "--" => break,
            "--doc" => return None,
            "--workspace"
            | "--all"
            | "--all-features"
            | "--no-default-features"
            | "--lib"
            | "--bins"
            | "--tests"
            | "--examples"
            | "--benches"
            | "--all-targets"
            | "--release"
            | "--frozen"
            | "--locked"
            | "--offline" => out.push(a.to_owned()),
            "-p" | "--package" | "--exclude" | "--features" | "-F" | "--manifest-path"
            | "--bin" | "--test" | "--example" | "--bench" | "--target" => {
                out.push(a.to_owned());
                out.push((*it.next()?).to_owned());
            }
            // `cargo test`'s profile; nextest names it `--cargo-profile` (its `--profile` is
            // its own).
            "--profile" if check.kind == CheckKind::Cargo => {
                out.push(a.to_owned());
                out.push((*it.next()?).to_owned());
            }
            "--cargo-profile" => {
                out.push("--profile".to_owned());
                out.push((*it.next()?).to_owned());
            }
            // Nextest's options that take a value: the value is not a test filter.
            "-E"
            | "--filterset"
            | "--filter-expr"
            | "--profile"
            | "-P"
            | "-j"
            | "--test-threads"
            | "--retries"
            | "--partition"
            | "--run-ignored"
            | "--max-fail"
            | "--status-level"
            | "--final-status-level"
            | "--failure-output"
            | "--success-output"
            | "--message-format"
            | "--no-tests"
            | "--tool-config-file"
            | "--config-file" => {
                it.next();
            }
            other => {
                let valued = [
                    "--package=",
                    "--features=",
                    "--exclude=",
                    "--manifest-path=",
                    "--bin=",
                    "--test=",
                    "--example=",
                    "--bench=",
                    "--target=",
                ];
                if valued.iter().any(|v| other.starts_with(v))
                    || (check.kind == CheckKind::Cargo && other.starts_with("--profile="))
                {
                    out.push(other.to_owned());
                }
            }
        }
    }
    Some(out)
}
