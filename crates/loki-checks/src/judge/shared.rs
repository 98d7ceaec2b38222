//! The head's directory around two runs that share it: a Go O (an overlay on the head's
//! directory) runs beside H, and the directory's state before and after says whether they could
//! have disturbed each other.
//!
//! Two `go test` processes in one directory share nothing but the build cache (keyed by content,
//! safe for concurrent use) and the files on disk. A test that writes into its package directory
//! (a golden file, a scratch file it removes again) could read the other run's write. So the
//! state is every file below the Go checks' directories, ignored and hidden ones included (what a
//! test may write), with its size, inode, modification and change times, and every directory's
//! times (a file created and removed again changes them). Equal states before and after mean
//! neither run wrote there, and the two runs' results stand; anything else (a write, a
//! directory too large to list, a file that vanished mid-walk) says they may have, and the judge
//! runs O again after H, alone.
//!
//! The change time cannot be set by a process, so a write that restores the modification time
//! is still seen. `.git` and `.loki` are not listed ([`loki_core::walk::NEVER_WALKED`]): loki's
//! and git's own state, which the runs do not read.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use loki_core::walk::{Skip, Visibility, Walk};

/// Entries listed per root before the state counts as unknown.
const MAX_ENTRIES: usize = 200_000;

/// Size, inode, and modification and change times (seconds and nanoseconds).
type Stamp = (u64, u64, i64, i64, i64, i64);

/// The state of some directories; see the module doc.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct DirState(BTreeMap<PathBuf, Stamp>);

impl DirState {
    /// The state below each of `roots`, or `None` when one is too large to list.
    pub fn of(roots: &[PathBuf]) -> Option<DirState> {
        let mut map = BTreeMap::new();
        for root in roots {
            let mut listed = 0;
            map.insert(root.clone(), stamp(root));
            for e in Walk::new(root, Visibility::Everything)
                .skip(Skip::NONE)
                .max_entries(MAX_ENTRIES)
                .files()
            {
                listed += 1;
                let mut dir = e.path.parent();
                while let Some(d) = dir.filter(|d| d.starts_with(root) && *d != root.as_path()) {
                    if map.contains_key(d) {
                        break;
                    }
                    map.insert(d.to_path_buf(), stamp(d));
                    dir = d.parent();
                }
                map.insert(e.path.clone(), stamp(&e.path));
            }
            if listed >= MAX_ENTRIES {
                return None;
            }
        }
        Some(DirState(map))
    }

    /// Whether `roots` still look as they did when `self` was taken.
    pub fn unchanged(&self, roots: &[PathBuf]) -> bool {
        DirState::of(roots).is_some_and(|now| now == *self)
    }
}

/// A path's stamp; a path that cannot be read any more gets one no file has.
fn stamp(path: &Path) -> Stamp {
    std::fs::symlink_metadata(path).map_or((u64::MAX, 0, 0, 0, 0, 0), |m| {
        (
            m.size(),
            m.ino(),
            m.mtime(),
            m.mtime_nsec(),
            m.ctime(),
            m.ctime_nsec(),
        )
    })
}

#[cfg(test)]
mod tests {
    #![expect(
        clippy::disallowed_methods,
        reason = "tests: fixtures are written directly"
    )]

    use super::*;

    fn fixture() -> (tempfile::TempDir, Vec<PathBuf>) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("pkg/testdata")).unwrap();
        std::fs::write(d.path().join("pkg/a.go"), "package pkg\n").unwrap();
        std::fs::write(d.path().join("pkg/testdata/in.txt"), "x").unwrap();
        std::fs::write(d.path().join(".gitignore"), "out/\n").unwrap();
        let roots = vec![d.path().to_path_buf()];
        (d, roots)
    }

    /// File times come from a coarse clock (a few milliseconds): a run's writes are always at
    /// least a process start after the state was taken, and so is this one.
    fn later() {
        std::thread::sleep(std::time::Duration::from_millis(30));
    }

    #[test]
    fn an_untouched_directory_is_unchanged() {
        let (_d, roots) = fixture();
        let s = DirState::of(&roots).unwrap();
        assert!(s.unchanged(&roots));
    }

    #[test]
    fn a_write_with_its_old_modification_time_is_seen() {
        let (d, roots) = fixture();
        let s = DirState::of(&roots).unwrap();
        let p = d.path().join("pkg/testdata/in.txt");
        let before = std::fs::metadata(&p).unwrap().modified().unwrap();
        later();
        std::fs::write(&p, "y").unwrap();
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(before)
            .unwrap();
        assert!(!s.unchanged(&roots));
    }

    #[test]
    fn a_file_created_and_removed_again_is_seen() {
        let (d, roots) = fixture();
        let s = DirState::of(&roots).unwrap();
        let p = d.path().join("pkg/scratch.tmp");
        later();
        std::fs::write(&p, "").unwrap();
        std::fs::remove_file(&p).unwrap();
        assert!(!s.unchanged(&roots));
    }

    #[test]
    fn an_ignored_file_written_by_a_test_is_seen() {
        let (d, roots) = fixture();
        std::fs::create_dir_all(d.path().join("out")).unwrap();
        let s = DirState::of(&roots).unwrap();
        std::fs::write(d.path().join("out/golden.txt"), "g").unwrap();
        assert!(!s.unchanged(&roots));
    }

    #[test]
    fn a_write_below_overlapping_roots_is_seen() {
        let (d, mut roots) = fixture();
        roots.push(d.path().join("pkg"));
        let s = DirState::of(&roots).unwrap();
        std::fs::write(d.path().join("pkg/new.txt"), "n").unwrap();
        assert!(!s.unchanged(&roots));
    }
}
