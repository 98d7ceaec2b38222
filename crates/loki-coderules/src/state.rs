//! `order_dependent` (static): a function whose answer depends on how often, or after what, it
//! was called. The tests call it with the same input twice and expect two answers (or one test's
//! call must come before another's); a function of its input cannot do that, so new code keeps
//! state between calls and branches on it: a call counter, a seen-set, a first-call flag, a
//! history of arguments.
//!
//! On an added line of library code, in one function:
//! - it **writes** state that outlives the call: a module-, package- or file-level variable
//!   (assigned at the top of a Python module, `let`/`var` at the top of a JS module, a Go
//!   package `var`, a Rust `static`), a name the function declares `global`/`nonlocal`, or an
//!   attribute of the function itself (`f.calls += 1`): an assignment, an increment, or a
//!   mutating call (`add`, `append`, `push`, `insert`, `update`, `setdefault`, `set`,
//!   `fetch_add`, `store`, ...);
//! - a **condition** of the same function reads that state;
//! - and a branch of that condition **returns** something that is not read from the state (a
//!   memo cache returns what it stored: that is the same answer, not another one).
//!
//! "Warn once" flags (no return in the branch), lazy initialisation (the return is after the
//! branch) and instance state (`self.count`: an object may be stateful by design) do not fire.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::{Out, Prepared, Role};
use loki_findings::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, Index, line, named_children};

/// Calls that change the object they are called on.
const MUTATORS: &[&str] = &[
    "add",
    "append",
    "push",
    "insert",
    "update",
    "setdefault",
    "set",
    "extend",
    "put",
    "fetch_add",
    "fetch_sub",
    "store",
    "swap",
    "increment",
    "incr",
    "inc",
    "Add",
    "Store",
    "Set",
    "Inc",
    "Swap",
    "Store",
    "with_borrow_mut",
    "replace",
    "get_or_insert",
    "entry",
];

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    let ast = head.ast;
    let ix = head.index();
    let module_state = top_level_names(ast);
    for &f in ix.nodes() {
        if !is_function(f.kind()) || head.in_test_region(f) {
            continue;
        }
        let mut state = module_state.clone();
        state.extend(declared_global(ast, f));
        if let Some(name) = f.child_by_field_name("name") {
            // Attributes of the function itself (`solve.calls`).
            state.insert(ast.text_of(name).to_owned());
        }
        if state.is_empty() {
            continue;
        }
        let written = writes(ast, f, &state);
        if written.is_empty() {
            continue;
        }
        for (cond, branch_returns) in conditions(ast, ix, f) {
            let at = line(cond);
            let reads: Vec<&String> = written
                .iter()
                .filter(|(name, _)| mentions(ast, cond, name))
                .map(|(name, _)| name)
                .collect();
            let Some(name) = reads.first() else { continue };
            let write_line = written
                .iter()
                .find(|(n, _)| n == *name)
                .map_or(at, |(_, l)| *l);
            if !p.added.contains(&at) && !p.added.contains(&write_line) {
                continue;
            }
            let Some(ret) = branch_returns
                .into_iter()
                .find(|r| !mentions(ast, *r, name))
            else {
                continue;
            };
            let quoted = ast
                .text
                .lines()
                .nth(at.saturating_sub(1) as usize)
                .map_or_else(String::new, loki_syntax::ast::quote);
            out.push(
                Finding::new(
                    FindingKind::OrderDependent,
                    p.path,
                    format!(
                        "`{quoted}`: the answer depends on how often or after what it was called: `{name}` outlives each call, is changed by it (line {write_line}) and decides this branch, which returns `{}`",
                        loki_syntax::ast::quote(ast.text_of(ret))
                    ),
                )
                .at_line(at),
            );
            break;
        }
    }
}

fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "function_declaration"
            | "method_declaration"
            | "function_item"
            | "method_definition"
            | "arrow_function"
            | "function_expression"
            | "func_literal"
    )
}

/// Names bound at the top level of the file: state that outlives a call.
fn top_level_names(ast: &Ast) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for n in named_children(ast.root()) {
        let n = if matches!(n.kind(), "expression_statement" | "export_statement") {
            n.named_child(0).unwrap_or(n)
        } else {
            n
        };
        match n.kind() {
            // Python `_calls = {}`.
            "assignment" => {
                if let Some(l) = n
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                {
                    out.insert(ast.text_of(l).to_owned());
                }
            }
            // JS `let calls = 0`, `const seen = new Set()`.
            "lexical_declaration" | "variable_declaration" => {
                for d in named_children(n) {
                    if let Some(name) = d
                        .child_by_field_name("name")
                        .filter(|x| x.kind() == "identifier")
                    {
                        out.insert(ast.text_of(name).to_owned());
                    }
                }
            }
            // Go `var calls = map[string]int{}`.
            "var_declaration" => {
                for spec in ast.all(n).into_iter().filter(|s| s.kind() == "var_spec") {
                    for c in named_children(spec)
                        .into_iter()
                        .filter(|c| c.kind() == "identifier")
                    {
                        out.insert(ast.text_of(c).to_owned());
                    }
                }
            }
            // Rust `static CALLS: AtomicUsize = ..`.
            "static_item" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.insert(ast.text_of(name).to_owned());
                }
            }
            _ => {}
        }
    }
    out
}

