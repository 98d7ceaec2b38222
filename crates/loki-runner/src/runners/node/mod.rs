//! JavaScript: node's built-in runner (`node --test`, [`Node`]) and the package scripts, run as
//! their package manager would run them ([`crate::script`]): vitest and jest
//! ([`scripted`]), `node --test`, or another runner ([`npm`]). What the four share is here.
//!
//! - Detection ([`Node`] answers for the family): each `package.json` whose `scripts.test` is not
//!   npm's placeholder; the script decides the kind. The package manager is the one the project
//!   declares: `packageManager` in the nearest `package.json` that has it, else the nearest
//!   lockfile (`pnpm-lock.yaml`, `yarn.lock`, `bun.lock`/`bun.lockb`, `package-lock.json`), else
//!   npm. A package without a test script (or loose files without a `package.json`) whose files
//!   match node's default test patterns is a plain `node --test` check, unless a vitest or jest
//!   script of an enclosing package already finds them.
//! - The command: a plain `node --test` gets loki's reporter ([`crate::reports::tap`]) before its
//!   file arguments; a script's runner commands get their report flags from [`crate::script`].
//! - Status: exit 127 is a missing tool: the package manager or node itself, else the package's
//!   dependencies are not installed.
//! - Narrowing: the files, and the files of the ids (`<file> > <suite> > <test>`); with
//!   [`Selection::exact`], a name pattern (`-t`, `--test-name-pattern`). A script is narrowed
//!   when it is one runner call, or one runner among read-only checkers ([`crate::script`]).
//! - Locating: the id's file and the line that quotes the test's title.
//! - Isolation: the tree's own `node_modules` ([`isolate`]) and the evidence preload of
//!   [`crate::isolate`] (JavaScript).

pub mod isolate;
pub mod npm;
pub mod scripted;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::ChecksError;
use crate::detect::{Check, Scan, Tools, innermost, make, read_small, rel_str, words};
use crate::exec::SHELL_NOT_FOUND;
use crate::exec::plan::{ReportPlan, write_report_file};
use crate::isolate::Isolation;
use crate::locate::{Locator, in_check};
use crate::reports::report::TestReport;
use crate::reports::tap;
use crate::runners::Runner;
use crate::script::{ScriptFlags, shell_quote};
use crate::select::Selection;
use crate::wall::{WallRefusal, WallTest};
use loki_protocol::CheckKind;

/// npm's placeholder script, which is not a test suite.
const NPM_PLACEHOLDER: &str = "no test specified";

/// `node --test`, plain or in a package script.
#[derive(Debug)]
pub(crate) struct Node;

