//! `loki keys show|rotate`: the receipt signing key (`export` prints the PEM as it is).
//!
//! - show: `keyid:`, `source:`, `path:` (when the key is a file) and `created:` (`unknown` for a
//!   key loki did not create), labels padded to 12 columns.
//! - rotate: the new key and where the old public key is kept so earlier receipts still verify.

use std::fmt::Write as _;

use loki_receipt::{KeyInfo, Rotation};

use crate::style::label;

/// The text of `loki keys show`.
#[must_use]
pub fn show(info: &KeyInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}{}", label("keyid:"), info.keyid);
    let _ = writeln!(out, "{}{}", label("source:"), info.source.describe());
    if let Some(p) = &info.path {
        let _ = writeln!(out, "{}{}", label("path:"), p.display());
    }
    let _ = writeln!(
        out,
        "{}{}",
        label("created:"),
        info.created.as_deref().unwrap_or("unknown")
    );
    out
}

/// The `--json` form of `loki keys show`.
#[must_use]
pub fn show_json(info: &KeyInfo) -> serde_json::Value {
    serde_json::json!({
        "keyid": info.keyid,
        "path": info.path.as_ref().map(|p| p.display().to_string()),
        "created": info.created,
        "source": info.source.describe(),
    })
}

/// The text of `loki keys rotate`.
#[must_use]
pub fn rotated(r: &Rotation) -> String {
    format!(
        "new key {} ({})\nold key {} retired: its public key is kept at {} so earlier receipts still verify\n",
        r.new.keyid,
        r.new
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        r.old.keyid,
        r.retired_pubkey.display()
    )
}

/// The `--json` form of `loki keys rotate`.
#[must_use]
pub fn rotated_json(r: &Rotation) -> serde_json::Value {
    serde_json::json!({
        "old_keyid": r.old.keyid, "new_keyid": r.new.keyid,
        "retired_pubkey": r.retired_pubkey.display().to_string(),
    })
}
