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

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::ChecksError;
use crate::detect::{Check, CheckKind};

/// The role whose cargo builds go where the environment says (the user's own target directory).
pub const HEAD_ROLE: &str = "head";
/// Build directories per role and repository that concurrent runs can use before one waits.
pub const CARGO_SLOTS: usize = 4;
/// Deepest directory level searched for `node_modules`, `Cargo.toml` and `go.work` (as detection).
const MAX_DEPTH: usize = 8;
/// Most directory entries one walk visits; a bound for pathological trees.
const MAX_ENTRIES: usize = 200_000;
/// Most `node_modules` entries scanned for workspace links per `node_modules` directory.
const MAX_NM_ENTRIES: usize = 200_000;
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
const LOCK_FILE: &str = ".loki-lock";
const BUILT_STAMP: &str = ".loki-built";
const CONFIG_FILE: &str = "loki_isolate.json";
const SITECUSTOMIZE: &str = include_str!("isolate/sitecustomize.py");
const NODE_PRELOAD: &str = include_str!("isolate/node_evidence.cjs");
const NODE_HOOKS: &str = include_str!("isolate/node_evidence_hooks.mjs");

/// What a run in another tree needs; see the module doc. Keep it alive while the runs last.
#[derive(Debug, Default)]
pub struct Prepared {
    env: Vec<(OsString, OsString)>,
    notes: Vec<String>,
    created: Vec<PathBuf>,
    private: Option<tempfile::TempDir>,
    cargo: Option<CargoSlot>,
}

