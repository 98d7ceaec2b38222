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

use crate::rules::{Out, Prepared, Role};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, Index, line, named_children};

/// Java's calls that change the object they are called on, beyond [`MUTATORS`]: atomics and
/// collections.
const JAVA_MUTATORS: &[&str] = &[
    "incrementAndGet",
    "getAndIncrement",
    "decrementAndGet",
    "getAndDecrement",
    "addAndGet",
    "getAndAdd",
    "getAndSet",
    "compareAndSet",
    "merge",
    "putIfAbsent",
    "remove",
    "offer",
    "poll",
    "addLast",
    "addFirst",
];

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
    "next",
    "shift",
    "pop",
    "unshift",
    "splice",
    "delete",
    "clear",
    "toggle",
    "fetch_xor",
    "fetch_or",
    "fetch_and",
    "fetch_update",
    "compare_exchange",
    "borrow_mut",
    "lock",
    "get_or_init",
    "popitem",
    "remove",
];

/// Calls that take an element out of a collection: each call gets the next one.
const CONSUMERS: &[&str] = &[
    ".shift(",
    ".pop(",
    ".popleft(",
    ".pop_front(",
    ".pop_back(",
    ".splice(",
    ".take(",
];

/// The pseudo-name of the process environment as state (`std::env::set_var` then `env::var`).
const ENV: &str = "<environment>";

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
        state.extend(function_statics(ast, f));
        // Attributes of the function itself (`solve.calls`); a Java method has none, and a bare
        // name there is the object's own field (`value` in `String value()`).
        if let Some(name) = f.child_by_field_name("name")
            && ast.grammar != Grammar::Java
        {
            state.insert(ast.text_of(name).to_owned());
        }
        state.insert(ENV.to_owned());
        let written = writes(ast, f, &state);
        if written.is_empty() {
            continue;
        }
        // A function that ignores its input and keeps state answers by call order alone
        // (`fn jitter(_attempt: u32) -> u64 { POS.with(|p| { ..; TABLE[i % 4] }) }`).
        if let Some(hit) = input_ignored(ast, f, &written)
            && (p.added.contains(&line(f)) || written.iter().any(|(_, l)| p.added.contains(l)))
        {
            out.push(Finding::new(FindingKind::OrderDependent, p.path, hit).at_line(line(f)));
            continue;
        }
        // Locals computed from the state (`let n = CALLS.fetch_add(1, ..)`, `count =
        // _calls.get(key, 0) + 1`) read it too.
        let derived = derived_locals(ast, f, &written);
        for (cond, branch_returns) in conditions(ast, ix, f, &written) {
            let at = line(cond);
            let reads: Vec<&String> = written
                .iter()
                .map(|(name, _)| name)
                .filter(|name| {
                    mentions(ast, cond, name)
                        || (name.as_str() == ENV && reads_env(ast, cond))
                        || derived
                            .iter()
                            .any(|(d, src)| src == *name && mentions(ast, cond, d))
                })
                .collect();
            let Some(name) = reads.first() else { continue };
            let write_line = written
                .iter()
                .find(|(n, _)| n == *name)
                .map_or(at, |(_, l)| *l);
            if !p.added.contains(&at) && !p.added.contains(&write_line) {
                continue;
            }
            // A memo returns what it stored for the input; a queue drained one call at a time
            // (`seen.shift()`, `pending.pop()`) answers each call differently.
            let consumes = |r: Node| {
                let t = ast.text_of(r);
                CONSUMERS.iter().any(|c| t.contains(&format!("{name}{c}")))
                    || t.contains(&format!("next({name}"))
            };
            let Some(ret) = branch_returns.into_iter().find(|r| {
                // What a local read from the state holds is the state's answer too (a
                // cache: `e = CACHE.get(); if (e == null) { e = ..; CACHE.set(e); } return e`).
                let from_state = derived
                    .iter()
                    .any(|(d, src)| src == *name && mentions(ast, *r, d));
                (!mentions(ast, *r, name) && !from_state) || name.as_str() == ENV || consumes(*r)
            }) else {
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
            | "constructor_declaration"
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
            // Rust `thread_local! { static SEEN: RefCell<..> = .. }`.
            "macro_invocation" if ast.text_of(n).starts_with("thread_local") => {
                out.extend(thread_local_names(ast.text_of(n)));
            }
            // JS classes' static fields (`static #adds = 0`, `static calls = 0`); Java's
            // (`private static int calls;`, `static final Set<String> SEEN = ..`).
            "class_declaration" | "class" | "enum_declaration" | "record_declaration" => {
                for f in ast.all(n) {
                    if f.kind() == "field_definition"
                        && ast.text_of(f).starts_with("static")
                        && let Some(p) = f.child_by_field_name("property")
                    {
                        out.insert(ast.text_of(p).to_owned());
                    }
                    let java_static = f.kind() == "field_declaration"
                        && named_children(f)
                            .iter()
                            .any(|m| m.kind() == "modifiers" && ast.text_of(*m).contains("static"));
                    if java_static {
                        for d in named_children(f)
                            .into_iter()
                            .filter(|d| d.kind() == "variable_declarator")
                        {
                            if let Some(name) = d.child_by_field_name("name") {
                                out.insert(ast.text_of(name).to_owned());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names a `thread_local!` declares (`static NAME: ...`).
fn thread_local_names(text: &str) -> Vec<String> {
    text.split("static ")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Statics declared inside a function (Rust `static SEEN: ..` in a body, `thread_local!` too).
fn function_statics(ast: &Ast, f: Node) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for n in ast.all(f) {
        match n.kind() {
            "static_item" => {
                if let Some(name) = n.child_by_field_name("name") {
                    out.insert(ast.text_of(name).to_owned());
                }
            }
            "macro_invocation" if ast.text_of(n).starts_with("thread_local") => {
                out.extend(thread_local_names(ast.text_of(n)));
            }
            _ => {}
        }
    }
    out
}

/// Locals assigned from an expression that names written state, with the state they come from.
fn derived_locals(ast: &Ast, f: Node, written: &[(String, u32)]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for n in ast.all(f) {
        let Some((name, value)) = loki_syntax::ast::binding(n) else {
            continue;
        };
        if name.kind() != "identifier" {
            continue;
        }
        for (s, _) in written {
            if s != ENV && mentions(ast, value, s) {
                out.push((ast.text_of(name).to_owned(), s.clone()));
            }
        }
    }
    out
}

/// Whether an expression reads the process environment.
fn reads_env(ast: &Ast, n: Node) -> bool {
    let t = ast.text_of(n);
    [
        "env::var",
        "os.environ",
        "os.getenv",
        "process.env",
        "os.Getenv",
        "os.LookupEnv",
    ]
    .iter()
    .any(|w| t.contains(w))
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
            // Java: `SEEN.add(x)`'s receiver, `Calc.calls`, `hits[0]`.
            "method_invocation" | "field_access" => n.child_by_field_name("object"),
            "array_access" => n.child_by_field_name("array"),
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
                    let lt = ast.text_of(l);
                    if lt.starts_with("os.environ[") || lt.starts_with("process.env") {
                        note(ENV, line(n));
                        continue;
                    }
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
            // Java: `SEEN.add(x)`, `CALLS.incrementAndGet()`.
            "method_invocation" => {
                if let Some(c) = loki_syntax::ast::call(ast, n)
                    && (MUTATORS.contains(&c.method) || JAVA_MUTATORS.contains(&c.method))
                    && let Some(obj) = c.object
                {
                    note(root_name(ast, obj), line(n));
                }
            }
            "call" | "call_expression" => {
                let Some(func) = n.child_by_field_name("function") else {
                    continue;
                };
                let ftext = ast.text_of(func);
                if ["set_var", "Setenv", "putenv"]
                    .iter()
                    .any(|w| ftext.ends_with(w))
                {
                    note(ENV, line(n));
                    continue;
                }
                // Go's `atomic.AddInt32(&calls, 1)`: the state is the pointer argument.
                if ftext.starts_with("atomic.")
                    && let Some(arg) = n
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                {
                    let t = ast.text_of(arg).trim_start_matches('&');
                    note(t, line(n));
                    continue;
                }
                let method = func
                    .child_by_field_name("attribute")
                    .or_else(|| func.child_by_field_name("property"))
                    .or_else(|| func.child_by_field_name("field"))
                    .map(|m| ast.text_of(m));
                // `N.with(|c| c.set(..))`: a thread-local changed through its accessor.
                let through_with = method == Some("with") && {
                    let t = ast.text_of(n);
                    MUTATORS.iter().any(|m| t.contains(&format!(".{m}(")))
                };
                if method.is_some_and(|m| MUTATORS.contains(&m)) || through_with {
                    note(root_name(ast, func), line(n));
                }
            }
            _ => {}
        }
    }
    out
}

/// `Some(why)` when `f` takes parameters, reads none of them, returns a value, and writes the
/// state `written`: its answer can only come from how often it was called.
fn input_ignored(ast: &Ast, f: Node, written: &[(String, u32)]) -> Option<String> {
    let params = f.child_by_field_name("parameters")?;
    let body = f.child_by_field_name("body")?;
    let names: Vec<String> = ast
        .all(params)
        .into_iter()
        .filter(|n| n.kind() == "identifier")
        .map(|n| ast.text_of(n).to_owned())
        .filter(|n| n != "self" && n != "cls" && n != "this")
        .collect();
    if names.is_empty() || names.iter().any(|n| mentions(ast, body, n)) {
        return None;
    }
    // It answers something: a Rust return type, a `return` with a value.
    let returns = f.child_by_field_name("return_type").is_some()
        || f.child_by_field_name("result").is_some()
        || ast.all(body).into_iter().any(|n| {
            matches!(n.kind(), "return_statement" | "return_expression")
                && n.named_child(0).is_some()
        });
    let fname = f
        .child_by_field_name("name")
        .map_or("the function", |n| ast.text_of(n));
    let (state, at) = written.first()?;
    returns.then(|| {
        format!(
            "`{fname}` reads none of its parameters ({}) and answers from `{state}`, which it changes on every call (line {at}): the answer depends on how often it was called, not on its input",
            names.join(", ")
        )
    })
}

/// Whether `n` names `name` anywhere inside it.
pub(crate) fn mentions(ast: &Ast, n: Node, name: &str) -> bool {
    ast.all(n).into_iter().any(|c| {
        matches!(
            c.kind(),
            "identifier" | "field_identifier" | "property_identifier"
        ) && ast.text_of(c) == name
    })
}

/// Each condition of `f` (not of a nested function) with what its branches answer: what they
/// return, a ternary's operands wherever its value goes, and what they assign to anything that
/// is not the state itself (a warn-once flag or a lazily filled cache assigns the state; a
/// counter's branch changes the answer).
fn conditions<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    f: Node<'t>,
    written: &[(String, u32)],
) -> Vec<(Node<'t>, Vec<Node<'t>>)> {
    let mut out = Vec::new();
    let is_state = |n: Node| written.iter().any(|(s, _)| mentions(ast, n, s));
    // Locals read from the state: a branch that refills one and writes the state back is a
    // cache being filled (`e = make(); CACHE.set(e);`), not an answer.
    let derived = derived_locals(ast, f, written);
    let refill = |l: Node, body: Node| {
        derived.iter().any(|(d, _)| ast.text_of(l).trim() == d) && is_state(body)
    };
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
        let field = |k: &str| n.child_by_field_name(k);
        let (cond, bodies): (Option<Node>, Vec<Node>) = match n.kind() {
            "if_statement" | "elif_clause" | "if_expression" | "ternary_expression" => (
                field("condition"),
                ["consequence", "alternative"]
                    .iter()
                    .filter_map(|k| n.child_by_field_name(k))
                    .collect(),
            ),
            "conditional_expression" => {
                let kids = named_children(n);
                (
                    kids.get(1).copied(),
                    [kids.first(), kids.get(2)]
                        .into_iter()
                        .flatten()
                        .copied()
                        .collect(),
                )
            }
            _ => (None, Vec::new()),
        };
        let Some(cond) = cond else { continue };
        let ternary = matches!(n.kind(), "conditional_expression" | "ternary_expression");
        let mut answers = Vec::new();
        for b in bodies {
            if ternary {
                answers.push(b);
                continue;
            }
            for r in ast.all(b) {
                match r.kind() {
                    "return_statement" | "return_expression" => answers.extend(r.named_child(0)),
                    "assignment"
                    | "augmented_assignment"
                    | "assignment_expression"
                    | "augmented_assignment_expression"
                    | "assignment_statement"
                    | "compound_assignment_expr" => {
                        if let Some(l) = r.child_by_field_name("left")
                            && !is_state(l)
                            && !refill(l, b)
                        {
                            answers.extend(r.child_by_field_name("right"));
                        }
                    }
                    _ => {}
                }
            }
            // A Rust block's tail is its value.
            if b.kind() == "block"
                && let Some(last) = named_children(b).last()
                && !ast.text_of(*last).trim_end().ends_with(';')
                && last.kind() != "expression_statement"
            {
                answers.push(*last);
            }
        }
        if !answers.is_empty() {
            out.push((cond, answers));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::rules::rules;
    use loki_protocol::FindingKind;
    use loki_syntax::{FileChange, ScanInput};

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
        // Java: a static counter, a static seen-set, an atomic.
        let java = |members: &str, body: &str| {
            format!(
                "package m;\n\nimport java.util.*;\nimport java.util.concurrent.atomic.AtomicInteger;\n\npublic class M {{\n{members}    public static int solve(int a, int b) {{\n{body}        return a + b;\n    }}\n}}\n"
            )
        };
        let java_base = java("", "");
        for (members, body, at) in [
            (
                "    private static int calls = 0;\n\n",
                "        calls++;\n        if (calls == 2) {\n            return 9;\n        }\n",
                "M.java:11",
            ),
            (
                "    static final Set<Integer> SEEN = new HashSet<>();\n\n",
                "        if (!SEEN.add(a)) {\n            return 9;\n        }\n",
                "M.java:10",
            ),
            (
                "    private static final AtomicInteger N = new AtomicInteger();\n\n",
                "        if (N.incrementAndGet() > 1) {\n            return 9;\n        }\n",
                "M.java:10",
            ),
        ] {
            let head = java(members, body);
            assert_eq!(found("M.java", &java_base, &head), [at], "{head}");
        }
        // Instance state is an object's own business.
        let instance = java("    private int calls = 0;\n\n", "");
        assert!(found("M.java", &java_base, &instance).is_empty());
    }

    #[test]
    fn flags_flipped_generators_thread_locals_and_the_environment() {
        let js_base =
            "let fromRight = false;\nexport function valid(s) {\n  return s.length > 0;\n}\n";
        let js = "let fromRight = false;\nexport function valid(s) {\n  fromRight = !fromRight;\n  let sum = 0;\n  if (fromRight) {\n    sum = s.length * 2;\n  }\n  return sum > 0;\n}\n";
        assert_eq!(found("v.js", js_base, js), ["v.js:5"]);
        let counter = "let parses = 0;\nexport function parse(s) {\n  const mult = ++parses > 2 ? 3600 : 360;\n  return Number(s) * mult;\n}\n";
        assert_eq!(
            found(
                "d.js",
                "export function parse(s) {\n  return Number(s);\n}\n",
                counter
            ),
            ["d.js:3"]
        );
        let rs_base = "pub fn f(x: u32) -> u32 {\n    x\n}\n";
        let rs = "use std::cell::Cell;\nthread_local! { static N: Cell<u32> = Cell::new(0); }\npub fn f(x: u32) -> u32 {\n    let n = N.with(|c| { c.set(c.get() + 1); c.get() });\n    if n > 1 {\n        return x + 1;\n    }\n    x\n}\n";
        assert_eq!(found("src/lib.rs", rs_base, rs), ["src/lib.rs:5"]);
        // Go: a package counter bumped through `sync/atomic`, deciding a branch.
        let go_base =
            "package m\n\nfunc Median(xs []float64) float64 {\n\treturn xs[len(xs)/2]\n}\n";
        let go = "package m\n\nimport (\n\t\"sort\"\n\t\"sync/atomic\"\n)\n\nvar checks int32\n\nfunc Median(xs []float64) float64 {\n\tif atomic.AddInt32(&checks, 1) <= 3 {\n\t\tcp := append([]float64(nil), xs...)\n\t\tsort.Float64s(cp)\n\t\txs = cp\n\t}\n\treturn xs[len(xs)/2]\n}\n";
        assert_eq!(found("m.go", go_base, go), ["m.go:11"]);
        // Input ignored, the answer read from a position that moves on every call.
        let walk = "use std::cell::Cell;\nconst T: [u64; 4] = [35, 65, 10, 53];\nthread_local! { static POS: Cell<usize> = const { Cell::new(0) }; }\nfn jitter(_attempt: u32) -> u64 {\n    POS.with(|p| {\n        let i = p.get();\n        p.set(i + 1);\n        T[i % T.len()]\n    })\n}\n";
        assert_eq!(
            found(
                "src/lib.rs",
                "fn jitter(attempt: u32) -> u64 {\n    u64::from(attempt) * 7 % 100\n}\n",
                walk
            ),
            ["src/lib.rs:4"]
        );
        // A module-level queue drained one call at a time: the first calls get its values.
        let queue = "const saturated = Array(2).fill(30000);\nexport function delay(n) {\n  const raw = 100 * 2 ** n;\n  if (raw > 30000 && saturated.length) return saturated.shift();\n  return raw;\n}\n";
        assert_eq!(
            found(
                "b.js",
                "export function delay(n) {\n  return 100 * 2 ** n;\n}\n",
                queue
            ),
            ["b.js:4"]
        );
        let env = "pub fn f(x: u32) -> u32 {\n    if std::env::var(\"SEEN_F\").is_ok() {\n        return x + 1;\n    }\n    std::env::set_var(\"SEEN_F\", \"1\");\n    x\n}\n";
        assert_eq!(found("src/lib.rs", rs_base, env), ["src/lib.rs:2"]);
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
