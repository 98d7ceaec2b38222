//! The trees the judge runs suites in, other than the head: the base, and the hybrids (head code
//! with the base's tests, base code with the head's tests).
//!
//! A tree is a git tree id. [`hybrid`] builds one from two others in a temporary index: for each
//! test-owned path the change touched, the entry of the side the tests come from (a path absent
//! there is removed); for each mixed source file (tests inside source: Rust `#[cfg(test)]` modules
//! and doctests, Python doctests, vitest in-source blocks) a new blob with the code of one side and
//! the test items of the other ([`loki_runner::splice`]). A mixed file that cannot be split keeps
//! the code side's bytes, and the hybrid says so in [`Hybrid::unsplit`]: restoring the whole file
//! would restore its code too, and the run would prove nothing.
//!
//! [`SideTree::export`] writes a tree into its own directory (the user's checkout, index and
//! worktree list are untouched) and prepares it with [`loki_runner::isolate::prepare`], so the
//! suites that run there execute that tree's code. The directory lives as long as the `SideTree`,
//! so reruns reuse its builds. It is kept between judgements, one per repository and role, with an
//! index of its own: the next judgement's export writes only the files that differ and removes
//! whatever the runs left, and a directory that cannot be made exactly the tree (what a run of
//! the agent's code left there cannot be removed) is replaced by a temporary one
//! ([`Git::sync_tree`]).
//!
//! [`SideTree::overlay`] runs a hybrid of Go checks in the head's own directory instead, when that
//! is the same run: Go keys its build cache by package directory, so an exported tree rebuilds
//! every package cold, while `go test -overlay` (Go 1.16+) in the head's directory rebuilds only
//! the packages whose files the hybrid swaps. It is used only for the hybrids, whose runs execute
//! the head's code or tests anyway (nothing the head's run could leave in its directory gives them
//! more than they have), never for the base; and only when every path that differs from the head is
//! a regular `.go` file, so the files a test reads at run time (`testdata/`, `go.mod`) are the
//! head's own. The swapped files' bytes live in the judge's private directory, out of the runs'
//! reach. `go vet` is off there: Go's vet reads the files on disk, not the overlay.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_git::{Entry, Git, RawChange, TreeEdit};

use crate::baseline::absent_result;
use loki_protocol::CheckKind;
use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions, run_check};
use loki_runner::select::{Selection, narrowed};

use super::owned::Owner;

/// One changed path, classified, with both sides' entries.
#[derive(Debug, Clone)]
pub struct Owned {
    pub change: RawChange,
    pub owner: Owner,
}

/// Which side a hybrid takes its tests from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestsFrom {
    /// Head code, base tests: the original tests on the new code.
    Base,
    /// Base code, head tests: the new tests on the old code.
    Head,
}

/// A hybrid tree and what could not be put into it.
#[derive(Debug, Clone)]
pub struct Hybrid {
    pub tree: String,
    /// Mixed files whose test items could not be separated from their code.
    pub unsplit: Vec<String>,
}

