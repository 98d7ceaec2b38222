//! Go: `Equal`-style methods and functions, and `cmp` options that ignore or always equal.

use tree_sitter::Node;

use super::{GO_EQ, is_nested_fn, judge};
use crate::rules::Role;
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::diff::Hit;

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

pub(super) fn go<'t>(
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
