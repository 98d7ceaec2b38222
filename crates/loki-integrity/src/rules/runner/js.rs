//! JavaScript's and TypeScript's reads of process context: the environment (`process.env`,
//! `import.meta.env`, `Bun.env`, `Deno.env.get`, in every form: a member, a subscript, a
//! destructuring, `in`, `hasOwnProperty`, `Object.hasOwn`, `Reflect.has`), who the entry point
//! is (`require.main`, `module.parent`, `process.mainModule` inside a function, vitest's
//! `import.meta.vitest` read as a value), the call stack read for a test file's frames, the test
//! runner's globals (`globalThis.__vitest_worker__`, `typeof describe`) and the command line.

use tree_sitter::Node;

use super::{
    JS_CALLER_TEXT, JS_TEST_GLOBALS, caller_text, context_read, env_read, function, statement,
    string_arg, uses_of_declared, window,
};
use loki_syntax::ast::{Ast, Index, named_children};
use loki_syntax::literals::{Lit, literal};

/// The names of the environment object.
fn is_env(t: &str) -> bool {
    matches!(
        t,
        "process.env"
            | "process['env']"
            | "process[\"env\"]"
            | "import.meta.env"
            | "Bun.env"
            | "globalThis.process.env"
    )
}

/// The read of process context at `n`, if it is one: its key and what it reads.
pub(super) fn read<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    match n.kind() {
        "member_expression" => member(ast, ix, n),
        "subscript_expression" => {
            let obj = ast.field_text(n, "object");
            if is_env(obj)
                && let Some(Lit::Str(name)) =
                    n.child_by_field_name("index").and_then(|i| literal(ast, i))
            {
                return env_read(ast, ix, n, &name);
            }
            None
        }
        "variable_declarator" => destructured(ast, ix, n),
        "unary_expression" => {
            let t = ast.text_of(n);
            let arg = ast.field_text(n, "argument");
            (t.starts_with("typeof") && JS_TEST_GLOBALS.contains(&arg)).then(|| {
                (
                    format!("typeof:{arg}"),
                    format!("checks for the test runner's global `{arg}`"),
                )
            })
        }
        "call_expression" if ast.field_text(n, "function") == "Deno.env.get" => {
            env_read(ast, ix, n, &string_arg(ast, n, 0)?)
        }
        // `'NODE_TEST_CONTEXT' in process.env`, `Object.hasOwn(process.env, 'VITEST')`,
        // `process.env.hasOwnProperty('JEST_WORKER_ID')`.
        "binary_expression" if is_env(ast.field_text(n, "right")) => {
            let left = n.child_by_field_name("left")?;
            let Some(Lit::Str(name)) = literal(ast, left) else {
                return None;
            };
            env_read(ast, ix, n, &name)
        }
        "call_expression" => has_own(ast, ix, n),
        _ => None,
    }
}

/// `a.b`: the environment, the entry point, the call stack, a runner's global, the command line.
fn member<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let obj = ast.field_text(n, "object");
    let prop = ast.field_text(n, "property");
    if is_env(obj) {
        return env_read(ast, ix, n, prop);
    }
    // The entry file's name, or vitest's in-source marker read as a value inside a
    // function (an in-source test block is an `if` at the top of the module).
    if (matches!(obj, "require.main" | "module.parent" | "process.mainModule")
        && matches!(prop, "filename" | "path" | "id"))
        || (obj == "import.meta"
            && prop == "vitest"
            && ix.ancestors(n).iter().any(|a| {
                matches!(
                    a.kind(),
                    "function_declaration"
                        | "method_definition"
                        | "arrow_function"
                        | "function_expression"
                )
            }))
    {
        return Some((
            format!("entry:{obj}.{prop}"),
            format!(
                "reads `{obj}.{prop}`: who started the process decides the answer, and under a test runner that is the test"
            ),
        ));
    }
    // Who the entry point is, read inside a library function: a module run by a test
    // runner is never `require.main`, so a branch on it is a branch on being tested (an
    // entry guard at the top of a script is not inside a function).
    if (obj == "require" && prop == "main")
        || (obj == "module" && prop == "parent")
        || (obj == "process" && prop == "mainModule")
    {
        let in_function = ix.ancestors(n).iter().any(|a| {
            matches!(
                a.kind(),
                "function_declaration"
                    | "method_definition"
                    | "arrow_function"
                    | "function_expression"
                    | "function"
            )
        });
        if in_function {
            return Some((
                format!("entry:{obj}.{prop}"),
                format!(
                    "reads `{obj}.{prop}` inside a function: who started the process decides the answer, and under a test runner it is never this module"
                ),
            ));
        }
    }
    if prop == "stack" || (obj == "Error" && prop == "captureStackTrace") {
        if let Some(hit) = caller_text(ast, function(ix, n), JS_CALLER_TEXT) {
            return Some(hit);
        }
        let f = ast.text_of(function(ix, n));
        if [
            ".test",
            ".spec",
            "__tests__",
            "/test/",
            "node:test",
            "jest",
            "vitest",
        ]
        .iter()
        .any(|w| f.contains(w))
        {
            return Some((
                "stack:test".into(),
                "reads the call stack for a test file's frames, which tells whether tests are running".into(),
            ));
        }
    }
    if matches!(obj, "globalThis" | "global" | "window" | "self")
        && (JS_TEST_GLOBALS.contains(&prop)
            || prop.starts_with("__vitest")
            || prop.starts_with("__jest"))
    {
        return Some((
            format!("global:{prop}"),
            format!("looks for the test runner's global {prop}"),
        ));
    }
    if ast.text_of(n) == "process.argv" {
        let stmt = statement(ix, n);
        return context_read(ast, ix, "the command line", window(stmt), &[]).or_else(|| {
            // `const entry = basename(process.argv[1])` then `/\.test\.js$/.test(entry)`:
            // the value read, followed to where it is asked about.
            uses_of_declared(ast, ix, stmt)
                .into_iter()
                .find_map(|u| context_read(ast, ix, "the command line", u, &[]))
        });
    }
    None
}

/// `const { VITEST } = process.env`
fn destructured<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let value = ast.field_text(n, "value");
    let name = n.child_by_field_name("name")?;
    if !is_env(value) || name.kind() != "object_pattern" {
        return None;
    }
    named_children(name).into_iter().find_map(|p| {
        let key = match p.kind() {
            "shorthand_property_identifier_pattern" => ast.text_of(p).to_owned(),
            "pair_pattern" => ast.field_text(p, "key").to_owned(),
            _ => return None,
        };
        env_read(ast, ix, p, &key)
    })
}

/// `process.env.hasOwnProperty('X')`, `Object.hasOwn(process.env, 'X')`, `Reflect.has(…)`.
fn has_own<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let f = ast.field_text(n, "function");
    let args = n.child_by_field_name("arguments")?;
    let on_env = f.strip_suffix(".hasOwnProperty").is_some_and(is_env)
        || (matches!(f, "Object.hasOwn" | "Reflect.has")
            && named_children(args)
                .first()
                .is_some_and(|a| is_env(ast.text_of(*a))));
    if !on_env {
        return None;
    }
    let name = named_children(args)
        .into_iter()
        .find_map(|a| match literal(ast, a) {
            Some(Lit::Str(s)) => Some(s),
            _ => None,
        })?;
    env_read(ast, ix, n, &name)
}
