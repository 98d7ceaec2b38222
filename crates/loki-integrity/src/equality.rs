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

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::FindingKind;
use super::ast::{Ast, Grammar, Index, line, named_children};
use super::diff::Hit;
use super::source::{Out, Prepared, Role, View, attributes_of};

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

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
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

// ---------------------------------------------------------------------------------------- Python

/// Parameter names of a Python `parameters` / `lambda_parameters` node, splats included.
fn py_params(ast: &Ast, params: Option<Node>) -> Vec<String> {
    let Some(params) = params else {
        return Vec::new();
    };
    named_children(params)
        .into_iter()
        .filter_map(|p| match p.kind() {
            "identifier" => Some(ast.text_of(p).to_owned()),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => p
                .named_child(0)
                .filter(|c| c.kind() == "identifier")
                .map(|c| ast.text_of(c).to_owned()),
            "default_parameter" | "typed_default_parameter" => {
                Some(ast.field_text(p, "name").to_owned())
            }
            _ => None,
        })
        .collect()
}

fn py_constant(ast: &Ast, n: Node) -> bool {
    !ast.all(n).into_iter().any(|c| c.kind() == "identifier")
}

/// The verdict on a Python comparison function (`def` or `lambda`) taking `self, other`.
fn py_judge(ast: &Ast, f: Node) -> Option<Verdict> {
    let params = py_params(ast, f.child_by_field_name("parameters"));
    let body = f.child_by_field_name("body")?;
    let values: Vec<Node> = if f.kind() == "lambda" {
        vec![body]
    } else {
        returns(ast, body, "return_statement")
    };
    let values: Vec<Node> = values
        .into_iter()
        .filter(|v| ast.text_of(*v) != "NotImplemented")
        .collect();
    // A method's other argument is the second parameter, or a `*args` splat standing for both.
    let other = params.get(1).or(params.first().filter(|_| {
        f.child_by_field_name("parameters")
            .is_some_and(|p| has_kind(ast, p, &["list_splat_pattern"]))
    }));
    judge(ast, body, &values, other.map(String::as_str), |v| {
        py_constant(ast, v)
    })
}

fn enclosing_class<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> String {
    ix.ancestors(n)
        .into_iter()
        .find(|a| matches!(a.kind(), "class_definition" | "class_declaration" | "class"))
        .map_or_else(String::new, |c| ast.field_text(c, "name").to_owned())
}

/// Module-level and class-level `def`s by name, to resolve `__eq__ = helper`.
fn py_function_named<'t>(ast: &'t Ast, name: &str) -> Option<Node<'t>> {
    ast.all(ast.root())
        .into_iter()
        .find(|n| n.kind() == "function_definition" && ast.field_text(*n, "name") == name)
}

