//! Rule 4 of steering: a parameter compared with the literal a test passes in its place, and
//! how a value is traced back to a parameter (directly or through locals derived from it).

use super::*;

/// Rule 4: `param == L` in a function `f` when a test calls `f` with `L` in that parameter's
/// place: the code answers the test's input, not the kind of input (a distinctive `L` the base's
/// file did not have; `self`/`cls` and Go receivers are not positions).
pub(super) fn parameter_special_cases<'t, 'g>(
    ast: &'t Ast,
    ix: &Index<'t>,
    calls: &'g TestCalls,
    base: &LiteralSet,
) -> Vec<(Node<'t>, String, &'g Group)> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        if !matches!(n.kind(), "comparison_operator" | "binary_expression") {
            continue;
        }
        if !matches!(operator(ast, n).as_str(), "==" | "===" | "is") {
            continue;
        }
        let kids = named_children(n);
        let [a, b] = kids.as_slice() else { continue };
        let (lit, subject) = match (value(ast, *a), value(ast, *b)) {
            (Some(Val::Leaf(l)), None) => (l, *b),
            (None, Some(Val::Leaf(l))) => (l, *a),
            _ => continue,
        };
        // A mode or a kind (`"strict"`, `404`) is a kind of input; an input is data.
        let data_like = match &lit {
            Lit::Str(s) => s.chars().count() >= 3 && !loki_syntax::literals::keyword_like(s),
            Lit::Num(n) => n.contains('.') || n.chars().filter(char::is_ascii_digit).count() >= 3,
        };
        if !data_like || !distinctive(&lit) || !more_than_boundary(&lit) || base.contains(&lit) {
            continue;
        }
        if !matches!(subject.kind(), "identifier") {
            continue;
        }
        let Some((f, pos)) = parameter_of(ast, ix, n, ast.text_of(subject)) else {
            continue;
        };
        let want = Val::Leaf(lit.clone());
        let hit = calls.groups.iter().find(|g| {
            g.calls.iter().any(|(name, args)| {
                *name == f && args.get(pos).is_some_and(|v| v.as_ref() == Some(&want))
            })
        });
        if let Some(g) = hit {
            out.push((
                n,
                format!(
                    "special-cases {}, the input a test passes to `{f}`",
                    lit.show()
                ),
                g,
            ));
        }
    }
    out
}

/// The enclosing function's name and the position of its parameter `name` (receivers and
/// `self`/`cls` not counted).
/// Whether `name` is a local of the function around `n` computed from one of its parameters
/// (`const iso = date.toISOString().slice(0, 10)`): the input, reshaped.
pub(super) fn derived_from_parameter(ast: &Ast, ix: &Index<'_>, n: Node, name: &str) -> bool {
    let Some(f) = ix.ancestors(n).into_iter().find(|a| is_function(a.kind())) else {
        return false;
    };
    ast.all(f).into_iter().any(|d| {
        let (lhs, rhs) = match d.kind() {
            "variable_declarator" => (
                d.child_by_field_name("name"),
                d.child_by_field_name("value"),
            ),
            "assignment" | "assignment_expression" | "short_var_declaration" => (
                d.child_by_field_name("left"),
                d.child_by_field_name("right"),
            ),
            "let_declaration" => (
                d.child_by_field_name("pattern"),
                d.child_by_field_name("value"),
            ),
            _ => return false,
        };
        let (Some(lhs), Some(rhs)) = (lhs, rhs) else {
            return false;
        };
        ast.text_of(lhs).trim() == name
            && ast.all(rhs).into_iter().any(|i| {
                i.kind() == "identifier" && parameter_of(ast, ix, n, ast.text_of(i)).is_some()
            })
    })
}

pub(super) fn parameter_of(
    ast: &Ast,
    ix: &Index<'_>,
    n: Node,
    name: &str,
) -> Option<(String, usize)> {
    let f = ix
        .ancestors(n)
        .into_iter()
        .find(|a| is_function(a.kind()))?;
    let fname = ast.text_of(f.child_by_field_name("name")?).to_owned();
    let params = f.child_by_field_name("parameters")?;
    let mut names: Vec<String> = Vec::new();
    for p in named_children(params) {
        let ids: Vec<Node> = match p.kind() {
            "identifier" => vec![p],
            "parameter_declaration" => named_children(p)
                .into_iter()
                .filter(|c| c.kind() == "identifier")
                .collect(),
            _ => ast
                .all(p)
                .into_iter()
                .filter(|c| c.kind() == "identifier")
                .take(1)
                .collect(),
        };
        names.extend(ids.into_iter().map(|i| ast.text_of(i).to_owned()));
    }
    names.retain(|n| n != "self" && n != "cls");
    let pos = names.iter().position(|x| x == name)?;
    Some((fname, pos))
}
