//! Isolation of a run in another tree: the base, or a hybrid, must execute *that tree's* code even
//! when the environment points at the user's checkout.
//!
//! The judge runs the same checks on several trees (base, head, and the hybrids), each exported into
//! its own temporary directory. A tree has only the tracked files; what it needs beyond them (the
//! virtualenv, `node_modules`, build caches) is the checkout's, and each of those can quietly point
//! back at the checkout's code: the base run then tests the head's code, a regression passes at base
//! too, and its failure is called pre-existing. [`prepare`] returns what a run in `tree` needs
//! ([`Prepared::env`], files inside `tree` or a private temporary directory, never in the checkout)
//! so that it imports `tree`'s code, and [`Prepared::leaks`] reads, after the run, the evidence of
//! any module that was loaded from the checkout anyway.
//!
//! # Contract
//! - `prepare(checkout, tree, checks, role, env, cache_dir)`: `tree` holds another revision of the
//!   repository whose checkout is `checkout`; `checks` are the checks that will run there (only
//!   their `kind` and `dir` are read); `env` is the environment those runs start from
//!   ([`crate::RunOptions::env`]); `role` names the tree (`"head"`, `"base"`, `"original"`, ...).
//! - When `tree` and `checkout` are the same directory, nothing is done (an empty [`Prepared`]).
//! - The caller adds [`Prepared::env`] to the run's environment ([`Prepared::apply`] does it) and
//!   keeps the `Prepared` alive until the runs in `tree` are over: dropping it removes the private
//!   directory and releases the build directory of its role.
//! - Errors name the path and what could not be done with it ([`ChecksError::Isolate`]). A risk
//!   that cannot be removed is a note ([`Prepared::notes`]), for the judge's NOT PROVEN list.
//!
//! # Python (pytest checks)
//! The checkout's virtualenv (used by absolute path, see [`crate::detect::use_checkout_envs`]) may
//! hold an editable install of the project: setuptools' `__editable__.*.pth` with a path (compat
//! mode, src layout) or an `__editable___*_finder` module whose `MAPPING` and `NAMESPACES` name
//! checkout directories (flat layout), a `.pth` into a link tree under `build/` (strict mode),
//! `easy-install.pth` and an `.egg-link` (legacy `setup.py develop`), hatchling's, pdm's and
//! poetry's `.pth` files, or the `editables` finder. All of them put checkout paths into
//! `sys.path` or into a finder's table. `PYTHONPATH` gets a private directory first whose
//! `sitecustomize.py` (imported by `site` after every `.pth` file ran) then:
//! - replaces each `sys.path` entry inside the checkout with the same path inside the tree; an entry
//!   that exists only in the checkout is dropped, except a link tree (strict mode), whose modules
//!   are served from the tree's copies of the files the links point at; the project's metadata
//!   (`*.egg-info`, `*.dist-info` beside the sources) stays findable by `importlib.metadata`;
//! - rewrites every checkout path in the tables of the non-stdlib finders on `sys.meta_path` (their
//!   module's globals, their class and instance attributes);
//! - forgets modules already imported from the checkout, so they are imported again from the tree;
//! - leaves alone the interpreter's own directories, even inside the checkout (`.venv`);
//! - runs the `sitecustomize` it displaced, if any;
//! - at exit, writes the modules whose `__file__` (or `__path__`) still lies in the checkout, the
//!   entries it moved and dropped, and any error, to `py-<pid>.json` in the private evidence
//!   directory ([`Prepared::leaks`], [`Prepared::run_notes`]).
//!
//! An interpreter started with `-S` or `-I`, or with `PYTHONPATH` removed, bypasses this and leaves
//! no evidence file ([`Prepared::recorded_processes`] counts the processes that left one).
//!
//! # JavaScript (vitest, jest, node --test, npm scripts)
//! For every directory of the tree whose counterpart in the checkout has a `node_modules` (the root
//! and each workspace package), the tree gets its own `node_modules` directory whose entries are
//! symlinks to the checkout's entries, except links that resolve into the checkout outside any
//! `node_modules` (npm/yarn/pnpm workspace packages such as `node_modules/@scope/pkg ->
//! ../../packages/pkg`, pnpm's `.pnpm/*/node_modules/*` links to them, `.bin` entries running them):
//! those point at the same path inside the tree. Directories on the way to such a link (`@scope`,
//! `.pnpm`, nested `node_modules`) are real directories in the tree, and so is every `.bin` (bin
//! shims run `$basedir/../pkg`, and `..` of a symlinked directory is the checkout's). A workspace link below
//! an installed package (a dependency that depends on a workspace package) is a note: node loads the
//! dependency from its real path in the checkout and resolves its own imports from there.
//! `NODE_OPTIONS` gets `--require` of a preload that changes nothing and, at exit, records the
//! CommonJS modules (and, through `module.register`, the ES modules) loaded from the checkout
//! outside `node_modules`, to `node-<pid>.json` and `node-esm-<pid>.txt` in the evidence directory.
//! Runners that load modules through their own module system (vitest's, jest's) are not seen by it.
//!
//! # Cargo (cargo test, nextest)
//! Cargo's fingerprint of a workspace member does not depend on where the workspace lies (its paths
//! are relative to the workspace root) and says "fresh" when no source file is newer than the last
//! build's output. So a build of one tree in a shared `CARGO_TARGET_DIR` is reused for another tree
//! whose files are older, whatever their content: the base's test binary would stand in for the
//! head's. For every role except `"head"`, `CARGO_TARGET_DIR` is set to
//! `<cache_dir>/target/<repo-key>/<role>` (repo-key: 16 hex digits of the sha256 of the checkout's
//! canonical path), created on demand, so dependencies stay compiled between runs of that role and
//! nothing is shared with the head. To make every workspace member of the tree rebuild there:
//! - the directory is locked (`.loki-lock`) for the life of the `Prepared`; a concurrent run of the
//!   same role takes the next free slot (`<role>.1`, ... up to [`CARGO_SLOTS`]), or waits for the
//!   last one;
//! - on drop, `.loki-built` is written: every output in the directory is older than it. At prepare,
//!   any file of the tree not newer than `.loki-built` (a tree written with preserved or old mtimes)
//!   has its mtime set to now, so it is newer than every output of an earlier run.
//! - a tree known exactly by its content ([`Content::Exact`]: a git tree id, the tree written by
//!   loki and run in by the base's code only) instead gets one modification time for all its
//!   files, recorded in `.loki-tree` (`<tree id> <seconds> <nanoseconds>`, written before anything
//!   is built from the tree): the time the directory's last tree was prepared when that tree had
//!   the same content, else now. So the outputs built from the same content since then are fresh
//!   (a rerun on the base in the next judgement does not rebuild it), and every output built
//!   before that time, from whatever tree, is older than every file and rebuilt.
//! - a kept tree where the agent's code ran ([`Content::Synced`]: a hybrid's) cannot have its
//!   times set back: that code could have left outputs of other content, built after the record,
//!   behind a source it then restored. Its sync wrote, with the time of now, every file whose
//!   content differed from the tree's; the files that differ between the recorded tree and this
//!   one are made newer too. Every other file has the content the directory's last tree had, so
//!   what was built from it stands: a change to one crate of a workspace, or to one test file,
//!   rebuilds what depends on it, not every member. The record is the tree id and the time now.
//!   The agent's tests could also write into the build directory itself: a test binary that
//!   passes everything, with a fingerprint that matches the next tree, planted for a test file
//!   the next judgement does not change. So such a directory is guarded: each run builds on its
//!   own first (`cargo test --no-run`, [`Prepared::cargo_guarded`]), then the end of the build
//!   is stamped in `<slot>.built` beside the directory, where the fenced runs cannot write
//!   ([`Prepared::cargo_built`]), and only then do the tests run. At the next prepare, an entry
//!   of the directory whose change time (which no process can set back) is later than the stamp,
//!   or a missing stamp, empties the directory (its lock kept): everything is built again.
//!   cargo's own bookkeeping (`.rustc_info.json`, `CACHEDIR.TAG`, `.cargo-lock`), `tmp/` (the
//!   tests' `CARGO_TARGET_TMPDIR`) and loki's `.loki-built` and `.loki-lock` are not looked at.
//!   The build's own code (build scripts, procedural macros) runs before the stamp and is not
//!   told apart from the build.
//! - a tree of unknown content removes the record.
//!
//! Path dependencies inside the repository resolve inside the tree when they are relative. A path
//! dependency (or `[patch]`) that is absolute into the checkout, or leads outside the repository, is
//! a note: the run in the tree builds that copy, the same one the head builds.
//!
//! # Go (go test)
//! Module-relative `replace` directives need nothing. A `go.work` of the tree whose `use` or
//! `replace` paths are absolute into the checkout is rewritten to the tree's paths; a `go.work`
//! that exists only in the checkout (it is usually not committed) is copied into the tree (with
//! `go.work.sum`), rewritten the same way. `GOWORK` pointing into the checkout is pointed at the
//! tree's copy. Paths that lead outside the repository (in `go.work`, in a `go.mod` `replace`),
//! absolute `go.mod` replaces into the checkout, and a `GOFLAGS` that names the checkout are notes.
//!
//! # Evidence
//! The evidence files are written by processes that run the code under test, which could forge or
//! remove them: a leak found is evidence, no leak found is not proof. The caller must let the run
//! write to [`Prepared::evidence_dir`] (a confined run that cannot write there records nothing).
//!
//! # The runners' parts
//! Which of the sections above a check needs is its runner's answer (`Runner::isolation`:
//! `Isolation`). The parts that serve one runner family live with it, in `crate::runners`:
//! - `runners::node::isolate`: the tree's own `node_modules` directories of links (JavaScript);
//! - `runners::cargo::isolate`: the build directory slot of a role, and the path dependencies
//!   outside the tree;
//! - `runners::go::isolate`: `go.work` copied or rewritten into the tree, and its paths outside it.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::ChecksError;
use crate::detect::Check;
use crate::runners::cargo::isolate as cargo;
use crate::runners::go::isolate as go;
use crate::runners::node::isolate as node;
use crate::runners::runner;
use cargo::{cargo_notes, cargo_slot};
use go::go;
use node::link_node_modules;

