//! The trees the judge runs suites in, other than the head: the base, and the hybrids (head code
//! with the base's tests, base code with the head's tests).
//!
//! A tree is a git tree id. [`hybrid`] builds one from two others in a temporary index: for each
//! test-owned path the change touched, the entry of the side the tests come from (a path absent
//! there is removed); for each mixed source file (tests inside source: Rust `#[cfg(test)]`
//! modules and doctests, Python doctests, vitest in-source blocks) a new blob with the code of one
//! side and the test items of the other ([`crate::splice`]). A mixed file that cannot be split
//! keeps the code side's bytes, and the hybrid says so in [`Hybrid::unsplit`]: restoring the whole
//! file would restore its code too, and the run would prove nothing.
//!
//! [`SideTree::export`] writes a tree into its own temporary directory (the user's checkout,
//! index and worktree list are untouched) and prepares it with [`crate::isolate::prepare`], so
//! the suites that run there execute that tree's code. The directory lives as long as the
//! `SideTree`, so reruns reuse its builds.

use std::path::{Path, PathBuf};

use loki_git::{Entry, Git, RawChange, TreeEdit};

use crate::ChecksError;
use crate::baseline::absent_result;
use crate::detect::Check;
use crate::exec::{CheckResult, RunOptions, run_check};
use crate::select::{Selection, narrowed};

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
                match crate::splice::splice(&o.change.path, &code_bytes, &test_bytes).map(renamed) {
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
    prepared: crate::isolate::Prepared,
    pub notes: Vec<String>,
    /// The fence of the runs here (their own tree and build directory writable).
    fence: Option<crate::exec::RunFence>,
    _dir: tempfile::TempDir,
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
        let prefix = format!("loki-{role}-");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix);
        // A fenced judge keeps its trees in its private directory, out of other runs' reach.
        let dir = match &opts.fence {
            Some(f) => builder.tempdir_in(&f.private),
            None => builder.tempdir(),
        }
        .map_err(|source| ChecksError::Temp {
            check: role.into(),
            source,
        })?;
        let root = dir.path().join("tree");
        git.export_tree(tree, &root)
            .map_err(|source| ChecksError::Git {
                action: "export a tree to run its tests",
                source,
            })?;
        let prepared =
            crate::isolate::prepare(checkout, &root, checks, role, &opts.env, cache_dir)?;
        let fence = opts.fence.as_ref().map(|f| {
            let mut write = vec![dir.path().to_path_buf()];
            write.extend(prepared.cargo_target_dir().map(Path::to_path_buf));
            write.extend(prepared.evidence_dir());
            crate::exec::RunFence {
                scratch: dir.path().join("runs"),
                write,
                ..f.clone()
            }
        });
        Ok(SideTree {
            tree: tree.to_owned(),
            role,
            root,
            notes: prepared.notes().to_vec(),
            prepared,
            fence,
            _dir: dir,
        })
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
            env: self.prepared.apply(opts.env.clone()),
            rerun_failed: false,
            fence: self.fence.clone(),
            ..opts.clone()
        }
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
                let mut r = run_check(&to_run, &opts)?;
                // The result keeps the check's own command line; the log shows the narrowed one.
                r.cmd = c.command_line();
                Ok(r)
            })
            .collect()
    }
}
