//! The places in new code that select on values ([`Site`]): conditions (`if`, `elif`, `while`,
//! ternaries, `match`/`case`/`switch` arms, boolean `return`s and boolean assignments, with the
//! conditions they are nested in), and what each compares: literal values and composites,
//! measures of an input (`len(xs) == 8`), pieces of strings (`startswith`, `HasPrefix`, regular
//! expressions), digests of an input, membership collections, named tables consulted, and the
//! literal answers its branch gives.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

mod calls;

use super::tables::Entries;
use crate::rules::values::{Val, value};
use calls::{call, regex_pieces};
use loki_syntax::ast::{Ast, Index, named_children};
use loki_syntax::literals::{Lit, canonical_number};

/// One place in new code that selects on values.
#[derive(Debug)]
pub(super) struct Site<'t> {
    pub node: Node<'t>,
    pub leaves: BTreeSet<Lit>,
    pub composites: Vec<Val>,
    /// Named tables the condition consults (`key in KNOWN`, `KNOWN.get(key)`).
    pub tables: BTreeSet<String>,
    /// Literals compared with a measure of an input (`len(xs) == 8`, `sum(xs) == 40`).
    pub measures: BTreeSet<Lit>,
    /// Strings matched as parts of an input: prefixes, suffixes, substrings, the literal runs of
    /// a regular expression.
    pub pieces: Vec<String>,
    /// Elements of a literal collection the condition tests membership in (`x in (..)`,
    /// `SET.has(x)`, `x == a || x == b`), and what it tests (the subjects' text).
    pub members: Vec<Val>,
    pub member_subjects: Vec<String>,
    /// A digest of an input compared with a literal (`sha1(..) == "ab12…"`, `crc32(..)`).
    pub fingerprint: Option<String>,
    /// The literal values the branch answers with.
    pub answers: BTreeSet<Lit>,
}

impl<'t> Site<'t> {
    fn new(node: Node<'t>) -> Site<'t> {
        Site {
            node,
            leaves: BTreeSet::new(),
            composites: Vec::new(),
            tables: BTreeSet::new(),
            measures: BTreeSet::new(),
            pieces: Vec::new(),
            members: Vec::new(),
            member_subjects: Vec::new(),
            fingerprint: None,
            answers: BTreeSet::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.leaves.is_empty()
            && self.composites.is_empty()
            && self.tables.is_empty()
            && self.measures.is_empty()
            && self.pieces.is_empty()
            && self.fingerprint.is_none()
    }
}

/// Every condition of the file with the values it selects on.
pub(super) fn condition_sites<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    tables: &BTreeMap<String, (Node<'t>, Entries)>,
    sets: &BTreeMap<String, Val>,
) -> Vec<Site<'t>> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        let (cond, bodies) = condition_of(n);
        let Some(cond) = cond else { continue };
        let mut site = Site::new(cond);
        compared(ast, cond, tables, sets, &mut site);
        equality_chain(ast, cond, &mut site);
        if matches!(
            n.kind(),
            "case_clause"
                | "match_arm"
                | "switch_case"
                | "expression_case"
                | "switch_block_statement_group"
                | "switch_rule"
        ) {
            site.node = n;
            // `switch crc32(s) { case 0x1a2b: .. }`: the subject is what the arms compare with.
            if let Some(subject) = switch_subject(ix, n)
                && let Some(f) = digest(ast, subject)
            {
                site.fingerprint = Some(f);
            }
        }
        for b in bodies {
            answers(ast, b, &mut site.answers);
        }
        // The conditions of the branches this one is nested in, within the same function.
        for a in ix.ancestors(n) {
            if is_function(a.kind()) {
                break;
            }
            if matches!(a.kind(), "if_statement" | "elif_clause" | "if_expression")
                && let Some(c) = a.child_by_field_name("condition")
                && !(c.start_byte() <= n.start_byte() && n.end_byte() <= c.end_byte())
            {
                let mut outer = Site::new(c);
                compared(ast, c, tables, sets, &mut outer);
                site.leaves.extend(outer.leaves);
                site.measures.extend(outer.measures);
                site.pieces.extend(outer.pieces);
            }
        }
        if !site.is_empty() {
            out.push(site);
        }
    }
    out
}

