//! `run_takeover`: code the runner loads that decides how the run ends instead of the tests. New
//! since base:
//! - Go `_test.go`: a `TestMain(m *testing.M)` that never calls `m.Run()`, exits 0 whatever
//!   happened (`os.Exit(0)`), discards `m.Run()`'s result and then exits with its own code, or
//!   prints runner-shaped text (`PASS`, `FAIL`, `ok  `, `--- PASS`, `=== RUN`, test2json
//!   `"Action"`); and `os.Exit`, `syscall.Exit`, `runtime.Goexit` anywhere else in test code
//!   (`TestMain` returning normally, or `os.Exit(m.Run())`, is the idiom and is quiet).
//! - Python test code (test files, conftest.py, pytest plugins, jest-style setup files do not
//!   apply) and `sitecustomize.py`/`usercustomize.py`: `os._exit`, `sys.exit`, `exit`/`quit`,
//!   `os.abort`, `raise SystemExit`, `atexit.register`, `os.kill(os.getpid(), ..)`,
//!   `signal.signal` (except `SIGALRM`, the timeout idiom), and assigning `session.exitstatus`
//!   (`pytest_sessionfinish`); anything under `if __name__ == "__main__":` is a script's own
//!   entry point and is quiet. In library code only what runs at import: module-level
//!   `os._exit`, `sys.exit`, `os.kill(os.getpid())`, and `atexit.register` of a handler that
//!   exits.
//! - JS/TS test and setup files and runner configs: `process.exit`, `process.reallyExit`,
//!   `process.abort`, `process.kill(process.pid)`, `process.exitCode = ..`,
//!   `process.on/once('exit' | 'beforeExit', ..)`; in library code the same at module top level,
//!   except in scripts (a `#!` line) and under a `require.main === module` / `import.meta`
//!   entry guard.
//! - Rust test code and `build.rs`: `std::process::exit`, `process::abort`, `libc::_exit`; a
//!   `build.rs` that emits `cargo:rustc-cfg` or `cargo:rustc-env` (it can switch code on under
//!   test).
//! - A `.pth` file's `import` lines (Python runs them at interpreter start).

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role, View};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Grammar, Index, line};
use loki_syntax::diff::{Hit, new_hits};
use loki_syntax::literals::{Lit, literal};

pub fn rules(p: &Prepared, out: &mut Out) {
    if p.path.ends_with(".pth") {
        pth(p, out);
        return;
    }
    let name = p.path.rsplit('/').next().unwrap_or(p.path);
    // Test data: scripts that tests run as child processes (to check a CLI's exit code) exit on
    // purpose, and the runner never loads them.
    let data = p.path.split('/').rev().skip(1).any(|d| {
        matches!(
            d,
            "fixtures" | "fixture" | "__fixtures__" | "testdata" | "test_data" | "data"
        )
    });
    if data {
        return;
    }
    let startup = matches!(name, "sitecustomize.py" | "usercustomize.py");
    let build_rs = name == "build.rs";
    let script = p.head_text.as_deref().is_some_and(|t| t.starts_with("#!"));
    p.diff(
        FindingKind::RunTakeover,
        |side, role| hits(side, role, startup, build_rs, script),
        out,
    );
}

/// `.pth` lines that run code.
fn pth(p: &Prepared, out: &mut Out) {
    let Some(head) = &p.head_text else { return };
    let lines = |t: &str| -> Vec<Hit> {
        t.lines()
            .enumerate()
            .filter(|(_, l)| {
                let l = l.trim_start();
                l.starts_with("import ") || l.starts_with("import\t")
            })
            .map(|(i, l)| {
                Hit::new(
                    u32::try_from(i + 1).unwrap_or(u32::MAX),
                    l.trim().to_owned(),
                    format!(
                        "`{}` runs at every Python start-up, before and around the tests",
                        loki_syntax::ast::quote(l)
                    ),
                )
            })
            .collect()
    };
    let base = p.base_text.as_deref().map(lines).unwrap_or_default();
    for h in new_hits(&base, lines(head), &p.added) {
        out.push(Finding::new(FindingKind::RunTakeover, p.path, h.detail).at_line(h.line));
    }
}

