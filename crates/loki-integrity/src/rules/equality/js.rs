//! JS/TS: `equals`-style methods, properties, prototype assignments and functions, and
//! `expect.extend` matchers.

use tree_sitter::Node;

use super::{BUILTIN_MATCHERS, JS_EQ, enclosing_class, judge, returns};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::diff::Hit;

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

pub(super) fn js<'t>(ast: &'t Ast, ix: &Index<'t>, lib: &dyn Fn(Node) -> bool, out: &mut Vec<Hit>) {
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
