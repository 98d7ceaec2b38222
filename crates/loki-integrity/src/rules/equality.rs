//! `eq_override`: equality that no longer compares. In library code (not test code: a test's own
//! `ANY` sentinel that equals everything is honest), new since base:
//! - Python comparison dunders (`__eq__`, `__ne__`, `__lt__`, `__le__`, `__gt__`, `__ge__`, which
//!   `functools.total_ordering` completes) defined by `def`, by assignment in the class body
//!   (`__eq__ = lambda *a: True`, `__eq__ = always`), on the class (`C.__eq__ = ..`) or through
//!   `setattr(C, "__eq__", ..)`, whose body returns one constant on every path (ignoring
//!   `NotImplemented`) or never reads its `other` argument; dataclass `field(compare=False)` and
//!   attrs `attr.ib(eq=False)` / `attrs.field(eq=False)` / `cmp=False`.
//! - Rust `impl PartialEq` / `PartialOrd` / `Ord` whose `eq`/`ne`/`partial_cmp`/`cmp`/`lt`/..
//!   returns one constant on every path (tail and `return`s) or never reads the other argument
//!   (unit structs, whose values are all equal, are exempt); `derivative`/`educe` attributes that
//!   drop a field from equality; a `#[derive(PartialEq)]` replaced by a manual impl that compares
//!   fewer fields than the struct has.
//! - Go `Equal`/`Equals`/`IsEqual`/`Eq` methods and functions with a constant result or an unread
//!   argument; in any Go file that existed at base (test helpers included), new `cmpopts.Ignore*`
//!   / `cmp.Ignore` options and `cmp.Comparer` functions that always report equal.
//! - JS/TS `equals`/`isEqual`/`asymmetricMatch` methods, properties, prototype assignments and
//!   functions with a constant result or an unread argument; in any file, `expect.extend` that
//!   redefines a built-in matcher (`toBe`, `toEqual`, ..) or adds one whose `pass` is always true.
//! - Java `equals(Object)`, `compareTo(T)` and a comparator's `compare(a, b)` with a constant
//!   result or an unread argument, a constant `hashCode()`, and an `equals` that compares fewer of
//!   its class's fields than it did at base.
//!
//! # Submodules
//! One per language: `python`, `rust`, `go`, `js`, `java`; this module holds the shared verdict on a
//! comparison body (`Verdict`) and the walk over a file's library code.

mod go;
mod java;
mod js;
mod python;
mod rust;

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role, View};
use go::go;
use java::java;
use js::js;
use loki_protocol::FindingKind;
use loki_syntax::ast::{Ast, Grammar, Index};
use loki_syntax::diff::Hit;
use python::python;
use rust::{derived_partial_eq, rust};

const PY_DUNDERS: &[&str] = &["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"];
const RUST_CMP_FNS: &[&str] = &["eq", "ne", "partial_cmp", "cmp", "lt", "le", "gt", "ge"];
const RUST_CMP_TRAITS: &[&str] = &["PartialEq", "PartialOrd", "Ord"];
const GO_EQ: &[&str] = &["Equal", "Equals", "IsEqual", "Eq"];
const JS_EQ: &[&str] = &["equals", "isEqual", "asymmetricMatch"];
/// jest and vitest matchers; `expect.extend` redefining one changes what every test asserts.
const BUILTIN_MATCHERS: &[&str] = &[
    "toBe",
    "toEqual",
    "toStrictEqual",
    "toMatchObject",
    "toMatch",
    "toContain",
    "toContainEqual",
    "toHaveLength",
    "toHaveProperty",
    "toBeTruthy",
    "toBeFalsy",
    "toBeNull",
    "toBeUndefined",
    "toBeDefined",
    "toBeNaN",
    "toBeCloseTo",
    "toBeGreaterThan",
    "toBeGreaterThanOrEqual",
    "toBeLessThan",
    "toBeLessThanOrEqual",
    "toBeInstanceOf",
    "toBeTypeOf",
    "toBeOneOf",
    "toSatisfy",
    "toThrow",
    "toThrowError",
    "toHaveBeenCalled",
    "toHaveBeenCalledOnce",
    "toHaveBeenCalledTimes",
    "toHaveBeenCalledWith",
    "toHaveBeenLastCalledWith",
    "toHaveBeenNthCalledWith",
    "toHaveReturned",
    "toHaveReturnedTimes",
    "toHaveReturnedWith",
    "toHaveLastReturnedWith",
    "toHaveNthReturnedWith",
    "toMatchSnapshot",
    "toMatchInlineSnapshot",
    "toMatchFileSnapshot",
    "toThrowErrorMatchingSnapshot",
    "toThrowErrorMatchingInlineSnapshot",
];

