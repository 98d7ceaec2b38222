//! The one directory walker, on the `ignore` crate, with one skip policy.
//!
//! A caller states what it wants to see and gets the files (every entry that is not a directory:
//! regular files, symlinks, others) below a root, depth-first in byte order of names, each with
//! its path relative to the root:
//!
//! - [`Visibility::Project`]: what the project's git treats as its files. `.gitignore` at every
//!   level and `.git/info/exclude` (of a linked worktree too) are honoured, whether or not the
//!   root is a git checkout; the user's global excludes and `.ignore` files are not (they differ
//!   from machine to machine, and git does not read `.ignore`). For what a model is shown: the
//!   agent's file listing and search.
//! - [`Visibility::Everything`]: every file on disk, hidden and ignored ones included: what a
//!   test runner may load, so what the seal, runner detection and stack-trace resolution must
//!   see.
//!
//! The skip policy, one list per category:
//! - always: entries named `.git` or `.loki` ([`NEVER_WALKED`]), at any depth: git's and loki's
//!   state, never the project's files;
//! - [`Skip::dependencies`]: [`DEPENDENCY_DIRS`], third-party code and build output;
//! - [`Skip::test_data`]: [`TEST_DATA_DIRS`], inputs of tests (a `testdata/Cargo.toml` is not a
//!   package; the go tool ignores `testdata` by the same convention);
//! - [`Skip::hidden_dirs`]: directories whose name starts with `.` (tool caches, `.venv`).
//!
//! [`Walk::under`] narrows a walk to a subdirectory without losing the ignore rules above it.
//! Categories name directories only, and never the root itself (a root may well be a temporary
//! `.tmpXXXX`). Symlinks are listed, never followed, so a walk stays inside its root and cannot
//! loop. Unreadable directories are skipped: they cannot hold anything a caller could use. Bounds:
//! [`Walk::max_depth`] counts components below the root (a file in the root has depth 1), and
//! [`Walk::max_entries`] counts every entry visited, directories included, so a pathological
//! tree (a checked-in dependency cache) cannot stall a caller.

use std::path::{Path, PathBuf};

/// Names never walked, at any depth.
pub const NEVER_WALKED: &[&str] = &[".git", ".loki"];
/// Dependency, virtualenv and build-output directories.
pub const DEPENDENCY_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "venv",
    ".venv",
    "__pycache__",
    "site-packages",
    "dist",
    "build",
    "vendor",
    "coverage",
];
/// Directories of test inputs.
pub const TEST_DATA_DIRS: &[&str] = &[
    "testdata",
    "fixtures",
    "__fixtures__",
    "test-fixtures",
    "test_data",
];

/// Which files a walk sees; see the module doc.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visibility {
    Project,
    Everything,
}

/// Directory categories a walk skips on top of [`NEVER_WALKED`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skip {
    pub dependencies: bool,
    pub test_data: bool,
    pub hidden_dirs: bool,
}

impl Skip {
    /// Only [`NEVER_WALKED`].
    pub const NONE: Skip = Skip {
        dependencies: false,
        test_data: false,
        hidden_dirs: false,
    };

    fn skips_dir(self, name: &str) -> bool {
        (self.dependencies && DEPENDENCY_DIRS.contains(&name))
            || (self.test_data && TEST_DATA_DIRS.contains(&name))
            || (self.hidden_dirs && name.starts_with('.'))
    }
}

/// What kind of file an [`Entry`] is (symlinks not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Symlink,
    /// A fifo, socket or device.
    Other,
}

/// One file found by a walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The root joined with [`Entry::rel`].
    pub path: PathBuf,
    /// Relative to the root.
    pub rel: PathBuf,
    pub kind: Kind,
    /// Components below the root: 1 for a file in the root.
    pub depth: usize,
}

impl Entry {
    /// [`Entry::rel`] as text with `/` separators (lossy for a name that is not UTF-8).
    #[must_use]
    pub fn rel_str(&self) -> String {
        self.rel.to_string_lossy().into_owned()
    }
}

/// A walk to run; see the module doc.
#[derive(Debug, Clone)]
pub struct Walk {
    root: PathBuf,
    visibility: Visibility,
    skip: Skip,
    max_depth: Option<usize>,
    max_entries: Option<usize>,
    under: Option<PathBuf>,
}

