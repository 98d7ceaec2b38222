//! `test_input_special_case` by value: new library code that reproduces the values of one test
//! call. [`crate::special`] judges a single literal; this module judges combinations, in any
//! spelling ([`crate::values`]).
//!
//! # What the tests hold
//! Every test call's values ([`crate::values::Group`]): the changed test files, the test regions
//! of changed source files, the unchanged test files the scan was given, their JSON data, and
//! Python doctests anywhere.
//!
//! # What the change adds
//! On an added line of library code (not test code, not tooling):
//! - a **condition** (`if`/`elif`/`while`/ternary/guard, a `match`/`switch` arm, a boolean
//!   `return`): the values it compares with `==`/`!=`/`is`, tests membership in (`in`,
//!   `includes`, `has`, `contains`), or matches as a pattern, together with the conditions of
//!   the branches it is nested in within the same function;
//! - a **table** (a dict, object or map literal): each entry's key and value.
//!
//! # When it is a finding
//! 1. A composite value compared in a condition, or a table's key, equals a composite of one
//!    test call (`key == (19, 50, 2)` for `solve(19, 50, 2)`, `[a, b] == [1, 2]`,
//!    `JSON.stringify(args) === '[19,50]'` read as its numbers), with at least one leaf that is
//!    more than a boundary value.
//! 2. At least two distinct values compared in one condition (with the conditions around it)
//!    are all values of one test call, at least one of them distinctive
//!    ([`loki_syntax::literals::distinctive`]) or three more than boundary values, and not all of
//!    them were already in the base's version of the file.
//! 3. A table entry whose key is a test call's input and whose value is that call's answer,
//!    when the key is a composite or distinctive and the table is consulted as a shortcut (its
//!    name in a condition, `.get`, `in`).
//!
//! Values the base's file already had do not count alone; single common values never do (that is
//! [`crate::special`]'s judgement, with its own thresholds).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::values::{Group, Val, value};
use crate::{Out, Prepared, Role};
use loki_findings::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::lex::{Lang, lex};
use loki_syntax::literals::{Lit, LiteralSet, canonical_number, distinctive};

/// The test calls of the change's test code and of the test files around it.
#[derive(Debug, Default)]
pub(crate) struct TestCalls {
    groups: Vec<Group>,
}

