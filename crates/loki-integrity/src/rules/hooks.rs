//! `run_takeover` (process hooks): library code that installs a hook on the process the tests
//! run in, anywhere (not only at import): what it does decides how a failure is reported or how
//! the run ends, not the code's answers. New since base, in library code (test code and setup
//! files are [`crate::rules::takeover`]'s):
//! - Python: assigning `sys.excepthook`, `threading.excepthook`, `sys.unraisablehook`; calling
//!   `sys.settrace`, `sys.setprofile`, `threading.settrace`; assigning to (or `setattr` on)
//!   `builtins`, `unittest`, `pytest` or `AssertionError` members (exit handlers that end the
//!   process are [`crate::rules::takeover`]'s; one that closes a pool is honest);
//! - JS/TS: `process.on/once/prependListener` for `exit`, `beforeExit`, `uncaughtException`,
//!   `unhandledRejection` or a signal; assigning `process.exitCode`, `process.exit`, or a member of
//!   `assert`/`expect`;
//! - Go: `signal.Notify`, and `os.Exit`/`syscall.Exit` outside package `main`;
//! - Rust: `std::panic::set_hook`/`take_hook`, and `std::process::exit`/`abort` outside a
//!   binary (`src/main.rs`, `src/bin/`, a `main` function);
//! - Java: `Thread.setDefaultUncaughtExceptionHandler`, `Runtime.getRuntime().addShutdownHook`,
//!   `System.setSecurityManager`, and `System.exit`/`Runtime.getRuntime().exit`/`halt` outside a
//!   class with a `main` method.
//!
//! Anything under a Python `if __name__ == "__main__":` guard or in a Go `main` package is a
//! program's own business and is quiet.

use tree_sitter::Node;

use crate::rules::{Out, Prepared, Role, View};
use loki_protocol::FindingKind;
use loki_syntax::ast::{Ast, Grammar, Index, line};
use loki_syntax::diff::Hit;

pub(crate) fn rules(p: &Prepared, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    let bin =
        p.path.ends_with("main.rs") || p.path.contains("src/bin/") || p.path.ends_with("build.rs");
    p.diff(FindingKind::RunTakeover, |side, _| hits(side, bin), out);
}

fn hits(side: &View, bin: bool) -> Vec<Hit> {
    let ast = side.ast;
    let ix = side.index();
    let go_main = ast.grammar == Grammar::Go && ast.text.contains("package main");
    let rust_bin = ast.grammar == Grammar::Rust && (bin || ast.text.contains("fn main("));
    let java_main = ast.grammar == Grammar::Java && ast.text.contains("static void main(");
    let mut out = Vec::new();
    for &n in ix.nodes() {
        if side.in_test_region(n) {
            continue;
        }
        let why = match ast.grammar {
            Grammar::Python => python(ast, n),
            Grammar::Go if !go_main => go(ast, n),
            Grammar::Rust if !rust_bin => rust(ast, n),
            Grammar::Java => java(ast, n, java_main),
            // A program's own `main` may end the process as it likes.
            Grammar::Go | Grammar::Rust => None,
            _ => js(ast, n),
        };
        if let Some(why) = why
            && !(ast.grammar == Grammar::Python && main_guarded(ast, ix, n))
        {
            out.push(Hit::new(
                line(n),
                format!("hook:{}", ast.squashed(n)),
                format!("`{}` {why}", ast.quote(n)),
            ));
        }
    }
    out
}

fn python(ast: &Ast, n: Node) -> Option<&'static str> {
    match n.kind() {
        "assignment" => {
            let left = ast.field_text(n, "left");
            if matches!(
                left,
                "sys.excepthook" | "threading.excepthook" | "sys.unraisablehook"
            ) {
                return Some(
                    "replaces the process's exception hook: how a failure is reported is no longer the runner's",
                );
            }
            let patched = [
                "builtins.",
                "__builtins__.",
                "unittest.",
                "pytest.",
                "_pytest.",
                "AssertionError.",
            ]
            .iter()
            .any(|p| left.starts_with(p));
            patched.then_some("patches the test framework or the builtins the tests run on")
        }
        "call" => match ast.field_text(n, "function") {
            "sys.settrace" | "sys.setprofile" | "threading.settrace" => {
                Some("installs a tracer that sees (and can change) every frame the tests run")
            }
            "setattr" => {
                let args = ast.field_text(n, "arguments");
                ["(builtins", "(unittest", "(pytest", "(__builtins__"]
                    .iter()
                    .any(|p| args.starts_with(p))
                    .then_some("patches the test framework or the builtins the tests run on")
            }
            _ => None,
        },
        _ => None,
    }
}

fn java(ast: &Ast, n: Node, main: bool) -> Option<&'static str> {
    let c = loki_syntax::ast::call(ast, n).filter(|_| n.kind() == "method_invocation")?;
    match c.callee {
        "Thread.setDefaultUncaughtExceptionHandler" => Some(
            "replaces the process's exception handler: how a failure is reported is no longer the runner's",
        ),
        "System.setSecurityManager" => {
            Some("installs a security manager that decides what the tests' process may do")
        }
        "System.exit" | "Runtime.getRuntime().exit" | "Runtime.getRuntime().halt" if !main => {
            Some("ends the JVM from library code: the runner cannot report what ran after it")
        }
        "Runtime.getRuntime().addShutdownHook" => {
            Some("runs code when the JVM ends, after the tests: it can change how the run ends")
        }
        _ => None,
    }
}

