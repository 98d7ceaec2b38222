//! Runner detection: which test suites a repository has, where each runs, and why it was chosen.
//!
//! One walk of the tree ([`loki_core::walk`], every file including ignored ones; depth ≤
//! [`MAX_DEPTH`], at most [`MAX_ENTRIES`] entries; dependency, build, virtualenv, test-data and
//! hidden directories skipped, symlinked directories not followed) collects
//! the marker files, then one check is planned per package:
//! - **cargo**: the topmost directory with a `Cargo.toml` in each subtree (a workspace root covers
//!   its members; `--workspace` runs them all). `cargo test` unless the project opts into nextest
//!   (a `.config/nextest.toml`, or `cargo nextest` in its CI workflows, Makefile or justfile) and
//!   `cargo nextest --version` works: nextest runs each test in its own process, which can expose
//!   races `cargo test` never shows, so it is used only where the project's own verdict comes
//!   from it (its doctests then run through `cargo test --doc`, see [`crate::exec`]). Always
//!   `--no-fail-fast`.
//! - **pytest**: the outermost Python project (`pyproject.toml`, `setup.py`, `setup.cfg`,
//!   `pytest.ini`, `tox.ini`) that holds test files (`test_*.py`, `*_test.py`, `conftest.py`) or
//!   configures pytest; test files outside any project make a check at the root. The interpreter is
//!   the project's (then the root's) `.venv/bin/python` or `venv/bin/python`, else `python3`.
//! - **npm scripts**: each `package.json` whose `scripts.test` is not npm's placeholder; the script
//!   decides the kind (vitest, jest, `node --test`, or another runner). The package manager is the
//!   one the project declares: `packageManager` in the nearest `package.json` that has it, else
//!   the nearest lockfile (`pnpm-lock.yaml`, `yarn.lock`, `bun.lock`/`bun.lockb`,
//!   `package-lock.json`), else npm. The script runs as that package manager would run it
//!   ([`crate::script`]), so it does not need to be installed unless the script calls it.
//! - **node --test**: a package without a test script (or loose files without a `package.json`)
//!   whose files match node's default test patterns.
//! - **go**: each directory with a `go.mod` (`./...` does not cross into nested modules).
//! - **maven**: the topmost directory with a `pom.xml` in each subtree (a parent project runs its
//!   modules): `mvn --batch-mode --offline --quiet test`, JUnit (5) through Surefire, per-test
//!   results from its XML reports ([`crate::exec`] reads `target/surefire-reports`). Offline: the
//!   plugins and dependencies come from the local repository, never from the network.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::walk::{Kind, Skip, Visibility, Walk};
use loki_process::{self as process, Spec};
use serde::{Deserialize, Serialize};

use crate::ChecksError;

/// Deepest directory level searched; real packages sit far shallower, and the cap bounds the walk.
pub const MAX_DEPTH: usize = 8;
/// Most directory entries visited; a bound for pathological trees (a checked-in dependency cache).
pub const MAX_ENTRIES: usize = 200_000;
/// Directories never searched: dependencies and build output, test data (a `testdata/Cargo.toml`
/// or `fixtures/app/package.json` is an input of the tests, not a package; the go tool ignores
/// `testdata` by the same convention) and hidden directories (tool caches, `.venv`): the lists
/// are [`loki_core::walk`]'s. Ignored files are seen: a runner loads them too.
const SKIP: Skip = Skip {
    dependencies: true,
    test_data: true,
    hidden_dirs: true,
};
/// How long `cargo nextest --version` may take before nextest counts as absent.
const PROBE_TIMEOUT: Duration = Duration::from_secs(30);
/// The Maven check's command: non-interactive, offline (the local repository has what the
/// project needs, or the check is not run), quiet (Surefire's reports carry the results).
pub const MAVEN_TEST: [&str; 5] = ["mvn", "--batch-mode", "--offline", "--quiet", "test"];
/// Largest config file read while detecting (pyproject.toml, package.json, ...).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;
/// Files that make a directory a Python project.
const PY_PROJECT_FILES: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "pytest.ini",
    "tox.ini",
];
/// npm's placeholder script, which is not a test suite.
const NPM_PLACEHOLDER: &str = "no test specified";

use loki_protocol::CheckKind;

/// One test suite to run: what, where, and why loki chose it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Unique within a repository: the kind, plus `:<dir>` below the root (`pytest:services/api`).
    pub name: String,
    pub kind: CheckKind,
    /// The package directory relative to the repository root (`.` for the root).
    pub dir: String,
    /// The absolute directory the command runs in.
    pub cwd: PathBuf,
    /// The command as a user would type it; structured-report flags are added when it runs.
    pub command: Vec<String>,
    /// The `package.json` test script, for checks run through a package manager.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Why this runner and command were chosen, in words.
    pub why: String,
}