fn python<'t>(ast: &'t Ast, ix: &Index<'t>, lib: &dyn Fn(Node) -> bool, out: &mut Vec<Hit>) {
    let push = |out: &mut Vec<Hit>, at: Node, owner: String, name: &str, v: Verdict, ev: String| {
        let who = if owner.is_empty() {
            "the class".to_owned()
        } else {
            owner.clone()
        };
        out.push(Hit::new(
            line(at),
            format!("py:{owner}.{name}:{}", v.tag()),
            format!(
                "`{ev}`: {name} {}, so every comparison of {who} gives the same answer",
                v.words()
            ),
        ));
    };
    for &n in ix.nodes() {
        if !lib(n) {
            continue;
        }
        match n.kind() {
            "function_definition" => {
                let name = ast.field_text(n, "name");
                if PY_DUNDERS.contains(&name)
                    && let Some(v) = py_judge(ast, n)
                {
                    let ev = match &v {
                        // The signature and the constant it returns: the whole cheat in a line.
                        Verdict::Constant(c) => format!("{} return {c}", ast.quote(n)),
                        Verdict::IgnoresArg(_) => ast.quote(n),
                    };
                    push(out, n, enclosing_class(ast, ix, n), name, v, ev);
                }
            }
            "assignment" => {
                // `__eq__ = lambda ..`, `C.__eq__ = ..`, chained `__eq__ = __ne__ = ..`.
                let mut targets = Vec::new();
                let mut cur = Some(n);
                let mut value = None;
                while let Some(a) = cur.filter(|a| a.kind() == "assignment") {
                    if let Some(l) = a.child_by_field_name("left") {
                        targets.push(l);
                    }
                    value = a.child_by_field_name("right");
                    cur = value;
                }
                if ix.parent(n).is_some_and(|p| p.kind() == "assignment") {
                    continue;
                }
                let Some(value) = value else { continue };
                for t in targets {
                    let text = ast.text_of(t);
                    let name = text.rsplit('.').next().unwrap_or(text);
                    if !PY_DUNDERS.contains(&name) {
                        continue;
                    }
                    let owner = text
                        .rsplit_once('.')
                        .map_or_else(|| enclosing_class(ast, ix, n), |(o, _)| o.to_owned());
                    if let Some(v) = py_value_verdict(ast, value) {
                        push(out, n, owner, name, v, ast.quote(n));
                    }
                }
            }
            "call" if ast.field_text(n, "function") == "setattr" => {
                let args: Vec<Node> = n
                    .child_by_field_name("arguments")
                    .map(named_children)
                    .unwrap_or_default();
                if let [owner, attr, value] = args.as_slice()
                    && let Some(super::literals::Lit::Str(name)) =
                        super::literals::literal(ast, *attr)
                    && PY_DUNDERS.contains(&name.as_str())
                    && let Some(v) = py_value_verdict(ast, *value)
                {
                    push(
                        out,
                        n,
                        ast.text_of(*owner).to_owned(),
                        &name,
                        v,
                        ast.quote(n),
                    );
                }
            }
            "call" => {
                let f = ast.field_text(n, "function");
                let (flag, what) = match f {
                    "field" | "dataclasses.field" => ("compare", "False"),
                    "attr.ib" | "attr.attrib" | "attrib" | "attrs.field" | "attr.field" => {
                        ("eq", "False")
                    }
                    _ => continue,
                };
                let kwargs = n
                    .child_by_field_name("arguments")
                    .map(named_children)
                    .unwrap_or_default();
                let dropped = kwargs.iter().any(|k| {
                    k.kind() == "keyword_argument"
                        && (ast.field_text(*k, "name") == flag
                            || (flag == "eq" && ast.field_text(*k, "name") == "cmp"))
                        && ast.field_text(*k, "value") == what
                });
                if !dropped {
                    continue;
                }
                let stmt = ix
                    .ancestors(n)
                    .into_iter()
                    .find(|a| a.kind() == "assignment");
                let target = stmt.map_or("", |s| ast.field_text(s, "left"));
                let owner = enclosing_class(ast, ix, n);
                let quoted = stmt.map_or_else(|| ast.quote(n), |s| ast.quote(s));
                out.push(Hit::new(
                    line(n),
                    format!("py:{owner}.{target}:{}", ast.squashed(n)),
                    format!(
                        "`{quoted}` leaves `{target}` out of {}'s equality, so values that differ in it compare equal",
                        if owner.is_empty() { "the class" } else { &owner }
                    ),
                ));
            }
            _ => {}
        }
    }
}

/// The verdict on a value assigned to a comparison dunder: a lambda, or a function defined here.
fn py_value_verdict(ast: &Ast, value: Node) -> Option<Verdict> {
    match value.kind() {
        "lambda" => py_judge(ast, value),
        "identifier" => py_function_named(ast, ast.text_of(value)).and_then(|f| py_judge(ast, f)),
        _ => None,
    }
}

// ------------------------------------------------------------------------------------------ Rust

/// The expressions a Rust block evaluates to: its tail (through `if`/`match`/nested blocks) and
/// every `return`, not counting nested closures and functions.
fn rust_values<'t>(ast: &Ast, body: Node<'t>) -> Vec<Node<'t>> {
    let mut out = returns(ast, body, "return_expression");
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "block" => {
                let kids = named_children(n);
                if let Some(last) = kids.last() {
                    let is_tail = match last.kind() {
                        "expression_statement" => !ast.text_of(*last).trim_end().ends_with(';'),
                        "let_declaration" | "empty_statement" | "line_comment"
                        | "block_comment" => false,
                        k => !k.ends_with("_item"),
                    };
                    if is_tail {
                        stack.push(*last);
                    }
                }
            }
            "expression_statement" => stack.extend(n.named_child(0)),
            "if_expression" => {
                stack.extend(n.child_by_field_name("consequence"));
                // An `if` without `else` is `()`, not a value anyone compares.
                if let Some(alt) = n.child_by_field_name("alternative") {
                    stack.extend(alt.named_child(0));
                }
            }
            "match_expression" => {
                if let Some(b) = n.child_by_field_name("body") {
                    for arm in named_children(b) {
                        stack.extend(arm.child_by_field_name("value"));
                    }
                }
            }
            "else_clause" | "unsafe_block" | "parenthesized_expression" => {
                stack.extend(n.named_child(0));
            }
            "return_expression" => {}
            _ => out.push(n),
        }
    }
    out
}

