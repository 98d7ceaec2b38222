//! The crash signature: what makes two crashes "the same crash".
//!
//! `text` is `<kind>` followed by up to [`SIGNATURE_FRAMES`] normalised top frames, innermost
//! first: ` at <fn> (<path>) < <fn> (<path>)`. Normalisation, so that the same crash on another
//! machine or after an unrelated edit has the same signature:
//! - addresses (`0x7ffd…`), Rust symbol hashes (`::h0123…`), Go's `+0x1d` and call arguments
//!   are removed; line and column numbers are left out (a patch above the crash site moves them);
//! - paths under one of the given roots (the repository, the working directory) become relative;
//!   other absolute paths (the standard library, site-packages) keep only their file name;
//!   `file://`, `webpack:///` and `http(s)://host` prefixes are removed;
//! - library frames (standard libraries, runtimes, dependencies) are skipped when the crash has
//!   any frame of the program itself.
//!
//! `id` is the first 16 hex digits of the SHA-256 of `text`. `needles` are strings that appeared
//! verbatim in the crash output — the crash marker and the chosen frames' function names — which
//! the reproduction script greps for: matching the same exit code and every needle is "the same
//! crash signature".

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::frames::{Crash, Frame};

/// Frames that make up a signature: enough to tell call sites apart, few enough that a change in
/// the caller's caller does not make the same bug look new.
pub const SIGNATURE_FRAMES: usize = 3;
/// Hex digits of the signature id.
const ID_HEX: usize = 16;

/// Path fragments of standard libraries, runtimes and dependencies.
const LIBRARY_PATHS: &[&str] = &[
    "/rustc/",
    "/.cargo/registry/",
    "/.rustup/",
    "site-packages/",
    "dist-packages/",
    "/lib/python",
    "node:internal",
    "node_modules/",
    "internal/",
    "/usr/lib/",
    "/usr/include/",
    "/usr/local/go/",
    "/go/src/runtime/",
    "libc.so",
    "<frozen ",
];
/// Function-name prefixes of standard libraries and runtimes.
const LIBRARY_FUNCTIONS: &[&str] = &[
    "std::",
    "core::",
    "alloc::",
    "<std::",
    "<core::",
    "<alloc::",
    "rust_begin_unwind",
    "__rust",
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "kotlin.",
    "runtime.",
    "__libc_start",
    "_start",
    "__asan",
    "__interceptor",
    "Module._compile",
    "node:",
];

/// A crash signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// First 16 hex digits of the SHA-256 of `text`.
    pub id: String,
    pub text: String,
    /// The exit code the crash ends with (128 + n for signal n).
    pub exit_code: i32,
    /// Strings the crash printed verbatim; the reproduction looks for all of them.
    pub needles: Vec<String>,
}

/// The id of a signature text.
#[must_use]
pub fn id_of(text: &str) -> String {
    let mut h = hex::encode(Sha256::digest(text.as_bytes()));
    h.truncate(ID_HEX);
    h
}

/// True for frames of a standard library, runtime or dependency, and frames with nothing in them.
#[must_use]
pub fn is_library(f: &Frame) -> bool {
    if f.function.is_none() && f.file.is_none() {
        return true;
    }
    f.file
        .as_deref()
        .is_some_and(|p| LIBRARY_PATHS.iter().any(|l| p.contains(l)))
        || f.function
            .as_deref()
            .is_some_and(|n| LIBRARY_FUNCTIONS.iter().any(|l| n.starts_with(l)))
}

/// Removes `file://`, `webpack:///` and `scheme://host[:port]` from a printed path, and a query.
#[must_use]
pub fn strip_url(p: &str) -> &str {
    let p = p.split(['?', '#']).next().unwrap_or(p);
    if let Some(rest) = p.strip_prefix("file://") {
        return rest;
    }
    if let Some(rest) = p.strip_prefix("webpack://") {
        // `webpack:///./src/a.js` or `webpack://app/./src/a.js`
        let rest = rest.trim_start_matches('/');
        let rest = match rest.find("./") {
            Some(i) => &rest[i + 2..],
            None => rest,
        };
        return rest;
    }
    if let Some((_, rest)) = p.split_once("://") {
        return rest.find('/').map_or("", |i| &rest[i + 1..]);
    }
    p
}

