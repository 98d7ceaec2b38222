//! Rust's reads of test context: `env::var`/`var_os`/`env!`/`option_env!` of a test or runner
//! variable, `std::env::args` and the thread name when the statement names a test runner,
//! `cfg!(test)` and any `cfg!` that `test` decides, `#[cfg(not(test))]` on anything, and
//! `#[cfg(test)]` on a statement or expression inside a function or on an item with a twin of the
//! same name.

#[allow(clippy::wildcard_imports)]
use super::*;

pub(super) fn reads<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    match n.kind() {
        "macro_invocation" => macro_read(ast, ix, n),
        "call_expression" => call_read(ast, ix, n),
        "attribute_item" => attribute_read(ast, ix, n),
        _ => None,
    }
}

/// `cfg!(..)` that `test` or debug assertions decide, and `env!`/`option_env!` of a test or
/// runner variable.
fn macro_read<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let m = ast.field_text(n, "macro");
    let args = named_children(n)
        .into_iter()
        .find(|c| c.kind() == "token_tree")
        .map_or(String::new(), |t| ast.squashed(t));
    match m {
        // `cargo test` builds with debug assertions on and a release build without: a
        // branch on them is a branch on being tested.
        "cfg" if args.contains("debug_assertions") => Some((
            format!("cfg!:{args}"),
            "branches on debug assertions, which `cargo test` builds with and a release build does not: library code that behaves differently under test".to_owned(),
        )),
        "cfg" => {
            // A default build enables no feature: `cfg!(any(test, feature = "x"))` is
            // decided by `test` there.
            let gate = match cfg_gate(&format!("#[cfg{args}]")) {
                Gate::Neither => cfg_gate(&format!("#[cfg{}]", without_features(&args))),
                g => g,
            };
            (gate != Gate::Neither).then(|| {
                (
                    format!("cfg!:{args}"),
                    "makes library code behave differently under `cargo test`".to_owned(),
                )
            })
        }
        "env" | "option_env" => {
            let name = named_children(n)
                .into_iter()
                .find(|c| c.kind() == "token_tree")
                .and_then(|t| {
                    ast.all(t)
                        .into_iter()
                        .find(|c| c.kind() == "string_literal")
                })
                .and_then(|s| match literal(ast, s) {
                    Some(Lit::Str(s)) => Some(s),
                    _ => None,
                })?;
            env_read(ast, ix, n, &name)
        }
        _ => None,
    }
}

/// `env::var` of a test or runner variable, and the command line, the binary's path or the
/// thread name read where the statement names what a test run looks like.
fn call_read<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let f = ast.field_text(n, "function");
    let last = f.rsplit("::").next().unwrap_or(f);
    let path_env = f.contains("env::") || f == "var" || f == "var_os";
    if path_env && matches!(last, "var" | "var_os") {
        return env_read(ast, ix, n, &string_arg(ast, n, 0)?);
    }
    if path_env && matches!(last, "args" | "args_os") {
        return context_read(
            ast,
            ix,
            "the command line",
            window(statement(ix, n)),
            &["nocapture", "deps"],
        );
    }
    // The running binary's path: cargo puts test binaries in `target/*/deps`.
    if last == "current_exe" {
        return context_read(
            ast,
            ix,
            "the running binary's path",
            window(statement(ix, n)),
            &["deps", "test"],
        );
    }
    if f.ends_with(".name") && ast.text_of(n).contains("current()") {
        // libtest names each test's thread after the test (`module::test`): a thread
        // name looked into for a path separator asks the same.
        return context_read(
            ast,
            ix,
            "the thread name",
            window(statement(ix, n)),
            &["main", "::"],
        );
    }
    None
}

/// `#[cfg_attr(test, path = ..)]`, `#[cfg(not(test))]` on anything, and `#[cfg(test)]` on a
/// statement in a function or on an item with a twin.
fn attribute_read<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Option<(String, String)> {
    let attr = ast.squashed(n);
    // `#[cfg_attr(test, path = "other.rs")] mod m;`: another file compiled as the module
    // under test.
    let tight: String = attr.chars().filter(|c| !c.is_whitespace()).collect();
    if let Some(rest) = tight.strip_prefix("#[cfg_attr(")
        && rest.contains("path")
        && let Some((pred, _)) = rest.split_once(",path")
        && cfg_gate(&format!("#[cfg({})]", without_features(pred))) == Gate::OnlyTest
    {
        let item = attributed_item(ix, n).map_or(String::new(), |i| item_name(ast, i));
        return Some((
            format!("cfg_attr:path:{item}"),
            "compiles another file as this module under `cargo test`: the tests run code the library does not".to_owned(),
        ));
    }
    let item = attributed_item(ix, n);
    match cfg_gate(&attr) {
        Gate::NotTest => Some((
            format!("cfg:{}", item.map_or(String::new(), |i| item_name(ast, i))),
            "compiles this only outside tests, so library code differs under `cargo test`"
                .to_owned(),
        )),
        Gate::OnlyTest => test_only_item(ast, ix, n, item?),
        Gate::Neither => None,
    }
}

/// `#[cfg(test)]` (attribute `n`) on `item`: a mod is a test module; a `use` only brings test
/// helpers in. A test-only statement in a function, or a test twin of an item, changes
/// behaviour.
fn test_only_item<'t>(
    ast: &Ast,
    ix: &Index<'t>,
    n: Node<'t>,
    item: Node<'t>,
) -> Option<(String, String)> {
    let in_fn = ix.ancestors(n).iter().any(|a| a.kind() == "block");
    let name = item_name(ast, item);
    let twin = !name.is_empty()
        && ix.parent(item).is_some_and(|p| {
            named_children(p)
                .iter()
                .any(|s| *s != item && s.kind() == item.kind() && item_name(ast, *s) == name)
        });
    (item.kind() != "mod_item" && item.kind() != "use_declaration" && (in_fn || twin)).then(|| {
        (
            format!("cfg:test:{name}"),
            "swaps in different library code under `cargo test`".to_owned(),
        )
    })
}

/// A cfg predicate with every `feature = ".."` false (`any()`), as in a default build.
fn without_features(pred: &str) -> String {
    let mut out = String::with_capacity(pred.len());
    let mut rest = pred;
    while let Some(at) = rest.find("feature") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "feature".len()..];
        let t = after.trim_start();
        match t
            .strip_prefix('=')
            .map(str::trim_start)
            .and_then(|t| t.strip_prefix('"'))
            .and_then(|t| t.find('"').map(|e| &t[e + 1..]))
        {
            Some(tail) => {
                out.push_str("any()");
                rest = tail;
            }
            None => {
                out.push_str("feature");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn item_name(ast: &Ast, item: Node) -> String {
    ast.field_text(item, "name").to_owned()
}