/// No `self`, no plain variable: literals, paths (`Ordering::Equal`) and constructor calls.
fn rust_constant<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    !ast.all(n).into_iter().any(|c| match c.kind() {
        "self" => true,
        "identifier" => ix.parent(c).is_none_or(|p| {
            !matches!(
                p.kind(),
                "scoped_identifier" | "call_expression" | "macro_invocation"
            ) || (p.kind() == "call_expression" && p.child_by_field_name("function") != Some(c))
        }),
        _ => false,
    })
}

/// Named fields (or tuple positions) of the structs of a file, by name.
fn rust_struct_fields(ast: &Ast) -> Vec<(String, Vec<String>, Node<'_>)> {
    ast.all(ast.root())
        .into_iter()
        .filter(|n| n.kind() == "struct_item")
        .map(|s| {
            let name = ast.field_text(s, "name").to_owned();
            let fields = s
                .child_by_field_name("body")
                .map(|b| match b.kind() {
                    "field_declaration_list" => named_children(b)
                        .into_iter()
                        .filter(|f| f.kind() == "field_declaration")
                        .map(|f| ast.field_text(f, "name").to_owned())
                        .collect(),
                    _ => named_children(b)
                        .into_iter()
                        .filter(|f| !matches!(f.kind(), "attribute_item" | "visibility_modifier"))
                        .enumerate()
                        .map(|(i, _)| i.to_string())
                        .collect(),
                })
                .unwrap_or_default();
            (name, fields, s)
        })
        .collect()
}

fn derives<'t>(ast: &Ast, ix: &Index<'t>, item: Node<'t>, what: &str) -> bool {
    attributes_of(ix, item).iter().any(|a| {
        let t: String = ast
            .text_of(*a)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        t.starts_with("#[derive(")
            && t.trim_start_matches("#[derive(")
                .trim_end_matches(")]")
                .split(',')
                .any(|d| d.rsplit("::").next() == Some(what))
    })
}