/// A hybrid run in the head's own directory through Go's `-overlay`, and the `GOFLAGS` of Go
/// runs in a tree: Go's own ([`crate::runners::go`]).
pub use crate::runners::go::overlay;

/// The role whose cargo builds go where the environment says (the user's own target directory).
pub const HEAD_ROLE: &str = "head";
/// Build directories per role and repository that concurrent runs can use before one waits.
pub const CARGO_SLOTS: usize = 4;
/// Deepest directory level searched for `node_modules`, `Cargo.toml` and `go.work` (as detection).
const MAX_DEPTH: usize = 8;
/// Most directory entries one walk visits; a bound for pathological trees.
pub(crate) const MAX_ENTRIES: usize = 200_000;
/// Most `node_modules` entries scanned for workspace links per `node_modules` directory.
pub(crate) const MAX_NM_ENTRIES: usize = 200_000;
/// Directories never searched in the tree: build output and dependencies.
const SKIP_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
];
/// Hex digits of the repository key in a build directory's path.
const REPO_KEY_LEN: usize = 16;
pub(crate) const LOCK_FILE: &str = ".loki-lock";
pub(crate) const BUILT_STAMP: &str = ".loki-built";
pub(crate) const TREE_RECORD: &str = ".loki-tree";
const CONFIG_FILE: &str = "loki_isolate.json";
const SITECUSTOMIZE: &str = include_str!("sitecustomize.py");
const NODE_PRELOAD: &str = include_str!("node_evidence.cjs");
const NODE_HOOKS: &str = include_str!("node_evidence_hooks.mjs");

