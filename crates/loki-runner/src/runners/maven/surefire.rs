//! Maven's Surefire reports: one `TEST-<class>.xml` per test class in each module's
//! `target/surefire-reports`. Those of an earlier build would count as this run's (a stale pass,
//! or a report committed to the tree), so they are removed before the run ([`clear`]) and every
//! one there afterwards is read ([`read`]).

use std::path::{Path, PathBuf};

/// How deep below the check's directory modules are looked for (a parent's modules, theirs).
const MAX_DEPTH: usize = 6;
/// Most report files read from one run.
const MAX_REPORTS: usize = 10_000;

/// The `target/surefire-reports` directories under `cwd` (the project's and its modules').
fn report_dirs(cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![(cwd.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = stack.pop() {
        let reports = dir.join("target").join("surefire-reports");
        if reports.is_dir() {
            out.push(reports);
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            // Modules sit beside the sources, never inside them or the build output.
            let skip =
                name.starts_with('.') || matches!(name.as_ref(), "target" | "src" | "node_modules");
            if !skip && e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push((e.path(), depth + 1));
            }
        }
    }
    out.sort();
    out
}

/// Removes the reports of earlier builds under `cwd`. Best effort: what cannot be removed stays,
/// and would be read as this run's.
pub(crate) fn clear(cwd: &Path) {
    for dir in report_dirs(cwd) {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The text of every `TEST-*.xml` report under `cwd`, in path order.
pub(crate) fn read(cwd: &Path) -> Vec<String> {
    let mut files: Vec<PathBuf> = report_dirs(cwd)
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .map(|n| n.to_string_lossy())
                .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
        })
        .collect();
    files.sort();
    files
        .iter()
        .take(MAX_REPORTS)
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect()
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn reports_of_every_module_are_read_and_cleared() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for (dir, file) in [
            ("target/surefire-reports", "TEST-a.ATest.xml"),
            ("core/target/surefire-reports", "TEST-b.BTest.xml"),
            ("core/target/surefire-reports", "b.BTest.txt"),
            (
                "src/test/resources/target/surefire-reports",
                "TEST-c.Fixture.xml",
            ),
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
            std::fs::write(root.join(dir).join(file), file).unwrap();
        }
        assert_eq!(read(root), vec!["TEST-b.BTest.xml", "TEST-a.ATest.xml"]);
        clear(root);
        assert!(read(root).is_empty());
        assert!(!root.join("core/target/surefire-reports").exists());
        assert!(
            root.join("src/test/resources/target/surefire-reports")
                .exists()
        );
    }
}
