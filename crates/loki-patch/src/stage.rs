//! The thin I/O shell: paths confined to a root, an in-memory staging area, and an all-or-nothing
//! commit.
//!
//! Every operation first computes every resulting file in memory ([`Stage`]); only when all of
//! them succeeded does [`Stage::commit`] touch the disk, writing each file with
//! [`loki_core::fs::write_atomic_mode`] (keeping its permission bits) and then removing deleted
//! files. If a write fails half-way, the files already written are put back from memory, so the
//! tree is as it was (directories created for new files may remain, empty).
//!
//! Confinement: every path goes through [`loki_core::paths::Root::confine`] with the default rules
//! (relative, no `..` out of the root, not through a symlink out, not in `.git` or `.loki`, not
//! the root itself). Anything else is [`PatchError::UnsafePath`]. I/O goes to the resolved path,
//! so a symlink inside the root is written through, never replaced.

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use loki_core::paths::{Root, Rules};

use crate::backup;
use crate::error::PatchError;
use crate::render::render_labeled;
use crate::seek::Rung;
use crate::text;

/// Mode of files created by a patch (what `touch` gives under the usual umask).
const NEW_FILE_MODE: u32 = 0o644;
/// Permission bits carried over from an existing file (setuid, setgid, sticky and rwx).
const MODE_BITS: u32 = 0o7777;

/// Options of every applying function.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApplyOptions {
    /// Write `<file>.loki.bak` (see [`crate::backup`]) for every existing file before it is
    /// changed or deleted. A backup that already exists fails the whole operation, untouched.
    pub backup: bool,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Deleted,
    Modified,
}

/// Where one hunk (or a search/replace) landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HunkMatch {
    /// 1-based index of the hunk in its file's update.
    pub hunk: usize,
    /// 1-based line in the old file where its old lines start.
    pub line: usize,
    pub rung: Rung,
}

/// One file changed on disk by an applying function, with both contents for diffs and events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The path relative to the root, as the patch named it (normalised: no `./`).
    pub path: String,
    pub kind: ChangeKind,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
    /// Where each hunk landed (empty for adds and deletes).
    pub hunks: Vec<HunkMatch>,
    /// The backup written before the change, when [`ApplyOptions::backup`] asked for one.
    pub backup: Option<PathBuf>,
}

impl FileChange {
    /// A unified diff of the change (`/dev/null` for added and deleted files).
    #[must_use]
    pub fn diff(&self, color: bool) -> String {
        let show = |b: &Option<Vec<u8>>| {
            b.as_ref()
                .map(|b| text::decode(&self.path, b).map_or_else(|_| String::new(), |d| d.text))
                .unwrap_or_default()
        };
        let old_label = match self.kind {
            ChangeKind::Added => "/dev/null".to_string(),
            ChangeKind::Deleted | ChangeKind::Modified => format!("a/{}", self.path),
        };
        let new_label = match self.kind {
            ChangeKind::Deleted => "/dev/null".to_string(),
            ChangeKind::Added | ChangeKind::Modified => format!("b/{}", self.path),
        };
        render_labeled(
            &old_label,
            &new_label,
            &show(&self.before),
            &show(&self.after),
            color,
        )
    }
}

#[derive(Debug)]
struct Entry {
    rel: String,
    original: Option<Vec<u8>>,
    current: Option<Vec<u8>>,
    mode: u32,
    hunks: Vec<HunkMatch>,
}

/// Files read from a root and changed in memory, committed all at once.
#[derive(Debug)]
pub(crate) struct Stage {
    root: Root,
    /// Keyed by the resolved path so two spellings of one file share one entry.
    entries: BTreeMap<PathBuf, Entry>,
}

impl Stage {
    pub(crate) fn new(root: &Path) -> Result<Self, PatchError> {
        let root = Root::new(root).map_err(|e| PatchError::io("resolve the root", root, e))?;
        Ok(Stage {
            root,
            entries: BTreeMap::new(),
        })
    }

    /// Resolves `rel` inside the root and loads its current content (once).
    /// Returns the key for [`Stage::get`] and [`Stage::set`].
    pub(crate) fn load(&mut self, rel: &str, op: &'static str) -> Result<PathBuf, PatchError> {
        let (norm, abs) = confine(&self.root, rel)?;
        if self.entries.contains_key(&abs) {
            return Ok(abs);
        }
        let (original, mode) = match fs::metadata(&abs) {
            Ok(m) if m.is_dir() => return Err(PatchError::NotAFile { path: norm, op }),
            Ok(m) => {
                let bytes = fs::read(&abs).map_err(|e| PatchError::io("read", &abs, e))?;
                (Some(bytes), m.permissions().mode() & MODE_BITS)
            }
            Err(e) if e.kind() == ErrorKind::NotFound => (None, NEW_FILE_MODE),
            Err(e) => return Err(PatchError::io("inspect", &abs, e)),
        };
        self.entries.insert(
            abs.clone(),
            Entry {
                rel: norm,
                current: original.clone(),
                original,
                mode,
                hunks: Vec::new(),
            },
        );
        Ok(abs)
    }

    fn entry(&self, key: &Path) -> Result<&Entry, PatchError> {
        self.entries
            .get(key)
            .ok_or_else(|| PatchError::io("stage", key, ErrorKind::NotFound.into()))
    }

