//! Cargo: the build directory slot of a role, refreshed when the tree is newer, and notes on
//! path dependencies that lead out of the tree.

use std::fs::File;
use std::path::Path;
use std::time::SystemTime;

use crate::ChecksError;
use crate::isolate::{
    BUILT_STAMP, CARGO_SLOTS, CargoSlot, Content, LOCK_FILE, Roots, TREE_RECORD, create_dir,
    io_err, normal, repo_key, role_dir, tree_dirs,
};
use loki_core::fs::FileLock;

pub(crate) fn cargo_slot(
    roots: &Roots,
    role: &str,
    cache_dir: &Path,
    content: Content<'_>,
) -> Result<CargoSlot, ChecksError> {
    let base = cache_dir.join("target").join(repo_key(&roots.checkout));
    let name = role_dir(role);
    let (dir, lock) = take_slot(&base, &name)?;
    let record = dir.join(TREE_RECORD);
    let built = base.join(format!(
        "{}{BUILT_SUFFIX}",
        dir.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    ));
    let guarded = matches!(content, Content::Synced { .. });
    match content {
        Content::Synced { id, changed } => {
            if !untouched_since_built(&dir, &built) {
                // The target `LOKI_LOG` filters on stays the one this code had in its own crate.
                tracing::info!(
                    target: "loki_isolate::cargo",
                    dir = %dir.display(),
                    "the build directory changed after its build: emptied"
                );
                empty(&dir)?;
            }
            match std::fs::remove_file(&built) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err("remove", &built)(e)),
            }
            let previous = read_record(&record).map(|(prev, _)| prev);
            write_record(&record, id, SystemTime::now())?;
            match previous.map(|prev| {
                if prev == id {
                    Some(Vec::new())
                } else {
                    changed(&prev)
                }
            }) {
                Some(Some(paths)) => touch(&roots.tree, &paths)?,
                _ => set_all_modified(&roots.tree, SystemTime::now())?,
            }
        }
        Content::Exact(id) => {
            let at = read_record(&record)
                .filter(|(prev, _)| prev == id)
                .map_or_else(SystemTime::now, |(_, at)| at);
            // Recorded before anything is built from this tree: an output newer than `at` in this
            // directory is always one of this content's.
            write_record(&record, id, at)?;
            set_all_modified(&roots.tree, at)?;
        }
        Content::Unknown => {
            match std::fs::remove_file(&record) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err("remove", &record)(e)),
            }
            if let Ok(built) = std::fs::metadata(dir.join(BUILT_STAMP)).and_then(|m| m.modified()) {
                refresh_older_than(&roots.tree, built)?;
            }
        }
    }
    Ok(CargoSlot {
        dir,
        built,
        guarded,
        _lock: lock,
    })
}

/// The first free build directory slot `name`, `name.1`, ... under `base`, locked; when all
/// are busy, the last one, once its lock is free.
fn take_slot(base: &Path, name: &str) -> Result<(std::path::PathBuf, FileLock), ChecksError> {
    let mut chosen = None;
    for n in 0..CARGO_SLOTS {
        let dir = if n == 0 {
            base.join(name)
        } else {
            base.join(format!("{name}.{n}"))
        };
        create_dir(&dir)?;
        let lock_path = dir.join(LOCK_FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err("open the lock", &lock_path))?;
        let last = n + 1 == CARGO_SLOTS;
        match FileLock::try_take(file) {
            Ok(Ok(lock)) => {
                chosen = Some((dir, lock));
                break;
            }
            Ok(Err(_busy)) if !last => {}
            Ok(Err(busy)) => {
                let lock = FileLock::take(busy).map_err(io_err("lock", &lock_path))?;
                chosen = Some((dir, lock));
                break;
            }
            Err(e) => return Err(io_err("lock", &lock_path)(e)),
        }
    }
    chosen.ok_or_else(|| ChecksError::Isolate {
        action: "find a free build directory in",
        path: base.to_path_buf(),
        source: "no slot".into(),
    })
}

