//! The fence of a run: the box its untrusted code runs in (the agent's commands, the tests it
//! may have written), built on `loki_process::confine`.
//!
//! # What the agent gets
//! - **A scrubbed environment** ([`loki_process::scrubbed_env`]: no tokens, no keys, no
//!   `LOKI_RECEIPT_*`), without `LOKI_HOME`, with `HOME`, `XDG_CONFIG_HOME`, `XDG_CACHE_HOME` and
//!   `TMPDIR` pointed at a run-private directory outside the repository. Toolchains that live
//!   under the real `HOME` (`RUSTUP_HOME`, `PYENV_ROOT`, `GOPATH`, `NVM_DIR`) are named where
//!   they really are, read-only; `CARGO_HOME` is a private overlay whose entries link to the real
//!   one (its `bin`, registry and git caches readable, never its credentials), so cargo's locks
//!   and cache index are written privately. Maven's local repository under the real `HOME`
//!   (`~/.m2/repository`) is named in `MAVEN_OPTS` (`-Dmaven.repo.local`, unless it names one
//!   already), readable: the checks run Maven offline, reading what it holds. Build caches (`GOCACHE`, npm's, pip's) are private.
//! - **A private git directory** (`GIT_DIR`, `GIT_WORK_TREE`): a fresh repository whose only ref is
//!   the run's branch at the base commit and which borrows the object store through
//!   `objects/info/alternates`. `git log --all` therefore shows the base and its history, never the
//!   user's other branches or earlier runs' commits. The wall author's empty directory gets one
//!   too, of its own ([`Fence::for_author`]): one commit of the empty tree.
//!
//! # A CLI agent's own files
//! A CLI agent (Claude Code, aider, opencode, codex) needs the user's login and configuration
//! for its own model, and they live under the real `HOME` that the box moves away. Exactly the
//! files its table names ([`loki_clients::CliKind::client_files`]) are copied into the private
//! home ([`Fence::add_client_files`]), regular files only (a symbolic link is not followed, so a
//! link to `~/.ssh` brings nothing), private to the user (0600, directories 0700). Nothing else
//! of the real home is: not loki's key, not another program's credentials. `XDG_CONFIG_HOME`,
//! `XDG_DATA_HOME` and `XDG_STATE_HOME` point into the private home, where the copies are.
//!
//! # How it is applied
//! [`Fence::env`] is the whole environment of everything the agent starts: the built-in loop's
//! `run` tool gets it as `ToolOptions::run_env`, checks run with it, and CLI agents get it plus
//! the credentials they need to talk to their own model.
//!
//! # Where the agent is
//! An agent works in the run's worktree (the wall author in its empty directory), never in the
//! user's checkout it was started from: its process starts there, with `PWD` naming it (every
//! child's, [`loki_process::with_pwd`]: `opencode run` takes its directory from `PWD`), and every
//! inherited variable that names the checkout (`OLDPWD`, npm's `INIT_CWD`, a `PATH` entry) is
//! moved into the agent's directory or dropped ([`Fence::env_in`], [`Fence::moved_to`]). This
//! holds with or without the box: without Landlock nothing else would stop an agent from
//! writing where its environment points. `loki ask`, which works in the checkout, keeps it.
//!
//! # The box
//! Where the kernel has Landlock, everything above also runs in the model box
//! ([`Fence::policy`] builds it with [`loki_process::confine::Policy::model_box`] for each
//! [`Scope`]): `$LOKI_HOME` (the signing key), the signing key file named by
//! `LOKI_RECEIPT_SIGNING_KEY_FILE`, the repository's run records (`.loki/runs`), other runs'
//! worktrees and the user's credential files ([`loki_process::confine::CREDENTIALS`]) cannot be
//! opened at all, even by absolute path. The agent's commands write only in the worktree, the
//! private directory and `/dev`; no toolchain, cache or `PATH` directory is writable, and the
//! network is off unless `agent.network = "on"` (recorded in NOT PROVEN). Checks of the agent's
//! code also write the shared temporary directory (their report files) and loki's check cache,
//! with the network on: they are the repository's own tests. The wall author's commands cannot
//! open the repository either. `loki ask` works in the user's checkout: its `.git` and `.loki`
//! stay read-only. The event log and the receipt are also protected by their hash chain and
//! signature (tampering is detected, [`crate::seal`]), the wall by its sealed hashes.
//!
//! # Limits (said plainly)
//! Without Landlock (Linux before 5.13, or disabled) this is environment isolation only: a
//! process of the same user that knows an absolute path can open it. The receipt says so in NOT
//! PROVEN. Landlock ABI 4 refuses TCP only; where the kernel lacks it, a network namespace is
//! made, and the command does not run when it cannot be. A CLI agent talks to its own model, so
//! its commands keep the network (recorded in NOT PROVEN).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_process as process;
use loki_process::confine::{BoxSpec, Network};