/// A locked build directory of one role; writes the "built" stamp when released.
#[derive(Debug)]
struct CargoSlot {
    dir: PathBuf,
    _lock: File,
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

fn io_err(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> ChecksError {
    let path = path.to_path_buf();
    move |e| ChecksError::Isolate {
        action,
        path,
        source: Box::new(e),
    }
}

fn write_file(path: &Path, body: &[u8]) -> Result<(), ChecksError> {
    loki_core::fs::write_atomic(path, body).map_err(|e| ChecksError::Isolate {
        action: "write",
        path: path.to_path_buf(),
        source: Box::new(e),
    })
}

fn create_dir(path: &Path) -> Result<(), ChecksError> {
    std::fs::create_dir_all(path).map_err(io_err("create the directory", path))
}

fn symlink(target: &Path, link: &Path) -> Result<(), ChecksError> {
    std::os::unix::fs::symlink(target, link).map_err(io_err("create the symlink", link))
}

/// The last value of `name` in `env` (the one a child would see).
pub(crate) fn env_var<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
    env_value(env, name)
}

fn env_value<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a OsStr> {
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
fn role_dir(role: &str) -> String {
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
struct Roots {
    /// (checkout, tree) pairs, given spelling first.
    pairs: Vec<(PathBuf, PathBuf)>,
    checkout: PathBuf,
    tree: PathBuf,
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
    fn moved(&self, p: &Path) -> Option<PathBuf> {
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

    fn in_tree(&self, p: &Path) -> bool {
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
fn normal(p: &Path) -> PathBuf {
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
    let roots = Roots::new(checkout, tree)?;
    let mut out = Prepared::default();
    if roots.checkout == roots.tree {
        return Ok(out);
    }
    let kinds: BTreeSet<CheckKind> = checks.iter().map(|c| c.kind).collect();
    let python = kinds.contains(&CheckKind::Pytest);
    let js = kinds.iter().any(|k| {
        matches!(
            k,
            CheckKind::Vitest | CheckKind::Jest | CheckKind::Node | CheckKind::Npm
        )
    });
    if python || js {
        let private = tempfile::Builder::new()
            .prefix("loki-isolate-")
            .tempdir()
            .map_err(io_err(
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
    if role != HEAD_ROLE
        && kinds
            .iter()
            .any(|k| matches!(k, CheckKind::Cargo | CheckKind::Nextest))
    {
        let slot = cargo_slot(&roots, role, cache_dir)?;
        out.env
            .push(("CARGO_TARGET_DIR".into(), slot.dir.clone().into_os_string()));
        out.cargo = Some(slot);
        cargo_notes(&roots, &mut out.notes);
    }
    if kinds.contains(&CheckKind::Go) {
        let dirs: BTreeSet<&str> = checks
            .iter()
            .filter(|c| c.kind == CheckKind::Go)
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
fn tree_dirs(tree: &Path) -> Vec<PathBuf> {
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

// ---------------------------------------------------------------------------------------------
// JavaScript

fn link_node_modules(roots: &Roots, out: &mut Prepared) -> Result<(), ChecksError> {
    for rel in tree_dirs(&roots.tree) {
        let from = roots.checkout.join(&rel).join("node_modules");
        let to = roots.tree.join(&rel).join("node_modules");
        if !from.is_dir() || std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        let from = std::fs::canonicalize(&from).map_err(io_err("resolve", &from))?;
        let mut redirects = BTreeMap::new();
        let mut budget = MAX_NM_ENTRIES;
        scan_node_modules(
            roots,
            &from,
            Path::new(""),
            false,
            &mut redirects,
            &mut budget,
        );
        if budget == 0 {
            out.notes.push(format!(
                "{} has more than {MAX_NM_ENTRIES} entries; workspace links beyond them still lead to the checkout",
                from.display()
            ));
        }
        for (link, (target, nested)) in &redirects {
            if *nested {
                out.notes.push(format!(
                    "{} is a workspace package linked below an installed dependency ({}): that dependency is loaded from the checkout and resolves it there, so it uses the checkout's copy",
                    target.display(),
                    from.join(link).display()
                ));
            }
        }
        mirror(&from, &to, Path::new(""), &redirects)?;
        out.created.push(to);
    }
    Ok(())
}

/// Collects the links under a `node_modules` directory `nm` (at `rel`) that resolve into the
/// checkout outside any `node_modules`, with the tree's path they must point at. `nested`: `rel` is
/// inside an installed package (or pnpm's store), not at the top of a package's `node_modules`.
fn scan_node_modules(
    roots: &Roots,
    nm: &Path,
    rel: &Path,
    nested: bool,
    found: &mut BTreeMap<PathBuf, (PathBuf, bool)>,
    budget: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(nm.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = e.file_name();
        let r = rel.join(&name);
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            if let Ok(real) = std::fs::canonicalize(e.path())
                && let Ok(inside) = real.strip_prefix(&roots.checkout)
                && !inside.components().any(|c| c.as_os_str() == "node_modules")
            {
                found.insert(r, (roots.tree.join(inside), nested));
            }
            continue;
        }
        if !ft.is_dir() {
            continue;
        }
        let name = name.to_string_lossy();
        let in_pnpm = rel
            .components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".pnpm");
        if name.starts_with('@') || name == ".bin" || name == "node_modules" {
            scan_node_modules(roots, nm, &r, nested, found, budget);
        } else if name == ".pnpm" || (in_pnpm && rel.components().count() == 1) {
            // pnpm's store: `.pnpm/<id>/node_modules/*` and `.pnpm/node_modules/*` (hoisted).
            scan_node_modules(roots, nm, &r, true, found, budget);
        } else if nm.join(&r).join("node_modules").is_dir() {
            // An installed package with its own dependencies (npm's nesting).
            scan_node_modules(roots, nm, &r.join("node_modules"), true, found, budget);
        }
    }
}

/// Builds `to/rel` as a directory mirroring `from/rel`: each entry a symlink to the checkout's,
/// a redirected link to the tree's path, and a real directory on the way to a redirected link.
fn mirror(
    from: &Path,
    to: &Path,
    rel: &Path,
    redirects: &BTreeMap<PathBuf, (PathBuf, bool)>,
) -> Result<(), ChecksError> {
    let dir = to.join(rel);
    create_dir(&dir)?;
    let src = from.join(rel);
    let entries = std::fs::read_dir(&src).map_err(io_err("read", &src))?;
    for e in entries {
        let e = e.map_err(io_err("read", &src))?;
        let r = rel.join(e.file_name());
        // `.bin` is always a real directory: pnpm's and yarn's bin shims are scripts that run
        // `$basedir/../pkg/...`, and `..` from a symlinked directory is the checkout's.
        let bin = e.file_name() == ".bin" && e.file_type().is_ok_and(|t| t.is_dir());
        if let Some((target, _)) = redirects.get(&r) {
            symlink(target, &to.join(&r))?;
        } else if bin || redirects.keys().any(|k| k.starts_with(&r) && *k != r) {
            mirror(from, to, &r, redirects)?;
        } else {
            symlink(&from.join(&r), &to.join(&r))?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Cargo

fn cargo_slot(roots: &Roots, role: &str, cache_dir: &Path) -> Result<CargoSlot, ChecksError> {
    let base = cache_dir.join("target").join(repo_key(&roots.checkout));
    let name = role_dir(role);
    let mut chosen = None;
    for n in 0..CARGO_SLOTS {
        let dir = if n == 0 {
            base.join(&name)
        } else {
            base.join(format!("{name}.{n}"))
        };
        create_dir(&dir)?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err("open the lock", &lock_path))?;
        let last = n + 1 == CARGO_SLOTS;
        match lock.try_lock() {
            Ok(()) => {
                chosen = Some((dir, lock));
                break;
            }
            Err(std::fs::TryLockError::WouldBlock) if !last => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                lock.lock().map_err(io_err("lock", &lock_path))?;
                chosen = Some((dir, lock));
                break;
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io_err("lock", &lock_path)(e)),
        }
    }
    let Some((dir, lock)) = chosen else {
        return Err(ChecksError::Isolate {
            action: "find a free build directory in",
            path: base,
            source: "no slot".into(),
        });
    };
    if let Ok(built) = std::fs::metadata(dir.join(BUILT_STAMP)).and_then(|m| m.modified()) {
        refresh_older_than(&roots.tree, built)?;
    }
    Ok(CargoSlot { dir, _lock: lock })
}

/// Sets the mtime of every regular file of `tree` that is not newer than `stamp` to now (symlinks
/// and `.git` left alone), so cargo sees each as changed since the builds before `stamp`.
fn refresh_older_than(tree: &Path, stamp: SystemTime) -> Result<(), ChecksError> {
    let now = SystemTime::now();
    let mut stack = vec![tree.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let path = e.path();
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(path);
                }
            } else if ft.is_file()
                && e.metadata()
                    .and_then(|m| m.modified())
                    .is_ok_and(|m| m <= stamp)
            {
                let f = File::open(&path).map_err(io_err("open", &path))?;
                f.set_modified(now)
                    .map_err(io_err("set the modification time of", &path))?;
            }
        }
    }
    Ok(())
}

/// Notes for path dependencies of the tree's manifests that do not lead into the tree.
fn cargo_notes(roots: &Roots, notes: &mut Vec<String>) {
    for rel in tree_dirs(&roots.tree) {
        let manifest = roots.tree.join(&rel).join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let Ok(doc) = text.parse::<toml::Table>() else {
            continue;
        };
        let mut paths = Vec::new();
        manifest_paths(&toml::Value::Table(doc), &mut paths);
        for p in paths {
            let dep = Path::new(&p);
            let resolved = normal(&roots.tree.join(&rel).join(dep));
            let shown = rel.join("Cargo.toml");
            if roots.moved(&resolved).is_some() {
                notes.push(format!(
                    "{}: path dependency {p} is inside the checkout, so the run in the tree builds the checkout's copy",
                    shown.display()
                ));
            } else if !roots.in_tree(&resolved) {
                notes.push(format!(
                    "{}: path dependency {p} lies outside the repository; every tree builds the same copy of it",
                    shown.display()
                ));
            }
        }
    }
    notes.sort();
    notes.dedup();
}

/// The `path` values of dependency-like tables: `[dependencies]` and its dev/build kin, their
/// `[target.*.…]` forms, `[workspace.dependencies]`, `[patch.*]` and `[replace]`.
fn manifest_paths(v: &toml::Value, out: &mut Vec<String>) {
    const DEP_TABLES: &[&str] = &[
        "dependencies",
        "dev-dependencies",
        "dev_dependencies",
        "build-dependencies",
        "build_dependencies",
    ];
    let Some(t) = v.as_table() else { return };
    let tables = |t: &toml::Table, out: &mut Vec<String>| {
        for name in DEP_TABLES {
            if let Some(deps) = t.get(*name) {
                deps_paths(deps, false, out);
            }
        }
    };
    tables(t, out);
    if let Some(ws) = t.get("workspace").and_then(toml::Value::as_table) {
        tables(ws, out);
    }
    if let Some(targets) = t.get("target").and_then(toml::Value::as_table) {
        for target in targets.values().filter_map(toml::Value::as_table) {
            tables(target, out);
        }
    }
    if let Some(patch) = t.get("patch") {
        deps_paths(patch, true, out);
    }
    if let Some(replace) = t.get("replace") {
        deps_paths(replace, false, out);
    }
}

fn deps_paths(v: &toml::Value, patch: bool, out: &mut Vec<String>) {
    let Some(t) = v.as_table() else { return };
    for sub in t.values() {
        if patch {
            deps_paths(sub, false, out);
        } else if let Some(p) = sub.get("path").and_then(toml::Value::as_str) {
            out.push(p.to_owned());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Go

fn go(
    roots: &Roots,
    dirs: &BTreeSet<&str>,
    env: &[(OsString, OsString)],
    out: &mut Prepared,
) -> Result<(), ChecksError> {
    let gowork = env_value(env, "GOWORK").filter(|v| !v.is_empty() && *v != "off");
    if let Some(v) = gowork {
        let p = PathBuf::from(v);
        if let Some(t) = roots.moved(&p) {
            if !t.exists() {
                copy_go_work(&p, &t, out)?;
            }
            rewrite_go_work(roots, &t, out)?;
            out.env.push(("GOWORK".into(), t.into_os_string()));
        } else if p.is_absolute() && !roots.in_tree(&p) {
            go_work_outside_notes(roots, &p, out);
        }
    } else {
        let mut seen = BTreeSet::new();
        for dir in dirs {
            let rel = if *dir == "." {
                PathBuf::new()
            } else {
                PathBuf::from(dir)
            };
            // `go` takes the nearest go.work at or above the module; look in the tree first, then
            // where the checkout has one the tree lacks (a go.work is usually not committed).
            let mut cur = Some(rel.as_path());
            while let Some(r) = cur {
                let in_tree = roots.tree.join(r).join("go.work");
                let in_checkout = roots.checkout.join(r).join("go.work");
                if in_tree.is_file() || in_checkout.is_file() {
                    if seen.insert(in_tree.clone()) {
                        if !in_tree.is_file() {
                            copy_go_work(&in_checkout, &in_tree, out)?;
                        }
                        rewrite_go_work(roots, &in_tree, out)?;
                    }
                    break;
                }
                cur = r.parent();
            }
        }
    }
    if let Some(flags) = env_value(env, "GOFLAGS") {
        let flags = flags.to_string_lossy();
        if roots
            .pairs
            .iter()
            .any(|(c, _)| flags.contains(&*c.to_string_lossy()))
        {
            out.notes.push(format!(
                "GOFLAGS ({flags}) names the checkout: the go runs in the tree may read the checkout's files"
            ));
        }
    }
    for dir in dirs {
        let rel = if *dir == "." {
            PathBuf::new()
        } else {
            PathBuf::from(dir)
        };
        let gomod = roots.tree.join(&rel).join("go.mod");
        let Ok(text) = std::fs::read_to_string(&gomod) else {
            continue;
        };
        for target in go_paths(&text, false) {
            let resolved = normal(&roots.tree.join(&rel).join(&target));
            let shown = rel.join("go.mod");
            if roots.moved(&resolved).is_some() {
                out.notes.push(format!(
                    "{}: replace => {target} is an absolute path into the checkout, so the run in the tree uses the checkout's copy",
                    shown.display()
                ));
            } else if !roots.in_tree(&resolved) {
                out.notes.push(format!(
                    "{}: replace => {target} lies outside the repository; every tree uses the same copy of it",
                    shown.display()
                ));
            }
        }
    }
    Ok(())
}

fn copy_go_work(from: &Path, to: &Path, out: &mut Prepared) -> Result<(), ChecksError> {
    let body = std::fs::read(from).map_err(io_err("read", from))?;
    write_file(to, &body)?;
    out.created.push(to.to_path_buf());
    let sum_from = from.with_file_name("go.work.sum");
    let sum_to = to.with_file_name("go.work.sum");
    if sum_from.is_file() && !sum_to.exists() {
        let body = std::fs::read(&sum_from).map_err(io_err("read", &sum_from))?;
        write_file(&sum_to, &body)?;
        out.created.push(sum_to);
    }
    Ok(())
}

/// Rewrites absolute checkout paths in the go.work at `path` (inside the tree) to the tree's, and
/// notes the paths that lead outside the repository.
fn rewrite_go_work(roots: &Roots, path: &Path, out: &mut Prepared) -> Result<(), ChecksError> {
    let text = std::fs::read_to_string(path).map_err(io_err("read", path))?;
    let base = path.parent().unwrap_or(&roots.tree);
    let mut new = text.clone();
    for (c, t) in &roots.pairs {
        new = replace_path_prefix(&new, &c.to_string_lossy(), &t.to_string_lossy());
    }
    for p in go_paths(&new, true) {
        let resolved = normal(&base.join(&p));
        if !roots.in_tree(&resolved) {
            out.notes.push(format!(
                "{}: {p} lies outside the repository; every tree uses the same copy of it",
                path.display()
            ));
        }
    }
    if new != text {
        write_file(path, new.as_bytes())?;
    }
    Ok(())
}

/// A GOWORK outside both trees: each absolute path into the checkout in it is a note.
fn go_work_outside_notes(roots: &Roots, path: &Path, out: &mut Prepared) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for p in go_paths(&text, true) {
        if roots.moved(Path::new(&p)).is_some() {
            out.notes.push(format!(
                "GOWORK ({}) uses {p}, inside the checkout: the go runs in the tree use the checkout's copy",
                path.display()
            ));
        }
    }
}

/// The file system paths of a go.work (`use` and `replace ... => path`) or a go.mod (`replace`
/// only): paths start with `.`, `/` or `~`, module paths do not.
fn go_paths(text: &str, uses: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if block.is_some() && line == ")" {
            block = None;
            continue;
        }
        let (directive, rest) = match block {
            Some(b) => (b, line),
            None => {
                let (d, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                let rest = rest.trim();
                if rest == "(" {
                    block = Some(if d == "use" {
                        "use"
                    } else if d == "replace" {
                        "replace"
                    } else {
                        "other"
                    });
                    continue;
                }
                (d, rest)
            }
        };
        let candidate = match directive {
            "use" if uses => Some(rest),
            "replace" => rest.split_once("=>").map(|(_, r)| r.trim()),
            _ => None,
        };
        if let Some(c) = candidate {
            let first = c
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(|ch| ch == '"' || ch == '`');
            if first.starts_with(['.', '/']) {
                out.push(first.to_owned());
            }
        }
    }
    out
}

/// Replaces `from` with `to` where `from` is a whole path prefix: preceded by the start, a space,
/// a quote or `(`, and followed by the end, `/`, a space, a quote or `)`.
fn replace_path_prefix(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_owned();
    }
    let before_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '`' | '('));
    let after_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '/' | '"' | '`' | ')'));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(i) = rest.find(from) {
        let head = &rest[..i];
        let before = head.chars().next_back().or(prev);
        let after = rest[i + from.len()..].chars().next();
        out.push_str(head);
        if before_ok(before) && after_ok(after) {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        prev = from.chars().next_back();
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_path_prefixes_only() {
        let t = "use (\n\t.\n\t/work/repo/lib\n\t/work/repo2/x\n\t\"/work/repo\"\n)\nreplace a => /work/repo/b v1\n";
        let got = replace_path_prefix(t, "/work/repo", "/tmp/tree");
        assert_eq!(
            got,
            "use (\n\t.\n\t/tmp/tree/lib\n\t/work/repo2/x\n\t\"/tmp/tree\"\n)\nreplace a => /tmp/tree/b v1\n"
        );
    }

    #[test]
    fn go_paths_reads_use_and_replace() {
        let work = "go 1.19\n\nuse (\n\t. // root\n\t/abs/lib\n)\nuse ./other\nreplace example.com/x v1.0.0 => ../x\nreplace example.com/y => example.com/z v1\n";
        assert_eq!(
            go_paths(work, true),
            vec![".", "/abs/lib", "./other", "../x"]
        );
        assert_eq!(go_paths(work, false), vec!["../x"]);
    }

    #[test]
    fn manifest_paths_finds_every_dependency_table() {
        let doc: toml::Table = r#"
[package]
name = "a"
[dependencies]
x = { path = "../x" }
y = "1"
[dev-dependencies.z]
path = "/abs/z"
[target.'cfg(unix)'.dependencies]
u = { path = "u" }
[workspace.dependencies]
w = { path = "crates/w" }
[patch.crates-io]
p = { path = "../../p" }
"#
        .parse()
        .unwrap();
        let mut got = Vec::new();
        manifest_paths(&toml::Value::Table(doc), &mut got);
        got.sort();
        assert_eq!(got, vec!["../../p", "../x", "/abs/z", "crates/w", "u"]);
    }

    #[test]
    fn gowork_into_the_checkout_is_copied_to_the_tree_and_goflags_noted() {
        let t = tempfile::tempdir().unwrap();
        let ck = t.path().join("ck");
        let tree = t.path().join("tree");
        std::fs::create_dir_all(ck.join("app")).unwrap();
        std::fs::create_dir_all(tree.join("app")).unwrap();
        let work = format!(
            "go 1.18\n\nuse (\n\t./app\n\t{}\n)\n",
            ck.join("lib").display()
        );
        loki_core::fs::write_atomic(&ck.join("go.work"), work.as_bytes()).unwrap();
        let check = Check {
            name: "go:app".into(),
            kind: CheckKind::Go,
            dir: "app".into(),
            cwd: tree.join("app"),
            command: vec!["go".into(), "test".into()],
            script: None,
            why: String::new(),
        };
        let env: Vec<(OsString, OsString)> = vec![
            ("GOWORK".into(), ck.join("go.work").into()),
            (
                "GOFLAGS".into(),
                format!("-overlay={}/overlay.json", ck.display()).into(),
            ),
        ];
        let p = prepare(&ck, &tree, &[check], "base", &env, &t.path().join("cache")).unwrap();
        assert_eq!(p.env(), [("GOWORK".into(), tree.join("go.work").into())]);
        assert_eq!(p.created(), [tree.join("go.work")]);
        let copied = std::fs::read_to_string(tree.join("go.work")).unwrap();
        assert!(
            copied.contains(&*tree.join("lib").to_string_lossy()),
            "{copied}"
        );
        assert!(!copied.contains(&*ck.to_string_lossy()), "{copied}");
        assert_eq!(p.notes().len(), 1, "{:?}", p.notes());
        assert!(p.notes()[0].starts_with("GOFLAGS"), "{:?}", p.notes());
    }

    #[test]
    fn roles_are_one_path_component() {
        assert_eq!(role_dir("base"), "base");
        assert_eq!(role_dir("../x y"), "___x_y");
        assert_eq!(role_dir(""), "_");
    }

    #[test]
    fn same_tree_is_a_no_op() {
        let t = tempfile::tempdir().unwrap();
        let check = Check {
            name: "pytest".into(),
            kind: CheckKind::Pytest,
            dir: ".".into(),
            cwd: t.path().to_path_buf(),
            command: vec!["python3".into()],
            script: None,
            why: String::new(),
        };
        let p = prepare(t.path(), t.path(), &[check], "base", &[], t.path()).unwrap();
        assert!(p.env().is_empty() && p.notes().is_empty() && p.created().is_empty());
        assert!(p.evidence_dir().is_none() && p.leaks().is_empty());
    }

    #[test]
    fn moved_maps_checkout_paths_and_leaves_the_tree() {
        let t = tempfile::tempdir().unwrap();
        let ck = t.path().join("ck");
        let tr = t.path().join("ck-tree");
        std::fs::create_dir_all(&ck).unwrap();
        std::fs::create_dir_all(&tr).unwrap();
        let roots = Roots::new(&ck, &tr).unwrap();
        assert_eq!(
            roots.moved(&ck.join("src/a.py")),
            Some(roots.pairs[0].1.join("src/a.py"))
        );
        assert_eq!(roots.moved(&ck), Some(roots.pairs[0].1.clone()));
        assert_eq!(roots.moved(&tr.join("x")), None);
        assert_eq!(roots.moved(&ck.join("../ck-tree/x")), None);
        assert_eq!(roots.moved(Path::new("/elsewhere")), None);
    }
}