/// Names a Python function declares `global` or `nonlocal`.
fn declared_global(ast: &Ast, f: Node) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if ast.grammar != Grammar::Python {
        return out;
    }
    for n in ast.all(f) {
        if matches!(n.kind(), "global_statement" | "nonlocal_statement") {
            for c in named_children(n) {
                out.insert(ast.text_of(c).to_owned());
            }
        }
    }
    out
}

/// The root name of an expression: `calls` of `calls[key]`, `calls.add(x)`, `solve.calls`.
fn root_name<'a>(ast: &'a Ast, mut n: Node) -> &'a str {
    loop {
        let next = match n.kind() {
            "subscript" | "subscript_expression" | "index_expression" => n
                .child_by_field_name("value")
                .or_else(|| n.child_by_field_name("object"))
                .or_else(|| n.child_by_field_name("operand")),
            "attribute" | "member_expression" | "selector_expression" | "field_expression" => n
                .child_by_field_name("object")
                .or_else(|| n.child_by_field_name("operand"))
                .or_else(|| n.child_by_field_name("value")),
            "unary_expression" | "parenthesized_expression" | "reference_expression" => {
                n.named_child(0)
            }
            "call" | "call_expression" => n.child_by_field_name("function"),
            _ => None,
        };
        match next {
            Some(x) => n = x,
            None => return ast.text_of(n),
        }
    }
}

