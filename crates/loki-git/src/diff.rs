//! Differences between two commits or trees, all from plumbing (`diff-tree`) or with text
//! conversion and external diffs off, so user configuration cannot change what is read: the raw
//! diff the receipt hashes, changed paths with or without their tree entries, the zero-context
//! patch lint reads, and the diff statistics.

use sha2::{Digest, Sha256};

use crate::{Git, GitError};

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

impl Git {
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
}
