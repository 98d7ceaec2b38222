//! `loki contract SPEC`: one line per criterion taken (`<id>` padded to 6 columns, its text, and
//! for a criterion that must keep working `  (keeps working: held when its test passes before and
//! after)`), a line for the items beyond [`loki_contract::MAX_CRITERIA`] that were not taken,
//! then `Wrote <path> (<n> criteria from <source>); …`.

use std::fmt::Write as _;
use std::path::Path;

use loki_contract::{Contract, CriterionKind, MAX_CRITERIA};

/// The contract written to `path` from the spec `source`, with `dropped` items not taken.
#[must_use]
pub fn adopted(contract: &Contract, dropped: usize, path: &Path, source: &str) -> String {
    let mut out = String::new();
    for c in &contract.criteria {
        let kept = if c.kind == CriterionKind::Preserved {
            "  (keeps working: held when its test passes before and after)"
        } else {
            ""
        };
        let _ = writeln!(out, "{:<6} {}{kept}", c.id, c.text);
    }
    if dropped > 0 {
        let _ = writeln!(
            out,
            "{dropped} more item(s) beyond the first {MAX_CRITERIA} were not taken: split the spec"
        );
    }
    let _ = writeln!(
        out,
        "Wrote {} ({} criteria from {source}); build runs are judged against it until it is removed",
        path.display(),
        contract.criteria.len()
    );
    out
}
