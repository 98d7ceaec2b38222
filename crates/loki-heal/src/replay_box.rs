//! The box a fix's verifying replay runs in: the patched code is the model's, so loki's home (its
//! signing key, other runs' state) and a key file named by `LOKI_SIGNING_KEY_FILE` are out of
//! reach, and the places from which code would run later outside any box are read-only: every
//! `PATH` directory outside the checkout (a planted `git` or `python3`) and the checkout's git
//! directory (hooks, config). Everything else stays as the user's own command had it when it
//! crashed (its files, its network, its secrets by name): a tighter box would change what the
//! replay proves (a write the program needs, refused, reads as a different failure).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_core::layout::Repo;

/// The wrapper of a fix's verifying replay run by this loki (`exe`): [`wrapper`] when `exe` is
/// known and the kernel confines ([`loki_process::confine::available`]), else none (the replay
/// runs unboxed, as the user's own command did).
#[must_use]
pub fn for_fix(exe: Option<&Path>, home: &Path, repo: &Repo) -> Vec<OsString> {
    match exe {
        Some(exe) if loki_process::confine::available() => wrapper(exe, home, repo),
        _ => Vec::new(),
    }
}

/// The wrapper argv (`exe __confine …`) confining a replay in `repo` away from loki's `home`.
/// The caller checks that confinement is available ([`loki_process::confine::available`]).
#[must_use]
pub fn wrapper(exe: &Path, home: &Path, repo: &Repo) -> Vec<OsString> {
    // loki's home hidden by a mount where the kernel allows, so the directory around it (the
    // user's home, a temporary directory) keeps taking the program's new files; else denied.
    let masked = vec![home.to_path_buf()];
    let deny: Vec<PathBuf> = loki_receipt::KeyEnv::from_process()
        .signing_key_file
        .into_iter()
        .collect();
    let root = std::fs::canonicalize(&repo.root).unwrap_or_else(|_| repo.root.clone());
    // The git directory by a mount where the kernel allows (the checkout's top keeps taking
    // new files, as the program may need), else by Landlock.
    let mut pinned = vec![root.join(".git")];
    pinned.extend(repo.common_git_dir());
    let mut read_only = Vec::new();
    // A PATH entry that holds the checkout (`.`, `/usr/src`…) or is `/` would make the checkout
    // itself read-only: such entries keep the user's rights.
    read_only.extend(
        std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .filter(|d| d.is_absolute() && d.is_dir())
            .filter_map(|d| std::fs::canonicalize(&d).ok())
            // Inside the checkout (a virtualenv's `bin`) the patch could write anyway.
            .filter(|d| {
                !root.starts_with(d)
                    && !d.starts_with(&root)
                    && !std::env::temp_dir().starts_with(d)
            }),
    );
    let policy = loki_process::confine::Policy {
        deny,
        write: vec![PathBuf::from("/")],
        read_only,
        pinned,
        masked,
        ..loki_process::confine::Policy::default()
    };
    policy.wrapper(exe)
}
