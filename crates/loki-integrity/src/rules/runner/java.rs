//! Java's reads of process context: `System.getenv` (a name, or the whole map compared with a test
//! word), system properties (`System.getProperty`: the runner's own, such as `surefire.*`, always;
//! others, such as the command line and class path, `sun.java.command` / `java.class.path`, when
//! the statement, or the function using the local they are bound to, names a test runner), classes looked up by name (`Class.forName("org.junit...")`,
//! `loadClass`), the call stack (`getStackTrace`, `StackWalker`) when the function names a test
//! runner, the JVM's arguments and the thread's name when the statement does.

use tree_sitter::Node;

use super::{
    context_read, env_read, function, mentions_test, names_test_context, statement, window,
};
use loki_syntax::ast::{Ast, Index, call};
use loki_syntax::literals::{Lit, literal};

/// Properties only a test runner, a build tool running tests or an IDE's runner sets.
fn runner_property(name: &str) -> bool {
    [
        "surefire.",
        "failsafe.",
        "junit.",
        "maven.",
        "basedir",
        "idea.test",
        "org.gradle.test",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || names_test_context(name)
}

/// What a context read is judged by: its statement, or, when the statement only binds the value
/// to a local (`String cmd = System.getProperty("sun.java.command");`), the function that uses it.
fn scope<'t>(ix: &Index<'t>, n: Node<'t>) -> Node<'t> {
    let stmt = statement(ix, n);
    if stmt.kind() == "local_variable_declaration" {
        function(ix, n)
    } else {
        window(stmt)
    }
}

pub(super) fn reads<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    if n.kind() != "method_invocation" {
        return None;
    }
    let c = call(ast, n)?;
    let first = c.args.first().and_then(|a| match literal(ast, *a) {
        Some(Lit::Str(s)) => Some(s),
        _ => None,
    });
    match (c.callee, c.method) {
        ("System.getenv", _) => match first {
            Some(name) => env_read(ast, ix, n, &name),
            None => context_read(ast, ix, "the environment", scope(ix, n), &[]),
        },
        ("System.getProperty" | "System.getProperties().getProperty", _) => {
            let name = first?;
            if runner_property(&name) {
                return Some((
                    format!("property:{name}"),
                    format!("reads the system property {name}, which the test runner sets"),
                ));
            }
            context_read(
                ast,
                ix,
                &format!("the system property {name}"),
                scope(ix, n),
                &[],
            )
        }
        (_, "forName" | "loadClass") => {
            let name = first?;
            (name.contains('.') && names_test_context(&name)).then(|| {
                (
                    format!("class:{name}"),
                    format!("looks up {name} by name, which is there only when tests run"),
                )
            })
        }
        (_, "getStackTrace") | ("StackWalker.getInstance", _) => {
            let scope = function(ix, n);
            mentions_test(ast, ix, scope, &[]).map(|w| {
                (
                    format!("stack:{w}"),
                    format!(
                        "walks the call stack for {w:?}, which tells whether tests are running"
                    ),
                )
            })
        }
        (_, "getInputArguments") => context_read(ast, ix, "the JVM's arguments", scope(ix, n), &[]),
        (callee, "getName") if callee.starts_with("Thread.currentThread()") => {
            context_read(ast, ix, "the thread name", scope(ix, n), &[])
        }
        _ => None,
    }
}
