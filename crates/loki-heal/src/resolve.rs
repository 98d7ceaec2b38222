//! Source resolution: from a crash's frames and URLs to files in the repository.
//!
//! For each frame with a file, innermost first: strip URL prefixes, then try, in order, the path
//! as printed (absolute, or relative to the incident's working directory), the path relative to
//! the repository root, and finally a search of the repository for a file whose path ends with
//! the printed path's components (a URL's `/static/js/app.js` finds `public/static/js/app.js`).
//! The search skips [`SKIPPED_DIRS`] and stops after [`MAX_WALK_ENTRIES`] entries.
//!
//! Confinement: every candidate is canonicalised (symlinks followed, `..` removed) and must be a
//! regular file under the canonical repository root and outside [`SKIPPED_DIRS`]. A frame that
//! names a file outside — `../../etc/passwd`, a symlink out of the repository — is refused and
//! reported with the reason; frames of the standard library (absolute paths outside the root)
//! are reported the same way and never opened.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};

use crate::frames::Frame;
use crate::incident::Incident;
use crate::signature::{is_library, strip_url};

/// Directories never searched and never edited.
pub const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".venv",
    "venv",
    "node_modules",
    ".loki",
    "target",
    "dist",
    "build",
    "__pycache__",
];
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
    /// The file a patch should target: the innermost program frame, else the innermost file.
    #[must_use]
    pub fn target(&self) -> Option<&Resolved> {
        self.files
            .iter()
            .find(|r| !r.library)
            .or_else(|| self.files.first())
    }
}

/// True when `rel` (relative to the root) passes through a skipped directory.
#[must_use]
pub fn in_skipped_dir(rel: &Path) -> bool {
    rel.components().any(|c| match c {
        Component::Normal(n) => SKIPPED_DIRS.iter().any(|s| n == *s),
        _ => false,
    })
}

/// Checks that `candidate` is a regular file inside `root` (both canonical) and not in a
/// skipped directory; returns its relative path.
pub fn confine(root: &Path, candidate: &Path) -> Result<(PathBuf, String), String> {
    let canon = std::fs::canonicalize(candidate).map_err(|_| "no such file".to_string())?;
    let Ok(rel) = canon.strip_prefix(root) else {
        return Err(format!(
            "resolves to {} outside the repository",
            canon.display()
        ));
    };
    if in_skipped_dir(rel) {
        return Err(format!(
            "is in {} (never edited)",
            rel.components().next().map_or(String::new(), |c| c
                .as_os_str()
                .to_string_lossy()
                .into_owned())
        ));
    }
    if !canon.is_file() {
        return Err("is not a regular file".into());
    }
    let rel_s = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    Ok((canon, rel_s))
}

/// Files under `root` whose relative path ends with `tail`'s components.
fn search_suffix(root: &Path, tail: &Path) -> Vec<(PathBuf, String)> {
    let want: Vec<_> = tail
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .collect();
    let Some(name) = want.last().map(|c| c.as_os_str().to_os_string()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut queue = VecDeque::from([root.to_path_buf()]);
    let mut seen = 0usize;
    while let Some(dir) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            seen += 1;
            if seen > MAX_WALK_ENTRIES {
                return found;
            }
            let Ok(ft) = e.file_type() else { continue };
            let p = e.path();
            if ft.is_dir() {
                if !SKIPPED_DIRS.iter().any(|s| e.file_name() == *s) {
                    queue.push_back(p);
                }
            } else if (ft.is_file() || ft.is_symlink())
                && e.file_name() == name
                && p.components()
                    .rev()
                    .zip(want.iter().rev())
                    .all(|(a, b)| a == *b)
                && let Ok(ok) = confine(root, &p)
            {
                found.push(ok);
            }
        }
    }
    found
}

fn resolve_one(root: &Path, cwd: &Path, printed: &str) -> Result<(PathBuf, String), String> {
    let p = strip_url(printed);
    if p.is_empty() || p.starts_with('<') || p.starts_with("node:") {
        return Err("is not a file".into());
    }
    let path = Path::new(p);
    let mut first_err = None;
    let candidates: Vec<PathBuf> = if path.is_absolute() {
        vec![path.to_path_buf()]
    } else {
        vec![cwd.join(path), root.join(path)]
    };
    for c in &candidates {
        match confine(root, c) {
            Ok(ok) => return Ok(ok),
            Err(e) if e == "no such file" => {}
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
        return Err("no such file in the repository".into());
    }
    let hits = search_suffix(root, path);
    match hits.len() {
        0 => Err(if path.is_absolute() {
            "is outside the repository".into()
        } else {
            "no such file in the repository".into()
        }),
        1 => Ok(hits.into_iter().next().unwrap_or_default()),
        n => Err(format!("matches {n} files in the repository; ambiguous")),
    }
}

/// Resolves `frames` (then `urls`) against the repository at `root`, from `cwd`.
#[must_use]
pub fn resolve_frames(root: &Path, cwd: &Path, frames: &[Frame], urls: &[Frame]) -> Resolution {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut res = Resolution::default();
    for f in frames.iter().chain(urls) {
        let Some(printed) = f.file.as_deref() else {
            continue;
        };
        if res.refused.iter().any(|r| r.printed == printed) {
            continue;
        }
        match resolve_one(&root, cwd, printed) {
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
                reason,
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
#[allow(clippy::disallowed_methods)] // fixtures are written directly
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