/// What a runner's run in another tree needs (`crate::runners`' `Runner::isolation`); each
/// is a section of the module doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isolation {
    /// Nothing (the runner imports nothing from outside the tree).
    Nothing,
    /// The `sitecustomize` that moves `sys.path` and the finders' tables into the tree.
    Python,
    /// The tree's own `node_modules`, and the evidence preload.
    JavaScript,
    /// A build directory of the role's own (not for the head).
    Cargo,
    /// `go.work` in the tree.
    Go,
}

/// What a run in another tree needs; see the module doc. Keep it alive while the runs last.
#[derive(Debug, Default)]
pub struct Prepared {
    pub(crate) env: Vec<(OsString, OsString)>,
    pub(crate) notes: Vec<String>,
    pub(crate) created: Vec<PathBuf>,
    pub(crate) private: Option<loki_core::scratch::Scratch>,
    pub(crate) cargo: Option<CargoSlot>,
}

/// A locked build directory of one role; writes the "built" stamp when released.
#[derive(Debug)]
pub(crate) struct CargoSlot {
    pub(crate) dir: PathBuf,
    /// Where [`Prepared::cargo_built`] stamps the end of the build: beside the directory, out of
    /// the runs' reach.
    pub(crate) built: PathBuf,
    /// The directory is guarded: runs build on their own first, then the stamp is written.
    pub(crate) guarded: bool,
    pub(crate) _lock: loki_core::fs::FileLock,
}

