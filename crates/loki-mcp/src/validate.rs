//! Input validation, before any tool touches a file or starts a process (rules in the crate doc).
//!
//! Pure but for [`Scope::repo`], which asks the file system whether a path exists and is a git
//! work tree.

use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::layout::Repo;

use crate::error::ToolError;

/// The word that names the newest run wherever a run is asked for.
pub const LATEST: &str = "latest";

/// Free text (a task, an answer): anything but NUL, which no C string, argv or file name can
/// carry and which would be cut silently downstream.
pub fn text(field: &'static str, value: &str) -> Result<(), ToolError> {
    if value.contains('\0') {
        return Err(ToolError::bad(field, "contains a NUL character"));
    }
    if value.trim().is_empty() {
        return Err(ToolError::bad(field, "is empty"));
    }
    Ok(())
}

/// A reference that ends up on a command line or in a lookup (a git revision, a provider or model
/// name): no NUL, not empty, and not starting with `-`, which a program would read as an option
/// (`--output=/etc/passwd` passed as a revision).
pub fn reference(field: &'static str, value: &str) -> Result<(), ToolError> {
    text(field, value)?;
    if value.starts_with('-') {
        return Err(ToolError::bad(
            field,
            format!("`{value}` starts with `-`, which would be read as an option"),
        ));
    }
    Ok(())
}

/// A run id (`run_YYYYMMDD_HHMMSS_xxxx`) or [`LATEST`].
pub fn run(field: &'static str, value: &str) -> Result<RunRef, ToolError> {
    reference(field, value)?;
    if value == LATEST {
        return Ok(RunRef::Latest);
    }
    value.parse::<RunId>().map(RunRef::Id).map_err(|_| {
        ToolError::bad(
            field,
            format!("`{value}` is not a run id (run_YYYYMMDD_HHMMSS_xxxx) or `{LATEST}`"),
        )
    })
}

/// A run as the client named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunRef {
    Latest,
    Id(RunId),
}

/// An absolute path to an existing file, canonicalized.
pub fn file(field: &'static str, value: &str) -> Result<PathBuf, ToolError> {
    reference(field, value)?;
    let path = Path::new(value);
    if !path.is_absolute() {
        return Err(ToolError::bad(
            field,
            format!("`{value}` is not an absolute path"),
        ));
    }
    let canonical = path
        .canonicalize()
        .map_err(|e| ToolError::bad(field, format!("{value}: {e}")))?;
    if !canonical.is_file() {
        return Err(ToolError::bad(field, format!("{value} is not a file")));
    }
    Ok(canonical)
}

/// The repositories a server may act on.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Canonical work-tree roots the user named (`--repo`, or the directory the server started
    /// in). Empty: any git work tree the client names.
    pub allowed: Vec<PathBuf>,
}

impl Scope {
    /// A scope of the given roots, canonicalized and deduplicated; a path that is not inside a
    /// git work tree is refused so a typo in `--repo` is reported at start, not at each call.
    pub fn new(roots: &[PathBuf]) -> Result<Scope, ToolError> {
        let mut allowed: Vec<PathBuf> = Vec::new();
        for r in roots {
            let root = Repo::discover(r)?.root;
            if !allowed.contains(&root) {
                allowed.push(root);
            }
        }
        Ok(Scope { allowed })
    }

    /// The repository `value` names: an absolute path to an existing git work tree (or a
    /// directory inside one), canonicalized, and one the server serves.
    pub fn repo(&self, value: &str) -> Result<Repo, ToolError> {
        const FIELD: &str = "repo";
        reference(FIELD, value)?;
        let path = Path::new(value);
        if !path.is_absolute() {
            return Err(ToolError::bad(
                FIELD,
                format!("`{value}` is not an absolute path"),
            ));
        }
        let canonical = path
            .canonicalize()
            .map_err(|e| ToolError::bad(FIELD, format!("{value}: {e}")))?;
        if !canonical.is_dir() {
            return Err(ToolError::bad(FIELD, format!("{value} is not a directory")));
        }
        let repo = Repo::discover(&canonical)
            .map_err(|_| ToolError::bad(FIELD, format!("{value} is not inside a git work tree")))?;
        if !self.allowed.is_empty() && !self.allowed.contains(&repo.root) {
            return Err(ToolError::NotServed {
                repo: repo.root,
                allowed: self
                    .allowed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok(repo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_refuses_nul_and_empty() {
        assert!(text("task", "fix the bug").is_ok());
        let e = text("task", "fix\0the bug").unwrap_err().to_string();
        assert_eq!(e, "invalid `task`: contains a NUL character");
        assert!(text("task", "  ").is_err());
        // Free text may start with a dash: it never reaches a command line as an argument.
        assert!(text("task", "-v should print more").is_ok());
    }

    #[test]
    fn references_refuse_a_leading_dash() {
        assert!(reference("base", "main").is_ok());
        assert!(reference("base", "HEAD~1").is_ok());
        let e = reference("base", "--output=/tmp/x")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid `base`: `--output=/tmp/x` starts with `-`"),
            "{e}"
        );
        assert!(reference("base", "ma\0in").is_err());
    }

    #[test]
    fn runs_are_ids_or_latest() {
        assert_eq!(run("run", "latest").unwrap(), RunRef::Latest);
        assert!(matches!(
            run("run", "run_20261203_075000_ab12").unwrap(),
            RunRef::Id(_)
        ));
        let e = run("run", "../etc").unwrap_err().to_string();
        assert!(e.contains("is not a run id"), "{e}");
        assert!(run("run", "-run_20261203_075000_ab12").is_err());
    }

    #[test]
    fn repos_must_be_absolute_existing_work_trees_in_scope() {
        let any = Scope::default();
        let e = any.repo("relative/dir").unwrap_err().to_string();
        assert!(e.contains("is not an absolute path"), "{e}");
        let plain = tempfile::tempdir().unwrap();
        let gone = plain.path().join("no/such/dir");
        let gone = gone.to_str().unwrap();
        let e = any.repo(gone).unwrap_err().to_string();
        assert!(e.starts_with(&format!("invalid `repo`: {gone}")), "{e}");
        let e = any
            .repo(plain.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("is not inside a git work tree"), "{e}");

        let a = tempfile::tempdir().unwrap();
        std::fs::create_dir(a.path().join(".git")).unwrap();
        std::fs::create_dir(a.path().join("sub")).unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::create_dir(b.path().join(".git")).unwrap();
        let root_a = a.path().canonicalize().unwrap();
        // A directory inside the work tree names its root.
        let sub = a.path().join("sub");
        assert_eq!(any.repo(sub.to_str().unwrap()).unwrap().root, root_a);

        let only_a = Scope::new(&[a.path().to_path_buf()]).unwrap();
        assert_eq!(
            only_a.repo(a.path().to_str().unwrap()).unwrap().root,
            root_a
        );
        let e = only_a
            .repo(b.path().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("is not one of the repositories this server serves"),
            "{e}"
        );
        assert!(Scope::new(&[plain.path().to_path_buf()]).is_err());
    }
}
