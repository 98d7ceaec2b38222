//! Commits: the build's own commit in its worktree, dangling snapshot commits whose id depends only
//! on the tree, and a compare-and-swap commit onto a branch. Hooks never run (`--no-verify`, and
//! `core.hooksPath=/dev/null` for every call), nothing is signed, and when git has no identity a
//! fallback one is used so a commit can always be made.

use loki_process::Spec;

use crate::temp::TempFile;
use crate::{Git, GitError};

/// Identity used only when git has none configured (a fresh CI machine).
const IDENTITY_FALLBACK: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "loki"),
    ("GIT_AUTHOR_EMAIL", "loki@localhost"),
    ("GIT_COMMITTER_NAME", "loki"),
    ("GIT_COMMITTER_EMAIL", "loki@localhost"),
];
/// Fixed identity and dates for snapshot commits, so the same tree gives the same commit id.
const SNAPSHOT_IDENTITY: [(&str, &str); 6] = [
    ("GIT_AUTHOR_NAME", "loki"),
    ("GIT_AUTHOR_EMAIL", "loki@localhost"),
    ("GIT_AUTHOR_DATE", "1970-01-01T00:00:00Z"),
    ("GIT_COMMITTER_NAME", "loki"),
    ("GIT_COMMITTER_EMAIL", "loki@localhost"),
    ("GIT_COMMITTER_DATE", "1970-01-01T00:00:00Z"),
];

impl Git {
    /// `spec` with the identity fixed by [`Git::authored_by`], or else a fallback identity when
    /// git has none configured (a fresh CI machine), so a commit can always be made; a configured
    /// identity, or one in the environment, wins over the fallback.
    pub(crate) fn with_identity(&self, mut spec: Spec) -> Spec {
        if let Some((name, email)) = &self.identity {
            return spec
                .env("GIT_AUTHOR_NAME", name)
                .env("GIT_AUTHOR_EMAIL", email)
                .env("GIT_COMMITTER_NAME", name)
                .env("GIT_COMMITTER_EMAIL", email);
        }
        let has_identity = self
            .run_text(&["config", "user.email"])
            .is_ok_and(|e| !e.is_empty());
        if !has_identity {
            for (var, fallback) in IDENTITY_FALLBACK {
                if std::env::var_os(var).is_none() {
                    spec = spec.env(var, fallback);
                }
            }
        }
        spec
    }

    /// Stages everything except `exclude` paths and commits with `message`; returns the commit id,
    /// or `None` when there was nothing to commit.
    pub fn commit_all(&self, message: &str, exclude: &[&str]) -> Result<Option<String>, GitError> {
        let mut args = vec!["add", "-A", "--", "."];
        let excludes: Vec<String> = exclude.iter().map(|e| format!(":(exclude){e}")).collect();
        args.extend(excludes.iter().map(String::as_str));
        self.run(&args)?;
        let staged = self.run(&["diff", "--cached", "--name-only", "-z"])?;
        if staged.is_empty() {
            return Ok(None);
        }
        let msg = TempFile::with_content("MSG", message.as_bytes())?;
        let msg_arg = msg.path().to_string_lossy().into_owned();
        let spec = self.with_identity(self.spec(&[
            "commit",
            "-q",
            "--no-verify",
            "--no-gpg-sign",
            "-F",
            &msg_arg,
        ]));
        self.run_spec(&spec)?;
        self.head()
    }

    /// A commit object for `tree` with no parent and no ref (a dangling commit), so that a snapshot
    /// can be used wherever a commit is expected. Its id depends only on the tree and the message:
    /// author and committer are fixed.
    pub fn commit_tree(&self, tree: &str, message: &str) -> Result<String, GitError> {
        let mut spec = self.spec(&["commit-tree", tree, "-m", message]);
        for (var, value) in SNAPSHOT_IDENTITY {
            spec = spec.env(var, value);
        }
        let out = self.run_spec(&spec)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// A commit of `tree` on top of `parent`, on no branch (no ref moves, files on disk are not
    /// touched). It lives as long as something refers to it: a branch, or git's prune grace period.
    pub fn commit_tree_with_parent(
        &self,
        tree: &str,
        parent: &str,
        message: &str,
    ) -> Result<String, GitError> {
        let msg = TempFile::with_content("MSG", message.as_bytes())?;
        let msg_arg = msg.path().to_string_lossy().into_owned();
        let spec =
            self.with_identity(self.spec(&["commit-tree", tree, "-p", parent, "-F", &msg_arg]));
        let out = self.run_spec(&spec)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// Commits `tree` on top of `parent` and moves `branch` to it, but only if the branch still
    /// points at `parent` (compare-and-swap, so a concurrent change is never overwritten).
    /// Returns the new commit. Files on disk are not touched.
    pub fn commit_tree_on_branch(
        &self,
        tree: &str,
        parent: &str,
        branch: &str,
        message: &str,
    ) -> Result<String, GitError> {
        let commit = self.commit_tree_with_parent(tree, parent, message)?;
        let reference = format!("refs/heads/{branch}");
        self.run(&[
            "update-ref",
            "-m",
            "loki: commit the verified tree",
            &reference,
            &commit,
            parent,
        ])?;
        // Where the branch is checked out here, keep the index in step with it (files on disk
        // stay as they are); any other checkout is left alone.
        if self.current_branch()?.as_deref() == Some(branch) {
            self.run(&["reset", "-q"])?;
        }
        Ok(commit)
    }
}