impl Drop for CargoSlot {
    fn drop(&mut self) {
        // A failed stamp only costs freshness for the next run, which then bumps fewer files; the
        // lock is released with the file handle right after.
        let _ = loki_core::fs::write_atomic(&self.dir.join(BUILT_STAMP), b"");
    }
}

impl Prepared {
    /// Variables to set in the run's environment (each replaces the variable of the same name).
    #[must_use]
    pub fn env(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    /// `env` with [`Prepared::env`] applied.
    #[must_use]
    pub fn apply(&self, mut env: Vec<(OsString, OsString)>) -> Vec<(OsString, OsString)> {
        for (name, value) in &self.env {
            env.retain(|(n, _)| n != name);
            env.push((name.clone(), value.clone()));
        }
        env
    }

    /// What could not be made to run the tree's code, in words (for NOT PROVEN).
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Files and directories created inside the tree (left there; the tree is temporary).
    #[must_use]
    pub fn created(&self) -> &[PathBuf] {
        &self.created
    }

    /// The build directory cargo uses for this role, when it is not the environment's.
    #[must_use]
    pub fn cargo_target_dir(&self) -> Option<&Path> {
        self.cargo.as_ref().map(|c| c.dir.as_path())
    }

    /// Whether the build directory is guarded ([`Content::Synced`]): each cargo run must build
    /// on its own first (`cargo test --no-run`), then call [`Prepared::cargo_built`], then run.
    #[must_use]
    pub fn cargo_guarded(&self) -> bool {
        self.cargo.as_ref().is_some_and(|c| c.guarded)
    }

    /// Stamps the end of a build in the guarded build directory: whatever in it changes after
    /// this was written by the tests, and the next prepare empties the directory.
    ///
    /// # Errors
    /// The stamp could not be written; the next prepare then empties the directory.
    pub fn cargo_built(&self) -> Result<(), ChecksError> {
        let Some(slot) = self.cargo.as_ref().filter(|c| c.guarded) else {
            return Ok(());
        };
        loki_core::fs::write_atomic(&slot.built, b"").map_err(|e| ChecksError::Isolate {
            action: "write",
            path: slot.built.clone(),
            source: Box::new(e),
        })
    }

    /// Where the runs write their evidence; `None` when no Python or JS check needed it.
    #[must_use]
    pub fn evidence_dir(&self) -> Option<PathBuf> {
        self.private.as_ref().map(|p| p.path().join("evidence"))
    }

    /// After a run in the tree: the files of modules that were loaded from the checkout anyway
    /// (Python modules outside the interpreter's own directories, JS modules outside
    /// `node_modules`), sorted, each once. Empty is not proof (see the module doc).
    #[must_use]
    pub fn leaks(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for (name, text) in self.evidence_files() {
            if name.ends_with(".txt") {
                out.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_owned));
            } else if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
                out.extend(strings(&v["leaks"]));
            }
        }
        out.into_iter().collect()
    }

    /// How many processes wrote evidence so far (each Python interpreter and node process of the
    /// runs in the tree). Zero after a Python or JS run means the hooks never ran there (an
    /// interpreter started with `-S` or `-I`, a confined run that could not write the evidence).
    #[must_use]
    pub fn recorded_processes(&self) -> usize {
        self.evidence_files()
            .iter()
            .filter(|(name, _)| name.ends_with(".json"))
            .count()
    }

    /// After a run: what the Python redirect reported (checkout-only `sys.path` entries it dropped,
    /// an error that stopped it), sorted, each once.
    #[must_use]
    pub fn run_notes(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for (name, text) in self.evidence_files() {
            if !name.starts_with("py-") {
                continue;
            }
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            for d in strings(&v["dropped"]) {
                out.insert(format!(
                    "the Python path entry {d} exists only in the checkout and was left out of the run"
                ));
            }
            if let Some(e) = v["error"].as_str() {
                out.insert(format!(
                    "redirecting Python imports to the tree failed ({e}): the run may have imported the checkout's code"
                ));
            }
        }
        out.into_iter().collect()
    }

    fn evidence_files(&self) -> Vec<(String, String)> {
        let Some(dir) = self.evidence_dir() else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.ends_with(".tmp") {
                    return None;
                }
                std::fs::read_to_string(e.path()).ok().map(|t| (name, t))
            })
            .collect()
    }
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> ChecksError {
    let path = path.to_path_buf();
    move |e| ChecksError::Isolate {
        action,
        path,
        source: Box::new(e),
    }
}

