//! Isolation of the untrusted agent: what its commands (and the tests it may have written) can see.
//!
//! # What the agent gets
//! - **A scrubbed environment** ([`loki_core::process::scrubbed_env`]: no tokens, no keys, no
//!   `LOKI_RECEIPT_*`), without `LOKI_HOME`, with `HOME` and `XDG_CONFIG_HOME` pointed at a
//!   run-private directory outside the repository. Tool homes that live under the real `HOME`
//!   (`CARGO_HOME`, `RUSTUP_HOME`, `PYENV_ROOT`, `GOPATH`, `NVM_DIR`) are set to where they really
//!   are, so toolchains keep working; they hold no secrets loki knows of.
//! - **A private git directory** (`GIT_DIR`, `GIT_WORK_TREE`): a fresh repository whose only ref is
//!   the run's branch at the base commit and which borrows the object store through
//!   `objects/info/alternates`. `git log --all` therefore shows the base and its history, never the
//!   user's other branches or earlier runs' commits.
//!
//! # How it is applied
//! [`Fence::env`] is the whole environment of everything the agent starts: the built-in loop's
//! `run` tool gets it as `ToolOptions::run_env`, checks run with it, and CLI agents get it plus
//! the credentials they need to talk to their own model.
//!
//! # Filesystem confinement
//! Where the kernel has Landlock, everything above also runs confined ([`Fence::policy`],
//! [`loki_core::confine`]): `$LOKI_HOME` (the signing key), the signing key file named by
//! `LOKI_RECEIPT_SIGNING_KEY_FILE`, the repository's run records (`.loki/runs`), other runs'
//! worktrees and the user's credential files ([`CREDENTIALS`]) cannot be opened at all, even by
//! absolute path; writes are allowed only in the worktree, the private directory, the temporary
//! directory, `/dev`, loki's check cache and the tool homes. The wall author's commands cannot
//! open the repository either. The event log and the receipt are also protected by their hash
//! chain and signature (tampering is detected, [`crate::seal`]), the wall by its sealed hashes.
//!
//! # Limits (said plainly)
//! Without Landlock (Linux before 5.13, or disabled) this is environment isolation only: a
//! process of the same user that knows an absolute path can open it. The receipt says so in NOT
//! PROVEN. Network access is not restricted.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_core::process;

use crate::EngineError;

/// Tool homes kept at their real location when `HOME` moves: (variable, default under `HOME`,
/// an entry a real one has — an empty directory of that name is not a tool home).
const TOOL_HOMES: &[(&str, &str, &str)] = &[
    ("CARGO_HOME", ".cargo", "bin"),
    ("RUSTUP_HOME", ".rustup", "toolchains"),
    ("PYENV_ROOT", ".pyenv", "versions"),
    ("GOPATH", "go", "pkg"),
    ("NVM_DIR", ".nvm", "nvm.sh"),
];
/// Credential files and directories under the user's `HOME` that confined commands cannot open.
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".config/gcloud",
    ".config/gh",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// Variables never passed to the agent even though their names do not look secret.