/// The condition a node holds and the bodies it selects between.
fn condition_of(n: Node<'_>) -> (Option<Node<'_>>, Vec<Node<'_>>) {
    let field = |f: &str| n.child_by_field_name(f);
    match n.kind() {
        "if_statement" | "elif_clause" | "while_statement" | "if_expression"
        | "ternary_expression" => (
            field("condition"),
            ["consequence", "body"]
                .iter()
                .filter_map(|f| n.child_by_field_name(f))
                .collect(),
        ),
        "conditional_expression" => {
            let kids = named_children(n);
            (
                kids.get(1).copied(),
                kids.first().copied().into_iter().collect(),
            )
        }
        "case_clause" | "switch_case" | "expression_case" => (
            Some(n),
            named_children(n)
                .into_iter()
                .filter(|c| !matches!(c.kind(), "case_pattern"))
                .collect(),
        ),
        "match_arm" => (Some(n), field("value").into_iter().collect()),
        // Java: `case "a", "b": ..` and `case 3 -> 6;`, the arm's value standing for its body.
        "switch_block_statement_group" | "switch_rule" => (
            Some(n),
            named_children(n)
                .into_iter()
                .filter(|c| c.kind() != "switch_label")
                .map(|b| match (n.kind(), b.kind()) {
                    ("switch_rule", "expression_statement") => b.named_child(0).unwrap_or(b),
                    _ => b,
                })
                .collect(),
        ),
        // `return a == 19`, and `return KNOWN.has(x)`: a call returned as the answer is a
        // question too (what it compares is read by `compared`).
        "return_statement" => (
            n.named_child(0).filter(|c| {
                is_boolean(c.kind())
                    || matches!(
                        c.kind(),
                        "call_expression" | "call" | "method_call_expression" | "method_invocation"
                    )
            }),
            Vec::new(),
        ),
        // `rollover = month == 12 and day == 23`, `let hit = a == 19 && b == 50;`.
        "assignment" | "variable_declarator" | "let_declaration" | "assignment_expression" => {
            let v = field("right").or_else(|| field("value"));
            (
                v.filter(|v| is_boolean(v.kind()) && has_equality(v)),
                Vec::new(),
            )
        }
        "short_var_declaration" => (
            field("right")
                .and_then(|r| r.named_child(0))
                .filter(|v| is_boolean(v.kind()) && has_equality(v)),
            Vec::new(),
        ),
        _ => (None, Vec::new()),
    }
}

fn is_boolean(kind: &str) -> bool {
    matches!(
        kind,
        "boolean_operator"
            | "comparison_operator"
            | "binary_expression"
            | "parenthesized_expression"
    )
}

/// Whether an expression compares for equality somewhere (not only arithmetic).
fn has_equality(n: &Node) -> bool {
    let mut stack = vec![*n];
    while let Some(x) = stack.pop() {
        if matches!(x.kind(), "comparison_operator" | "boolean_operator") {
            return true;
        }
        if x.kind() == "binary_expression" {
            let mut cur = x.walk();
            if x.children(&mut cur).any(|c| {
                !c.is_named() && matches!(c.kind(), "==" | "===" | "!=" | "!==" | "&&" | "||")
            }) {
                return true;
            }
        }
        let mut cur = x.walk();
        stack.extend(x.named_children(&mut cur));
    }
    false
}

fn switch_subject<'t>(ix: &Index<'t>, arm: Node<'t>) -> Option<Node<'t>> {
    ix.ancestors(arm).into_iter().find_map(|a| match a.kind() {
        "switch_statement" | "expression_switch_statement" | "match_expression" => {
            a.child_by_field_name("value")
        }
        "match_statement" => a.child_by_field_name("subject"),
        "switch_expression" => a.child_by_field_name("condition"),
        _ => None,
    })
}

pub(super) fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "function_declaration"
            | "method_declaration"
            | "function_item"
            | "method_definition"
            | "arrow_function"
            | "function_expression"
            | "func_literal"
            | "closure_expression"
            | "lambda"
            | "constructor_declaration"
            | "lambda_expression"
    )
}

