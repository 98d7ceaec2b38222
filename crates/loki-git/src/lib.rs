//! Git plumbing for loki, by calling the `git` binary through `loki_process`.
//!
//! Why the binary and not a library: the user's repository is whatever their git makes it
//! (worktrees, partial clones, hooks, LFS filters); the binary is the only implementation that
//! agrees with itself on all of it.
//!
//! Invariants:
//! - Everything that a receipt hashes comes from **plumbing** whose output user configuration
//!   cannot change: [`Git::diff_digest`] hashes `git diff-tree -r -z --raw --no-renames
//!   --no-abbrev <base> <head>` byte for byte.
//! - Every call runs with a closed stdin (but `cat-file --batch`, fed its requests), a timeout, `GIT_TERMINAL_PROMPT=0` (never wait for a
//!   password) and `LC_ALL=C` (stable messages), in the repository's directory.
//! - Nothing here modifies the user's checkout: worktrees are separate directories, snapshots use a
//!   temporary index file, commits are made only where the caller points (a worktree). The one
//!   exception is [`Git::fast_forward`], which `loki apply` calls at the user's request.
//!   [`Git::fetch_branch`] (`loki ci judge` in a CI runner's checkout) adds objects and one
//!   remote-tracking ref, never the files or the index.
//! - **The repository cannot change what loki reads.** Whoever can write `.git/` (an agent in the
//!   user's checkout can) could otherwise make git show loki something other than the files: a
//!   clean filter that stores an edited test file as its original, replace refs or grafts that swap
//!   a base blob, a hook that runs on checkout, an fsmonitor that reports nothing changed. Every
//!   call therefore runs with `GIT_NO_REPLACE_OBJECTS=1`, `GIT_GRAFT_FILE=/dev/null`,
//!   `core.hooksPath=/dev/null`, `core.fsmonitor=false`, `core.autocrlf=false`,
//!   `core.attributesFile=/dev/null`, `core.symlinks=true`, and every filter driver the
//!   repository's configuration defines is overridden to nothing (`filter.<name>.clean=` and
//!   `smudge`/`process` likewise, `required=false`), so blobs are the files' bytes and exports are
//!   the blobs' bytes ([`Git::hardening`]). Diffs that could use text conversion or an external
//!   diff are plumbing or pass `--no-textconv --no-ext-diff`.
//!
//! Failure modes: a git command that fails returns [`GitError::Failed`] with the command line,
//! the exit code and the tail of stderr; git not installed is [`GitError::NotInstalled`].
//!
//! Modules, each adding methods to [`Git`]: `command` (how every call is built and run: the
//! environment, the hardening, errors), `refs` (commits, trees, branches, remotes, dirtiness,
//! ancestry, fast-forwards), `repo` (new repositories, the common directory, a worktree's private
//! git directory), `worktree`, `diff`, `tree` (blobs, tree edits, exports, listings), `blobs`
//! (many blobs in one `cat-file --batch`, and the handle's cache of immutable ones), `fetch` (a
//! CI checkout's target branch, merge bases), `snapshot` (temporary-index
//! snapshots, resetting a working tree, ignore rules), `commit`, `temp` (throwaway files).

mod blobs;
mod command;
mod commit;
mod diff;
mod fetch;
mod refs;
mod repo;
mod snapshot;
mod temp;
mod tree;
mod worktree;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_process as process;

pub use blobs::{BLOB_CACHE_CAP, BatchError, Blobs, parse_batch};
pub use diff::{Change, ChangeKind, DiffStat, Entry, RawChange};
pub use snapshot::runner_loadable;
pub use tree::TreeEdit;

/// Errors from git.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git is not installed or not on PATH; install git (loki works in git repositories)")]
    NotInstalled,
    #[error("`{command}` failed with exit code {code} in {cwd}: {stderr}")]
    Failed {
        command: String,
        code: i32,
        cwd: PathBuf,
        stderr: String,
    },
    #[error("cannot run `{command}`: {source}")]
    Process {
        command: String,
        #[source]
        source: process::ProcessError,
    },
    #[error("unexpected output from `{command}`: {detail}")]
    Parse { command: String, detail: String },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl loki_core::exit::Classify for GitError {
    /// Every git error is a failure: the caller knows whether the revision or path it passed was
    /// the user's, and says so in its own error (`ChecksError::BadRevision`).
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            GitError::NotInstalled
            | GitError::Failed { .. }
            | GitError::Process { .. }
            | GitError::Parse { .. }
            | GitError::Io { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}

/// A repository (or a worktree of one) at `root`.
#[derive(Debug, Clone)]
pub struct Git {
    root: PathBuf,
    program: OsString,
    /// The `-c` arguments that neutralise the repository's filter drivers, read once.
    filters: std::sync::Arc<std::sync::OnceLock<Vec<String>>>,
    /// The author and committer (name, email) of this handle's commits, when the caller fixes it.
    identity: Option<(String, String)>,
    /// Blobs read by [`Git::prefetch`] / [`Git::read_blobs`], shared with clones (`blobs`).
    blobs: blobs::SharedBlobCache,
}

impl Git {
    /// Git operations in `root` (a repository root or a linked worktree).
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Git {
        Git {
            root: root.into(),
            program: OsString::from("git"),
            filters: std::sync::Arc::default(),
            identity: None,
            blobs: std::sync::Arc::default(),
        }
    }

    /// Commits made through this handle are authored and committed by `name <email>`, whatever
    /// git's configuration or the environment says (a demo or fixture repository whose history
    /// must not carry the user's name).
    #[must_use]
    pub fn authored_by(mut self, name: impl Into<String>, email: impl Into<String>) -> Git {
        self.identity = Some((name.into(), email.into()));
        self
    }

    /// Uses another git executable (a path or a name looked up on PATH).
    #[must_use]
    pub fn with_program(mut self, program: impl Into<OsString>) -> Git {
        self.program = program.into();
        self
    }

    /// The directory git runs in.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }
}