impl Walk {
    #[must_use]
    pub fn new(root: &Path, visibility: Visibility) -> Walk {
        Walk {
            root: root.to_path_buf(),
            visibility,
            skip: Skip::NONE,
            max_depth: None,
            max_entries: None,
            under: None,
        }
    }

    /// Only the files at or below `rel` (relative to the root). The walk still starts at the
    /// root, descending only along `rel`, so every `.gitignore` above `rel` applies.
    #[must_use]
    pub fn under(mut self, rel: &Path) -> Walk {
        let rel: PathBuf = rel
            .components()
            .filter(|c| matches!(c, std::path::Component::Normal(_)))
            .collect();
        self.under = (!rel.as_os_str().is_empty()).then_some(rel);
        self
    }

    #[must_use]
    pub fn skip(mut self, skip: Skip) -> Walk {
        self.skip = skip;
        self
    }

    /// Entries deeper than `depth` components below the root are not visited.
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Walk {
        self.max_depth = Some(depth);
        self
    }

    /// The walk ends after visiting `n` entries (directories included).
    #[must_use]
    pub fn max_entries(mut self, n: usize) -> Walk {
        self.max_entries = Some(n);
        self
    }

    /// The files, lazily, in order.
    #[must_use]
    pub fn files(self) -> Files {
        let mut b = ignore::WalkBuilder::new(&self.root);
        let project = self.visibility == Visibility::Project;
        b.standard_filters(false)
            .git_ignore(project)
            .git_exclude(project)
            .require_git(false)
            .follow_links(false)
            .max_depth(self.max_depth)
            .sort_by_file_name(std::cmp::Ord::cmp);
        let skip = self.skip;
        let root = self.root.clone();
        let under = self.under;
        b.filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            if let Some(under) = &under {
                let rel = e.path().strip_prefix(&root).unwrap_or(e.path());
                if !under.starts_with(rel) && !rel.starts_with(under) {
                    return false;
                }
            }
            let name = e.file_name().to_string_lossy();
            if NEVER_WALKED.contains(&name.as_ref()) {
                return false;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir && skip.skips_dir(&name))
        });
        Files {
            root: self.root,
            inner: b.build(),
            left: self.max_entries,
        }
    }
}

/// The iterator of [`Walk::files`].
pub struct Files {
    root: PathBuf,
    inner: ignore::Walk,
    left: Option<usize>,
}