/// What follows a slot's name in the file beside it that stamps the end of its last build.
const BUILT_SUFFIX: &str = ".built";

/// Entries of a build directory that change after a build without anything being planted:
/// cargo's bookkeeping, the tests' temporary directory, loki's own stamp and lock.
fn unwatched(rel: &Path) -> bool {
    let name = rel.file_name().map(|n| n.to_string_lossy());
    rel.components()
        .next()
        .is_some_and(|c| c.as_os_str() == "tmp")
        || matches!(
            name.as_deref(),
            Some(".rustc_info.json" | "CACHEDIR.TAG" | ".cargo-lock" | BUILT_STAMP | LOCK_FILE)
        )
}

/// Whether nothing in build directory `dir` changed after the stamp `built` was written (a
/// directory with nothing in it but its lock has nothing to distrust).
fn untouched_since_built(dir: &Path, built: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let stamp = std::fs::metadata(built).and_then(|m| m.modified()).ok();
    let mut stack = vec![dir.to_path_buf()];
    let mut seen = 0usize;
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            return false;
        };
        for e in entries {
            let Ok(e) = e else { return false };
            let path = e.path();
            let rel = path.strip_prefix(dir).unwrap_or(&path);
            if unwatched(rel) {
                continue;
            }
            let Some(stamp) = stamp else { return false };
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                return false;
            };
            let changed = u64::try_from(meta.ctime()).ok().and_then(|s| {
                SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(
                    s,
                    u32::try_from(meta.ctime_nsec()).unwrap_or(0),
                ))
            });
            if changed.is_none_or(|c| c > stamp) {
                return false;
            }
            seen += 1;
            if seen > crate::isolate::MAX_ENTRIES {
                return false;
            }
            if meta.is_dir() {
                stack.push(path);
            }
        }
    }
    true
}

/// Removes everything in build directory `dir` but its lock.
fn empty(dir: &Path) -> Result<(), ChecksError> {
    let entries = std::fs::read_dir(dir).map_err(io_err("read", dir))?;
    for e in entries {
        let e = e.map_err(io_err("read", dir))?;
        if e.file_name() == LOCK_FILE {
            continue;
        }
        let path = e.path();
        let gone = if e.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        gone.map_err(io_err("remove", &path))?;
    }
    Ok(())
}

/// Writes `.loki-tree`: tree `id`, prepared at `at`.
fn write_record(record: &Path, id: &str, at: SystemTime) -> Result<(), ChecksError> {
    let since = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    loki_core::fs::write_atomic(
        record,
        format!("{id} {} {}\n", since.as_secs(), since.subsec_nanos()).as_bytes(),
    )
    .map_err(|e| ChecksError::Isolate {
        action: "write",
        path: record.to_path_buf(),
        source: Box::new(e),
    })
}

/// Sets the modification time of each of `paths` (relative to `tree`) that is a regular file to
/// now; one that is gone or not a file (a symlink) is left alone.
fn touch(tree: &Path, paths: &[String]) -> Result<(), ChecksError> {
    let now = SystemTime::now();
    for rel in paths {
        let path = tree.join(rel);
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let f = File::open(&path).map_err(io_err("open", &path))?;
        f.set_modified(now)
            .map_err(io_err("set the modification time of", &path))?;
    }
    Ok(())
}

/// The tree id and time of `.loki-tree`, when it can be read.
fn read_record(path: &Path) -> Option<(String, SystemTime)> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut parts = text.split_whitespace();
    let id = parts.next()?.to_owned();
    let secs: u64 = parts.next()?.parse().ok()?;
    let nanos: u32 = parts.next()?.parse().ok()?;
    let at = SystemTime::UNIX_EPOCH.checked_add(std::time::Duration::new(secs, nanos))?;
    Some((id, at))
}

/// Sets the mtime of every regular file of `tree` (symlinks and `.git` left alone) to `at`.
fn set_all_modified(tree: &Path, at: SystemTime) -> Result<(), ChecksError> {
    walk_files(tree, &mut |path| {
        let f = File::open(path).map_err(io_err("open", path))?;
        f.set_modified(at)
            .map_err(io_err("set the modification time of", path))
    })
}

