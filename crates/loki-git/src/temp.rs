//! Throwaway files for git calls: an index, a blob's bytes, a commit message.

use std::path::PathBuf;

use crate::GitError;

/// A file in its own temporary directory, removed with it: a throwaway index (so the user's
/// index is never touched) or a commit message (the runner's stdin is always closed, so git
/// reads the message from a file).
pub(crate) struct TempFile {
    dir: tempfile::TempDir,
    name: &'static str,
}

impl TempFile {
    /// A path for `name` in a new temporary directory; the file itself is not created.
    pub(crate) fn new(name: &'static str) -> Result<TempFile, GitError> {
        let dir = tempfile::tempdir().map_err(|e| GitError::Io {
            action: "create a temporary directory for",
            path: name.into(),
            source: e,
        })?;
        Ok(TempFile { dir, name })
    }

    /// Like [`TempFile::new`], with `bytes` written to the file.
    pub(crate) fn with_content(name: &'static str, bytes: &[u8]) -> Result<TempFile, GitError> {
        let f = TempFile::new(name)?;
        loki_core::fs::write_atomic(&f.path(), bytes).map_err(|e| GitError::Io {
            action: "write",
            path: f.path(),
            source: std::io::Error::other(e.to_string()),
        })?;
        Ok(f)
    }

    pub(crate) fn path(&self) -> PathBuf {
        self.dir.path().join(self.name)
    }
}