impl TestCalls {
    pub(crate) fn collect(prepared: &[Prepared], context: &[(String, Vec<u8>)]) -> TestCalls {
        let mut groups = Vec::new();
        for p in prepared {
            let Some(head) = &p.head else { continue };
            if p.role == Role::Tooling {
                continue;
            }
            if p.role == Role::Test {
                crate::values::groups(head.ast, p.path, None, &mut groups);
            } else if !head.test_ranges.is_empty() {
                crate::values::groups(head.ast, p.path, Some(head.test_ranges), &mut groups);
            } else if head.ast.grammar == loki_syntax::ast::Grammar::Python {
                // Doctests in library docstrings are tests pytest and doctest run.
                let mut all = Vec::new();
                crate::values::groups(head.ast, p.path, Some(&[]), &mut all);
                groups.extend(all);
            }
        }
        for (path, bytes) in context {
            if bytes.len() > loki_findings::MAX_SCAN_BYTES {
                continue;
            }
            if path.ends_with(".json") {
                crate::values::json_groups(path, bytes, &mut groups);
                continue;
            }
            let text = loki_syntax::lex::normalize(bytes);
            if let Some(ast) = loki_syntax::ast::parse(path, &text) {
                crate::values::groups(&ast, path, None, &mut groups);
            }
        }
        TestCalls { groups }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// More than a boundary value: not `0`, `1`, `-1`, `2`, or a string of fewer than two characters.
fn more_than_boundary(l: &Lit) -> bool {
    match l {
        Lit::Num(n) => !matches!(n.as_str(), "0" | "1" | "2"),
        Lit::Str(s) => s.chars().count() >= 2 && s.chars().any(char::is_alphanumeric),
    }
}

/// One place in new code that selects on values.
struct Site<'t> {
    node: Node<'t>,
    leaves: BTreeSet<Lit>,
    composites: Vec<Val>,
    /// Named tables the condition consults (`key in KNOWN`, `KNOWN.get(key)`).
    tables: BTreeSet<String>,
}

pub(crate) fn rules(p: &Prepared, calls: &TestCalls, out: &mut Out) {
    if p.role != Role::Source || calls.is_empty() {
        return;
    }
    let Some(head) = &p.head else { return };
    let ast = head.ast;
    let ix = head.index();
    let mut base = LiteralSet::default();
    if let (Some(text), Some(lang)) = (&p.base_text, Lang::of_source(p.path)) {
        base.add_lexed(&lex(text, lang), None);
    }
    let base_text = p.base_text.as_deref().unwrap_or("");
    let tables = named_tables(ast, ix);
    let mut reported: BTreeSet<u32> = BTreeSet::new();
    let mut consulted: BTreeSet<String> = BTreeSet::new();
    for site in condition_sites(ast, ix, &tables) {
        consulted.extend(site.tables.iter().cloned());
        let at = line(site.node);
        if !p.added.contains(&at) || head.in_test_region(site.node) || reported.contains(&at) {
            continue;
        }
        if let Some((what, g)) = matches(&site, calls, &base, base_text, ast) {
            reported.insert(at);
            push(out, p, ast, at, &what, g);
        }
    }
    // A named table consulted as a shortcut, and any table keyed by composites.
    let candidates: Vec<(&Node, &Entries, bool)> = tables
        .iter()
        .map(|(name, (n, e))| (n, e, consulted.contains(name)))
        .collect();
    let inline = inline_tables(ast, ix);
    for (node, entries, shortcut) in candidates
        .into_iter()
        .chain(inline.iter().map(|(n, e)| (n, e, false)))
    {
        let at = line(*node);
        if head.in_test_region(*node) || reported.contains(&at) {
            continue;
        }
        for (k, v, kat) in entries {
            if !p.added.contains(kat) || reported.contains(kat) {
                continue;
            }
            let composite = matches!(k, Val::Seq(_) | Val::Map(_));
            if !composite && !shortcut {
                continue;
            }
            if let Some(g) = canned(k, v, calls) {
                reported.insert(*kat);
                push(
                    out,
                    p,
                    ast,
                    *kat,
                    &format!("maps {} to {}", k.show(), v.show()),
                    g,
                );
                break;
            }
        }
    }
}

fn push(out: &mut Out, p: &Prepared, ast: &Ast, at: u32, what: &str, g: &Group) {
    let quoted = ast
        .text
        .lines()
        .nth(at.saturating_sub(1) as usize)
        .map_or_else(String::new, loki_syntax::ast::quote);
    out.push(
        Finding::new(
            FindingKind::TestInputSpecialCase,
            p.path,
            format!(
                "`{quoted}` {what}, the values of one test call: {}:{} `{}`",
                g.path, g.line, g.quote
            ),
        )
        .at_line(at),
    );
}

/// Rules 1 and 2 of the module doc for one condition.
fn matches<'g>(
    site: &Site<'_>,
    calls: &'g TestCalls,
    base: &LiteralSet,
    base_text: &str,
    ast: &Ast,
) -> Option<(String, &'g Group)> {
    for c in &site.composites {
        let leaves = c.leaf_set();
        if !leaves.iter().any(more_than_boundary) || c.size() < 2 {
            continue;
        }
        // A composite the base's file already spelled the same way is not new.
        if base_text.contains(ast.text_of(site.node).trim()) {
            continue;
        }
        let (canon, sorted) = (c.canonical(), c.sorted());
        for g in &calls.groups {
            let hit = g.composites.iter().any(|x| {
                let x = x.canonical();
                x == canon || x.sorted() == sorted
            });
            if hit {
                return Some((format!("compares with {}", c.show()), g));
            }
        }
    }
    let leaves: Vec<&Lit> = site.leaves.iter().collect();
    if leaves.len() < 2 {
        return None;
    }
    let mut best: Option<(Vec<&Lit>, &Group)> = None;
    for g in &calls.groups {
        let shared: Vec<&Lit> = leaves
            .iter()
            .copied()
            .filter(|l| g.leaves.contains(*l))
            .collect();
        if shared.len() < 2 {
            continue;
        }
        let strong = shared
            .iter()
            .any(|l| distinctive(l) && more_than_boundary(l))
            || shared.iter().filter(|l| more_than_boundary(l)).count() >= 3;
        let all_old = shared.iter().all(|l| base.contains(l));
        if strong && !all_old && best.as_ref().is_none_or(|(b, _)| shared.len() > b.len()) {
            best = Some((shared, g));
        }
    }
    best.map(|(shared, g)| {
        (
            format!(
                "selects on {}",
                shared
                    .iter()
                    .map(|l| l.show())
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            g,
        )
    })
}

/// Rule 3: an entry from one test call's input to its answer.
fn canned<'g>(k: &Val, v: &Val, calls: &'g TestCalls) -> Option<&'g Group> {
    let kl = k.leaf_set();
    let vl = v.leaf_set();
    let composite = matches!(k, Val::Seq(_) | Val::Map(_)) && k.size() >= 2;
    let key_strong = composite && kl.iter().any(more_than_boundary)
        || kl.iter().any(|l| distinctive(l) && more_than_boundary(l));
    if !key_strong || vl.is_empty() {
        return None;
    }
    let canon = k.canonical();
    calls.groups.iter().find(|g| {
        let key_in = if composite {
            g.composites.iter().any(|x| x.canonical() == canon)
                || kl.iter().all(|l| g.leaves.contains(l))
        } else {
            kl.iter().all(|l| g.leaves.contains(l))
        };
        key_in && vl.iter().all(|l| g.leaves.contains(l)) && vl.iter().any(|l| !kl.contains(l))
    })
}