fn js(ast: &Ast, n: Node) -> Option<&'static str> {
    match n.kind() {
        "call_expression" => {
            let f = ast.field_text(n, "function");
            let listens = matches!(
                f,
                "process.on" | "process.once" | "process.prependListener" | "process.addListener"
            );
            let args = ast.field_text(n, "arguments");
            let event = [
                "'exit'",
                "\"exit\"",
                "beforeExit",
                "uncaughtException",
                "unhandledRejection",
                "SIGINT",
                "SIGTERM",
            ]
            .iter()
            .any(|e| args.contains(e));
            (listens && event).then_some(
                "listens for the process's exit or uncaught errors: how the run ends is no longer the runner's",
            )
        }
        "assignment_expression" => {
            let left = ast.field_text(n, "left");
            if matches!(
                left,
                "process.exitCode" | "process.exit" | "process.reallyExit"
            ) {
                return Some("sets how the process exits");
            }
            if [
                "assert.",
                "expect.",
                "globalThis.expect",
                "global.expect",
                "console.error",
            ]
            .iter()
            .any(|p| left.starts_with(p))
            {
                return Some("replaces an assertion or the test runner's reporting");
            }
            // Builtins every assertion compares with (`Object.is`, `Number.isNaN`,
            // `Array.prototype.includes`, `JSON.stringify`): patched, they answer for the tests.
            [
                "Object.is",
                "Object.prototype.",
                "Array.prototype.",
                "String.prototype.",
                "Number.prototype.",
                "Number.is",
                "JSON.stringify",
                "JSON.parse",
                "Math.",
                "Date.prototype.",
                "Boolean.prototype.",
                "Symbol.hasInstance",
            ]
            .iter()
            .any(|p| left.starts_with(p))
            .then_some("patches a builtin that the tests' assertions rely on")
        }
        _ => None,
    }
}

fn go(ast: &Ast, n: Node) -> Option<&'static str> {
    if n.kind() != "call_expression" {
        return None;
    }
    match ast.field_text(n, "function") {
        "signal.Notify" => Some("installs a signal handler in the process the tests run in"),
        "os.Exit" | "syscall.Exit" => Some(
            "ends the process from library code: a test binary that calls it reports whatever the exit says",
        ),
        _ => None,
    }
}

fn rust(ast: &Ast, n: Node) -> Option<&'static str> {
    if n.kind() != "call_expression" {
        return None;
    }
    let f = ast.field_text(n, "function");
    let last2: Vec<&str> = f.rsplit("::").take(2).collect();
    match last2.as_slice() {
        ["set_hook" | "take_hook", "panic"] => Some(
            "replaces the panic hook: a failing assertion's panic is no longer reported as the runner expects",
        ),
        ["exit" | "abort", "process"] => Some(
            "ends the process from library code: a test binary that calls it reports whatever the exit says",
        ),
        _ => None,
    }
}

fn main_guarded<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> bool {
    ix.ancestors(n)
        .into_iter()
        .any(|a| a.kind() == "if_statement" && ast.field_text(a, "condition").contains("__name__"))
}

#[cfg(test)]
mod tests {
    use crate::rules::rules;
    use loki_protocol::FindingKind;
    use loki_syntax::{FileChange, ScanInput};

    fn takeovers(path: &str, base: &str, head: &str) -> usize {
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
        .filter(|f| f.kind == FindingKind::RunTakeover)
        .count()
    }

    #[test]
    fn process_hooks_in_library_code_are_takeovers() {
        let py = "def f(x):\n    return x\n";
        for head in [
            "import os, sys\n\ndef _quiet(t, v, tb):\n    os._exit(0)\n\nsys.excepthook = _quiet\n\ndef f(x):\n    return x\n",
            "import sys\n\ndef f(x):\n    sys.settrace(lambda *a: None)\n    return x\n",
            "import builtins\n\ndef f(x):\n    builtins.AssertionError = Warning\n    return x\n",
        ] {
            assert_eq!(takeovers("lib.py", py, head), 1, "{head}");
        }
        let js = "export function f(x) {\n  return x;\n}\n";
        let js_head = "process.on('exit', () => { process.exitCode = 0; });\nexport function f(x) {\n  return x;\n}\n";
        assert!(takeovers("src/f.js", js, js_head) >= 1);
        let go = "package m\n\nfunc F(x int) int {\n\treturn x\n}\n";
        let go_head = "package m\n\nimport \"os\"\n\nfunc F(x int) int {\n\tif x < 0 {\n\t\tos.Exit(0)\n\t}\n\treturn x\n}\n";
        assert_eq!(takeovers("m.go", go, go_head), 1);
        let rs = "pub fn f(x: i32) -> i32 {\n    x\n}\n";
        let rs_head =
            "pub fn f(x: i32) -> i32 {\n    std::panic::set_hook(Box::new(|_| {}));\n    x\n}\n";
        assert_eq!(takeovers("src/lib.rs", rs, rs_head), 1);
    }

    #[test]
    fn a_program_may_end_itself() {
        let head = "import sys, atexit\n\ndef main():\n    return 0\n\nif __name__ == \"__main__\":\n    atexit.register(print)\n    sys.exit(main())\n";
        assert_eq!(takeovers("tool.py", "X = 1\n", head), 0);
        let go = "package main\n\nimport \"os\"\n\nfunc main() {\n\tos.Exit(2)\n}\n";
        assert_eq!(
            takeovers("cmd/x/main.go", "package main\n\nfunc main() {}\n", go),
            0
        );
    }
}
