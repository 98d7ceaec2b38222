//! Source resolution: from a crash's frames and URLs to files in the repository.
//!
//! For each frame with a file, innermost first: strip URL prefixes, then try, in order, the path
//! as printed (absolute, or relative to the incident's working directory), the path relative to
//! the repository root, and finally a search of the repository for a file whose path ends with
//! the printed path's components (a URL's `/static/js/app.js` finds `public/static/js/app.js`).
//! The search is [`loki_core::walk`] over every file ([`Visibility::Everything`]) except
//! dependencies and build output ([`loki_core::walk::DEPENDENCY_DIRS`]), and stops after
//! [`MAX_WALK_ENTRIES`] entries.
//!
//! Confinement: every candidate goes through [`loki_core::paths::Root::confine`] (absolute paths
//! accepted when inside the root, symlinks followed, never in `.git`, `.loki` or a dependency
//! directory) and must be an existing regular file. A frame that names a file outside —
//! `../../etc/passwd`, a symlink out of the repository — is refused and reported with the
//! reason; frames of the standard library (absolute paths outside the root) are reported the same
//! way and never opened.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use loki_core::paths::{Problem, Root, Rules};
use loki_core::walk::{Kind, Skip, Visibility, Walk};

use crate::frames::Frame;
use crate::incident::Incident;
use crate::signature::{is_library, strip_url};

/// Frames print absolute paths; fixes never land in dependencies or build output.
const RULES: Rules = Rules {
    allow_root: false,
    absolute_inside: true,
    refuse_dependencies: true,
};
/// The search sees every file (a crash may come from an ignored, generated entry point), but
/// not dependencies or build output, which are never edited.
const SKIP: Skip = Skip {
    dependencies: true,
    test_data: false,
    hidden_dirs: false,
};
/// Bound on the repository search, so a huge checkout cannot stall a diagnosis.
const MAX_WALK_ENTRIES: usize = 100_000;

/// A frame whose file was found in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Path relative to the repository root, `/`-separated.
    pub rel: String,
    pub abs: PathBuf,
    pub line: Option<u32>,
    pub function: Option<String>,
    /// From a library frame (kept for the diagnosis, never a patch target by default).
    pub library: bool,
}

/// A frame whose file was not used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub printed: String,
    pub reason: String,
}

/// The result of resolving an incident's frames.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Innermost first, one entry per distinct file.
    pub files: Vec<Resolved>,
    pub refused: Vec<Refused>,
}

impl Resolution {
    /// The text of the crashing line of the innermost source file, when it can be read.
    #[must_use]
    pub fn crash_line(&self) -> Option<String> {
        let f = self.files.first()?;
        let line = usize::try_from(f.line?).ok()?;
        let text = std::fs::read_to_string(&f.abs).ok()?;
        text.lines().nth(line.saturating_sub(1)).map(str::to_string)
    }

    /// The file a patch should target: the innermost program frame, else the innermost file.
    #[must_use]
    pub fn target(&self) -> Option<&Resolved> {
        self.files
            .iter()
            .find(|r| !r.library)
            .or_else(|| self.files.first())
    }
}

/// Why a printed path is not taken as a file of the repository: a predicate to print after
/// the path ("is in node_modules (never edited)").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Nothing is there (the caller looks for it elsewhere).
    #[error("no such file")]
    NoSuchFile,
    #[error("resolves to {} outside the repository", real.display())]
    ResolvesOutside { real: PathBuf },
    #[error("is outside the repository")]
    Outside,
    #[error("is in {dir} (never edited)")]
    Dependency { dir: String },
    #[error("is in .git (never edited)")]
    GitDir,
    #[error("is in .loki (never edited)")]
    LokiDir,
    /// Another rule of [`Root::confine`] refused it; `problem` is its words.
    #[error("is refused: {problem}")]
    Refused { problem: String },
    #[error("is not a regular file")]
    NotRegular,
    /// A printed name that is no path (`<stdin>`, `node:internal/…`).
    #[error("is not a file")]
    NotAFile,
    #[error("no such file in the repository")]
    NotInRepository,
    #[error("matches {n} files in the repository; ambiguous")]
    Ambiguous { n: usize },
    #[error("the repository root cannot be resolved ({why})")]
    NoRoot { why: String },
}

/// Checks that `path` (relative to the root, or absolute) is an existing regular file inside
/// `root`, through [`Root::confine`] with this crate's rules; returns where it really is and its
/// real path relative to the root.
pub fn confine(root: &Root, path: impl AsRef<OsStr>) -> Result<(PathBuf, String), Refusal> {
    let probe = root.path().join(path.as_ref());
    // A file that is not there is looked for elsewhere (the caller's next candidate, then a
    // search), so absence is reported before any rule.
    if std::fs::metadata(&probe).is_err() {
        return Err(Refusal::NoSuchFile);
    }
    let c = root
        .confine(path.as_ref(), RULES)
        .map_err(|e| match e.problem {
            Problem::Outside | Problem::SymlinkEscape | Problem::ParentEscape => {
                match std::fs::canonicalize(&probe) {
                    Ok(real) => Refusal::ResolvesOutside { real },
                    Err(_) => Refusal::Outside,
                }
            }
            Problem::Dependency(dir) => Refusal::Dependency { dir },
            Problem::GitDir => Refusal::GitDir,
            Problem::LokiDir => Refusal::LokiDir,
            other => Refusal::Refused {
                problem: other.to_string(),
            },
        })?;
    if !c.abs.is_file() {
        return Err(Refusal::NotRegular);
    }
    Ok((c.abs, c.real_rel))
}