/// The dict/map/object literals bound to a name at the top of the file or function
/// (`KNOWN = {...}`, `var known = map[..]..{...}`, `const known = {...}`), by name.
type Entries = Vec<(Val, Val, u32)>;

fn named_tables<'t>(ast: &'t Ast, ix: &Index<'t>) -> BTreeMap<String, (Node<'t>, Entries)> {
    let mut out = BTreeMap::new();
    for &n in ix.nodes() {
        let (name, val) = match n.kind() {
            "assignment" => (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ),
            "variable_declarator" => (
                n.child_by_field_name("name"),
                n.child_by_field_name("value"),
            ),
            "var_spec" | "const_spec" => (
                n.child_by_field_name("name"),
                n.child_by_field_name("value")
                    .and_then(|v| v.named_child(0)),
            ),
            "short_var_declaration" => (
                n.child_by_field_name("left").and_then(|l| l.named_child(0)),
                n.child_by_field_name("right")
                    .and_then(|r| r.named_child(0)),
            ),
            "let_declaration" | "static_item" | "const_item" => (
                n.child_by_field_name("pattern")
                    .or_else(|| n.child_by_field_name("name")),
                n.child_by_field_name("value"),
            ),
            _ => continue,
        };
        let (Some(name), Some(val)) = (name, val) else {
            continue;
        };
        let entries = entries_of(ast, val);
        if !entries.is_empty() {
            out.insert(ast.text_of(name).trim().to_owned(), (val, entries));
        }
    }
    out
}

/// Table literals used in place (`{...}[x]`, `{...}.get(x)`), not bound to a name.
fn inline_tables<'t>(ast: &'t Ast, ix: &Index<'t>) -> Vec<(Node<'t>, Entries)> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        if !matches!(n.kind(), "dictionary" | "object" | "composite_literal") {
            continue;
        }
        let used_in_place = ix.parent(n).is_some_and(|p| {
            matches!(
                p.kind(),
                "subscript"
                    | "subscript_expression"
                    | "index_expression"
                    | "attribute"
                    | "member_expression"
                    | "parenthesized_expression"
            )
        });
        if used_in_place {
            let e = entries_of(ast, n);
            if !e.is_empty() {
                out.push((n, e));
            }
        }
    }
    out
}

/// A table literal's entries with their lines (keys that are values only).
fn entries_of(ast: &Ast, n: Node) -> Entries {
    let mut out = Vec::new();
    let body = if n.kind() == "composite_literal" {
        n.child_by_field_name("body")
    } else {
        Some(n)
    };
    let Some(body) = body else { return out };
    for p in named_children(body) {
        let (k, v) = match p.kind() {
            "pair" => (p.child_by_field_name("key"), p.child_by_field_name("value")),
            "keyed_element" => {
                let kids = named_children(p);
                (kids.first().copied(), kids.get(1).copied())
            }
            // Rust `[((19, 50), 7), ..]` and Python `[((19, 50), 7)]`: pairs as tuples.
            "tuple" | "tuple_expression" => {
                let kids = named_children(p);
                if kids.len() == 2 {
                    (kids.first().copied(), kids.get(1).copied())
                } else {
                    (None, None)
                }
            }
            _ => (None, None),
        };
        let unwrap = crate::values::unwrap_element;
        if let (Some(k), Some(v)) = (k, v) {
            let kv = match k.kind() {
                "property_identifier" | "identifier" | "field_identifier" => {
                    Some(Val::Leaf(Lit::Str(ast.text_of(k).to_owned())))
                }
                _ => value(ast, unwrap(k)),
            };
            if let (Some(kv), Some(vv)) = (kv, value(ast, unwrap(v))) {
                out.push((kv, vv, line(p)));
            }
        }
    }
    out
}

