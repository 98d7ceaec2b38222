//! `failure_expected`: test code that now expects to fail, or that catches its own failures.
//! New since base, in test code (test files and test regions):
//! - Rust `#[should_panic]` added to a test that exists at base without it (a new test that
//!   checks a panic is honest).
//! - Python `pytest.mark.xfail` (decorator, `pytestmark`, `pytest.param(.., marks=..)`),
//!   `pytest.xfail(..)`, `unittest.expectedFailure`; JS `test.failing`, `it.failing`, `it.fails`,
//!   `test.fails`, `describe.fails`, `describe.failing`.
//! - Assertions swallowed: Python `try` around an assertion whose `except` (`AssertionError`,
//!   `Exception`, `BaseException` or bare) does not re-raise, `with contextlib.suppress(..)`,
//!   `with pytest.raises(AssertionError)` / `self.assertRaises(AssertionError)` around an
//!   `assert`; JS `try { expect(..) / assert.. } catch {}` that does not rethrow; Rust
//!   `catch_unwind` around an assertion macro; Go `defer func() { recover() }()` in a test that
//!   neither fails the test nor re-panics with what it recovered.
//!
//! Keys name the enclosing test function and the construct, so a test that already swallowed
//! at base is not new.

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role, View, attributes_of, is_test_attribute};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, Index, line, named_children};
use loki_syntax::diff::Hit;

pub fn rules(p: &Prepared, out: &mut Out) {
    // Markers count in files that had tests at base; a new file's expected failure is a new
    // test's (swallowed assertions count everywhere).
    let existed = p.base.is_some();
    p.diff(
        FindingKind::FailureExpected,
        |side, role| {
            hits(side, role)
                .into_iter()
                .filter(|h| {
                    existed
                        || h.key.contains(":swallow:")
                        || h.key.ends_with(":catch_unwind")
                        || h.key.ends_with(":recover")
                })
                .collect()
        },
        out,
    );
    if let (Some(b), Some(h)) = (&p.base, &p.head) {
        for (line, name) in should_panic_added(b, h, p.role) {
            out.push(
                Finding::new(
                    FindingKind::FailureExpected,
                    p.path,
                    format!("`#[should_panic]` added to the existing test `{name}`: it now passes by failing"),
                )
                .at_line(line),
            );
        }
    }
}

/// The name of the function `n` is in (Python, Rust, Go, JS named functions and test calls).
fn enclosing_test<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> String {
    for a in ix.ancestors(n) {
        match a.kind() {
            "function_definition"
            | "function_item"
            | "function_declaration"
            | "method_declaration"
            | "method_definition" => {
                return ast.field_text(a, "name").to_owned();
            }
            "call_expression" => {
                // `test('name', () => ..)`: the test's title.
                let f = ast.field_text(a, "function");
                if matches!(f.split('.').next(), Some("it" | "test" | "describe"))
                    && let Some(first) = a
                        .child_by_field_name("arguments")
                        .and_then(|x| x.named_child(0))
                {
                    return ast.squashed(first);
                }
            }
            _ => {}
        }
    }
    String::new()
}

fn hits(side: &View, role: Role) -> Vec<Hit> {
    let ast = &side.ast;
    let ix = side.index();
    let mut out = Vec::new();
    for &n in ix.nodes() {
        if !side.is_test_code(role, n) {
            continue;
        }
        let found: Option<(Node, String, String)> = match ast.grammar {
            Grammar::Python => python(ast, ix, n),
            Grammar::Rust => rust(ast, n),
            Grammar::Go => go(ast, n),
            _ => js(ast, n),
        };
        if let Some((at, what, detail)) = found {
            let test = enclosing_test(ast, ix, n);
            out.push(Hit::new(
                line(at),
                format!("{test}:{what}"),
                if test.is_empty() {
                    detail
                } else {
                    format!("{detail} (in {test})")
                },
            ));
        }
    }
    out
}

