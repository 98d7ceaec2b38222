//! `loki verify`: the words are [`loki_receipt::render_human`] (the receipt crate owns the
//! verdict's explanation); `-q` prints the verdict line only, `Verify:     VERIFIED` (the exit
//! code carries the rest); `--json` prints the report as one object.

use loki_receipt::VerifyReport;

use crate::style::label;

/// The text of `loki verify`: `quiet` keeps the verdict line only (no trailing newline then).
#[must_use]
pub fn human(report: &VerifyReport, quiet: bool) -> String {
    if quiet {
        format!("{}{}", label("Verify:"), report.verdict.as_str())
    } else {
        loki_receipt::render_human(report)
    }
}

/// The `--json` form of `loki verify`: the report with every field present, null when unknown
/// (no run, no signature); an object naming the error if the report cannot be serialised.
#[must_use]
pub fn json(report: &VerifyReport) -> serde_json::Value {
    let mut v = serde_json::to_value(report)
        .unwrap_or_else(|e| serde_json::json!({"error": e.to_string()}));
    if let Some(m) = v.as_object_mut() {
        for key in [
            "reason",
            "run_id",
            "receipt_sha256",
            "keyid",
            "signer",
            "outcome",
        ] {
            m.entry(key).or_insert(serde_json::Value::Null);
        }
    }
    v
}
