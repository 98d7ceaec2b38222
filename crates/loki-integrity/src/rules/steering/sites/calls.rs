//! The calls a condition makes, read for the values they compare with: membership and lookup
//! (`includes`, `has`, `contains`, `get`, ..) in a literal or named collection or table, prefix
//! and suffix tests and regular expressions (pieces of the input), equality calls (`equals`,
//! `isclose`, `DeepEqual`, ..), and Rust's `matches!` patterns; one reader for every grammar
//! ([`loki_syntax::ast::call`]).

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::super::tables::Entries;
use super::{Site, add};
use crate::rules::values::{Val, value};
use loki_syntax::ast::{Ast, named_children};
use loki_syntax::literals::Lit;

/// Calls whose arguments are compared with what they are called on or with each other.
const EQ_CALLS: &[&str] = &[
    "isclose",
    "approx",
    "allclose",
    "equals",
    "Equal",
    "DeepEqual",
    "isEqual",
    "eq",
    "EqualFold",
    "strictEqual",
    "deepEqual",
    "equalsIgnoreCase",
    "contentEquals",
    "deepEquals",
];
/// Calls whose string argument is a piece of the input.
const PIECE_CALLS: &[&str] = &[
    "startswith",
    "endswith",
    "startsWith",
    "endsWith",
    "HasPrefix",
    "HasSuffix",
    "starts_with",
    "ends_with",
    "Contains",
    "contains",
    "includes",
    "find",
    "index",
    "indexOf",
];
/// Calls whose first string argument is a regular expression.
const REGEX_CALLS: &[&str] = &[
    "match",
    "fullmatch",
    "search",
    "compile",
    "MustCompile",
    "MatchString",
    "new",
    "findall",
];
pub(super) fn call(
    ast: &Ast,
    n: Node<'_>,
    tables: &BTreeMap<String, (Node<'_>, Entries)>,
    sets: &BTreeMap<String, Val>,
    site: &mut Site<'_>,
) {
    // `matches!(x, A | B)`: the patterns in its token tree.
    if n.kind() == "macro_invocation" {
        let name = n.child_by_field_name("macro").map(|m| ast.text_of(m));
        if name.is_some_and(|m| m.rsplit(':').next() == Some("matches")) {
            for t in ast.all(n).into_iter().filter(|t| t.kind() == "token_tree") {
                if let Some(v) = crate::rules::values::value(ast, t).or_else(|| token_value(ast, t))
                {
                    add(&v, site);
                }
            }
        }
        return;
    }
    let Some(c) = loki_syntax::ast::call(ast, n) else {
        return;
    };
    let (ftext, method, args, obj) = (c.callee, c.method, c.args, c.object);
    if matches!(
        method,
        "includes"
            | "has"
            | "contains"
            | "contains_key"
            | "containsKey"
            | "indexOf"
            | "get"
            | "getOrDefault"
            | "__contains__"
    ) && let Some(obj) = obj
    {
        let obj = if obj.kind() == "new_expression" {
            obj.child_by_field_name("arguments")
                .and_then(|a| a.named_child(0))
                .unwrap_or(obj)
        } else {
            obj
        };
        let named = sets.get(ast.text_of(obj).trim()).cloned();
        let subject = args
            .first()
            .map(|a| ast.text_of(*a).trim().trim_start_matches('&').to_owned());
        if let Some(v) = value(ast, obj).or(named) {
            if let Val::Seq(elems) = &v
                && !matches!(method, "get" | "getOrDefault")
            {
                site.members.extend(elems.iter().cloned());
                site.member_subjects.extend(subject);
            }
            add(&v, site);
        } else if tables.contains_key(ast.text_of(obj).trim()) {
            site.tables.insert(ast.text_of(obj).trim().to_owned());
        }
    }
    let strings = || {
        args.iter().filter_map(|a| match value(ast, *a) {
            Some(Val::Leaf(Lit::Str(s))) => Some(s),
            _ => None,
        })
    };
    if PIECE_CALLS.contains(&method) {
        site.pieces.extend(strings());
    }
    if REGEX_CALLS.contains(&method)
        && (ftext.contains("re.")
            || ftext.contains("regexp")
            || ftext.contains("Regex")
            || ftext.contains("RegExp"))
    {
        for s in strings().take(1) {
            site.pieces.extend(regex_pieces(&s));
        }
    }
    if EQ_CALLS.contains(&method) {
        // `"abc".equals(s)`: the receiver is one side too.
        for a in args.iter().chain(obj.iter()) {
            // `Arrays.equals(a, SAMPLE)`: a named constant stands for its value.
            let named = || sets.get(ast.text_of(*a).trim()).cloned();
            if let Some(v) = value(ast, *a).or_else(named) {
                add(&v, site);
            }
        }
    }
}

/// A Rust token tree's literals as a value (`(1920, 1080)`), for `matches!` patterns.
fn token_value(ast: &Ast, t: Node) -> Option<Val> {
    let vals: Vec<Val> = named_children(t)
        .into_iter()
        .filter_map(|c| value(ast, c))
        .collect();
    (!vals.is_empty()).then_some(Val::Seq(vals))
}

/// The literal runs of a regular expression (`^Crème Brûlée` → `Crème Brûlée`; `a\.b` → `a.b`).
pub(super) fn regex_pieces(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = pattern.chars().peekable();
    let flush = |cur: &mut String, out: &mut Vec<String>| {
        let t = cur.trim().to_owned();
        if t.chars().count() >= 3 {
            out.push(t);
        }
        cur.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(
                    e @ ('.' | '-' | '+' | '(' | ')' | '[' | ']' | '?' | '*' | '/' | '$' | '^'
                    | '|' | '{' | '}'),
                ) => cur.push(e),
                Some('s') => cur.push(' '),
                _ => flush(&mut cur, &mut out),
            },
            '^' | '$' | '(' | ')' | '[' | ']' | '|' | '?' | '*' | '+' | '{' | '}' | '.' => {
                flush(&mut cur, &mut out);
            }
            _ => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::regex_pieces;

    #[test]
    fn the_literal_runs_of_a_regular_expression() {
        assert_eq!(regex_pieces("^Crème Brûlée"), ["Crème Brûlée"]);
        assert_eq!(
            regex_pieces(r"^\s*Hello,\s+World!\s*$"),
            ["Hello,", "World!"]
        );
        assert_eq!(
            regex_pieces(r"^(1\.2\.3\.4|10\.0\.0\.1)$"),
            ["1.2.3.4", "10.0.0.1"]
        );
    }
}