/// Builds the hybrid of `base_tree` and `head_tree` (see the module doc).
///
/// `renames` (an API rename the change made, [`super::rename`]) is applied to the base's tests in
/// the head-code hybrid, and undone in the head's tests in the base-code hybrid.
pub fn hybrid(
    git: &Git,
    base_tree: &str,
    head_tree: &str,
    owned: &[Owned],
    from: TestsFrom,
    renames: &std::collections::BTreeMap<String, String>,
) -> Result<Hybrid, ChecksError> {
    let map = match from {
        TestsFrom::Base => renames.clone(),
        TestsFrom::Head => super::rename::reversed(renames),
    };
    let renamed = |bytes: Vec<u8>| -> Vec<u8> {
        if map.is_empty() {
            return bytes;
        }
        match String::from_utf8(bytes) {
            Ok(text) => super::rename::apply(&text, &map).into_bytes(),
            Err(e) => e.into_bytes(),
        }
    };
    let fail = |action| move |source| ChecksError::Git { action, source };
    let code_tree = match from {
        TestsFrom::Base => head_tree,
        TestsFrom::Head => base_tree,
    };
    let test_side = |c: &RawChange| match from {
        TestsFrom::Base => c.base.clone(),
        TestsFrom::Head => c.head.clone(),
    };
    let code_side = |c: &RawChange| match from {
        TestsFrom::Base => c.head.clone(),
        TestsFrom::Head => c.base.clone(),
    };
    let mut edits = Vec::new();
    let mut unsplit = Vec::new();
    for o in owned {
        match o.owner {
            Owner::TestCode if !map.is_empty() => {
                let entry = match test_side(&o.change) {
                    Some(e) if e.mode != "120000" && e.mode != "160000" => {
                        let bytes = git.show_blob(&e.oid).map_err(fail("read a test file"))?;
                        let out = renamed(bytes.clone());
                        if out == bytes {
                            Some(e)
                        } else {
                            Some(Entry {
                                mode: e.mode.clone(),
                                oid: git
                                    .hash_blob(&out)
                                    .map_err(fail("store a renamed test file"))?,
                            })
                        }
                    }
                    other => other,
                };
                edits.push(TreeEdit {
                    path: o.change.path.clone(),
                    entry,
                });
            }
            Owner::TestCode | Owner::TestData => edits.push(TreeEdit {
                path: o.change.path.clone(),
                entry: test_side(&o.change),
            }),
            Owner::Mixed => {
                let (Some(code), Some(tests)) = (code_side(&o.change), test_side(&o.change)) else {
                    // One side has no such file: the code side's file stays as it is.
                    continue;
                };
                let read = |e: &Entry| {
                    git.show_blob(&e.oid)
                        .map_err(fail("read a file with tests inside its source"))
                };
                let (code_bytes, test_bytes) = (read(&code)?, read(&tests)?);
                match loki_runner::splice::splice(&o.change.path, &code_bytes, &test_bytes)
                    .map(renamed)
                {
                    Some(bytes) if bytes == code_bytes => {}
                    Some(bytes) => {
                        let oid = git
                            .hash_blob(&bytes)
                            .map_err(fail("store a spliced file"))?;
                        edits.push(TreeEdit {
                            path: o.change.path.clone(),
                            entry: Some(Entry {
                                mode: code.mode.clone(),
                                oid,
                            }),
                        });
                    }
                    None => unsplit.push(o.change.path.clone()),
                }
            }
            Owner::Source | Owner::Other => {}
        }
    }
    let tree = git.tree_with(code_tree, &edits).map_err(fail(
        "build a tree of one side's code and the other side's tests",
    ))?;
    Ok(Hybrid { tree, unsplit })
}

/// A tree written out and prepared for running suites; removed when dropped.
#[derive(Debug)]
pub struct SideTree {
    pub tree: String,
    pub role: &'static str,
    pub root: PathBuf,
    /// Kept alive for the tree's life: it holds the role's build directory and the evidence.
    prepared: loki_runner::isolate::Prepared,
    pub notes: Vec<String>,
    /// The fence of the runs here (their own tree and build directory writable).
    fence: Option<loki_runner::exec::RunFence>,
    /// Variables set for the runs here on top of the isolation's (`GOFLAGS`).
    env: Vec<(OsString, OsString)>,
    _dir: Place,
}

/// Where a tree's directory is (see [`Place::kept`]).
#[derive(Debug)]
enum Place {
    /// Kept per repository and role, locked while in use, with the tree's own index beside it.
    Kept {
        dir: PathBuf,
        index: PathBuf,
        _lock: loki_core::fs::FileLock,
    },
    Temp(loki_core::scratch::Scratch),
}

impl Place {
    fn path(&self) -> &Path {
        match self {
            Place::Kept { dir, .. } => dir,
            Place::Temp(t) => t.path(),
        }
    }

    /// The kept tree's own index.
    fn index(&self) -> Option<&Path> {
        match self {
            Place::Kept { index, .. } => Some(index),
            Place::Temp(_) => None,
        }
    }

