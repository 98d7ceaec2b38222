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
//! exempt. What an equality compares is read in module `compared`; a tolerance made looser is the
//! other `eq_override` rule, in module `tolerance`.

use tree_sitter::Node;

mod compared;
mod tolerance;

use crate::rules::{Out, Prepared, Role, View};
use compared::{Compared, compared, within};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, line, named_children};

const EQ_NAMES: &[&str] = &[
    "__eq__", "eq", "Equal", "Equals", "Eq", "IsEqual", "equals", "isEqual",
];

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
    tolerance::rules(p, out);
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    for f in head.ast.all(head.ast.root()) {
        if let Some((at, detail)) = loose_equality(p, head, f) {
            out.push(Finding::new(FindingKind::EqOverride, p.path, detail).at_line(at));
        }
    }
}

/// When `f` is an equality of a type with fields, new or changed on an added line of library
/// code, and loose: its first line and what it no longer compares.
fn loose_equality(p: &Prepared, head: &View, f: Node) -> Option<(u32, String)> {
    let ast = head.ast;
    let (me, other) = equality(ast, f)?;
    if head.in_test_region(f) {
        return None;
    }
    let (start, end) = (
        line(f),
        u32::try_from(f.end_position().row + 1).unwrap_or(u32::MAX),
    );
    if !(start..=end).any(|l| p.added.contains(&l)) || !has_fields(ast, f) {
        return None;
    }
    let body = f.child_by_field_name("body")?;
    // An equality that refuses to compare (`raise TypeError`) answers nothing.
    let text = ast.text_of(body);
    if !text.contains("return") && ast.grammar == Grammar::Python {
        return None;
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
    let detail = before
        .and_then(|before| narrowed(name, &before, &now))
        .or_else(|| within_distance(name, &now, text, &me, &other))
        .or_else(|| {
            (!now.whole && now.parts.is_empty()).then(|| {
                format!(
                    "`{name}` compares no part of the two values (nothing of `{me}` is set against the same of `{other}`): values that differ compare equal"
                )
            })
        })?;
    Some((start, detail))
}

/// Equality `name` compares less than it did at base: parts it dropped, or only some parts of
/// values it compared whole.
fn narrowed(name: &str, before: &Compared, now: &Compared) -> Option<String> {
    let quoted = |parts: Vec<&String>| {
        parts
            .iter()
            .map(|d| format!("`{d}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !now.whole
        && !before.parts.is_empty()
        && now.parts.is_subset(&before.parts)
        && now.parts.len() < before.parts.len()
    {
        let dropped: Vec<&String> = before.parts.difference(&now.parts).collect();
        return Some(format!(
            "`{name}` no longer compares {}: values that differ there compare equal",
            quoted(dropped)
        ));
    }
    // At base it compared the whole values (`v == o`, a derived equality); now only some
    // of their parts.
    (before.whole && !now.whole && !now.parts.is_empty()).then(|| {
        format!(
            "`{name}` compared the whole values at base and now compares only {}: values that differ elsewhere compare equal",
            quoted(now.parts.iter().collect())
        )
    })
}

/// A part compared up to a distance (`abs(self.cents - other.cents) <= 1`) in equality `name`'s
/// body `text`.
fn within_distance(
    name: &str,
    now: &Compared,
    text: &str,
    me: &str,
    other: &str,
) -> Option<String> {
    if now.parts.is_empty() {
        return None;
    }
    let l = text.lines().find(|l| {
        let l = l.trim();
        !l.starts_with("//") && !l.starts_with('#') && within(l, me, other)
    })?;
    Some(format!(
        "`{name}` counts values a distance apart as equal (`{}`): values that differ compare equal",
        loki_syntax::ast::quote(l)
    ))
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