/// Whether `n`'s subtree contains an assertion of the grammar.
fn asserts(ast: &Ast, n: Node) -> bool {
    ast.all(n).into_iter().any(|c| match c.kind() {
        "assert_statement" => true,
        "call" => {
            let f = ast.field_text(c, "function");
            f.starts_with("self.assert") || f.starts_with("assert_") || f == "pytest.fail"
        }
        "call_expression" => {
            let f = ast.field_text(c, "function");
            let root = f.split(['.', '(']).next().unwrap_or("");
            matches!(root, "expect" | "assert")
        }
        "macro_invocation" => {
            let m = ast.field_text(c, "macro");
            m.starts_with("assert") || m.starts_with("prop_assert") || m == "panic"
        }
        _ => false,
    })
}

fn python<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(Node<'t>, String, String)> {
    match n.kind() {
        "attribute" | "identifier" => {
            let t = ast.text_of(n);
            let marker = t.ends_with("mark.xfail")
                || t == "unittest.expectedFailure"
                || (t == "expectedFailure"
                    && ix.parent(n).is_some_and(|p| p.kind() == "decorator"));
            // `pytest.mark.xfail(..)` is an attribute inside a call: count the attribute once.
            (marker && ix.parent(n).is_none_or(|p| p.kind() != "attribute")).then(|| {
                (
                    n,
                    t.to_owned(),
                    format!(
                        "`{t}` marks a test as expected to fail, so its failure passes the run"
                    ),
                )
            })
        }
        "call" if ast.field_text(n, "function") == "pytest.xfail" => Some((
            n,
            "pytest.xfail".into(),
            format!(
                "`{}` turns the test's failure into an expected one",
                ast.quote(n)
            ),
        )),
        "try_statement" => {
            let body = n.child_by_field_name("body")?;
            if !asserts(ast, body) {
                return None;
            }
            named_children(n)
                .into_iter()
                .filter(|c| c.kind() == "except_clause")
                .find_map(|e| {
                    let caught = named_children(e)
                        .into_iter()
                        .find(|c| c.kind() != "block")
                        .map_or("", |c| ast.text_of(c));
                    let catches_assert = caught.is_empty()
                        || ["AssertionError", "Exception", "BaseException"]
                            .iter()
                            .any(|x| caught.contains(x));
                    let block = named_children(e).into_iter().find(|c| c.kind() == "block")?;
                    // A handler that checks the error is the expect-an-error idiom.
                    let reraises = asserts(ast, block) || ast.all(block).into_iter().any(|c| {
                        c.kind() == "raise_statement"
                            || (c.kind() == "call"
                                && matches!(
                                    ast.field_text(c, "function"),
                                    "pytest.fail" | "self.fail"
                                ))
                    });
                    (catches_assert && !reraises).then(|| {
                        let what = if caught.is_empty() { "bare except" } else { caught };
                        (
                            e,
                            format!("swallow:{}", loki_syntax::ast::squash(what)),
                            format!(
                                "`{}` around an assertion does not re-raise, so the assertion cannot fail the test",
                                ast.quote(e)
                            ),
                        )
                    })
                })
        }
        "with_statement" => {
            let clause = ast.text_of(n.named_child(0)?);
            let swallow = (clause.contains("suppress(")
                && ["AssertionError", "Exception", "BaseException"]
                    .iter()
                    .any(|x| clause.contains(x)))
                || ((clause.contains("raises(") || clause.contains("assertRaises("))
                    && clause.contains("AssertionError"));
            let body = n.child_by_field_name("body")?;
            (swallow && asserts(ast, body)).then(|| {
                (
                    n,
                    format!("swallow:{}", loki_syntax::ast::squash(clause)),
                    format!(
                        "`{}` around an assertion turns its failure into a pass",
                        ast.quote(n)
                    ),
                )
            })
        }
        _ => None,
    }
}

