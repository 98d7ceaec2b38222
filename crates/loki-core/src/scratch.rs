//! Temporary directories that go with the process on every exit path.
//!
//! A [`Scratch`] is a [`tempfile::TempDir`] whose path is also held in one process-wide registry
//! until it is dropped (which removes it) or [`Scratch::keep`]s it. Drops cover a command that
//! ends by itself, a returned error and a panic that unwinds; the registry covers the paths that
//! skip destructors: `std::process::exit` from the signal handler when a command does not end in
//! time after Ctrl-C or SIGTERM, or at a second signal. That handler calls [`remove_all`] after
//! its children are stopped and just before it exits.
//!
//! Every temporary directory loki creates (`loki-judge-*`, `loki-check-*`, `loki-isolate-*`,
//! `loki-deep-*`, `loki-browser-*`, …) is made here, named `<prefix>XXXXXX` in `$TMPDIR` or a
//! given parent. Invariants: a registered path is one this process created; [`remove_all`] only
//! removes registered paths (never a parent or a kept directory) and takes each at most once.
//! Failure modes: a directory that cannot be created is the caller's `io::Error`; one that cannot
//! be removed at exit stays (nothing is reported: the process is ending).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Paths of the live [`Scratch`] directories of this process.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A temporary directory removed when dropped, and by [`remove_all`] when the process exits
/// without dropping it.
#[derive(Debug)]
pub struct Scratch {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
}

impl Scratch {
    /// A new directory `<prefix>XXXXXX` in `$TMPDIR`.
    pub fn new(prefix: &str) -> std::io::Result<Scratch> {
        Self::register(tempfile::Builder::new().prefix(prefix).tempdir()?)
    }

    /// A new directory `<prefix>XXXXXX` in `parent`.
    pub fn new_in(prefix: &str, parent: &Path) -> std::io::Result<Scratch> {
        Self::register(tempfile::Builder::new().prefix(prefix).tempdir_in(parent)?)
    }

    fn register(dir: tempfile::TempDir) -> std::io::Result<Scratch> {
        let path = dir.path().to_path_buf();
        if let Ok(mut live) = LIVE.lock() {
            live.push(path.clone());
        }
        Ok(Scratch {
            dir: Some(dir),
            path,
        })
    }

    /// The directory.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the directory past the process (a demo the user asked to keep) and returns its path.
    #[must_use]
    pub fn keep(mut self) -> PathBuf {
        forget(&self.path);
        match self.dir.take() {
            Some(dir) => dir.keep(),
            None => self.path.clone(),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The TempDir's own drop removes the directory; then it is no longer this process's.
        drop(self.dir.take());
        forget(&self.path);
    }
}

fn forget(path: &Path) {
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|p| p != path);
    }
}

/// Removes every live [`Scratch`] directory: for an exit that skips destructors. Children that
/// wrote into them must be stopped first.
pub fn remove_all() {
    let paths = match LIVE.lock() {
        Ok(mut live) => std::mem::take(&mut *live),
        Err(_) => return,
    };
    for p in paths {
        let _ = std::fs::remove_dir_all(&p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_all_takes_live_directories_and_spares_kept_ones() {
        let parent = tempfile::tempdir().unwrap();
        let live = Scratch::new_in("loki-test-", parent.path()).unwrap();
        crate::fs::write_atomic(&live.path().join("f"), b"x").unwrap();
        let kept = Scratch::new_in("loki-kept-", parent.path()).unwrap().keep();
        let dropped = Scratch::new_in("loki-dropped-", parent.path()).unwrap();
        let dropped_path = dropped.path().to_path_buf();
        drop(dropped);
        assert!(!dropped_path.exists(), "a dropped scratch is removed");
        let live_path = live.path().to_path_buf();
        // The exit path that skips destructors.
        std::mem::forget(live);
        remove_all();
        assert!(!live_path.exists(), "remove_all removes a live scratch");
        assert!(kept.is_dir(), "a kept directory stays");
    }
}
