//! Git plumbing for loki, by calling the `git` binary through `loki_core::process`.
//!
//! Why the binary and not a library: the user's repository is whatever their git makes it
//! (worktrees, partial clones, hooks, LFS filters); the binary is the only implementation that
//! agrees with itself on all of it.
//!
//! Invariants:
//! - Everything that a receipt hashes comes from **plumbing** whose output user configuration
//!   cannot change: [`Git::diff_digest`] hashes `git diff-tree -r -z --raw --no-renames
//!   --no-abbrev <base> <head>` byte for byte.
//! - Every call runs with a closed stdin, a timeout, `GIT_TERMINAL_PROMPT=0` (never wait for a
//!   password) and `LC_ALL=C` (stable messages), in the repository's directory.
//! - Nothing here modifies the user's checkout: worktrees are separate directories, snapshots use a
//!   temporary index file, commits are made only where the caller points (a worktree).
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

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::process::{self, Spec, Streams};
use sha2::{Digest, Sha256};

/// Plumbing calls are local and small; a minute means something is wrong (a lock, a hook).
const GIT_TIMEOUT: Duration = Duration::from_secs(60);
/// Output of plumbing we parse (file lists, raw diffs) can be large in big repositories.
const GIT_OUTPUT_CAP: usize = 256 * 1024 * 1024;
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
/// Bytes of stderr kept in an error.
const STDERR_TAIL: usize = 2000;

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

/// Diff statistics between two trees.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiffStat {
    pub files: u64,
    pub insertions: u64,
    pub deletions: u64,
}

/// How a path changed between two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    TypeChanged,
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    pub path: String,
}

/// One changed path with both sides' tree entries (`None` where the path is absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawChange {
    pub kind: ChangeKind,
    pub path: String,
    pub base: Option<Entry>,
    pub head: Option<Entry>,
}

/// A tree entry: its mode (`100644`, `100755`, `120000`, `160000`) and object id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub mode: String,
    pub oid: String,
}

/// An edit to a tree: put `entry` at `path`, or remove `path` when `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEdit {
    pub path: String,
    pub entry: Option<Entry>,
}

/// A repository (or a worktree of one) at `root`.
#[derive(Debug, Clone)]
pub struct Git {
    root: PathBuf,
    program: OsString,
    /// The `-c` arguments that neutralise the repository's filter drivers, read once.
    filters: std::sync::Arc<std::sync::OnceLock<Vec<String>>>,
}

/// Configuration that no repository may change for loki's own git calls (see the crate doc).
const HARDENING: &[&str] = &[
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.autocrlf=false",
    "-c",
    "core.attributesFile=/dev/null",
    "-c",
    "core.symlinks=true",
];

