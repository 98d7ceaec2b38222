//! Where a special case can sit, per grammar: the branches, lookups and tables whose keys are
//! literals ([`sites`]), read by the special-case rule and the domain-mapping exemption.

use super::*;

pub(super) fn sites<'t>(ast: &'t Ast, ix: &Index<'t>) -> Vec<Site<'t>> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        match n.kind() {
            "comparison_operator" | "binary_expression" => comparison(ast, ix, n, &mut out),
            // Python `case "a" | 42:`; Rust `"a" | 42 =>`.
            "case_clause" | "match_arm" => match_arm(ast, ix, n, &mut out),
            // Go `case "a", "b":`; JS `case "a":`.
            "expression_case" | "switch_case" => switch_case(ast, ix, n, &mut out),
            // Java: `s.equals("abc")`, `"abc".equals(s)`, `Objects.equals(s, "abc")`,
            // `Set.of("a").contains(x)`, `Map.of("a", 1).get(x)`.
            "method_invocation" => java::call_sites(ast, ix, n, &mut out),
            // Java `case "a", "b": return ..;` and `case 3 -> 6;` (statement or expression).
            "switch_block_statement_group" | "switch_rule" => java::arm_sites(ast, ix, n, &mut out),
            // `{"a": 1}[x]`, `{"a": 1}.get(x)`, `map[string]int{"a": 1}[x]`, `({a: 1})[x]`.
            "subscript" | "subscript_expression" | "index_expression" | "call" => {
                lookup(ast, n, &mut out);
            }
            // `["a", "b"].includes(x)`, `new Set(["a"]).has(x)`.
            "call_expression" if ast.grammar.is_js() => membership(ast, ix, n, &mut out),
            _ => {}
        }
    }
    out
}

/// `x == "a"`, `"a" != x`, `x is None`, `x in ("a", "b")`: the literal compared with a value.
fn comparison<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let op = operator(ast, n);
    let kids = named_children(n);
    let [l, r] = kids.as_slice() else { return };
    let (l, r) = (*l, *r);
    match op.as_str() {
        "==" | "!=" | "===" | "!==" | "is" | "is not" => {
            for (lit, other) in [(l, r), (r, l)] {
                if is_literal(ast, lit) && !is_literal(ast, other) {
                    out.push(Site {
                        lit,
                        subject: Some(other),
                        bodies: branch_bodies(ix, n),
                    });
                }
            }
        }
        "in" | "not in" => {
            for lit in collection(r) {
                if is_literal(ast, lit) {
                    out.push(Site {
                        lit,
                        subject: Some(l),
                        bodies: branch_bodies(ix, n),
                    });
                }
            }
        }
        _ => {}
    }
}

/// A match arm's literal patterns (not its guard), with the matched value as the subject.
fn match_arm<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let pattern = if n.kind() == "match_arm" {
        n.child_by_field_name("pattern")
    } else {
        named_children(n)
            .into_iter()
            .find(|c| c.kind() == "case_pattern")
    };
    let body = n.child_by_field_name(if n.kind() == "match_arm" {
        "value"
    } else {
        "consequence"
    });
    let subject = ix
        .ancestors(n)
        .into_iter()
        .find(|a| matches!(a.kind(), "match_statement" | "match_expression"))
        .and_then(|m| {
            m.child_by_field_name("subject")
                .or_else(|| m.child_by_field_name("value"))
        });
    if let Some(pattern) = pattern {
        // A guard's comparisons are binary expressions, judged above.
        let guard = pattern.child_by_field_name("condition");
        for lit in literals_under(ast, ix, pattern) {
            if guard.is_some_and(|g| g.start_byte() <= lit.start_byte()) {
                continue;
            }
            out.push(Site {
                lit,
                subject,
                bodies: body.into_iter().collect(),
            });
        }
    }
}

/// A switch case's literal values, with the switch's value as the subject.
fn switch_case<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let Some(value) = n.child_by_field_name("value") else {
        return;
    };
    let values = if value.kind() == "expression_list" {
        named_children(value)
    } else {
        vec![value]
    };
    let bodies: Vec<Node> = named_children(n)
        .into_iter()
        .filter(|c| *c != value)
        .collect();
    let subject = ix
        .parent(n)
        .and_then(|p| {
            if p.kind() == "switch_body" {
                ix.parent(p)
            } else {
                Some(p)
            }
        })
        .and_then(|s| s.child_by_field_name("value"));
    for lit in values.into_iter().filter(|v| is_literal(ast, *v)) {
        out.push(Site {
            lit,
            subject,
            bodies: bodies.clone(),
        });
    }
}

/// A literal table looked up by a value that is not a literal: each key is a site.
fn lookup<'t>(ast: &'t Ast, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let (table, key) = match n.kind() {
        "subscript" => (
            n.child_by_field_name("value"),
            n.child_by_field_name("subscript"),
        ),
        "subscript_expression" => (
            n.child_by_field_name("object"),
            n.child_by_field_name("index"),
        ),
        "index_expression" => (
            n.child_by_field_name("operand"),
            n.child_by_field_name("index"),
        ),
        _ => {
            let f = n.child_by_field_name("function");
            let get =
                f.filter(|f| f.kind() == "attribute" && ast.field_text(*f, "attribute") == "get");
            (
                get.and_then(|f| f.child_by_field_name("object")),
                n.child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0)),
            )
        }
    };
    let (Some(table), Some(key)) = (table.map(unparen), key) else {
        return;
    };
    if is_literal(ast, key) {
        return;
    }
    for (k, v) in table_entries(table) {
        out.push(Site {
            lit: k,
            subject: Some(key),
            bodies: vec![v],
        });
    }
}

/// A JS collection of literals asked whether it holds a value (`includes`, `has`, `indexOf`).
fn membership<'t>(ast: &'t Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Site<'t>>) {
    let Some(f) = n
        .child_by_field_name("function")
        .filter(|f| f.kind() == "member_expression")
    else {
        return;
    };
    if !matches!(
        ast.field_text(f, "property"),
        "includes" | "has" | "indexOf"
    ) {
        return;
    }
    let Some(obj) = f.child_by_field_name("object").map(unparen) else {
        return;
    };
    let elems = if obj.kind() == "new_expression" {
        obj.child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
            .map(collection)
            .unwrap_or_default()
    } else {
        collection(obj)
    };
    let subject = n
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0));
    for lit in elems.into_iter().filter(|e| is_literal(ast, *e)) {
        out.push(Site {
            lit,
            subject,
            bodies: branch_bodies(ix, n),
        });
    }
}

/// `(key, value)` of a literal dict/map/object with literal keys.
fn table_entries(table: Node) -> Vec<(Node, Node)> {
    let pairs: Vec<Node> = match table.kind() {
        "dictionary" | "object" => named_children(table)
            .into_iter()
            .filter(|p| p.kind() == "pair")
            .collect(),
        "composite_literal" => table
            .child_by_field_name("body")
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|p| p.kind() == "keyed_element")
            .collect(),
        _ => Vec::new(),
    };
    pairs
        .into_iter()
        .filter_map(|p| {
            let k = p.child_by_field_name("key")?;
            let v = p.child_by_field_name("value")?;
            // Go wraps both in literal_element.
            let k = if k.kind() == "literal_element" {
                k.named_child(0)?
            } else {
                k
            };
            Some((k, v))
        })
        .collect()
}
