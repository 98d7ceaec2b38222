//! Where loki keeps things.
//!
//! Repository state lives under `<repo>/.loki/` (created on demand, listed in the repository's
//! `info/exclude` so it never shows up in `git status`):
//!
//! ```text
//! .loki/runs/<run-id>/      run.json, events.jsonl, receipt.*, transcript.jsonl, wall/, checks/
//! .loki/worktrees/<run-id>/ the isolated checkout a build run works in
//! .loki/agent/              instructions.md, skills/<name>/SKILL.md
//! .loki/improve/            the self-improvement cycle's state
//! ```
//!
//! User state lives under `$LOKI_HOME` (default `~/.loki`): `keys/` (0700), `cache/`, `control/`.
//!
//! Refusals: a `.loki` that is a regular file, or a symlink that resolves outside the repository,
//! is never written through (a symlink escape would let a checkout redirect loki's writes).

use std::fs;
use std::path::{Path, PathBuf};

use crate::{CoreError, RunId};

/// Name of the per-repository state directory.
pub const LOKI_DIR: &str = ".loki";
/// The line loki adds to the repository's `info/exclude`.
const EXCLUDE_LINE: &str = "/.loki/";

/// The repository loki is working in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// The top of the working tree (the directory holding `.git`).
    pub root: PathBuf,
}

impl Repo {
    /// Finds the repository containing `start` by walking up to the first `.git` (a directory, or a
    /// file as in linked worktrees and submodules).
    pub fn discover(start: &Path) -> Result<Repo, CoreError> {
        let start_abs = fs::canonicalize(start).map_err(|e| CoreError::io("resolve", start, e))?;
        let mut dir = start_abs.as_path();
        loop {
            if dir.join(".git").exists() {
                return Ok(Repo {
                    root: dir.to_path_buf(),
                });
            }
            match dir.parent() {
                Some(p) => dir = p,
                None => return Err(CoreError::NotARepo { start: start_abs }),
            }
        }
    }

    /// `<root>/.loki`, not created.
    #[must_use]
    pub fn loki_dir(&self) -> PathBuf {
        self.root.join(LOKI_DIR)
    }

    /// `<root>/.loki/runs`, not created.
    #[must_use]
    pub fn runs_dir(&self) -> PathBuf {
        self.loki_dir().join("runs")
    }

    /// `<root>/.loki/runs/<id>`, not created.
    #[must_use]
    pub fn run_dir(&self, id: &RunId) -> PathBuf {
        self.runs_dir().join(id.as_str())
    }

    /// `<root>/.loki/worktrees/<id>`, not created.
    #[must_use]
    pub fn worktree_dir(&self, id: &RunId) -> PathBuf {
        self.loki_dir().join("worktrees").join(id.as_str())
    }

    /// Checks `.loki` without creating it: absent, a directory inside the repository, or refused.
    pub fn check_loki_dir(&self) -> Result<(), CoreError> {
        let dir = self.loki_dir();
        let meta = match fs::symlink_metadata(&dir) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(CoreError::io("inspect", dir, e)),
        };
        if meta.file_type().is_symlink() {
            let target = fs::canonicalize(&dir).map_err(|e| CoreError::io("resolve", &dir, e))?;
            let root = fs::canonicalize(&self.root)
                .map_err(|e| CoreError::io("resolve", &self.root, e))?;
            if !target.starts_with(&root) {
                return Err(CoreError::BadLokiDir {
                    path: dir,
                    what: format!("a symlink to {} (outside the repository)", target.display()),
                });
            }
            if !target.is_dir() {
                return Err(CoreError::BadLokiDir {
                    path: dir,
                    what: "a symlink to something that is not a directory".to_string(),
                });
            }
        } else if !meta.is_dir() {
            return Err(CoreError::BadLokiDir {
                path: dir,
                what: "a file, not a directory".to_string(),
            });
        }
        Ok(())
    }

    /// Creates `.loki/` (after [`Repo::check_loki_dir`]) and lists it in the repository's
    /// `info/exclude`. Idempotent.
    pub fn ensure_loki_dir(&self) -> Result<PathBuf, CoreError> {
        self.check_loki_dir()?;
        let dir = self.loki_dir();
        fs::create_dir_all(dir.join("runs")).map_err(|e| CoreError::io("create", &dir, e))?;
        if let Some(exclude) = self.exclude_file() {
            add_exclude(&exclude)?;
        }
        Ok(dir)
    }

    /// The `info/exclude` file of this repository's git directory (the common directory for a
    /// linked worktree), or `None` when `.git` cannot be followed.
    fn exclude_file(&self) -> Option<PathBuf> {
        Some(self.common_git_dir()?.join("info").join("exclude"))
    }

    /// The repository's common git directory: `.git` itself, or for a linked worktree or a
    /// submodule (whose `.git` is a `gitdir:` file) the directory it points to, followed to the
    /// shared one through `commondir`. `None` when `.git` cannot be followed.
    #[must_use]
    pub fn common_git_dir(&self) -> Option<PathBuf> {
        let dotgit = self.root.join(".git");
        let git_dir = if dotgit.is_dir() {
            dotgit
        } else {
            // Linked worktree or submodule: ".git" is a file "gitdir: <path>".
            let text = fs::read_to_string(&dotgit).ok()?;
            let rel = text.trim().strip_prefix("gitdir:")?.trim();
            let gd = self.root.join(rel);
            // A linked worktree's own dir has "commondir" pointing at the shared one.
            match fs::read_to_string(gd.join("commondir")) {
                Ok(c) => gd.join(c.trim()),
                Err(_) => gd,
            }
        };
        Some(git_dir)
    }
}

