//! `eq_override` (views): new library code that changes what the tests see of a value instead of
//! the value. Tests compare values through a view: a printed form (Go `String()`, Rust `Debug`
//! and `Display`, Python `__repr__`/`__str__`) or a test framework's own protocol. A change that
//! narrows the view makes wrong values look right.
//!
//! - **A narrowed printed form**: a `String()`/`fmt`/`__repr__`/`__str__` of a type whose fields
//!   are declared in the same file, new or changed on an added line, that reads some of the
//!   type's fields and not others (and, when it existed at base, reads fewer than it did), while
//!   the tests compare printed values (`Sprint`, `%v`, `format!("{:?}")`, `repr(`, `str(`). A view
//!   that reads no field (a hand-off to another formatter) is not judged.
//! - **A matcher protocol in library code**: `asymmetricMatch` (what `toEqual` defers to) defined
//!   outside the tests: only a test framework calls it, so library code defining it decides what
//!   the tests' comparisons accept.
//! - **Hidden parts (JS)**: a property made non-enumerable (`enumerable: false`: deep equality,
//!   `JSON.stringify` and snapshots skip it) or a `toJSON` attached with `defineProperty`, on an
//!   added line of library code.
//!
//! Failure modes: fields declared in another file are unknown (no finding); a printed form
//! reading fields through helpers reads none here (no finding).

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, line, named_children};

/// What in test code shows that the tests compare printed values.
const PRINTED: &[&str] = &[
    "Sprint",
    "%v",
    "%s",
    ".String()",
    "{:?}",
    "{:#?}",
    "format!",
    "to_string()",
    "repr(",
    "str(",
    "f\"",
    "f'",
];

/// Whether any of `tests` compares printed values.
pub(crate) fn tests_print(tests: &[&str]) -> bool {
    tests.iter().any(|t| PRINTED.iter().any(|p| t.contains(p)))
}

pub(crate) fn rules(p: &Prepared, printed: bool, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    let ast = head.ast;
    if ast.grammar.is_js() {
        protocol(p, out);
        return;
    }
    if !printed {
        return;
    }
    for f in ast.all(ast.root()) {
        let Some((ty, recv, name)) = view_of(ast, f) else {
            continue;
        };
        let (start, end) = (
            line(f),
            u32::try_from(f.end_position().row + 1).unwrap_or(0),
        );
        if head.in_test_region(f) || !(start..=end).any(|l| p.added.contains(&l)) {
            continue;
        }
        let fields = fields_of(ast, &ty);
        let body = ast.text_of(f);
        let read = reads(body, &recv, &fields);
        if read.is_empty() || read.len() == fields.len() {
            continue;
        }
        // At base the same view read these: narrowing is what counts, not a view that was
        // always partial.
        if let Some(b) = &p.base {
            let before = b
                .ast
                .all(b.ast.root())
                .into_iter()
                .filter_map(|g| {
                    let (bty, brecv, bname) = view_of(b.ast, g)?;
                    (bty == ty && bname == name).then(|| reads(b.ast.text_of(g), &brecv, &fields))
                })
                .next();
            if before.is_some_and(|r| r.len() <= read.len()) {
                continue;
            }
        }
        let missing: Vec<&str> = fields
            .iter()
            .filter(|f| !read.contains(*f))
            .map(String::as_str)
            .collect();
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!(
                    "`{name}` of `{ty}` shows {} but not {}: values that differ in {} print the same to the tests that compare them printed",
                    tick(read.iter().map(String::as_str)),
                    tick(missing.iter().copied()),
                    tick(missing.iter().copied()),
                ),
            )
            .at_line(start),
        );
    }
}

fn tick<'a>(xs: impl Iterator<Item = &'a str>) -> String {
    xs.map(|x| format!("`{x}`")).collect::<Vec<_>>().join(", ")
}

/// What library JS code can give a value to change what the tests' comparisons see.
const HIDERS: &[(&str, &str)] = &[
    (
        "asymmetricMatch",
        "gives a library value `asymmetricMatch`, which only a test framework's matchers call: the value decides what the tests' comparisons accept",
    ),
    (
        "enumerable: false",
        "makes a property of the value non-enumerable: deep equality, `JSON.stringify` and snapshots no longer see it, though the value still holds it",
    ),
    (
        "enumerable:false",
        "makes a property of the value non-enumerable: deep equality, `JSON.stringify` and snapshots no longer see it, though the value still holds it",
    ),
];

