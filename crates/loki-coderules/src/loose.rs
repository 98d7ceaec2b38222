//! `eq_override` (loose): an equality that compares no part of the two values. Where
//! [`crate::equality`] catches a constant answer or an unread `other`, this catches the equality
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

use crate::{Out, Prepared, Role};
use loki_findings::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, line, named_children};

const EQ_NAMES: &[&str] = &[
    "__eq__", "eq", "Equal", "Equals", "Eq", "IsEqual", "equals", "isEqual",
];

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
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
        if compares_a_part(ast, body, &me, &other) {
            continue;
        }
        let name = f.child_by_field_name("name").map_or("", |n| ast.text_of(n));
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
        // A Go receiver type or a Rust impl target: its declaration is elsewhere in the file, or
        // not; without it, assume it has data.
        Grammar::Go | Grammar::Rust => true,
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

/// Whether some comparison in `body` sets a part of `me` against the same part of `other`.
fn compares_a_part(ast: &Ast, body: Node, me: &str, other: &str) -> bool {
    for n in ast.all(body) {
        let operands: Vec<Node> = match n.kind() {
            "comparison_operator" | "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| ast.text_of(o).to_owned())
                    .unwrap_or_else(|| {
                        let mut cur = n.walk();
                        n.children(&mut cur)
                            .filter(|c| !c.is_named())
                            .map(|c| ast.text_of(c).to_owned())
                            .collect::<Vec<_>>()
                            .join(" ")
                    });
                if ![
                    "==", "!=", "<", ">", "<=", ">=", "===", "!==", "is", "is not",
                ]
                .iter()
                .any(|o| op.split_whitespace().collect::<Vec<_>>().join(" ") == *o)
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
                let last = f.rsplit(['.', ':']).next().unwrap_or(f);
                let eqish = [
                    "eq",
                    "equals",
                    "Equal",
                    "DeepEqual",
                    "isEqual",
                    "Equals",
                    "cmp",
                    "compare",
                    "__eq__",
                    "Compare",
                    "matches",
                ];
                if !eqish.contains(&last) {
                    continue;
                }
                // `super().__eq__(other)`, `a.value.Equal(b.value)`: the receiver side is in the
                // callee, the other side in the arguments.
                let mut ops = vec![];
                if let Some(fun) = n.child_by_field_name("function") {
                    ops.push(fun);
                }
                if let Some(args) = n.child_by_field_name("arguments") {
                    ops.extend(named_children(args));
                }
                if f.starts_with("super") && ops.iter().skip(1).any(|o| mentions(ast, *o, other)) {
                    return true;
                }
                ops
            }
            _ => continue,
        };
        let sides: Vec<(Vec<String>, Vec<String>, bool, bool)> = operands
            .iter()
            .map(|o| {
                (
                    members(ast, *o, me),
                    members(ast, *o, other),
                    mentions(ast, *o, me),
                    mentions(ast, *o, other),
                )
            })
            .collect();
        for (i, a) in sides.iter().enumerate() {
            for (j, b) in sides.iter().enumerate().skip(i + 1) {
                // A member of one side against the same member of the other.
                if a.0.iter().any(|m| b.1.contains(m)) || b.0.iter().any(|m| a.1.contains(m)) {
                    return true;
                }
                let (xa, xb) = (ast.text_of(operands[i]), ast.text_of(operands[j]));
                // The same call on both (`vars(self) == vars(other)`), unless all it reads is
                // the type (`type(self) == type(other)`).
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
                if !type_query
                    && ((a.2 && b.3 && xa.replace(me, other) == xb)
                        || (a.3 && b.2 && xb.replace(me, other) == xa))
                {
                    return true;
                }
                // `self.value == other`: a part of one side against the other whole.
                if (a.2 && !a.0.is_empty() && xb.trim() == other)
                    || (b.2 && !b.0.is_empty() && xa.trim() == other)
                {
                    return true;
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::rules;
    use loki_findings::{FileChange, FindingKind, ScanInput};

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
    fn honest_equalities_compare_their_parts() {
        let base = "class Money:\n    def __init__(self, amount, cur):\n        self.amount = amount\n        self.cur = cur\n";
        for eq in [
            "return isinstance(other, Money) and self.amount == other.amount and self.cur == other.cur",
            "return (self.amount, self.cur) == (other.amount, other.cur)",
            "return vars(self) == vars(other)",
            "return self.key() == other.key()",
            "return super().__eq__(other)",
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
