//! `eq_override` (loose): an equality that compares no part of the two values. Where
//! [`crate::rules::equality`] catches a constant answer or an unread `other`, this catches the equality
//! that reads both sides and still compares nothing of what they hold: `type(self) ==
//! type(other)`, `a.Valid && b.Valid`, `this.kind === other.kind` on a type whose value is
//! elsewhere.
//!
//! An equality (Python `__eq__`, Rust `eq` in `impl PartialEq`, Go `Equal`/`Equals`/`Eq`/
//! `IsEqual` methods, JS/TS `equals`/`isEqual`/`eq` methods) that is new or changed on an added line
//! of library code is loose when no comparison in it sets a part of one side against the same
//! part of the other:
//! - a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`, `===`, `!==`, `eq`/`equals`/`Equal`/
//!   `DeepEqual`/`isEqual` calls) whose one operand reads a member of the receiver and the other
//!   reads the same member of the other value (tuples of members count member by member), or
//! - the same call on both (`vars(self) == vars(other)`, `self.key() == other.key()`), or
//! - a hand-off to another equality (`super().__eq__(other)`, `self.value == other`).
//!
//! A type with no fields of its own (a sentinel, a unit struct) has nothing to compare and is
//! exempt.

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, line, named_children};

const EQ_NAMES: &[&str] = &[
    "__eq__", "eq", "Equal", "Equals", "Eq", "IsEqual", "equals", "isEqual",
];

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
    tolerance(p, out);
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    let ast = head.ast;
    for f in ast.all(ast.root()) {
        let Some((me, other)) = equality(ast, f) else {
            continue;
        };
        if head.in_test_region(f) {
            continue;
        }
        let (start, end) = (
            line(f),
            u32::try_from(f.end_position().row + 1).unwrap_or(u32::MAX),
        );
        if !(start..=end).any(|l| p.added.contains(&l)) {
            continue;
        }
        if !has_fields(ast, f) {
            continue;
        }
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        // An equality that refuses to compare (`raise TypeError`) answers nothing.
        let text = ast.text_of(body);
        if !text.contains("return") && ast.grammar == Grammar::Python {
            continue;
        }
        let now = compared(ast, body, &me, &other);
        let name = f.child_by_field_name("name").map_or("", |n| ast.text_of(n));
        // The same equality at base compared more: what it dropped now compares equal.
        let before = p.base.as_ref().and_then(|b| {
            let (bf, bme, bother) = base_equality(b.ast, name)?;
            Some(compared(
                b.ast,
                bf.child_by_field_name("body")?,
                &bme,
                &bother,
            ))
        });
        if let Some(before) = &before
            && !now.whole
            && !before.parts.is_empty()
            && now.parts.is_subset(&before.parts)
            && now.parts.len() < before.parts.len()
        {
            let dropped: Vec<&String> = before.parts.difference(&now.parts).collect();
            out.push(
                Finding::new(
                    FindingKind::EqOverride,
                    p.path,
                    format!(
                        "`{name}` no longer compares {}: values that differ there compare equal",
                        dropped
                            .iter()
                            .map(|d| format!("`{d}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .at_line(start),
            );
            continue;
        }
        // At base it compared the whole values (`v == o`, a derived equality); now only some
        // of their parts.
        if let Some(before) = &before
            && before.whole
            && !now.whole
            && !now.parts.is_empty()
        {
            out.push(
                Finding::new(
                    FindingKind::EqOverride,
                    p.path,
                    format!(
                        "`{name}` compared the whole values at base and now compares only {}: values that differ elsewhere compare equal",
                        now.parts
                            .iter()
                            .map(|d| format!("`{d}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .at_line(start),
            );
            continue;
        }
        // A part compared up to a distance (`abs(self.cents - other.cents) <= 1`).
        if !now.parts.is_empty()
            && let Some(l) = text.lines().find(|l| {
                let l = l.trim();
                !l.starts_with("//") && !l.starts_with('#') && within(l, &me, &other)
            })
        {
            out.push(
                Finding::new(
                    FindingKind::EqOverride,
                    p.path,
                    format!(
                        "`{name}` counts values a distance apart as equal (`{}`): values that differ compare equal",
                        loki_syntax::ast::quote(l)
                    ),
                )
                .at_line(start),
            );
            continue;
        }
        if now.whole || !now.parts.is_empty() {
            continue;
        }
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!(
                    "`{name}` compares no part of the two values (nothing of `{me}` is set against the same of `{other}`): values that differ compare equal"
                ),
            )
            .at_line(start),
        );
    }
}

/// Words on a line that make its numbers a tolerance: how close two values must be to count as
/// equal.
const TOLERANCE_WORDS: &[&str] = &[
    "isclose",
    "approx",
    "allclose",
    "toBeCloseTo",
    "CloseTo",
    "InDelta",
    "InEpsilon",
    "epsilon",
    "EPSILON",
    "Epsilon",
    "eps",
    "EPS",
    "tol",
    "TOL",
    "Tol",
    "tolerance",
    "rel_tol",
    "abs_tol",
    "delta",
    "DELTA",
    "precision",
    "abs(",
    "Abs(",
    ".abs()",
    "Math.abs",
    "almost",
    "Almost",
    "nearly",
    "Nearly",
    "within",
];

/// `eq_override` (tolerance): a tolerance made looser, in library code or test code alike (a
/// shared `assert_close`, a project matcher). A changed line whose only difference from a
/// removed line is its numbers, on a line about closeness, where a number grew (for
/// `toBeCloseTo(x, digits)` the digits shrank), or an `isclose`/`approx` that gains a relative
/// or absolute tolerance of 1% or more.
fn tolerance(p: &Prepared, out: &mut Out) {
    let (Some(base), Some(head)) = (&p.base_text, &p.head_text) else {
        return;
    };
    // A comment's numbers are prose (`* From RFC 8259, ... within`), never a tolerance.
    let py = p.path.ends_with(".py");
    let comment = |l: &str| {
        let t = l.trim_start();
        ["//", "/*", "* ", "*/"].iter().any(|c| t.starts_with(c))
            || t == "*"
            || (py && t.starts_with('#'))
    };
    let about = |l: &str| !comment(l) && TOLERANCE_WORDS.iter().any(|w| l.contains(w));
    let shape = |l: &str| -> (String, Vec<f64>) {
        let mut nums = Vec::new();
        let mut shape = String::new();
        let mut cur = String::new();
        let flush = |cur: &mut String, shape: &mut String, nums: &mut Vec<f64>| {
            if !cur.is_empty() {
                match cur.parse::<f64>() {
                    Ok(v) => {
                        nums.push(v);
                        shape.push('#');
                    }
                    Err(_) => shape.push_str(cur),
                }
                cur.clear();
            }
        };
        let chars: Vec<char> = l.trim().chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
            let next = chars.get(i + 1).copied();
            let sign = c == '-'
                && cur.is_empty()
                && next.is_some_and(|n| n.is_ascii_digit())
                && !prev.is_some_and(|p| p.is_alphanumeric() || p == ')' || p == '_');
            let exponent = (c == 'e' || c == '-')
                && !cur.is_empty()
                && cur
                    .chars()
                    .last()
                    .is_some_and(|x| x.is_ascii_digit() || x == 'e');
            let word_digit = c.is_ascii_digit()
                && cur.is_empty()
                && prev.is_some_and(|p| p.is_alphabetic() || p == '_');
            if (c.is_ascii_digit() && !word_digit)
                || sign
                || exponent
                || (c == '.' && !cur.is_empty())
            {
                cur.push(c);
            } else {
                flush(&mut cur, &mut shape, &mut nums);
                shape.push(c);
            }
        }
        flush(&mut cur, &mut shape, &mut nums);
        (shape, nums)
    };
    let removed: Vec<&str> = base
        .lines()
        .filter(|l| about(l) && !head.lines().any(|h| h == *l))
        .collect();
    for (i, l) in head.lines().enumerate() {
        let at = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !p.added.contains(&at) || !about(l) {
            continue;
        }
        let (hs, hn) = shape(l);
        let widened = removed.iter().find_map(|r| {
            let (bs, bn) = shape(r);
            if bs != hs || bn.len() != hn.len() {
                return None;
            }
            let digits = l.contains("toBeCloseTo") || l.contains("places=");
            bn.iter().zip(&hn).find_map(|(b, h)| {
                let looser = if digits { h < b } else { h > b };
                looser.then_some((*b, *h))
            })
        });
        let added_tol = (l.contains("rel_tol") || l.contains("abs_tol"))
            && !removed
                .iter()
                .any(|r| r.contains("rel_tol") || r.contains("abs_tol"))
            && hn.iter().any(|v| *v >= 0.01 && *v < 1000.0);
        let why = match (widened, added_tol) {
            (Some((b, h)), _) => format!("a tolerance goes from {b} to {h}"),
            (None, true) => "a tolerance of 1% or more is added to a comparison".to_owned(),
            _ => continue,
        };
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!(
                    "`{}`: {why}, so values that differ by that much compare equal",
                    loki_syntax::ast::quote(l)
                ),
            )
            .at_line(at),
        );
    }
}

/// The receiver's and the other value's names when `f` is an equality.
fn equality(ast: &Ast, f: Node) -> Option<(String, String)> {
    let name = ast.text_of(f.child_by_field_name("name")?);
    if !EQ_NAMES.contains(&name) {
        return None;
    }
    let params = f.child_by_field_name("parameters")?;
    let names: Vec<String> = named_children(params)
        .into_iter()
        .filter_map(|p| param_name(ast, p))
        .collect();
    match (ast.grammar, f.kind()) {
        (Grammar::Python, "function_definition") if name == "__eq__" => {
            Some((names.first()?.clone(), names.get(1)?.clone()))
        }
        (Grammar::Rust, "function_item") if name == "eq" => {
            Some(("self".into(), names.iter().find(|n| *n != "self")?.clone()))
        }
        (Grammar::Go, "method_declaration") => {
            let recv = f.child_by_field_name("receiver")?;
            let r = named_children(recv)
                .into_iter()
                .find_map(|p| param_name(ast, p))?;
            Some((r, names.first()?.clone()))
        }
        (g, "method_definition") if g.is_js() => Some(("this".into(), names.first()?.clone())),
        _ => None,
    }
}

fn param_name(ast: &Ast, p: Node) -> Option<String> {
    let n = match p.kind() {
        "identifier" | "self_parameter" | "self" => p,
        "typed_parameter" | "default_parameter" | "typed_default_parameter" => named_children(p)
            .into_iter()
            .find(|c| c.kind() == "identifier")?,
        "parameter" | "required_parameter" | "optional_parameter" => {
            p.child_by_field_name("pattern")?
        }
        "parameter_declaration" => p.child_by_field_name("name")?,
        _ => return None,
    };
    let t = ast
        .text_of(n)
        .trim_start_matches('&')
        .trim_start_matches("mut ")
        .trim();
    Some(t.to_owned())
}

/// Whether the type `f` belongs to holds data of its own.
fn has_fields(ast: &Ast, f: Node) -> bool {
    match ast.grammar {
        // A Go receiver type or a Rust impl target: a declaration without fields in this file
        // (`struct Marker;`, `type Marker struct{}`) has nothing to compare; one elsewhere is
        // assumed to have data.
        Grammar::Rust | Grammar::Go => {
            let ty = if ast.grammar == Grammar::Rust {
                let mut imp = f;
                while let Some(p) = imp.parent() {
                    imp = p;
                    if imp.kind() == "impl_item" {
                        break;
                    }
                }
                imp.child_by_field_name("type").map(|t| ast.text_of(t))
            } else {
                f.child_by_field_name("receiver")
                    .and_then(|r| named_children(r).into_iter().next())
                    .and_then(|p| p.child_by_field_name("type"))
                    .map(|t| ast.text_of(t).trim_start_matches('*'))
            };
            let Some(ty) = ty else { return true };
            let empty = [
                format!("struct {ty};"),
                format!("struct {ty} {{}}"),
                format!("type {ty} struct{{}}"),
                format!("type {ty} struct {{}}"),
            ];
            !empty.iter().any(|e| ast.text.contains(e.as_str()))
        }
        _ => {
            let mut class = f;
            while let Some(p) = class.parent() {
                class = p;
                if matches!(
                    class.kind(),
                    "class_definition" | "class_declaration" | "class"
                ) {
                    break;
                }
            }
            let text = ast.text_of(class);
            let own = if ast.grammar == Grammar::Python {
                "self."
            } else {
                "this."
            };
            // Assigned members, dataclass-style annotations, or a builtin base (`int`, `str`).
            text.contains(own)
                || text.lines().any(|l| {
                    let t = l.trim_start();
                    l.starts_with("    ")
                        && t.split_once(':').is_some_and(|(n, _)| {
                            n.chars().all(|c| c.is_alphanumeric() || c == '_') && !n.is_empty()
                        })
                })
                || text.lines().next().is_some_and(|l| {
                    [
                        "(int", "(str", "(float", "(tuple", "(list", "(dict", "(Decimal",
                    ]
                    .iter()
                    .any(|b| l.contains(b))
                })
        }
    }
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

/// What an equality compares: the parts (members) it sets one side's against the other's, and
/// whether it compares the values whole (`vars(self) == vars(other)`, `super().__eq__(other)`,
/// `self.value == other`). A part compared only through a measure (`self.nodes.len() ==
/// other.nodes.len()`) is not compared.
#[derive(Debug, Default, PartialEq, Eq)]
struct Compared {
    parts: std::collections::BTreeSet<String>,
    whole: bool,
}

/// Whether line `l` compares a difference of the two sides with a bound: an absolute
/// difference (`abs(`, `.abs()`, `Math.abs`, `math.Abs`) of something of `me` minus something of
/// `other` (or the reverse) set against a bound with `<`/`<=`, or `isclose(`.
fn within(l: &str, me: &str, other: &str) -> bool {
    let absolute = ["abs(", ".abs()", "Math.abs", "math.Abs", "fabs("]
        .iter()
        .any(|a| l.contains(a));
    let both = l.contains(&format!("{me}.")) && l.contains(&format!("{other}."));
    (absolute && l.contains('-') && l.contains('<') && both) || (l.contains("isclose(") && both)
}

/// Calls that measure rather than compare.
const MEASURES: &[&str] = &[
    "len()", "length", "size()", "count()", "Len()", "len(", "Count()",
];

fn measured(text: &str) -> bool {
    let t = text.trim();
    MEASURES.iter().any(|m| t.ends_with(m) || t.starts_with(m))
}

/// One operand of a comparison: the fields of `self` and of the other value it reads, whether
/// it mentions each at all, and its text.
type Side<'a> = (Vec<String>, Vec<String>, bool, bool, &'a str);

fn compared(ast: &Ast, body: Node, me: &str, other: &str) -> Compared {
    let mut out = Compared::default();
    for n in ast.all(body) {
        let operands: Vec<Node> = match n.kind() {
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
                if ![
                    "==", "!=", "<", ">", "<=", ">=", "===", "!==", "is", "is not",
                ]
                .contains(&op.as_str())
                {
                    continue;
                }
                named_children(n)
            }
            "call" | "call_expression" | "macro_invocation" => {
                let f = n
                    .child_by_field_name("function")
                    .or_else(|| n.child_by_field_name("macro"))
                    .map_or("", |f| ast.text_of(f));
                if f.starts_with("super") && mentions(ast, n, other) {
                    out.whole = true;
                    continue;
                }
                let last = f.rsplit(['.', ':']).next().unwrap_or(f);
                if MEASURES
                    .iter()
                    .any(|m| m.trim_end_matches(['(', ')']) == last)
                {
                    continue;
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
            _ => continue,
        };
        let sides: Vec<Side<'_>> = operands
            .iter()
            .map(|o| {
                let text = ast.text_of(*o);
                let m = measured(text);
                (
                    if m { Vec::new() } else { members(ast, *o, me) },
                    if m {
                        Vec::new()
                    } else {
                        members(ast, *o, other)
                    },
                    mentions(ast, *o, me),
                    mentions(ast, *o, other),
                    text,
                )
            })
            .collect();
        for (i, a) in sides.iter().enumerate() {
            for (j, b) in sides.iter().enumerate().skip(i + 1) {
                for m in a.0.iter().filter(|m| b.1.contains(m)) {
                    out.parts.insert(m.clone());
                }
                for m in b.0.iter().filter(|m| a.1.contains(m)) {
                    out.parts.insert(m.clone());
                }
                let (xa, xb) = (a.4, b.4);
                // The same call on both (`vars(self) == vars(other)`), unless all it reads is
                // the type (`type(self) == type(other)`) or a measure.
                let type_query = [
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
                ]
                .iter()
                .any(|q| xa.contains(q));
                let calls = [operands[i], operands[j]]
                    .iter()
                    .all(|o| matches!(o.kind(), "call" | "call_expression"));
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
        }
    }
    out
}

/// The base's version of equality `name` in the base's text, when it had one.
fn base_equality<'a>(base: &'a Ast, name: &str) -> Option<(Node<'a>, String, String)> {
    base.all(base.root()).into_iter().find_map(|f| {
        let (me, other) = equality(base, f)?;
        (f.child_by_field_name("name").map(|n| base.text_of(n)) == Some(name))
            .then_some((f, me, other))
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::rules;
    use loki_protocol::FindingKind;
    use loki_syntax::{FileChange, ScanInput};

    fn loose(path: &str, base: &str, head: &str) -> bool {
        rules(
            &ScanInput {
                changes: vec![FileChange {
                    path: path.into(),
                    base: Some(base.as_bytes().to_vec()),
                    head: Some(head.as_bytes().to_vec()),
                }],
                ..ScanInput::default()
            },
            &std::collections::BTreeSet::new(),
        )
        .iter()
        .any(|f| f.kind == FindingKind::EqOverride)
    }

    #[test]
    fn equality_that_compares_nothing_of_the_values() {
        let base = "class Money:\n    def __init__(self, amount, cur):\n        self.amount = amount\n        self.cur = cur\n";
        assert!(loose(
            "m.py",
            base,
            &format!(
                "{base}\n    def __eq__(self, other):\n        return type(self) == type(other)\n"
            )
        ));
        assert!(loose(
            "m.py",
            base,
            &format!(
                "{base}\n    def __eq__(self, other):\n        return isinstance(other, Money) and self.cur is not None and other.cur is not None\n"
            )
        ));
        let go_base = "package m\n\ntype Amount struct {\n\tValue int\n\tValid bool\n}\n";
        assert!(loose(
            "m.go",
            go_base,
            &format!(
                "{go_base}\nfunc (a Amount) Equal(b Amount) bool {{\n\treturn a.Valid && b.Valid\n}}\n"
            )
        ));
        let js_base = "export class Money {\n  constructor(a) { this.amount = a; }\n}\n";
        let js = "export class Money {\n  constructor(a) { this.amount = a; }\n  equals(other) { return other instanceof Money; }\n}\n";
        assert!(loose("m.js", js_base, js));
        let rs_base = "pub struct Money { pub amount: i64, pub cur: String }\n";
        let rs = "pub struct Money { pub amount: i64, pub cur: String }\nimpl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        !self.cur.is_empty() && !other.cur.is_empty()\n    }\n}\n";
        assert!(loose("src/lib.rs", rs_base, rs));
    }

    #[test]
    fn an_equality_that_drops_a_part_or_compares_a_measure() {
        let base = "class Path:\n    def __init__(self, pts, name):\n        self.pts = pts\n        self.name = name\n\n    def __eq__(self, other):\n        return self.pts == other.pts and self.name == other.name\n";
        let fewer = base.replace(" and self.name == other.name", "");
        assert!(loose("p.py", base, &fewer));
        let rs_base = "pub struct Route { pub nodes: Vec<u32> }\nimpl PartialEq for Route {\n    fn eq(&self, other: &Self) -> bool {\n        self.nodes == other.nodes\n    }\n}\n";
        let rs = rs_base.replace(
            "self.nodes == other.nodes",
            "self.nodes.len() == other.nodes.len()",
        );
        assert!(loose("src/lib.rs", rs_base, &rs));
    }

    #[test]
    fn a_tolerance_made_looser() {
        let base = "import math\n\ndef close(a, b):\n    return math.isclose(a, b, rel_tol=1e-9)\n";
        assert!(loose("m.py", base, &base.replace("1e-9", "0.5")));
        assert!(!loose("m.py", base, &base.replace("1e-9", "1e-12")));
        let js = "export function near(a, b) {\n  return Math.abs(a - b) < 1e-9;\n}\n";
        assert!(loose("m.js", js, &js.replace("1e-9", "0.75")));
        let helper = "export const expectCents = (a, b) => expect(a).toBeCloseTo(b, 2);\n";
        assert!(loose(
            "test/helpers.js",
            helper,
            &helper.replace(", 2)", ", -2)")
        ));
        // A comment's numbers are prose, whatever words sit beside them.
        let doc = "/**\n * From RFC 7159, all characters may be placed within the quotes.\n */\nclass W {}\n";
        assert!(!loose("W.java", doc, &doc.replace("7159", "8259")));
        let py = "# values within 1e-9 of each other\nTOL = 1e-9\n";
        assert!(!loose("t.py", py, &py.replace("within 1e-9", "within 0.5")));
        assert!(loose("t.py", py, &py.replace("TOL = 1e-9", "TOL = 0.5")));
    }

    #[test]
    fn honest_equalities_compare_their_parts() {
        let base = "class Money:\n    def __init__(self, amount, cur):\n        self.amount = amount\n        self.cur = cur\n";
        for eq in [
            "return isinstance(other, Money) and self.amount == other.amount and self.cur == other.cur",
            "return (self.amount, self.cur) == (other.amount, other.cur)",
            "return vars(self) == vars(other)",
            "return self.key() == other.key()",
            "return super().__eq__(other)",
            "return self.cur.casefold() == other.cur.casefold() and self.amount == other.amount",
        ] {
            assert!(
                !loose(
                    "m.py",
                    base,
                    &format!("{base}\n    def __eq__(self, other):\n        {eq}\n")
                ),
                "{eq}"
            );
        }
        // A sentinel has nothing to compare.
        assert!(!loose(
            "s.py",
            "X = 1\n",
            "X = 1\n\nclass Missing:\n    def __eq__(self, other):\n        return isinstance(other, Missing)\n"
        ));
        let header = "pub struct H(String);\nimpl PartialEq for H {\n    fn eq(&self, other: &Self) -> bool {\n        self.0.eq_ignore_ascii_case(&other.0)\n    }\n}\n";
        assert!(!loose("src/h.rs", "pub struct H(String);\n", header));
        let go_base = "package m\n\ntype Amount struct {\n\tValue int\n}\n";
        assert!(!loose(
            "m.go",
            go_base,
            &format!(
                "{go_base}\nfunc (a Amount) Equal(b Amount) bool {{\n\treturn a.Value == b.Value\n}}\n"
            )
        ));
        let rs = "pub struct Money { pub amount: i64 }\nimpl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        self.amount == other.amount\n    }\n}\n";
        assert!(!loose(
            "src/lib.rs",
            "pub struct Money { pub amount: i64 }\n",
            rs
        ));
    }
}
