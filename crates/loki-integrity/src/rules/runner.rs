//! `runner_detection`: library code that can tell it is under test. A new read of process context
//! (an environment variable, argv, the loaded-module table, the call stack, the thread name, a
//! runner's globals) in library code whose subject names a test runner or a test context:
//! - environment variables by name: any whose words include `test`/`tests`/`testing`, a runner
//!   (`pytest`, `unittest`, `vitest`, `jest`, `mocha`, `nextest`, ..) or `ci` (`PYTEST_CURRENT_TEST`,
//!   `JEST_WORKER_ID`, `NODE_TEST_CONTEXT`, `RUST_TEST_THREADS`, `GO_TEST_X`, `CI`,
//!   `GITHUB_ACTIONS`), or any variable compared with such a word (`NODE_ENV === 'test'`);
//!   Python `os.environ`/`os.getenv`, Rust `env::var`/`var_os`/`env!`/`option_env!`, Go
//!   `os.Getenv`/`os.LookupEnv`, JS `process.env.X`/`process.env["X"]`/`import.meta.env.X`/
//!   destructuring `const { X } = process.env`, `'X' in process.env`, `Object.hasOwn(process.env,
//!   'X')`;
//! - the module table (`sys.modules`), argv (`sys.argv`, `std::env::args`, `os.Args`,
//!   `process.argv`), the stack (`inspect.stack`, `sys._getframe`, `traceback.extract_stack`,
//!   `inspect.currentframe`) and the thread name (`threading.current_thread`,
//!   `thread::current().name()`), when the statement (for the stack: the function) mentions a
//!   test word or runner; `sys._called_from_test`-style attributes;
//! - always: Go `testing.Testing()`, `flag.Lookup("test.*")`; Rust `cfg!(test)` (any `cfg!`
//!   that `test` decides), `#[cfg(not(test))]` on anything, and `#[cfg(test)]` on a statement or
//!   expression inside a function or on an item that has a twin of the same name; JS `typeof jest`,
//!   `typeof vi` and other runner globals, `globalThis.__vitest_worker__`;
//! - Java: `System.getenv`, the runner's system properties, classes looked up by name, the stack,
//!   the JVM's arguments and the thread name (module `java`).
//!
//! Test code, tooling and vitest's own `import.meta.vitest` are not judged. Keys are the kind of
//! read and its subject, so an existing read that moved is not new.

use tree_sitter::Node;

mod java;
mod js;
mod rust;

use crate::rules::{Gate, Out, Prepared, Role, View, attributed_item, cfg_gate};
use loki_protocol::FindingKind;
use loki_syntax::ast::{Ast, Grammar, Index, line, named_children};
use loki_syntax::diff::Hit;
use loki_syntax::literals::{Lit, literal};

/// Words that name a test runner or a test context, after splitting on non-alphanumerics and
/// camel case.
const TEST_WORDS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "pytest",
    "unittest",
    "nose",
    "nose2",
    "vitest",
    "jest",
    "mocha",
    "jasmine",
    "karma",
    "ava",
    "nextest",
    "ci",
    "cypress",
    "playwright",
    "gotest",
    "junit",
    "jupiter",
    "surefire",
    "failsafe",
    "testng",
];
/// CI variables whose words are not test words.
const CI_NAMES: &[&str] = &[
    "github_actions",
    "continuous_integration",
    "buildkite",
    "travis",
    "circleci",
    "jenkins_url",
    "teamcity_version",
    "tf_build",
];
/// Globals only a test runner defines.
const JS_TEST_GLOBALS: &[&str] = &[
    "jest",
    "vi",
    "vitest",
    "describe",
    "it",
    "test",
    "expect",
    "beforeAll",
    "beforeEach",
    "afterAll",
    "afterEach",
    "jasmine",
    "mocha",
    "__vitest_worker__",
    "__vitest_environment__",
    "__jest__",
];