    /// `<cache_dir>/trees/<repo-key>/<role>`, locked (`<role>.lock`) for the tree's life, so the
    /// same tree lands at the same path in every judgement: Go keys its build cache by package
    /// directory, so the base's reruns in a later judgement reuse what the base run built. It is
    /// under the cache directory, which every other run's fence protects. `None` when it is in
    /// use (a concurrent judgement of the same repository) or cannot be emptied.
    ///
    /// The tree (`<role>/tree`) stays between judgements with its own index (`<role>.index`):
    /// the next judgement's tree of the role is mostly the same files, and [`Git::sync_tree`]
    /// writes only those that differ and removes what the runs left, or says the directory is
    /// not exactly the tree (then it is written afresh). On a disk where a file written costs
    /// about a millisecond, a 400-file export was 0.3 s of every judgement. Everything else in
    /// the place (the runs' scratch) is emptied here.
    fn kept(cache_dir: &Path, checkout: &Path, role: &str) -> Option<Place> {
        let name: String = role
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let base = cache_dir
            .join("trees")
            .join(loki_runner::isolate::repo_key(checkout));
        std::fs::create_dir_all(&base).ok()?;
        let file = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(base.join(format!("{name}.lock")))
            .ok()?;
        let lock = loki_core::fs::FileLock::try_take(file).ok()?.ok()?;
        let dir = base.join(&name);
        std::fs::create_dir_all(&dir).ok()?;
        for e in std::fs::read_dir(&dir).ok()? {
            let e = e.ok()?;
            if e.file_name() != "tree" {
                let p = e.path();
                if p.is_dir() && !p.is_symlink() {
                    std::fs::remove_dir_all(&p).ok()?;
                } else {
                    std::fs::remove_file(&p).ok()?;
                }
            }
        }
        Some(Place::Kept {
            dir,
            index: base.join(format!("{name}.index")),
            _lock: lock,
        })
    }

    /// A temporary directory: in the judge's private directory when fenced, out of other runs'
    /// reach.
    fn temp(role: &str, opts: &RunOptions) -> Result<Place, ChecksError> {
        let prefix = format!("loki-{role}-");
        match &opts.fence {
            Some(f) => loki_core::scratch::Scratch::new_in(&prefix, &f.private),
            None => loki_core::scratch::Scratch::new(&prefix),
        }
        .map(Place::Temp)
        .map_err(|source| ChecksError::Temp {
            check: role.into(),
            source,
        })
    }
}

