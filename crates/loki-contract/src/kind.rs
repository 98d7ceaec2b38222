//! What a criterion asks for: new behaviour, or existing behaviour that must keep working.
//!
//! The two are proven differently ([`crate::proof::prove`]): new behaviour by a wall test that
//! failed on the base and passes on the head (the test tells the change apart); a criterion that
//! asks for existing behaviour to keep working cannot fail on the base when the base is correct,
//! so it is **held** by a wall test that passes on the base and on the head.
//!
//! # How the kind is known
//! `contract.json` says it (`"kind": "preserved"`; absent is new). When a contract is made from
//! text ([`crate::Contract::from_text`]), [`CriterionKind::of_text`] reads it from the wording:
//! a criterion is preserved when its text (lower case, code spans removed, whitespace collapsed)
//! contains one of [`PRESERVED_PHRASES`] ("keeps working", "still works", "continues to work",
//! "is unchanged", "no regression", ...). The list is closed and literal: a criterion that
//! mixes new and kept behaviour ("add `mul` without breaking `add`") names none of them and
//! stays new, which is the stricter proof. The user can set or remove the kind in the file.

use serde::{Deserialize, Serialize};

/// Phrases that mark a criterion as asking for existing behaviour to keep working.
pub const PRESERVED_PHRASES: &[&str] = &[
    "keeps working",
    "keep working",
    "still works",
    "still work ",
    "continues to work",
    "continue to work",
    "keeps passing",
    "still passes",
    "is unchanged",
    "are unchanged",
    "remains unchanged",
    "remain unchanged",
    "stays unchanged",
    "is preserved",
    "are preserved",
    "no regression",
    "does not regress",
    "doesn't regress",
    "works as before",
    "behaves as before",
];

/// What a criterion asks for (see the module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CriterionKind {
    /// New behaviour: proven by fail-on-base, pass-on-head.
    #[default]
    New,
    /// Existing behaviour kept: held by pass-on-base, pass-on-head.
    Preserved,
}

impl CriterionKind {
    /// `New` (the default, omitted in files).
    #[must_use]
    pub fn is_new(&self) -> bool {
        *self == CriterionKind::New
    }

    /// The kind a criterion's wording asks for (see the module doc).
    #[must_use]
    pub fn of_text(text: &str) -> CriterionKind {
        // Code spans name things (`keeps_working()`), they do not say what is asked.
        let mut plain = String::with_capacity(text.len() + 1);
        for (i, part) in text.split('`').enumerate() {
            if i % 2 == 0 {
                plain.push_str(part);
            } else {
                plain.push_str(" code ");
            }
        }
        let mut words = plain
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        words = words.trim_end_matches(['.', '!', ';']).to_string();
        words.push(' ');
        if PRESERVED_PHRASES.iter().any(|p| words.contains(p)) {
            CriterionKind::Preserved
        } else {
            CriterionKind::New
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_working_wording_is_preserved_and_the_rest_is_new() {
        for preserved in [
            "`add` keeps working",
            "Existing `add(2, 3)` still works.",
            "The CLI continues to work with `--force`",
            "The output format is unchanged",
            "No regression in `parse`",
        ] {
            assert_eq!(
                CriterionKind::of_text(preserved),
                CriterionKind::Preserved,
                "{preserved}"
            );
        }
        for new in [
            "`mul(2, 3)` returns 6",
            "Add `mul` without breaking `add`",
            "`keeps_working()` returns true",
            "Still-life images are resized",
        ] {
            assert_eq!(CriterionKind::of_text(new), CriterionKind::New, "{new}");
        }
    }
}
