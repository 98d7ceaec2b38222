//! Snapshots of a working tree as a tree id, built in a temporary index so the checkout's own index
//! is untouched; putting a working tree back to a tree; which paths ignore rules hide. What a
//! snapshot holds beyond the tracked and untracked files (ignored files a test runner may load,
//! never private files or bulk directories) is decided here ([`runner_loadable`]).

use std::path::{Path, PathBuf};

use loki_process::Spec;

use crate::temp::TempFile;
use crate::{Change, ChangeKind, Git, GitError};

/// Settings under which git sees every change to a file in a work tree, whatever the
/// repository's configuration says: stat information is checked in full (inode and change time
/// included; the change time cannot be set back by a process, unlike the modification time),
/// and no monitor or cache answers for the disk.
pub(crate) const EXACT_STAT: [&str; 10] = [
    "-c",
    "core.ignoreStat=false",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.trustctime=true",
    "-c",
    "core.checkStat=default",
];

impl Git {
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
            let mut all = EXACT_STAT.to_vec();
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