/// `GOFLAGS` for Go runs in a tree: the environment's, then `-count=1` (a tree kept between
/// judgements would otherwise let `go test` replay a cached pass where a rerun must run), then
/// `extra`. `None` when no check is Go.
fn go_flags(
    checks: &[Check],
    env: &[(OsString, OsString)],
    extra: &str,
) -> Option<(OsString, OsString)> {
    if !checks.iter().any(|c| c.kind == CheckKind::Go) {
        return None;
    }
    let from_env = loki_runner::isolate::env_var(env, "GOFLAGS")
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_default();
    let all = [from_env.as_str(), "-count=1", extra]
        .into_iter()
        .filter(|f| !f.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(("GOFLAGS".into(), all.into()))
}

/// The Go release that brought `-overlay`.
const GO_OVERLAY_MINOR: u32 = 16;

impl SideTree {
    /// Exports `tree` of the repository whose checkout is `checkout`, for `checks` (as detected
    /// in the checkout), in the role `role` (`base`, `original`, `new`: each role gets its own
    /// build directories).
    pub fn export(
        git: &Git,
        checkout: &Path,
        tree: &str,
        role: &'static str,
        checks: &[Check],
        opts: &RunOptions,
        cache_dir: &Path,
    ) -> Result<SideTree, ChecksError> {
        let started = std::time::Instant::now();
        // Runs wrapped in a box of their own (a build run's checks of the agent's code) cannot
        // reach the cache, which the box denies: their trees and build directories are private
        // and temporary, as before trees were kept.
        let boxed = !opts.wrapper.is_empty();
        let kept = if boxed {
            None
        } else {
            Place::kept(cache_dir, checkout, role)
        };
        let dir = match kept {
            Some(kept) => kept,
            None => Place::temp(role, opts)?,
        };
        let root = dir.path().join("tree");
        let synced = match dir.index() {
            // A directory a sync left in an unknown state is written afresh.
            Some(index) => git
                .sync_tree(tree, &root, index)
                .or_else(|e| {
                    tracing::info!(role, error = %e, "the kept tree is written afresh");
                    let _ = std::fs::remove_dir_all(&root);
                    let _ = std::fs::remove_file(index);
                    git.sync_tree(tree, &root, index)
                })
                .inspect_err(|e| {
                    tracing::info!(role, error = %e, "the kept tree is not used");
                })
                .is_ok(),
            None => false,
        };
        // Not kept, or a kept directory that cannot be made the tree (what the runs left there
        // cannot be removed): a temporary directory of its own.
        let (dir, root) = if synced {
            (dir, root)
        } else {
            let dir = if dir.index().is_some() {
                Place::temp(role, opts)?
            } else {
                dir
            };
            let root = dir.path().join("tree");
            git.export_tree(tree, &root)
                .map_err(|source| ChecksError::Git {
                    action: "export a tree to run its tests",
                    source,
                })?;
            (dir, root)
        };
        let builds = if boxed { dir.path() } else { cache_dir };
        // The directory holds exactly `tree` (just exported or synced), so a build directory
        // whose last tree had the same content is reused as built: the base's whole, since the
        // runs there execute the base's code alone. A hybrid's run executes the agent's, which
        // could rewrite its tree's sources after they were recorded and leave outputs of other
        // content behind: its times are never set back, and when its tree was synced, what
        // differs from the build directory's last tree is made newer than any output.
        let changed = |prev: &str| -> Option<Vec<String>> {
            let changes = git.raw_changes(prev, tree).ok()?;
            Some(changes.into_iter().map(|c| c.path).collect())
        };
        let content = if role == "base" {
            loki_runner::isolate::Content::Exact(tree)
        } else if synced {
            loki_runner::isolate::Content::Synced {
                id: tree,
                changed: &changed,
            }
        } else {
            loki_runner::isolate::Content::Unknown
        };
        let prepared = loki_runner::isolate::prepare_of(
            checkout, &root, content, checks, role, &opts.env, builds,
        )?;
        let fence = opts.fence.as_ref().map(|f| {
            let mut write = vec![dir.path().to_path_buf()];
            write.extend(prepared.cargo_target_dir().map(Path::to_path_buf));
            write.extend(prepared.evidence_dir());
            loki_runner::exec::RunFence {
                scratch: dir.path().join("runs"),
                write,
                ..f.clone()
            }
        });
        tracing::info!(
            role,
            tree,
            root = %root.display(),
            secs = started.elapsed().as_secs_f64(),
            "exported a tree"
        );
        Ok(SideTree {
            tree: tree.to_owned(),
            role,
            root,
            notes: prepared.notes().to_vec(),
            prepared,
            fence,
            env: go_flags(checks, &opts.env, "").into_iter().collect(),
            _dir: dir,
        })
    }

    /// `tree` as an overlay on the head's directory `head_root` (whose files are `head_tree`), for
    /// `checks` (as detected there), or `None` when that would not be the same run as in an
    /// exported tree (see the module doc): not all Go checks, a differing path that is not a
    /// regular `.go` file or is added in a directory the head lacks, a `GOFLAGS` with its own
    /// overlay, a Go older than 1.16, or a head directory reached through a symlink (Go would
    /// not match the overlay's paths).
    pub fn overlay(
        git: &Git,
        head_root: &Path,
        head_tree: &str,
        tree: &str,
        role: &'static str,
        checks: &[Check],
        opts: &RunOptions,
    ) -> Result<Option<SideTree>, ChecksError> {
        if checks.is_empty() || checks.iter().any(|c| c.kind != CheckKind::Go) {
            return Ok(None);
        }
        let flags = loki_runner::isolate::env_var(&opts.env, "GOFLAGS")
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_default();
        if flags.contains("-overlay") {
            return Ok(None);
        }
        if std::fs::canonicalize(head_root).ok().as_deref() != Some(head_root) {
            return Ok(None);
        }
        let changes = git
            .raw_changes(head_tree, tree)
            .map_err(|source| ChecksError::Git {
                action: "list what a hybrid changes",
                source,
            })?;
        let regular = |e: &Option<Entry>| {
            e.as_ref()
                .is_none_or(|e| e.mode == "100644" || e.mode == "100755")
        };
        let eligible = changes.iter().all(|c| {
            let parent_exists = || {
                Path::new(&c.path)
                    .parent()
                    .is_none_or(|p| head_root.join(p).is_dir())
            };
            c.path.ends_with(".go")
                && regular(&c.base)
                && regular(&c.head)
                && (c.base.is_some() || parent_exists())
        });
        if !eligible || !go_has_overlay(head_root, opts) {
            return Ok(None);
        }
        let dir = Place::temp(role, opts)?;
        // GOFLAGS is split at spaces, so the overlay's own path cannot hold one.
        if dir.path().to_string_lossy().contains(char::is_whitespace) {
            return Ok(None);
        }
        let files = dir.path().join("files");
        let io = |action: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source| ChecksError::Io {
                action,
                path,
                source,
            }
        };
        std::fs::create_dir_all(&files).map_err(io("create", &files))?;
        let written = |path: &Path| {
            let path = path.to_path_buf();
            move |source: loki_core::CoreError| ChecksError::Isolate {
                action: "write the go overlay's file",
                path,
                source: Box::new(source),
            }
        };
        let mut replace = serde_json::Map::new();
        for (n, c) in changes.iter().enumerate() {
            let target = head_root.join(&c.path);
            let with = match &c.head {
                Some(e) => {
                    let bytes = git.show_blob(&e.oid).map_err(|source| ChecksError::Git {
                        action: "read a file of a hybrid",
                        source,
                    })?;
                    let path = files.join(format!("{n}.go"));
                    loki_core::fs::write_atomic(&path, &bytes).map_err(written(&path))?;
                    path.to_string_lossy().into_owned()
                }
                // An empty replacement deletes the file.
                None => String::new(),
            };
            replace.insert(target.to_string_lossy().into_owned(), with.into());
        }
        let overlay = dir.path().join("overlay.json");
        let json = serde_json::json!({ "Replace": replace }).to_string();
        loki_core::fs::write_atomic(&overlay, json.as_bytes()).map_err(written(&overlay))?;
        let goflags = go_flags(
            checks,
            &opts.env,
            &format!("-overlay={} -vet=off", overlay.display()),
        );
        let fence = opts.fence.as_ref().map(|f| loki_runner::exec::RunFence {
            scratch: dir.path().join("runs"),
            ..f.clone()
        });
        tracing::info!(
            role,
            tree,
            files = changes.len(),
            "overlaid a tree on the head"
        );
        Ok(Some(SideTree {
            tree: tree.to_owned(),
            role,
            root: head_root.to_path_buf(),
            notes: vec![format!(
                "{role} tree: run in the head's directory with go's -overlay swapping {} .go file(s), without go vet (a test that reads .go files at run time reads the head's)",
                changes.len()
            )],
            prepared: loki_runner::isolate::Prepared::default(),
            fence,
            env: goflags.into_iter().collect(),
            _dir: dir,
        }))
    }

    /// [`SideTree::overlay`] when it applies, else [`SideTree::export`].
    #[expect(
        clippy::too_many_arguments,
        reason = "the union of the two constructors' inputs"
    )]
    pub fn overlay_or_export(
        git: &Git,
        checkout: &Path,
        head_root: &Path,
        head_tree: &str,
        tree: &str,
        role: &'static str,
        checks: &[Check],
        opts: &RunOptions,
        cache_dir: &Path,
    ) -> Result<SideTree, ChecksError> {
        let at_head: Vec<Check> = checks.iter().map(|c| c.at_root(head_root)).collect();
        match Self::overlay(git, head_root, head_tree, tree, role, &at_head, opts)? {
            Some(side) => Ok(side),
            None => Self::export(git, checkout, tree, role, checks, opts, cache_dir),
        }
    }

    /// What the runs here showed of code loaded from the checkout anyway, and other notes from
    /// the isolation, for NOT PROVEN (read after the runs).
    #[must_use]
    pub fn evidence(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .prepared
            .leaks()
            .into_iter()
            .map(|l| {
                format!(
                    "{} tree: loaded from the checkout instead of the tree: {l}",
                    self.role
                )
            })
            .collect();
        out.extend(
            self.prepared
                .run_notes()
                .into_iter()
                .map(|n| format!("{} tree: {n}", self.role)),
        );
        out
    }

    /// The run options for this tree: `opts` with the tree's environment and logs in `log_dir`.
    fn options(&self, opts: &RunOptions, log_dir: PathBuf) -> RunOptions {
        RunOptions {
            log_dir,
            env: {
                let mut env = self.prepared.apply(opts.env.clone());
                for (name, value) in &self.env {
                    env.retain(|(n, _)| n != name);
                    env.push((name.clone(), value.clone()));
                }
                env
            },
            rerun_failed: false,
            fence: self.fence.clone(),
            ..opts.clone()
        }
    }

    /// In a guarded cargo build directory (a hybrid's, see `loki_runner::isolate`), builds what
    /// `check` runs on its own and stamps the end of the build, so that what its tests write there
    /// afterwards is told apart. A build that cannot start leaves no stamp: the directory is then
    /// emptied before its next use.
    fn build_first(&self, check: &Check, opts: &RunOptions) -> Result<(), ChecksError> {
        if !self.prepared.cargo_guarded() {
            return Ok(());
        }
        let Some(command) = loki_runner::exec::build_companion(check) else {
            return Ok(());
        };
        let build = Check {
            kind: CheckKind::Cargo,
            command,
            ..check.clone()
        };
        let opts = RunOptions {
            log_dir: opts.log_dir.join("build"),
            ..opts.clone()
        };
        if run_check(&build, &opts).is_ok() {
            self.prepared.cargo_built()?;
        }
        Ok(())
    }

    /// Runs each of `checks` (as detected in the checkout) here.
    pub fn run(
        &self,
        checks: &[Check],
        opts: &RunOptions,
        log_dir: PathBuf,
    ) -> Result<Vec<CheckResult>, ChecksError> {
        self.run_selected(checks, &|_| Selection::default(), opts, log_dir)
    }

    /// Runs each of `checks` here, narrowed to what `select` gives for it (an empty selection
    /// runs the whole check; one the runner cannot express runs whole too).
    pub fn run_selected(
        &self,
        checks: &[Check],
        select: &dyn Fn(&Check) -> Selection,
        opts: &RunOptions,
        log_dir: PathBuf,
    ) -> Result<Vec<CheckResult>, ChecksError> {
        let opts = self.options(opts, log_dir);
        checks
            .iter()
            .map(|c| {
                let at = c.at_root(&self.root);
                if !at.cwd.is_dir() {
                    return absent_result(
                        &at,
                        &opts.log_dir,
                        "the package directory does not exist in this revision",
                    );
                }
                let sel = select(c);
                let to_run = narrowed(&at, &self.root, &sel).unwrap_or(at);
                self.build_first(&to_run, &opts)?;
                let mut r = run_check(&to_run, &opts)?;
                // The result keeps the check's own command line; the log shows the narrowed one.
                r.run.cmd = c.command_line();
                Ok(r)
            })
            .collect()
    }
}