/// Calls that compute a digest of their input.
const DIGESTS: &[&str] = &[
    "md5",
    "sha1",
    "sha256",
    "sha512",
    "sha224",
    "sha384",
    "crc32",
    "ChecksumIEEE",
    "Checksum",
    "adler32",
    "createHash",
    "hashCode",
    "fnv",
    "xxhash",
    "blake2b",
    "blake3",
    "murmur",
];

/// `Some(text)` when `n` computes a digest of something (`hashlib.sha1(repr(xs).encode())`).
pub(super) fn digest(ast: &Ast, n: Node) -> Option<String> {
    let text = ast.text_of(n);
    // A hand-written one too: a function whose name says it hashes (`rollingHash(s)`,
    // `fnv1a(s)`, `fingerprint(s)`).
    let named = text.split(['(', ')', ' ', ',', '[', ']']).any(|w| {
        let last = w
            .rsplit(['.', ':'])
            .next()
            .unwrap_or(w)
            .to_ascii_lowercase();
        ["hash", "digest", "checksum", "fingerprint"]
            .iter()
            .any(|k| last.contains(k))
            && text.contains(&format!("{w}("))
    });
    (named
        || DIGESTS
            .iter()
            .any(|d| text.contains(&format!("{d}(")) || text.contains(&format!(".{d}"))))
    .then(|| loki_syntax::ast::quote(text))
}

/// Calls that measure an input.
const MEASURES: &[&str] = &[
    "len", "sum", "length", "size", "count", "Len", "Sum", "fsum", "len()", "count()",
];

