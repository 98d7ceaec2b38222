//! Rust: `impl PartialEq`/`PartialOrd`/`Ord` methods, `derivative`/`educe` attributes, and a
//! derived `PartialEq` replaced by a manual impl comparing fewer fields.

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::{RUST_CMP_FNS, RUST_CMP_TRAITS, judge, returns};
use crate::rules::attributes_of;
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::diff::Hit;

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
fn rust_struct_fields(ast: &Ast) -> Vec<Struct<'_>> {
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

/// A struct's name, its named fields (or tuple positions) and its item.
type Struct<'t> = (String, Vec<String>, Node<'t>);

/// `base_derived`: the structs that derived `PartialEq` at base, whose manual impl at head must
/// compare every field.
pub(super) fn rust<'t>(
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
            "impl_item" => comparison_impl(ast, ix, n, &structs, base_derived, out),
            "attribute_item" => out.extend(field_left_out_by_attribute(ast, ix, n)),
            _ => {}
        }
    }
}

/// An `impl PartialEq/PartialOrd/Ord for T` whose methods answer the same for every pair, or
/// whose `eq` compares fewer fields than `T` has when `T` derived `PartialEq` at base.
fn comparison_impl<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    n: Node<'t>,
    structs: &[Struct<'t>],
    base_derived: &BTreeSet<String>,
    out: &mut Vec<Hit>,
) {
    let tr = ast.field_text(n, "trait");
    let tr_name = tr
        .split('<')
        .next()
        .unwrap_or("")
        .rsplit("::")
        .next()
        .unwrap_or("");
    if !RUST_CMP_TRAITS.contains(&tr_name) {
        return;
    }
    let ty = ast.field_text(n, "type");
    let ty_name = ty.split('<').next().unwrap_or(ty).trim().to_owned();
    let known = structs.iter().find(|(s, _, _)| *s == ty_name);
    if known.is_some_and(|(_, f, _)| f.is_empty()) {
        // A unit struct: every value is equal to every other, honestly.
        return;
    }
    let Some(body) = n.child_by_field_name("body") else {
        return;
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
        let values = rust_values(ast, fbody);
        if let Some(v) = judge(
            ast,
            fbody,
            &values,
            other_parameter(ast, f).as_deref(),
            |v| rust_constant(ast, ix, v),
        ) {
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
            let mentioned = fields_mentioned(ast, ix, fbody, fields);
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

/// The name a comparison method gives the other value (`other`), `_` when it is unused.
fn other_parameter(ast: &Ast, f: Node) -> Option<String> {
    let other = f
        .child_by_field_name("parameters")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.kind() == "parameter")
        .map(|p| ast.field_text(p, "pattern").to_owned());
    other.map(|o| {
        if o.starts_with('_') {
            "_".to_owned()
        } else {
            o
        }
    })
}

/// The fields a method body names (`self.x`, `Self { x, .. }`, `self.0`).
fn fields_mentioned<'f, 't>(
    ast: &Ast,
    ix: &Index<'t>,
    body: Node<'t>,
    fields: &'f [String],
) -> Vec<&'f String> {
    fields
        .iter()
        .filter(|fld| {
            ast.all(body).into_iter().any(|c| {
                let field = match c.kind() {
                    "field_identifier" | "shorthand_field_identifier" => true,
                    // `self.0`: a tuple position, not the number 0.
                    "integer_literal" => {
                        ix.parent(c).is_some_and(|p| p.kind() == "field_expression")
                    }
                    _ => false,
                };
                field && ast.text_of(c) == fld.as_str()
            })
        })
        .collect()
}

/// A `derivative`/`educe` attribute that leaves a field out of the type's equality.
fn field_left_out_by_attribute<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<Hit> {
    let t: String = ast
        .text_of(n)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let drops = (t.starts_with("#[derivative(") && t.contains("PartialEq") && t.contains("ignore"))
        || (t.starts_with("#[educe(")
            && (t.contains("PartialEq(ignore") || t.contains("Eq(ignore")));
    if !drops {
        return None;
    }
    let field = crate::rules::attributed_item(ix, n).map_or("", |f| ast.field_text(f, "name"));
    let owner = ix
        .ancestors(n)
        .into_iter()
        .find(|a| matches!(a.kind(), "struct_item" | "enum_item"))
        .map_or("", |s| ast.field_text(s, "name"));
    Some(Hit::new(
        line(n),
        format!("rs:{owner}.{field}:{t}"),
        format!(
            "`{}` leaves `{field}` out of {owner}'s equality, so values that differ in it compare equal",
            ast.quote(n)
        ),
    ))
}

/// Structs that derive `PartialEq` in a file.
pub(super) fn derived_partial_eq(ast: &Ast) -> BTreeSet<String> {
    let ix = Index::new(ast.root());
    rust_struct_fields(ast)
        .into_iter()
        .filter(|(_, _, s)| derives(ast, &ix, *s, "PartialEq"))
        .map(|(n, _, _)| n)
        .collect()
}
