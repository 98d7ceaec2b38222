//! A hybrid tree run in the head's own directory through `go test -overlay` (Go 1.16+), and the
//! `GOFLAGS` of Go runs in a tree of their own.
//!
//! Go keys its build cache by package directory, so an exported tree rebuilds every package
//! cold, while `-overlay` in the head's directory rebuilds only the packages whose files the
//! hybrid swaps. It is the same run only when every check is Go's ([`applies`]: and `GOFLAGS` has
//! no overlay of its own, and the head's directory is not reached through a symlink, whose paths
//! Go would not match), and every path that differs from the head is a regular `.go` file whose
//! directory the head has ([`swaps`]), so the files a test reads at run time (`testdata/`,
//! `go.mod`) are the head's own. [`write`] writes the swapped files and the overlay's JSON into a
//! directory of the caller's (out of the runs' reach). `go vet` is off there: vet reads the files
//! on disk, not the overlay.
//!
//! A tree kept between judgements would let `go test` replay a cached pass where a rerun must
//! run: every Go run in a tree gets `-count=1` ([`tree_env`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_git::{Entry, Git, RawChange};

use crate::ChecksError;
use crate::detect::Check;
use crate::isolate::{Isolation, env_var};
use crate::runners::runner;

/// The Go release that brought `-overlay`.
const GO_OVERLAY_MINOR: u32 = 16;

/// An overlay written for a hybrid's runs in the head's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    /// Variables set for the runs (`GOFLAGS` with the overlay).
    pub env: Vec<(OsString, OsString)>,
    /// What NOT PROVEN says of such a run.
    pub note: String,
}

/// Whether the overlay serves runs of `check` (Go's).
#[must_use]
pub fn serves(check: &Check) -> bool {
    runner(check.kind).isolation() == Isolation::Go
}

/// Variables for the runs of `checks` in a tree of their own, on top of the isolation's, `env`
/// the environment they start from: `GOFLAGS` with `-count=1` when a check is Go's.
#[must_use]
pub fn tree_env(checks: &[Check], env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    go_flags(checks, env, "").into_iter().collect()
}

