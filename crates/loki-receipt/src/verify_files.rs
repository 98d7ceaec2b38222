//! The files beside a receipt that `loki verify` checks by hash: the screenshots the receipt binds
//! (`evidence.screens`) and `receipt.md`, which the signed statement binds.
//!
//! # Screens
//!
//! Each listed `file` is a path relative to the directory the receipt is in (the run directory,
//! the same directory the event log is found in). It must:
//! - stay inside that directory: relative, with no `..`, `.` or root component;
//! - be reached through no symbolic link (neither the file nor a directory on its way is one:
//!   a link could point the check at a copy kept elsewhere);
//! - be a regular file with exactly the bound size and SHA-256.
//!
//! Any of these failing is TAMPERED, naming the file. A file that exists but cannot be read is
//! UNCHECKED (it says nothing about the evidence). A receipt that is not in a run directory (a
//! copy without `run.json` or `screens/` beside it) skips the step and says so.

//!
//! # `receipt.md`
//!
//! The file people read. The signed statement binds its exact bytes (subject `receipt.md`), so
//! it is checked only once the signature and the statement verified. `receipt.md` in the receipt's
//! directory must be a regular file, not a symbolic link, with that sha256. Changed, a link, or
//! missing from a run directory → TAMPERED, naming the file; when the renderer of this loki gives
//! exactly the bound bytes, the reason also quotes the first line that differs. Not checked, and
//! said so (never a failure): an unsigned receipt accepted with `--allow-unsigned`, a statement
//! signed before loki bound `receipt.md` (no such subject: the file is then not evidence), a
//! receipt copied away from its run directory without the file.

use std::fs;
use std::path::{Component, Path};

use loki_protocol::outcome::VerifyVerdict;

use crate::builder::MARKDOWN_FILE;
use crate::dsse::Statement;
use crate::markdown::{SignatureLine, render_markdown};
use crate::report::{Step, StepName, StepStatus};
use crate::schema::{Receipt, SCREENS_DIR, sha256_hex};

/// Characters of a changed line quoted in a reason.
const QUOTED_LINE_CHARS: usize = 160;

/// What `receipt.md` is checked against.
pub(crate) struct Bound<'a> {
    /// The directory the receipt is in.
    pub dir: &'a Path,
    /// `dir` is the run's directory (a missing file there is suspicious).
    pub in_run_dir: bool,
    pub receipt: &'a Receipt,
    /// The verified statement, `None` for an unsigned receipt that was accepted.
    pub statement: Option<&'a Statement>,
    /// The keyid of the signature that verified.
    pub keyid: Option<&'a str>,
}

