//! Linked worktrees: created on a new branch or detached, removed with their bookkeeping. A
//! worktree is a separate directory, so the user's checkout is never written.

use std::path::Path;

use crate::{Git, GitError};

impl Git {
    /// Creates a linked worktree at `path` on a new branch `branch` starting at `base`.
    pub fn worktree_add(&self, path: &Path, branch: &str, base: &str) -> Result<(), GitError> {
        let p = path.to_string_lossy();
        self.run(&["worktree", "add", "-q", "-b", branch, &p, base])
            .map(drop)
    }

    /// Creates a detached linked worktree at `path` checked out at `rev`.
    pub fn worktree_add_detached(&self, path: &Path, rev: &str) -> Result<(), GitError> {
        let p = path.to_string_lossy();
        self.run(&["worktree", "add", "-q", "--detach", &p, rev])
            .map(drop)
    }

    /// Removes a linked worktree (even with changes in it) and prunes its bookkeeping.
    pub fn worktree_remove(&self, path: &Path) -> Result<(), GitError> {
        let p = path.to_string_lossy();
        self.run(&["worktree", "remove", "--force", &p])?;
        self.run(&["worktree", "prune"]).map(drop)
    }
}