impl std::fmt::Debug for Files {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Files")
            .field("root", &self.root)
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl Iterator for Files {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            if self.left == Some(0) {
                return None;
            }
            // An unreadable directory is an error item: skipped, see the module doc.
            let Ok(e) = self.inner.next()? else {
                continue;
            };
            if e.depth() == 0 {
                continue;
            }
            if let Some(n) = self.left.as_mut() {
                *n -= 1;
            }
            let Some(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                continue;
            }
            let kind = if ft.is_symlink() {
                Kind::Symlink
            } else if ft.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            let path = e.into_path();
            let Ok(rel) = path.strip_prefix(&self.root).map(Path::to_path_buf) else {
                continue;
            };
            return Some(Entry {
                depth: rel.components().count(),
                path,
                rel,
                kind,
            });
        }
    }
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for f in files {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        d
    }

    fn rels(w: Walk) -> Vec<String> {
        w.files().map(|e| e.rel_str()).collect()
    }

    #[test]
    fn project_visibility_honours_gitignore_and_everything_sees_all() {
        let d = tree(&[
            ".gitignore",
            "a.rs",
            "gen/out.rs",
            "logs/x.log",
            "src/b.rs",
            "src/.hidden.rs",
            ".git/config",
            ".git/hooks/pre-commit",
            ".loki/runs/r/run.json",
            "sub/.loki/x",
            "sub/.gitignore",
            "sub/secret.txt",
        ]);
        std::fs::write(d.path().join(".gitignore"), "/gen/\n*.log\n").unwrap();
        std::fs::write(d.path().join("sub/.gitignore"), "secret.txt\n").unwrap();
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Project)),
            [
                ".gitignore",
                "a.rs",
                "src/.hidden.rs",
                "src/b.rs",
                "sub/.gitignore"
            ]
        );
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything)),
            [
                ".gitignore",
                "a.rs",
                "gen/out.rs",
                "logs/x.log",
                "src/.hidden.rs",
                "src/b.rs",
                "sub/.gitignore",
                "sub/secret.txt"
            ]
        );
    }

    #[test]
    fn git_info_exclude_is_honoured_for_the_project() {
        let d = tree(&["a.rs", "conftest.py", ".git/info/exclude"]);
        std::fs::write(d.path().join(".git/info/exclude"), "conftest.py\n").unwrap();
        assert_eq!(rels(Walk::new(d.path(), Visibility::Project)), ["a.rs"]);
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything)),
            ["a.rs", "conftest.py"]
        );
    }

    #[test]
    fn skip_categories_name_directories_below_the_root_only() {
        let d = tree(&[
            "build",
            "node_modules/x/i.js",
            "a/target/debug/x",
            "testdata/Cargo.toml",
            ".venv/bin/python",
            ".config/nextest.toml",
            ".env",
            "src/fixtures/f.json",
            "src/lib.rs",
        ]);
        let all = Skip {
            dependencies: true,
            test_data: true,
            hidden_dirs: true,
        };
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything).skip(all)),
            [".env", "build", "src/lib.rs"]
        );
        let deps = Skip {
            dependencies: true,
            ..Skip::NONE
        };
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything).skip(deps)),
            [
                ".config/nextest.toml",
                ".env",
                "build",
                "src/fixtures/f.json",
                "src/lib.rs",
                "testdata/Cargo.toml"
            ]
        );
        // The root's own name is never judged: a hidden temporary directory is walked.
        let hidden_root = d.path().join(".config");
        assert_eq!(
            rels(Walk::new(&hidden_root, Visibility::Everything).skip(all)),
            ["nextest.toml"]
        );
    }

    #[test]
    fn symlinks_are_listed_not_followed_and_bounds_hold() {
        let d = tree(&["a/1", "a/b/2", "a/b/c/3"]);
        let outside = tree(&["secret"]);
        std::os::unix::fs::symlink(outside.path(), d.path().join("out")).unwrap();
        std::os::unix::fs::symlink(d.path().join("a"), d.path().join("loop")).unwrap();
        let files: Vec<Entry> = Walk::new(d.path(), Visibility::Everything)
            .files()
            .collect();
        let shown: Vec<(String, Kind, usize)> = files
            .iter()
            .map(|e| (e.rel_str(), e.kind, e.depth))
            .collect();
        assert_eq!(
            shown,
            [
                ("a/1".to_string(), Kind::File, 2),
                ("a/b/2".to_string(), Kind::File, 3),
                ("a/b/c/3".to_string(), Kind::File, 4),
                ("loop".to_string(), Kind::Symlink, 1),
                ("out".to_string(), Kind::Symlink, 1),
            ]
        );
        assert_eq!(files[0].path, d.path().join("a/1"));
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything).max_depth(3)),
            ["a/1", "a/b/2", "loop", "out"]
        );
        // Entries visited: a, a/1, a/b, a/b/2.
        assert_eq!(
            rels(Walk::new(d.path(), Visibility::Everything).max_entries(4)),
            ["a/1", "a/b/2"]
        );
        assert!(rels(Walk::new(&d.path().join("missing"), Visibility::Everything)).is_empty());
    }

    #[test]
    fn under_a_subdirectory_the_root_gitignore_still_applies() {
        let d = tree(&[
            ".gitignore",
            "src/a.rs",
            "src/a.log",
            "src/deep/b.rs",
            "srcx/c.rs",
            "d.rs",
        ]);
        std::fs::write(d.path().join(".gitignore"), "*.log\n").unwrap();
        let w = Walk::new(d.path(), Visibility::Project).under(Path::new("./src"));
        assert_eq!(rels(w), ["src/a.rs", "src/deep/b.rs"]);
        let w = Walk::new(d.path(), Visibility::Project).under(Path::new("src/deep"));
        assert_eq!(rels(w), ["src/deep/b.rs"]);
        let w = Walk::new(d.path(), Visibility::Project).under(Path::new("."));
        assert_eq!(rels(w).len(), 5);
    }
}
