//! Test identity across a change: which test at head is which test at base.
//!
//! Ids are compared within a check. An id present on both sides is the same test. The rest — ids
//! only at base (*missing*) and ids only at head (*new*) — are paired when exactly one missing and
//! one new id share a key, trying in order:
//! 1. the id with its run-dependent parts replaced ([`normalized`]): timestamps, addresses, random
//!    seeds and hashes (a token with six or more digits, a `0x…` address, a hex run of eight or
//!    more with digits and letters), `tmp…` names, and doctest line numbers `(line N)`;
//! 2. the test's own name ([`leaf`]) normalised the same way: the id without its file, module,
//!    binary or package part, so a test that moved to another file or module keeps its identity.
//!
//! A key shared by more than one id on either side pairs nothing (no guessing). What stays
//! unpaired is judged by running: a missing test's original form on the new code
//! (`crate::judge`).

use std::collections::{BTreeMap, BTreeSet};

use loki_protocol::CheckKind;

/// `id` with its run-dependent parts replaced by `#` (see the module doc).
#[must_use]
pub fn normalized(id: &str) -> String {
    let id = strip_numeric_spans(&strip_doctest_line(id));
    let mut out = String::with_capacity(id.len());
    let mut token = String::new();
    let flush = |token: &mut String, out: &mut String| {
        if volatile(token) {
            out.push('#');
        } else {
            out.push_str(token);
        }
        token.clear();
    };
    for c in id.chars() {
        if c.is_ascii_alphanumeric() {
            token.push(c);
        } else {
            flush(&mut token, &mut out);
            out.push(c);
        }
    }
    flush(&mut token, &mut out);
    out
}

