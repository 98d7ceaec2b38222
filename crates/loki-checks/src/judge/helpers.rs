//! Test helpers that live outside the test directories: code the tests import to check results
//! (`checks.py`, `internal/testutil/`, `support/assert.js`). They belong to the tests: the judge
//! moves them between trees with the tests, so a helper edited to always pass is judged like an
//! edited assertion.
//!
//! A changed source file is a helper when all of these hold, read from the head's files:
//! - it is not a test file by its path;
//! - a test file imports it (Python `import` / `from … import`, JS/TS relative `import` /
//!   `require`, Go import paths) — or it is a Go file that imports `testing` itself, which only
//!   test support does (a helper in the tests' own package needs no import);
//! - no non-test source file imports it (then it is code under test);
//! - it reads as test support: it imports a test framework or an assertion library (`pytest`,
//!   `unittest`, `assert`, `node:assert`, `chai`, `vitest`, `@jest/globals`, Go `testing`; in
//!   Rust nothing, since `assert!` and `panic!` state library preconditions too), or it
//!   defines a function named `assert…`, `check…`, `expect…`, `verify…` or `ensure…`, or its
//!   name says so (`helpers`, `checks`, `asserts`, `testing`, `testutil`, `support`, `fakes`, …).
//!
//! The library under test is imported only by tests too; the last condition is what tells them
//! apart, and when in doubt a file stays code (it is then never moved with the tests). The
//! condition is the change's to satisfy, so a file that exists at base must have read as test
//! support there too ([`was_support`]): the code under test cannot be made a helper by an edit.

use std::collections::BTreeSet;
use std::path::Path;

use loki_integrity::is_test_path;

/// Largest file read.
const MAX_BYTES: u64 = 512 * 1024;
/// Most files read per judgement.
const MAX_FILES: usize = 5000;

const HELPER_NAMES: &[&str] = &[
    "helpers",
    "helper",
    "checks",
    "asserts",
    "assertions",
    "testing",
    "testutil",
    "testutils",
    "support",
    "fakes",
    "mocks",
    "matchers",
    "expect",
    "verify",
];
const ASSERT_PREFIXES: &[&str] = &["assert", "check", "expect", "verify", "ensure"];

fn ext(path: &str) -> &str {
    path.rsplit_once('.').map_or("", |(_, e)| e)
}

fn is_py(p: &str) -> bool {
    ext(p) == "py"
}

fn is_js(p: &str) -> bool {
    matches!(
        ext(p),
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx"
    )
}

fn is_go(p: &str) -> bool {
    ext(p) == "go"
}

fn is_rs(p: &str) -> bool {
    ext(p) == "rs"
}

/// The module path of a Rust source file under a `src/` directory: `src/a/b.rs` → `a::b`,
/// `src/a/mod.rs` → `a`; `None` for the crate root or outside `src/`.
fn rust_module(path: &str) -> Option<String> {
    let (_, inner) = path.split_once("src/")?;
    let inner = inner.strip_suffix(".rs")?;
    let inner = inner.strip_suffix("/mod").unwrap_or(inner);
    if matches!(inner, "lib" | "main") || inner.starts_with("bin/") {
        return None;
    }
    Some(inner.replace('/', "::"))
}

/// Whether Rust `text` uses module `module` (`x::module::`, `use x::module;`, `x::module::{..}`),
/// not counting its declaration (`mod module;`).
fn uses_rust_module(text: &str, module: &str) -> bool {
    let needle = format!("::{module}");
    text.match_indices(&needle).any(|(at, _)| {
        let after = text[at + needle.len()..].chars().next();
        matches!(after, Some(':' | ';' | '}' | ',' | ' ' | '\n'))
    })
}

fn read(root: &Path, rel: &str) -> Option<String> {
    let p = root.join(rel);
    if std::fs::metadata(&p).ok()?.len() > MAX_BYTES {
        return None;
    }
    std::fs::read_to_string(p).ok()
}

