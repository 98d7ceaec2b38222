//! Stale backups: `<file>.loki.bak` left by a fix that never finished (the process was killed
//! between the backup and the verification, or the verification was a harness error).
//!
//! A backup's bytes are the only copy of the original, so `loki fix` looks for them first and
//! reports each; [`restore`] puts the original back byte for byte and removes the backup
//! (through [`loki_patch::backup::restore`]). Nothing here deletes a backup without restoring it.

use std::path::{Path, PathBuf};

use loki_core::walk::{Kind, Skip, Visibility, Walk};
use loki_patch::backup::SUFFIX;

use crate::HealError;

/// Every file, ignored ones too (a backup is rarely tracked), but not dependencies or build
/// output, which a fix never edits.
const SKIP: Skip = Skip {
    dependencies: true,
    test_data: false,
    hidden_dirs: false,
};
/// Bound on the search, as for source resolution.
const MAX_WALK_ENTRIES: usize = 100_000;

/// A backup found in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleBackup {
    pub backup: PathBuf,
    /// The file it is the backup of.
    pub file: PathBuf,
    /// `file` relative to the repository root.
    pub rel: String,
}

/// Every `*.loki.bak` under `root`, outside dependency and build directories, sorted by path.
#[must_use]
pub fn find_stale(root: &Path) -> Vec<StaleBackup> {
    let mut found: Vec<StaleBackup> = Walk::new(root, Visibility::Everything)
        .skip(SKIP)
        .max_entries(MAX_WALK_ENTRIES)
        .files()
        .filter(|e| e.kind == Kind::File)
        .filter_map(|e| {
            let name = e.rel.file_name()?.to_string_lossy().into_owned();
            let orig = name.strip_suffix(SUFFIX).filter(|o| !o.is_empty())?;
            let rel = e.rel.with_file_name(orig).display().to_string();
            Some(StaleBackup {
                file: e.path.with_file_name(orig),
                backup: e.path,
                rel,
            })
        })
        .collect();
    found.sort_by(|a, b| a.backup.cmp(&b.backup));
    found
}

/// Restores one backup over its file, byte for byte, and removes the backup.
pub fn restore(b: &StaleBackup) -> Result<(), HealError> {
    loki_patch::backup::restore(&b.file)?;
    Ok(())
}

/// What `loki fix --restore` did: the backups put back, in path order, and the error that
/// stopped it (the backups after it are left as they were).
#[derive(Debug, Default)]
pub struct Restored {
    pub restored: Vec<StaleBackup>,
    pub failed: Option<HealError>,
}

/// Restores every stale backup under `root` ([`find_stale`]), stopping at the first that cannot
/// be restored.
#[must_use]
pub fn restore_all(root: &Path) -> Restored {
    let mut done = Restored::default();
    for b in find_stale(root) {
        if let Err(e) = restore(&b) {
            done.failed = Some(e);
            break;
        }
        done.restored.push(b);
    }
    done
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn finds_and_restores_backups_but_not_in_skipped_dirs() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("src/a.py"), "patched").unwrap();
        std::fs::write(root.join("src/a.py.loki.bak"), "original\r\n").unwrap();
        std::fs::write(root.join("node_modules/x/i.js.loki.bak"), "x").unwrap();
        let found = find_stale(root);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rel, "src/a.py");
        restore(&found[0]).unwrap();
        assert_eq!(
            std::fs::read(root.join("src/a.py")).unwrap(),
            b"original\r\n"
        );
        assert!(find_stale(root).is_empty());
    }

    #[test]
    fn restore_all_puts_every_backup_back_in_path_order() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        for f in ["b.py", "a.py"] {
            std::fs::write(root.join(f), "patched").unwrap();
            std::fs::write(root.join(format!("{f}.loki.bak")), f).unwrap();
        }
        let done = restore_all(root);
        assert!(done.failed.is_none());
        let rels: Vec<&str> = done.restored.iter().map(|b| b.rel.as_str()).collect();
        assert_eq!(rels, ["a.py", "b.py"]);
        assert_eq!(std::fs::read(root.join("b.py")).unwrap(), b"b.py");
        assert!(restore_all(root).restored.is_empty());
    }
}