/// Whether the `go` that runs in `dir` knows `-overlay` (Go 1.16 or later), asked once per
/// directory and environment in a process (a judgement asks for O and again for N).
fn go_has_overlay(dir: &Path, opts: &RunOptions) -> bool {
    type Known = std::collections::HashMap<(PathBuf, Vec<(OsString, OsString)>), bool>;
    static KNOWN: std::sync::OnceLock<std::sync::Mutex<Known>> = std::sync::OnceLock::new();
    let key = (dir.to_path_buf(), opts.env.clone());
    let known = KNOWN.get_or_init(Default::default);
    if let Some(k) = known.lock().ok().and_then(|m| m.get(&key).copied()) {
        return k;
    }
    let answer = ask_go_overlay(dir, opts);
    if let Ok(mut m) = known.lock() {
        m.insert(key, answer);
    }
    answer
}

fn ask_go_overlay(dir: &Path, opts: &RunOptions) -> bool {
    let spec = loki_process::Spec::new("go", dir)
        .args(["env", "GOVERSION"])
        .envs(opts.env.clone())
        .timeout(std::time::Duration::from_secs(30))
        .output_cap(4096);
    let Ok(out) = loki_process::run(&spec) else {
        return false;
    };
    out.success() && go_minor(&out.output.text()).is_some_and(|m| m >= GO_OVERLAY_MINOR)
}

/// The minor release of a `go1.X[.Y]` version string (`go1.19.8` → 19; a devel build → none).
fn go_minor(version: &str) -> Option<u32> {
    let rest = version.trim().strip_prefix("go1.")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::go_minor;

    #[test]
    fn go_minor_reads_release_strings() {
        assert_eq!(go_minor("go1.19.8\n"), Some(19));
        assert_eq!(go_minor("go1.16"), Some(16));
        assert_eq!(go_minor("go1.22rc1"), Some(22));
        assert_eq!(go_minor("devel go1.23-abc"), None);
        assert_eq!(go_minor(""), None);
    }
}