impl Runner for Node {
    fn markers(&self) -> &'static [&'static str] {
        &[
            "package.json",
            "pnpm-lock.yaml",
            "yarn.lock",
            "bun.lock",
            "bun.lockb",
            "package-lock.json",
            "npm-shrinkwrap.json",
        ]
    }

    fn is_test_file(&self, rel: &Path, _name: &str) -> bool {
        is_js_test(rel)
    }

    fn detect(&self, root: &Path, scan: &Scan, _tools: Tools, out: &mut Vec<Check>) {
        detect_family(root, scan, out);
    }

    fn report_plan(
        &self,
        check: &Check,
        tmp: &Path,
        _env: &[(OsString, OsString)],
    ) -> Result<ReportPlan, ChecksError> {
        if check.script.is_some() {
            return Ok(ReportPlan::default());
        }
        let reporter = tmp.join(tap::NODE_REPORTER_FILE);
        write_report_file(check, &reporter, tap::NODE_REPORTER_SOURCE.as_bytes())?;
        let events = tmp.join("node-events.jsonl");
        Ok(ReportPlan {
            args: vec![
                "--test-reporter=spec".into(),
                "--test-reporter-destination=stdout".into(),
                format!("--test-reporter={}", reporter.to_string_lossy()),
                format!("--test-reporter-destination={}", events.to_string_lossy()),
            ],
            env: Vec::new(),
            files: vec![events],
        })
    }

    // node's options must come before its file arguments.
    fn report_args_first(&self, check: &Check) -> bool {
        check.script.is_none()
    }

    fn script_flags(
        &self,
        program: &str,
        args: &[&str],
        tmp: &Path,
        n: usize,
    ) -> Option<ScriptFlags> {
        if program != "node" || !args.contains(&"--test") {
            return None;
        }
        let report = tmp.join(format!("script-report-{n}.jsonl"));
        let reporter = tmp.join(tap::NODE_REPORTER_FILE);
        Some(ScriptFlags {
            flags: format!(
                " --test-reporter=spec --test-reporter-destination=stdout --test-reporter={} --test-reporter-destination={}",
                shell_quote(&reporter.to_string_lossy()),
                shell_quote(&report.to_string_lossy())
            ),
            report,
            first: true,
        })
    }

    fn script_support(&self) -> Option<(&'static str, &'static str)> {
        Some((tap::NODE_REPORTER_FILE, tap::NODE_REPORTER_SOURCE))
    }

    fn parse_file(&self, text: &str) -> Option<TestReport> {
        tap::parse_node_events(text).or_else(|| tap::parse_tap(text))
    }

    fn parse_log(&self, log: &str) -> Option<TestReport> {
        tap::parse_tap(log).or_else(|| tap::parse_node_summary(log))
    }

    fn missing_tool(&self, exit_code: i32, log: &str) -> Option<String> {
        missing_tool(exit_code, log)
    }

    fn narrow(
        &self,
        check: &Check,
        root: &Path,
        files: Vec<String>,
        sel: &Selection,
    ) -> Option<Check> {
        let paths = paths_of(check, root, files, sel)?;
        let names = sel.exact.then(|| name_pattern(&sel.tests, true)).flatten();
        if check.script.is_some() {
            return narrow_script(check, root, paths, names, false);
        }
        let mut out = check.clone();
        out.command
            .extend(names.map(|n| format!("--test-name-pattern={n}")));
        out.command.extend(paths);
        Some(out)
    }

    fn locate(&self, at: &mut Locator<'_>, check: &Check, id: &str) -> (String, Option<u32>) {
        locate(at, check, id, false)
    }

    fn isolation(&self) -> Isolation {
        Isolation::JavaScript
    }

    fn id_separator(&self) -> &'static str {
        ID_SEPARATOR
    }

    fn id_file_separator(&self) -> Option<&'static str> {
        Some(ID_SEPARATOR)
    }

    fn own_name<'a>(&self, id: &'a str) -> &'a str {
        own_name(id)
    }

    fn group(&self, id: &str) -> String {
        file_of(id).to_owned()
    }

    fn home<'a>(&self, id: &'a str) -> &'a str {
        file_of(id)
    }

    // `node --test` runs every file under a `test` directory too.
    fn runs_as_test_file(&self, path: &str) -> bool {
        let name = path.rsplit('/').next().unwrap_or(path);
        let stem = name.split('.').next().unwrap_or(name);
        name.contains(".test.")
            || name.contains("-test.")
            || name.contains("_test.")
            || stem == "test"
            || stem.starts_with("test-")
            || in_dir(path, "test")
    }

    fn loads_other_sources(&self) -> bool {
        true
    }

    fn wall_language(&self) -> Option<&'static str> {
        Some("JavaScript")
    }

    fn wall(&self, file: &WallTest<'_>) -> Option<Result<Check, WallRefusal>> {
        let is_js = file.name.ends_with(".test.js") || file.name.ends_with(".test.mjs");
        (is_js || file.name.ends_with(".test.ts")).then(|| wall(file))
    }

    fn wall_in_suite(&self, suite: Check, file: String) -> Result<Check, WallRefusal> {
        if !is_js_wall(&file) {
            return Err(crate::wall::unpointable(&suite));
        }
        Ok(Check {
            command: vec!["node".into(), "--test".into(), file],
            // node is called directly, not through the package's script.
            script: None,
            why: "wall test: node --test on this file".into(),
            ..suite
        })
    }
}