impl Git {
    /// Git operations in `root` (a repository root or a linked worktree).
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Git {
        Git {
            root: root.into(),
            program: OsString::from("git"),
            filters: std::sync::Arc::default(),
        }
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

    fn base_spec(&self) -> Spec {
        Spec::new(self.program.clone(), &self.root)
            .envs(process::scrubbed_env())
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("LC_ALL", "C")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_GRAFT_FILE", "/dev/null")
            .args(HARDENING.iter().map(OsString::from))
            .timeout(GIT_TIMEOUT)
            .output_cap(GIT_OUTPUT_CAP)
            .streams(Streams::Separate)
    }

    fn spec(&self, args: &[&str]) -> Spec {
        self.base_spec()
            .args(self.hardening().iter().map(OsString::from))
            .args(args.iter().map(OsString::from))
    }

    /// The `-c filter.<name>.*=` arguments for every filter driver the repository's (or the user's)
    /// configuration defines: a filter could store a file as something else than its bytes.
    /// Read once per [`Git`] (and its clones).
    #[must_use]
    pub fn hardening(&self) -> &[String] {
        self.filters.get_or_init(|| {
            let spec =
                self.base_spec()
                    .args(["config", "--get-regexp", "--name-only", r"^filter\."]);
            // No filter configured exits 1; any failure here leaves only the fixed hardening.
            let Ok(out) = process::run(&spec) else {
                return Vec::new();
            };
            let mut names: Vec<String> = String::from_utf8_lossy(&out.output.bytes())
                .lines()
                .filter_map(|l| {
                    let rest = l.trim().strip_prefix("filter.")?;
                    let (name, _) = rest.rsplit_once('.')?;
                    Some(name.to_owned())
                })
                .collect();
            names.sort();
            names.dedup();
            names
                .iter()
                .flat_map(|n| {
                    [
                        format!("filter.{n}.clean="),
                        format!("filter.{n}.smudge="),
                        format!("filter.{n}.process="),
                        format!("filter.{n}.required=false"),
                    ]
                })
                .flat_map(|kv| ["-c".to_owned(), kv])
                .collect()
        })
    }

    /// Runs git and returns stdout; a non-zero exit is an error carrying stderr's tail.
    fn run_spec(&self, spec: &Spec) -> Result<Vec<u8>, GitError> {
        let command = spec.display();
        let out = process::run(spec).map_err(|e| {
            if e.is_not_found() {
                GitError::NotInstalled
            } else {
                GitError::Process {
                    command: command.clone(),
                    source: e,
                }
            }
        })?;
        if !out.success() {
            return Err(GitError::Failed {
                command,
                code: out.exit_code(),
                cwd: self.root.clone(),
                stderr: out.stderr.tail_text(STDERR_TAIL).trim().to_string(),
            });
        }
        // A cut-off listing or patch would be read as a smaller change: refuse it instead.
        if out.output.is_truncated() {
            return Err(GitError::Parse {
                command,
                detail: format!("the output is larger than {GIT_OUTPUT_CAP} bytes"),
            });
        }
        Ok(out.output.bytes())
    }

    fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        self.run_spec(&self.spec(args))
    }

