//! `eq_override` (tolerance): a tolerance made looser, in library code or test code alike (a
//! shared `assert_close`, a project matcher). A changed line whose only difference from a
//! removed line is its numbers, on a line about closeness, where a number grew (for
//! `toBeCloseTo(x, digits)` the digits shrank), or an `isclose`/`approx` that gains a relative
//! or absolute tolerance of 1% or more.

use crate::rules::{Out, Prepared};
use loki_protocol::{Finding, FindingKind};

/// Words on a line that make its numbers a tolerance: how close two values must be to count as
/// equal.
const TOLERANCE_WORDS: &[&str] = &[
    "isclose",
    "approx",
    "allclose",
    "toBeCloseTo",
    "CloseTo",
    "InDelta",
    "InEpsilon",
    "epsilon",
    "EPSILON",
    "Epsilon",
    "eps",
    "EPS",
    "tol",
    "TOL",
    "Tol",
    "tolerance",
    "rel_tol",
    "abs_tol",
    "delta",
    "DELTA",
    "precision",
    "abs(",
    "Abs(",
    ".abs()",
    "Math.abs",
    "almost",
    "Almost",
    "nearly",
    "Nearly",
    "within",
];

/// The rule over one changed file (see the module doc).
pub(super) fn rules(p: &Prepared, out: &mut Out) {
    let (Some(base), Some(head)) = (&p.base_text, &p.head_text) else {
        return;
    };
    // A comment's numbers are prose (`* From RFC 8259, ... within`), never a tolerance.
    let py = p.path.ends_with(".py");
    let comment = |l: &str| {
        let t = l.trim_start();
        ["//", "/*", "* ", "*/"].iter().any(|c| t.starts_with(c))
            || t == "*"
            || (py && t.starts_with('#'))
    };
    let about = |l: &str| !comment(l) && TOLERANCE_WORDS.iter().any(|w| l.contains(w));
    let removed: Vec<&str> = base
        .lines()
        .filter(|l| about(l) && !head.lines().any(|h| h == *l))
        .collect();
    for (i, l) in head.lines().enumerate() {
        let at = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !p.added.contains(&at) || !about(l) {
            continue;
        }
        let Some(why) = loosened(l, &removed) else {
            continue;
        };
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!(
                    "`{}`: {why}, so values that differ by that much compare equal",
                    loki_syntax::ast::quote(l)
                ),
            )
            .at_line(at),
        );
    }
}

/// How added line `l` loosens a tolerance of the `removed` lines about closeness: a number that
/// grew where the rest of the line is the same (digits that shrank, for `toBeCloseTo` and
/// `places=`), or a relative or absolute tolerance of 1% or more where none was.
fn loosened(l: &str, removed: &[&str]) -> Option<String> {
    let (hs, hn) = number_shape(l);
    let widened = removed.iter().find_map(|r| {
        let (bs, bn) = number_shape(r);
        if bs != hs || bn.len() != hn.len() {
            return None;
        }
        let digits = l.contains("toBeCloseTo") || l.contains("places=");
        bn.iter().zip(&hn).find_map(|(b, h)| {
            let looser = if digits { h < b } else { h > b };
            looser.then_some((*b, *h))
        })
    });
    let added_tol = (l.contains("rel_tol") || l.contains("abs_tol"))
        && !removed
            .iter()
            .any(|r| r.contains("rel_tol") || r.contains("abs_tol"))
        && hn.iter().any(|v| *v >= 0.01 && *v < 1000.0);
    match (widened, added_tol) {
        (Some((b, h)), _) => Some(format!("a tolerance goes from {b} to {h}")),
        (None, true) => Some("a tolerance of 1% or more is added to a comparison".to_owned()),
        _ => None,
    }
}

/// A line with every number replaced by `#`, and its numbers: two lines of the same shape
/// differ only in their numbers. A digit inside a word (`f64`, `rel_tol2`) is part of the word.
fn number_shape(l: &str) -> (String, Vec<f64>) {
    let mut nums = Vec::new();
    let mut shape = String::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, shape: &mut String, nums: &mut Vec<f64>| {
        if !cur.is_empty() {
            match cur.parse::<f64>() {
                Ok(v) => {
                    nums.push(v);
                    shape.push('#');
                }
                Err(_) => shape.push_str(cur),
            }
            cur.clear();
        }
    };
    let chars: Vec<char> = l.trim().chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let sign = c == '-'
            && cur.is_empty()
            && next.is_some_and(|n| n.is_ascii_digit())
            && !prev.is_some_and(|p| p.is_alphanumeric() || p == ')' || p == '_');
        let exponent = (c == 'e' || c == '-')
            && !cur.is_empty()
            && cur
                .chars()
                .last()
                .is_some_and(|x| x.is_ascii_digit() || x == 'e');
        let word_digit = c.is_ascii_digit()
            && cur.is_empty()
            && prev.is_some_and(|p| p.is_alphabetic() || p == '_');
        if (c.is_ascii_digit() && !word_digit) || sign || exponent || (c == '.' && !cur.is_empty())
        {
            cur.push(c);
        } else {
            flush(&mut cur, &mut shape, &mut nums);
            shape.push(c);
        }
    }
    flush(&mut cur, &mut shape, &mut nums);
    (shape, nums)
}