/// `base_derived`: the structs that derived `PartialEq` at base, whose manual impl at head must
/// compare every field.
fn rust<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    lib: &dyn Fn(Node) -> bool,
    base_derived: &BTreeSet<String>,
    out: &mut Vec<Hit>,
) {
    let structs = rust_struct_fields(ast);
    for &n in ix.nodes() {
        if !lib(n) {
            continue;
        }
        match n.kind() {
            "impl_item" => {
                let tr = ast.field_text(n, "trait");
                let tr_name = tr
                    .split('<')
                    .next()
                    .unwrap_or("")
                    .rsplit("::")
                    .next()
                    .unwrap_or("");
                if !RUST_CMP_TRAITS.contains(&tr_name) {
                    continue;
                }
                let ty = ast.field_text(n, "type");
                let ty_name = ty.split('<').next().unwrap_or(ty).trim().to_owned();
                let known = structs.iter().find(|(s, _, _)| *s == ty_name);
                if known.is_some_and(|(_, f, _)| f.is_empty()) {
                    // A unit struct: every value is equal to every other, honestly.
                    continue;
                }
                let Some(body) = n.child_by_field_name("body") else {
                    continue;
                };
                for f in named_children(body) {
                    if f.kind() != "function_item" {
                        continue;
                    }
                    let fname = ast.field_text(f, "name");
                    if !RUST_CMP_FNS.contains(&fname) {
                        continue;
                    }
                    let Some(fbody) = f.child_by_field_name("body") else {
                        continue;
                    };
                    let other = f
                        .child_by_field_name("parameters")
                        .map(named_children)
                        .unwrap_or_default()
                        .into_iter()
                        .find(|p| p.kind() == "parameter")
                        .map(|p| ast.field_text(p, "pattern").to_owned());
                    let other = other.map(|o| {
                        if o.starts_with('_') {
                            "_".to_owned()
                        } else {
                            o
                        }
                    });
                    let values = rust_values(ast, fbody);
                    if let Some(v) = judge(ast, fbody, &values, other.as_deref(), |v| {
                        rust_constant(ast, ix, v)
                    }) {
                        out.push(Hit::new(
                            line(f),
                            format!("rs:{ty_name}::{fname}:{}", v.tag()),
                            format!(
                                "`{}` in `impl {tr} for {ty}`: {fname} {}, so every comparison of {ty_name} gives the same answer",
                                ast.quote(f),
                                v.words()
                            ),
                        ));
                        continue;
                    }
                    // Fewer fields compared than the struct has (best effort: names mentioned).
                    if fname == "eq"
                        && let Some((_, fields, s)) = known
                        && base_derived.contains(&ty_name)
                        && !derives(ast, ix, *s, "PartialEq")
                    {
                        let mentioned: Vec<&String> = fields
                            .iter()
                            .filter(|fld| {
                                ast.all(fbody).into_iter().any(|c| {
                                    let field = match c.kind() {
                                        "field_identifier" | "shorthand_field_identifier" => true,
                                        // `self.0`: a tuple position, not the number 0.
                                        "integer_literal" => ix
                                            .parent(c)
                                            .is_some_and(|p| p.kind() == "field_expression"),
                                        _ => false,
                                    };
                                    field && ast.text_of(c) == fld.as_str()
                                })
                            })
                            .collect();
                        if mentioned.len() < fields.len() {
                            let missing: Vec<&str> = fields
                                .iter()
                                .filter(|f| !mentioned.contains(f))
                                .map(String::as_str)
                                .collect();
                            out.push(Hit::new(
                                line(f),
                                format!("rs:{ty_name}::eq:fields:{}", missing.join(",")),
                                format!(
                                    "`impl {tr} for {ty}` compares {} of {ty_name}'s {} fields (not {})",
                                    mentioned.len(),
                                    fields.len(),
                                    missing.join(", ")
                                ),
                            ));
                        }
                    }
                }
            }
            "attribute_item" => {
                let t: String = ast
                    .text_of(n)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let drops = (t.starts_with("#[derivative(")
                    && t.contains("PartialEq")
                    && t.contains("ignore"))
                    || (t.starts_with("#[educe(")
                        && (t.contains("PartialEq(ignore") || t.contains("Eq(ignore")));
                if !drops {
                    continue;
                }
                let field =
                    super::source::attributed_item(ix, n).map_or("", |f| ast.field_text(f, "name"));
                let owner = ix
                    .ancestors(n)
                    .into_iter()
                    .find(|a| matches!(a.kind(), "struct_item" | "enum_item"))
                    .map_or("", |s| ast.field_text(s, "name"));
                out.push(Hit::new(
                    line(n),
                    format!("rs:{owner}.{field}:{t}"),
                    format!(
                        "`{}` leaves `{field}` out of {owner}'s equality, so values that differ in it compare equal",
                        ast.quote(n)
                    ),
                ));
            }
            _ => {}
        }
    }
}

/// Structs that derive `PartialEq` in a file.
fn derived_partial_eq(ast: &Ast) -> BTreeSet<String> {
    let ix = Index::new(ast.root());
    rust_struct_fields(ast)
        .into_iter()
        .filter(|(_, _, s)| derives(ast, &ix, *s, "PartialEq"))
        .map(|(n, _, _)| n)
        .collect()
}

// -------------------------------------------------------------------------------------------- Go