/// The values `cond` compares with, tests membership in, matches as patterns or pieces.
fn compared(
    ast: &Ast,
    cond: Node<'_>,
    tables: &BTreeMap<String, (Node<'_>, Entries)>,
    sets: &BTreeMap<String, Val>,
    site: &mut Site<'_>,
) {
    for n in ast.all(cond) {
        // Nested functions are other code.
        if n != cond && is_function(n.kind()) {
            continue;
        }
        match n.kind() {
            "comparison_operator" | "binary_expression" => comparison(ast, n, tables, sets, site),
            "call_expression" | "call" | "macro_invocation" | "method_invocation" => {
                call(ast, n, tables, sets, site);
            }
            "regex" => {
                if let Some(p) = n.child_by_field_name("pattern") {
                    site.pieces.extend(regex_pieces(ast.text_of(p)));
                }
            }
            // Patterns of `match`/`case`/`switch` arms.
            "case_pattern" | "tuple_pattern" | "match_pattern" | "list_pattern"
            | "slice_pattern" => {
                if let Some(v) = pattern_value(ast, n) {
                    add(&v, site);
                }
            }
            // Java's `case "a", "b"`.
            "switch_label" => {
                for x in named_children(n) {
                    if let Some(val) = value(ast, x) {
                        add(&val, site);
                    }
                }
            }
            "expression_case" | "switch_case" => {
                if let Some(v) = n.child_by_field_name("value") {
                    let values = if v.kind() == "expression_list" {
                        named_children(v)
                    } else {
                        vec![v]
                    };
                    for x in values {
                        if let Some(val) = value(ast, x) {
                            add(&val, site);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

fn comparison(
    ast: &Ast,
    n: Node<'_>,
    tables: &BTreeMap<String, (Node<'_>, Entries)>,
    sets: &BTreeMap<String, Val>,
    site: &mut Site<'_>,
) {
    let op = operator(ast, n);
    let sides = named_children(n);
    if matches!(op.as_str(), "<" | "<=") {
        // `abs(x - 36.6) < 1e-9`, `(c - 36.6).abs() < f64::EPSILON`: closeness to a value.
        if let Some(left) = sides.first()
            && ast.text_of(*left).contains("abs")
        {
            for x in ast.all(*left) {
                if let Some(Val::Leaf(l)) = value(ast, x)
                    && ast.text_of(x) != "0"
                {
                    site.leaves.insert(l);
                }
            }
        }
        return;
    }
    if !matches!(
        op.as_str(),
        "==" | "!=" | "===" | "!==" | "is" | "is not" | "in" | "not in"
    ) {
        return;
    }
    let literal_side = sides.iter().find_map(|s| value(ast, *s));
    // `"o'brien" in email`: a piece of the input.
    if matches!(op.as_str(), "in" | "not in")
        && let (Some(Val::Leaf(Lit::Str(p))), Some(right)) =
            (sides.first().and_then(|l| value(ast, *l)), sides.get(1))
        && value(ast, *right).is_none()
    {
        site.pieces.push(p);
    }
    for side in &sides {
        if let Some(v) = value(ast, *side) {
            if matches!(op.as_str(), "in" | "not in") && matches!(v, Val::Seq(_) | Val::Map(_)) {
                let elems = match &v {
                    Val::Seq(e) => e.clone(),
                    Val::Map(pairs) => pairs.iter().map(|(k, _)| k.clone()).collect(),
                    _ => Vec::new(),
                };
                site.members.extend(elems);
                if let Some(subject) = sides.first() {
                    site.member_subjects
                        .push(ast.text_of(*subject).trim().to_owned());
                }
            }
            add(&v, site);
            continue;
        }
        let text = ast.text_of(*side).trim();
        if matches!(op.as_str(), "in" | "not in")
            && let Some(Val::Seq(e)) = sets.get(text)
        {
            site.members.extend(e.iter().cloned());
            if let Some(subject) = sides.first() {
                site.member_subjects
                    .push(ast.text_of(*subject).trim().to_owned());
            }
        }
        if tables.contains_key(text) {
            site.tables.insert(text.to_owned());
        } else if let Some(f) = digest(ast, *side)
            && literal_side.is_some()
        {
            site.fingerprint = Some(f);
        } else if is_measure(ast, *side)
            && let Some(Val::Leaf(l)) = &literal_side
        {
            site.measures.insert(l.clone());
        }
    }
}

/// Whether an expression measures an input: `len(xs)`, `xs.length`, `xs.len()`, `sum(xs)`.
fn is_measure(ast: &Ast, n: Node) -> bool {
    let text = ast.text_of(n);
    let last = text
        .trim_end_matches("()")
        .rsplit(['.', '(', ':'])
        .next()
        .unwrap_or("");
    MEASURES
        .iter()
        .any(|m| text.starts_with(&format!("{m}(")) || last == m.trim_end_matches("()"))
}

/// `x == 11 || x == 12 || x == 13`: a chain of equalities on one subject is a membership test.
fn equality_chain(ast: &Ast, cond: Node<'_>, site: &mut Site<'_>) {
    let mut subjects: BTreeMap<String, Vec<Val>> = BTreeMap::new();
    for n in ast.all(cond) {
        if !matches!(n.kind(), "comparison_operator" | "binary_expression") {
            continue;
        }
        if !matches!(operator(ast, n).as_str(), "==" | "===") {
            continue;
        }
        let sides = named_children(n);
        let [a, b] = sides.as_slice() else { continue };
        let (subject, v) = match (value(ast, *a), value(ast, *b)) {
            (None, Some(v)) => (*a, v),
            (Some(v), None) => (*b, v),
            _ => continue,
        };
        subjects
            .entry(ast.text_of(subject).trim().to_owned())
            .or_default()
            .push(v);
    }
    let joined_by_or = ast.text_of(cond).contains("||") || ast.text_of(cond).contains(" or ");
    for (subject, vals) in subjects {
        if vals.len() >= 2 && joined_by_or {
            site.members.extend(vals);
            site.member_subjects.push(subject);
        }
    }
}

/// A token split where a number runs into letters (`100C` → `100`, `C`; `v2` stays whole: a
/// word that ends in digits is a name).
fn digits_and_letters(t: &str) -> Vec<&str> {
    // A separator at the end (`100C->F` splits at `>`) is not part of the token.
    let t = t.trim_end_matches(['-', '.']);
    if t.is_empty() {
        return Vec::new();
    }
    let Some(end) = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')) else {
        return vec![t];
    };
    let (num, rest) = t.split_at(end);
    if num.is_empty() || num == "-" || !rest.chars().all(char::is_alphabetic) {
        return vec![t];
    }
    vec![num, rest]
}

/// Adds a compared value to the site: its leaves, and, for a composite, itself.
fn add(v: &Val, site: &mut Site<'_>) {
    match v {
        Val::Leaf(Lit::Str(s)) => {
            site.leaves.insert(Lit::Str(s.clone()));
            // A string built from the inputs (`JSON.stringify([a, b]) === "[19,50]"`,
            // `fmt.Sprint(a, b) == "19 50"`, `f"{a},{b}" == "19,50"`) holds their values.
            let parts: Vec<Val> = s
                .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-' || c == '_'))
                .filter(|t| !t.is_empty())
                // `${value}${unit}` runs a number into a word: `100C` is 100 and `C`.
                .flat_map(digits_and_letters)
                .map(|t| {
                    // Numbers are compared without their sign, as literals are.
                    canonical_number(t.trim_start_matches('-')).map_or_else(
                        || Val::Leaf(Lit::Str(t.to_owned())),
                        |n| Val::Leaf(Lit::Num(n)),
                    )
                })
                .collect();
            if parts.len() >= 2 {
                for pt in &parts {
                    if let Val::Leaf(l) = pt {
                        site.leaves.insert(l.clone());
                    }
                }
                site.composites.push(Val::Seq(parts));
            }
        }
        Val::Leaf(l) => {
            site.leaves.insert(l.clone());
        }
        Val::Word(_) => {}
        composite => {
            site.leaves.extend(composite.leaf_set());
            if composite.size() >= 2 {
                site.composites.push(composite.clone());
            }
            // A membership collection's elements are compared one by one.
            if let Val::Seq(elems) = composite {
                for e in elems {
                    if matches!(e, Val::Seq(_) | Val::Map(_)) && e.size() >= 2 {
                        site.composites.push(e.clone());
                    }
                }
            }
            if let Val::Map(pairs) = composite {
                for (k, _) in pairs {
                    if matches!(k, Val::Seq(_)) {
                        site.composites.push(k.clone());
                    }
                }
            }
        }
    }
}

/// The literal values a branch answers with: what it returns, the value an arm or a ternary
/// branch is, what it assigns (nested functions not entered).
fn answers(ast: &Ast, body: Node<'_>, out: &mut BTreeSet<Lit>) {
    if !matches!(
        body.kind(),
        "block" | "statement_block" | "block_statement" | "statement_list"
    ) && !body.kind().ends_with("_statement")
    {
        for x in ast.all(body) {
            if let Some(Val::Leaf(l)) = value(ast, x) {
                out.insert(l);
            }
        }
        return;
    }
    for n in ast.all(body) {
        let root = match n.kind() {
            "return_statement" | "return_expression" | "yield_statement" => n.named_child(0),
            "assignment" | "assignment_expression" | "augmented_assignment" => {
                n.child_by_field_name("right")
            }
            _ => None,
        };
        // Every literal of the answer, however it is wrapped (`vec!["a".to_string()]`,
        // `Some((2000, 2, 29))`, `{"cents": 101}`).
        if let Some(r) = root {
            for x in ast.all(r) {
                if let Some(Val::Leaf(l)) = value(ast, x) {
                    out.insert(l);
                }
            }
        }
    }
}

/// The value a pattern matches (`(19, 50, 2)`, `[1, 2]`, `"a"`), read from its literals when its
/// shape is a tuple or list of them.
fn pattern_value(ast: &Ast, n: Node) -> Option<Val> {
    if let Some(v) = value(ast, n) {
        return Some(v);
    }
    let kids: Vec<Node> = named_children(n)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .collect();
    match n.kind() {
        "case_pattern" | "match_pattern" if kids.len() == 1 => pattern_value(ast, kids[0]),
        "tuple_pattern" | "list_pattern" | "slice_pattern" => kids
            .iter()
            .map(|k| pattern_value(ast, *k))
            .collect::<Option<Vec<_>>>()
            .map(Val::Seq),
        _ => None,
    }
}

pub(super) fn operator(ast: &Ast, n: Node) -> String {
    if let Some(op) = n.child_by_field_name("operator") {
        return ast.text_of(op).to_owned();
    }
    let mut cursor = n.walk();
    n.children(&mut cursor)
        .filter(|c| !c.is_named())
        .map(|c| ast.text_of(c))
        .collect::<Vec<_>>()
        .join(" ")
}
