//! Byte-exact backups of user files: `<file>.loki.bak`.
//!
//! Invariants:
//! - [`create`] copies the file byte for byte, with its permission bits, atomically, before the
//!   first write to it. It never overwrites an existing backup: one that exists means a previous
//!   edit was never verified or rolled back, and its bytes are the only copy of the original
//!   ([`PatchError::BackupExists`]).
//! - [`restore`] puts the bytes back exactly (atomically, same permission bits) and only then
//!   removes the backup; a crash in between leaves both, never neither.
//! - [`cleanup`] removes the backup once the edit is verified.

use std::fs;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::PatchError;

/// The suffix appended to a file's name for its backup.
pub const SUFFIX: &str = ".loki.bak";

/// Permission bits carried from a file to its backup and back.
const MODE_BITS: u32 = 0o7777;

/// The backup path of `file`: the same directory, the name plus [`SUFFIX`].
#[must_use]
pub fn path_for(file: &Path) -> PathBuf {
    let mut name = file
        .file_name()
        .map(std::ffi::OsStr::to_os_string)
        .unwrap_or_default();
    name.push(SUFFIX);
    file.with_file_name(name)
}

fn write_with_mode(path: &Path, bytes: &[u8], mode: u32) -> Result<(), PatchError> {
    loki_core::fs::write_atomic_mode(path, bytes, mode)?;
    // The temporary file's mode passed through the umask; set the exact bits.
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| PatchError::io("set permissions of", path, e))
}

/// Writes the backup of `file` and returns its path. Refuses when one already exists.
pub fn create(file: &Path) -> Result<PathBuf, PatchError> {
    let backup = path_for(file);
    if fs::symlink_metadata(&backup).is_ok() {
        return Err(PatchError::BackupExists { backup });
    }
    let meta = fs::metadata(file).map_err(|e| PatchError::io("inspect", file, e))?;
    let bytes = fs::read(file).map_err(|e| PatchError::io("read", file, e))?;
    write_with_mode(&backup, &bytes, meta.permissions().mode() & MODE_BITS)?;
    Ok(backup)
}

/// Restores `file` from its backup byte for byte, then removes the backup.
pub fn restore(file: &Path) -> Result<(), PatchError> {
    let backup = path_for(file);
    let bytes = match fs::read(&backup) {
        Ok(b) => b,
        Err(e) if e.kind() == ErrorKind::NotFound => return Err(PatchError::NoBackup { backup }),
        Err(e) => return Err(PatchError::io("read", &backup, e)),
    };
    let meta = fs::metadata(&backup).map_err(|e| PatchError::io("inspect", &backup, e))?;
    write_with_mode(file, &bytes, meta.permissions().mode() & MODE_BITS)?;
    remove(&backup)
}

/// Removes the backup of `file` (the edit was verified). Returns whether there was one.
pub fn cleanup(file: &Path) -> Result<bool, PatchError> {
    let backup = path_for(file);
    match fs::symlink_metadata(&backup) {
        Ok(_) => remove(&backup).map(|()| true),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(PatchError::io("inspect", &backup, e)),
    }
}

fn remove(backup: &Path) -> Result<(), PatchError> {
    fs::remove_file(backup).map_err(|e| PatchError::io("remove", backup, e))?;
    match backup.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => Ok(loki_core::fs::sync_dir(dir)?),
        _ => Ok(()),
    }
}
