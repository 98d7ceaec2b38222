//! Repositories loki creates or locates: a new repository (`git init`), a repository's common git
//! directory, the private git directory of a run's worktree, and the one of a directory that
//! starts empty (the wall author's).
//!
//! # The private git directory
//! The agent's commands run with `GIT_DIR` pointed at a fresh repository of their own instead of
//! the user's: its only ref is the run's branch at the base commit, HEAD is on it and its index is
//! read from it, and it borrows the user's object store through `objects/info/alternates`. So the
//! base and its history are all there, but `git log --all` never shows the user's other branches
//! or earlier runs' commits, and nothing the agent does to refs reaches the user's repository.

use std::path::{Path, PathBuf};

use crate::{Git, GitError};

impl Git {
    /// Creates an empty repository at [`Git::root`] (the directory too, when missing), its first
    /// branch named `initial_branch` (git's default when `None`).
    pub fn init(&self, initial_branch: Option<&str>) -> Result<(), GitError> {
        std::fs::create_dir_all(&self.root).map_err(|source| GitError::Io {
            action: "create",
            path: self.root.clone(),
            source,
        })?;
        let mut args = vec!["init", "-q"];
        if let Some(branch) = initial_branch {
            args.extend(["-b", branch]);
        }
        self.run(&args).map(drop)
    }

    /// A throwaway copy of this repository at `dest` with `rev` checked out (detached): a clone
    /// that borrows this repository's objects (`--shared`), so it costs a checkout, not a copy of
    /// the history, and nothing done in it reaches this repository. `loki improve` replays runs
    /// in such copies.
    pub fn clone_shared(&self, dest: &Path, rev: &str) -> Result<Git, GitError> {
        let (src, to) = (self.root.display().to_string(), dest.display().to_string());
        self.run(&["clone", "-q", "--shared", "--no-checkout", &src, &to])?;
        let copy = Git::new(dest).with_program(self.program.clone());
        copy.run(&["checkout", "-q", "--detach", rev])?;
        Ok(copy)
    }

    /// The repository's common git directory (the `.git` of the main checkout, also when
    /// [`Git::root`] is a linked worktree): where the object store and the refs live.
    pub fn common_dir(&self) -> Result<PathBuf, GitError> {
        let dir = PathBuf::from(self.run_text(&["rev-parse", "--git-common-dir"])?);
        // git prints it relative to the directory it ran in, unless it is elsewhere.
        Ok(if dir.is_absolute() {
            dir
        } else {
            self.root.join(dir)
        })
    }

    /// Creates the private git directory (see the module doc) of the work tree at [`Git::root`],
    /// whose checkout is `base` on `branch`: a new repository at `git_root` borrowing the objects
    /// of `objects_from` (a common git directory, [`Git::common_dir`]). Returns its `.git`
    /// directory, the `GIT_DIR` to give with `GIT_WORK_TREE` set to [`Git::root`].
    pub fn private_git_dir(
        &self,
        git_root: &Path,
        objects_from: &Path,
        branch: &str,
        base: &str,
    ) -> Result<PathBuf, GitError> {
        Git::new(git_root)
            .with_program(self.program.clone())
            .init(None)?;
        let git_dir = git_root.join(".git");
        let alternates = git_dir.join("objects/info/alternates");
        let objects = objects_from.join("objects");
        loki_core::fs::write_atomic(&alternates, format!("{}\n", objects.display()).as_bytes())
            .map_err(|e| GitError::Io {
                action: "write",
                path: alternates.clone(),
                source: std::io::Error::other(e.to_string()),
            })?;
        let private = |args: &[&str]| {
            self.spec(args)
                .env("GIT_DIR", &git_dir)
                .env("GIT_WORK_TREE", &self.root)
        };
        let reference = format!("refs/heads/{branch}");
        self.run_spec(&private(&["update-ref", &reference, base]))?;
        self.run_spec(&private(&["symbolic-ref", "HEAD", &reference]))?;
        self.run_spec(&private(&["read-tree", "HEAD"]))?;
        Ok(git_dir)
    }

    /// Creates the private git directory of a work tree that starts empty ([`Git::root`], the
    /// wall author's directory): a new repository at `git_root` whose branch `main` holds one
    /// commit of the empty tree, HEAD on it. Returns its `.git` directory, the `GIT_DIR` to give
    /// with `GIT_WORK_TREE` set to [`Git::root`]. A program started there is in a repository
    /// (aider makes none of its own, with a `.gitignore`), and nothing of it is in the work tree.
    pub fn private_empty_git_dir(&self, git_root: &Path) -> Result<PathBuf, GitError> {
        let repo = Git::new(git_root).with_program(self.program.clone());
        repo.init(Some("main"))?;
        // The empty index's tree: the empty tree, in the repository's own hash.
        let tree = repo.run_text(&["write-tree"])?;
        let commit = repo.commit_tree(&tree, "loki: an empty directory")?;
        repo.run(&["update-ref", "refs/heads/main", &commit])?;
        Ok(git_root.join(".git"))
    }
}
