//! Go: the workspace file (`go.work`) copied or rewritten into the tree, and notes on its paths
//! outside it.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::ChecksError;
use crate::isolate::{Prepared, Roots, env_value, io_err, normal, write_file};

pub(crate) fn go(
    roots: &Roots,
    dirs: &BTreeSet<&str>,
    env: &[(OsString, OsString)],
    out: &mut Prepared,
) -> Result<(), ChecksError> {
    let gowork = env_value(env, "GOWORK").filter(|v| !v.is_empty() && *v != "off");
    if let Some(v) = gowork {
        let p = PathBuf::from(v);
        if let Some(t) = roots.moved(&p) {
            if !t.exists() {
                copy_go_work(&p, &t, out)?;
            }
            rewrite_go_work(roots, &t, out)?;
            out.env.push(("GOWORK".into(), t.into_os_string()));
        } else if p.is_absolute() && !roots.in_tree(&p) {
            go_work_outside_notes(roots, &p, out);
        }
    } else {
        let mut seen = BTreeSet::new();
        for dir in dirs {
            let rel = if *dir == "." {
                PathBuf::new()
            } else {
                PathBuf::from(dir)
            };
            // `go` takes the nearest go.work at or above the module; look in the tree first, then
            // where the checkout has one the tree lacks (a go.work is usually not committed).
            let mut cur = Some(rel.as_path());
            while let Some(r) = cur {
                let in_tree = roots.tree.join(r).join("go.work");
                let in_checkout = roots.checkout.join(r).join("go.work");
                if in_tree.is_file() || in_checkout.is_file() {
                    if seen.insert(in_tree.clone()) {
                        if !in_tree.is_file() {
                            copy_go_work(&in_checkout, &in_tree, out)?;
                        }
                        rewrite_go_work(roots, &in_tree, out)?;
                    }
                    break;
                }
                cur = r.parent();
            }
        }
    }
    if let Some(flags) = env_value(env, "GOFLAGS") {
        let flags = flags.to_string_lossy();
        if roots
            .pairs
            .iter()
            .any(|(c, _)| flags.contains(&*c.to_string_lossy()))
        {
            out.notes.push(format!(
                "GOFLAGS ({flags}) names the checkout: the go runs in the tree may read the checkout's files"
            ));
        }
    }
    for dir in dirs {
        let rel = if *dir == "." {
            PathBuf::new()
        } else {
            PathBuf::from(dir)
        };
        let gomod = roots.tree.join(&rel).join("go.mod");
        let Ok(text) = std::fs::read_to_string(&gomod) else {
            continue;
        };
        for target in go_paths(&text, false) {
            let resolved = normal(&roots.tree.join(&rel).join(&target));
            let shown = rel.join("go.mod");
            if roots.moved(&resolved).is_some() {
                out.notes.push(format!(
                    "{}: replace => {target} is an absolute path into the checkout, so the run in the tree uses the checkout's copy",
                    shown.display()
                ));
            } else if !roots.in_tree(&resolved) {
                out.notes.push(format!(
                    "{}: replace => {target} lies outside the repository; every tree uses the same copy of it",
                    shown.display()
                ));
            }
        }
    }
    Ok(())
}

fn copy_go_work(from: &Path, to: &Path, out: &mut Prepared) -> Result<(), ChecksError> {
    let body = std::fs::read(from).map_err(io_err("read", from))?;
    write_file(to, &body)?;
    out.created.push(to.to_path_buf());
    let sum_from = from.with_file_name("go.work.sum");
    let sum_to = to.with_file_name("go.work.sum");
    if sum_from.is_file() && !sum_to.exists() {
        let body = std::fs::read(&sum_from).map_err(io_err("read", &sum_from))?;
        write_file(&sum_to, &body)?;
        out.created.push(sum_to);
    }
    Ok(())
}

/// Rewrites absolute checkout paths in the go.work at `path` (inside the tree) to the tree's, and
/// notes the paths that lead outside the repository.
fn rewrite_go_work(roots: &Roots, path: &Path, out: &mut Prepared) -> Result<(), ChecksError> {
    let text = std::fs::read_to_string(path).map_err(io_err("read", path))?;
    let base = path.parent().unwrap_or(&roots.tree);
    let mut new = text.clone();
    for (c, t) in &roots.pairs {
        new = replace_path_prefix(&new, &c.to_string_lossy(), &t.to_string_lossy());
    }
    for p in go_paths(&new, true) {
        let resolved = normal(&base.join(&p));
        if !roots.in_tree(&resolved) {
            out.notes.push(format!(
                "{}: {p} lies outside the repository; every tree uses the same copy of it",
                path.display()
            ));
        }
    }
    if new != text {
        write_file(path, new.as_bytes())?;
    }
    Ok(())
}

/// A GOWORK outside both trees: each absolute path into the checkout in it is a note.
fn go_work_outside_notes(roots: &Roots, path: &Path, out: &mut Prepared) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    for p in go_paths(&text, true) {
        if roots.moved(Path::new(&p)).is_some() {
            out.notes.push(format!(
                "GOWORK ({}) uses {p}, inside the checkout: the go runs in the tree use the checkout's copy",
                path.display()
            ));
        }
    }
}

/// The file system paths of a go.work (`use` and `replace ... => path`) or a go.mod (`replace`
/// only): paths start with `.`, `/` or `~`, module paths do not.
pub(crate) fn go_paths(text: &str, uses: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<&str> = None;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if block.is_some() && line == ")" {
            block = None;
            continue;
        }
        let (directive, rest) = match block {
            Some(b) => (b, line),
            None => {
                let (d, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                let rest = rest.trim();
                if rest == "(" {
                    block = Some(if d == "use" {
                        "use"
                    } else if d == "replace" {
                        "replace"
                    } else {
                        "other"
                    });
                    continue;
                }
                (d, rest)
            }
        };
        let candidate = match directive {
            "use" if uses => Some(rest),
            "replace" => rest.split_once("=>").map(|(_, r)| r.trim()),
            _ => None,
        };
        if let Some(c) = candidate {
            let first = c
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(|ch| ch == '"' || ch == '`');
            if first.starts_with(['.', '/']) {
                out.push(first.to_owned());
            }
        }
    }
    out
}

/// Replaces `from` with `to` where `from` is a whole path prefix: preceded by the start, a space,
/// a quote or `(`, and followed by the end, `/`, a space, a quote or `)`.
pub(crate) fn replace_path_prefix(text: &str, from: &str, to: &str) -> String {
    if from.is_empty() {
        return text.to_owned();
    }
    let before_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '"' | '`' | '('));
    let after_ok =
        |c: Option<char>| c.is_none_or(|c| c.is_whitespace() || matches!(c, '/' | '"' | '`' | ')'));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut prev: Option<char> = None;
    while let Some(i) = rest.find(from) {
        let head = &rest[..i];
        let before = head.chars().next_back().or(prev);
        let after = rest[i + from.len()..].chars().next();
        out.push_str(head);
        if before_ok(before) && after_ok(after) {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        prev = from.chars().next_back();
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}
