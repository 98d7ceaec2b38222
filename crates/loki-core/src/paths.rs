//! Path confinement: the one check every path from a model, a stack trace or a patch goes
//! through before anything is read or written.
//!
//! [`Root::confine`] takes the path as given and returns where it leads ([`Confined`]), or a
//! [`PathError`] naming the input and the [`Problem`]. The rules, in the order they are checked:
//!
//! 1. The path is valid UTF-8 ([`Problem::NotUtf8`]: it is recorded in events and receipts as
//!    text), not empty or blank ([`Problem::Empty`]), and has no control character
//!    ([`Problem::ControlChar`]: a NUL truncates it for the OS, a CR or LF forges lines in tool
//!    output and logs).
//! 2. It is relative ([`Problem::Absolute`]). With [`Rules::absolute_inside`] an absolute path is
//!    accepted when it lies inside the root (a stack-trace frame prints the full path); one
//!    outside is [`Problem::Outside`].
//! 3. It is normalised lexically ([`normalize`]): `.` is dropped and `..` removes the part before
//!    it; a `..` that would climb above the root is [`Problem::ParentEscape`]. The normalised
//!    path, never the raw input, is what is resolved and what I/O goes to, so `link/..` cannot
//!    mean the parent of a symlink's target.
//! 4. The deepest part of the path that exists is resolved with every symlink followed (the last
//!    component too); it must be inside the canonical root ([`Problem::SymlinkEscape`]), and a
//!    symlink that does not resolve is [`Problem::DanglingSymlink`]. A path that does not exist
//!    yet is checked through its deepest existing ancestor, so a new file cannot be created
//!    through a symlinked directory that points outside.
//! 5. Neither the path as named nor the place it resolves to is inside `.git` ([`Problem::GitDir`]:
//!    hooks and config run code) or `.loki` ([`Problem::LokiDir`]: run records, the wall, other
//!    runs' worktrees), at any depth, compared case-insensitively (a case-insensitive filesystem
//!    opens `.GIT/hooks` as `.git/hooks`). With [`Rules::refuse_dependencies`], no directory of it
//!    is one of [`crate::walk::DEPENDENCY_DIRS`] ([`Problem::Dependency`]).
//! 6. The root itself (`.`) is [`Problem::Root`] unless [`Rules::allow_root`] (a directory to list).
//!
//! Existence is not required: whether the path must exist, and be a file, is the caller's
//! question, answered on [`Confined::abs`].

use std::ffi::{OsStr, OsString};
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use crate::walk::DEPENDENCY_DIRS;

/// What a caller accepts beyond the default (a relative path naming something below the root).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rules {
    /// Accept the root itself (`.`): a directory to list or search, never a file to edit.
    pub allow_root: bool,
    /// Accept an absolute path when it resolves inside the root: stack traces print the full
    /// path of the file that crashed. A model or a patch never needs one.
    pub absolute_inside: bool,
    /// Refuse paths through dependency and build directories ([`DEPENDENCY_DIRS`]): a fix
    /// proposed from a stack trace must land in the project's own code, not in `node_modules`.
    pub refuse_dependencies: bool,
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("the path is empty; give a path relative to the worktree root")]
    Empty,
    #[error("it is not valid UTF-8")]
    NotUtf8,
    #[error("it contains a control character (NUL, CR, LF, ...)")]
    ControlChar,
    #[error("absolute paths are not allowed; give a path relative to the worktree root")]
    Absolute,
    #[error("it is outside the worktree")]
    Outside,
    #[error("`..` is not allowed to leave the worktree; every path must stay inside it")]
    ParentEscape,
    #[error("it names the root itself, not a file")]
    Root,
    #[error("it resolves through a symlink to a place outside the worktree")]
    SymlinkEscape,
    #[error("it goes through a symlink that does not resolve (missing target or a loop)")]
    DanglingSymlink,
    #[error("it is inside .git, which belongs to git, not to the project")]
    GitDir,
    #[error("it is inside .loki, loki's own state")]
    LokiDir,
    /// The dependency or build directory the path goes through.
    #[error("it is in {0} (dependencies and build output are never edited)")]
    Dependency(String),
    #[error("it cannot be inspected: {0}")]
    Io(String),
}

/// A refused path: the input as given (lossily as text) and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("refusing path {path:?}: {problem}")]
pub struct PathError {
    pub path: String,
    pub problem: Problem,
}

impl crate::exit::Classify for PathError {
    /// A refused path is the input's fault (a model's, a patch's or a stack trace's): the caller
    /// that passed it on decides whether that input was the user's; alone it is usage.
    fn exit_class(&self) -> crate::exit::ExitClass {
        match self.problem {
            Problem::Io(_) => crate::exit::ExitClass::Failure,
            Problem::Empty
            | Problem::NotUtf8
            | Problem::ControlChar
            | Problem::Absolute
            | Problem::Outside
            | Problem::ParentEscape
            | Problem::Root
            | Problem::SymlinkEscape
            | Problem::DanglingSymlink
            | Problem::GitDir
            | Problem::LokiDir
            | Problem::Dependency(_) => crate::exit::ExitClass::Usage,
        }
    }
}

/// A path that passed [`Root::confine`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confined {
    /// The path as named, normalised, relative to the root, `/`-separated (`""` for the root).
    /// For an absolute input, the resolved path relative to the root.
    pub rel: String,
    /// Where I/O goes: the deepest existing part resolved (symlinks followed), then the rest.
    pub abs: PathBuf,
    /// Where it really leads, relative to the root, `/`-separated: `rel` with symlinks resolved.
    pub real_rel: String,
}