/// The separator of the JavaScript runners' ids: `<file> > <suite> > <test>`.
const ID_SEPARATOR: &str = " > ";

/// `src/a.test.ts > describe > name` → `describe > name`.
pub(crate) fn own_name(id: &str) -> &str {
    id.split_once(ID_SEPARATOR).map_or(id, |(_, r)| r)
}

/// The test file an id starts with.
pub(crate) fn file_of(id: &str) -> &str {
    id.split(ID_SEPARATOR).next().unwrap_or(id)
}

/// Whether a directory of `path` (not its file) is named `dir`.
pub(crate) fn in_dir(path: &str, dir: &str) -> bool {
    path.split('/').rev().skip(1).any(|x| x == dir)
}

/// Whether a JavaScript wall test at `file` is JavaScript (not TypeScript, which only vitest
/// runs as it is).
fn is_js_wall(file: &str) -> bool {
    file.ends_with(".test.js") || file.ends_with(".test.mjs")
}

/// A JavaScript or TypeScript wall test: `node --test`, or the package's vitest or jest run, on
/// this file. The suite is the first that covers it other than Python's and Go's, whatever its
/// runner: a runner that cannot run it alone says why.
fn wall(file: &WallTest<'_>) -> Result<Check, WallRefusal> {
    let Some(c) = crate::detect::checks_for(file.checks, file.path)
        .into_iter()
        .find(|c| c.kind != CheckKind::Pytest && c.kind != CheckKind::Go)
        .cloned()
    else {
        return Err(WallRefusal::NoSuite("JavaScript test suite"));
    };
    let rel = crate::wall::rel_to(&c, file.path);
    super::runner(c.kind).wall_in_suite(c, rel)
}

