//! Runner detection: which test suites a repository has, where each runs, and why it was chosen.
//!
//! One walk of the tree ([`loki_core::walk`], every file including ignored ones; depth ≤
//! [`MAX_DEPTH`], at most [`MAX_ENTRIES`] entries; dependency, build, virtualenv, test-data and
//! hidden directories skipped, symlinked directories not followed) collects the marker files of
//! each directory and the test files (`Scan`); then each runner plans its checks from it
//! (`Runner::detect`, one per package), and the checks are sorted by directory, then kind:
//! - **cargo**, **nextest**: `crate::runners::cargo` (nextest only where the project opts into
//!   it and it is installed, [`Tools`]; its doctests then run through `cargo test --doc`);
//! - **pytest**: `crate::runners::pytest` (the outermost Python project with tests, and its
//!   interpreter);
//! - **npm scripts** (vitest, jest, `node --test`, another runner) and plain **node --test**:
//!   `crate::runners::node` (the script decides the kind; it runs as the project's package
//!   manager would run it, [`crate::script`]);
//! - **go**: `crate::runners::go` (each `go.mod`);
//! - **maven**: `crate::runners::maven` (the topmost `pom.xml` of each subtree, offline).
//!
//! Every check's `why` says which files made it and which command was chosen.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::walk::{Kind, Skip, Visibility, Walk};
use loki_process::{self as process, Spec};
use serde::{Deserialize, Serialize};

use crate::ChecksError;
use crate::runners::runner;

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
/// Largest config file read while detecting (pyproject.toml, package.json, ...).
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

use loki_protocol::CheckKind;

use crate::runners::cargo::CARGO_MANIFEST;
pub use crate::runners::maven::MAVEN_TEST;
pub use crate::runners::pytest::use_checkout_envs;

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
    let tools = if scan.dirs.values().any(|m| m.contains(&CARGO_MANIFEST)) {
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

/// What one walk of the tree found, for the runners' detection.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Every directory with a file (relative, `""` for the root) and the marker files found in
    /// it (any runner's `Runner::markers`), in the walk's order (by name).
    pub(crate) dirs: BTreeMap<PathBuf, Vec<&'static str>>,
    /// Each runner's test files (`Runner::is_test_file`; a file is the first runner's that
    /// claims it), each package's own before its subdirectories'.
    tests: BTreeMap<CheckKind, Vec<PathBuf>>,
}

impl Scan {
    /// Whether directory `rel` holds a marker file named `marker`.
    pub(crate) fn has(&self, rel: &Path, marker: &str) -> bool {
        self.markers(rel).contains(&marker)
    }

    /// Whether directory `rel` holds any of the marker files `markers`.
    pub(crate) fn has_any(&self, rel: &Path, markers: &[&str]) -> bool {
        self.markers(rel).iter().any(|m| markers.contains(m))
    }

    /// The marker files of directory `rel`, in the walk's order.
    pub(crate) fn markers(&self, rel: &Path) -> &[&'static str] {
        self.dirs.get(rel).map_or(&[], Vec::as_slice)
    }

    /// The test files of `kind`'s runner.
    pub(crate) fn tests(&self, kind: CheckKind) -> &[PathBuf] {
        self.tests.get(&kind).map_or(&[], Vec::as_slice)
    }
}

fn scan(root: &Path) -> Result<Scan, ChecksError> {
    if !root.is_dir() {
        return Err(ChecksError::NotADir {
            root: root.to_path_buf(),
        });
    }
    let markers: Vec<&'static str> = CheckKind::ALL
        .iter()
        .flat_map(|k| runner(*k).markers())
        .copied()
        .collect();
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
        let found = scan.dirs.entry(dir).or_default();
        if let Some(marker) = markers.iter().find(|m| **m == name) {
            found.push(*marker);
        }
        if let Some(kind) = CheckKind::ALL
            .into_iter()
            .find(|k| runner(*k).is_test_file(&entry.rel, &name))
        {
            scan.tests.entry(kind).or_default().push(entry.rel);
        }
    }
    // A package's example test file (in `why`) is its first: its own files before those of its
    // subdirectories, as a reader of the tree would list them.
    for files in scan.tests.values_mut() {
        files.sort_by(|a, b| files_first(a, b));
    }
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

pub(crate) fn rel_str(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        rel.to_string_lossy().into_owned()
    }
}

/// A directory as the `why` texts name it.
pub(crate) fn place(rel: &Path) -> String {
    if rel.as_os_str().is_empty() {
        "the repository root".to_owned()
    } else {
        rel_str(rel)
    }
}

pub(crate) fn make(
    root: &Path,
    rel: &Path,
    kind: CheckKind,
    command: Vec<String>,
    why: String,
) -> Check {
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

pub(crate) fn words(ws: &[&str]) -> Vec<String> {
    ws.iter().map(|w| (*w).to_owned()).collect()
}

pub(crate) fn read_small(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_CONFIG_BYTES {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The outermost ancestor-or-self of `path` (a directory) for which `pred` holds.
pub(crate) fn outermost(path: &Path, pred: impl Fn(&Path) -> bool) -> Option<PathBuf> {
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
pub(crate) fn innermost(path: &Path, pred: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut cur = Some(path);
    while let Some(p) = cur {
        if pred(p) {
            return Some(p.to_path_buf());
        }
        cur = p.parent();
    }
    None
}

/// Every runner's checks in `scan`, in directory then kind order.
fn plan(root: &Path, scan: &Scan, tools: Tools) -> Vec<Check> {
    let mut checks = Vec::new();
    for kind in CheckKind::ALL {
        runner(kind).detect(root, scan, tools, &mut checks);
    }
    checks.sort_by(|a, b| (a.dir.as_str(), a.kind).cmp(&(b.dir.as_str(), b.kind)));
    checks
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

/// Whether the runner of `kind` runs the file at `path` (repository-relative) as a test file by
/// its default patterns: a test-side file it does not run is a helper of the test files it
/// serves (a setup file, `conftest.py`, `tests/common/mod.rs`).
#[must_use]
pub fn runs_as_test_file(kind: CheckKind, path: &str) -> bool {
    runner(kind).runs_as_test_file(path)
}

/// The kinds of suite a helper written in the language of `path` can serve: the runners whose
/// sources have its extension, else those that load a language no runner names.
#[must_use]
pub fn kinds_for_helper(path: &str) -> Vec<CheckKind> {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let named: Vec<CheckKind> = CheckKind::ALL
        .into_iter()
        .filter(|k| runner(*k).source_extensions().contains(&ext))
        .collect();
    if !named.is_empty() {
        return named;
    }
    CheckKind::ALL
        .into_iter()
        .filter(|k| runner(*k).loads_other_sources())
        .collect()
}