fn add_exclude(exclude: &Path) -> Result<(), CoreError> {
    let existing = match fs::read_to_string(exclude) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(CoreError::io("read", exclude, e)),
    };
    if existing
        .lines()
        .any(|l| matches!(l.trim(), "/.loki/" | ".loki" | ".loki/" | "/.loki"))
    {
        return Ok(());
    }
    if let Some(parent) = exclude.parent() {
        fs::create_dir_all(parent).map_err(|e| CoreError::io("create", parent, e))?;
    }
    let mut next = existing;
    if !next.is_empty() && !next.ends_with('\n') {
        next.push('\n');
    }
    next.push_str(EXCLUDE_LINE);
    next.push('\n');
    crate::fs::write_atomic(exclude, next.as_bytes())
}

/// `$LOKI_HOME`, else `~/.loki`. `None` only when neither `LOKI_HOME` nor `HOME` is set.
#[must_use]
pub fn loki_home() -> Option<PathBuf> {
    if let Some(h) = crate::env::LOKI_HOME.get_os() {
        return Some(PathBuf::from(h));
    }
    crate::env::HOME
        .get_os()
        .map(|h| PathBuf::from(h).join(".loki"))
}

/// `$LOKI_HOME/keys/receipt-ed25519.pem`: the default signing key.
#[must_use]
pub fn default_signing_key_path(home: &Path) -> PathBuf {
    home.join("keys").join("receipt-ed25519.pem")
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;
    use crate::exit::Classify as _;

    fn fake_repo() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join(".git/info")).unwrap();
        d
    }

    #[test]
    fn discovers_root_from_a_subdirectory() {
        let d = fake_repo();
        fs::create_dir_all(d.path().join("a/b")).unwrap();
        let repo = Repo::discover(&d.path().join("a/b")).unwrap();
        assert_eq!(repo.root, fs::canonicalize(d.path()).unwrap());
    }

    #[test]
    fn outside_a_repo_is_a_clear_error() {
        let d = tempfile::tempdir().unwrap();
        let err = Repo::discover(d.path()).unwrap_err();
        assert!(err.to_string().contains("not inside a git repository"));
        assert_eq!(err.exit_class(), crate::exit::ExitClass::Usage);
    }

    #[test]
    fn ensure_creates_runs_and_excludes_once() {
        let d = fake_repo();
        let repo = Repo::discover(d.path()).unwrap();
        repo.ensure_loki_dir().unwrap();
        repo.ensure_loki_dir().unwrap();
        assert!(repo.runs_dir().is_dir());
        let ex = fs::read_to_string(d.path().join(".git/info/exclude")).unwrap();
        assert_eq!(ex.matches("/.loki/").count(), 1);
    }

    #[test]
    fn a_file_named_loki_is_refused() {
        let d = fake_repo();
        fs::write(d.path().join(".loki"), "x").unwrap();
        let repo = Repo::discover(d.path()).unwrap();
        let err = repo.ensure_loki_dir().unwrap_err().to_string();
        assert!(err.contains("a file, not a directory"), "{err}");
    }

    #[test]
    fn a_symlink_out_of_the_repo_is_refused() {
        let d = fake_repo();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), d.path().join(".loki")).unwrap();
        let repo = Repo::discover(d.path()).unwrap();
        let err = repo.ensure_loki_dir().unwrap_err().to_string();
        assert!(err.contains("outside the repository"), "{err}");
        assert!(fs::read_dir(outside.path()).unwrap().next().is_none());
    }

    #[test]
    fn linked_worktree_excludes_in_the_common_dir() {
        let d = fake_repo();
        let wt = d.path().join("wt");
        let gd = d.path().join(".git/worktrees/wt");
        fs::create_dir_all(&wt).unwrap();
        fs::create_dir_all(&gd).unwrap();
        fs::write(wt.join(".git"), format!("gitdir: {}\n", gd.display())).unwrap();
        fs::write(gd.join("commondir"), "../..\n").unwrap();
        let repo = Repo::discover(&wt).unwrap();
        repo.ensure_loki_dir().unwrap();
        let ex = fs::read_to_string(d.path().join(".git/info/exclude")).unwrap();
        assert!(ex.contains("/.loki/"));
    }
}
