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

/// The `--json` form of `loki verify` (an object naming the error if the report cannot be
/// serialised, so stdout stays JSON).
#[must_use]
pub fn json(report: &VerifyReport) -> String {
    serde_json::to_string(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
}
