//! Confining a model-given path to the worktree: every path goes through
//! [`loki_core::paths::Root::confine`] (relative, no `..` out, no NUL/CR/LF, not through a symlink
//! out, following every symlink including the last component, not in `.git` or `.loki`). The root
//! itself (`.`) is accepted: `list_files` and `search` start there. The refusal is the core's
//! message, written for the model.

use std::path::{Path, PathBuf};

use loki_core::paths::{PathError, Root, Rules};

/// Rules of the agent's tools: the root is a directory to list.
const RULES: Rules = Rules {
    allow_root: true,
    absolute_inside: false,
    refuse_dependencies: false,
};

/// A canonical worktree root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    root: Root,
}

impl Worktree {
    /// Canonicalises `root` (which must exist).
    pub fn new(root: &Path) -> std::io::Result<Worktree> {
        Ok(Worktree {
            root: Root::new(root)?,
        })
    }

    #[must_use]
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The absolute path for `rel`, or why it is refused (a message for the model).
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, PathError> {
        self.root.confine(rel, RULES).map(|c| c.abs)
    }

    /// `path` (under the root) as a relative display path with `/` separators.
    #[must_use]
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(self.root.path())
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn refuses_absolute_parent_and_symlink_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink("src/a.rs", dir.path().join("inner")).unwrap();
        // Dangling, to a path outside that this test owns.
        std::os::unix::fs::symlink(outside.path().join("gone/x"), dir.path().join("dangling"))
            .unwrap();
        let w = Worktree::new(dir.path()).unwrap();

        assert_eq!(w.resolve("src/a.rs").unwrap(), w.root().join("src/a.rs"));
        assert_eq!(
            w.resolve("./src/new/b.rs").unwrap(),
            w.root().join("src/new/b.rs")
        );
        assert_eq!(w.resolve("inner").unwrap(), w.root().join("src/a.rs"));
        for (bad, why) in [
            ("/etc/passwd", "absolute"),
            ("../x", "`..`"),
            ("src/../../x", "`..`"),
            ("out/secret", "symlink"),
            ("out/new/file", "symlink"),
            ("dangling", "symlink"),
            ("", "empty"),
            (".git/hooks/pre-commit", ".git"),
            (".loki/runs/x/events.jsonl", ".loki"),
            ("a\nb", "control character"),
        ] {
            let e = w.resolve(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