/// `asymmetricMatch`, non-enumerable properties and hidden `toJSON` defined in library code.
fn protocol(p: &Prepared, out: &mut Out) {
    let Some(text) = p.head_text.as_deref() else {
        return;
    };
    for (i, l) in text.lines().enumerate() {
        let at = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !p.added.contains(&at) {
            continue;
        }
        // `Object.defineProperty(out, 'toJSON', ..)`: a serialised form that is not the value.
        let hidden_json = l.contains("defineProperty") && l.contains("toJSON");
        let why = HIDERS
            .iter()
            .find(|(k, _)| l.contains(k))
            .map(|(_, w)| *w)
            .or(hidden_json.then_some(
                "gives the value a hidden `toJSON`: what `JSON.stringify` shows the tests is not what the value holds",
            ));
        let Some(why) = why else { continue };
        out.push(
            Finding::new(
                FindingKind::EqOverride,
                p.path,
                format!("`{}` {why}", loki_syntax::ast::quote(l)),
            )
            .at_line(at),
        );
        return;
    }
}

/// A printed view `f` defines: its type, the name its body reads the value by, and its name.
fn view_of(ast: &Ast, f: Node) -> Option<(String, String, String)> {
    match (ast.grammar, f.kind()) {
        (Grammar::Go, "method_declaration") => {
            let name = ast.text_of(f.child_by_field_name("name")?);
            if name != "String" && name != "GoString" {
                return None;
            }
            let recv = named_children(f.child_by_field_name("receiver")?)
                .into_iter()
                .next()?;
            let r = ast.text_of(recv.child_by_field_name("name")?).to_owned();
            let ty = ast
                .text_of(recv.child_by_field_name("type")?)
                .trim_start_matches('*')
                .to_owned();
            Some((ty, r, name.to_owned()))
        }
        (Grammar::Rust, "impl_item") => {
            let tr = ast.text_of(f.child_by_field_name("trait")?);
            let name = tr.rsplit("::").next()?;
            if name != "Debug" && name != "Display" {
                return None;
            }
            let ty = ast.text_of(f.child_by_field_name("type")?).to_owned();
            Some((ty, "self".into(), name.to_owned()))
        }
        (Grammar::Python, "function_definition") => {
            let name = ast.text_of(f.child_by_field_name("name")?);
            if name != "__repr__" && name != "__str__" {
                return None;
            }
            let class = f
                .parent()
                .and_then(|b| b.parent())
                .filter(|c| c.kind() == "class_definition")?;
            let ty = ast.text_of(class.child_by_field_name("name")?).to_owned();
            Some((ty, "self".into(), name.to_owned()))
        }
        _ => None,
    }
}

/// The fields of the type `ty` declared in this file (Go struct, Rust struct with named fields,
/// Python class with annotated fields or `self.x = ` in `__init__`).
fn fields_of(ast: &Ast, ty: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in ast.all(ast.root()) {
        let (name, body) = match n.kind() {
            "type_spec" => (n.child_by_field_name("name"), n.child_by_field_name("type")),
            "struct_item" | "class_definition" => {
                (n.child_by_field_name("name"), n.child_by_field_name("body"))
            }
            _ => continue,
        };
        let (Some(name), Some(body)) = (name, body) else {
            continue;
        };
        if ast.text_of(name) != ty {
            continue;
        }
        for d in ast.all(body) {
            match d.kind() {
                "field_declaration" => {
                    for c in named_children(d) {
                        if c.kind() == "field_identifier" {
                            out.push(ast.text_of(c).to_owned());
                        }
                    }
                }
                // `x: int` in a class body (a dataclass field).
                "expression_statement" if ast.grammar == Grammar::Python => {
                    let t = ast.text_of(d);
                    if let Some((lhs, _)) = t.split_once(':')
                        && d.parent() == Some(body)
                        && lhs.trim().chars().all(|c| c.is_alphanumeric() || c == '_')
                    {
                        out.push(lhs.trim().to_owned());
                    }
                }
                _ => {}
            }
        }
        if ast.grammar == Grammar::Python {
            let t = ast.text_of(body);
            for l in t.lines() {
                if let Some(rest) = l.trim().strip_prefix("self.")
                    && let Some((attr, _)) = rest.split_once('=')
                    && !attr.contains(['(', '[', '.'])
                {
                    out.push(attr.trim().trim_end_matches(':').trim().to_owned());
                }
            }
        }
    }
    let mut seen = BTreeSet::new();
    out.retain(|f| !f.is_empty() && !f.starts_with('_') && seen.insert(f.clone()));
    out
}

/// The fields of `fields` that `body` reads as `recv.field`.
fn reads(body: &str, recv: &str, fields: &[String]) -> BTreeSet<String> {
    fields
        .iter()
        .filter(|f| {
            let pat = format!("{recv}.{f}");
            body.match_indices(&pat).any(|(i, _)| {
                let after = body[i + pat.len()..].chars().next();
                let before = body[..i].chars().next_back();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            })
        })
        .cloned()
        .collect()
}