fn hits(side: &View, role: Role, startup: bool, build_rs: bool, script: bool) -> Vec<Hit> {
    let ast = &side.ast;
    let mut out = Vec::new();
    match ast.grammar {
        Grammar::Go => {
            if role == Role::Test {
                go(ast, side.index(), &mut out);
            }
        }
        Grammar::Python => python(side, role, startup, &mut out),
        Grammar::Rust => rust(side, role, build_rs, &mut out),
        _ => js(side, role, script, &mut out),
    }
    out
}

fn enclosing_fn_name<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> String {
    ix.ancestors(n)
        .into_iter()
        .find(|a| {
            matches!(
                a.kind(),
                "function_definition"
                    | "function_item"
                    | "function_declaration"
                    | "method_declaration"
                    | "method_definition"
            )
        })
        .map_or_else(String::new, |f| ast.field_text(f, "name").to_owned())
}

fn hit<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>, why: &str) -> Hit {
    Hit::new(
        line(n),
        format!("{}:{}", enclosing_fn_name(ast, ix, n), ast.squashed(n)),
        format!("`{}` {why}", ast.quote(n)),
    )
}

// -------------------------------------------------------------------------------------------- Go

/// Text the go test runner prints for results; code under test printing it forges the report.
fn runner_shaped(s: &str) -> bool {
    let t = s.trim_start();
    t.starts_with("PASS")
        || t.starts_with("FAIL")
        || t.starts_with("ok ")
        || t.starts_with("ok\t")
        || t.contains("--- PASS")
        || t.contains("--- FAIL")
        || t.contains("=== RUN")
        || t.contains("\"Action\"")
}

fn go<'a>(ast: &'a Ast, ix: &Index<'a>, out: &mut Vec<Hit>) {
    for &n in ix.nodes() {
        if n.kind() == "function_declaration" && ast.field_text(n, "name") == "TestMain" {
            test_main(ast, ix, n, out);
            continue;
        }
        if n.kind() == "call_expression"
            && matches!(
                ast.field_text(n, "function"),
                "os.Exit" | "syscall.Exit" | "runtime.Goexit"
            )
            && enclosing_fn_name(ast, ix, n) != "TestMain"
        {
            out.push(hit(
                ast,
                ix,
                n,
                "ends the test process from test code, so the runner reports what this decides",
            ));
        }
    }
}

/// A `TestMain` that never runs the tests, decides the exit code itself, or prints
/// runner-shaped text.
fn test_main<'a>(ast: &'a Ast, ix: &Index<'a>, n: Node<'a>, out: &mut Vec<Hit>) {
    let Some(body) = n.child_by_field_name("body") else {
        return;
    };
    let m = n
        .child_by_field_name("parameters")
        .and_then(|p| p.named_child(0))
        .and_then(|p| p.child_by_field_name("name"))
        .map_or("m", |x| ast.text_of(x));
    let run = format!("{m}.Run");
    let all_calls: Vec<Node<'a>> = ast
        .all(body)
        .into_iter()
        .filter(|c| c.kind() == "call_expression")
        .collect();
    let runs: Vec<&Node> = all_calls
        .iter()
        .filter(|c| ast.field_text(**c, "function") == run)
        .collect();
    if runs.is_empty() {
        out.push(Hit::new(
            line(n),
            "TestMain:no-run".to_owned(),
            format!(
                "`{}` never calls {run}(), so no test runs and the exit code is its own",
                ast.quote(n)
            ),
        ));
    }
    let discarded = runs.iter().any(|r| {
        ix.parent(**r)
            .is_some_and(|p| p.kind() == "expression_statement")
    });
    for e in all_calls
        .iter()
        .filter(|c| ast.field_text(**c, "function") == "os.Exit")
    {
        let arg = e
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0));
        let zero = arg.is_some_and(|a| literal(ast, a) == Some(Lit::Num("0".into())));
        if zero {
            out.push(hit(
                ast,
                ix,
                *e,
                "in TestMain exits 0 whatever the tests did",
            ));
        } else if discarded && arg.is_some_and(|a| !ast.text_of(a).contains(&run)) {
            out.push(hit(
                ast,
                ix,
                *e,
                &format!("in TestMain exits with its own code after discarding {run}()'s result"),
            ));
        }
    }
    for c in all_calls.iter().filter(|c| prints_runner_text(ast, **c)) {
        out.push(hit(
            ast,
            ix,
            *c,
            "in TestMain prints text shaped like the runner's results",
        ));
    }
}

