//! Interim: running another tree of the repository with its own code (helper branch replaces it).

use std::ffi::OsString;
use std::path::Path;

use crate::ChecksError;
use crate::detect::Check;

/// How checks must run in another tree.
#[derive(Debug, Default)]
pub struct Prepared {
    env: Vec<(OsString, OsString)>,
    notes: Vec<String>,
}

impl Prepared {
    #[must_use]
    pub fn env(&self) -> &[(OsString, OsString)] {
        &self.env
    }

    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }
}

/// Prepares `tree` (another revision of `checkout`) for `checks`.
pub fn prepare(
    checkout: &Path,
    tree: &Path,
    checks: &[Check],
    role: &str,
    cache_dir: &Path,
) -> Result<Prepared, ChecksError> {
    let mut p = Prepared::default();
    if role == "head" {
        return Ok(p);
    }
    crate::baseline::link_untracked_deps(checkout, tree, checks)?;
    let key = loki_receipt::schema::sha256_hex(checkout.to_string_lossy().as_bytes());
    let dir = cache_dir.join("target").join(&key[..16]).join(role);
    p.env
        .push(("CARGO_TARGET_DIR".into(), dir.into_os_string()));
    Ok(p)
}