    fn run_text(&self, args: &[&str]) -> Result<String, GitError> {
        let out = self.run(args)?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// `spec` with a fallback identity when git has none configured (a fresh CI machine), so a
    /// commit can always be made; a configured identity, or one in the environment, always wins.
    fn with_identity(&self, mut spec: Spec) -> Spec {
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

    /// Deletes a branch (force: it may be unmerged).
    pub fn delete_branch(&self, branch: &str) -> Result<(), GitError> {
        self.run(&["branch", "-q", "-D", branch]).map(drop)
    }

    /// The raw diff between two commits or trees, byte for byte as the receipt hashes it.
    pub fn diff_tree_raw(&self, base: &str, head: &str) -> Result<Vec<u8>, GitError> {
        self.run(&[
            "diff-tree",
            "-r",
            "-z",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            base,
            head,
        ])
    }

    /// Hex sha256 of [`Git::diff_tree_raw`]: the receipt's `diff.sha256`.
    pub fn diff_digest(&self, base: &str, head: &str) -> Result<String, GitError> {
        Ok(hex::encode(Sha256::digest(self.diff_tree_raw(base, head)?)))
    }

    /// Changed paths between two commits or trees (renames as delete + add).
    pub fn changes(&self, base: &str, head: &str) -> Result<Vec<Change>, GitError> {
        let command = format!("git diff-tree --name-status {base} {head}");
        let out = self.run(&[
            "diff-tree",
            "-r",
            "-z",
            "--name-status",
            "--no-renames",
            base,
            head,
        ])?;
        let fields: Vec<&[u8]> = out.split(|&b| b == 0).filter(|f| !f.is_empty()).collect();
        fields
            .chunks(2)
            .map(|pair| {
                let [status, path] = pair else {
                    return Err(GitError::Parse {
                        command: command.clone(),
                        detail: "odd number of fields".into(),
                    });
                };
                let kind = match status.first() {
                    Some(b'A') => ChangeKind::Added,
                    Some(b'M') => ChangeKind::Modified,
                    Some(b'D') => ChangeKind::Deleted,
                    Some(b'T') => ChangeKind::TypeChanged,
                    _ => {
                        return Err(GitError::Parse {
                            command: command.clone(),
                            detail: format!("unknown status {:?}", String::from_utf8_lossy(status)),
                        });
                    }
                };
                Ok(Change {
                    kind,
                    path: String::from_utf8_lossy(path).into_owned(),
                })
            })
            .collect()
    }

    /// [`Git::changes`] with both sides' modes and object ids (`diff-tree --raw`).
    pub fn raw_changes(&self, base: &str, head: &str) -> Result<Vec<RawChange>, GitError> {
        let command = format!("git diff-tree --raw {base} {head}");
        let out = self.diff_tree_raw(base, head)?;
        let bad = |detail: &str| GitError::Parse {
            command: command.clone(),
            detail: detail.to_owned(),
        };
        let mut fields = out.split(|&b| b == 0).filter(|f| !f.is_empty());
        let mut changes = Vec::new();
        while let Some(meta) = fields.next() {
            // `:<old mode> <new mode> <old oid> <new oid> <status>` then NUL, the path, NUL.
            let meta = String::from_utf8_lossy(meta);
            let path = fields
                .next()
                .ok_or_else(|| bad("a change without a path"))?;
            let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
            let [old_mode, new_mode, old_oid, new_oid, status] = parts.as_slice() else {
                return Err(bad(&format!("unexpected record {meta:?}")));
            };
            let side = |mode: &str, oid: &str| {
                (mode != "000000").then(|| Entry {
                    mode: mode.to_owned(),
                    oid: oid.to_owned(),
                })
            };
            let kind = match status.as_bytes().first() {
                Some(b'A') => ChangeKind::Added,
                Some(b'M') => ChangeKind::Modified,
                Some(b'D') => ChangeKind::Deleted,
                Some(b'T') => ChangeKind::TypeChanged,
                _ => return Err(bad(&format!("unknown status {status:?}"))),
            };
            changes.push(RawChange {
                kind,
                path: String::from_utf8_lossy(path).into_owned(),
                base: side(old_mode, old_oid),
                head: side(new_mode, new_oid),
            });
        }
        Ok(changes)
    }

    /// Stores `bytes` as a blob in the repository's object store and returns its id. Written
    /// without filters, so the blob is exactly these bytes.
    pub fn hash_blob(&self, bytes: &[u8]) -> Result<String, GitError> {
        let file = TempFile::with_content("blob", bytes)?;
        let p = file.path().to_string_lossy().into_owned();
        let out = self.run(&["hash-object", "-w", "--no-filters", "--", &p])?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// `tree` (a tree or commit) with `edits` applied, as a new tree id; built in a temporary
    /// index, so nothing else changes.
    pub fn tree_with(&self, tree: &str, edits: &[TreeEdit]) -> Result<String, GitError> {
        let index = TempFile::new("index")?;
        let with_index = |args: &[&str]| self.spec(args).env("GIT_INDEX_FILE", index.path());
        self.run_spec(&with_index(&["read-tree", tree]))?;
        let (puts, removes): (Vec<&TreeEdit>, Vec<&TreeEdit>) =
            edits.iter().partition(|e| e.entry.is_some());
        for chunk in removes.chunks(256) {
            let mut args = vec!["update-index", "--force-remove", "--"];
            args.extend(chunk.iter().map(|e| e.path.as_str()));
            self.run_spec(&with_index(&args))?;
        }
        for chunk in puts.chunks(128) {
            let infos: Vec<String> = chunk
                .iter()
                .filter_map(|e| {
                    e.entry
                        .as_ref()
                        .map(|en| format!("{},{},{}", en.mode, en.oid, e.path))
                })
                .collect();
            let mut args = vec!["update-index", "--add"];
            for info in &infos {
                args.push("--cacheinfo");
                args.push(info);
            }
            self.run_spec(&with_index(&args))?;
        }
        let out = self.run_spec(&with_index(&["write-tree"]))?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// The patch from `base` to `head` with no context lines (`diff-tree -p -U0`, plumbing, so
    /// user configuration cannot change it; fixed `a/` `b/` prefixes; renames as delete + add;
    /// no external diff or text conversion): what lint reads the changed lines from.
    pub fn diff_patch_zero_context(&self, base: &str, head: &str) -> Result<Vec<u8>, GitError> {
        self.run(&[
            "diff-tree",
            "-r",
            "-p",
            "-U0",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            // A revision that starts with `-` must not be read as an option.
            "--end-of-options",
            base,
            head,
        ])
    }

    /// Files changed and lines added/removed between two commits or trees (binary files count as
    /// changed files with no lines).
    pub fn diff_stat(&self, base: &str, head: &str) -> Result<DiffStat, GitError> {
        let out = self.run(&[
            "diff",
            "--numstat",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            base,
            head,
        ])?;
        let mut stat = DiffStat::default();
        for rec in out.split(|&b| b == 0).filter(|f| !f.is_empty()) {
            let text = String::from_utf8_lossy(rec);
            let mut parts = text.splitn(3, '\t');
            let (Some(add), Some(del)) = (parts.next(), parts.next()) else {
                continue;
            };
            stat.files += 1;
            stat.insertions += add.parse::<u64>().unwrap_or(0);
            stat.deletions += del.parse::<u64>().unwrap_or(0);
        }
        Ok(stat)
    }

    /// A tree id for the working tree as it is now, untracked files included, and ignored files
    /// that a test runner may load (`add_hidden`), built in a temporary index so the user's index
    /// is untouched. Every file is read: nothing a process with access to the checkout's `.git`
    /// could have done to its index can hide an edit from this one (the seal uses it on the
    /// user's own checkout).
    pub fn snapshot_worktree(&self) -> Result<String, GitError> {
        self.snapshot(false)
    }

    /// [`Git::snapshot_worktree`] for a checkout whose index only loki writes (its own
    /// worktrees): the temporary index starts as a copy of the checkout's own, whose cached file
    /// stats let `add -A` hash only the files that changed (a fresh `read-tree` index re-reads
    /// every file: 5,000 files take 47 ms instead of 200 ms, `cargo bench -p loki-git --bench
    /// snapshot`). Nothing in that copy may hide a change from the tools that run in the
    /// worktree: the `assume-unchanged` and `skip-worktree` bits
    /// are cleared; `core.ignoreStat`, `core.fsmonitor`, `core.untrackedCache`,
    /// `core.trustctime` and `core.checkStat` are overridden; and every entry whose file's change
    /// time differs, to the nanosecond, from the one recorded is hashed afresh (git compares
    /// whole seconds, and a change time cannot be set back), so a same-size edit with its mtime
    /// set back is still seen. The copy keeps the index's mtime, which git's "racily clean" check
    /// depends on. What it trusts is the index file itself: the engine's confinement makes it
    /// read-only to the agent.
    pub fn snapshot_worktree_cached(&self) -> Result<String, GitError> {
        self.snapshot(true)
    }

    fn snapshot(&self, seed: bool) -> Result<String, GitError> {
        let index = TempFile::new("index")?;
        let with_index = |args: &[&str]| {
            let mut all = vec![
                "-c",
                "core.ignoreStat=false",
                "-c",
                "core.fsmonitor=false",
                "-c",
                "core.untrackedCache=false",
                // The change time cannot be set back by a process, unlike the modification time.
                "-c",
                "core.trustctime=true",
                "-c",
                "core.checkStat=default",
            ];
            all.extend_from_slice(args);
            let spec = self.spec(&all).env("GIT_INDEX_FILE", index.path());
            // `core.worktree` in the repository's config could point git at another directory
            // (a pristine copy); the files judged are the ones in this checkout.
            if self.root.join(".git").exists() {
                spec.env("GIT_WORK_TREE", &self.root)
            } else {
                spec
            }
        };
        let seeded = seed
            && self
                .index_path()
                .is_some_and(|own| copy_index(&own, &index.path()).is_ok());
        if seeded {
            // `ls-files -v` tags assume-unchanged entries in lower case and skip-worktree ones `S`.
            // (`s` is both). One flag per pass: git applies a combined pair to the first only.
            let listed = self.run_spec(&with_index(&["ls-files", "-v", "-z"]))?;
            let tagged = |pick: fn(u8) -> bool| -> Vec<String> {
                listed
                    .split(|&b| b == 0)
                    .filter_map(|rec| {
                        let (tag, path) = (*rec.first()?, rec.get(2..)?);
                        pick(tag).then(|| String::from_utf8_lossy(path).into_owned())
                    })
                    .collect()
            };
            // git compares change times in whole seconds; here they are compared to the
            // nanosecond, and an entry whose file changed status since it was recorded is
            // dropped so `add -A` hashes the content.
            let debug = self.run_spec(&with_index(&["ls-files", "--debug", "-z"]))?;
            let stale: Vec<String> = recorded_ctimes(&debug)
                .into_iter()
                .filter(|(path, recorded)| file_ctime(&self.root.join(path)) != Some(*recorded))
                .map(|(path, _)| path)
                .collect();
            let passes = [
                ("--no-assume-unchanged", tagged(|t| t.is_ascii_lowercase())),
                ("--no-skip-worktree", tagged(|t| t == b'S' || t == b's')),
                ("--force-remove", stale),
            ];
            for (flag, paths) in &passes {
                for chunk in paths.chunks(256) {
                    let mut args = vec!["update-index", flag, "--"];
                    args.extend(chunk.iter().map(String::as_str));
                    self.run_spec(&with_index(&args))?;
                }
            }
        } else if self.head()?.is_some() {
            self.run_spec(&with_index(&["read-tree", "HEAD"]))?;
        }
        self.run_spec(&with_index(&["add", "-A", "--", "."]))?;
        self.add_hidden(&with_index)?;
        let tree = self.run_spec(&with_index(&["write-tree"]))?;
        Ok(String::from_utf8_lossy(&tree).trim().to_string())
    }

    /// Adds the untracked files that ignore rules hide but a test runner still loads. Files hidden
    /// only by `.git/info/exclude` or the user's global excludes file are all added: both live
    /// outside the tree, so a change to them is in no diff. Files a `.gitignore` hides (including
    /// a `.gitignore` that ignores itself) are added when a runner may load them
    /// ([`runner_loadable`]: source files, test and build configuration, snapshots). Directories
    /// that hold dependencies, builds or caches (and `.loki/`) stay out, and at most
    /// [`MAX_HIDDEN_FILES`] files are added, so a `node_modules` listed only in the global excludes
    /// cannot blow the snapshot up. Private files (`.env`, keys) are never read into the object
    /// store.
    fn add_hidden(&self, with_index: &dyn Fn(&[&str]) -> Spec) -> Result<(), GitError> {
        let list = |args: &[&str]| -> Result<Vec<String>, GitError> {
            let listed = self.run_spec(&with_index(args))?;
            Ok(listed
                .split(|&b| b == 0)
                .filter(|p| !p.is_empty())
                .map(|p| String::from_utf8_lossy(p).into_owned())
                .filter(|p| {
                    !p.split('/').any(|part| {
                        BULK_DIRS.contains(&part) || part == ".loki" || part.ends_with(".egg-info")
                    })
                })
                .collect())
        };
        let mut hidden = list(&[
            "ls-files",
            "--others",
            "-z",
            "--exclude-per-directory=.gitignore",
            "--",
            ".",
        ])?;
        hidden.retain(|p| !is_private(p));
        let ignored = list(&[
            "ls-files",
            "--others",
            "--ignored",
            "-z",
            "--exclude-standard",
            "--",
            ".",
        ])?;
        hidden.extend(ignored.into_iter().filter(|p| runner_loadable(p)));
        hidden.sort();
        hidden.dedup();
        hidden.truncate(MAX_HIDDEN_FILES);
        for chunk in hidden.chunks(256) {
            let mut args = vec!["add", "-f", "--"];
            args.extend(chunk.iter().map(String::as_str));
            self.run_spec(&with_index(&args))?;
        }
        Ok(())
    }

    /// This checkout's index file, when it has one.
    fn index_path(&self) -> Option<PathBuf> {
        let out = self.run(&["rev-parse", "--git-path", "index"]).ok()?;
        let rel = PathBuf::from(String::from_utf8_lossy(&out).trim());
        let path = if rel.is_absolute() {
            rel
        } else {
            self.root.join(rel)
        };
        path.is_file().then_some(path)
    }

    /// Writes the files of `tree` (a tree or commit id) into the directory `dest` (created when
    /// missing), symlinks and executable bits included. Goes through a temporary index, so the
    /// user's index, checkout and worktree list are untouched; `dest` is not a git checkout.
    pub fn export_tree(&self, tree: &str, dest: &Path) -> Result<(), GitError> {
        std::fs::create_dir_all(dest).map_err(|e| GitError::Io {
            action: "create",
            path: dest.to_path_buf(),
            source: e,
        })?;
        let index = TempFile::new("index")?;
        let with_index = |args: &[&str]| self.spec(args).env("GIT_INDEX_FILE", index.path());
        self.run_spec(&with_index(&["read-tree", tree]))?;
        // checkout-index joins the prefix and the path as strings: the trailing slash makes a dir.
        let prefix = format!("--prefix={}/", dest.to_string_lossy().trim_end_matches('/'));
        self.run_spec(&with_index(&["checkout-index", "-a", "-f", &prefix]))
            .map(drop)
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

    /// `tree` without the paths matching `pathspecs` (git pathspecs: paths or globs), built in a
    /// temporary index; the user's index is untouched.
    pub fn tree_without(&self, tree: &str, pathspecs: &[&str]) -> Result<String, GitError> {
        let index = TempFile::new("index")?;
        let with_index = |args: &[&str]| self.spec(args).env("GIT_INDEX_FILE", index.path());
        self.run_spec(&with_index(&["read-tree", tree]))?;
        if !pathspecs.is_empty() {
            let mut args = vec!["rm", "--cached", "-r", "-q", "--ignore-unmatch", "--"];
            args.extend_from_slice(pathspecs);
            self.run_spec(&with_index(&args))?;
        }
        let out = self.run_spec(&with_index(&["write-tree"]))?;
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

    /// Puts the working tree back to `tree` wherever it differs (ignored files are not looked
    /// at): changed and deleted paths are rewritten from `tree` (modes and symlinks included),
    /// paths `tree` does not have are deleted, and directories left empty by that are removed.
    /// Returns the paths it put back. The checkout's index and HEAD are untouched. For loki's own
    /// worktrees (it reads the tree as [`Git::snapshot_worktree_cached`] does).
    pub fn reset_to_tree(&self, tree: &str) -> Result<Vec<String>, GitError> {
        let now = self.snapshot_worktree_cached()?;
        if now == tree {
            return Ok(Vec::new());
        }
        let changes = self.changes(tree, &now)?;
        let index = TempFile::new("index")?;
        let with_index = |args: &[&str]| self.spec(args).env("GIT_INDEX_FILE", index.path());
        self.run_spec(&with_index(&["read-tree", tree]))?;
        let (added, rest): (Vec<&Change>, Vec<&Change>) =
            changes.iter().partition(|c| c.kind == ChangeKind::Added);
        for c in &added {
            let p = self.root.join(&c.path);
            std::fs::remove_file(&p).map_err(|e| GitError::Io {
                action: "remove",
                path: p.clone(),
                source: e,
            })?;
            // Empty parents the removed file leaves are removed too, up to the root.
            let mut dir = p.parent();
            while let Some(d) = dir {
                if d == self.root || std::fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        // Bounded argument lists: a test run can touch thousands of files.
        for chunk in rest.chunks(256) {
            let mut args = vec!["checkout-index", "-f", "-q", "--"];
            args.extend(chunk.iter().map(|c| c.path.as_str()));
            self.run_spec(&with_index(&args))?;
        }
        Ok(changes.into_iter().map(|c| c.path).collect())
    }

    /// Which of `paths` the checkout's ignore rules (`.gitignore` files, `.git/info/exclude`, the
    /// user's global excludes) hide.
    pub fn ignored(&self, paths: &[&str]) -> Result<Vec<String>, GitError> {
        let mut out = Vec::new();
        for chunk in paths.chunks(256) {
            // `-z` needs `--stdin`, which the runner closes: one path per line, unquoted.
            let mut args = vec![
                "-c",
                "core.quotePath=false",
                "check-ignore",
                "--no-index",
                "--",
            ];
            args.extend_from_slice(chunk);
            match self.run(&args) {
                Ok(listed) => out.extend(
                    String::from_utf8_lossy(&listed)
                        .lines()
                        .filter(|p| !p.is_empty())
                        .map(str::to_owned),
                ),
                // Exit 1: none of them is ignored.
                Err(GitError::Failed { code: 1, .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(out)
    }

    /// The bytes of the blob `oid`.
    pub fn show_blob(&self, oid: &str) -> Result<Vec<u8>, GitError> {
        self.run(&["cat-file", "blob", oid])
    }

    /// The bytes of `path` at `rev`, or `None` when it does not exist there.
    pub fn show_file(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        match self.run(&["cat-file", "blob", &format!("{rev}:{path}")]) {
            Ok(b) => Ok(Some(b)),
            Err(GitError::Failed { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every file in `rev`'s tree with its blob id, as `(path, blob)` (submodules excluded).
    pub fn ls_tree_blobs(&self, rev: &str) -> Result<Vec<(String, String)>, GitError> {
        let out = self.run(&["ls-tree", "-r", "-z", "--full-tree", rev])?;
        Ok(out
            .split(|&b| b == 0)
            .filter_map(|rec| {
                // `<mode> SP <type> SP <oid> TAB <path>`
                let tab = rec.iter().position(|&b| b == b'\t')?;
                let head = String::from_utf8_lossy(&rec[..tab]);
                let mut parts = head.split(' ');
                let (_mode, kind, oid) = (parts.next()?, parts.next()?, parts.next()?);
                (kind == "blob").then(|| {
                    (
                        String::from_utf8_lossy(&rec[tab + 1..]).into_owned(),
                        oid.to_string(),
                    )
                })
            })
            .collect())
    }

    /// Every file path in `rev`'s tree.
    pub fn ls_tree(&self, rev: &str) -> Result<Vec<String>, GitError> {
        let out = self.run(&["ls-tree", "-r", "-z", "--name-only", rev])?;
        Ok(out
            .split(|&b| b == 0)
            .filter(|f| !f.is_empty())
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect())
    }
}

/// `(path, (ctime seconds, nanoseconds))` of each entry in `git ls-files --debug -z` output:
/// a path ended by NUL, then indented `key: value` lines, the first `ctime: <s>:<ns>`.
fn recorded_ctimes(out: &[u8]) -> Vec<(String, (i64, i64))> {
    let mut entries = Vec::new();
    let mut rest = out;
    while let Some(nul) = rest.iter().position(|&b| b == 0) {
        let path = String::from_utf8_lossy(&rest[..nul]).into_owned();
        rest = &rest[nul + 1..];
        // The stat block ends with its `size:` line (a path may itself start with spaces).
        let mut ctime = None;
        while !rest.is_empty() {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            let line = String::from_utf8_lossy(&rest[..end]).trim().to_string();
            rest = &rest[end..];
            if let Some(v) = line.strip_prefix("ctime: ")
                && let Some((sec, nsec)) = v.split_once(':')
            {
                ctime = sec.parse().ok().zip(nsec.trim().parse().ok());
            }
            if line.starts_with("size:") {
                break;
            }
        }
        if let Some(c) = ctime {
            entries.push((path, c));
        }
    }
    entries
}

/// A file's change time as git records it (seconds, nanoseconds), without following symlinks.
fn file_ctime(path: &Path) -> Option<(i64, i64)> {
    use std::os::unix::fs::MetadataExt as _;
    let meta = std::fs::symlink_metadata(path).ok()?;
    // git stores 32-bit seconds; compare the same way.
    Some((meta.ctime() & 0xffff_ffff, meta.ctime_nsec()))
}

/// Directory names whose contents a full snapshot never adds when only local excludes hide them:
/// dependencies, builds and caches, large and not the change.
const BULK_DIRS: &[&str] = &[
    "node_modules",
    ".venv",
    "venv",
    "target",
    "dist",
    "build",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".tox",
    ".gradle",
    ".idea",
    ".vscode",
    ".git",
    ".hypothesis",
    "coverage",
    ".nyc_output",
    ".next",
    ".nuxt",
    ".cache",
    ".eggs",
    ".nox",
    "htmlcov",
];
/// Whether an ignored file may be loaded by a test runner or a build, so that a snapshot must judge
/// it even though `.gitignore` hides it: source code, `.pth` files, test and build configuration,
/// snapshot and golden files, and `.gitignore` files themselves.
#[must_use]
pub fn runner_loadable(path: &str) -> bool {
    const EXTS: &[&str] = &[
        "py", "pyi", "pth", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "rs", "go",
        "json", "toml", "ini", "cfg", "yaml", "yml", "snap", "ambr", "golden",
    ];
    const NAMES: &[&str] = &[
        ".gitignore",
        ".npmrc",
        "go.work",
        "go.mod",
        "Cargo.toml",
        "config",
    ];
    if is_private(path) {
        return false;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    let config_in_cargo = name == "config" && path.ends_with(".cargo/config");
    (NAMES.contains(&name) && (name != "config" || config_in_cargo)) || EXTS.contains(&ext)
}

/// Files that hold secrets by convention: never read into a snapshot.
fn is_private(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name == ".env"
        || name.starts_with(".env.")
        || name.ends_with(".pem")
        || name.ends_with(".key")
        || name.starts_with("id_rsa")
        || name.starts_with("id_ed25519")
        || name == ".netrc"
        || name == "credentials.json"
}

/// Locally hidden files a full snapshot adds at most.
const MAX_HIDDEN_FILES: usize = 2_000;

/// Copies an index file keeping its modification time: git treats an entry whose file changed
/// in the same clock tick as the index was written as "racily clean" and re-reads it, judging by
/// the index file's own mtime; a copy stamped "now" would make such an edit invisible.
fn copy_index(own: &Path, copy: &Path) -> std::io::Result<()> {
    std::fs::copy(own, copy)?;
    let mtime = std::fs::metadata(own)?.modified()?;
    std::fs::File::options()
        .write(true)
        .open(copy)?
        .set_modified(mtime)
}

/// A file in its own temporary directory, removed with it: a throwaway index (so the user's
/// index is never touched) or a commit message (the runner's stdin is always closed, so git
/// reads the message from a file).
struct TempFile {
    dir: tempfile::TempDir,
    name: &'static str,
}

impl TempFile {
    /// A path for `name` in a new temporary directory; the file itself is not created.
    fn new(name: &'static str) -> Result<TempFile, GitError> {
        let dir = tempfile::tempdir().map_err(|e| GitError::Io {
            action: "create a temporary directory for",
            path: name.into(),
            source: e,
        })?;
        Ok(TempFile { dir, name })
    }

    /// Like [`TempFile::new`], with `bytes` written to the file.
    fn with_content(name: &'static str, bytes: &[u8]) -> Result<TempFile, GitError> {
        let f = TempFile::new(name)?;
        loki_core::fs::write_atomic(&f.path(), bytes).map_err(|e| GitError::Io {
            action: "write",
            path: f.path(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(f)
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join(self.name)
    }
}

#[cfg(test)]
mod debug_parse_tests {
    use super::recorded_ctimes;

    #[test]
    fn ctimes_are_read_per_entry_even_for_odd_paths() {
        let block = |ns: &str| {
            format!(
                "  ctime: 1795980482:{ns}\n  mtime: 1600000000:0\n  dev: 1\tino: 2\n  uid: 0\tgid: 0\n  size: 20\tflags: 0\n"
            )
        };
        let out = format!(
            "a.rs\0{}  starts with spaces\0{}line\nbreak\0{}",
            block("1"),
            block("2"),
            block("3")
        );
        assert_eq!(
            recorded_ctimes(out.as_bytes()),
            [
                ("a.rs".to_string(), (1_795_980_482, 1)),
                ("  starts with spaces".to_string(), (1_795_980_482, 2)),
                ("line\nbreak".to_string(), (1_795_980_482, 3)),
            ]
        );
    }
}