/// `GOFLAGS` for Go runs in a tree: the environment's, then `-count=1`, then `extra`. `None`
/// when no check is Go.
fn go_flags(
    checks: &[Check],
    env: &[(OsString, OsString)],
    extra: &str,
) -> Option<(OsString, OsString)> {
    if !checks.iter().any(serves) {
        return None;
    }
    let from_env = env_var(env, "GOFLAGS")
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_default();
    let all = [from_env.as_str(), "-count=1", extra]
        .into_iter()
        .filter(|f| !f.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    Some(("GOFLAGS".into(), all.into()))
}

/// Whether `checks` (as detected in the head's directory `head_root`) can run a hybrid as an
/// overlay there, `env` their environment (see the module doc).
#[must_use]
pub fn applies(checks: &[Check], env: &[(OsString, OsString)], head_root: &Path) -> bool {
    if checks.is_empty() || !checks.iter().all(serves) {
        return false;
    }
    let flags = env_var(env, "GOFLAGS")
        .map(|v| v.to_string_lossy().into_owned())
        .unwrap_or_default();
    !flags.contains("-overlay")
        && std::fs::canonicalize(head_root).ok().as_deref() == Some(head_root)
}

/// Whether an overlay on `head_root` can swap `changes` (from the head's tree to the hybrid's):
/// regular `.go` files, added ones in a directory the head has, and a `go` there (with `env`)
/// that knows `-overlay`.
#[must_use]
pub fn swaps(changes: &[RawChange], head_root: &Path, env: &[(OsString, OsString)]) -> bool {
    let regular = |e: &Option<Entry>| {
        e.as_ref()
            .is_none_or(|e| e.mode == "100644" || e.mode == "100755")
    };
    let eligible = changes.iter().all(|c| {
        let parent_exists = || {
            Path::new(&c.path)
                .parent()
                .is_none_or(|p| head_root.join(p).is_dir())
        };
        c.path.ends_with(".go")
            && regular(&c.base)
            && regular(&c.head)
            && (c.base.is_some() || parent_exists())
    });
    eligible && go_has_overlay(head_root, env)
}

/// Writes the overlay of `changes` on `head_root` into `dir` (the swapped files' bytes read
/// from `git`) for `checks`, in the role `role`; `None` when `dir`'s path holds whitespace
/// (`GOFLAGS` is split at spaces).
pub fn write(
    git: &Git,
    dir: &Path,
    head_root: &Path,
    changes: &[RawChange],
    checks: &[Check],
    env: &[(OsString, OsString)],
    role: &str,
) -> Result<Option<Overlay>, ChecksError> {
    if dir.to_string_lossy().contains(char::is_whitespace) {
        return Ok(None);
    }
    let files = dir.join("files");
    std::fs::create_dir_all(&files).map_err(|source| ChecksError::Io {
        action: "create",
        path: files.clone(),
        source,
    })?;
    let mut replace = serde_json::Map::new();
    for (n, c) in changes.iter().enumerate() {
        let target = head_root.join(&c.path);
        let with = match &c.head {
            Some(e) => {
                let bytes = git.show_blob(&e.oid).map_err(|source| ChecksError::Git {
                    action: "read a file of a hybrid",
                    source,
                })?;
                let path = files.join(format!("{n}.go"));
                write_file(&path, &bytes)?;
                path.to_string_lossy().into_owned()
            }
            // An empty replacement deletes the file.
            None => String::new(),
        };
        replace.insert(target.to_string_lossy().into_owned(), with.into());
    }
    let overlay = dir.join("overlay.json");
    let json = serde_json::json!({ "Replace": replace }).to_string();
    write_file(&overlay, json.as_bytes())?;
    let goflags = go_flags(
        checks,
        env,
        &format!("-overlay={} -vet=off", overlay.display()),
    );
    Ok(Some(Overlay {
        env: goflags.into_iter().collect(),
        note: format!(
            "{role} tree: run in the head's directory with go's -overlay swapping {} .go file(s), without go vet (a test that reads .go files at run time reads the head's)",
            changes.len()
        ),
    }))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), ChecksError> {
    loki_core::fs::write_atomic(path, bytes).map_err(|source| ChecksError::Isolate {
        action: "write the go overlay's file",
        path: path.to_path_buf(),
        source: Box::new(source),
    })
}

/// Whether the `go` that runs in `dir` knows `-overlay` (Go 1.16 or later), asked once per
/// directory and environment in a process (a judgement asks for O and again for N).
fn go_has_overlay(dir: &Path, env: &[(OsString, OsString)]) -> bool {
    type Known = std::collections::HashMap<(PathBuf, Vec<(OsString, OsString)>), bool>;
    static KNOWN: std::sync::OnceLock<std::sync::Mutex<Known>> = std::sync::OnceLock::new();
    let key = (dir.to_path_buf(), env.to_vec());
    let known = KNOWN.get_or_init(Default::default);
    if let Some(k) = known.lock().ok().and_then(|m| m.get(&key).copied()) {
        return k;
    }
    let answer = ask_go_overlay(dir, env);
    if let Ok(mut m) = known.lock() {
        m.insert(key, answer);
    }
    answer
}

fn ask_go_overlay(dir: &Path, env: &[(OsString, OsString)]) -> bool {
    let spec = loki_process::Spec::new("go", dir)
        .args(["env", "GOVERSION"])
        .envs(env.to_vec())
        .timeout(std::time::Duration::from_secs(30))
        .output_cap(4096);
    let Ok(out) = loki_process::run(&spec) else {
        return false;
    };
    out.success() && go_minor(&out.output.text()).is_some_and(|m| m >= GO_OVERLAY_MINOR)
}

/// The minor release of a `go1.X[.Y]` version string (`go1.19.8` → 19; a devel build → none).
fn go_minor(version: &str) -> Option<u32> {
    let rest = version.trim().strip_prefix("go1.")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::go_minor;

    #[test]
    fn go_minor_reads_release_strings() {
        assert_eq!(go_minor("go1.19.8\n"), Some(19));
        assert_eq!(go_minor("go1.16"), Some(16));
        assert_eq!(go_minor("go1.22rc1"), Some(22));
        assert_eq!(go_minor("devel go1.23-abc"), None);
        assert_eq!(go_minor(""), None);
    }
}
