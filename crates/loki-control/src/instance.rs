//! One `loki serve` per `LOKI_HOME` and per SQLite store.
//!
//! # Why
//!
//! `$LOKI_HOME/control/instance.json` names one server: runs of that home ship to it and
//! `loki serve status` reports it. A second server of the same home would replace the file and
//! remove it at exit while the first still serves (runs stop shipping, `status` says "not
//! running"); a second server on the same SQLite file would write one store from two processes.
//!
//! # How
//!
//! A server takes, before it binds or opens anything, an exclusive `flock` without waiting on
//! `$LOKI_HOME/control/serve.lock` and, for a SQLite store, on `<store>.serve.lock` beside it.
//! The flock goes with the process, so a crashed server never blocks the next one. The file holds
//! who has it (`{"pid", "url"}`; `url` is empty until the server has bound), written in one
//! `write(2)` after the flock is taken; it is emptied on release and never removed (removing a
//! lock file while another process opens it would let two holders in). A second server finds the
//! flock held, reads the record and refuses with the first's address
//! ([`crate::ControlError::AlreadyServing`]), having touched nothing (not instance.json, not the
//! store). PostgreSQL stores take no store lock: several servers on one database are supported
//! (see the crate doc).

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

use loki_core::fs::FileLock;
use serde::{Deserialize, Serialize};

use crate::ControlError;

/// The lock file of a home's server, beside instance.json.
#[must_use]
pub fn home_lock_path(home: &Path) -> PathBuf {
    home.join("control").join("serve.lock")
}

/// The lock file of a SQLite store: `<store>.serve.lock`.
#[must_use]
pub fn store_lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".serve.lock");
    PathBuf::from(name)
}

/// Who holds a lock.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Holder {
    pid: u32,
    #[serde(default)]
    url: String,
}

/// A held server lock; released (and emptied) when dropped.
#[derive(Debug)]
pub struct ServeLock {
    lock: FileLock,
    path: PathBuf,
}

impl ServeLock {
    /// Takes the lock at `path` without waiting. `what` names what it guards in the refusal
    /// ("LOKI_HOME /x", "the store /x/control.db").
    pub fn take(path: &Path, what: &str) -> Result<ServeLock, ControlError> {
        let file = File::options()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(path)
            .map_err(ControlError::io("open the lock file", path))?;
        let lock = match FileLock::try_take(file) {
            Ok(Ok(lock)) => lock,
            Ok(Err(mut file)) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                let holder = serde_json::from_str::<Holder>(&text).unwrap_or_default();
                return Err(ControlError::AlreadyServing {
                    what: what.to_string(),
                    pid: (holder.pid != 0).then_some(holder.pid),
                    url: (!holder.url.is_empty()).then_some(holder.url),
                    lock: path.to_path_buf(),
                });
            }
            Err(e) => return Err(ControlError::io("lock", path)(e)),
        };
        let held = ServeLock {
            lock,
            path: path.to_path_buf(),
        };
        held.record("")?;
        Ok(held)
    }

    /// Writes the holder record: this process, and `url` once it is known.
    pub fn record(&self, url: &str) -> Result<(), ControlError> {
        let me = Holder {
            pid: std::process::id(),
            url: url.to_string(),
        };
        let bytes = serde_json::to_vec(&me).unwrap_or_default();
        let mut file = self.lock.file();
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(&bytes))
            .map_err(ControlError::io("write the lock file", &self.path))
    }
}

impl Drop for ServeLock {
    fn drop(&mut self) {
        // Best effort: an empty record is a released lock; the flock goes with FileLock's drop.
        let _ = self.lock.file().set_len(0);
    }
}
