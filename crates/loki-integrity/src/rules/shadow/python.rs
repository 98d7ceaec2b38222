//! Python: an added `D/x.py` or `D/x/__init__.py` on the tests' `sys.path` that shadows a
//! top-level module of the same project or of the standard library (see the parent module).

use std::collections::{BTreeMap, BTreeSet};

use super::{PY_STDLIB, ignored, join, parent};
use crate::rules::Out;
use loki_protocol::{Finding, FindingKind};

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The module an added Python path defines at the top of its directory: `(dir, name)`.
fn py_module(path: &str) -> Option<(&str, &str)> {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    if file == "__init__.py" {
        let (d, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        return (!dir.is_empty()).then_some((d, name));
    }
    let name = file.strip_suffix(".py")?;
    Some((dir, name))
}

pub(super) fn python(tree: &BTreeSet<&str>, added: &BTreeSet<&str>, out: &mut Out) {
    let layout = Layout::new(tree, added);
    for path in added.iter().filter(|p| p.ends_with(".py") && !ignored(p)) {
        if let Some(detail) = layout.shadowed(path) {
            out.push(Finding::new(FindingKind::ShadowModule, path, detail).at_line(1));
        }
    }
}

/// The projects of the tree as Python sees them: their roots, their top-level modules, and the
/// directories holding test files.
struct Layout<'a> {
    tree: &'a BTreeSet<&'a str>,
    /// Directories with packaging metadata, and the repository root.
    roots: BTreeSet<&'a str>,
    /// Top-level modules per root: name -> the paths that define it.
    top: BTreeMap<(&'a str, String), BTreeSet<String>>,
    /// Directories holding test files (pytest puts a test file's directory on `sys.path`).
    test_dirs: BTreeSet<&'a str>,
}

impl<'a> Layout<'a> {
    fn new(tree: &'a BTreeSet<&'a str>, added: &BTreeSet<&str>) -> Self {
        let roots: BTreeSet<&str> = tree
            .iter()
            .filter(|p| {
                let name = p.rsplit('/').next().unwrap_or(p);
                matches!(name, "pyproject.toml" | "setup.py" | "setup.cfg")
            })
            .map(|p| parent(p))
            .chain(std::iter::once(""))
            .collect();
        let test_dirs: BTreeSet<&str> = tree
            .iter()
            .filter(|p| p.ends_with(".py") && loki_syntax::testcode::is_test_path(p))
            .map(|p| parent(p))
            .collect();
        let mut layout = Layout {
            tree,
            roots,
            top: BTreeMap::new(),
            test_dirs,
        };
        layout.top = layout.top_level_modules(added);
        layout
    }

    fn is_package(&self, dir: &str) -> bool {
        self.tree.contains(join(dir, "__init__.py").as_str())
    }

    /// The project root `path` belongs to: the nearest root above it.
    fn root_of(&self, path: &str) -> &'a str {
        self.roots
            .iter()
            .filter(|r| r.is_empty() || path.starts_with(&format!("{r}/")))
            .max_by_key(|r| r.len())
            .copied()
            .unwrap_or("")
    }

    /// The top-level modules the tree had before the change added files: a module file or a
    /// package at a root or in its `src/`/`lib/` (under `src/`, a namespace package too).
    fn top_level_modules(
        &self,
        added: &BTreeSet<&str>,
    ) -> BTreeMap<(&'a str, String), BTreeSet<String>> {
        let mut top: BTreeMap<(&str, String), BTreeSet<String>> = BTreeMap::new();
        for p in self
            .tree
            .iter()
            .filter(|p| p.ends_with(".py") && !added.contains(*p))
        {
            let root = self.root_of(p);
            let rel = if root.is_empty() {
                (*p).to_owned()
            } else {
                p[root.len() + 1..].to_owned()
            };
            let parts: Vec<&str> = rel.split('/').collect();
            let (base, rest) = match parts.as_slice() {
                ["src" | "lib", rest @ ..] if !rest.is_empty() => (join(root, parts[0]), rest),
                rest => (root.to_owned(), rest),
            };
            let name = match rest {
                [file] => file.strip_suffix(".py").map(str::to_owned),
                // `pkg/...`: a package (or, under src/, a namespace package).
                [dir, ..] if self.is_package(&join(&base, dir)) || base.ends_with("src") => {
                    Some((*dir).to_owned())
                }
                _ => None,
            };
            if let Some(name) = name
                .filter(|n| is_identifier(n) && n != "__init__" && n != "conftest" && n != "setup")
            {
                top.entry((root, name))
                    .or_default()
                    .insert(join(&base, rest[0]));
            }
        }
        top
    }

    /// Directories the tests import from: project roots and their `src/`/`lib/`, and
    /// directories that hold test files.
    fn on_test_path(&self, dir: &str) -> bool {
        self.roots.contains(dir)
            || self
                .roots
                .iter()
                .any(|r| dir == join(r, "src") || dir == join(r, "lib"))
            || self.test_dirs.contains(dir)
            || matches!(dir.rsplit('/').next(), Some("tests" | "test"))
    }

    /// What the added `path` shadows, when it defines a top-level module on the tests' path
    /// that the project or the standard library has.
    fn shadowed(&self, path: &str) -> Option<String> {
        let (dir, name) = py_module(path)?;
        if !is_identifier(name)
            || name.starts_with("__")
            || matches!(name, "conftest" | "setup" | "test" | "tests")
            || self.is_package(dir)
            || !self.on_test_path(dir)
        {
            return None;
        }
        let own = join(
            dir,
            if path.ends_with("__init__.py") {
                name
            } else {
                path.rsplit('/').next().unwrap_or(path)
            },
        );
        let elsewhere: Vec<&String> = self
            .top
            .get(&(self.root_of(path), name.to_owned()))
            .map(|s| {
                s.iter()
                    .filter(|p| **p != own && !own.starts_with(&format!("{p}/")))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(real) = elsewhere.first() {
            Some(format!(
                "adds a module `{name}` that shadows the project's `{real}`: code run from `{}` imports this one instead",
                if dir.is_empty() { "." } else { dir }
            ))
        } else if PY_STDLIB.contains(&name) {
            Some(format!(
                "adds a module `{name}` that shadows the standard library's `{name}` for code run from `{}`",
                if dir.is_empty() { "." } else { dir }
            ))
        } else {
            None
        }
    }
}
