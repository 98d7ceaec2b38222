//! JavaScript: the tree's own `node_modules` directories, linking the checkout's entries
//! except workspace packages, which point into the tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::ChecksError;
use crate::isolate::{MAX_NM_ENTRIES, Prepared, Roots, create_dir, io_err, symlink, tree_dirs};

pub(crate) fn link_node_modules(roots: &Roots, out: &mut Prepared) -> Result<(), ChecksError> {
    for rel in tree_dirs(&roots.tree) {
        let from = roots.checkout.join(&rel).join("node_modules");
        let to = roots.tree.join(&rel).join("node_modules");
        if !from.is_dir() || std::fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        let from = std::fs::canonicalize(&from).map_err(io_err("resolve", &from))?;
        let mut redirects = BTreeMap::new();
        let mut budget = MAX_NM_ENTRIES;
        scan_node_modules(
            roots,
            &from,
            Path::new(""),
            false,
            &mut redirects,
            &mut budget,
        );
        if budget == 0 {
            out.notes.push(format!(
                "{} has more than {MAX_NM_ENTRIES} entries; workspace links beyond them still lead to the checkout",
                from.display()
            ));
        }
        for (link, (target, nested)) in &redirects {
            if *nested {
                out.notes.push(format!(
                    "{} is a workspace package linked below an installed dependency ({}): that dependency is loaded from the checkout and resolves it there, so it uses the checkout's copy",
                    target.display(),
                    from.join(link).display()
                ));
            }
        }
        mirror(&from, &to, Path::new(""), &redirects)?;
        out.created.push(to);
    }
    Ok(())
}

/// Collects the links under a `node_modules` directory `nm` (at `rel`) that resolve into the
/// checkout outside any `node_modules`, with the tree's path they must point at. `nested`: `rel` is
/// inside an installed package (or pnpm's store), not at the top of a package's `node_modules`.
fn scan_node_modules(
    roots: &Roots,
    nm: &Path,
    rel: &Path,
    nested: bool,
    found: &mut BTreeMap<PathBuf, (PathBuf, bool)>,
    budget: &mut usize,
) {
    let Ok(entries) = std::fs::read_dir(nm.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let name = e.file_name();
        let r = rel.join(&name);
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_symlink() {
            if let Ok(real) = std::fs::canonicalize(e.path())
                && let Ok(inside) = real.strip_prefix(&roots.checkout)
                && !inside.components().any(|c| c.as_os_str() == "node_modules")
            {
                found.insert(r, (roots.tree.join(inside), nested));
            }
            continue;
        }
        if !ft.is_dir() {
            continue;
        }
        let name = name.to_string_lossy();
        let in_pnpm = rel
            .components()
            .next()
            .is_some_and(|c| c.as_os_str() == ".pnpm");
        if name.starts_with('@') || name == ".bin" || name == "node_modules" {
            scan_node_modules(roots, nm, &r, nested, found, budget);
        } else if name == ".pnpm" || (in_pnpm && rel.components().count() == 1) {
            // pnpm's store: `.pnpm/<id>/node_modules/*` and `.pnpm/node_modules/*` (hoisted).
            scan_node_modules(roots, nm, &r, true, found, budget);
        } else if nm.join(&r).join("node_modules").is_dir() {
            // An installed package with its own dependencies (npm's nesting).
            scan_node_modules(roots, nm, &r.join("node_modules"), true, found, budget);
        }
    }
}

/// Builds `to/rel` as a directory mirroring `from/rel`: each entry a symlink to the checkout's,
/// a redirected link to the tree's path, and a real directory on the way to a redirected link.
fn mirror(
    from: &Path,
    to: &Path,
    rel: &Path,
    redirects: &BTreeMap<PathBuf, (PathBuf, bool)>,
) -> Result<(), ChecksError> {
    let dir = to.join(rel);
    create_dir(&dir)?;
    let src = from.join(rel);
    let entries = std::fs::read_dir(&src).map_err(io_err("read", &src))?;
    for e in entries {
        let e = e.map_err(io_err("read", &src))?;
        let r = rel.join(e.file_name());
        // `.bin` is always a real directory: pnpm's and yarn's bin shims are scripts that run
        // `$basedir/../pkg/...`, and `..` from a symlinked directory is the checkout's.
        let bin = e.file_name() == ".bin" && e.file_type().is_ok_and(|t| t.is_dir());
        if let Some((target, _)) = redirects.get(&r) {
            symlink(target, &to.join(&r))?;
        } else if bin || redirects.keys().any(|k| k.starts_with(&r) && *k != r) {
            mirror(from, to, &r, redirects)?;
        } else {
            symlink(&from.join(&r), &to.join(&r))?;
        }
    }
    Ok(())
}