pub fn rules(p: &Prepared, out: &mut Out) {
    let base_derived = p
        .base
        .as_ref()
        .filter(|b| b.ast.grammar == Grammar::Rust)
        .map(|b| derived_partial_eq(b.ast))
        .unwrap_or_default();
    let existed = p.base.is_some();
    p.diff(
        FindingKind::EqOverride,
        |side, role| hits(side, role, &base_derived, existed),
        out,
    );
    if let (Some(base), Some(head)) = (&p.base, &p.head)
        && head.ast.grammar == Grammar::Java
        && p.role == Role::Source
    {
        java::narrowed(p, base.ast, head.ast, out);
    }
}

/// Every equality override in one side (library code only, except the matcher and cmp rules;
/// the cmp rule only in files that `existed` at base).
fn hits(side: &View, role: Role, base_derived: &BTreeSet<String>, existed: bool) -> Vec<Hit> {
    let ast = &side.ast;
    let ix = side.index();
    let lib = |n: Node| role == Role::Source && !side.in_test_region(n);
    let mut out = Vec::new();
    match ast.grammar {
        Grammar::Python => python(ast, ix, &lib, &mut out),
        Grammar::Rust => rust(ast, ix, &lib, base_derived, &mut out),
        Grammar::Go => go(ast, ix, role, existed, &lib, &mut out),
        Grammar::Java => java(ast, ix, &lib, &mut out),
        _ => js(ast, ix, &lib, &mut out),
    }
    out
}

/// Why a comparison body does not compare, if it does not.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Constant(String),
    IgnoresArg(String),
}

impl Verdict {
    fn words(&self) -> String {
        match self {
            Verdict::Constant(v) => format!("always returns `{v}`"),
            Verdict::IgnoresArg(a) => format!("never reads its argument `{a}`"),
        }
    }

    fn tag(&self) -> String {
        match self {
            Verdict::Constant(v) => format!("const:{v}"),
            Verdict::IgnoresArg(_) => "ignores".into(),
        }
    }
}

/// The judgement shared by every language: `values` are the expressions returned on every path
/// (already without `NotImplemented`), `other` the argument that must be read, `constant` says
/// whether an expression is a constant.
fn judge(
    ast: &Ast,
    body: Node,
    values: &[Node],
    other: Option<&str>,
    constant: impl Fn(Node) -> bool,
) -> Option<Verdict> {
    if values.is_empty() {
        // Only raises or only defers: nothing is made equal.
        return None;
    }
    let first = ast.squashed(values[0]);
    if values
        .iter()
        .all(|v| ast.squashed(*v) == first && constant(*v))
    {
        return Some(Verdict::Constant(first));
    }
    match other {
        None => Some(Verdict::IgnoresArg("other".into())),
        Some(o) if o == "_" || !reads(ast, body, o) => Some(Verdict::IgnoresArg(o.to_owned())),
        Some(_) => None,
    }
}

/// Whether identifier `name` is read anywhere under `node`.
fn reads(ast: &Ast, node: Node, name: &str) -> bool {
    ast.all(node).into_iter().any(|n| {
        matches!(
            n.kind(),
            "identifier" | "shorthand_property_identifier" | "shorthand_field_identifier"
        ) && ast.text_of(n) == name
    })
}

/// Whether `node`'s subtree has a node of one of `kinds`, not descending into nested functions.
fn has_kind(ast: &Ast, node: Node, kinds: &[&str]) -> bool {
    ast.all(node).into_iter().any(|n| kinds.contains(&n.kind()))
}

fn is_nested_fn(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "class_definition"
            | "function_item"
            | "closure_expression"
            | "func_literal"
            | "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "class_declaration"
            | "class"
    )
}

/// `return` values under `body` (their first child), not counting those of nested functions.
fn returns<'t>(ast: &Ast, body: Node<'t>, ret_kind: &str) -> Vec<Node<'t>> {
    ast.walk(body, |n| n != body && is_nested_fn(n.kind()))
        .into_iter()
        .filter(|n| n.kind() == ret_kind)
        .filter_map(|n| n.named_child(0))
        .collect()
}

/// The name of the class (Python, JS/TS) enclosing `n`, or `""`.
fn enclosing_class<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> String {
    ix.ancestors(n)
        .into_iter()
        .find(|a| matches!(a.kind(), "class_definition" | "class_declaration" | "class"))
        .map_or_else(String::new, |c| ast.field_text(c, "name").to_owned())
}
