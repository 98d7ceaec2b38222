//! Reading and moving refs: commits, trees, HEAD, branches, the origin remote, and whether the
//! checkout has uncommitted changes.

use crate::{Git, GitError};

impl Git {
    /// `git --version`, e.g. `git version 2.47.3`.
    pub fn version(&self) -> Result<String, GitError> {
        self.run_text(&["--version"])
    }

    /// The full commit id of `rev`.
    pub fn rev_parse(&self, rev: &str) -> Result<String, GitError> {
        self.run_text(&[
            "rev-parse",
            "--verify",
            "--end-of-options",
            &format!("{rev}^{{commit}}"),
        ])
    }

    /// The tree id of `rev`.
    pub fn tree_of(&self, rev: &str) -> Result<String, GitError> {
        self.run_text(&[
            "rev-parse",
            "--verify",
            "--end-of-options",
            &format!("{rev}^{{tree}}"),
        ])
    }

    /// The current commit, or `None` in a repository without commits.
    pub fn head(&self) -> Result<Option<String>, GitError> {
        match self.rev_parse("HEAD") {
            Ok(h) => Ok(Some(h)),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The current branch name, or `None` when HEAD is detached.
    pub fn current_branch(&self) -> Result<Option<String>, GitError> {
        let b = self.run_text(&["symbolic-ref", "-q", "--short", "HEAD"]);
        match b {
            Ok(b) if !b.is_empty() => Ok(Some(b)),
            Ok(_) | Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Pushes `branch` to `remote`, creating or moving it there (`--force-with-lease`: a run's
    /// branch is loki's own, and a second publish of the same run updates it). The user's git
    /// configuration and credentials apply, as for their own `git push`.
    pub fn push_branch(&self, remote: &str, branch: &str) -> Result<(), GitError> {
        let refspec = format!("refs/heads/{branch}:refs/heads/{branch}");
        let spec = self.user_spec(&["push", "--force-with-lease", "--quiet", remote, &refspec]);
        self.run_spec(&spec).map(drop)
    }

    /// The URL of the remote `name`, if there is one.
    pub fn remote_url(&self, name: &str) -> Result<Option<String>, GitError> {
        match self.run_text(&["remote", "get-url", name]) {
            Ok(u) if !u.is_empty() => Ok(Some(u)),
            Ok(_) | Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The `origin` remote's URL, if there is one.
    pub fn origin_url(&self) -> Result<Option<String>, GitError> {
        match self.run_text(&["remote", "get-url", "origin"]) {
            Ok(u) if !u.is_empty() => Ok(Some(u)),
            Ok(_) | Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Tracked files with uncommitted changes (staged or not). Untracked files do not count.
    pub fn dirty_tracked(&self) -> Result<Vec<String>, GitError> {
        let out = self.run(&["status", "--porcelain=v1", "-z", "--untracked-files=no"])?;
        let mut paths = Vec::new();
        let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
        while let Some(f) = fields.next() {
            if f.len() < 4 {
                continue;
            }
            paths.push(String::from_utf8_lossy(&f[3..]).into_owned());
            // A rename or copy is followed by its source path.
            if matches!(f[0], b'R' | b'C') {
                fields.next();
            }
        }
        Ok(paths)
    }

    /// Whether `ancestor` is an ancestor of `descendant` (or the same commit): whether moving a
    /// branch from one to the other is a fast-forward.
    pub fn is_ancestor(&self, ancestor: &str, descendant: &str) -> Result<bool, GitError> {
        match self.run(&[
            "merge-base",
            "--is-ancestor",
            "--end-of-options",
            ancestor,
            descendant,
        ]) {
            Ok(_) => Ok(true),
            // Exit 1 is the answer "no"; anything else (an unknown revision is 128) is an error.
            Err(GitError::Failed { code: 1, .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Fast-forwards the checked-out branch, index and files to `rev` (`merge --ff-only`); fails
    /// when that is not a fast-forward. The only call that writes the user's checkout, so it runs
    /// as the user's own git would, with their filters, line endings and hooks: a checkout made
    /// with the hardening would leave, say, LFS pointers where their files were. Nothing is read
    /// back from it.
    pub fn fast_forward(&self, rev: &str) -> Result<(), GitError> {
        self.run_spec(&self.user_spec(&["merge", "--ff-only", "-q", rev]))
            .map(drop)
    }

    /// Deletes a branch (force: it may be unmerged).
    pub fn delete_branch(&self, branch: &str) -> Result<(), GitError> {
        self.run(&["branch", "-q", "-D", branch]).map(drop)
    }
}