const WITHHELD: &[&str] = &["LOKI_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];

/// The agent's environment for one run.
#[derive(Debug, Clone)]
pub struct Fence {
    home: PathBuf,
    /// The private git directory and the work tree it describes; `None` for the wall author,
    /// whose directory is outside any repository.
    git: Option<(PathBuf, PathBuf)>,
    env: Vec<(OsString, OsString)>,
}

impl Fence {
    /// Creates the private home and git directory under `private` (outside the repository) for
    /// `worktree`, whose branch `branch` is at `base`. `repo_git_common` is the repository's
    /// `.git` directory (the object store to borrow).
    pub fn create(
        private: &Path,
        worktree: &Path,
        repo_git_common: &Path,
        branch: &str,
        base: &str,
    ) -> Result<Fence, EngineError> {
        let home = private_dirs(private)?;
        let git_dir = loki_git::Git::new(worktree).private_git_dir(
            &private.join("git"),
            repo_git_common,
            branch,
            base,
        )?;
        let mut fence = Fence {
            home,
            git: Some((git_dir, worktree.to_path_buf())),
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        Ok(fence)
    }

    /// A fence without a repository: only the private home under `private` (the wall author).
    pub fn without_git(private: &Path) -> Result<Fence, EngineError> {
        let home = private_dirs(private)?;
        let mut fence = Fence {
            home,
            git: None,
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        Ok(fence)
    }

    /// The private `HOME`.
    #[must_use]
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The private temporary directory (`TMPDIR`), beside the private home.
    fn tmp(&self) -> PathBuf {
        self.home.with_file_name("tmp")
    }

    /// The filesystem policy of everything that runs behind this fence (see the module doc).
    /// `repo` is the user's repository, `worktree` the run's (`None` for the wall author, who is
    /// denied the whole repository), `secrets` loki's home and key files.
    #[must_use]
    pub fn policy(
        &self,
        repo: &loki_core::layout::Repo,
        worktree: Option<&Path>,
        secrets: &[PathBuf],
    ) -> loki_core::confine::Policy {
        let mut deny: Vec<PathBuf> = secrets.to_vec();
        let loki_dir = repo.loki_dir();
        match worktree {
            Some(own) => {
                deny.push(loki_dir.join("runs"));
                let others = std::fs::read_dir(loki_dir.join("worktrees"))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.as_path() != own);
                deny.extend(others);
            }
            None => deny.push(repo.root.clone()),
        }
        if let Some(home) = loki_core::env::HOME.get_os().map(PathBuf::from) {
            deny.extend(CREDENTIALS.iter().map(|c| home.join(c)));
        }
        let var = |name: &str| {
            self.env
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| PathBuf::from(v))
        };
        let mut write: Vec<PathBuf> = Vec::new();
        write.extend(worktree.map(Path::to_path_buf));
        // The private directory holds the private HOME and git directory.
        write.push(self.home.parent().unwrap_or(&self.home).to_path_buf());
        // loki's own temporary files for checks (report files) live in the shared one.
        write.push(std::env::temp_dir());
        write.push(PathBuf::from("/dev"));
        if worktree.is_some() {
            write.push(loki_dir.join("cache"));
        }
        let read_only = if worktree.is_some() {
            vec![repo.root.clone()]
        } else {
            Vec::new()
        };
        // Tool homes take locks and fill caches (cargo's package cache, Go's module cache).
        for (name, _, _) in TOOL_HOMES {
            write.extend(var(name));
        }
        loki_core::confine::Policy {
            deny,
            write,
            read_only,
        }
    }

    /// The agent's whole environment (for checks and CLI agents).
    #[must_use]
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        self.env.clone()
    }

    /// `vars` scrubbed and fenced (pure apart from looking at which tool homes exist).
    fn build_env(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        let vars: Vec<(OsString, OsString)> = vars.into_iter().collect();
        let real_home = vars
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v));
        let mut out: Vec<(OsString, OsString)> = process::scrub(vars.iter().cloned())
            .into_iter()
            .filter(|(k, _)| {
                let k = k.to_string_lossy();
                !WITHHELD.contains(&k.as_ref()) && k != "HOME" && k != "XDG_CONFIG_HOME"
            })
            .collect();
        for (var, sub, marker) in TOOL_HOMES {
            if out.iter().any(|(k, _)| k == var) {
                continue;
            }
            if let Some(dir) = real_home
                .as_ref()
                .map(|h| h.join(sub))
                .filter(|d| d.join(marker).exists())
            {
                out.push(((*var).into(), dir.into_os_string()));
            }
        }
        // A toolchain installed under another home (HOME itself moved, as in sandboxes): found
        // through the `cargo` on PATH (`<cargo home>/bin/cargo`, rustup's home beside it).
        if !out.iter().any(|(k, _)| k == "CARGO_HOME")
            && let Some(cargo_home) = cargo_home_on_path(&vars)
        {
            let rustup = cargo_home.with_file_name(".rustup");
            if !out.iter().any(|(k, _)| k == "RUSTUP_HOME") && rustup.join("toolchains").is_dir() {
                out.push(("RUSTUP_HOME".into(), rustup.into_os_string()));
            }
            out.push(("CARGO_HOME".into(), cargo_home.into_os_string()));
        }
        // pyenv's shims find their root through PYENV_ROOT or HOME: keep the one on PATH.
        if !out.iter().any(|(k, _)| k == "PYENV_ROOT")
            && let Some(root) = dir_on_path(&vars, "shims", ".pyenv")
        {
            out.push(("PYENV_ROOT".into(), root.into_os_string()));
        }
        out.push(("HOME".into(), self.home.clone().into_os_string()));
        // A private temporary directory: the shared one may be only partly writable under the
        // confinement (it is carved around loki's home or a checkout that lives in it).
        out.retain(|(k, _)| k != "TMPDIR");
        out.push(("TMPDIR".into(), self.tmp().into_os_string()));
        out.push((
            "XDG_CONFIG_HOME".into(),
            self.home.join(".config").into_os_string(),
        ));
        if let Some((git_dir, worktree)) = &self.git {
            out.push(("GIT_DIR".into(), git_dir.clone().into_os_string()));
            out.push(("GIT_WORK_TREE".into(), worktree.clone().into_os_string()));
        }
        out.sort();
        out
    }
}