/// A run of a JavaScript check that exited `exit_code` because a command was not found (see the
/// module doc).
pub(crate) fn missing_tool(exit_code: i32, log: &str) -> Option<String> {
    if exit_code != SHELL_NOT_FOUND {
        return None;
    }
    Some(match not_found_name(log) {
        Some(tool @ ("pnpm" | "yarn" | "npm" | "npx" | "node" | "bun" | "corepack")) => {
            format!("{tool} not found")
        }
        Some(tool) => format!("{tool} not found: the package's dependencies are not installed"),
        None => "the test script's command was not found (exit 127): the package's dependencies are not installed".into(),
    })
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

/// The paths a narrowed run of a vitest, jest or node check names: `files`, and the file of each
/// id. `None` when an id names no file of the check (an old TAP id).
pub(crate) fn paths_of(
    check: &Check,
    root: &Path,
    files: Vec<String>,
    sel: &Selection,
) -> Option<BTreeSet<String>> {
    let mut paths: BTreeSet<String> = files.into_iter().collect();
    for id in &sel.tests {
        let file = id.split(" > ").next()?;
        if file.is_empty() || file.contains(" (") || !root.join(&check.dir).join(file).is_file() {
            return None;
        }
        paths.insert(file.to_owned());
    }
    Some(paths)
}

/// A package script narrowed to `paths` after `--` (regex-escaped for jest, which takes
/// patterns), with `-t <names>`; `None` without a script, or with one that cannot take them.
pub(crate) fn narrow_script(
    check: &Check,
    root: &Path,
    paths: BTreeSet<String>,
    names: Option<String>,
    escape: bool,
) -> Option<Check> {
    let script = check.script.as_deref()?;
    if !(plain_runner_script(script) || crate::script::narrowable(&root.join(&check.dir))) {
        return None;
    }
    let mut out = check.clone();
    if !out.command.iter().any(|a| a == "--") {
        out.command.push("--".into());
    }
    out.command.extend(
        paths
            .into_iter()
            .map(|p| if escape { regex_escape(&p) } else { p }),
    );
    if let Some(n) = names {
        out.command.push("-t".into());
        out.command.push(n);
    }
    Some(out)
}

/// A regex of the tests' names for the runner's name filter: vitest and jest match a test's
/// full name (its suites' names and its own, joined by spaces), node `--test` its own name
/// (`own_name`).
pub(crate) fn name_pattern(ids: &[String], own_name: bool) -> Option<String> {
    let names: Vec<String> = ids
        .iter()
        .filter_map(|id| {
            let parts: Vec<&str> = id.split(" > ").skip(1).collect();
            if parts.is_empty() {
                return None;
            }
            let name = if own_name {
                parts.last().map(|s| (*s).to_owned()).unwrap_or_default()
            } else {
                parts.join(" ")
            };
            Some(regex_escape(&name))
        })
        .collect();
    (!names.is_empty()).then(|| format!("^({})$", names.join("|")))
}

/// A package.json test script that is one runner call, so arguments reach that runner.
fn plain_runner_script(script: &str) -> bool {
    !script.contains(['&', '|', ';', '>', '<', '$', '`'])
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Where test `id` (`<file> > <suite> > <test>`) of a vitest, jest or node check is defined:
/// the line of its file that quotes its title. `jest`: the title may be the suites' titles and
/// the test's joined with spaces.
pub(crate) fn locate(
    at: &mut Locator<'_>,
    check: &Check,
    id: &str,
    jest: bool,
) -> (String, Option<u32>) {
    let parts: Vec<&str> = id.split(" > ").collect();
    let file = parts.first().copied().unwrap_or("");
    let (Some(title), true) = (parts.last(), parts.len() > 1) else {
        return (in_check(check, file), None);
    };
    let path = in_check(check, file);
    let mut find = |title: &str| {
        let quoted: Vec<String> = ['\'', '"', '`']
            .iter()
            .map(|q| format!("{q}{title}{q}"))
            .collect();
        at.line_of(&path, |l| quoted.iter().any(|q| l.contains(q.as_str())))
    };
    let mut line = find(title);
    // jest names a test inside `describe` blocks by their titles joined with spaces
    // (`ordinal first few numbers`): its own title is the longest suffix found.
    if line.is_none() && jest {
        line = title
            .match_indices(' ')
            .map(|(i, _)| &title[i + 1..])
            .filter(|t| t.len() >= 3)
            .find_map(&mut find);
    }
    (path, line)
}

/// The checks of the package scripts and of node's loose test files (see the module doc).
fn detect_family(root: &Path, scan: &Scan, checks: &mut Vec<Check>) {
    let is_pkg = |p: &Path| scan.has(p, "package.json");
    let mut loose: BTreeMap<PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for file in scan.tests(CheckKind::Node) {
        let parent = file.parent().unwrap_or(Path::new(""));
        let owner = innermost(parent, is_pkg).unwrap_or_default();
        loose.entry(owner).or_default().push(file);
    }
    let mut covered = BTreeSet::new();
    // Packages whose test script runs a runner that finds test files in every subdirectory
    // (vitest, jest): a workspace's packages without a script of their own are covered by it.
    let mut recursive: BTreeSet<PathBuf> = BTreeSet::new();
    for rel in scan.dirs.keys().filter(|p| is_pkg(p)) {
        let Some(check) = script_check(root, scan, rel) else {
            continue;
        };
        if super::runner(check.kind).searches_subpackages() {
            recursive.insert(rel.clone());
        }
        checks.push(check);
        covered.insert(rel.clone());
    }
    for (rel, files) in loose {
        let under_recursive = rel.ancestors().skip(1).any(|a| {
            recursive.contains(a) || (a.as_os_str().is_empty() && recursive.contains(Path::new("")))
        });
        if covered.contains(&rel) || under_recursive {
            continue;
        }
        let example = files
            .first()
            .map(|f| f.strip_prefix(&rel).unwrap_or(f).display().to_string())
            .unwrap_or_default();
        let where_ = if is_pkg(&rel) {
            "package.json has no test script"
        } else {
            "no package.json"
        };
        checks.push(make(root, &rel, CheckKind::Node, words(&["node", "--test"]),
            format!("{} file(s) match node's test patterns (e.g. {example}) and {where_}: node's built-in runner", files.len())));
    }
}

/// The check of the test script of the package at `rel`, if it has one.
fn script_check(root: &Path, scan: &Scan, rel: &Path) -> Option<Check> {
    let script = test_script(&root.join(rel).join("package.json"))?;
    let declared = innermost(rel, |p| {
        scan.has(p, "package.json")
            && declared_package_manager(&root.join(p).join("package.json")).is_some()
    })
    .and_then(|p| declared_package_manager(&root.join(p).join("package.json")));
    let locked = innermost(rel, |p| lockfile(scan.markers(p)).is_some())
        .and_then(|p| lockfile(scan.markers(&p)));
    let pm = declared.or(locked).unwrap_or("npm");
    let (kind, runner) = script_kind(&script);
    let mut check = make(
        root,
        rel,
        kind,
        vec![pm.to_owned(), "test".to_owned()],
        format!(
            "package.json in {} has scripts.test `{script}`, which {runner}; run as {pm} runs it",
            rel_str(rel)
        ),
    );
    check.script = Some(script);
    Some(check)
}

/// node 20's default patterns: `*.test.js`, `*-test.js`, `*_test.js`, `test-*.js`, `test.js`
/// (each also `.mjs`/`.cjs`) anywhere, and any such script below a `test/` directory.
fn is_js_test(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    let Some(stem) = [".js", ".mjs", ".cjs"]
        .iter()
        .find_map(|e| name.strip_suffix(e))
    else {
        return false;
    };
    stem == "test"
        || stem.ends_with(".test")
        || stem.ends_with("-test")
        || stem.ends_with("_test")
        || stem.starts_with("test-")
        || path
            .parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == "test"))
}