/// A canonical root that paths are confined to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    path: PathBuf,
}

impl Root {
    /// Canonicalises `path`, which must exist; the comparison of rule 4 needs the real root.
    pub fn new(path: &Path) -> std::io::Result<Root> {
        Ok(Root {
            path: path.canonicalize()?,
        })
    }

    /// The canonical root.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Applies the rules of the module doc to `input`.
    pub fn confine(&self, input: impl AsRef<OsStr>, rules: Rules) -> Result<Confined, PathError> {
        let input = input.as_ref();
        let refuse = |problem| PathError {
            path: input.to_string_lossy().into_owned(),
            problem,
        };
        self.confine_inner(input, rules).map_err(refuse)
    }

    fn confine_inner(&self, input: &OsStr, rules: Rules) -> Result<Confined, Problem> {
        let text = input.to_str().ok_or(Problem::NotUtf8)?;
        if text.trim().is_empty() {
            return Err(Problem::Empty);
        }
        if text.chars().any(char::is_control) {
            return Err(Problem::ControlChar);
        }
        let path = Path::new(text);
        let (candidate, named) = if path.is_absolute() {
            if !rules.absolute_inside {
                return Err(Problem::Absolute);
            }
            (absolute_normalized(path), None)
        } else {
            let parts = normalize(path)?;
            check_names(&parts, rules)?;
            let abs = parts.iter().fold(self.path.clone(), |p, s| p.join(s));
            (abs, Some(join(&parts)))
        };
        let abs = resolve_existing(&candidate)?;
        let Ok(real) = abs.strip_prefix(&self.path) else {
            return Err(if named.is_some() || candidate.starts_with(&self.path) {
                Problem::SymlinkEscape
            } else {
                Problem::Outside
            });
        };
        let real_parts: Vec<&OsStr> = real.iter().collect();
        let real_rel = real
            .to_str()
            .ok_or(Problem::NotUtf8)?
            .split('/')
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("/");
        if real_rel.chars().any(char::is_control) {
            return Err(Problem::ControlChar);
        }
        check_names(&real_parts, rules)?;
        if !rules.allow_root && (real_parts.is_empty() || named.as_deref() == Some("")) {
            return Err(Problem::Root);
        }
        Ok(Confined {
            rel: named.unwrap_or_else(|| real_rel.clone()),
            abs,
            real_rel,
        })
    }
}

/// Lexically normalises a relative path: `.` dropped, `..` removing the part before it. Never
/// returns a `..`, so the parts joined to any root stay below it; a `..` with nothing left to
/// remove is [`Problem::ParentEscape`], and an absolute path is [`Problem::Absolute`].
pub fn normalize(rel: &Path) -> Result<Vec<&OsStr>, Problem> {
    let mut parts: Vec<&OsStr> = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => parts.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(Problem::ParentEscape);
                }
            }
            Component::RootDir | Component::Prefix(_) => return Err(Problem::Absolute),
        }
    }
    Ok(parts)
}

/// An absolute path with `.` and `..` removed lexically (`..` at `/` stays at `/`, as the OS does).
fn absolute_normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in path.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

fn join(parts: &[&OsStr]) -> String {
    parts
        .iter()
        .map(|s| s.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Rule 5 on one spelling of the path.
fn check_names(parts: &[&OsStr], rules: Rules) -> Result<(), Problem> {
    for (i, part) in parts.iter().enumerate() {
        let name = part.to_string_lossy();
        if name.eq_ignore_ascii_case(".git") {
            return Err(Problem::GitDir);
        }
        if name.eq_ignore_ascii_case(".loki") {
            return Err(Problem::LokiDir);
        }
        // Only directories: a script named `build` at the root is the project's own code.
        let is_dir = i + 1 < parts.len();
        if rules.refuse_dependencies && is_dir && DEPENDENCY_DIRS.contains(&name.as_ref()) {
            return Err(Problem::Dependency(name.into_owned()));
        }
    }
    Ok(())
}

/// Rule 4: the deepest existing ancestor-or-self of `candidate`, canonicalised, with the missing
/// rest appended.
fn resolve_existing(candidate: &Path) -> Result<PathBuf, Problem> {
    let mut existing = candidate.to_path_buf();
    let mut tail: Vec<OsString> = Vec::new();
    loop {
        match std::fs::symlink_metadata(&existing) {
            Ok(_) => break,
            // `a.txt/new` fails with "not a directory": it does not exist either, and the I/O
            // that follows reports it better than a refusal would.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                let Some(name) = existing.file_name() else {
                    break;
                };
                tail.push(name.to_os_string());
                existing.pop();
            }
            Err(e) => return Err(Problem::Io(e.to_string())),
        }
    }
    let real = match std::fs::canonicalize(&existing) {
        Ok(r) => r,
        // The path exists (step above) yet does not resolve: a symlink to nothing, or a loop.
        Err(e) if matches!(e.kind(), ErrorKind::NotFound) || is_symlink(&existing) => {
            return Err(Problem::DanglingSymlink);
        }
        Err(e) => return Err(Problem::Io(e.to_string())),
    };
    Ok(tail.iter().rev().fold(real, |p, s| p.join(s)))
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}
