//! Confining a model-given path to the worktree.
//!
//! Refused: an empty path, an absolute path, any `..` component, a NUL byte, and any path that
//! resolves (following every symlink on the way, including the last component) to outside the
//! worktree. A path that does not exist yet is checked through its deepest existing ancestor, so
//! `write_file` cannot create a file through a symlinked directory that points outside either.
//! The worktree root itself is canonicalised once ([`Worktree::new`]).

use std::path::{Component, Path, PathBuf};

/// A canonical worktree root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    root: PathBuf,
}

impl Worktree {
    /// Canonicalises `root` (which must exist).
    pub fn new(root: &Path) -> std::io::Result<Worktree> {
        Ok(Worktree {
            root: root.canonicalize()?,
        })
    }

    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path for `rel`, or why it is refused (a message for the model).
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, String> {
        if rel.is_empty() {
            return Err("the path is empty; give a path relative to the worktree root".into());
        }
        if rel.contains('\0') {
            return Err(format!("refusing path {rel:?}: it contains a NUL byte"));
        }
        let p = Path::new(rel);
        if p.is_absolute() {
            return Err(format!(
                "refusing path {rel:?}: absolute paths are not allowed; give a path relative to the worktree root"
            ));
        }
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(format!(
                "refusing path {rel:?}: `..` is not allowed; every path must stay inside the worktree"
            ));
        }
        let joined = self.root.join(p);
        // Walk up to the deepest ancestor that exists and resolve it with every symlink followed.
        let mut existing = joined.as_path();
        let mut rest = Vec::new();
        let resolved = loop {
            match existing.canonicalize() {
                Ok(c) => break c,
                Err(_) => {
                    if existing.symlink_metadata().is_ok() {
                        return Err(format!(
                            "refusing path {rel:?}: it is a symlink whose target does not exist"
                        ));
                    }
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name())
                    else {
                        return Err(format!("refusing path {rel:?}: it cannot be resolved"));
                    };
                    rest.push(name.to_owned());
                    existing = parent;
                }
            }
        };
        if !resolved.starts_with(&self.root) {
            return Err(format!(
                "refusing path {rel:?}: it resolves through a symlink to outside the worktree"
            ));
        }
        Ok(rest.into_iter().rev().fold(resolved, |acc, n| acc.join(n)))
    }

    /// `path` (under the root) as a relative display path with `/` separators.
    #[must_use]
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are written directly
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
        std::os::unix::fs::symlink("/nonexistent/x", dir.path().join("dangling")).unwrap();
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
        ] {
            let e = w.resolve(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