/// A print call whose text is shaped like the runner's results.
fn prints_runner_text(ast: &Ast, c: Node) -> bool {
    let f = ast.field_text(c, "function");
    let prints = f.starts_with("fmt.Print")
        || f.starts_with("fmt.Fprint")
        || f.starts_with("os.Stdout.")
        || f.starts_with("os.Stderr.")
        || f == "println"
        || f == "print";
    prints
        && ast
            .all(c)
            .into_iter()
            .any(|s| matches!(literal(ast, s), Some(Lit::Str(t)) if runner_shaped(&t)))
}

// ---------------------------------------------------------------------------------------- Python

fn under_main_guard<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    ix.ancestors(n).into_iter().any(|a| {
        a.kind() == "if_statement" && {
            let c = ast.field_text(a, "condition");
            c.contains("__name__") && c.contains("__main__")
        }
    })
}

fn py_top_level<'t>(ix: &Index<'t>, n: Node<'t>) -> bool {
    !ix.ancestors(n).into_iter().any(|a| {
        matches!(
            a.kind(),
            "function_definition" | "class_definition" | "lambda"
        )
    })
}

/// `sys.exit(..)`, `exit(..)`, `quit(..)`, `raise SystemExit`: exits that raise, which pytest
/// turns into a failure when they happen inside a test.
fn soft_exit(ast: &Ast, n: Node) -> Option<&'static str> {
    match n.kind() {
        "call" if matches!(ast.field_text(n, "function"), "sys.exit" | "exit" | "quit") => {
            Some("exits the process, so the run's status is this call's")
        }
        "raise_statement"
            if ast
                .text_of(n)
                .trim_start_matches("raise")
                .trim_start()
                .starts_with("SystemExit") =>
        {
            Some("exits the process, so the run's status is this statement's")
        }
        _ => None,
    }
}

/// Whether `n` runs at import (module level) or inside a pytest hook (`pytest_*`).
fn module_or_hook<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    let f = ix.ancestors(n).into_iter().find(|a| {
        matches!(
            a.kind(),
            "function_definition" | "lambda" | "class_definition"
        )
    });
    f.is_none_or(|f| {
        f.kind() == "function_definition" && ast.field_text(f, "name").starts_with("pytest_")
    })
}

/// Whether a Python call ends the process (`os._exit(..)`, `sys.exit(..)`, `os.kill(os.getpid())`).
fn py_exit_call(ast: &Ast, n: Node) -> Option<&'static str> {
    if n.kind() != "call" {
        return None;
    }
    let f = ast.field_text(n, "function");
    let args = ast.field_text(n, "arguments");
    match f {
        "os._exit" | "_exit" => {
            Some("ends the interpreter on the spot, skipping pytest's own exit status")
        }
        "sys.exit" | "exit" | "quit" => {
            Some("exits the process, so the run's status is this call's")
        }
        "os.abort" => Some("aborts the process"),
        "os.kill" if args.contains("getpid") => Some("signals the test process itself"),
        _ => None,
    }
}

