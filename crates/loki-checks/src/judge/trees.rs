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
//! [`SideTree::overlay`] runs a hybrid in the head's own directory instead, when the runner
//! says that is the same run ([`loki_runner::isolate::overlay`]: Go's `-overlay`, which rebuilds
//! only the packages whose files the hybrid swaps, where an exported tree rebuilds every package
//! cold). It is used only for the hybrids, whose runs execute the head's code or tests anyway
//! (nothing the head's run could leave in its directory gives them more than they have), never
//! for the base. The swapped files' bytes live in the judge's private directory, out of the runs'
//! reach.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_git::{Entry, Git, RawChange, TreeEdit};

use crate::baseline::absent_result;
use loki_runner::ChecksError;
use loki_runner::detect::Check;
use loki_runner::exec::{CheckResult, RunOptions, run_check};
use loki_runner::isolate::overlay;
use loki_runner::select::{Selection, narrowed};

use super::git_err;
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
    let parts = Parts {
        git,
        from,
        map: &map,
    };
    let code_tree = match from {
        TestsFrom::Base => head_tree,
        TestsFrom::Head => base_tree,
    };
    let mut edits = Vec::new();
    let mut unsplit = Vec::new();
    for o in owned {
        let path = o.change.path.clone();
        match o.owner {
            Owner::TestCode if !map.is_empty() => edits.push(TreeEdit {
                path,
                entry: parts.renamed_tests(&o.change)?,
            }),
            Owner::TestCode | Owner::TestData => edits.push(TreeEdit {
                path,
                entry: parts.test_side(&o.change),
            }),
            Owner::Mixed => match parts.spliced(&o.change)? {
                Spliced::AsCode => {}
                Spliced::Into(entry) => edits.push(TreeEdit {
                    path,
                    entry: Some(entry),
                }),
                Spliced::Unsplit => unsplit.push(path),
            },
            Owner::Source | Owner::Other => {}
        }
    }
    let tree = git.tree_with(code_tree, &edits).map_err(git_err(
        "build a tree of one side's code and the other side's tests",
    ))?;
    Ok(Hybrid { tree, unsplit })
}

/// What a hybrid takes of each changed file: the tests of one side (renamed by `map`), the code
/// of the other.
struct Parts<'a> {
    git: &'a Git,
    from: TestsFrom,
    map: &'a std::collections::BTreeMap<String, String>,
}

/// A mixed file in a hybrid.
enum Spliced {
    /// The code side's file as it is (one side has no such file, or its tests are the same).
    AsCode,
    /// A new blob: the code of one side, the test items of the other.
    Into(Entry),
    /// Its test items cannot be separated from its code: the code side's bytes stay.
    Unsplit,
}

impl Parts<'_> {
    fn test_side(&self, c: &RawChange) -> Option<Entry> {
        match self.from {
            TestsFrom::Base => c.base.clone(),
            TestsFrom::Head => c.head.clone(),
        }
    }

    fn code_side(&self, c: &RawChange) -> Option<Entry> {
        match self.from {
            TestsFrom::Base => c.head.clone(),
            TestsFrom::Head => c.base.clone(),
        }
    }

    fn renamed(&self, bytes: Vec<u8>) -> Vec<u8> {
        if self.map.is_empty() {
            return bytes;
        }
        match String::from_utf8(bytes) {
            Ok(text) => super::rename::apply(&text, self.map).into_bytes(),
            Err(e) => e.into_bytes(),
        }
    }

    /// The test side's entry of a test file, with the renames applied (a new blob when they
    /// change it).
    fn renamed_tests(&self, c: &RawChange) -> Result<Option<Entry>, ChecksError> {
        Ok(match self.test_side(c) {
            Some(e) if e.mode != "120000" && e.mode != "160000" => {
                let bytes = self
                    .git
                    .show_blob(&e.oid)
                    .map_err(git_err("read a test file"))?;
                let out = self.renamed(bytes.clone());
                if out == bytes {
                    Some(e)
                } else {
                    Some(Entry {
                        mode: e.mode.clone(),
                        oid: self
                            .git
                            .hash_blob(&out)
                            .map_err(git_err("store a renamed test file"))?,
                    })
                }
            }
            other => other,
        })
    }

    /// A mixed file with the code of one side and the test items of the other.
    fn spliced(&self, c: &RawChange) -> Result<Spliced, ChecksError> {
        let (Some(code), Some(tests)) = (self.code_side(c), self.test_side(c)) else {
            // One side has no such file: the code side's file stays as it is.
            return Ok(Spliced::AsCode);
        };
        let read = |e: &Entry| {
            self.git
                .show_blob(&e.oid)
                .map_err(git_err("read a file with tests inside its source"))
        };
        let (code_bytes, test_bytes) = (read(&code)?, read(&tests)?);
        Ok(
            match loki_runner::splice::splice(&c.path, &code_bytes, &test_bytes)
                .map(|b| self.renamed(b))
            {
                Some(bytes) if bytes == code_bytes => Spliced::AsCode,
                Some(bytes) => Spliced::Into(Entry {
                    mode: code.mode.clone(),
                    oid: self
                        .git
                        .hash_blob(&bytes)
                        .map_err(git_err("store a spliced file"))?,
                }),
                None => Spliced::Unsplit,
            },
        )
    }
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

/// The directory `tree` is written into for `role`, its `tree` subdirectory, and whether it
/// was synced from a kept one (see [`Place::kept`]); `boxed` runs get a temporary one.
fn written(
    git: &Git,
    checkout: &Path,
    tree: &str,
    role: &'static str,
    opts: &RunOptions,
    cache_dir: &Path,
    boxed: bool,
) -> Result<(Place, PathBuf, bool), ChecksError> {
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
    if synced {
        return Ok((dir, root, true));
    }
    // Not kept, or a kept directory that cannot be made the tree (what the runs left there
    // cannot be removed): a temporary directory of its own.
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
    Ok((dir, root, false))
}

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
        let (dir, root, synced) = written(git, checkout, tree, role, opts, cache_dir, boxed)?;
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
            env: overlay::tree_env(checks, &opts.env),
            _dir: dir,
        })
    }

    /// `tree` as an overlay on the head's directory `head_root` (whose files are `head_tree`), for
    /// `checks` (as detected there), or `None` when that would not be the same run as in an
    /// exported tree ([`loki_runner::isolate::overlay`]: checks it does not serve, a change it
    /// cannot swap, a directory of the judge's whose path it cannot name).
    pub fn overlay(
        git: &Git,
        head_root: &Path,
        head_tree: &str,
        tree: &str,
        role: &'static str,
        checks: &[Check],
        opts: &RunOptions,
    ) -> Result<Option<SideTree>, ChecksError> {
        if !overlay::applies(checks, &opts.env, head_root) {
            return Ok(None);
        }
        let changes = git
            .raw_changes(head_tree, tree)
            .map_err(|source| ChecksError::Git {
                action: "list what a hybrid changes",
                source,
            })?;
        if !overlay::swaps(&changes, head_root, &opts.env) {
            return Ok(None);
        }
        let dir = Place::temp(role, opts)?;
        let Some(laid) = overlay::write(
            git,
            dir.path(),
            head_root,
            &changes,
            checks,
            &opts.env,
            role,
        )?
        else {
            return Ok(None);
        };
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
            notes: vec![laid.note],
            prepared: loki_runner::isolate::Prepared::default(),
            fence,
            env: laid.env,
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
        let Some(build) = loki_runner::exec::build_check(check) else {
            return Ok(());
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