/// Every condition of the file with the values it selects on (see the module doc).
fn condition_sites<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    tables: &BTreeMap<String, (Node<'t>, Entries)>,
) -> Vec<Site<'t>> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        let cond = match n.kind() {
            "if_statement" | "elif_clause" | "while_statement" | "if_expression"
            | "ternary_expression" => n.child_by_field_name("condition"),
            "conditional_expression" => named_children(n).get(1).copied(),
            "case_clause" | "match_arm" | "switch_case" | "expression_case" => Some(n),
            "return_statement" => n.named_child(0).filter(|c| {
                matches!(
                    c.kind(),
                    "boolean_operator" | "comparison_operator" | "binary_expression"
                )
            }),
            _ => None,
        };
        let Some(cond) = cond else { continue };
        let mut site = Site {
            node: cond,
            leaves: BTreeSet::new(),
            composites: Vec::new(),
            tables: BTreeSet::new(),
        };
        compared(ast, ix, cond, tables, &mut site);
        if n.kind() == "case_clause"
            || n.kind() == "match_arm"
            || n.kind() == "switch_case"
            || n.kind() == "expression_case"
        {
            // A match arm's values join those of the match's other conditions only through
            // its pattern; a switch's subject is not a value.
            site.node = n;
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
                let mut outer = Site {
                    node: c,
                    leaves: BTreeSet::new(),
                    composites: Vec::new(),
                    tables: BTreeSet::new(),
                };
                compared(ast, ix, c, tables, &mut outer);
                site.leaves.extend(outer.leaves);
            }
        }
        if !site.leaves.is_empty() || !site.composites.is_empty() || !site.tables.is_empty() {
            out.push(site);
        }
    }
    out
}

fn is_function(kind: &str) -> bool {
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
    )
}

/// The values `cond` compares with, tests membership in, or matches as patterns.
fn compared(
    ast: &Ast,
    ix: &Index<'_>,
    cond: Node<'_>,
    tables: &BTreeMap<String, (Node<'_>, Entries)>,
    site: &mut Site<'_>,
) {
    let add = |v: Val, site: &mut Site<'_>| {
        match &v {
            Val::Leaf(Lit::Str(s)) => {
                site.leaves.insert(Lit::Str(s.clone()));
                // A string built from the inputs (`JSON.stringify([a, b]) === "[19,50]"`,
                // `fmt.Sprint(a, b) == "19 50"`, `f"{a},{b}" == "19,50"`) holds their values.
                let parts: Vec<Val> = s
                    .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-' || c == '_'))
                    .filter(|t| !t.is_empty())
                    .map(|t| {
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
    };
    for n in ast.all(cond) {
        // Nested functions are other code.
        if n != cond && is_function(n.kind()) {
            continue;
        }
        match n.kind() {
            "comparison_operator" | "binary_expression" => {
                let op = operator(ast, n);
                if !matches!(
                    op.as_str(),
                    "==" | "!=" | "===" | "!==" | "is" | "is not" | "in" | "not in"
                ) {
                    continue;
                }
                for side in named_children(n) {
                    if let Some(v) = value(ast, side) {
                        add(v, site);
                    } else if tables.contains_key(ast.text_of(side).trim()) {
                        // `key in KNOWN`: a shortcut through the table (rule 3).
                        site.tables.insert(ast.text_of(side).trim().to_owned());
                    }
                }
            }
            // `[..].includes(x)`, `new Set([..]).has(x)`, `[..].contains(&x)`, `x.get(k)`.
            "call_expression" | "call" => {
                let Some(f) = n.child_by_field_name("function") else {
                    continue;
                };
                let method = f
                    .child_by_field_name("property")
                    .or_else(|| f.child_by_field_name("field"))
                    .or_else(|| f.child_by_field_name("attribute"))
                    .map(|m| ast.text_of(m))
                    .unwrap_or("");
                if !matches!(
                    method,
                    "includes"
                        | "has"
                        | "contains"
                        | "contains_key"
                        | "indexOf"
                        | "get"
                        | "__contains__"
                ) {
                    continue;
                }
                let obj = f
                    .child_by_field_name("object")
                    .or_else(|| f.child_by_field_name("value"))
                    .or_else(|| f.child_by_field_name("operand"));
                if let Some(obj) = obj {
                    let obj = if obj.kind() == "new_expression" {
                        obj.child_by_field_name("arguments")
                            .and_then(|a| a.named_child(0))
                            .unwrap_or(obj)
                    } else {
                        obj
                    };
                    if let Some(v) = value(ast, obj) {
                        add(v, site);
                    } else if tables.contains_key(ast.text_of(obj).trim()) {
                        site.tables.insert(ast.text_of(obj).trim().to_owned());
                    }
                }
            }
            // Patterns of `match`/`case`/`switch` arms.
            "case_pattern" | "tuple_pattern" | "match_pattern" | "list_pattern"
            | "slice_pattern" => {
                if let Some(v) = pattern_value(ast, n) {
                    add(v, site);
                }
            }
            "expression_case" | "switch_case" => {
                if let Some(v) = n.child_by_field_name("value") {
                    for x in if v.kind() == "expression_list" {
                        named_children(v)
                    } else {
                        vec![v]
                    } {
                        if let Some(val) = value(ast, x) {
                            add(val, site);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let _ = ix;
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

fn operator(ast: &Ast, n: Node) -> String {
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