fn python(side: &View, role: Role, startup: bool, out: &mut Vec<Hit>) {
    let ast = &side.ast;
    let ix = side.index();
    let loaded = role == Role::Test || startup;
    for &n in ix.nodes() {
        let test_code = loaded || side.in_test_region(n);
        let why: Option<String> = if test_code {
            let soft = soft_exit(ast, n);
            match n.kind() {
                // pytest reports a `SystemExit` raised inside a test as that test's failure; only
                // one raised at import or from a hook ends the run.
                _ if soft.is_some() => soft.filter(|_| module_or_hook(ast, ix, n)),
                "call" => py_exit_call(ast, n).or_else(|| match ast.field_text(n, "function") {
                    "atexit.register" => Some("registers an exit handler that runs after the tests and can change how the run ends"),
                    "signal.signal" if !ast.field_text(n, "arguments").contains("SIGALRM") => {
                        Some("installs a signal handler in the test process")
                    }
                    _ => None,
                }),
                "assignment" if ast.field_text(n, "left").ends_with(".exitstatus") => {
                    Some("overwrites pytest's exit status")
                }
                _ => None,
            }
            .map(str::to_owned)
        } else if role == Role::Source {
            py_exit_call(ast, n)
                .map(|w| format!("at import time {w}"))
                .or_else(|| {
                    (n.kind() == "call"
                        && ast.field_text(n, "function") == "atexit.register"
                        && handler_exits(ast, ix, n))
                    .then(|| {
                        "registers, at import time, an exit handler that ends the process"
                            .to_owned()
                    })
                })
                .filter(|_| py_top_level(ix, n))
        } else {
            None
        };
        if let Some(why) = why
            && !under_main_guard(ast, ix, n)
        {
            out.push(hit(ast, ix, n, &why));
        }
    }
}

/// Whether the handler `atexit.register(h)` registers exits the process (a lambda, or a function
/// defined in the same file).
fn handler_exits<'t>(ast: &Ast, ix: &Index<'t>, call: Node<'t>) -> bool {
    let Some(h) = call
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
    else {
        return false;
    };
    let body = match h.kind() {
        "lambda" => Some(h),
        "identifier" => {
            let name = ast.text_of(h);
            ix.nodes()
                .iter()
                .copied()
                .find(|n| n.kind() == "function_definition" && ast.field_text(*n, "name") == name)
        }
        _ => None,
    };
    body.is_some_and(|b| {
        ast.all(b)
            .into_iter()
            .any(|c| py_exit_call(ast, c).is_some())
    })
}

// ------------------------------------------------------------------------------------------ Rust

