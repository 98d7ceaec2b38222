//! The environments children start from: the usual one for test suites and tools ([`scrubbed_env`]:
//! secrets out, `CI=1 NO_COLOR=1` in), an observed command's ([`caller_env`]: the caller's own,
//! minus loki's secrets), and the pure filters under both; [`with_pwd`], the one rule every
//! child's environment gets at its start; [`relocate`], which moves an environment from one
//! directory to another; plus [`shell_quote`] for showing a command line.
//!
//! # `PWD` names the child's directory
//! A shell exports `PWD`, and programs trust it over `getcwd(2)` (it keeps the logical path the
//! user typed): `opencode run` takes its working directory from `PWD` first. Inherited from the
//! user's shell in the checkout, it would send a child started in a worktree back to the
//! checkout. So every child gets a `PWD` that names its own directory ([`with_pwd`]): the
//! inherited value when it is absolute, has no `.` or `..` and is the same directory (a logical
//! path through a symbolic link, as a shell keeps it), else the directory itself, absolute.
//!
//! # Moving an environment ([`relocate`])
//! An agent started in a run's worktree must not be pointed back at the user's checkout by any
//! variable it inherited (`OLDPWD`, npm's `INIT_CWD`, a `PATH` entry, a tool's directory). Every
//! value is read as a `:`-separated list; each absolute entry that is the checkout or a path in
//! it (literally, or once symbolic links are resolved) becomes the same path under the new
//! directory when that exists there, and is dropped when it does not (a virtualenv the user
//! keeps untracked in the checkout is not in a worktree: the checks name its interpreter by
//! absolute path instead). A variable whose every entry is dropped is removed. Entries already
//! under the new directory (a worktree inside the checkout's `.loki/`) and values that are not
//! absolute paths are left alone.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

/// Variable names (upper-cased) that are dropped when they *contain* one of these words.
const SECRET_WORDS: &[&str] = &["TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL"];
/// Variable names (upper-cased) that are dropped when they *start* with one of these prefixes.
const SECRET_PREFIXES: &[&str] = &[
    "AWS_",
    "ANTHROPIC_",
    "OPENAI_",
    "LOKI_RECEIPT_",
    "GITHUB_TOKEN",
];

/// Quotes `s` for display the way a POSIX shell would need it.
#[must_use]
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// True when an environment variable of this name may carry a credential and must not reach a child.
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
        || SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The current environment without secrets, plus `CI=1` and `NO_COLOR=1`, sorted by name.
#[must_use]
pub fn scrubbed_env() -> Vec<(OsString, OsString)> {
    scrub(std::env::vars_os())
}

/// [`scrubbed_env`] over any list of variables (pure, for tests and for callers that build one).
#[must_use]
pub fn scrub(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = without_secrets(vars)
        .into_iter()
        .filter(|(name, _)| name != "CI" && name != "NO_COLOR")
        .collect();
    out.push(("CI".into(), "1".into()));
    out.push(("NO_COLOR".into(), "1".into()));
    out.sort();
    out
}

/// `vars` without anything that looks like a secret ([`is_secret_name`]), in their order and
/// with nothing added (pure): `loki run --clean-env`, and what a reproduction starts from.
#[must_use]
pub fn without_secrets(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| !is_secret_name(&name.to_string_lossy()))
        .collect()
}

/// The environment of a command the user asked loki to *observe* (`loki run`): the caller's own,
/// unchanged, except for loki's own secrets ([`loki_core::env::is_loki_secret`]), which configure
/// loki and never the program. Nothing is added: an observed program must behave as it does
/// without loki.
#[must_use]
pub fn caller_env() -> Vec<(OsString, OsString)> {
    without_loki_secrets(std::env::vars_os())
}

/// [`caller_env`] over any list of variables (pure).
#[must_use]
pub fn without_loki_secrets(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| !loki_core::env::is_loki_secret(&name.to_string_lossy()))
        .collect()
}

/// `env` with `PWD` naming `cwd` (see the module doc): an inherited `PWD` is kept only when it
/// is an absolute, normal path to the same directory; otherwise `cwd`, made absolute against
/// this process's directory, replaces it (appended when there was none). Pure apart from the two
/// `stat` calls that compare the directories.
#[must_use]
pub fn with_pwd(mut env: Vec<(OsString, OsString)>, cwd: &Path) -> Vec<(OsString, OsString)> {
    let inherited = env
        .iter()
        .rev()
        .find(|(n, _)| n == "PWD")
        .map(|(_, v)| v.clone());
    if inherited.as_deref().is_some_and(|p| names_dir(p, cwd)) {
        return env;
    }
    let absolute = if cwd.is_absolute() {
        cwd.to_path_buf()
    } else {
        // A relative directory is resolved against ours, as the kernel will at the child's start.
        std::env::current_dir().map_or_else(|_| cwd.to_path_buf(), |here| here.join(cwd))
    };
    env.retain(|(n, _)| n != "PWD");
    env.push(("PWD".into(), normal(&absolute).into_os_string()));
    env
}

/// Whether `pwd` is an absolute path without `.` or `..` to the same directory as `cwd`.
fn names_dir(pwd: &OsStr, cwd: &Path) -> bool {
    let pwd = Path::new(pwd);
    let plain = pwd.is_absolute()
        && pwd
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    plain && id(pwd).is_some() && id(pwd) == id(cwd)
}

/// `path` without `.` components and with each `..` taking off the component before it (a
/// textual clean-up: the spawn fails anyway when the directory does not exist).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `env` moved from `from` (the user's checkout) to `to` (the directory a child works in); see
/// the module doc. Nothing moves when `to` is `from` itself.
#[must_use]
pub fn relocate(
    env: Vec<(OsString, OsString)>,
    from: &Path,
    to: &Path,
) -> Vec<(OsString, OsString)> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (from_real, to_real) = (real(from), real(to));
    if from_real == to_real {
        return env;
    }
    // The path under `from` an entry names, relative to it; `None`: not in `from`, or in `to`.
    let inside = |entry: &Path| -> Option<PathBuf> {
        if !entry.is_absolute() || entry.starts_with(to) {
            return None;
        }
        if let Ok(rel) = entry.strip_prefix(from) {
            return Some(rel.to_path_buf());
        }
        let resolved = std::fs::canonicalize(entry).ok()?;
        if resolved.starts_with(&to_real) {
            return None;
        }
        resolved
            .strip_prefix(&from_real)
            .ok()
            .map(Path::to_path_buf)
    };
    env.into_iter()
        .filter_map(|(name, value)| {
            let entries: Vec<&[u8]> = value.as_bytes().split(|b| *b == b':').collect();
            let mut moved = false;
            let kept: Vec<Vec<u8>> = entries
                .iter()
                .filter_map(|e| {
                    let Some(rel) = inside(Path::new(OsStr::from_bytes(e))) else {
                        return Some(e.to_vec());
                    };
                    moved = true;
                    let there = normal(&to.join(rel));
                    there.exists().then(|| there.into_os_string().into_vec())
                })
                .collect();
            if !moved {
                return Some((name, value));
            }
            (!kept.is_empty()).then(|| (name, OsString::from_vec(kept.join(&b':'))))
        })
        .collect()
}
