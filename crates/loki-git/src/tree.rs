//! Trees and blobs built and read without touching any index but a temporary one: blobs stored
//! without filters, trees edited or narrowed, a tree exported to a plain directory, files and
//! listings read from a revision.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::temp::TempFile;
use crate::{Entry, Git, GitError};

/// An edit to a tree: put `entry` at `path`, or remove `path` when `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeEdit {
    pub path: String,
    pub entry: Option<Entry>,
}

impl Git {
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

    /// Makes the directory `dest` hold exactly the files of `tree` (a tree or commit id), as
    /// [`Git::export_tree`] would, writing only what differs. `index` is the directory's own
    /// index file, kept beside it by the caller between calls: it records what was written
    /// there and when, so git can tell what a run changed since (by size, inode, modification
    /// and change times, and content where those cannot tell). A missing `index` (or `dest`)
    /// writes every file, as an export does.
    ///
    /// In order: the index's stat information is refreshed; the index becomes `tree`, writing
    /// the files whose entries changed (`read-tree --reset -u`: a file or directory in the way
    /// is replaced); tracked files changed or removed since are written again; and every
    /// untracked file, ignored ones and nested repositories included, is removed; git's view of
    /// the disk is the exact one whatever the repository's configuration says (full stat
    /// information, no monitor), and the index is dated back so that the next call compares
    /// every file's content, not its time stamps, which git keeps to the second. Then the
    /// directory is walked: a path the index does not list (what `git clean` could not remove,
    /// such as the contents of a directory made unreadable), an unreadable directory or a
    /// missing file is an error naming it, so a directory that runs of untrusted code wrote in
    /// is used again only when it is exactly the tree. The user's index and checkout are
    /// untouched. On an error the directory is in an unknown state: the caller removes it (and
    /// `index`) and exports again.
    pub fn sync_tree(&self, tree: &str, dest: &Path, index: &Path) -> Result<(), GitError> {
        std::fs::create_dir_all(dest).map_err(|e| GitError::Io {
            action: "create",
            path: dest.to_path_buf(),
            source: e,
        })?;
        let work_tree = format!("--work-tree={}", dest.to_string_lossy());
        let with_index = |args: &[&str]| {
            let mut all = crate::snapshot::EXACT_STAT.to_vec();
            all.push(work_tree.as_str());
            all.extend_from_slice(args);
            self.spec(&all).env("GIT_INDEX_FILE", index)
        };
        if index.exists() {
            // Exit 1 lists the files that need updating: those are handled below.
            let _ = self.run_spec(&with_index(&["update-index", "-q", "--refresh"]));
        }
        self.run_spec(&with_index(&["read-tree", "--reset", "-u", tree]))?;
        // The NUL-separated list goes back to git as it came, so any file name survives.
        let changed = self.run_spec(&with_index(&["diff-files", "--name-only", "-z"]))?;
        if !changed.is_empty() {
            let spec = with_index(&["checkout-index", "-f", "-q", "-z", "--stdin"]);
            self.run_spec(&spec.stdin_bytes(changed))?;
        }
        self.run_spec(&with_index(&["clean", "-ffdxq"]))?;
        let listed = self.run_spec(&with_index(&["ls-files", "-z"]))?;
        check_exact(dest, &listed)?;
        // git keeps change times to the second: a run that rewrites a file in the second the
        // index was written and sets its size and modification time back would look unchanged.
        // An index older than every file makes each entry "racily clean", so the next refresh
        // compares every file's content (reading is cheap next to writing).
        std::fs::File::options()
            .write(true)
            .open(index)
            // Not the epoch itself: git reads a zero time stamp as "unknown", racing nothing.
            .and_then(|f| {
                f.set_modified(
                    std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1),
                )
            })
            .map_err(|source| GitError::Io {
                action: "date back",
                path: index.to_path_buf(),
                source,
            })
    }

    /// The bytes of the blob `oid` (from the handle's cache when [`Git::prefetch`] read it).
    pub fn show_blob(&self, oid: &str) -> Result<Vec<u8>, GitError> {
        if let Some(Some(bytes)) = self.cached(oid) {
            return Ok(bytes);
        }
        self.run(&["cat-file", "blob", oid])
    }

    /// The bytes of `path` at `rev`, or `None` when it does not exist there (from the handle's
    /// cache when [`Git::prefetch`] read it).
    pub fn show_file(&self, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
        let request = format!("{rev}:{path}");
        if let Some(known) = self.cached(&request) {
            return Ok(known);
        }
        let read = self.show_file_uncached(&request)?;
        self.remember(&request, read.as_deref());
        Ok(read)
    }

    /// `git cat-file blob <request>`: `None` when git cannot read it as a blob.
    pub(crate) fn show_file_uncached(&self, request: &str) -> Result<Option<Vec<u8>>, GitError> {
        match self.run(&["cat-file", "blob", request]) {
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

/// Whether `dest` holds exactly the paths of `listed` (`git ls-files -z`: files and symlinks)
/// and the directories leading to them; see [`Git::sync_tree`].
fn check_exact(dest: &Path, listed: &[u8]) -> Result<(), GitError> {
    let not_exact = |path: &Path, what: &str| GitError::Io {
        action: "check the synced tree at",
        path: dest.to_path_buf(),
        source: std::io::Error::other(format!("{} {what}", path.display())),
    };
    let mut files: BTreeSet<PathBuf> = listed
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| PathBuf::from(OsStr::from_bytes(p)))
        .collect();
    let dirs: BTreeSet<PathBuf> = files
        .iter()
        .flat_map(|f| f.ancestors().skip(1))
        .filter(|d| !d.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .collect();
    let mut extra = None;
    let mut stack = vec![dest.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| GitError::Io {
            action: "read the synced directory",
            path: dir.clone(),
            source,
        })?;
        for e in entries {
            let e = e.map_err(|source| GitError::Io {
                action: "read the synced directory",
                path: dir.clone(),
                source,
            })?;
            let path = e.path();
            let rel = path.strip_prefix(dest).unwrap_or(&path).to_path_buf();
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && dirs.contains(&rel) {
                stack.push(path);
            } else if is_dir && files.contains(&rel) {
                // A submodule (gitlink) is checked out as an empty directory.
                let empty = std::fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
                if !empty {
                    extra = Some(rel);
                    break;
                }
                files.remove(&rel);
            } else if is_dir || !files.remove(&rel) {
                extra = Some(rel);
                break;
            }
        }
        if let Some(rel) = &extra {
            return Err(not_exact(rel, "is not in the tree"));
        }
    }
    match files.into_iter().next() {
        Some(missing) => Err(not_exact(&missing, "is missing")),
        None => Ok(()),
    }
}
