//! The file helpers through which loki writes state.
//!
//! Invariant: a reader never sees a half-written file. [`write_atomic`] writes a temporary file in
//! the destination's directory, `fsync`s it, renames it over the destination (atomic on POSIX within
//! one file system) and `fsync`s the directory so the rename itself survives a power cut. A crash
//! at any point leaves either the old content or the new, plus at worst a stray `.tmp` file that
//! carries the destination's name.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::CoreError;

/// Mode for directories that hold secrets or per-user state (`$LOKI_HOME/keys`, `seal/`).
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Mode for files that hold secrets (signing keys).
pub const PRIVATE_FILE_MODE: u32 = 0o600;

/// Writes `bytes` to `path` atomically (temp file + fsync + rename + directory fsync).
///
/// The new file gets mode 0644 unless `mode` says otherwise.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    write_atomic_mode(path, bytes, 0o644)
}

/// Like [`write_atomic`], with an explicit permission mode for the new file (0600 for secrets).
pub fn write_atomic_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), CoreError> {
    write_temp_then(path, bytes, mode, true).map(drop)
}

/// Like [`write_atomic_mode`], but never replaces an existing file: `Ok(false)` when `path`
/// already exists (another process created it first; its content is left as it is). The file
/// appears whole or not at all, so a reader never sees a half-written one.
pub fn create_atomic_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<bool, CoreError> {
    write_temp_then(path, bytes, mode, false)
}

/// Writes `bytes` to a synced temporary file beside `path`, then moves it into place (replacing
/// or not); returns whether it was moved.
fn write_temp_then(path: &Path, bytes: &[u8], mode: u32, replace: bool) -> Result<bool, CoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(".tmp")
        .permissions(fs::Permissions::from_mode(mode))
        .tempfile_in(dir)
        .map_err(|e| CoreError::io("create a temporary file in", dir, e))?;
    tmp.write_all(bytes)
        .map_err(|e| CoreError::io("write", tmp.path().to_path_buf(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| CoreError::io("fsync", tmp.path().to_path_buf(), e))?;
    if replace {
        tmp.persist(path)
            .map_err(|e| CoreError::io("rename a temporary file onto", path, e.error))?;
    } else {
        match tmp.persist_noclobber(path) {
            Ok(_) => {}
            Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => return Err(CoreError::io("link a temporary file to", path, e.error)),
        }
    }
    sync_dir(dir)?;
    Ok(true)
}

/// Serialises `value` as pretty JSON with a final newline and writes it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), CoreError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|source| CoreError::Json {
        what: "a state file",
        source,
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// `fsync`s a directory so that renames and creations inside it are durable.
pub fn sync_dir(dir: &Path) -> Result<(), CoreError> {
    let f = File::open(dir).map_err(|e| CoreError::io("open directory", dir, e))?;
    f.sync_all()
        .map_err(|e| CoreError::io("fsync directory", dir, e))
}

/// Creates `dir` (and parents) and sets it to mode 0700; an existing directory is tightened.
pub fn ensure_private_dir(dir: &Path) -> Result<(), CoreError> {
    fs::create_dir_all(dir).map_err(|e| CoreError::io("create directory", dir, e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(PRIVATE_DIR_MODE))
        .map_err(|e| CoreError::io("set mode 0700 on", dir, e))
}

/// Appends `bytes` to `path` with one `write(2)` on an `O_APPEND` descriptor, creating the file.
///
/// Used for append-only logs (audit trails) that have no chain of their own; the hash-chained event
/// log has its own writer in `loki-events`.
pub fn append_line(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| CoreError::io("open for append", path, e))?;
    f.write_all(bytes)
        .map_err(|e| CoreError::io("append to", path, e))
}

/// An exclusive advisory lock (`flock`) on an open file, released when dropped.
///
/// Released with an explicit `LOCK_UN`, never by closing alone: a `flock` belongs to the open file
/// description, and a child that another thread forks while the lock is held shares it until that
/// child execs. Closing our descriptor would leave the lock held for that window, and the next
/// taker in this very process would see it busy.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Takes `file`'s lock without waiting; gives the file back when someone else holds it.
    pub fn try_take(file: File) -> std::io::Result<Result<FileLock, File>> {
        match file.try_lock() {
            Ok(()) => Ok(Ok(FileLock { file })),
            Err(fs::TryLockError::WouldBlock) => Ok(Err(file)),
            Err(fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Takes `file`'s lock, waiting for the holder to release it.
    pub fn take(file: File) -> std::io::Result<FileLock> {
        file.lock()?;
        Ok(FileLock { file })
    }

    /// The locked file, for reading or writing a holder record.
    pub fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Best effort: on failure the lock still goes when the last descriptor closes.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_lock_is_free_even_while_a_shared_descriptor_lives() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.lock");
        let open = || {
            OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&p)
                .unwrap()
        };
        let held = FileLock::try_take(open()).unwrap().unwrap();
        assert!(FileLock::try_take(open()).unwrap().is_err(), "two holders");
        // What a child forked by another thread holds until it execs: the same open description.
        let shared = held.file().try_clone().unwrap();
        drop(held);
        let again = FileLock::try_take(open()).unwrap();
        assert!(again.is_ok(), "the lock outlived its holder");
        drop(shared);
    }

    #[test]
    fn write_atomic_replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("state.json")]);
    }

    #[test]
    fn write_atomic_mode_sets_private_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("key.pem");
        write_atomic_mode(&p, b"secret", PRIVATE_FILE_MODE).unwrap();
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    #[test]
    fn write_atomic_into_missing_directory_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("nope").join("x.json");
        let err = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(err.contains("nope"), "{err}");
        assert!(!p.exists());
    }
}