/// Files under `root` whose relative path ends with `tail`'s components.
fn search_suffix(root: &Root, tail: &Path) -> Vec<(PathBuf, String)> {
    let want: Vec<_> = tail
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    let Some(name) = want.last().map(|c| c.as_os_str().to_os_string()) else {
        return Vec::new();
    };
    Walk::new(root.path(), Visibility::Everything)
        .skip(SKIP)
        .max_entries(MAX_WALK_ENTRIES)
        .files()
        .filter(|e| matches!(e.kind, Kind::File | Kind::Symlink))
        .filter(|e| e.rel.file_name() == Some(name.as_os_str()))
        .filter(|e| {
            e.path
                .components()
                .rev()
                .zip(want.iter().rev())
                .all(|(a, b)| a == *b)
        })
        .filter_map(|e| confine(root, &e.rel).ok())
        .collect()
}

fn resolve_one(root: &Root, cwd: &Path, printed: &str) -> Result<(PathBuf, String), Refusal> {
    let p = strip_url(printed);
    if p.is_empty() || p.starts_with('<') || p.starts_with("node:") {
        return Err(Refusal::NotAFile);
    }
    let path = Path::new(p);
    let mut first_err = None;
    let candidates: Vec<PathBuf> = if path.is_absolute() {
        vec![path.to_path_buf()]
    } else {
        vec![cwd.join(path), root.path().join(path)]
    };
    for c in &candidates {
        match confine(root, c) {
            Ok(ok) => return Ok(ok),
            Err(Refusal::NoSuchFile) => {}
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    // A path that escapes is refused, never searched for under another name.
    if let Some(e) = first_err {
        return Err(e);
    }
    if path.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(Refusal::NotInRepository);
    }
    let hits = search_suffix(root, path);
    match hits.len() {
        0 => Err(if path.is_absolute() {
            Refusal::Outside
        } else {
            Refusal::NotInRepository
        }),
        1 => Ok(hits.into_iter().next().unwrap_or_default()),
        n => Err(Refusal::Ambiguous { n }),
    }
}

/// Resolves `frames` (then `urls`) against the repository at `root`, from `cwd`.
#[must_use]
pub fn resolve_frames(root: &Path, cwd: &Path, frames: &[Frame], urls: &[Frame]) -> Resolution {
    let mut res = Resolution::default();
    // Without a root nothing can be confined: every frame is refused, with why.
    let root = Root::new(root).map_err(|e| Refusal::NoRoot { why: e.to_string() });
    for f in frames.iter().chain(urls) {
        let Some(printed) = f.file.as_deref() else {
            continue;
        };
        if res.refused.iter().any(|r| r.printed == printed) {
            continue;
        }
        let found = root
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|root| resolve_one(root, cwd, printed));
        match found {
            Ok((abs, rel)) => {
                if !res.files.iter().any(|r| r.abs == abs) {
                    res.files.push(Resolved {
                        rel,
                        abs,
                        line: f.line,
                        function: f.function.clone(),
                        library: is_library(f),
                    });
                }
            }
            Err(reason) => res.refused.push(Refused {
                printed: printed.to_string(),
                reason: reason.to_string(),
            }),
        }
    }
    res
}

/// Resolves an incident's frames and URLs.
#[must_use]
pub fn resolve(root: &Path, inc: &Incident) -> Resolution {
    resolve_frames(root, Path::new(&inc.cwd), &inc.frames, &inc.urls)
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    fn frame(file: &str) -> Frame {
        Frame {
            function: Some("f".into()),
            file: Some(file.into()),
            line: Some(1),
            column: None,
        }
    }

    #[test]
    fn resolves_relative_absolute_and_url_paths_and_refuses_escapes() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::create_dir_all(root.join("public/static/js")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        std::fs::write(root.join("app.py"), "x").unwrap();
        std::fs::write(root.join("public/static/js/app.js"), "x").unwrap();
        std::fs::write(root.join("node_modules/x/i.js"), "x").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("link.txt"))
            .unwrap();
        let frames = vec![
            frame(&root.join("app.py").display().to_string()),
            frame("../../etc/passwd"),
            frame("link.txt"),
            frame("node_modules/x/i.js"),
            frame("/usr/lib/python3.11/json/decoder.py"),
        ];
        let urls = vec![frame("http://localhost:3000/static/js/app.js")];
        let r = resolve_frames(&root, &root, &frames, &urls);
        let rels: Vec<_> = r.files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(rels, ["app.py", "public/static/js/app.js"]);
        let refused: Vec<_> = r.refused.iter().map(|f| f.printed.as_str()).collect();
        assert_eq!(
            refused,
            [
                "../../etc/passwd",
                "link.txt",
                "node_modules/x/i.js",
                "/usr/lib/python3.11/json/decoder.py"
            ]
        );
        assert!(
            r.refused[1].reason.contains("outside the repository"),
            "{:?}",
            r.refused[1]
        );
        assert!(
            r.refused[2].reason.contains("node_modules"),
            "{:?}",
            r.refused[2]
        );
        assert_eq!(r.target().unwrap().rel, "app.py");
    }
}