/// Dates, times and long numbers written with separators (`2026-12-01T14:35:23.123`): a span of
/// digits joined by `-:.T_+Z` holding six digits or more becomes `#`.
fn strip_numeric_spans(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    let sep = |c: char| matches!(c, '-' | ':' | '.' | 'T' | '_' | '+' | 'Z');
    let mut out = String::with_capacity(id.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_token = i == 0 || !chars[i - 1].is_ascii_alphanumeric();
        if chars[i].is_ascii_digit() && starts_token {
            let mut j = i;
            let mut last_digit = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || sep(chars[j])) {
                if chars[j].is_ascii_digit() {
                    last_digit = j;
                }
                j += 1;
            }
            let span = &chars[i..=last_digit];
            let ends_token =
                last_digit + 1 >= chars.len() || !chars[last_digit + 1].is_ascii_alphanumeric();
            if ends_token && span.iter().filter(|c| c.is_ascii_digit()).count() >= 6 {
                out.push('#');
            } else {
                out.extend(span);
            }
            i = last_digit + 1;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `… (line 12)` → `… (line #)`: a doctest's line moves with every edit above it.
fn strip_doctest_line(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    let mut rest = id;
    while let Some(at) = rest.find("(line ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "(line ".len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str("(line #)");
            rest = &after[digits + 1..];
        } else {
            out.push_str("(line ");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn volatile(token: &str) -> bool {
    if token.is_empty() {
        return false;
    }
    let digits = token.chars().filter(char::is_ascii_digit).count();
    let letters = token.len() - digits;
    let hex = token.chars().all(|c| c.is_ascii_hexdigit());
    digits >= 6
        || (token.starts_with("0x") && token.len() > 2)
        || (hex && token.len() >= 8 && digits >= 2 && letters >= 1)
        || (token.starts_with("tmp") && token.len() >= 9 && digits >= 1)
}

/// The test's own name, normalised: the id without the file, module, binary or package it lives
/// in ([`loki_runner::ids::own_name`]).
#[must_use]
pub fn leaf(kind: CheckKind, id: &str) -> String {
    normalized(loki_runner::ids::own_name(kind, id))
}

/// The kind of the check named `check`; a check of unknown kind has its ids read as saying
/// nothing of their structure ([`loki_runner::ids::OPAQUE`]).
#[must_use]
pub(crate) fn kind_of(kinds: &BTreeMap<String, CheckKind>, check: &str) -> CheckKind {
    kinds
        .get(check)
        .copied()
        .unwrap_or(loki_runner::ids::OPAQUE)
}

/// Missing ids paired with new ids: `(base id, head id)`, by the rules of the module doc.
#[must_use]
pub fn pair(kind: CheckKind, missing: &[&str], new: &[&str]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    let mut left: BTreeSet<&str> = missing.iter().copied().collect();
    let mut right: BTreeSet<&str> = new.iter().copied().collect();
    pair_by(&mut left, &mut right, &mut pairs, normalized);
    pair_by(&mut left, &mut right, &mut pairs, |id| leaf(kind, id));
    pairs.sort();
    pairs
}

fn pair_by<'a>(
    left: &mut BTreeSet<&'a str>,
    right: &mut BTreeSet<&'a str>,
    pairs: &mut Vec<(String, String)>,
    key: impl Fn(&str) -> String,
) {
    let index = |side: &BTreeSet<&'a str>| {
        let mut m: BTreeMap<String, Vec<&'a str>> = BTreeMap::new();
        for id in side {
            m.entry(key(id)).or_default().push(id);
        }
        m
    };
    let (l, r) = (index(left), index(right));
    for (k, ls) in &l {
        if let (Some(rs), [b]) = (r.get(k), ls.as_slice())
            && let [h] = rs.as_slice()
        {
            pairs.push(((*b).to_owned(), (*h).to_owned()));
            left.remove(b);
            right.remove(h);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loki_runner::ids::group;
    use proptest::prelude::*;

    #[test]
    fn run_dependent_parts_are_normalised() {
        assert_eq!(
            normalized("t.py::test_at[2026-12-01T14:35:23.123456]"),
            normalized("t.py::test_at[2026-12-02T09:01:02.654321]")
        );
        assert_eq!(
            normalized("t.py::test_obj[<Obj at 0x7f3a2b1c>]"),
            normalized("t.py::test_obj[<Obj at 0x7f00aa99>]")
        );
        assert_eq!(
            normalized("example.com/m/TestSeed/seed_1701234567"),
            "example.com/m/TestSeed/seed_#"
        );
        assert_eq!(
            normalized("pkg::doctests::src/lib.rs - add (line 12)"),
            "pkg::doctests::src/lib.rs - add (line #)"
        );
        // Ordinary parameters stay apart.
        assert_ne!(
            normalized("t.py::test_add[1-2-3]"),
            normalized("t.py::test_add[1-2-4]")
        );
        assert_eq!(normalized("t.py::test_x[abc]"), "t.py::test_x[abc]");
    }

    #[test]
    fn leaves_and_groups_per_runner() {
        assert_eq!(
            leaf(CheckKind::Pytest, "tests/test_a.py::TestX::test_y[1]"),
            "TestX::test_y[1]"
        );
        assert_eq!(leaf(CheckKind::Cargo, "pkg::pkg::tests::adds"), "adds");
        assert_eq!(
            leaf(CheckKind::Go, "example.com/m/calc/TestAdd/small"),
            "TestAdd/small"
        );
        assert_eq!(
            leaf(CheckKind::Vitest, "src/a.test.ts > math > adds"),
            "math > adds"
        );
    }

    #[test]
    fn moves_and_volatile_ids_pair_but_ambiguity_does_not() {
        // A test moved to another file keeps its name.
        let p = pair(
            CheckKind::Pytest,
            &["tests/test_a.py::test_parse"],
            &["tests/test_parse.py::test_parse"],
        );
        assert_eq!(
            p,
            [(
                "tests/test_a.py::test_parse".into(),
                "tests/test_parse.py::test_parse".into()
            )]
        );
        // Unit tests moved from src/lib.rs to tests/.
        let p = pair(
            CheckKind::Cargo,
            &["calc::calc::tests::adds"],
            &["calc::it::adds"],
        );
        assert_eq!(p.len(), 1);
        // Two moved tests with one name: nothing is guessed.
        let p = pair(
            CheckKind::Pytest,
            &["a.py::test_x", "b.py::test_x"],
            &["c.py::test_x", "d.py::test_x"],
        );
        assert!(p.is_empty());
        // A timestamp in a parameter id.
        let p = pair(
            CheckKind::Pytest,
            &["t.py::test_at[1701234567]"],
            &["t.py::test_at[1701299999]"],
        );
        assert_eq!(p.len(), 1);
        // A different test is not the same test.
        assert!(pair(CheckKind::Pytest, &["t.py::test_a"], &["t.py::test_b"]).is_empty());
    }

    proptest! {
        #[test]
        fn never_panics_and_is_idempotent(s in "\\PC{0,60}") {
            let n = normalized(&s);
            prop_assert_eq!(normalized(&n), n.clone());
            for k in [CheckKind::Pytest, CheckKind::Cargo, CheckKind::Go, CheckKind::Jest, CheckKind::Npm] {
                let _ = leaf(k, &s);
                let _ = group(k, &s);
            }
        }
    }
}
