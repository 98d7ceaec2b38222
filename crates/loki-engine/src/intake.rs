//! The intake stage: the base commit, the isolated worktree, the repository map and the test map.
//!
//! - [`preflight`] (before a run is even recorded): the repository has a commit and no tracked
//!   file has uncommitted changes (untracked files do not count: they are not in the base). A dirty
//!   tree is refused with the files named (exit 2): loki builds from a commit, and a change the user
//!   has not committed would be silently left out.
//! - [`run`]: records the base sha and tree, creates the worktree `.loki/worktrees/<run-id>` on the
//!   new branch `loki/<run-id>` at the base, the agent's [`Fence`], the [`RepoMap`] (cached by tree
//!   in `$LOKI_HOME/cache/repomap/`) and the test map ([`TestMap`]: the checks of each package and
//!   the test files). The user's checkout is never written.
//! - Environments: a worktree holds only tracked files, so the user's virtualenv (ignored by git)
//!   is not in it; the checks use the checkout's instead
//!   ([`loki_checks::detect::use_checkout_envs`]), and nothing is added to the worktree.

use std::path::{Path, PathBuf};

use loki_checks::Check;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_git::Git;

use crate::EngineError;
use crate::isolation::Fence;
use crate::repomap::{MapSource, RepoMap};

/// The test map: what runs the tests of each package, and which files are tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestMap {
    pub checks: Vec<Check>,
    pub test_files: Vec<String>,
}

impl TestMap {
    /// The checks impacted by a set of changed files.
    #[must_use]
    pub fn impacted(&self, changed: &[String]) -> Vec<Check> {
        crate::verify::impacted(&self.checks, changed, false).0
    }
}

/// What intake established.
#[derive(Debug)]
pub struct Intake {
    pub base: String,
    pub base_tree: String,
    pub origin: Option<String>,
    pub branch: String,
    pub worktree: PathBuf,
    pub map: RepoMap,
    /// Whether the map came from the cache, an earlier tree's map, or scratch.
    pub map_source: MapSource,
    pub tests: TestMap,
    pub fence: Fence,
    /// Holds the agent's private home and git directory; removed when the run ends.
    pub private: tempfile::TempDir,
}

/// The base commit, after checking that the tree is clean.
pub fn preflight(repo: &Repo) -> Result<String, EngineError> {
    let git = Git::new(&repo.root);
    let base = git.head()?.ok_or(EngineError::NoCommits)?;
    let dirty = git.dirty_tracked()?;
    if !dirty.is_empty() {
        return Err(EngineError::DirtyTree { files: dirty });
    }
    Ok(base)
}

/// The branch of a run.
#[must_use]
pub fn branch_of(run: &RunId) -> String {
    format!("loki/{run}")
}

/// The repository's shared `.git` directory (the object store), also from a linked worktree.
fn git_common_dir(root: &Path) -> PathBuf {
    let dot_git = root.join(".git");
    if dot_git.is_dir() {
        return dot_git;
    }
    let gitdir = std::fs::read_to_string(&dot_git).ok().and_then(|t| {
        t.trim()
            .strip_prefix("gitdir:")
            .map(|d| root.join(d.trim()))
    });
    match gitdir {
        Some(d) => match std::fs::read_to_string(d.join("commondir")) {
            Ok(c) => d.join(c.trim()),
            Err(_) => d,
        },
        None => dot_git,
    }
}

/// Runs intake for run `run` from `base` (see the module doc).
pub fn run(repo: &Repo, run: &RunId, base: &str, cache_dir: &Path) -> Result<Intake, EngineError> {
    let git = Git::new(&repo.root);
    let base_tree = git.tree_of(base)?;
    let origin = git.origin_url()?;
    let branch = branch_of(run);
    let worktree = repo.worktree_dir(run);
    if let Some(parent) = worktree.parent() {
        std::fs::create_dir_all(parent).map_err(|e| EngineError::io("create", parent, e))?;
    }
    git.worktree_add(&worktree, &branch, base)?;
    let private = tempfile::Builder::new()
        .prefix("loki-agent-")
        .tempdir()
        .map_err(|e| EngineError::io("create a private directory in", std::env::temp_dir(), e))?;
    let fence = Fence::create(
        private.path(),
        &worktree,
        &git_common_dir(&repo.root),
        &branch,
        base,
    )?;
    let files = Git::new(&worktree).ls_tree_blobs(base)?;
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let (map, map_source) = RepoMap::load_or_build(cache_dir, &worktree, &base_tree, &files)?;
    let mut checks = loki_checks::detect(&worktree)?;
    loki_checks::detect::use_checkout_envs(&mut checks, &repo.root);
    let test_files = paths
        .iter()
        .filter(|p| loki_checks::integrity::is_test_path(p))
        .cloned()
        .collect();
    Ok(Intake {
        base: base.to_string(),
        base_tree,
        origin,
        branch,
        worktree,
        map,
        map_source,
        tests: TestMap { checks, test_files },
        fence,
        private,
    })
}