fn js<'t>(ast: &Ast, n: Node<'t>) -> Option<(Node<'t>, String, String)> {
    match n.kind() {
        "call_expression" => {
            let f = ast.field_text(n, "function");
            let parts: Vec<&str> = f.split('.').collect();
            let failing = parts.len() >= 2
                && matches!(parts[0], "test" | "it" | "describe")
                && parts[1..].iter().any(|p| matches!(*p, "failing" | "fails"));
            failing.then(|| {
                (
                    n,
                    f.to_owned(),
                    format!(
                        "`{}` expects the test to fail, so its failure passes the run",
                        ast.quote(n)
                    ),
                )
            })
        }
        "try_statement" => {
            let body = n.child_by_field_name("body")?;
            let handler = n.child_by_field_name("handler")?;
            // A handler that checks the error (`catch (e) { expect(e.message)... }`, ava's
            // `t.is(err.message, ..)`) is the expect-a-throw idiom.
            let rethrows = asserts(ast, handler)
                || ast.all(handler).into_iter().any(|c| {
                    c.kind() == "throw_statement"
                        || (c.kind() == "call_expression"
                            && ast.field_text(c, "function").starts_with("t."))
                });
            (asserts(ast, body) && !rethrows).then(|| {
                (
                    handler,
                    "swallow:catch".into(),
                    format!(
                        "`{}` around an assertion does not rethrow, so the assertion cannot fail the test",
                        ast.quote(handler)
                    ),
                )
            })
        }
        _ => None,
    }
}

fn rust<'t>(ast: &Ast, n: Node<'t>) -> Option<(Node<'t>, String, String)> {
    if n.kind() != "call_expression" || !ast.field_text(n, "function").ends_with("catch_unwind") {
        return None;
    }
    let args = n.child_by_field_name("arguments")?;
    asserts(ast, args).then(|| {
        (
            n,
            "catch_unwind".into(),
            format!(
                "`{}` catches the panic of an assertion, so it cannot fail the test",
                ast.quote(n)
            ),
        )
    })
}

fn go<'t>(ast: &Ast, n: Node<'t>) -> Option<(Node<'t>, String, String)> {
    if n.kind() != "defer_statement" {
        return None;
    }
    let lit = ast
        .all(n)
        .into_iter()
        .find(|c| c.kind() == "func_literal")?;
    let body = lit.child_by_field_name("body")?;
    let calls: Vec<String> = ast
        .all(body)
        .into_iter()
        .filter(|c| c.kind() == "call_expression")
        .map(|c| ast.field_text(c, "function").to_owned())
        .collect();
    let recovers = calls.iter().any(|c| c == "recover");
    let reports = calls.iter().any(|c| {
        let method = c.rsplit('.').next().unwrap_or("");
        c == "panic"
            || method.starts_with("Fatal")
            || method.starts_with("Error")
            || method == "Fail"
            || method == "FailNow"
            || c.starts_with("require.")
            || c.starts_with("assert.")
    });
    (recovers && !reports).then(|| {
        (
            n,
            "recover".into(),
            format!(
                "`{}` recovers from panics without failing the test",
                ast.quote(n)
            ),
        )
    })
}

/// Rust test functions by name, with whether they carry `#[should_panic]`.
fn rust_tests(side: &View, role: Role) -> Vec<(String, bool, u32)> {
    let ast = &side.ast;
    if ast.grammar != Grammar::Rust {
        return Vec::new();
    }
    let ix = side.index();
    ix.nodes()
        .iter()
        .copied()
        .filter(|n| n.kind() == "function_item" && side.is_test_code(role, *n))
        .filter_map(|f| {
            let attrs = attributes_of(ix, f);
            let is_test = attrs.iter().any(|a| is_test_attribute(&ast.squashed(*a)));
            let panics = attrs.iter().find(|a| {
                ast.text_of(**a)
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .starts_with("#[should_panic")
            });
            is_test.then(|| {
                (
                    ast.field_text(f, "name").to_owned(),
                    panics.is_some(),
                    panics.map_or(line(f), |a| line(*a)),
                )
            })
        })
        .collect()
}

fn should_panic_added(base: &View, head: &View, role: Role) -> Vec<(u32, String)> {
    let before = rust_tests(base, role);
    rust_tests(head, role)
        .into_iter()
        .filter(|(name, panics, _)| *panics && before.iter().any(|(b, bp, _)| b == name && !bp))
        .map(|(name, _, line)| (line, name))
        .collect()
}