/// Calls `each` on every regular file of `tree`, `.git` and symlinks left out.
fn walk_files(
    tree: &Path,
    each: &mut dyn FnMut(&Path) -> Result<(), ChecksError>,
) -> Result<(), ChecksError> {
    let mut stack = vec![tree.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            let path = e.path();
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    stack.push(path);
                }
            } else if ft.is_file() {
                each(&path)?;
            }
        }
    }
    Ok(())
}

/// Sets the mtime of every regular file of `tree` that is not newer than `stamp` to now (symlinks
/// and `.git` left alone), so cargo sees each as changed since the builds before `stamp`.
fn refresh_older_than(tree: &Path, stamp: SystemTime) -> Result<(), ChecksError> {
    let now = SystemTime::now();
    walk_files(tree, &mut |path| {
        if std::fs::metadata(path)
            .and_then(|m| m.modified())
            .is_ok_and(|m| m <= stamp)
        {
            let f = File::open(path).map_err(io_err("open", path))?;
            f.set_modified(now)
                .map_err(io_err("set the modification time of", path))?;
        }
        Ok(())
    })
}

/// Notes for path dependencies of the tree's manifests that do not lead into the tree.
pub(crate) fn cargo_notes(roots: &Roots, notes: &mut Vec<String>) {
    for rel in tree_dirs(&roots.tree) {
        let manifest = roots.tree.join(&rel).join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let Ok(doc) = text.parse::<toml::Table>() else {
            continue;
        };
        let mut paths = Vec::new();
        manifest_paths(&toml::Value::Table(doc), &mut paths);
        for p in paths {
            let dep = Path::new(&p);
            let resolved = normal(&roots.tree.join(&rel).join(dep));
            let shown = rel.join("Cargo.toml");
            if roots.moved(&resolved).is_some() {
                notes.push(format!(
                    "{}: path dependency {p} is inside the checkout, so the run in the tree builds the checkout's copy",
                    shown.display()
                ));
            } else if !roots.in_tree(&resolved) {
                notes.push(format!(
                    "{}: path dependency {p} lies outside the repository; every tree builds the same copy of it",
                    shown.display()
                ));
            }
        }
    }
    notes.sort();
    notes.dedup();
}

/// The `path` values of dependency-like tables: `[dependencies]` and its dev/build kin, their
/// `[target.*.…]` forms, `[workspace.dependencies]`, `[patch.*]` and `[replace]`.
pub(crate) fn manifest_paths(v: &toml::Value, out: &mut Vec<String>) {
    const DEP_TABLES: &[&str] = &[
        "dependencies",
        "dev-dependencies",
        "dev_dependencies",
        "build-dependencies",
        "build_dependencies",
    ];
    let Some(t) = v.as_table() else { return };
    let tables = |t: &toml::Table, out: &mut Vec<String>| {
        for name in DEP_TABLES {
            if let Some(deps) = t.get(*name) {
                deps_paths(deps, false, out);
            }
        }
    };
    tables(t, out);
    if let Some(ws) = t.get("workspace").and_then(toml::Value::as_table) {
        tables(ws, out);
    }
    if let Some(targets) = t.get("target").and_then(toml::Value::as_table) {
        for target in targets.values().filter_map(toml::Value::as_table) {
            tables(target, out);
        }
    }
    if let Some(patch) = t.get("patch") {
        deps_paths(patch, true, out);
    }
    if let Some(replace) = t.get("replace") {
        deps_paths(replace, false, out);
    }
}

fn deps_paths(v: &toml::Value, patch: bool, out: &mut Vec<String>) {
    let Some(t) = v.as_table() else { return };
    for sub in t.values() {
        if patch {
            deps_paths(sub, false, out);
        } else if let Some(p) = sub.get("path").and_then(toml::Value::as_str) {
            out.push(p.to_owned());
        }
    }
}