/// The words of an identifier or a string: split on non-alphanumerics and at camel-case humps,
/// lowercased.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Whether `s` names a test runner or test context.
pub fn names_test_context(s: &str) -> bool {
    let lower = s.to_lowercase();
    words(s)
        .iter()
        .any(|w| TEST_WORDS.contains(&w.as_str()) || (w.starts_with("test") && w.len() <= 12))
        || CI_NAMES.iter().any(|n| lower.contains(n))
}

pub fn rules(p: &Prepared, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    p.diff(FindingKind::RunnerDetection, hits, out);
}

/// The nearest enclosing statement (what a read is used in).
fn statement<'t>(ix: &Index<'t>, n: Node<'t>) -> Node<'t> {
    let mut cur = n;
    for a in std::iter::once(n).chain(ix.ancestors(n)) {
        cur = a;
        let k = a.kind();
        if k == "module" || k == "program" || k == "source_file" {
            break;
        }
        let is_stmt = k.ends_with("_statement")
            || k.ends_with("_declaration")
            || k == "let_declaration"
            || k == "lexical_declaration"
            || k == "variable_declaration"
            || k == "if_expression"
            || k == "match_arm"
            || k == "short_var_declaration";
        if is_stmt {
            return a;
        }
    }
    cur
}

/// The code a statement-level judgement reads: for an `if`, only its condition.
fn window<'t>(stmt: Node<'t>) -> Node<'t> {
    match stmt.kind() {
        "if_statement" | "if_expression" | "while_statement" | "elif_clause" => {
            stmt.child_by_field_name("condition").unwrap_or(stmt)
        }
        _ => stmt,
    }
}

/// The enclosing function (or the statement at top level).
fn function<'t>(ix: &Index<'t>, n: Node<'t>) -> Node<'t> {
    ix.ancestors(n)
        .into_iter()
        .find(|a| {
            matches!(
                a.kind(),
                "function_definition"
                    | "function_item"
                    | "function_declaration"
                    | "method_declaration"
                    | "constructor_declaration"
                    | "method_definition"
                    | "arrow_function"
                    | "function_expression"
            )
        })
        .unwrap_or_else(|| statement(ix, n))
}

/// The first string under `n` that names a test context (or one of `extra`'s words): a short
/// string used as a value, not a docstring or prose.
fn mentions_test(ast: &Ast, ix: &Index, n: Node, extra: &[&str]) -> Option<String> {
    ast.all(n).into_iter().find_map(|c| match literal(ast, c) {
        // A JS regex literal (`/\.(test|spec)\.js$/`) names what it matches too.
        None if c.kind() == "regex" => {
            let pattern = ast.field_text(c, "pattern");
            let words = pattern.replace(
                ['\\', '(', ')', '|', '.', '$', '^', '[', ']', '?', '*', '+'],
                " ",
            );
            names_test_context(&words).then(|| pattern.to_owned())
        }
        Some(Lit::Str(s))
            if s.chars().count() <= 64
                && ix
                    .parent(c)
                    .is_none_or(|p| p.kind() != "expression_statement")
                && (names_test_context(&s)
                    || words(&s).iter().any(|w| extra.contains(&w.as_str()))) =>
        {
            Some(s)
        }
        _ => None,
    })
}

fn hits(side: &View, role: Role) -> Vec<Hit> {
    let ast = &side.ast;
    let ix = side.index();
    let mut out = Vec::new();
    let lib = |n: Node| role == Role::Source && !side.in_test_region(n);
    // `import.meta.vitest` blocks are test regions already; Rust test items too.
    for &n in ix.nodes() {
        // A test attribute opens its own test region: judge it from where it stands.
        let probe = if n.kind() == "attribute_item" {
            ix.parent(n).unwrap_or(n)
        } else {
            n
        };
        if !lib(probe) {
            continue;
        }
        let found = test_word_compared(ast, n).or_else(|| match ast.grammar {
            Grammar::Python => python(ast, ix, n),
            Grammar::Rust => rust::reads(ast, ix, n),
            Grammar::Go => go(ast, ix, n),
            Grammar::Java => java::reads(ast, ix, n),
            _ => js::read(ast, ix, n),
        });
        if let Some((key, what)) = found {
            // An attribute is quoted with the item it gates.
            let evidence = if n.kind() == "attribute_item" {
                let item = attributed_item(ix, n).map_or(String::new(), |i| ast.quote(i));
                format!("{} {item}", ast.squashed(n))
            } else {
                ast.quote(statement(ix, n))
            };
            out.push(Hit::new(line(n), key, format!("`{evidence}` {what}")));
        }
    }
    out
}