/// A printed path made machine-independent: relative to the first root it is under, else the
/// file name of an absolute path; `./` removed.
#[must_use]
pub fn normalise_path(p: &str, roots: &[&Path]) -> String {
    let p = strip_url(p);
    let path = Path::new(p);
    if path.is_absolute() {
        for root in roots {
            if let Ok(rel) = path.strip_prefix(root) {
                return rel.to_string_lossy().into_owned();
            }
        }
        return path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    }
    p.trim_start_matches("./").to_string()
}

/// A printed function name without addresses, hashes and arguments.
#[must_use]
pub fn normalise_function(f: &str) -> String {
    let f = f.trim();
    let f = match f.rsplit_once("::h") {
        Some((head, h)) if h.len() == 16 && h.bytes().all(|b| b.is_ascii_hexdigit()) => head,
        _ => f,
    };
    let f = f.split(" +0x").next().unwrap_or(f);
    let f = match f.find('(') {
        // `divide (a=1, b=0)` (gdb), `main.divide(...)` (Go): arguments are not identity.
        Some(p) if f.ends_with(')') && p > 0 => f[..p].trim_end(),
        _ => f,
    };
    f.split_whitespace()
        .filter(|w| !w.starts_with("0x"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Removes addresses and process ids from a crash kind (`==123==`, `0x…`).
fn normalise_kind(k: &str) -> String {
    k.split_whitespace()
        .filter(|w| !w.starts_with("0x") && !w.starts_with("=="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The frames a signature is made of: the top program frames, else the top frames.
#[must_use]
pub fn top_frames(frames: &[Frame]) -> Vec<&Frame> {
    let app: Vec<&Frame> = frames
        .iter()
        .filter(|f| !is_library(f))
        .take(SIGNATURE_FRAMES)
        .collect();
    if app.is_empty() {
        frames
            .iter()
            .filter(|f| f.function.is_some() || f.file.is_some())
            .take(SIGNATURE_FRAMES)
            .collect()
    } else {
        app
    }
}

fn frame_label(f: &Frame, roots: &[&Path]) -> String {
    let func = f.function.as_deref().map(normalise_function);
    let file = f.file.as_deref().map(|p| normalise_path(p, roots));
    match (func, file) {
        (Some(func), Some(file)) => format!("{func} ({file})"),
        (Some(func), None) => func,
        (None, Some(file)) => file,
        (None, None) => "?".to_string(),
    }
}

/// The signature of `crash` (or of a bare exit when nothing was parsed) in `output`.
#[must_use]
pub fn compute(crash: Option<&Crash>, exit_code: i32, roots: &[&Path], output: &str) -> Signature {
    let Some(crash) = crash else {
        let text = bare_exit_kind(exit_code);
        return Signature {
            id: id_of(&text),
            text,
            exit_code,
            needles: Vec::new(),
        };
    };
    let top = top_frames(&crash.frames);
    let mut text = normalise_kind(&crash.kind);
    for (i, f) in top.iter().enumerate() {
        text.push_str(if i == 0 { " at " } else { " < " });
        text.push_str(&frame_label(f, roots));
    }
    let mut needles = Vec::new();
    let mut push = |n: String| {
        if !n.is_empty() && !n.contains('\n') && output.contains(&n) && !needles.contains(&n) {
            needles.push(n);
        }
    };
    push(crash.marker.clone());
    for f in &top {
        if let Some(func) = &f.function {
            push(normalise_function(func));
        }
    }
    Signature {
        id: id_of(&text),
        text,
        exit_code,
        needles,
    }
}

/// The kind of a crash with no recognised output: the signal or the exit code.
#[must_use]
pub fn bare_exit_kind(exit_code: i32) -> String {
    match exit_code.checked_sub(128).and_then(signal_name) {
        Some(sig) => format!("signal {sig}"),
        None => format!("exit {exit_code}"),
    }
}

/// The name of a common fatal signal.
#[must_use]
pub fn signal_name(n: i32) -> Option<&'static str> {
    Some(match n {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// The name of any standard Linux signal (`SIGSEGV`, `SIGUSR1`), for a death known to be by
/// signal; [`signal_name`] keeps to the fatal ones an exit code of 128 + N usually means.
#[must_use]
pub fn any_signal_name(n: i32) -> Option<&'static str> {
    if let Some(name) = signal_name(n) {
        return Some(name);
    }
    Some(match n {
        10 => "SIGUSR1",
        12 => "SIGUSR2",
        16 => "SIGSTKFLT",
        17 => "SIGCHLD",
        18 => "SIGCONT",
        19 => "SIGSTOP",
        20 => "SIGTSTP",
        21 => "SIGTTIN",
        22 => "SIGTTOU",
        23 => "SIGURG",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        26 => "SIGVTALRM",
        27 => "SIGPROF",
        28 => "SIGWINCH",
        29 => "SIGIO",
        30 => "SIGPWR",
        31 => "SIGSYS",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_or_file_names() {
        let root = Path::new("/home/u/proj");
        assert_eq!(normalise_path("/home/u/proj/src/a.py", &[root]), "src/a.py");
        assert_eq!(
            normalise_path("/usr/lib/python3.11/json/decoder.py", &[root]),
            "decoder.py"
        );
        assert_eq!(normalise_path("./src/main.rs", &[root]), "src/main.rs");
        assert_eq!(
            normalise_path("file:///home/u/proj/app.js", &[root]),
            "app.js"
        );
        assert_eq!(
            normalise_path("webpack:///./src/App.js", &[root]),
            "src/App.js"
        );
        assert_eq!(
            normalise_path("http://localhost:3000/static/js/app.js", &[root]),
            "static/js/app.js"
        );
    }

    #[test]
    fn functions_lose_addresses_hashes_and_arguments() {
        assert_eq!(
            normalise_function("demo::ratio::h0123456789abcdef"),
            "demo::ratio"
        );
        assert_eq!(normalise_function("main.divide(...)"), "main.divide");
        assert_eq!(normalise_function("divide (a=1, b=0)"), "divide");
        assert_eq!(
            normalise_function("Object.<anonymous>"),
            "Object.<anonymous>"
        );
    }

    #[test]
    fn bare_exits_name_signals() {
        assert_eq!(bare_exit_kind(139), "signal SIGSEGV");
        assert_eq!(bare_exit_kind(3), "exit 3");
        assert_eq!(bare_exit_kind(200), "exit 200");
        assert_eq!(any_signal_name(11), Some("SIGSEGV"));
        assert_eq!(any_signal_name(10), Some("SIGUSR1"));
        assert_eq!(any_signal_name(64), None);
    }

    #[test]
    fn signature_ignores_line_numbers_and_keeps_needles_that_were_printed() {
        let frame = |line| Frame {
            function: Some("average".into()),
            file: Some("/r/app.py".into()),
            line: Some(line),
            column: None,
        };
        let crash = |line| Crash {
            lang: crate::frames::Lang::Python,
            kind: "ZeroDivisionError".into(),
            message: "division by zero".into(),
            marker: "ZeroDivisionError".into(),
            frames: vec![frame(line)],
        };
        let out = "in average\nZeroDivisionError: division by zero";
        let a = compute(Some(&crash(3)), 1, &[Path::new("/r")], out);
        let b = compute(Some(&crash(9)), 1, &[Path::new("/r")], out);
        assert_eq!(a, b);
        assert_eq!(a.text, "ZeroDivisionError at average (app.py)");
        assert_eq!(a.needles, vec!["ZeroDivisionError", "average"]);
        assert_eq!(a.id.len(), 16);
    }
}
