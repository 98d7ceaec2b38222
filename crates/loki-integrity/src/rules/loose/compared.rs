//! What an equality compares: which members of the receiver it sets against the same members of
//! the other value, and whether it compares the two values whole.

use std::collections::BTreeSet;

use tree_sitter::Node;

use loki_syntax::ast::{Ast, named_children};

/// What an equality compares: the parts (members) it sets one side's against the other's, and
/// whether it compares the values whole (`vars(self) == vars(other)`, `super().__eq__(other)`,
/// `self.value == other`). A part compared only through a measure (`self.nodes.len() ==
/// other.nodes.len()`) is not compared.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Compared {
    pub(super) parts: BTreeSet<String>,
    pub(super) whole: bool,
}

/// Whether line `l` compares a difference of the two sides with a bound: an absolute
/// difference (`abs(`, `.abs()`, `Math.abs`, `math.Abs`) of something of `me` minus something of
/// `other` (or the reverse) set against a bound with `<`/`<=`, or `isclose(`.
pub(super) fn within(l: &str, me: &str, other: &str) -> bool {
    let absolute = ["abs(", ".abs()", "Math.abs", "math.Abs", "fabs("]
        .iter()
        .any(|a| l.contains(a));
    let both = l.contains(&format!("{me}.")) && l.contains(&format!("{other}."));
    (absolute && l.contains('-') && l.contains('<') && both) || (l.contains("isclose(") && both)
}

/// The members of `name` an expression reads (`name.x`, `name.x()`, `name->x`).
fn members(ast: &Ast, n: Node, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for c in ast.all(n) {
        let (obj, field) = match c.kind() {
            "attribute" => (
                c.child_by_field_name("object"),
                c.child_by_field_name("attribute"),
            ),
            "member_expression" => (
                c.child_by_field_name("object"),
                c.child_by_field_name("property"),
            ),
            "selector_expression" => (
                c.child_by_field_name("operand"),
                c.child_by_field_name("field"),
            ),
            "field_expression" => (
                c.child_by_field_name("value"),
                c.child_by_field_name("field"),
            ),
            _ => (None, None),
        };
        if let (Some(o), Some(f)) = (obj, field)
            && ast.text_of(o).trim_start_matches(['*', '&']) == name
        {
            out.push(ast.text_of(f).to_owned());
        }
    }
    out
}

fn mentions(ast: &Ast, n: Node, name: &str) -> bool {
    ast.all(n)
        .into_iter()
        .any(|c| matches!(c.kind(), "identifier" | "self" | "this") && ast.text_of(c) == name)
}

/// Calls that measure rather than compare.
const MEASURES: &[&str] = &[
    "len()", "length", "size()", "count()", "Len()", "len(", "Count()",
];

fn measured(text: &str) -> bool {
    let t = text.trim();
    MEASURES.iter().any(|m| t.ends_with(m) || t.starts_with(m))
}

/// Operators that compare two values.
const COMPARISONS: &[&str] = &[
    "==", "!=", "<", ">", "<=", ">=", "===", "!==", "is", "is not",
];

/// Calls whose answer is the value's type or identity, not what it holds: the same call on both
/// sides compares nothing of the values.
const TYPE_QUERIES: &[&str] = &[
    "type(",
    "id(",
    "typeof ",
    "TypeOf(",
    "constructor",
    "__class__",
    "getClass(",
    "discriminant(",
    "instanceof",
    "type_name",
];

/// One operand of a comparison: the fields of `self` and of the other value it reads, whether
/// it mentions each at all, and its text.
type Side<'a> = (Vec<String>, Vec<String>, bool, bool, &'a str);

pub(super) fn compared(ast: &Ast, body: Node, me: &str, other: &str) -> Compared {
    let mut out = Compared::default();
    for n in ast.all(body) {
        let operands = operands(ast, n, other, &mut out);
        let sides: Vec<Side<'_>> = operands.iter().map(|o| side(ast, *o, me, other)).collect();
        for (i, a) in sides.iter().enumerate() {
            for (j, b) in sides.iter().enumerate().skip(i + 1) {
                let calls = [operands[i], operands[j]]
                    .iter()
                    .all(|o| matches!(o.kind(), "call" | "call_expression"));
                compare_pair(a, b, calls, me, other, &mut out);
            }
        }
    }
    out
}

