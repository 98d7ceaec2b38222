//! The evidence files a receipt binds by hash (`evidence.screens`), checked by `loki verify`.
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

use std::fs;
use std::path::{Component, Path};

use loki_core::outcome::VerifyVerdict;

use crate::report::{Step, StepName, StepStatus};
use crate::schema::{Receipt, SCREENS_DIR, sha256_hex};

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