/// Checks `receipt.md` (see the module doc) and records the step in `steps`.
pub(crate) fn markdown_step(
    steps: &mut Vec<Step>,
    b: &Bound<'_>,
) -> Result<(), (VerifyVerdict, String)> {
    let mut record = |status: StepStatus, detail: String| {
        steps.push(Step {
            name: StepName::Markdown,
            status,
            detail,
        });
    };
    let Some(statement) = b.statement else {
        record(
            StepStatus::Skip,
            "the receipt is not signed, so receipt.md is bound to nothing: not checked (read receipt.json)".into(),
        );
        return Ok(());
    };
    let Some(bound) = statement.markdown_sha256() else {
        record(
            StepStatus::Skip,
            "the signature does not bind receipt.md (sealed before loki bound it): not checked, and not evidence (read receipt.json)".into(),
        );
        return Ok(());
    };
    let path = b.dir.join(MARKDOWN_FILE);
    match fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(tampered(format!(
                "{} is a symbolic link; the signature binds receipt.md as a file of the run",
                path.display()
            )));
        }
        Ok(m) if !m.is_file() => {
            return Err(tampered(format!(
                "{} is not a regular file; the signature binds receipt.md (sha256:{})",
                path.display(),
                short(bound)
            )));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && b.in_run_dir => {
            return Err(tampered(format!(
                "{} is missing; the signature binds receipt.md (sha256:{})",
                path.display(),
                short(bound)
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            record(
                StepStatus::Skip,
                "no receipt.md beside the receipt: not checked".into(),
            );
            return Ok(());
        }
        Err(e) => {
            return Err((
                VerifyVerdict::Unchecked,
                format!("cannot look at {}: {e}", path.display()),
            ));
        }
    }
    let content = fs::read(&path).map_err(|e| {
        (
            VerifyVerdict::Unchecked,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let actual = sha256_hex(&content);
    if !actual.eq_ignore_ascii_case(bound) {
        let line = changed_line(b, &content, bound).unwrap_or_default();
        return Err(tampered(format!(
            "{} was changed after sealing: it hashes to sha256:{}, the signature binds sha256:{}{line}",
            path.display(),
            short(&actual),
            short(bound)
        )));
    }
    record(
        StepStatus::Pass,
        format!("receipt.md is the signed sha256:{}", short(bound)),
    );
    Ok(())
}

/// `; line N reads "…", sealed "…"`: the first line of `content` that differs from the sealed
/// rendering, when this loki renders exactly the bound bytes (an older renderer's output cannot
/// be reproduced, and a guessed line would be false evidence).
fn changed_line(b: &Bound<'_>, content: &[u8], bound: &str) -> Option<String> {
    let sealed = render_markdown(
        b.receipt,
        &SignatureLine::Signed {
            keyid: b.keyid?.to_string(),
        },
    );
    if !sha256_hex(sealed.as_bytes()).eq_ignore_ascii_case(bound) {
        return None;
    }
    let now = String::from_utf8_lossy(content);
    let (mut was, mut is) = (sealed.lines(), now.lines());
    let quote = |l: Option<&str>| {
        l.map_or_else(
            || "nothing".to_string(),
            |l| {
                format!(
                    "{:?}",
                    l.chars().take(QUOTED_LINE_CHARS).collect::<String>()
                )
            },
        )
    };
    for n in 1usize.. {
        match (was.next(), is.next()) {
            (Some(x), Some(y)) if x == y => {}
            (None, None) => return None,
            (x, y) => {
                return Some(format!(
                    "; line {n} reads {}, sealed {}",
                    quote(y),
                    quote(x)
                ));
            }
        }
    }
    None
}

/// Hex digits of a hash shown in a reason.
const SHORT_HASH_CHARS: usize = 12;

/// Checks every screen of `receipt` under `dir` and records the step in `steps`; nothing is
/// recorded when the receipt lists none. `in_run_dir`: `dir` is the run's directory.
pub(crate) fn screens_step(
    steps: &mut Vec<Step>,
    dir: &Path,
    in_run_dir: bool,
    receipt: &Receipt,
) -> Result<(), (VerifyVerdict, String)> {
    let Some(screens) = receipt
        .evidence
        .as_ref()
        .map(|e| &e.screens)
        .filter(|s| !s.is_empty())
    else {
        return Ok(());
    };
    if !in_run_dir && fs::symlink_metadata(dir.join(SCREENS_DIR)).is_err() {
        steps.push(Step {
            name: StepName::Screens,
            status: StepStatus::Skip,
            detail: format!(
                "the receipt is not in its run directory: {} screenshot(s) not checked",
                screens.len()
            ),
        });
        return Ok(());
    }
    for s in screens {
        check_file(dir, &s.file, &s.sha256, s.bytes)?;
    }
    steps.push(Step {
        name: StepName::Screens,
        status: StepStatus::Pass,
        detail: format!(
            "{} screenshot{} match{} their sha256",
            screens.len(),
            if screens.len() == 1 { "" } else { "s" },
            if screens.len() == 1 { "es" } else { "" }
        ),
    });
    Ok(())
}

fn tampered(reason: String) -> (VerifyVerdict, String) {
    (VerifyVerdict::Tampered, reason)
}

/// One bound file (see the module doc).
fn check_file(
    dir: &Path,
    file: &str,
    sha256: &str,
    bytes: u64,
) -> Result<(), (VerifyVerdict, String)> {
    let rel = Path::new(file);
    let inside = !file.is_empty() && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return Err(tampered(format!(
            "the receipt lists the screenshot {file:?}, which is not a path inside the run directory"
        )));
    }
    let mut at = dir.to_path_buf();
    for part in rel.components() {
        at.push(part);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(tampered(format!(
                    "{} is a symbolic link; the receipt binds the screenshot {file} as a file of the run",
                    at.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(tampered(format!(
                    "{} is missing; the receipt binds the screenshot {file} (sha256:{})",
                    at.display(),
                    short(sha256)
                )));
            }
            Err(e) => {
                return Err((
                    VerifyVerdict::Unchecked,
                    format!("cannot look at {}: {e}", at.display()),
                ));
            }
        }
    }
    let path = dir.join(rel);
    let is_file = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
    if !is_file {
        return Err(tampered(format!(
            "{} is not a regular file; the receipt binds the screenshot {file}",
            path.display()
        )));
    }
    let content = fs::read(&path).map_err(|e| {
        (
            VerifyVerdict::Unchecked,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let actual = sha256_hex(&content);
    if actual != sha256 || content.len() as u64 != bytes {
        return Err(tampered(format!(
            "{} was changed: it has {} bytes and sha256:{}, the receipt binds {bytes} bytes and sha256:{}",
            path.display(),
            content.len(),
            short(&actual),
            short(sha256)
        )));
    }
    Ok(())
}

fn short(hash: &str) -> &str {
    hash.get(..SHORT_HASH_CHARS).unwrap_or(hash)
}