pub(crate) fn write_file(path: &Path, body: &[u8]) -> Result<(), ChecksError> {
    loki_core::fs::write_atomic(path, body).map_err(|e| ChecksError::Isolate {
        action: "write",
        path: path.to_path_buf(),
        source: Box::new(e),
    })
}

pub(crate) fn create_dir(path: &Path) -> Result<(), ChecksError> {
    std::fs::create_dir_all(path).map_err(io_err("create the directory", path))
}

pub(crate) fn symlink(target: &Path, link: &Path) -> Result<(), ChecksError> {
    std::os::unix::fs::symlink(target, link).map_err(io_err("create the symlink", link))
}

/// The last value of `name` in `env` (the one a child would see).
pub fn env_var<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
    env_value(env, name)
}

pub(crate) fn env_value<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
    env.iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_os_str())
}

/// 16 hex digits naming a checkout in shared caches.
#[must_use]
pub fn repo_key(checkout: &Path) -> String {
    let canon = std::fs::canonicalize(checkout).unwrap_or_else(|_| checkout.to_path_buf());
    let digest = Sha256::digest(canon.as_os_str().as_encoded_bytes());
    hex::encode(digest)[..REPO_KEY_LEN].to_owned()
}

/// A role as one path component (`base`, `original`, `new`; anything else is spelled safely).
pub(crate) fn role_dir(role: &str) -> String {
    let s: String = role
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".to_owned() } else { s }
}

/// The two spellings of each root: as given (when absolute) and resolved through symlinks.
pub(crate) struct Roots {
    /// (checkout, tree) pairs, given spelling first.
    pub(crate) pairs: Vec<(PathBuf, PathBuf)>,
    pub(crate) checkout: PathBuf,
    pub(crate) tree: PathBuf,
}

