//! Java: `equals(Object o)`, `compareTo(T o)` and a comparator's `compare(a, b)` that answer a
//! constant (`return true;`, `return 0;`) or never read the value they are given: every
//! comparison then gives the same answer; and a `hashCode()` that answers a constant in a class
//! with fields of its own (every value hashes alike, so hash sets and maps tell values apart by
//! `equals` alone, whatever it compares).

use tree_sitter::Node;

use super::{is_nested_fn, judge};
use crate::rules::{Out, Prepared};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::diff::Hit;

/// The names of a method's formal parameters, in order.
fn params(ast: &Ast, method: Node) -> Vec<String> {
    method
        .child_by_field_name("parameters")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.kind() == "formal_parameter")
        .filter_map(|p| p.child_by_field_name("name"))
        .map(|n| ast.text_of(n).to_owned())
        .collect()
}

/// A value with no name in it: a literal answer (`true`, `0`, `-1`).
fn constant(ast: &Ast, n: Node) -> bool {
    !ast.all(n).into_iter().any(|c| c.kind() == "identifier")
}

/// The fields of each class's `equals(Object)` body reads, by class name: the instance fields
/// declared in the class whose names appear in the body.
fn equals_fields(ast: &Ast) -> Vec<(String, Node<'_>, std::collections::BTreeSet<String>)> {
    let mut out = Vec::new();
    for class in ast.all(ast.root()) {
        if !matches!(class.kind(), "class_declaration" | "record_declaration") {
            continue;
        }
        let Some(body) = class.child_by_field_name("body") else {
            continue;
        };
        let members = named_children(body);
        let fields: Vec<String> = members
            .iter()
            .filter(|f| f.kind() == "field_declaration")
            .flat_map(|f| named_children(*f))
            .filter(|d| d.kind() == "variable_declarator")
            .filter_map(|d| d.child_by_field_name("name"))
            .map(|n| ast.text_of(n).to_owned())
            .collect();
        let Some(eq) = members
            .iter()
            .find(|m| m.kind() == "method_declaration" && ast.field_text(**m, "name") == "equals")
        else {
            continue;
        };
        let read: std::collections::BTreeSet<String> = ast
            .all(*eq)
            .into_iter()
            .filter(|n| n.kind() == "identifier")
            .map(|n| ast.text_of(n).to_owned())
            .filter(|n| fields.contains(n))
            .collect();
        out.push((ast.field_text(class, "name").to_owned(), *eq, read));
    }
    out
}

/// An `equals` that compares fewer of its class's fields than at base, on a changed line: values
/// that differ in the dropped fields now compare equal.
pub(super) fn narrowed(p: &Prepared, base: &Ast, head: &Ast, out: &mut Out) {
    let before = equals_fields(base);
    for (class, eq, now) in equals_fields(head) {
        let Some((_, _, was)) = before.iter().find(|(c, _, _)| *c == class) else {
            continue;
        };
        let dropped: Vec<&String> = was.difference(&now).collect();
        let changed = (eq.start_position().row..=eq.end_position().row)
            .any(|r| p.added.contains(&u32::try_from(r + 1).unwrap_or(u32::MAX)));
        if dropped.is_empty() || !changed || !now.is_subset(was) {
            continue;
        }
        let names = dropped
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ");
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!(
                    "`{}`: {class}.equals no longer compares {names}, so values that differ there compare equal",
                    head.quote(eq)
                ),
            )
            .at_line(line(eq)),
        );
    }
}

/// What a method body returns, nested functions and lambdas left out.
fn returned<'t>(ast: &Ast, body: Node<'t>) -> Vec<Node<'t>> {
    ast.walk(body, |x| {
        x != body && (is_nested_fn(x.kind()) || x.kind() == "lambda_expression")
    })
    .into_iter()
    .filter(|x| x.kind() == "return_statement")
    .filter_map(|x| x.named_child(0))
    .collect()
}

/// A `hashCode()` whose every return is one literal, in a class that has instance fields.
fn constant_hash(ast: &Ast, method: Node) -> Option<Hit> {
    let body = method.child_by_field_name("body")?;
    let returns = returned(ast, body);
    let first = ast.squashed(*returns.first()?);
    if !returns
        .iter()
        .all(|r| constant(ast, *r) && ast.squashed(*r) == first)
    {
        return None;
    }
    let class = method.parent()?;
    let fields = named_children(class).into_iter().any(|f| {
        f.kind() == "field_declaration"
            && !named_children(f)
                .iter()
                .any(|m| m.kind() == "modifiers" && ast.text_of(*m).contains("static"))
    });
    fields.then(|| {
        Hit::new(
            line(method),
            "java:hashCode:constant".to_owned(),
            format!(
                "`{}`: hashCode answers {first} for every value, so hash sets and maps tell values apart by equals alone",
                ast.quote(method)
            ),
        )
    })
}

pub(super) fn java<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    lib: &dyn Fn(Node) -> bool,
    out: &mut Vec<Hit>,
) {
    for &n in ix.nodes() {
        if n.kind() != "method_declaration" || !lib(n) {
            continue;
        }
        let name = ast.field_text(n, "name");
        let ps = params(ast, n);
        if name == "hashCode" && ps.is_empty() {
            if let Some(hit) = constant_hash(ast, n) {
                out.push(hit);
            }
            continue;
        }
        // The value compared with: `equals(o)`/`compareTo(o)`'s argument, `compare(a, b)`'s second.
        let other = match (name, ps.len()) {
            ("equals" | "compareTo", 1) => ps.first(),
            ("compare", 2) => ps.get(1),
            _ => continue,
        };
        let Some(body) = n.child_by_field_name("body") else {
            continue;
        };
        let values = returned(ast, body);
        if let Some(v) = judge(ast, body, &values, other.map(String::as_str), |v| {
            constant(ast, v)
        }) {
            out.push(Hit::new(
                line(n),
                format!("java:{name}:{}", v.tag()),
                format!(
                    "`{}`: {name} {}, so every comparison gives the same answer",
                    ast.quote(n),
                    v.words()
                ),
            ));
        }
    }
}
