//! What the judge establishes besides findings: the kinds of its facts.
//!
//! A fact is neither a pass nor a finding nor a change to declare (a test that moved, a flaky
//! test, a test weakened while its code did not change, an expectation change the repository
//! allows). The judge (`loki_checks::judge`) produces them; the receipt's `facts[]` records them
//! by [`FactKind`]'s word, a stable contract like [`crate::FindingKind`]'s.

use serde::{Deserialize, Serialize};

/// What the judge established that is neither a pass, a finding nor a change to declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// A test's id changed (moved file, renamed module) and it was matched to its base id.
    TestMoved,
    /// A test failed at head and also failed when rerun on the base: not the change's doing.
    Flaky,
    /// A test was made weaker (fewer or looser assertions) while the code it tests did not
    /// change: nothing it would catch fails now, but it catches less from now on.
    WeakenedWithoutCodeChange,
    /// An expectation change that `seal.expectation_changes = "allow"` let through.
    ExpectationChangeAllowed,
    /// A deliberate behaviour change (the original test fails on the new code, its new form on
    /// the old), as receipts sealed before declarations existed recorded it. Read so that
    /// `loki verify` still reads those receipts; never produced: the judge now asks for a
    /// declaration instead.
    ExpectationChanged,
}

impl FactKind {
    /// The fact's word, as serialised (`test_moved`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FactKind::TestMoved => "test_moved",
            FactKind::Flaky => "flaky",
            FactKind::WeakenedWithoutCodeChange => "weakened_without_code_change",
            FactKind::ExpectationChangeAllowed => "expectation_change_allowed",
            FactKind::ExpectationChanged => "expectation_changed",
        }
    }
}

impl std::fmt::Display for FactKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_is_its_word_and_an_old_receipts_expectation_fact_still_reads() {
        for k in [
            FactKind::TestMoved,
            FactKind::Flaky,
            FactKind::WeakenedWithoutCodeChange,
            FactKind::ExpectationChangeAllowed,
            FactKind::ExpectationChanged,
        ] {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
        }
        let old: FactKind = serde_json::from_str("\"expectation_changed\"").unwrap();
        assert_eq!(old, FactKind::ExpectationChanged);
    }
}