use crate::EngineError;

/// Tool homes kept at their real location (read-only) when `HOME` moves: (variable, default
/// under `HOME`, an entry a real one has — an empty directory of that name is not a tool home).
const TOOL_HOMES: &[(&str, &str, &str)] = &[
    ("CARGO_HOME", ".cargo", "bin"),
    ("RUSTUP_HOME", ".rustup", "toolchains"),
    ("PYENV_ROOT", ".pyenv", "versions"),
    ("GOPATH", "go", "pkg"),
    ("NVM_DIR", ".nvm", "nvm.sh"),
];
/// Entries of the real `CARGO_HOME` never linked into the private overlay: credentials, and
/// the files cargo writes (its locks and cache tracker), which the overlay keeps privately.
const CARGO_PRIVATE: &[&str] = &[
    "credentials",
    "credentials.toml",
    ".package-cache",
    ".package-cache-mutate",
    ".global-cache",
];

/// Build caches pointed into the private directory: (variable, directory under it).
const PRIVATE_CACHES: &[(&str, &str)] = &[
    ("GOCACHE", "cache/go-build"),
    ("npm_config_cache", "cache/npm"),
    ("PIP_CACHE_DIR", "cache/pip"),
    ("XDG_CACHE_HOME", "cache"),
];

/// What a [`Fence::policy`] is for.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// The agent's own commands in the run's worktree.
    Agent(&'a Path),
    /// The checks of the agent's code in the run's worktree.
    Checks(&'a Path),
    /// The wall author: no repository at all.
    Author,
    /// `loki ask`: the user's checkout itself, its `.git` and `.loki` read-only.
    Checkout,
}

/// Variables never passed to the agent even though their names do not look secret.
const WITHHELD: &[&str] = &["LOKI_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];

/// XDG base directories pointed into the private home: (variable, directory under it).
const PRIVATE_XDG: &[(&str, &str)] = &[
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_STATE_HOME", ".local/state"),
];

/// Entries copied from one client directory at most: a configuration directory is small, and
/// a huge one (a cache put there) must not stall the run.
const CLIENT_DIR_ENTRIES: usize = 10_000;

/// The agent's environment for one run.
#[derive(Debug, Clone)]
pub struct Fence {
    home: PathBuf,
    /// The user's checkout: no variable of an agent working elsewhere names it ([`Fence::env_in`]).
    checkout: PathBuf,
    /// The private git directory and the work tree it describes (the run's worktree, or the wall
    /// author's empty directory); `None` for an agent that works without one.
    git: Option<(PathBuf, PathBuf)>,
    env: Vec<(OsString, OsString)>,
}

impl Fence {
    /// Creates the private home and git directory under `private` (outside the repository) for
    /// `worktree`, a worktree of the user's `checkout`, whose branch `branch` is at `base`.
    /// `repo_git_common` is the repository's `.git` directory (the object store to borrow).
    pub fn create(
        private: &Path,
        checkout: &Path,
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
            checkout: checkout.to_path_buf(),
            git: Some((git_dir, worktree.to_path_buf())),
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        fence.overlay_cargo_home()?;
        Ok(fence)
    }

    /// The wall author's fence: the private home under `private`, and a private repository of
    /// its own for `work`, the empty directory it works in (outside the user's repository, whose
    /// objects it does not borrow): a client that wants a repository (aider) finds one and makes
    /// none of its own in `work`, so no `.git` or `.gitignore` of a client reaches the wall.
    /// `checkout` is the user's checkout the agent is started from.
    pub fn for_author(private: &Path, checkout: &Path, work: &Path) -> Result<Fence, EngineError> {
        let home = private_dirs(private)?;
        let git_dir = loki_git::Git::new(work).private_empty_git_dir(&private.join("git"))?;
        let mut fence = Fence {
            home,
            checkout: checkout.to_path_buf(),
            git: Some((git_dir, work.to_path_buf())),
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        fence.overlay_cargo_home()?;
        Ok(fence)
    }

    /// A fence without a repository: only the private home under `private`, for an agent
    /// started from the user's `checkout`.
    pub fn without_git(private: &Path, checkout: &Path) -> Result<Fence, EngineError> {
        let home = private_dirs(private)?;
        let mut fence = Fence {
            home,
            checkout: checkout.to_path_buf(),
            git: None,
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        fence.overlay_cargo_home()?;
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

    /// The private directory (private HOME, TMPDIR, git directory, caches).
    fn private(&self) -> &Path {
        self.home.parent().unwrap_or(&self.home)
    }

    /// The model box of everything that runs behind this fence for `scope` (see the module
    /// doc). `repo` is the user's repository, `secrets` loki's home and key files.
    #[must_use]
    pub fn policy(
        &self,
        repo: &loki_core::layout::Repo,
        scope: Scope<'_>,
        secrets: &[PathBuf],
        network: Network,
    ) -> loki_process::confine::Policy {
        let loki_dir = repo.loki_dir();
        let mut spec = BoxSpec {
            private: self.private().to_path_buf(),
            secrets: secrets.to_vec(),
            home: loki_core::env::HOME.get_os().map(PathBuf::from),
            network,
            ..BoxSpec::default()
        };
        let other_worktrees = |own: Option<&Path>| -> Vec<PathBuf> {
            std::fs::read_dir(loki_dir.join("worktrees"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| Some(p.as_path()) != own)
                .collect()
        };
        match scope {
            Scope::Agent(own) | Scope::Checks(own) => {
                spec.worktree = Some(own.to_path_buf());
                spec.others.push(loki_dir.join("runs"));
                spec.others.extend(other_worktrees(Some(own)));
                // The checkout around the worktree, with its `.git` (hooks, config), read-only.
                spec.also_read_only.push(repo.root.clone());
            }
            Scope::Author => spec.others.push(repo.root.clone()),
            Scope::Checkout => {
                spec.worktree = Some(repo.root.clone());
                // `.git` (hooks, config) read-only and `.loki` (runs, their worktrees) hidden, by
                // mounts, so the checkout's top still takes new files; without a mount
                // namespace, `.git` read-only and `.loki` denied by Landlock instead.
                spec.protect = vec![repo.root.join(".git")];
                spec.hide = vec![loki_dir.clone()];
                spec.list.push(repo.root.clone());
            }
        }
        if let Scope::Checks(_) = scope {
            // loki's own temporary files for checks (report files) live in the shared
            // temporary directory; the shared cargo target directory in loki's check cache.
            spec.also_write.push(std::env::temp_dir());
            let cache = loki_dir.join("cache");
            spec.also_write.push(cache);
            spec.network = Network::Allowed;
        }
        loki_process::confine::Policy::model_box(&spec)
    }

    /// The environment of checks of code in a worktree of `repo` (the build's verify and gate,
    /// and `loki deep`): this fence's environment, with cargo's target directory shared in
    /// loki's check cache (`.loki/cache/target`, unless the user set one) and without the private
    /// git directory (checks are judged on the worktree's own git state).
    #[must_use]
    pub fn check_env(&self, repo: &loki_core::layout::Repo) -> Vec<(OsString, OsString)> {
        let mut env = self.env();
        if !env.iter().any(|(k, _)| k == "CARGO_TARGET_DIR") {
            let target = repo.loki_dir().join("cache").join("target");
            env.push(("CARGO_TARGET_DIR".into(), target.into_os_string()));
        }
        env.retain(|(k, _)| k != "GIT_DIR" && k != "GIT_WORK_TREE");
        env
    }

    /// The wrapper (`exe __confine …`) of checks of code in `worktree`, a checkout of `repo`: the
    /// [`Scope::Checks`] box of [`Fence::policy`]. The build's checks and `loki deep` both run
    /// through it. The caller has checked that the kernel can confine
    /// ([`loki_process::confine::available`]).
    #[must_use]
    pub fn checks_wrapper(
        &self,
        repo: &loki_core::layout::Repo,
        worktree: &Path,
        secrets: &[PathBuf],
        exe: &Path,
    ) -> Vec<OsString> {
        // A write rule needs its directory to exist: the checks' cache may not yet.
        let _ = std::fs::create_dir_all(repo.loki_dir().join("cache"));
        self.policy(repo, Scope::Checks(worktree), secrets, Network::Allowed)
            .wrapper(exe)
    }

    /// Points `CARGO_HOME` at a private overlay of the real one (see the module doc): each
    /// entry but [`CARGO_PRIVATE`] is a symbolic link to the real entry, so cargo reads the
    /// installed tools and downloaded crates there and writes only its locks, privately.
    fn overlay_cargo_home(&mut self) -> Result<(), EngineError> {
        let Some(real) = self
            .env
            .iter()
            .find(|(k, _)| k == "CARGO_HOME")
            .map(|(_, v)| PathBuf::from(v))
        else {
            return Ok(());
        };
        let overlay = self.private().join("cargo-home");
        std::fs::create_dir_all(&overlay).map_err(|e| EngineError::io("create", &overlay, e))?;
        let entries = std::fs::read_dir(&real).map_err(|e| EngineError::io("read", &real, e))?;
        for entry in entries.flatten() {
            let name = entry.file_name();
            if CARGO_PRIVATE.iter().any(|p| name == *p) {
                continue;
            }
            let link = overlay.join(&name);
            std::os::unix::fs::symlink(entry.path(), &link)
                .map_err(|e| EngineError::io("link", &link, e))?;
        }
        for (k, v) in &mut self.env {
            if k == "CARGO_HOME" {
                *v = overlay.clone().into_os_string();
            }
        }
        Ok(())
    }

    /// Copies the user's `files` (found through the user's environment `user_env`: its `HOME`
    /// and XDG variables) into the private home; returns the sources that were there and
    /// copied. A file that does not exist is skipped: the client runs as a user without it would.
    pub fn add_client_files(
        &self,
        files: &[loki_clients::ClientFile],
        user_env: &[(OsString, OsString)],
    ) -> Result<Vec<PathBuf>, EngineError> {
        let mut copied = Vec::new();
        for f in files {
            let Some(src) = f.source(user_env) else {
                continue;
            };
            let dst = f.target(&self.home);
            if dst == src {
                continue;
            }
            let mut budget = CLIENT_DIR_ENTRIES;
            if copy_private(&src, &dst, &mut budget)? {
                copied.push(src);
            }
        }
        Ok(copied)
    }

    /// The agent's whole environment (for checks and CLI agents).
    #[must_use]
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        self.env.clone()
    }

    /// The environment of an agent working in `dir`: [`Fence::env`] moved there from the
    /// user's checkout ([`Fence::moved_to`]).
    #[must_use]
    pub fn env_in(&self, dir: &Path) -> Vec<(OsString, OsString)> {
        self.moved_to(self.env(), dir)
    }

    /// `env` with every path naming the user's checkout moved to `dir` (the worktree, or the
    /// wall author's directory), or dropped when `dir` has no such path
    /// ([`loki_process::relocate`]): an agent is never pointed back at the checkout. The spawn
    /// sets `PWD` to `dir` ([`loki_process::with_pwd`]).
    #[must_use]
    pub fn moved_to(
        &self,
        env: Vec<(OsString, OsString)>,
        dir: &Path,
    ) -> Vec<(OsString, OsString)> {
        process::relocate(env, &self.checkout, dir)
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
                !WITHHELD.contains(&k.as_ref())
                    && k != "HOME"
                    && !PRIVATE_XDG.iter().any(|(var, _)| k == *var)
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
        if let Some(repo) = real_home
            .as_ref()
            .map(|h| h.join(".m2").join("repository"))
            .filter(|d| d.is_dir())
        {
            name_maven_repo(&mut out, &repo);
        }
        // pyenv's shims find their root through PYENV_ROOT or HOME: keep the one on PATH.
        if !out.iter().any(|(k, _)| k == "PYENV_ROOT")
            && let Some(root) = dir_on_path(&vars, "shims", ".pyenv")
        {
            out.push(("PYENV_ROOT".into(), root.into_os_string()));
        }
        out.push(("HOME".into(), self.home.clone().into_os_string()));
        // Build caches are private: a shared one would be writable from the box.
        let private = self.private().to_path_buf();
        out.retain(|(k, _)| !PRIVATE_CACHES.iter().any(|(var, _)| k == var));
        for (var, dir) in PRIVATE_CACHES {
            out.push(((*var).into(), private.join(dir).into_os_string()));
        }
        // A private temporary directory: the shared one may be only partly writable under the
        // confinement (it is carved around loki's home or a checkout that lives in it).
        out.retain(|(k, _)| k != "TMPDIR");
        out.push(("TMPDIR".into(), self.tmp().into_os_string()));
        for (var, dir) in PRIVATE_XDG {
            out.push(((*var).into(), self.home.join(dir).into_os_string()));
        }
        if let Some((git_dir, worktree)) = &self.git {
            out.push(("GIT_DIR".into(), git_dir.clone().into_os_string()));
            out.push(("GIT_WORK_TREE".into(), worktree.clone().into_os_string()));
        }
        out.sort();
        out
    }
}

/// Names `repo` as Maven's local repository in `MAVEN_OPTS` (kept as it is when it names one):
/// Maven would look under the moved `HOME`'s `.m2` otherwise.
fn name_maven_repo(env: &mut Vec<(OsString, OsString)>, repo: &Path) {
    const PROPERTY: &str = "-Dmaven.repo.local=";
    match env.iter_mut().find(|(k, _)| k == "MAVEN_OPTS") {
        Some((_, v)) if v.to_string_lossy().contains(PROPERTY) => {}
        Some((_, v)) => {
            v.push(format!(" {PROPERTY}"));
            v.push(repo);
        }
        None => {
            let mut v = OsString::from(PROPERTY);
            v.push(repo);
            env.push(("MAVEN_OPTS".into(), v));
        }
    }
}

/// What nothing in a box may open: loki's home (the signing key) and the key file the
/// environment names.
#[must_use]
pub fn secret_paths(home: &Path, key_env: &loki_receipt::KeyEnv) -> Vec<PathBuf> {
    let mut secrets = vec![home.to_path_buf()];
    secrets.extend(key_env.signing_key_file.clone());
    secrets
}

/// Copies `src` (a regular file, or a directory of them) to `dst`, owner-only; symbolic links
/// and other special files are skipped. Returns whether `src` existed as a file or directory.
fn copy_private(src: &Path, dst: &Path, budget: &mut usize) -> Result<bool, EngineError> {
    use std::os::unix::fs::PermissionsExt as _;
    let Ok(meta) = std::fs::symlink_metadata(src) else {
        return Ok(false);
    };
    if *budget == 0 {
        return Ok(false);
    }
    *budget -= 1;
    if meta.is_file() {
        let bytes = std::fs::read(src).map_err(|e| EngineError::io("read", src, e))?;
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent).map_err(|e| EngineError::io("create", parent, e))?;
        }
        loki_core::fs::write_atomic_mode(dst, &bytes, 0o600)?;
        Ok(true)
    } else if meta.is_dir() {
        std::fs::create_dir_all(dst).map_err(|e| EngineError::io("create", dst, e))?;
        std::fs::set_permissions(dst, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| EngineError::io("set permissions of", dst, e))?;
        let entries = std::fs::read_dir(src).map_err(|e| EngineError::io("read", src, e))?;
        for entry in entries.flatten() {
            copy_private(&entry.path(), &dst.join(entry.file_name()), budget)?;
        }
        Ok(true)
    } else {
        Ok(false)
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
            checkout: "/repo".into(),
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
        // The caller's home is an empty directory of the test's own: the fence looks for tool
        // homes (`~/.cargo`, `~/.rustup`, …) in it.
        let t = tempfile::tempdir().unwrap();
        let home = t.path().display().to_string();
        let loki_home = t.path().join(".loki").display().to_string();
        let vars = [
            ("HOME", home.as_str()),
            ("LOKI_HOME", loki_home.as_str()),
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
        // Build caches are private, whatever the caller had.
        assert_eq!(
            get("GOCACHE").as_deref(),
            Some("/tmp/private/cache/go-build")
        );
        assert_eq!(get("XDG_CACHE_HOME").as_deref(), Some("/tmp/private/cache"));
        assert_eq!(
            get("npm_config_cache").as_deref(),
            Some("/tmp/private/cache/npm")
        );
    }

    #[test]
    fn maven_reads_the_real_local_repository() {
        let t = tempfile::tempdir().unwrap();
        let repo = t.path().join(".m2/repository");
        std::fs::create_dir_all(&repo).unwrap();
        let home = t.path().display().to_string();
        let opts = |extra: &[(&str, &str)]| {
            let vars = [("HOME", home.as_str())]
                .iter()
                .chain(extra)
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect::<Vec<_>>();
            fence()
                .build_env(vars)
                .into_iter()
                .find(|(n, _)| n == "MAVEN_OPTS")
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        let named = format!("-Dmaven.repo.local={}", repo.display());
        assert_eq!(opts(&[]), Some(named.clone()));
        assert_eq!(
            opts(&[("MAVEN_OPTS", "-Xmx1g")]),
            Some(format!("-Xmx1g {named}"))
        );
        // One the caller names wins.
        assert_eq!(
            opts(&[("MAVEN_OPTS", "-Dmaven.repo.local=/srv/m2")]).as_deref(),
            Some("-Dmaven.repo.local=/srv/m2")
        );
        std::fs::remove_dir_all(&repo).unwrap();
        assert_eq!(opts(&[]), None);
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn cargo_home_is_a_private_overlay_without_credentials() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().join("real-cargo");
        for d in ["bin", "registry"] {
            std::fs::create_dir_all(real.join(d)).unwrap();
        }
        std::fs::write(real.join("credentials.toml"), "token = 'x'").unwrap();
        std::fs::write(real.join(".package-cache"), "").unwrap();
        let private = t.path().join("private");
        std::fs::create_dir_all(private.join("home")).unwrap();
        let mut f = Fence {
            home: private.join("home"),
            checkout: t.path().join("checkout"),
            git: None,
            env: vec![("CARGO_HOME".into(), real.clone().into_os_string())],
        };
        f.overlay_cargo_home().unwrap();
        let overlay = private.join("cargo-home");
        assert_eq!(
            f.env,
            [(
                OsString::from("CARGO_HOME"),
                overlay.clone().into_os_string()
            )]
        );
        let mut names: Vec<String> = std::fs::read_dir(&overlay)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["bin", "registry"]);
        assert_eq!(
            std::fs::read_link(overlay.join("bin")).unwrap(),
            real.join("bin")
        );
    }
}