    /// The staged content of a loaded file (`None`: it does not exist now).
    pub(crate) fn get(&self, key: &Path) -> Result<Option<&[u8]>, PatchError> {
        Ok(self.entry(key)?.current.as_deref())
    }

    pub(crate) fn rel(&self, key: &Path) -> Result<&str, PatchError> {
        Ok(&self.entry(key)?.rel)
    }

    pub(crate) fn mode(&self, key: &Path) -> Result<u32, PatchError> {
        Ok(self.entry(key)?.mode)
    }

    /// Stages new content (`None` deletes); `mode` applies to files that did not exist before.
    pub(crate) fn set(
        &mut self,
        key: &Path,
        content: Option<Vec<u8>>,
        mode: Option<u32>,
        hunks: Vec<HunkMatch>,
    ) -> Result<(), PatchError> {
        let entry = self
            .entries
            .get_mut(key)
            .ok_or_else(|| PatchError::io("stage", key, ErrorKind::NotFound.into()))?;
        entry.current = content;
        if let Some(m) = mode {
            entry.mode = m;
        }
        entry.hunks = hunks;
        Ok(())
    }

    /// Writes every staged change, or none: see the module doc.
    pub(crate) fn commit(self, opts: ApplyOptions) -> Result<Vec<FileChange>, PatchError> {
        let changed: Vec<(PathBuf, Entry)> = self
            .entries
            .into_iter()
            .filter(|(_, e)| e.original != e.current)
            .collect();
        if opts.backup {
            for (abs, e) in &changed {
                let bak = backup::path_for(abs);
                if e.original.is_some() && fs::symlink_metadata(&bak).is_ok() {
                    return Err(PatchError::BackupExists { backup: bak });
                }
            }
        }
        let mut backups: Vec<Option<PathBuf>> = Vec::with_capacity(changed.len());
        for (abs, e) in &changed {
            if opts.backup && e.original.is_some() {
                match backup::create(abs) {
                    Ok(b) => backups.push(Some(b)),
                    Err(err) => {
                        for b in backups.iter().flatten() {
                            let _ = fs::remove_file(b);
                        }
                        return Err(err);
                    }
                }
            } else {
                backups.push(None);
            }
        }
        // Writes first, deletions last: a move whose write fails has not lost its source.
        let order = changed
            .iter()
            .enumerate()
            .filter(|(_, (_, e))| e.current.is_some())
            .chain(
                changed
                    .iter()
                    .enumerate()
                    .filter(|(_, (_, e))| e.current.is_none()),
            )
            .map(|(i, _)| i);
        let mut done: Vec<usize> = Vec::new();
        for i in order {
            let (abs, e) = &changed[i];
            let result = match &e.current {
                Some(bytes) => write_file(abs, bytes, e.mode),
                None => fs::remove_file(abs)
                    .map_err(|err| PatchError::io("delete", abs, err))
                    .and_then(|()| parent_sync(abs)),
            };
            if let Err(err) = result {
                roll_back(&changed, &done);
                for b in backups.iter().flatten() {
                    let _ = fs::remove_file(b);
                }
                return Err(match err {
                    PatchError::Core(source) => PatchError::Write { source },
                    other => other,
                });
            }
            done.push(i);
        }
        Ok(changed
            .into_iter()
            .zip(backups)
            .map(|((_, e), backup)| FileChange {
                kind: match (&e.original, &e.current) {
                    (None, _) => ChangeKind::Added,
                    (Some(_), None) => ChangeKind::Deleted,
                    (Some(_), Some(_)) => ChangeKind::Modified,
                },
                path: e.rel,
                before: e.original,
                after: e.current,
                hunks: e.hunks,
                backup,
            })
            .collect())
    }
}

fn parent_sync(abs: &Path) -> Result<(), PatchError> {
    match abs.parent() {
        Some(dir) => loki_core::fs::sync_dir(dir).map_err(PatchError::from),
        None => Ok(()),
    }
}

fn write_file(abs: &Path, bytes: &[u8], mode: u32) -> Result<(), PatchError> {
    if let Some(dir) = abs.parent() {
        fs::create_dir_all(dir).map_err(|e| PatchError::io("create directory", dir, e))?;
    }
    loki_core::fs::write_atomic_mode(abs, bytes, mode)?;
    // write_atomic_mode's mode passes through the umask; set the exact bits we read.
    fs::set_permissions(abs, fs::Permissions::from_mode(mode))
        .map_err(|e| PatchError::io("set permissions of", abs, e))
}

/// Best effort: puts back every file in `done` from memory. Errors here cannot be reported better
/// than the error that caused the roll-back, so they are dropped.
fn roll_back(changed: &[(PathBuf, Entry)], done: &[usize]) {
    for &i in done.iter().rev() {
        let (abs, e) = &changed[i];
        let _ = match &e.original {
            Some(bytes) => write_file(abs, bytes, e.mode),
            None => fs::remove_file(abs).map_err(|err| PatchError::io("delete", abs, err)),
        };
    }
}

/// Resolves `rel` inside `root` through [`loki_core::paths::Root::confine`]: returns the
/// normalised relative path and the path to do I/O on. See the module doc for the rules.
pub(crate) fn confine(root: &Root, rel: &str) -> Result<(String, PathBuf), PatchError> {
    let c = root.confine(rel, Rules::default())?;
    Ok((c.rel, c.abs))
}