/// Which of `candidates` (changed source files) are test helpers, given every path of the head
/// tree (`tree_paths`) and its files under `root`.
#[must_use]
pub fn helpers(root: &Path, tree_paths: &[String], candidates: &[String]) -> BTreeSet<String> {
    let candidates: Vec<&String> = candidates
        .iter()
        .filter(|c| !is_test_path(c) && (is_py(c) || is_js(c) || is_go(c) || is_rs(c)))
        .collect();
    if candidates.is_empty() {
        return BTreeSet::new();
    }
    let relevant: Vec<&String> = tree_paths
        .iter()
        .filter(|p| is_py(p) || is_js(p) || is_go(p) || is_rs(p))
        .take(MAX_FILES)
        .collect();
    let mut from_tests: BTreeSet<String> = BTreeSet::new();
    let mut from_source: BTreeSet<String> = BTreeSet::new();
    let go_module = read(root, "go.mod").and_then(|t| {
        t.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix("module "))
            .map(|m| m.trim().to_owned())
    });
    let mut rust_texts: Vec<(&String, String)> = Vec::new();
    for p in &relevant {
        let Some(text) = read(root, p) else { continue };
        if is_rs(p) {
            rust_texts.push((p, text));
            continue;
        }
        let imported = imports(p, &text, go_module.as_deref(), tree_paths);
        if is_test_path(p) {
            from_tests.extend(imported);
        } else {
            from_source.extend(imported.into_iter().filter(|i| i != *p));
        }
    }
    candidates
        .into_iter()
        .filter(|c| {
            let Some(text) = read(root, c) else {
                return false;
            };
            // A Go file outside `_test.go` that imports `testing` only serves tests.
            if is_go(c) && imports_testing(&text) {
                return true;
            }
            if is_rs(c) {
                let Some(module) = rust_module(c) else {
                    return false;
                };
                let by_tests = rust_texts
                    .iter()
                    .any(|(p, t)| is_test_path(p) && uses_rust_module(t, &module));
                let by_source = rust_texts.iter().any(|(p, t)| {
                    !is_test_path(p)
                        && *p != *c
                        && (t.contains(&format!("crate::{module}"))
                            || t.contains(&format!("self::{module}::")))
                });
                return by_tests && !by_source && reads_as_support(c, &text);
            }
            let keys = keys_of(c, go_module.as_deref());
            let by_tests = keys.iter().any(|k| from_tests.contains(k));
            let by_source = keys.iter().any(|k| from_source.contains(k));
            by_tests && !by_source && reads_as_support(c, &text)
        })
        .cloned()
        .collect()
}

/// The names other files import `path` by: Python dotted names (every suffix of the path's
/// components), the JS path itself, the Go import path of its directory.
fn keys_of(path: &str, go_module: Option<&str>) -> Vec<String> {
    if is_py(path) {
        let stem = path.trim_end_matches(".py");
        let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
        let parts: Vec<&str> = stem.split('/').collect();
        (0..parts.len())
            .map(|i| format!("py:{}", parts[i..].join(".")))
            .collect()
    } else if is_js(path) {
        vec![format!("js:{path}")]
    } else {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        match go_module {
            Some(m) if dir.is_empty() => vec![format!("go:{m}")],
            Some(m) => vec![format!("go:{m}/{dir}")],
            None => Vec::new(),
        }
    }
}

/// What `text` (the file at `path`) imports, as [`keys_of`] keys.
fn imports(path: &str, text: &str, go_module: Option<&str>, tree: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if is_py(path) {
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("import ") {
                for m in rest.split(',') {
                    let m = m.split_whitespace().next().unwrap_or("");
                    out.push(format!("py:{m}"));
                }
            } else if let Some(rest) = line.strip_prefix("from ") {
                let Some((module, names)) = rest.split_once(" import ") else {
                    continue;
                };
                let module = module.trim().trim_start_matches('.');
                if !module.is_empty() {
                    out.push(format!("py:{module}"));
                }
                for n in names.trim_matches(|c| c == '(' || c == ')').split(',') {
                    let n = n.split_whitespace().next().unwrap_or("");
                    if n.is_empty() || n == "*" {
                        continue;
                    }
                    out.push(if module.is_empty() {
                        format!("py:{n}")
                    } else {
                        format!("py:{module}.{n}")
                    });
                }
            }
        }
    } else if is_js(path) {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        for spec in js_specifiers(text) {
            if !spec.starts_with('.') {
                continue;
            }
            if let Some(resolved) = resolve_js(dir, &spec, tree) {
                out.push(format!("js:{resolved}"));
            }
        }
    } else if is_go(path) && go_module.is_some() {
        for line in text.lines().map(str::trim) {
            let quoted = line
                .trim_start_matches("import")
                .split_whitespace()
                .last()
                .unwrap_or("");
            if let Some(p) = quoted.strip_prefix('"').and_then(|q| q.strip_suffix('"')) {
                out.push(format!("go:{p}"));
            }
        }
    }
    out
}

/// The module specifiers of `import … from '…'`, `import '…'`, `require('…')`, `import('…')`.
fn js_specifiers(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["from ", "require(", "import(", "import "] {
        let mut rest = text;
        while let Some(at) = rest.find(marker) {
            rest = &rest[at + marker.len()..];
            let t = rest.trim_start();
            let Some(q) = t.chars().next().filter(|c| matches!(c, '\'' | '"' | '`')) else {
                continue;
            };
            if let Some(end) = t[1..].find(q) {
                out.push(t[1..=end].to_owned());
            }
        }
    }
    out
}

/// `spec` relative to `dir`, resolved against the tree's files as node and bundlers do.
fn resolve_js(dir: &str, spec: &str, tree: &[String]) -> Option<String> {
    let mut parts: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for seg in spec.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let base = parts.join("/");
    let exts = [
        "", ".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts",
    ];
    let index = ["/index.js", "/index.ts", "/index.mjs", "/index.tsx"];
    exts.iter()
        .map(|e| format!("{base}{e}"))
        .chain(index.iter().map(|i| format!("{base}{i}")))
        // `./x.js` written in TypeScript sources names `x.ts`.
        .chain(base.strip_suffix(".js").map(|b| format!("{b}.ts")))
        .find(|c| tree.iter().any(|p| p == c))
}