impl Check {
    /// The same check in another checkout of the repository (a base worktree).
    #[must_use]
    pub fn at_root(&self, root: &Path) -> Check {
        Check {
            cwd: if self.dir == "." {
                root.to_path_buf()
            } else {
                root.join(&self.dir)
            },
            ..self.clone()
        }
    }

    /// The command as one line.
    #[must_use]
    pub fn command_line(&self) -> String {
        self.command
            .iter()
            .map(|a| process::shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Installed tools that change which command is chosen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tools {
    /// `cargo nextest --version` exits 0.
    pub nextest: bool,
}

impl Tools {
    /// Asks the machine (runs `cargo nextest --version` in `cwd` with a scrubbed environment).
    #[must_use]
    pub fn probe(cwd: &Path) -> Tools {
        let spec = Spec::new("cargo", cwd)
            .args(["nextest", "--version"])
            .envs(process::scrubbed_env())
            .timeout(PROBE_TIMEOUT);
        Tools {
            nextest: process::run(&spec).is_ok_and(|o| o.success()),
        }
    }
}

/// Detects the checks of the repository at `root`, probing for nextest when there is Rust code.
pub fn detect(root: &Path) -> Result<Vec<Check>, ChecksError> {
    let scan = scan(root)?;
    let tools = if scan.dirs.values().any(|d| d.cargo) {
        Tools::probe(root)
    } else {
        Tools::default()
    };
    Ok(plan(root, &scan, tools))
}

/// [`detect`] with the tools given instead of probed (deterministic, for tests).
pub fn detect_with(root: &Path, tools: Tools) -> Result<Vec<Check>, ChecksError> {
    Ok(plan(root, &scan(root)?, tools))
}

/// Marker files found in one directory.
#[derive(Debug, Default)]
struct DirInfo {
    cargo: bool,
    go_mod: bool,
    pom: bool,
    package_json: bool,
    py_project: bool,
    lockfile: Option<&'static str>,
}

#[derive(Debug, Default)]
struct Scan {
    dirs: BTreeMap<PathBuf, DirInfo>,
    py_tests: Vec<PathBuf>,
    js_tests: Vec<PathBuf>,
}

fn scan(root: &Path) -> Result<Scan, ChecksError> {
    if !root.is_dir() {
        return Err(ChecksError::NotADir {
            root: root.to_path_buf(),
        });
    }
    let mut scan = Scan::default();
    // Depth counts entries below the root, so the files of a directory at MAX_DEPTH are seen.
    let files = Walk::new(root, Visibility::Everything)
        .skip(SKIP)
        .max_depth(MAX_DEPTH + 1)
        .max_entries(MAX_ENTRIES)
        .files();
    for entry in files {
        // Files and symlinks to files (a symlinked test file is still a test file).
        if entry.kind == Kind::Symlink && entry.path.is_dir() {
            continue;
        }
        let Some(name) = entry
            .rel
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
        else {
            continue;
        };
        let dir = entry.rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let info = scan.dirs.entry(dir).or_default();
        match name.as_str() {
            "Cargo.toml" => info.cargo = true,
            "go.mod" => info.go_mod = true,
            "pom.xml" => info.pom = true,
            "package.json" => info.package_json = true,
            "pnpm-lock.yaml" => info.lockfile = Some("pnpm"),
            "yarn.lock" => info.lockfile = info.lockfile.or(Some("yarn")),
            "bun.lock" | "bun.lockb" => info.lockfile = info.lockfile.or(Some("bun")),
            "package-lock.json" | "npm-shrinkwrap.json" => {
                info.lockfile = info.lockfile.or(Some("npm"));
            }
            n if PY_PROJECT_FILES.contains(&n) => info.py_project = true,
            _ => {}
        }
        if is_py_test(&name) {
            scan.py_tests.push(entry.rel);
        } else if is_js_test(&entry.rel) {
            scan.js_tests.push(entry.rel);
        }
    }
    // A package's example test file (in `why`) is its first: its own files before those of its
    // subdirectories, as a reader of the tree would list them.
    scan.py_tests.sort_by(|a, b| files_first(a, b));
    scan.js_tests.sort_by(|a, b| files_first(a, b));
    Ok(scan)
}

/// Directory by directory in name order, a directory's files before its subdirectories'.
fn files_first(a: &Path, b: &Path) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let empty = Path::new("");
    let mut da = a.parent().unwrap_or(empty).components();
    let mut db = b.parent().unwrap_or(empty).components();
    loop {
        match (da.next(), db.next()) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => return x.cmp(&y),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (None, None) => return a.file_name().cmp(&b.file_name()),
        }
    }
}

fn is_py_test(name: &str) -> bool {
    name == "conftest.py"
        || name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py"))
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

fn rel_str(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        rel.to_string_lossy().into_owned()
    }
}

/// A directory as the `why` texts name it.
fn place(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        "the repository root".to_owned()
    } else {
        rel_str(rel)
    }
}