/// The package manager a directory's lockfiles name (`markers` in the walk's order): pnpm's
/// whenever it is there, else the first of yarn's, bun's and npm's.
fn lockfile(markers: &[&str]) -> Option<&'static str> {
    let mut found = None;
    for m in markers {
        match *m {
            "pnpm-lock.yaml" => found = Some("pnpm"),
            "yarn.lock" => found = found.or(Some("yarn")),
            "bun.lock" | "bun.lockb" => found = found.or(Some("bun")),
            "package-lock.json" | "npm-shrinkwrap.json" => found = found.or(Some("npm")),
            _ => {}
        }
    }
    found
}

/// The package manager a `package.json` declares in `packageManager` (`pnpm@9.1.0` → `pnpm`).
fn declared_package_manager(package_json: &Path) -> Option<&'static str> {
    let text = read_small(package_json)?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let pm = value.get("packageManager")?.as_str()?;
    let name = pm.split('@').next().unwrap_or(pm).trim();
    ["pnpm", "yarn", "npm", "bun"]
        .into_iter()
        .find(|p| *p == name)
}

/// `scripts.test` of a package.json, unless absent, empty or npm's placeholder.
fn test_script(package_json: &Path) -> Option<String> {
    let text = read_small(package_json)?;
    let value: serde_json::Value = serde_json::from_str(&text).ok()?;
    let script = value
        .get("scripts")?
        .get("test")?
        .as_str()?
        .trim()
        .to_owned();
    (!script.is_empty() && !script.contains(NPM_PLACEHOLDER)).then_some(script)
}

/// Which runner a test script invokes, and how to say so.
fn script_kind(script: &str) -> (CheckKind, &'static str) {
    let has_word = |w: &str| {
        script
            .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
            .any(|t| t == w)
    };
    if has_word("vitest") {
        (CheckKind::Vitest, "runs vitest")
    } else if has_word("jest") {
        (CheckKind::Jest, "runs jest")
    } else if has_word("node") && has_word("--test") {
        (CheckKind::Node, "runs node's built-in test runner")
    } else {
        (
            CheckKind::Npm,
            "runs another test runner (results from its summary lines)",
        )
    }
}
