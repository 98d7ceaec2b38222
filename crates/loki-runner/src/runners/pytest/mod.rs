//! pytest ([`Pytest`]).
//!
//! - Detection: the outermost Python project (`pyproject.toml`, `setup.py`, `setup.cfg`,
//!   `pytest.ini`, `tox.ini`) that holds test files (`test_*.py`, `*_test.py`, `conftest.py`) or
//!   configures pytest; test files outside any project make a check at the root. The interpreter
//!   is the project's (then the root's) `.venv/bin/python` or `venv/bin/python`, else `python3`;
//!   [`use_checkout_envs`] points a check of a linked worktree at the checkout's virtualenv.
//! - The command: loki's plugin ([`report::PLUGIN_SOURCE`], written into the attempt's directory
//!   and put first on `PYTHONPATH`) with its events file, `-rA`, a JUnit file, and the cache
//!   provider off (a run never writes into the repository). Stale `__pycache__` bytecode is
//!   removed before each run ([`drop_bytecode`]).
//! - Reports: the plugin's events, cross-checked (the session finished, `PYTEST_ADDOPTS` unset,
//!   nothing deselected that the project's own ini did not, the arguments it was started with);
//!   then the JUnit file, then the text summary ([`report`]).
//! - Status: exit 5 with nothing executed is "no tests"; `No module named pytest` is a missing
//!   tool.
//! - Narrowing: the files (relative to the check's directory) and node ids, with the plugin's
//!   `--loki-repeat=N` and `--loki-reverse`.
//! - Locating: the node id's file and its `def <name>(` (or `async def`) line.
//! - Isolation: the `sitecustomize` of [`crate::isolate`] (Python).

pub mod report;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::ChecksError;
use crate::detect::{Check, Scan, Tools, make, outermost, read_small};
use crate::exec::plan::{ReportPlan, write_report_file};
use crate::isolate::Isolation;
use crate::locate::{Locator, in_check};
use crate::reports::report::TestReport;
use crate::reports::{ParsedRun, junit};
use crate::runners::Runner;
use crate::select::Selection;
use crate::wall::{self, WallRefusal, WallTest};
use loki_protocol::CheckKind;

/// Files that make a directory a Python project.
const PY_PROJECT_FILES: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    "tox.ini",
];
/// pytest's exit code for "no tests collected".
const PYTEST_NO_TESTS: i32 = 5;
/// Most `.pyc` files a tree may hold before the sweep gives up (a pathological checkout).
const MAX_SWEPT_ENTRIES: usize = 200_000;

/// `python -m pytest`.
#[derive(Debug)]
pub(crate) struct Pytest;

