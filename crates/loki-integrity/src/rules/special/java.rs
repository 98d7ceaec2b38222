//! Java's spellings of a condition on a literal: the equality family (`s.equals("abc")`,
//! `"abc".equals(s)`, `Objects.equals(s, "abc")`, `equalsIgnoreCase`, `contentEquals`), membership
//! and lookup in a collection literal (`Set.of(..).contains(x)`, `Map.of(..).get(x)`, through
//! `new HashSet<>(..)` and `copyOf`), and `switch` arms (statements and expressions, `case L:` and
//! `case L ->`), each read as a [`Site`] for [`super::rules`].

use tree_sitter::Node;

use super::{Site, branch_bodies, is_literal, unparen};
use loki_syntax::ast::{Ast, Index, named_children};

/// Java's calls that compare or look up: the equality family with a literal on one side, and
/// membership or lookup in a collection literal.
pub(super) fn call_sites<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let Some(c) = loki_syntax::ast::call(ast, n) else {
        return;
    };
    match c.method {
        "equals" | "equalsIgnoreCase" | "contentEquals" | "deepEquals" => {
            let mut sides = c.args.clone();
            if let Some(o) = c.object.filter(|o| {
                !matches!(
                    ast.text_of(*o),
                    "Objects" | "Arrays" | "java.util.Objects" | "java.util.Arrays"
                )
            }) {
                sides.push(o);
            }
            let [a, b] = sides[..] else { return };
            for (lit, other) in [(a, b), (b, a)] {
                if is_literal(ast, lit) && !is_literal(ast, other) {
                    out.push(Site {
                        lit,
                        subject: Some(other),
                        bodies: branch_bodies(ix, n),
                    });
                }
            }
        }
        "contains" | "containsKey" | "indexOf" | "get" | "getOrDefault" => {
            let (Some(obj), Some(key)) = (c.object, c.args.first().copied()) else {
                return;
            };
            if is_literal(ast, key) {
                return;
            }
            let lookup = matches!(c.method, "get" | "getOrDefault");
            let obj = named(ast, ix, unparen(obj)).unwrap_or(unparen(obj));
            for (k, v) in crate::rules::values::java_entries(ast, obj) {
                if !is_literal(ast, k) {
                    continue;
                }
                let bodies = match v {
                    Some(v) if lookup => vec![v],
                    _ => branch_bodies(ix, n),
                };
                out.push(Site {
                    lit: k,
                    subject: Some(key),
                    bodies,
                });
            }
        }
        _ => {}
    }
}

/// The collection a name stands for: the value of the field or local declared with that name in
/// this file (`private static final List<String> TITLES = List.of(..)`), for `TITLES.indexOf(x)`.
fn named<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>) -> Option<Node<'t>> {
    if !matches!(n.kind(), "identifier" | "field_access") {
        return None;
    }
    let name = ast.text_of(n).rsplit('.').next().unwrap_or("");
    ix.nodes().iter().find_map(|d| {
        (d.kind() == "variable_declarator" && ast.field_text(*d, "name") == name)
            .then(|| d.child_by_field_name("value"))
            .flatten()
    })
}

/// A Java switch arm's case constants, with the statements (or, for `case L -> value;`, the
/// value) the arm selects.
pub(super) fn arm_sites<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let kids = named_children(n);
    let bodies: Vec<Node> = kids
        .iter()
        .filter(|k| k.kind() != "switch_label" && !k.kind().ends_with("comment"))
        .map(|b| match (n.kind(), b.kind()) {
            ("switch_rule", "expression_statement") => b.named_child(0).unwrap_or(*b),
            _ => *b,
        })
        .collect();
    let subject = ix
        .ancestors(n)
        .into_iter()
        .find(|a| matches!(a.kind(), "switch_expression" | "switch_statement"))
        .and_then(|s| s.child_by_field_name("condition"))
        .map(unparen);
    for label in kids.iter().filter(|k| k.kind() == "switch_label") {
        for lit in named_children(*label)
            .into_iter()
            .filter(|v| is_literal(ast, *v))
        {
            out.push(Site {
                lit,
                subject,
                bodies: bodies.clone(),
            });
        }
    }
}