fn make(root: &Path, rel: &Path, kind: CheckKind, command: Vec<String>, why: String) -> Check {
    let dir = rel_str(rel);
    let name = if dir == "." {
        kind.as_str().to_owned()
    } else {
        format!("{}:{dir}", kind.as_str())
    };
    Check {
        name,
        kind,
        dir,
        // `root.join("")` would end in `/`, and runners print paths without it.
        cwd: if rel.as_os_str().is_empty() {
            root.to_path_buf()
        } else {
            root.join(rel)
        },
        command,
        script: None,
        why,
    }
}

fn words(ws: &[&str]) -> Vec<String> {
    ws.iter().map(|w| (*w).to_owned()).collect()
}

fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_CONFIG_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The outermost ancestor-or-self of `path` (a directory) for which `pred` holds.
fn outermost(path: &Path, pred: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut found = None;
    let mut cur = Some(path);
    while let Some(p) = cur {
        if pred(p) {
            found = Some(p.to_path_buf());
        }
        cur = p.parent();
    }
    found
}

/// The innermost ancestor-or-self of `path` for which `pred` holds.
fn innermost(path: &Path, pred: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut cur = Some(path);
    while let Some(p) = cur {
        if pred(p) {
            return Some(p.to_path_buf());
        }
        cur = p.parent();
    }
    None
}

fn plan(root: &Path, scan: &Scan, tools: Tools) -> Vec<Check> {
    let has = |p: &Path, f: fn(&DirInfo) -> bool| scan.dirs.get(p).is_some_and(f);
    let mut checks = Vec::new();

    for rel in scan.dirs.keys() {
        if has(rel, |d| d.cargo) && outermost(rel, |p| has(p, |d| d.cargo)).as_deref() == Some(rel)
        {
            let opted = opts_into_nextest(root, &root.join(rel));
            let (kind, cmd, how) = match (opted, tools.nextest) {
                (true, true) => (
                    CheckKind::Nextest,
                    words(&["cargo", "nextest", "run", "--workspace", "--no-fail-fast"]),
                    "the project uses cargo-nextest, so nextest runs it (per-test results from its JUnit report; doctests through `cargo test --doc`)",
                ),
                (true, false) => (
                    CheckKind::Cargo,
                    words(&["cargo", "test", "--workspace", "--no-fail-fast"]),
                    "the project uses cargo-nextest, which is not installed here, so `cargo test` runs the same tests (per-test results from its output)",
                ),
                (false, _) => (
                    CheckKind::Cargo,
                    words(&["cargo", "test", "--workspace", "--no-fail-fast"]),
                    "`cargo test` runs it, as the project does (per-test results from its output)",
                ),
            };
            checks.push(make(
                root,
                rel,
                kind,
                cmd,
                format!("Cargo.toml in {}; {how}", place(rel)),
            ));
        }
        if has(rel, |d| d.go_mod) {
            checks.push(make(root, rel, CheckKind::Go, words(&["go", "test", "-json", "./..."]),
                format!("go.mod in {}: `go test` over every package of the module, with -json per-test events", place(rel))));
        }
        if has(rel, |d| d.pom) && outermost(rel, |p| has(p, |d| d.pom)).as_deref() == Some(rel) {
            checks.push(make(root, rel, CheckKind::Maven, words(&MAVEN_TEST),
                format!("pom.xml in {}: `mvn test` runs the project's tests through Surefire, offline, with per-test XML reports", place(rel))));
        }
    }

    plan_python(root, scan, &mut checks);
    plan_node(root, scan, &mut checks);
    checks.sort_by(|a, b| (a.dir.as_str(), a.kind).cmp(&(b.dir.as_str(), b.kind)));
    checks
}