fn go_params(ast: &Ast, params: Option<Node>) -> Vec<String> {
    params
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.kind() == "parameter_declaration")
        .flat_map(|p| {
            named_children(p)
                .into_iter()
                .filter(|c| c.kind() == "identifier")
                .map(|c| ast.text_of(c).to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn go_constant(ast: &Ast, n: Node) -> bool {
    !ast.all(n).into_iter().any(|c| c.kind() == "identifier")
}

fn go_values<'t>(ast: &Ast, body: Node<'t>) -> Vec<Node<'t>> {
    ast.walk(body, |n| n != body && is_nested_fn(n.kind()))
        .into_iter()
        .filter(|n| n.kind() == "return_statement")
        .filter_map(|n| n.named_child(0))
        .collect()
}

fn go<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    role: Role,
    existed: bool,
    lib: &dyn Fn(Node) -> bool,
    out: &mut Vec<Hit>,
) {
    for &n in ix.nodes() {
        match n.kind() {
            "method_declaration" | "function_declaration" if lib(n) => {
                let name = ast.field_text(n, "name");
                if !GO_EQ.contains(&name) {
                    continue;
                }
                let params = go_params(ast, n.child_by_field_name("parameters"));
                let other = if n.kind() == "method_declaration" {
                    params.first()
                } else {
                    params.get(1)
                };
                let Some(body) = n.child_by_field_name("body") else {
                    continue;
                };
                let values = go_values(ast, body);
                if let Some(v) = judge(ast, body, &values, other.map(String::as_str), |v| {
                    go_constant(ast, v)
                }) {
                    let recv = ast.field_text(n, "receiver");
                    out.push(Hit::new(
                        line(n),
                        format!("go:{recv}.{name}:{}", v.tag()),
                        format!(
                            "`{}`: {name} {}, so every comparison gives the same answer",
                            ast.quote(n),
                            v.words()
                        ),
                    ));
                }
            }
            "call_expression" if role != Role::Tooling && existed => {
                let f = ast.field_text(n, "function");
                let ignores = matches!(
                    f,
                    "cmpopts.IgnoreFields"
                        | "cmpopts.IgnoreUnexported"
                        | "cmpopts.IgnoreTypes"
                        | "cmpopts.IgnoreInterfaces"
                        | "cmpopts.IgnoreMapEntries"
                        | "cmpopts.IgnoreSliceElements"
                        | "cmp.Ignore"
                );
                let always = f == "cmp.Comparer"
                    && n.child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .filter(|l| l.kind() == "func_literal")
                        .and_then(|l| l.child_by_field_name("body"))
                        .is_some_and(|b| {
                            let vals = go_values(ast, b);
                            !vals.is_empty() && vals.iter().all(|v| ast.text_of(*v) == "true")
                        });
                if ignores || always {
                    let what = if always {
                        "a comparer that always reports equal"
                    } else {
                        "an option that leaves fields out of the comparison"
                    };
                    out.push(Hit::new(
                        line(n),
                        format!("go:cmp:{}", ast.squashed(n)),
                        format!("`{}` adds {what}", ast.quote(n)),
                    ));
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------- JS/TS

fn js_params(ast: &Ast, f: Node) -> Vec<String> {
    if let Some(p) = f.child_by_field_name("parameter") {
        return vec![ast.text_of(p).to_owned()];
    }
    f.child_by_field_name("parameters")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| {
            let target = match p.kind() {
                "required_parameter" | "optional_parameter" => p.child_by_field_name("pattern")?,
                "assignment_pattern" => p.child_by_field_name("left")?,
                "rest_pattern" => p.named_child(0)?,
                "identifier" => p,
                _ => return None,
            };
            Some(ast.text_of(target).to_owned())
        })
        .collect()
}

fn js_constant(ast: &Ast, n: Node) -> bool {
    !ast.all(n).into_iter().any(|c| {
        matches!(
            c.kind(),
            "identifier" | "this" | "shorthand_property_identifier"
        )
    })
}

fn unparen(n: Node) -> Node {
    let mut n = n;
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// What a JS function returns: its `return`s, or an arrow's expression body.
fn js_values<'t>(ast: &Ast, f: Node<'t>) -> Option<(Node<'t>, Vec<Node<'t>>)> {
    let body = f.child_by_field_name("body")?;
    if body.kind() == "statement_block" {
        Some((body, returns(ast, body, "return_statement")))
    } else {
        Some((body, vec![unparen(body)]))
    }
}

fn is_js_fn(kind: &str) -> bool {
    matches!(
        kind,
        "function_expression"
            | "function"
            | "arrow_function"
            | "method_definition"
            | "function_declaration"
    )
}

fn js<'t>(ast: &'t Ast, ix: &Index<'t>, lib: &dyn Fn(Node) -> bool, out: &mut Vec<Hit>) {
    for &n in ix.nodes() {
        // (name, the function, whether it is a method whose first argument is the other value)
        let candidate: Option<(String, Node, bool)> = match n.kind() {
            "method_definition" => Some((ast.field_text(n, "name").to_owned(), n, true)),
            "pair" => n
                .child_by_field_name("value")
                .filter(|v| is_js_fn(v.kind()))
                .map(|v| (ast.field_text(n, "key").to_owned(), v, true)),
            "public_field_definition" | "field_definition" => n
                .child_by_field_name("value")
                .filter(|v| is_js_fn(v.kind()))
                .map(|v| {
                    let name = n
                        .child_by_field_name("name")
                        .or_else(|| n.child_by_field_name("property"))
                        .map_or("", |c| ast.text_of(c));
                    (name.to_owned(), v, true)
                }),
            "assignment_expression" => n
                .child_by_field_name("right")
                .filter(|v| is_js_fn(v.kind()))
                .and_then(|v| {
                    let left = n.child_by_field_name("left")?;
                    (left.kind() == "member_expression")
                        .then(|| (ast.field_text(left, "property").to_owned(), v, true))
                }),
            "function_declaration" => Some((ast.field_text(n, "name").to_owned(), n, false)),
            "variable_declarator" => n
                .child_by_field_name("value")
                .filter(|v| is_js_fn(v.kind()))
                .map(|v| (ast.field_text(n, "name").to_owned(), v, false)),
            _ => None,
        };
        if let Some((name, f, method)) = candidate
            && lib(n)
            && JS_EQ.contains(&name.as_str())
            && !in_expect_extend(ast, ix, n)
            && let Some((body, values)) = js_values(ast, f)
        {
            let params = js_params(ast, f);
            let other = if method {
                params.first()
            } else {
                params.get(1)
            };
            if let Some(v) = judge(ast, body, &values, other.map(String::as_str), |v| {
                js_constant(ast, v)
            }) {
                out.push(Hit::new(
                    line(n),
                    format!("js:{}.{name}:{}", enclosing_class(ast, ix, n), v.tag()),
                    format!(
                        "`{}`: {name} {}, so every comparison gives the same answer",
                        ast.quote(n),
                        v.words()
                    ),
                ));
            }
        }
        if n.kind() == "call_expression" && ast.field_text(n, "function") == "expect.extend" {
            matchers(ast, n, out);
        }
    }
}

fn in_expect_extend<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    ix.ancestors(n)
        .into_iter()
        .any(|a| a.kind() == "call_expression" && ast.field_text(a, "function") == "expect.extend")
}

/// `expect.extend({..})`: redefined built-ins and matchers that always pass.
fn matchers(ast: &Ast, call: Node, out: &mut Vec<Hit>) {
    let Some(obj) = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .map(unparen)
        .filter(|o| o.kind() == "object")
    else {
        return;
    };
    for prop in named_children(obj) {
        let (name, f) = match prop.kind() {
            "method_definition" => (ast.field_text(prop, "name"), Some(prop)),
            "pair" => (
                ast.field_text(prop, "key"),
                prop.child_by_field_name("value")
                    .filter(|v| is_js_fn(v.kind())),
            ),
            "shorthand_property_identifier" => (ast.text_of(prop), None),
            _ => continue,
        };
        let name = name.trim_matches(|c| c == '"' || c == '\'');
        let detail = if BUILTIN_MATCHERS.contains(&name) {
            Some(format!(
                "`{}` redefines the built-in matcher {name}, so every `expect(..).{name}(..)` checks something else",
                ast.quote(prop)
            ))
        } else {
            f.and_then(|f| js_values(ast, f)).and_then(|(_, values)| {
                let always = !values.is_empty()
                    && values.iter().all(|v| {
                        let v = unparen(*v);
                        v.kind() == "object"
                            && named_children(v).iter().any(|p| {
                                p.kind() == "pair"
                                    && ast.field_text(*p, "key") == "pass"
                                    && ast.field_text(*p, "value") == "true"
                            })
                    });
                always.then(|| {
                    format!(
                        "`{}`: the matcher {name} always returns `pass: true`",
                        ast.quote(prop)
                    )
                })
            })
        };
        if let Some(d) = detail {
            out.push(Hit::new(
                line(prop),
                format!("js:matcher:{name}:{}", ast.squashed(prop)),
                d,
            ));
        }
    }
}