impl Runner for Pytest {
    fn markers(&self) -> &'static [&'static str] {
        PY_PROJECT_FILES
    }

    fn is_test_file(&self, _rel: &Path, name: &str) -> bool {
        name == "conftest.py"
            || name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
    }

    fn detect(&self, root: &Path, scan: &Scan, _tools: Tools, out: &mut Vec<Check>) {
        let is_project = |p: &Path| scan.has_any(p, PY_PROJECT_FILES);
        // dir → the reason it is a check
        let mut dirs: BTreeMap<PathBuf, String> = BTreeMap::new();
        for rel in scan.dirs.keys().filter(|p| is_project(p)) {
            let top = outermost(rel, is_project).unwrap_or_default();
            if top == *rel
                && let Some(cfg) = pytest_config(&root.join(rel))
            {
                dirs.insert(top, format!("pytest is configured in {cfg}"));
            }
        }
        for file in scan.tests(CheckKind::Pytest) {
            let parent = file.parent().unwrap_or(Path::new(""));
            let top = outermost(parent, is_project).unwrap_or_default();
            dirs.entry(top.clone()).or_insert_with(|| {
                let shown = file
                    .strip_prefix(&top)
                    .unwrap_or(file)
                    .display()
                    .to_string();
                if is_project(&top) {
                    format!("Python project with test files ({shown})")
                } else {
                    format!("Python test files outside any project file ({shown})")
                }
            });
        }
        for (rel, reason) in dirs {
            let (python, which) = interpreter(root, &rel);
            out.push(make(
                root,
                &rel,
                CheckKind::Pytest,
                vec![python, "-m".into(), "pytest".into()],
                format!("{reason}; interpreter: {which}"),
            ));
        }
    }

    fn report_plan(
        &self,
        check: &Check,
        tmp: &Path,
        env: &[(OsString, OsString)],
    ) -> Result<ReportPlan, ChecksError> {
        let plugin_dir = tmp.join("pytest-plugin");
        std::fs::create_dir_all(&plugin_dir).map_err(|source| ChecksError::Io {
            action: "create",
            path: plugin_dir.clone(),
            source,
        })?;
        write_report_file(
            check,
            &plugin_dir.join(format!("{}.py", report::PLUGIN_MODULE)),
            report::PLUGIN_SOURCE.as_bytes(),
        )?;
        let events = tmp.join("pytest-events.jsonl");
        let junit = tmp.join("junit.xml");
        Ok(ReportPlan {
            args: vec![
                "-p".into(),
                report::PLUGIN_MODULE.into(),
                "-rA".into(),
                format!("--junitxml={}", junit.to_string_lossy()),
                "-p".into(),
                "no:cacheprovider".into(),
            ],
            env: vec![
                ("PYTHONPATH".into(), pythonpath_with(env, &plugin_dir)),
                (report::PLUGIN_ENV.into(), events.clone().into()),
            ],
            files: vec![events, junit],
        })
    }

    fn before_run(&self, check: &Check) {
        drop_bytecode(&check.cwd);
    }

    fn parse_file(&self, text: &str) -> Option<TestReport> {
        report::parse_plugin(text)
            .map(|p| p.report)
            .or_else(|| junit::parse(text))
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        report::parse_text(log)
    }

    fn parse_run(&self, structured: &[String], log: &str) -> ParsedRun {
        let Some(p) = structured.iter().find_map(|s| report::parse_plugin(s)) else {
            return ParsedRun {
                report: structured
                    .iter()
                    .find_map(|s| junit::parse(s))
                    .or_else(|| report::parse_text(log)),
                ..ParsedRun::default()
            };
        };
        let mut anomalies = Vec::new();
        if p.finished.is_none() {
            anomalies.push(
                "pytest's session ended before it finished (something exited the process)"
                    .to_owned(),
            );
        }
        if !p.env_addopts.trim().is_empty() {
            anomalies.push(format!(
                "PYTEST_ADDOPTS was set around the run (`{}`): something between loki and pytest changed its options",
                p.env_addopts.trim()
            ));
        }
        // The project's own ini may deselect (`-m "not slow"`): that is committed and judged as
        // configuration. Anything else that deselects is not loki's doing.
        let configured = ["-m", "-k", "--deselect"]
            .iter()
            .any(|f| p.ini_addopts.split_whitespace().any(|w| w.starts_with(f)));
        if !p.deselected.is_empty() && !configured {
            let shown: Vec<&str> = p.deselected.iter().take(3).map(String::as_str).collect();
            anomalies.push(format!(
                "{} tests were deselected, so they never ran ({}{})",
                p.deselected.len(),
                shown.join(", "),
                if p.deselected.len() > 3 { ", ..." } else { "" }
            ));
        }
        ParsedRun {
            report: Some(p.report),
            anomalies,
            reported_exit: p.finished,
            started_with: Some(p.args),
        }
    }

    fn no_tests_exit(&self) -> Option<i32> {
        Some(PYTEST_NO_TESTS)
    }

    fn missing_tool(&self, _exit_code: i32, log: &str) -> Option<String> {
        log.contains("No module named pytest")
            .then(|| "pytest not installed for this interpreter (No module named pytest)".into())
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        if !sel.tests.is_empty() {
            // A node id's file part must exist where the check runs, or pytest errors out.
            let cwd = root.join(&check.dir);
            if sel
                .tests
                .iter()
                .any(|id| !cwd.join(id.split("::").next().unwrap_or(id)).exists())
            {
                return None;
            }
        }
        let mut out = check.clone();
        out.command.extend(files);
        out.command.extend(sel.tests.iter().cloned());
        // loki's pytest plugin, which every pytest run loads, defines the options.
        if sel.repeat > 1 {
            out.command.push(format!("--loki-repeat={}", sel.repeat));
        }
        if sel.reverse {
            out.command.push("--loki-reverse".into());
        }
        Some(out)
    }

    fn repeats_in_one_run(&self) -> bool {
        true
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        let parts: Vec<&str> = id.split("::").collect();
        let file = parts.first().copied().unwrap_or("");
        let name = parts.last().copied().unwrap_or("");
        let name = name.split('[').next().unwrap_or(name);
        let path = in_check(check, file);
        let (def, async_def) = (format!("def {name}("), format!("async def {name}("));
        let line = at.line_of(&path, |l| {
            let t = l.trim_start();
            t.starts_with(&def) || t.starts_with(&async_def)
        });
        (path, line)
    }

    fn isolation(&self) -> Isolation {
        Isolation::Python
    }

    fn id_file_separator(&self) -> Option<&'static str> {
        Some("::")
    }

    // `tests/test_a.py::TestX::test_y[1]` → `TestX::test_y[1]`
    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        id.split_once("::").map_or(id, |(_, r)| r)
    }

    // The test file.
    fn group(&self, id: &str) -> String {
        id.split("::").next().unwrap_or(id).to_owned()
    }

    // A file that could not be collected is reported by its path alone.
    fn marks_group(&self, id: &str) -> bool {
        !id.contains("::")
    }

    fn runs_as_test_file(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.starts_with("test_") || name.ends_with("_test.py") || !name.ends_with(".py")
    }

    fn source_extensions(&self) -> &'static [&'static str] {
        &["py"]
    }

    // loki's plugin's `--loki-reverse`.
    fn reverses(&self) -> bool {
        true
    }

    fn wall_language(&self) -> Option<&'static str> {
        Some("Python")
    }

    // `loki_wall_*_test.py`: the package's pytest command with the file.
    fn wall(&self, file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        if !file.name.ends_with(".py") {
            return None;
        }
        if !file.name.ends_with("_test.py") {
            return Some(Err(WallRefusal::Misplaced(
                "a Python wall test is named loki_wall_<name>_test.py",
            )));
        }
        let Some(c) = wall::owner(file.checks, file.path, CheckKind::Pytest) else {
            return Some(Err(WallRefusal::NoSuite("pytest suite")));
        };
        let mut command = c.command.clone();
        command.push(wall::rel_to(&c, file.path));
        Some(Ok(Check {
            command,
            why: "wall test: the package's pytest run on this file".into(),
            ..c
        }))
    }
}