fn plan_python(root: &Path, scan: &Scan, checks: &mut Vec<Check>) {
    let is_project = |p: &Path| scan.dirs.get(p).is_some_and(|d| d.py_project);
    // dir → (reason kind, example)
    let mut dirs: BTreeMap<PathBuf, String> = BTreeMap::new();
    for rel in scan.dirs.keys().filter(|p| is_project(p)) {
        let top = outermost(rel, is_project).unwrap_or_default();
        if top == *rel
            && let Some(cfg) = pytest_config(&root.join(rel))
        {
            dirs.insert(top, format!("pytest is configured in {cfg}"));
        }
    }
    for file in &scan.py_tests {
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
        checks.push(make(
            root,
            &rel,
            CheckKind::Pytest,
            vec![python, "-m".into(), "pytest".into()],
            format!("{reason}; interpreter: {which}"),
        ));
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

fn plan_node(root: &Path, scan: &Scan, checks: &mut Vec<Check>) {
    let is_pkg = |p: &Path| scan.dirs.get(p).is_some_and(|d| d.package_json);
    let mut loose: BTreeMap<PathBuf, Vec<&PathBuf>> = BTreeMap::new();
    for file in &scan.js_tests {
        let parent = file.parent().unwrap_or(Path::new(""));
        let owner = innermost(parent, is_pkg).unwrap_or_default();
        loose.entry(owner).or_default().push(file);
    }
    let mut covered = BTreeSet::new();
    // Packages whose test script runs a runner that finds test files in every subdirectory
    // (vitest, jest): a workspace's packages without a script of their own are covered by it.
    let mut recursive: BTreeSet<PathBuf> = BTreeSet::new();
    for rel in scan.dirs.keys().filter(|p| is_pkg(p)) {
        let Some(script) = test_script(&root.join(rel).join("package.json")) else {
            continue;
        };
        let declared = innermost(rel, |p| {
            scan.dirs.get(p).is_some_and(|d| d.package_json)
                && declared_package_manager(&root.join(p).join("package.json")).is_some()
        })
        .and_then(|p| declared_package_manager(&root.join(p).join("package.json")));
        let locked = innermost(rel, |p| {
            scan.dirs.get(p).is_some_and(|d| d.lockfile.is_some())
        })
        .and_then(|p| scan.dirs.get(&p).and_then(|d| d.lockfile));
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
        if matches!(kind, CheckKind::Vitest | CheckKind::Jest) {
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

/// Whether the cargo project at `dir` (within `root`) opts into nextest: a nextest config, or
/// `cargo nextest` in the repository's CI workflows, Makefile or justfile.
fn opts_into_nextest(root: &Path, dir: &Path) -> bool {
    if dir.join(".config/nextest.toml").is_file() || root.join(".config/nextest.toml").is_file() {
        return true;
    }
    let mentions = |p: &Path| read_small(p).is_some_and(|t| t.contains("cargo nextest"));
    let mut files = vec![
        root.join("Makefile"),
        root.join("justfile"),
        root.join("Justfile"),
        dir.join("Makefile"),
        dir.join("justfile"),
        root.join(".gitlab-ci.yml"),
        root.join(".cargo/config.toml"),
    ];
    if let Ok(entries) = std::fs::read_dir(root.join(".github/workflows")) {
        files.extend(entries.flatten().map(|e| e.path()));
    }
    files.iter().any(|f| mentions(f))
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

/// The checks a repository path belongs to: those with the deepest directory containing it.
#[must_use]
pub fn checks_for<'a>(checks: &'a [Check], path: &str) -> Vec<&'a Check> {
    let contains = |c: &Check| c.dir == "." || path.starts_with(&format!("{}/", c.dir));
    let depth = |c: &Check| {
        if c.dir == "." {
            0
        } else {
            c.dir.split('/').count()
        }
    };
    let best = checks.iter().filter(|c| contains(c)).map(depth).max();
    checks
        .iter()
        .filter(|c| contains(c) && Some(depth(c)) == best)
        .collect()
}

/// The text `loki checks detect` prints.
#[must_use]
pub fn render_detect(checks: &[Check]) -> String {
    if checks.is_empty() {
        return "No test suites found (looked for Cargo.toml, pytest projects and test_*.py, \
                package.json test scripts, node test files and go.mod).\n"
            .to_owned();
    }
    let mut out = format!(
        "{} check{} found:\n",
        checks.len(),
        if checks.len() == 1 { "" } else { "s" }
    );
    for c in checks {
        out.push_str(&format!(
            "\n  {}\n    in:   {}\n    run:  {}\n    why:  {}\n",
            c.name,
            c.dir,
            c.command_line(),
            c.why
        ));
    }
    out
}
