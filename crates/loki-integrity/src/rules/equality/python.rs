//! Python: comparison dunders (by `def`, assignment, on the class, through `setattr`) and
//! dataclass/attrs fields dropped from comparison.

use tree_sitter::Node;

use super::{PY_DUNDERS, Verdict, enclosing_class, has_kind, judge, returns};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::diff::Hit;

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

/// Module-level and class-level `def`s by name, to resolve `__eq__ = helper`.
fn py_function_named<'t>(ast: &'t Ast, name: &str) -> Option<Node<'t>> {
    ast.all(ast.root())
        .into_iter()
        .find(|n| n.kind() == "function_definition" && ast.field_text(*n, "name") == name)
}

pub(super) fn python<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    lib: &dyn Fn(Node) -> bool,
    out: &mut Vec<Hit>,
) {
    for &n in ix.nodes() {
        if !lib(n) {
            continue;
        }
        match n.kind() {
            "function_definition" => out.extend(defined_dunder(ast, ix, n)),
            "assignment" => assigned_dunders(ast, ix, n, out),
            "call" if ast.field_text(n, "function") == "setattr" => {
                out.extend(setattr_dunder(ast, n));
            }
            "call" => out.extend(field_left_out(ast, ix, n)),
            _ => {}
        }
    }
}

/// A comparison dunder of `owner` (empty: the class) that answers the same for every pair;
/// `ev` is the code that shows it.
fn dunder_hit(at: Node, owner: &str, name: &str, v: &Verdict, ev: &str) -> Hit {
    let who = if owner.is_empty() { "the class" } else { owner };
    Hit::new(
        line(at),
        format!("py:{owner}.{name}:{}", v.tag()),
        format!(
            "`{ev}`: {name} {}, so every comparison of {who} gives the same answer",
            v.words()
        ),
    )
}

/// `def __eq__(self, other): return True`.
fn defined_dunder<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<Hit> {
    let name = ast.field_text(n, "name");
    if !PY_DUNDERS.contains(&name) {
        return None;
    }
    let v = py_judge(ast, n)?;
    let ev = match &v {
        // The signature and the constant it returns: the whole cheat in a line.
        Verdict::Constant(c) => format!("{} return {c}", ast.quote(n)),
        Verdict::IgnoresArg(_) => ast.quote(n),
    };
    Some(dunder_hit(n, &enclosing_class(ast, ix, n), name, &v, &ev))
}

/// `__eq__ = lambda ..`, `C.__eq__ = ..`, chained `__eq__ = __ne__ = ..`.
fn assigned_dunders<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>, out: &mut Vec<Hit>) {
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
    // The inner assignments of a chain were read with the outermost one.
    if ix.parent(n).is_some_and(|p| p.kind() == "assignment") {
        return;
    }
    let Some(value) = value else { return };
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
            out.push(dunder_hit(n, &owner, name, &v, &ast.quote(n)));
        }
    }
}

/// `setattr(C, "__eq__", lambda self, other: True)`.
fn setattr_dunder(ast: &Ast, n: Node) -> Option<Hit> {
    let args: Vec<Node> = n
        .child_by_field_name("arguments")
        .map(named_children)
        .unwrap_or_default();
    if let [owner, attr, value] = args.as_slice()
        && let Some(loki_syntax::literals::Lit::Str(name)) =
            loki_syntax::literals::literal(ast, *attr)
        && PY_DUNDERS.contains(&name.as_str())
        && let Some(v) = py_value_verdict(ast, *value)
    {
        return Some(dunder_hit(n, ast.text_of(*owner), &name, &v, &ast.quote(n)));
    }
    None
}

/// A dataclass or attrs field declared out of comparison (`field(compare=False)`,
/// `attr.ib(eq=False)`).
fn field_left_out<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<Hit> {
    let f = ast.field_text(n, "function");
    let (flag, what) = match f {
        "field" | "dataclasses.field" => ("compare", "False"),
        "attr.ib" | "attr.attrib" | "attrib" | "attrs.field" | "attr.field" => ("eq", "False"),
        _ => return None,
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
        return None;
    }
    let stmt = ix
        .ancestors(n)
        .into_iter()
        .find(|a| a.kind() == "assignment");
    let target = stmt.map_or("", |s| ast.field_text(s, "left"));
    let owner = enclosing_class(ast, ix, n);
    let quoted = stmt.map_or_else(|| ast.quote(n), |s| ast.quote(s));
    Some(Hit::new(
        line(n),
        format!("py:{owner}.{target}:{}", ast.squashed(n)),
        format!(
            "`{quoted}` leaves `{target}` out of {}'s equality, so values that differ in it compare equal",
            if owner.is_empty() {
                "the class"
            } else {
                &owner
            }
        ),
    ))
}

/// The verdict on a value assigned to a comparison dunder: a lambda, or a function defined here.
fn py_value_verdict(ast: &Ast, value: Node) -> Option<Verdict> {
    match value.kind() {
        "lambda" => py_judge(ast, value),
        "identifier" => py_function_named(ast, ast.text_of(value)).and_then(|f| py_judge(ast, f)),
        _ => None,
    }
}
