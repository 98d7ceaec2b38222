//! API renames: when a change renames a function or type and updates its tests to the new name,
//! the original tests fail on the new code only because they call the old name. The judge then
//! runs the original tests *with the rename applied* (and the new tests on the old code with the
//! rename undone), so an honest rename proves the old tests still hold, and a rename that also
//! weakens a test is still caught.
//!
//! A rename `old → new` is inferred ([`renames`]) when, in the test files the change modified, a
//! single identifier `old` is replaced by a single identifier `new` (a token-level diff), always
//! by the same one, and the change's source files lost the definition of `old` and gained one of
//! `new` (`def`, `class`, `fn`, `struct`, `enum`, `trait`, `type`, `func`, `function`, `const`,
//! `let`, `var` before the name; `old` no longer appears in the head sources at all). A word that
//! changed inside a string (`"Hello"` → `"Hi"`) is a changed value, not a rename. [`apply`] replaces
//! whole identifiers only, strings included (`patch("pkg.old")` names it too). Anything else is
//! not a rename, and the tests are moved between trees unchanged.

use std::collections::{BTreeMap, BTreeSet};

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// Tokens of a text: identifiers, and every other character on its own.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let ident = c.is_alphanumeric() || c == '_';
        match (start, ident) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
        if !ident {
            out.push(&text[i..i + c.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn identifiers(text: &str) -> BTreeSet<&str> {
    tokens(text).into_iter().filter(|t| is_ident(t)).collect()
}

/// Keywords that introduce a definition of the name after them.
const DEFINERS: &[&str] = &[
    "def",
    "class",
    "fn",
    "struct",
    "enum",
    "trait",
    "type",
    "func",
    "function",
    "const",
    "let",
    "var",
    "interface",
    "mod",
];

/// Names `text` defines: the identifier after a definition keyword (Go methods:
/// `func (r T) Name`).
fn definitions(text: &str) -> BTreeSet<&str> {
    let toks: Vec<&str> = tokens(text)
        .into_iter()
        .filter(|t| !t.trim().is_empty())
        .collect();
    let mut out = BTreeSet::new();
    for (i, t) in toks.iter().enumerate() {
        if !DEFINERS.contains(t) {
            continue;
        }
        let mut j = i + 1;
        // `func (r *T) Name(`: skip the receiver.
        if *t == "func" && toks.get(j) == Some(&"(") {
            while j < toks.len() && toks[j] != ")" {
                j += 1;
            }
            j += 1;
        }
        if let Some(name) = toks.get(j).filter(|n| is_ident(n)) {
            out.insert(*name);
        }
    }
    out
}

/// The renames `old → new` the change makes (see the module doc). `tests` are the (base, head)
/// texts of the modified test files, `sources` those of the changed source files (`None` where a
/// side is absent).
#[must_use]
pub fn renames(
    tests: &[(String, String)],
    sources: &[(Option<String>, Option<String>)],
) -> BTreeMap<String, String> {
    let mut base_ids: BTreeSet<&str> = BTreeSet::new();
    let mut head_ids: BTreeSet<&str> = BTreeSet::new();
    let mut base_defs: BTreeSet<&str> = BTreeSet::new();
    let mut head_defs: BTreeSet<&str> = BTreeSet::new();
    for (b, h) in sources {
        if let Some(b) = b {
            base_ids.extend(identifiers(b));
            base_defs.extend(definitions(b));
        }
        if let Some(h) = h {
            head_ids.extend(identifiers(h));
            head_defs.extend(definitions(h));
        }
    }
    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (base, head) in tests {
        let (bt, ht) = (tokens(base), tokens(head));
        for op in capture_diff_slices(Algorithm::Myers, &bt, &ht) {
            if let DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } = op
            {
                // Pair the identifiers of a replaced run position by position when the runs
                // have the same shape (`foo(` → `bar(`, `a.foo` → `a.bar`).
                if old_len != new_len {
                    continue;
                }
                for k in 0..old_len {
                    let (o, n) = (bt[old_index + k], ht[new_index + k]);
                    if o != n && is_ident(o) && is_ident(n) {
                        seen.entry(o.to_owned()).or_default().insert(n.to_owned());
                    }
                }
            }
        }
    }
    seen.into_iter()
        .filter_map(|(old, news)| {
            let [new] = news.into_iter().collect::<Vec<_>>().try_into().ok()?;
            let renamed = base_defs.contains(old.as_str())
                && !head_ids.contains(old.as_str())
                && head_defs.contains(new.as_str())
                && !base_ids.contains(new.as_str());
            renamed.then_some((old, new))
        })
        .collect()
}

/// `text` with every whole identifier that `map` names replaced.
#[must_use]
pub fn apply(text: &str, map: &BTreeMap<String, String>) -> String {
    if map.is_empty() {
        return text.to_owned();
    }
    tokens(text)
        .into_iter()
        .map(|t| map.get(t).map_or(t, String::as_str))
        .collect()
}

/// `map` reversed (`new → old`).
#[must_use]
pub fn reversed(map: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    map.iter().map(|(o, n)| (n.clone(), o.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(x: &str) -> String {
        x.to_owned()
    }

    #[test]
    fn an_api_rename_is_inferred_and_applied() {
        let tests = [(
            s("from calc import total\n\ndef test_total():\n    assert total([1, 2]) == 3\n"),
            s("from calc import sum_all\n\ndef test_total():\n    assert sum_all([1, 2]) == 3\n"),
        )];
        let sources = [(
            Some(s("def total(xs):\n    return sum(xs)\n")),
            Some(s("def sum_all(xs):\n    return sum(xs)\n")),
        )];
        let r = renames(&tests, &sources);
        assert_eq!(r, BTreeMap::from([(s("total"), s("sum_all"))]));
        // The test's own name `test_total` is a different identifier and stays.
        assert_eq!(apply(&tests[0].0, &r), tests[0].1);
        assert_eq!(apply(&tests[0].1, &reversed(&r)), tests[0].0);
        assert_eq!(
            apply("patch(\"calc.total\")", &r),
            "patch(\"calc.sum_all\")"
        );
    }

    #[test]
    fn what_is_not_a_rename() {
        // The old name still exists in the sources: a test switched to another function.
        let tests = [(s("assert f(1) == 2"), s("assert g(1) == 2"))];
        let both = [(
            Some(s("def f(x): pass\ndef g(x): pass")),
            Some(s("def f(x): pass\ndef g(x): pass")),
        )];
        assert!(renames(&tests, &both).is_empty());
        // An expected value edited is not a rename (not identifiers).
        let tests = [(s("assert f(1) == 2"), s("assert f(1) == 3"))];
        assert!(
            renames(
                &tests,
                &[(Some(s("def f(x): pass")), Some(s("def f(x): pass")))]
            )
            .is_empty()
        );
        // A word changed inside a string is a changed value.
        let tests = [(
            s("assert greet() == \"Hello\""),
            s("assert greet() == \"Hi\""),
        )];
        let src = [(
            Some(s("def greet():\n    return \"Hello\"")),
            Some(s("def greet():\n    return \"Hi\"")),
        )];
        assert!(renames(&tests, &src).is_empty());
        // One old name mapped to two new ones: ambiguous.
        let tests = [(s("a(1); a(2)"), s("b(1); c(2)"))];
        let src = [(Some(s("fn a() {}")), Some(s("fn b() {} fn c() {}")))];
        assert!(renames(&tests, &src).is_empty());
    }

    proptest! {
        #[test]
        fn tokens_round_trip_and_apply_never_panics(t in "\\PC{0,80}") {
            prop_assert_eq!(tokens(&t).concat(), t.clone());
            let map = BTreeMap::from([(s("a"), s("b"))]);
            let _ = apply(&t, &map);
        }
    }
}