impl Roots {
    fn new(checkout: &Path, tree: &Path) -> Result<Roots, ChecksError> {
        let ck = std::fs::canonicalize(checkout).map_err(io_err("resolve", checkout))?;
        let tr = std::fs::canonicalize(tree).map_err(io_err("resolve", tree))?;
        let mut pairs = Vec::new();
        if checkout.is_absolute() && tree.is_absolute() {
            pairs.push((normal(checkout), normal(tree)));
        }
        if !pairs.contains(&(ck.clone(), tr.clone())) {
            pairs.push((ck.clone(), tr.clone()));
        }
        Ok(Roots {
            pairs,
            checkout: ck,
            tree: tr,
        })
    }

    /// The tree's path for `p` when `p` lies in the checkout (and not in the tree), else `None`.
    pub(crate) fn moved(&self, p: &Path) -> Option<PathBuf> {
        let p = normal(p);
        if self.pairs.iter().any(|(_, t)| p.starts_with(t)) {
            return None;
        }
        self.pairs.iter().find_map(|(c, t)| {
            p.strip_prefix(c).ok().map(|rest| {
                if rest.as_os_str().is_empty() {
                    t.clone()
                } else {
                    t.join(rest)
                }
            })
        })
    }

    pub(crate) fn in_tree(&self, p: &Path) -> bool {
        let p = normal(p);
        self.pairs.iter().any(|(_, t)| p.starts_with(t))
    }

    fn config_json(&self, evidence: &Path) -> Vec<u8> {
        let pairs: Vec<[String; 2]> = self
            .pairs
            .iter()
            .map(|(c, t)| {
                [
                    c.to_string_lossy().into_owned(),
                    t.to_string_lossy().into_owned(),
                ]
            })
            .collect();
        serde_json::json!({ "pairs": pairs, "evidence": evidence.to_string_lossy() })
            .to_string()
            .into_bytes()
    }
}

/// `p` with `.` and `..` components resolved lexically (no file system access).
pub(crate) fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Prepares `tree` (another revision of the repository checked out at `checkout`) so that the runs
/// of `checks` there, in role `role`, execute the tree's code. See the module doc for each
/// ecosystem; `env` is the environment the runs start from, `cache_dir` loki's cache directory.
pub fn prepare(
    checkout: &Path,
    tree: &Path,
    checks: &[Check],
    role: &str,
    env: &[(OsString, OsString)],
    cache_dir: &Path,
) -> Result<Prepared, ChecksError> {
    prepare_of(
        checkout,
        tree,
        Content::Unknown,
        checks,
        role,
        env,
        cache_dir,
    )
}

/// What is known of a prepared tree's files, for the reuse of its cargo build directory (see
/// "Cargo" in the module doc).
#[derive(Clone, Copy)]
pub enum Content<'a> {
    /// Nothing: every file not newer than the directory's last build is made newer.
    Unknown,
    /// Exactly git tree `id`, written by the judge's own code (an export or a sync) and not run in
    /// by untrusted code since: every file gets the time of the directory's last tree when that
    /// had the same content.
    Exact(&'a str),
    /// Exactly git tree `id`, synced in a directory where untrusted code ran before: only the
    /// files that differ from the directory's last tree are made newer. `changed(prev)` lists
    /// them, relative to the tree, for the tree id `prev` (`None` when it cannot tell: then every
    /// file is).
    Synced {
        id: &'a str,
        changed: &'a dyn Fn(&str) -> Option<Vec<String>>,
    },
}

impl std::fmt::Debug for Content<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Content::Unknown => f.write_str("Unknown"),
            Content::Exact(id) => f.debug_tuple("Exact").field(id).finish(),
            Content::Synced { id, .. } => f.debug_struct("Synced").field("id", id).finish(),
        }
    }
}