/// Creates the private home and temporary directory under `private`; returns the home.
fn private_dirs(private: &Path) -> Result<PathBuf, EngineError> {
    for d in ["home", "tmp"] {
        let dir = private.join(d);
        std::fs::create_dir_all(&dir).map_err(|e| EngineError::io("create", &dir, e))?;
    }
    Ok(private.join("home"))
}

/// `<dir>` when `<dir>/bin/cargo` is the first `cargo` on `PATH` and `<dir>` is named `.cargo`.
fn cargo_home_on_path(vars: &[(OsString, OsString)]) -> Option<PathBuf> {
    let path = vars
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())?;
    let bin = std::env::split_paths(&path).find(|d| d.join("cargo").is_file())?;
    let home = bin.parent()?;
    (bin.file_name()? == "bin" && home.file_name()? == ".cargo").then(|| home.to_path_buf())
}

/// `<dir>` for the first `PATH` entry `<dir>/<leaf>` where `<dir>` is named `name`.
fn dir_on_path(vars: &[(OsString, OsString)], leaf: &str, name: &str) -> Option<PathBuf> {
    let path = vars
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())?;
    std::env::split_paths(&path).find_map(|d| {
        let parent = d.parent()?;
        (d.file_name()? == leaf && parent.file_name()? == name).then(|| parent.to_path_buf())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fence() -> Fence {
        Fence {
            home: "/tmp/private/home".into(),
            git: Some((
                "/tmp/private/git/.git".into(),
                "/repo/.loki/worktrees/w".into(),
            )),
            env: Vec::new(),
        }
    }

    #[test]
    fn the_env_withholds_secrets_and_moves_home() {
        let f = fence();
        let vars = [
            ("HOME", "/root"),
            ("LOKI_HOME", "/root/.loki"),
            ("ANTHROPIC_API_KEY", "sk-1"),
            ("LOKI_RECEIPT_SIGNING_KEY", "pem"),
            ("GITHUB_TOKEN", "ghp"),
            ("PATH", "/usr/bin"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = f.build_env(vars);
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("HOME").as_deref(), Some("/tmp/private/home"));
        assert_eq!(get("PATH").as_deref(), Some("/usr/bin"));
        for gone in [
            "LOKI_HOME",
            "ANTHROPIC_API_KEY",
            "LOKI_RECEIPT_SIGNING_KEY",
            "GITHUB_TOKEN",
        ] {
            assert_eq!(get(gone), None, "{gone}");
        }
        assert_eq!(get("GIT_DIR").as_deref(), Some("/tmp/private/git/.git"));
    }
}