/// Which file in `dir` configures pytest, if any.
fn pytest_config(dir: &Path) -> Option<&'static str> {
    let mentions =
        |file: &str, needle: &str| read_small(&dir.join(file)).is_some_and(|s| s.contains(needle));
    if dir.join("pytest.ini").is_file() {
        Some("pytest.ini")
    } else if mentions("pyproject.toml", "[tool.pytest") {
        Some("pyproject.toml ([tool.pytest...])")
    } else if mentions("setup.cfg", "[tool:pytest]") {
        Some("setup.cfg ([tool:pytest])")
    } else if mentions("tox.ini", "[pytest]") {
        Some("tox.ini ([pytest])")
    } else {
        None
    }
}

/// Points pytest checks that fell back to `python3` at the virtualenv of `checkout` when it has
/// one (the package's, then the root's). For checks detected in a linked worktree: the user's
/// `.venv` is ignored by git, so it exists only in their checkout. The interpreter is used from
/// there by absolute path; nothing is linked or copied into the worktree.
pub fn use_checkout_envs(checks: &mut [Check], checkout: &Path) {
    for c in checks.iter_mut().filter(|c| c.kind == CheckKind::Pytest) {
        if c.command.first().map(String::as_str) != Some("python3") {
            continue;
        }
        let rel = if c.dir == "." {
            PathBuf::new()
        } else {
            PathBuf::from(&c.dir)
        };
        let (python, which) = interpreter(checkout, &rel);
        if python != "python3" {
            c.command[0] = python;
            c.why = format!(
                "{}; interpreter: {which} of the checkout",
                c.why.split("; interpreter:").next().unwrap_or(&c.why)
            );
        }
    }
}

/// The project's virtualenv interpreter, then the root's, then `python3` from PATH.
fn interpreter(root: &Path, rel: &Path) -> (String, String) {
    let mut places = vec![rel.to_path_buf()];
    if !rel.as_os_str().is_empty() {
        places.push(PathBuf::new());
    }
    for place in places {
        for venv in [".venv", "venv"] {
            let py = root.join(&place).join(venv).join("bin").join("python");
            if py.is_file() {
                let shown = place.join(venv).join("bin/python");
                return (
                    py.to_string_lossy().into_owned(),
                    format!("{} (the repository's virtualenv)", shown.display()),
                );
            }
        }
    }
    (
        "python3".into(),
        "python3 from PATH (no .venv or venv found)".into(),
    )
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

/// Removes the compiled bytecode in `__pycache__` directories of the repository holding `cwd`
/// (outside installed packages) before a Python suite runs. Python trusts a `.pyc` whose recorded
/// source size and mtime (in whole seconds) match the source, so a planted one (or a stale one
/// from an edit within the same second) would make the tests run code that is not the source
/// judged and committed; checks never write bytecode (`PYTHONDONTWRITEBYTECODE`), so what is
/// there came from elsewhere. Installed packages (`site-packages`, `dist-packages`) are trusted
/// like the rest of the environment. Best effort: a file that cannot be removed stays.
fn drop_bytecode(cwd: &Path) {
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd);
    let files = loki_core::walk::Walk::new(root, loki_core::walk::Visibility::Everything)
        .max_entries(MAX_SWEPT_ENTRIES)
        .files();
    for f in files {
        let rel = f.rel_str();
        let in_cache = rel.split('/').any(|c| c == "__pycache__");
        let installed = rel
            .split('/')
            .any(|c| c == "site-packages" || c == "dist-packages");
        if in_cache && !installed && rel.ends_with(".pyc") {
            let _ = std::fs::remove_file(&f.path);
        }
    }
}