/// [`prepare`] for a tree whose files are known by their content ([`Content`]): a cargo build
/// directory whose last tree had the same content, or mostly, is reused as built (see "Cargo" in
/// the module doc).
pub fn prepare_of(
    checkout: &Path,
    tree: &Path,
    content: Content<'_>,
    checks: &[Check],
    role: &str,
    env: &[(OsString, OsString)],
    cache_dir: &Path,
) -> Result<Prepared, ChecksError> {
    let roots = Roots::new(checkout, tree)?;
    let mut out = Prepared::default();
    if roots.checkout == roots.tree {
        return Ok(out);
    }
    let needs = |i: Isolation| checks.iter().any(|c| runner(c.kind).isolation() == i);
    let python = needs(Isolation::Python);
    let js = needs(Isolation::JavaScript);
    if python || js {
        let private = loki_core::scratch::Scratch::new("loki-isolate-").map_err(io_err(
            "create a private directory in",
            &std::env::temp_dir(),
        ))?;
        let hooks = private.path().join("hooks");
        let evidence = private.path().join("evidence");
        create_dir(&hooks)?;
        create_dir(&evidence)?;
        write_file(&hooks.join(CONFIG_FILE), &roots.config_json(&evidence))?;
        if python {
            write_file(&hooks.join("sitecustomize.py"), SITECUSTOMIZE.as_bytes())?;
            out.env.push((
                "PYTHONPATH".into(),
                prepend_path(&hooks, env_value(env, "PYTHONPATH")),
            ));
        }
        if js {
            let preload = hooks.join("node_evidence.cjs");
            write_file(&preload, NODE_PRELOAD.as_bytes())?;
            write_file(
                &hooks.join("node_evidence_hooks.mjs"),
                NODE_HOOKS.as_bytes(),
            )?;
            out.env.push((
                "NODE_OPTIONS".into(),
                node_options(&preload, env_value(env, "NODE_OPTIONS")),
            ));
            link_node_modules(&roots, &mut out)?;
        }
        out.private = Some(private);
    }
    if role != HEAD_ROLE && needs(Isolation::Cargo) {
        let slot = cargo_slot(&roots, role, cache_dir, content)?;
        out.env
            .push(("CARGO_TARGET_DIR".into(), slot.dir.clone().into_os_string()));
        out.cargo = Some(slot);
        cargo_notes(&roots, &mut out.notes);
    }
    if needs(Isolation::Go) {
        let dirs: BTreeSet<&str> = checks
            .iter()
            .filter(|c| runner(c.kind).isolation() == Isolation::Go)
            .map(|c| c.dir.as_str())
            .collect();
        go(&roots, &dirs, env, &mut out)?;
    }
    Ok(out)
}

fn prepend_path(first: &Path, rest: Option<&OsStr>) -> OsString {
    let mut v = first.as_os_str().to_os_string();
    if let Some(rest) = rest.filter(|r| !r.is_empty()) {
        v.push(":");
        v.push(rest);
    }
    v
}

fn node_options(preload: &Path, rest: Option<&OsStr>) -> OsString {
    // NODE_OPTIONS splits on spaces unless quoted; the temp path is quoted in case it has any.
    let quoted = preload
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    let mut v = OsString::from(format!("--require \"{quoted}\""));
    if let Some(rest) = rest.filter(|r| !r.is_empty()) {
        v.push(" ");
        v.push(rest);
    }
    v
}

/// Every directory of the tree (relative, `""` for the root), depth ≤ [`MAX_DEPTH`], build and
/// dependency directories skipped, symlinks not followed.
pub(crate) fn tree_dirs(tree: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut budget = MAX_ENTRIES;
    let mut stack = vec![(PathBuf::new(), 0usize)];
    while let Some((rel, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(tree.join(&rel)) else {
            continue;
        };
        for e in entries.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let name = e.file_name();
            if e.file_type().is_ok_and(|t| t.is_dir())
                && depth < MAX_DEPTH
                && !SKIP_DIRS.iter().any(|s| name == *s)
            {
                stack.push((rel.join(&name), depth + 1));
            }
        }
        out.push(rel);
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests;