fn rust(side: &View, role: Role, build_rs: bool, out: &mut Vec<Hit>) {
    let ast = &side.ast;
    let uses_exit = ast.text.contains("process::exit;") || ast.text.contains("process::{exit");
    let ix = side.index();
    for &n in ix.nodes() {
        let test_code = side.is_test_code(role, n);
        if !(test_code || build_rs) {
            continue;
        }
        match n.kind() {
            "call_expression" => {
                let f = ast.field_text(n, "function");
                let exits = matches!(
                    f,
                    "std::process::exit"
                        | "process::exit"
                        | "::std::process::exit"
                        | "std::process::abort"
                        | "process::abort"
                        | "libc::_exit"
                        | "libc::exit"
                        | "libc::abort"
                ) || (f == "exit" && uses_exit);
                if exits {
                    out.push(hit(
                        ast,
                        ix,
                        n,
                        if build_rs {
                            "ends the build script with its own status"
                        } else {
                            "ends the test binary from a test, so the harness reports what this decides"
                        },
                    ));
                }
            }
            "string_literal" | "raw_string_literal" if build_rs => {
                // Feature detection (`cargo:rustc-cfg=has_x`) is what build scripts are for; a
                // cfg or variable that names tests or CI, or a built-in cfg the code already
                // branches on, makes the build differ under test.
                let Some(Lit::Str(s)) = literal(ast, n) else {
                    continue;
                };
                let Some(value) = [
                    "cargo:rustc-cfg=",
                    "cargo::rustc-cfg=",
                    "cargo:rustc-env=",
                    "cargo::rustc-env=",
                ]
                .iter()
                .find_map(|p| s.trim_start().strip_prefix(p)) else {
                    continue;
                };
                let name = value.split(['=', '"']).next().unwrap_or(value).trim();
                let builtin = matches!(
                    name,
                    "test" | "debug_assertions" | "doc" | "doctest" | "miri"
                );
                // A cfg emitted only for one profile (`PROFILE == "debug"`, how `cargo test`
                // builds) is a switch on being tested.
                let by_profile = ["\"PROFILE\"", "\"DEBUG\"", "\"OPT_LEVEL\""]
                    .iter()
                    .any(|v| ast.text.contains(v));
                if builtin || by_profile || crate::rules::runner::names_test_context(name) {
                    out.push(Hit::new(
                        line(n),
                        format!("build:{s}"),
                        format!(
                            "build.rs emits `{}`, which switches code on or off for the test build",
                            loki_syntax::ast::quote(&s)
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
}

// ---------------------------------------------------------------------------------------- JS/TS

/// Whether `n` sits under a script's entry guard (`if (require.main === module)`,
/// `if (import.meta.main)`, `import.meta.url === ..`).
fn js_entry_guarded<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    ix.ancestors(n).into_iter().any(|a| {
        a.kind() == "if_statement" && {
            let c = ast.field_text(a, "condition");
            c.contains("require.main") || c.contains("import.meta")
        }
    })
}

fn js_top_level<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    !ix.ancestors(n).into_iter().any(|a| {
        matches!(
            a.kind(),
            "function_declaration"
                | "function_expression"
                | "function"
                | "arrow_function"
                | "method_definition"
                | "class_declaration"
                | "class"
                | "generator_function_declaration"
        ) || (a.kind() == "if_statement" && {
            let c = ast.field_text(a, "condition");
            c.contains("require.main") || c.contains("import.meta")
        })
    })
}

fn js(side: &View, role: Role, script: bool, out: &mut Vec<Hit>) {
    let ast = &side.ast;
    let ix = side.index();
    for &n in ix.nodes() {
        let why = match n.kind() {
            "call_expression" => {
                let f = ast.field_text(n, "function");
                let first = n
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0));
                let first_str = first.and_then(|a| match literal(ast, a) {
                    Some(Lit::Str(s)) => Some(s),
                    _ => None,
                });
                match f {
                    "process.exit" | "process.reallyExit" => {
                        Some("exits the process, so the run's status is this call's")
                    }
                    "process.abort" => Some("aborts the test process"),
                    "process.kill" if first.is_some_and(|a| ast.text_of(a) == "process.pid") => {
                        Some("signals the test process itself")
                    }
                    "process.on"
                    | "process.once"
                    | "process.addListener"
                    | "process.prependListener"
                    | "process.prependOnceListener"
                        if matches!(first_str.as_deref(), Some("exit" | "beforeExit")) =>
                    {
                        Some("hooks the process exit, where the run's status can be rewritten")
                    }
                    _ => None,
                }
            }
            "assignment_expression" | "augmented_assignment_expression"
                if ast.field_text(n, "left") == "process.exitCode" =>
            {
                Some("sets the process exit code, overriding the runner's")
            }
            _ => None,
        };
        let Some(why) = why else { continue };
        let test_code = side.is_test_code(role, n);
        if test_code {
            if !script && !js_entry_guarded(ast, ix, n) {
                out.push(hit(ast, ix, n, why));
            }
        } else if role == Role::Source && !script && js_top_level(ast, ix, n) {
            out.push(hit(ast, ix, n, &format!("at import time {why}")));
        }
    }
}
