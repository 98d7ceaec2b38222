//! One cycle per repository: `.loki/improve/cycle.lock`.
//!
//! The lock is an exclusive `flock` taken without waiting: a second caller gets
//! [`Acquired::Busy`] at once. The file holds who has it (`{"pid","pid_start","cycle","at"}`) so
//! that `busy` can name the holder and a lock left by a process that died (its `flock` went with
//! it, its record did not) is seen, broken and audited (`lock-broken`). The file is emptied on
//! release, never removed: removing a lock file while another process waits on its inode would let
//! two holders in.

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};

use serde::{Deserialize, Serialize};

use loki_core::fs::FileLock;

use crate::ImproveError;
use crate::audit::{self, Action, Entry};
use crate::config::Paths;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Holder {
    pid: u32,
    #[serde(default)]
    pid_start: Option<u64>,
    cycle: String,
    at: String,
}

/// The held lock; released when dropped.
#[derive(Debug)]
pub struct CycleLock {
    lock: FileLock,
}

/// The result of [`acquire`].
#[derive(Debug)]
pub enum Acquired {
    Held(CycleLock),
    /// Someone else holds it: their pid (and cycle), as the lock file names them.
    Busy {
        holder: String,
    },
}

/// Takes the cycle lock for `cycle` without waiting.
pub fn acquire(paths: &Paths, cycle: &str) -> Result<Acquired, ImproveError> {
    paths.ensure()?;
    let path = paths.lock();
    let file = File::options()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| ImproveError::io("open", &path, e))?;
    let lock = match FileLock::try_take(file) {
        Ok(Ok(lock)) => lock,
        Ok(Err(mut file)) => {
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let holder = serde_json::from_str::<Holder>(&text)
                .map(|h| format!("pid {} (cycle {})", h.pid, h.cycle))
                .unwrap_or_else(|_| "another process".to_string());
            return Ok(Acquired::Busy { holder });
        }
        Err(e) => return Err(ImproveError::io("lock", &path, e)),
    };
    let mut file = lock.file();
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| ImproveError::io("read", &path, e))?;
    if !text.trim().is_empty() {
        // Whoever wrote this no longer holds the flock: it died without releasing.
        let who = serde_json::from_str::<Holder>(&text).map_or_else(
            |_| "an unreadable holder record".to_string(),
            |h| format!("pid {} of cycle {} (since {})", h.pid, h.cycle, h.at),
        );
        audit::append(
            paths,
            Entry::new(Action::LockBroken, "cycle", Some(cycle))
                .detail(format!("lock left by {who}, which is no longer running")),
        )?;
    }
    let pid = std::process::id();
    let me = Holder {
        pid,
        pid_start: loki_core::run::process_start_ticks(pid),
        cycle: cycle.to_string(),
        at: loki_core::time::now_rfc3339(),
    };
    let bytes = serde_json::to_vec(&me).map_err(|e| ImproveError::BadRecord {
        what: "lock record",
        path: path.clone(),
        reason: e.to_string(),
    })?;
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(&bytes))
        .and_then(|()| file.sync_data())
        .map_err(|e| ImproveError::io("write", &path, e))?;
    Ok(Acquired::Held(CycleLock { lock }))
}

impl Drop for CycleLock {
    fn drop(&mut self) {
        // Best effort: an emptied file is a released lock; the flock goes with `FileLock`'s drop.
        let _ = self.lock.file().set_len(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_caller_is_busy_and_a_dead_holder_is_broken_and_audited() {
        let d = loki_test_support::GitRepo::new();
        let repo = loki_core::layout::Repo::discover(d.path()).unwrap();
        let p = Paths::new(&repo);
        let Acquired::Held(first) = acquire(&p, "cyc_a").unwrap() else {
            panic!("not held")
        };
        match acquire(&p, "cyc_b").unwrap() {
            Acquired::Busy { holder } => assert!(holder.contains("cyc_a"), "{holder}"),
            Acquired::Held(_) => panic!("two holders"),
        }
        drop(first);
        assert!(matches!(acquire(&p, "cyc_c").unwrap(), Acquired::Held(_)));
        // A record without a flock: its process died.
        loki_core::fs::write_atomic(
            &p.lock(),
            br#"{"pid":999999,"cycle":"cyc_dead","at":"2026-01-01T00:00:00.000Z"}"#,
        )
        .unwrap();
        assert!(matches!(acquire(&p, "cyc_d").unwrap(), Acquired::Held(_)));
        let lines = audit::read(&p).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].entry.action, Action::LockBroken);
        assert!(
            lines[0]
                .entry
                .detail
                .as_deref()
                .unwrap()
                .contains("cyc_dead")
        );
    }
}