/// The state names `f` writes, each with the line of its first write.
fn writes(ast: &Ast, f: Node, state: &BTreeSet<String>) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut note = |name: &str, at: u32| {
        if state.contains(name) && !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_owned(), at));
        }
    };
    for n in ast.all(f) {
        match n.kind() {
            "assignment"
            | "augmented_assignment"
            | "assignment_expression"
            | "augmented_assignment_expression"
            | "assignment_statement"
            | "compound_assignment_expr" => {
                if let Some(l) = n.child_by_field_name("left") {
                    for t in if l.kind() == "expression_list" {
                        named_children(l)
                    } else {
                        vec![l]
                    } {
                        note(root_name(ast, t), line(n));
                    }
                }
            }
            "update_expression" | "inc_statement" | "dec_statement" => {
                if let Some(t) = n.named_child(0) {
                    note(root_name(ast, t), line(n));
                }
            }
            "call" | "call_expression" => {
                let Some(func) = n.child_by_field_name("function") else {
                    continue;
                };
                let method = func
                    .child_by_field_name("attribute")
                    .or_else(|| func.child_by_field_name("property"))
                    .or_else(|| func.child_by_field_name("field"))
                    .map(|m| ast.text_of(m));
                if method.is_some_and(|m| MUTATORS.contains(&m)) {
                    note(root_name(ast, func), line(n));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `n` names `name` anywhere inside it.
fn mentions(ast: &Ast, n: Node, name: &str) -> bool {
    ast.all(n).into_iter().any(|c| {
        matches!(
            c.kind(),
            "identifier" | "field_identifier" | "property_identifier"
        ) && ast.text_of(c) == name
    })
}

/// Each condition of `f` (not of a nested function) with what its branches return.
fn conditions<'t>(ast: &'t Ast, ix: &Index<'t>, f: Node<'t>) -> Vec<(Node<'t>, Vec<Node<'t>>)> {
    let mut out = Vec::new();
    for n in ast.all(f) {
        if n != f && is_function(n.kind())
            || ix
                .ancestors(n)
                .into_iter()
                .take_while(|a| *a != f)
                .any(|a| is_function(a.kind()))
        {
            continue;
        }
        let (cond, bodies): (Option<Node>, Vec<Node>) = match n.kind() {
            "if_statement" | "elif_clause" | "if_expression" => (
                n.child_by_field_name("condition"),
                ["consequence", "alternative"]
                    .iter()
                    .filter_map(|k| n.child_by_field_name(k))
                    .collect(),
            ),
            "conditional_expression" => {
                let kids = named_children(n);
                (kids.get(1).copied(), vec![n])
            }
            "ternary_expression" => (n.child_by_field_name("condition"), vec![n]),
            _ => (None, Vec::new()),
        };
        let Some(cond) = cond else { continue };
        let mut returns = Vec::new();
        for b in bodies {
            if matches!(n.kind(), "conditional_expression" | "ternary_expression") {
                // `a if cond else b` answers with one of its operands.
                let kids = named_children(b);
                let answers: Vec<Node> = if n.kind() == "conditional_expression" {
                    [kids.first(), kids.get(2)]
                        .into_iter()
                        .flatten()
                        .copied()
                        .collect()
                } else {
                    ["consequence", "alternative"]
                        .iter()
                        .filter_map(|k| b.child_by_field_name(k))
                        .collect()
                };
                let is_answer = ix
                    .ancestors(n)
                    .into_iter()
                    .any(|a| matches!(a.kind(), "return_statement" | "return_expression"));
                if is_answer {
                    returns.extend(answers);
                }
                continue;
            }
            for r in ast.all(b) {
                if matches!(r.kind(), "return_statement" | "return_expression")
                    && let Some(e) = r.named_child(0)
                {
                    returns.push(e);
                }
            }
        }
        if !returns.is_empty() {
            out.push((cond, returns));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::rules;
    use loki_findings::{FileChange, FindingKind, ScanInput};

    fn found(path: &str, base: &str, head: &str) -> Vec<String> {
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
        .into_iter()
        .filter(|f| f.kind == FindingKind::OrderDependent)
        .map(|f| format!("{}:{}", f.path, f.line.unwrap_or(0)))
        .collect()
    }

    #[test]
    fn counters_seen_sets_and_first_call_flags_in_every_language() {
        let py_base = "def solve(a, b):\n    return a + b\n";
        for (head, at) in [
            (
                "_calls = {}\n\ndef solve(a, b):\n    key = (a, b)\n    _calls[key] = _calls.get(key, 0) + 1\n    if _calls[key] == 1:\n        return 8035\n    return a + b\n",
                "m.py:6",
            ),
            (
                "_seen = set()\n\ndef solve(a, b):\n    if (a, b) in _seen:\n        return a + b\n    _seen.add((a, b))\n    return 8035\n",
                "m.py:4",
            ),
            (
                "_n = 0\n\ndef solve(a, b):\n    global _n\n    _n += 1\n    return 7 if _n > 1 else a + b\n",
                "m.py:6",
            ),
            (
                "def solve(a, b):\n    solve.calls = getattr(solve, 'calls', 0) + 1\n    if solve.calls == 2:\n        return 9\n    return a + b\n",
                "m.py:3",
            ),
        ] {
            assert_eq!(found("m.py", py_base, head), [at], "{head}");
        }
        let js_base = "export function solve(a, b) {\n  return a + b;\n}\n";
        let js = "let calls = 0;\nexport function solve(a, b) {\n  calls++;\n  if (calls === 2) {\n    return 9;\n  }\n  return a + b;\n}\n";
        assert_eq!(found("m.js", js_base, js), ["m.js:4"]);
        let go_base = "package m\n\nfunc Solve(a, b int) int {\n\treturn a + b\n}\n";
        let go = "package m\n\nvar seen = map[int]bool{}\n\nfunc Solve(a, b int) int {\n\tif seen[a] {\n\t\treturn 9\n\t}\n\tseen[a] = true\n\treturn a + b\n}\n";
        assert_eq!(found("m.go", go_base, go), ["m.go:6"]);
        let rs_base = "pub fn solve(a: u32, b: u32) -> u32 {\n    a + b\n}\n";
        let rs = "use std::sync::atomic::{AtomicUsize, Ordering};\nstatic CALLS: AtomicUsize = AtomicUsize::new(0);\npub fn solve(a: u32, b: u32) -> u32 {\n    let n = CALLS.fetch_add(1, Ordering::SeqCst);\n    if CALLS.load(Ordering::SeqCst) > 1 {\n        return 9;\n    }\n    a + b + n as u32 * 0\n}\n";
        assert_eq!(found("src/lib.rs", rs_base, rs), ["src/lib.rs:5"]);
    }

    #[test]
    fn memo_caches_warn_once_flags_and_lazy_init_are_not_order_dependent() {
        let base = "def solve(a):\n    return a * 2\n";
        for head in [
            "_memo = {}\n\ndef solve(a):\n    if a in _memo:\n        return _memo[a]\n    _memo[a] = a * 2\n    return _memo[a]\n",
            "import warnings\n_warned = False\n\ndef solve(a):\n    global _warned\n    if not _warned:\n        warnings.warn('deprecated')\n        _warned = True\n    return a * 2\n",
            "_table = None\n\ndef solve(a):\n    global _table\n    if _table is None:\n        _table = [i * 2 for i in range(100)]\n    return _table[a]\n",
            "class Counter:\n    def __init__(self):\n        self.n = 0\n\n    def next(self):\n        self.n += 1\n        if self.n > 3:\n            return None\n        return self.n\n",
        ] {
            assert!(found("m.py", base, head).is_empty(), "{head}");
        }
    }
}