/// An environment read of `name` (a literal) at `n`: a hit when the name, or what the statement
/// compares it with, names a test context.
fn env_read<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>, name: &str) -> Option<(String, String)> {
    // Cargo sets its `CARGO_*` variables in the environment of what it runs (`cargo test`,
    // `cargo run`), never in a shipped binary's; read at run time (not `env!`), they tell the
    // two apart.
    if ast.grammar == Grammar::Rust
        && name.starts_with("CARGO")
        && !ast.text_of(n).starts_with("env!")
    {
        return Some((
            format!("env:{name}"),
            format!(
                "reads {name} at run time, which cargo sets only when it runs the binary (as `cargo test` does)"
            ),
        ));
    }
    if names_test_context(name) {
        return Some((
            format!("env:{name}"),
            format!("reads the environment variable {name}, which names a test runner or CI"),
        ));
    }
    let stmt = window(statement(ix, n));
    mentions_test(ast, ix, stmt, &[]).map(|w| {
        (
            format!("env:{name}=={w}"),
            format!("compares the environment variable {name} with {w:?}, a test context"),
        )
    })
}

fn string_arg(ast: &Ast, call: Node, i: usize) -> Option<String> {
    let args = call.child_by_field_name("arguments")?;
    let arg = named_children(args).into_iter().nth(i)?;
    match literal(ast, arg) {
        Some(Lit::Str(s)) => Some(s),
        _ => None,
    }
}

/// What reads the caller's source text or variables once the stack is in hand (Python).
const PY_CALLER_TEXT: &[&str] = &[
    "code_context",
    "linecache",
    "getsource",
    "getsourcelines",
    "getframeinfo",
    "f_locals",
    "f_code",
    "co_filename",
    ".line",
    "f_back",
];
/// The same for JS (`new Error().stack` read back from its file) and Go (`runtime.Caller`).
const JS_CALLER_TEXT: &[&str] = &["readFileSync", "readFile(", "prepareStackTrace"];
const GO_CALLER_TEXT: &[&str] = &["ReadFile", "os.Open", "FuncForPC"];

/// Library code that takes the call stack and reads its caller's source or variables: its
/// answer is read out of the test that calls it (the expected value on the assertion's line),
/// whatever the test's words. `scope` is the function holding the stack read.
fn caller_text(ast: &Ast, scope: Node, readers: &[&str]) -> Option<(String, String)> {
    let text = ast.text_of(scope);
    let reader = readers.iter().find(|r| text.contains(**r))?;
    Some((
        format!("caller-text:{reader}"),
        format!(
            "takes the call stack and reads its caller's source or variables ({}): the answer is read out of the test that calls it",
            reader.trim_matches(|c| c == '.' || c == '(')
        ),
    ))
}

/// Words only a test context is named by: a value compared with one of them (`env.MODE ===
/// 'test'`, `Env() == "testing"`) asks whether tests are running, wherever the value came from.
const TEST_CONTEXT_VALUES: &[&str] = &[
    "test", "testing", "tests", "vitest", "jest", "pytest", "mocha", "unittest", "nextest",
];