/// The operands `n` sets against each other: both sides of a comparison operator, or the callee
/// and the arguments of a call (`self.name.eq_ignore_ascii_case(&other.name)`). None for
/// anything else and for measures; a hand-off to the parent's equality
/// (`super().__eq__(other)`) compares the values whole.
fn operands<'t>(ast: &Ast, n: Node<'t>, other: &str, out: &mut Compared) -> Vec<Node<'t>> {
    match n.kind() {
        "comparison_operator" | "binary_expression" => {
            let op = n.child_by_field_name("operator").map_or_else(
                || {
                    let mut cur = n.walk();
                    n.children(&mut cur)
                        .filter(|c| !c.is_named())
                        .map(|c| ast.text_of(c).to_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                },
                |o| ast.text_of(o).to_owned(),
            );
            let op = op.split_whitespace().collect::<Vec<_>>().join(" ");
            if COMPARISONS.contains(&op.as_str()) {
                named_children(n)
            } else {
                Vec::new()
            }
        }
        "call" | "call_expression" | "macro_invocation" => {
            let f = n
                .child_by_field_name("function")
                .or_else(|| n.child_by_field_name("macro"))
                .map_or("", |f| ast.text_of(f));
            if f.starts_with("super") && mentions(ast, n, other) {
                out.whole = true;
                return Vec::new();
            }
            let last = f.rsplit(['.', ':']).next().unwrap_or(f);
            if MEASURES
                .iter()
                .any(|m| m.trim_end_matches(['(', ')']) == last)
            {
                return Vec::new();
            }
            // `self.name.eq_ignore_ascii_case(&other.name)`, `a.Value.Equal(b.Value)`,
            // `math.isclose(self.x, other.x)`: the callee and the arguments are the sides.
            let mut ops = vec![];
            if let Some(fun) = n.child_by_field_name("function") {
                ops.push(fun);
            }
            if let Some(args) = n.child_by_field_name("arguments") {
                ops.extend(named_children(args));
            }
            ops
        }
        _ => Vec::new(),
    }
}

/// What operand `o` reads of `me` and of `other`; a measure reads no member.
fn side<'a>(ast: &'a Ast, o: Node, me: &str, other: &str) -> Side<'a> {
    let text = ast.text_of(o);
    let m = measured(text);
    (
        if m { Vec::new() } else { members(ast, o, me) },
        if m {
            Vec::new()
        } else {
            members(ast, o, other)
        },
        mentions(ast, o, me),
        mentions(ast, o, other),
        text,
    )
}

/// What setting operand `a` against operand `b` compares; `calls` when both are calls.
fn compare_pair(a: &Side, b: &Side, calls: bool, me: &str, other: &str, out: &mut Compared) {
    for m in a.0.iter().filter(|m| b.1.contains(m)) {
        out.parts.insert(m.clone());
    }
    for m in b.0.iter().filter(|m| a.1.contains(m)) {
        out.parts.insert(m.clone());
    }
    let (xa, xb) = (a.4, b.4);
    // The same call on both (`vars(self) == vars(other)`), unless all it reads is
    // the type (`type(self) == type(other)`) or a measure.
    let type_query = TYPE_QUERIES.iter().any(|q| xa.contains(q));
    if calls
        && !type_query
        && !measured(xa)
        && ((a.2 && b.3 && xa.replace(me, other) == xb)
            || (a.3 && b.2 && xb.replace(me, other) == xa))
    {
        out.whole = true;
    }
    // `v == o`, `*self == *other`: the whole values, compared by the language.
    let bare = |t: &str| t.trim().trim_start_matches(['*', '&']).to_owned();
    if (bare(xa) == me && bare(xb) == other) || (bare(xa) == other && bare(xb) == me) {
        out.whole = true;
    }
    // `self.value == other`: a part of one side against the other whole.
    if (a.2 && !a.0.is_empty() && xb.trim() == other)
        || (b.2 && !b.0.is_empty() && xa.trim() == other)
    {
        out.whole = true;
    }
}