fn imports_testing(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .any(|l| l == "\"testing\"" || l == "import \"testing\"" || l.ends_with(" \"testing\""))
}

/// Whether `text`, the base's form of a changed file that [`helpers`] found to be a helper in the
/// head, read as test support too. A file that was code under test stays code, however the
/// change made it read: a regression in the library plus an `import pytest` (or a function
/// named `check_…`) would otherwise move the base's code into the original tests' run, which
/// then passes and hides the regression.
#[must_use]
pub fn was_support(path: &str, text: &str) -> bool {
    (is_go(path) && imports_testing(text)) || reads_as_support(path, text)
}

/// Whether a file reads as test support (see the module doc).
fn reads_as_support(path: &str, text: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name).to_ascii_lowercase();
    if HELPER_NAMES.iter().any(|h| {
        stem == *h || stem.ends_with(&format!("_{h}")) || stem.starts_with(&format!("{h}_"))
    }) {
        return true;
    }
    let frameworks: &[&str] = if is_py(path) {
        &[
            "import pytest",
            "import unittest",
            "from unittest",
            "from pytest",
        ]
    } else if is_js(path) {
        &[
            "'assert'",
            "\"assert\"",
            "node:assert",
            "'chai'",
            "\"chai\"",
            "'vitest'",
            "\"vitest\"",
            "@jest/globals",
        ]
    } else if is_rs(path) {
        // Rust has no assertion library to import, and `assert!` / `panic!` are how library code
        // states its preconditions: a module using them is not test support for that.
        &[]
    } else {
        &["\"testing\""]
    };
    if frameworks.iter().any(|f| text.contains(f)) {
        return true;
    }
    text.lines().map(str::trim).any(|l| {
        let def = l
            .strip_prefix("def ")
            .or_else(|| l.strip_prefix("async def "))
            .or_else(|| l.strip_prefix("export function "))
            .or_else(|| l.strip_prefix("function "))
            .or_else(|| l.strip_prefix("export const "))
            .or_else(|| l.strip_prefix("func "))
            .or_else(|| l.strip_prefix("pub fn "))
            .or_else(|| l.strip_prefix("fn "));
        def.is_some_and(|d| {
            let d = d.to_ascii_lowercase();
            ASSERT_PREFIXES.iter().any(|p| d.starts_with(p))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, body: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        loki_core::fs::write_atomic(&p, body.as_bytes()).unwrap();
    }

    #[test]
    fn helpers_are_told_from_the_code_under_test() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(
            r,
            "calc.py",
            "def add(a, b):\n    assert isinstance(a, int)\n    return a + b\n",
        );
        write(
            r,
            "checks.py",
            "def check_sum(got, want):\n    assert got == want\n",
        );
        write(
            r,
            "tests/test_calc.py",
            "from calc import add\nfrom checks import check_sum\n\ndef test_add():\n    check_sum(add(1, 2), 3)\n",
        );
        write(r, "src/lib.js", "export const f = () => 1;\n");
        write(
            r,
            "support/expect.js",
            "import assert from 'node:assert';\nexport function expectOne(x) { assert.equal(x, 1); }\n",
        );
        write(
            r,
            "test/f.test.js",
            "import { f } from '../src/lib.js';\nimport { expectOne } from '../support/expect.js';\n",
        );
        write(r, "go.mod", "module example.com/m\n");
        write(r, "calc/calc.go", "package calc\n");
        write(
            r,
            "calc/helpers.go",
            "package calc\n\nimport \"testing\"\n\nfunc mustEqual(t *testing.T, a, b int) {}\n",
        );
        // Rust: a public module of the crate that only the integration tests use.
        write(r, "Cargo.toml", "[package]\nname = \"c\"\n");
        write(
            r,
            "src/lib.rs",
            "pub mod testing;\npub mod util;\npub fn f() -> i32 { util::one() }\n",
        );
        write(r, "src/util.rs", "pub fn one() -> i32 { 1 }\n");
        write(
            r,
            "src/testing.rs",
            "pub fn check_equal(a: i32, b: i32) { assert_eq!(a, b); }\n",
        );
        write(
            r,
            "tests/it.rs",
            "use c::testing::check_equal;\n#[test]\nfn t() { check_equal(c::f(), 1); }\n",
        );
        let tree: Vec<String> = [
            "calc.py",
            "checks.py",
            "tests/test_calc.py",
            "src/lib.js",
            "support/expect.js",
            "test/f.test.js",
            "go.mod",
            "calc/calc.go",
            "calc/helpers.go",
            "Cargo.toml",
            "src/lib.rs",
            "src/util.rs",
            "src/testing.rs",
            "tests/it.rs",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let got = helpers(r, &tree, &tree);
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            [
                "calc/helpers.go",
                "checks.py",
                "src/testing.rs",
                "support/expect.js"
            ]
        );
    }
}