/// Any language: an equality with a test-context word, or a runner global looked up by name
/// (`"__vitest_worker__" in globalThis`, `'jest' in global`).
fn test_word_compared(ast: &Ast, n: Node) -> Option<(String, String)> {
    if !matches!(n.kind(), "comparison_operator" | "binary_expression") {
        return None;
    }
    let kids = named_children(n);
    let [a, b] = kids.as_slice() else { return None };
    let op: String = {
        let mut cur = n.walk();
        n.children(&mut cur)
            .filter(|c| !c.is_named())
            .map(|c| ast.text_of(c).to_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let word = |x: Node| match literal(ast, x) {
        Some(Lit::Str(s)) => Some(s),
        _ => None,
    };
    if matches!(op.as_str(), "==" | "!=" | "===" | "!==") {
        let w = word(*a).or_else(|| word(*b))?;
        let lw = w.to_ascii_lowercase();
        return TEST_CONTEXT_VALUES.contains(&lw.as_str()).then(|| {
            (
                format!("compare:{lw}"),
                format!("compares a value with {w:?}, which tells whether tests are running"),
            )
        });
    }
    if op == "in" {
        let w = word(*a)?;
        let global = ast.text_of(*b).trim();
        let runner = JS_TEST_GLOBALS.contains(&w.as_str()) || names_test_context(&w);
        return (runner && matches!(global, "globalThis" | "global" | "window" | "self")).then(
            || {
                (
                    format!("global-in:{w}"),
                    format!("looks for the test runner's global {w:?}"),
                )
            },
        );
    }
    None
}

/// The statements beside `stmt` (in the same block or at top level) that use the name it
/// declares, followed one step further (a name declared from it), at most eight.
fn uses_of_declared<'t>(ast: &Ast, ix: &Index<'t>, stmt: Node<'t>) -> Vec<Node<'t>> {
    let declared = |s: Node| -> Option<String> {
        ast.all(s)
            .into_iter()
            .find(|d| d.kind() == "variable_declarator")
            .and_then(|d| d.child_by_field_name("name"))
            .filter(|n| n.kind() == "identifier")
            .map(|n| ast.text_of(n).to_owned())
    };
    let Some(parent) = ix.parent(stmt) else {
        return Vec::new();
    };
    let siblings = named_children(parent);
    let mut names: Vec<String> = declared(stmt).into_iter().collect();
    let mut out = Vec::new();
    for s in siblings
        .into_iter()
        .filter(|s| s.start_byte() > stmt.start_byte())
    {
        let uses = ast
            .all(s)
            .into_iter()
            .any(|i| i.kind() == "identifier" && names.iter().any(|n| n == ast.text_of(i)));
        if uses {
            if let Some(d) = declared(s) {
                names.push(d);
            }
            out.push(s);
            if out.len() >= 8 {
                break;
            }
        }
    }
    out
}

/// A context read judged by the statement (or function) it sits in.
fn context_read(
    ast: &Ast,
    ix: &Index,
    what: &str,
    scope: Node,
    extra: &[&str],
) -> Option<(String, String)> {
    mentions_test(ast, ix, scope, extra).map(|w| {
        (
            format!("{what}:{w}"),
            format!("inspects {what} for {w:?}, which tells whether tests are running"),
        )
    })
}

fn python<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    match n.kind() {
        "call" => {
            let f = ast.field_text(n, "function");
            match f {
                "os.environ.get" | "os.getenv" | "environ.get" | "getenv" => {
                    env_read(ast, ix, n, &string_arg(ast, n, 0)?)
                }
                "inspect.stack"
                | "inspect.currentframe"
                | "sys._getframe"
                | "traceback.extract_stack"
                | "traceback.format_stack"
                | "inspect.getouterframes" => {
                    context_read(ast, ix, "the call stack", function(ix, n), &[])
                        .or_else(|| caller_text(ast, function(ix, n), PY_CALLER_TEXT))
                }
                "threading.current_thread" | "threading.currentThread" | "current_thread" => {
                    context_read(
                        ast,
                        ix,
                        "the thread name",
                        window(statement(ix, n)),
                        &["main"],
                    )
                }
                "hasattr" | "getattr" if ast.text_of(n).contains("sys") => {
                    let attr = string_arg(ast, n, 1)?;
                    let first = n
                        .child_by_field_name("arguments")
                        .and_then(|a| a.named_child(0))
                        .map_or("", |a| ast.text_of(a));
                    (matches!(first, "sys" | "builtins") && attr.to_lowercase().contains("test"))
                        .then(|| {
                            (
                                format!("sysattr:{attr}"),
                                format!("looks for {first}.{attr}, a flag set only under test"),
                            )
                        })
                }
                _ => None,
            }
        }
        "subscript" => {
            let v = ast.field_text(n, "value");
            if matches!(v, "os.environ" | "environ") {
                let idx = n.child_by_field_name("subscript")?;
                if let Some(Lit::Str(name)) = literal(ast, idx) {
                    return env_read(ast, ix, n, &name);
                }
            }
            None
        }
        "comparison_operator" => {
            // `"X" in os.environ`
            let kids = named_children(n);
            if let [l, r] = kids.as_slice()
                && ["os.environ", "environ"]
                    .iter()
                    .any(|e| ast.text_of(*r).starts_with(e))
                && let Some(Lit::Str(name)) = literal(ast, *l)
            {
                return env_read(ast, ix, n, &name);
            }
            None
        }
        "attribute" => {
            let t = ast.text_of(n);
            match t {
                "sys.modules" => {
                    context_read(ast, ix, "the loaded modules", window(statement(ix, n)), &[])
                }
                "sys.argv" => {
                    context_read(ast, ix, "the command line", window(statement(ix, n)), &[])
                }
                _ => {
                    let (obj, attr) = t.split_once('.')?;
                    let outermost = ix.parent(n).is_none_or(|p| p.kind() != "attribute");
                    (outermost
                        && matches!(obj, "sys" | "builtins")
                        && attr.to_lowercase().contains("test"))
                    .then(|| {
                        (
                            format!("sysattr:{attr}"),
                            format!("reads {t}, a flag set only under test"),
                        )
                    })
                }
            }
        }
        _ => None,
    }
}

fn go<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    match n.kind() {
        "call_expression" => {
            let f = ast.field_text(n, "function");
            match f {
                "testing.Testing" => Some((
                    "testing.Testing".into(),
                    "asks whether the binary is a test binary".into(),
                )),
                "flag.Lookup" => {
                    let name = string_arg(ast, n, 0)?;
                    name.starts_with("test.").then(|| {
                        (
                            format!("flag:{name}"),
                            format!("looks up the go test flag {name}"),
                        )
                    })
                }
                "os.Getenv" | "os.LookupEnv" | "syscall.Getenv" => {
                    env_read(ast, ix, n, &string_arg(ast, n, 0)?)
                }
                "runtime.Caller" | "runtime.Callers" => {
                    caller_text(ast, function(ix, n), GO_CALLER_TEXT).or_else(|| {
                        let f = ast.text_of(function(ix, n));
                        (f.contains("\"testing.") || f.contains("_test.go") || f.contains("tRunner"))
                            .then(|| {
                                (
                                    "stack:testing".to_owned(),
                                    "walks the call stack for the testing package's frames, which tells whether tests are running".to_owned(),
                                )
                            })
                    })
                }
                _ => None,
            }
        }
        "selector_expression" if ast.text_of(n) == "os.Args" => {
            context_read(ast, ix, "the command line", window(statement(ix, n)), &[])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_context_names() {
        for s in [
            "PYTEST_CURRENT_TEST",
            "JEST_WORKER_ID",
            "VITEST",
            "NODE_TEST_CONTEXT",
            "CI",
            "GITHUB_ACTIONS",
            "RUST_TEST_THREADS",
            "isTest",
            "TESTING",
            "pytest",
            ".test",
        ] {
            assert!(names_test_context(s), "{s}");
        }
        for s in [
            "HOME",
            "CIPHER_KEY",
            "PATH",
            "LATEST",
            "contest",
            "attest",
            "NODE_ENV",
        ] {
            assert!(!names_test_context(s), "{s}");
        }
    }
}
