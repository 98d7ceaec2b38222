//! The structural rules over source and test code: equality overrides, expected failures and
//! swallowed assertions, runner detection, special cases for test inputs, run takeovers and
//! shadow modules, and the lexical outcome and mock rules the scan calls per file
//! ([`pytest_outcome_rewrites`], [`mocked_modules`], [`mock_targets`]). [`rules`] prepares each
//! changed file once (normalised text, syntax tree of each side, the test regions inside it, its
//! role) and runs the rules of the modules `equality`, `failing`, `runner`, `special`, `takeover`,
//! `outcome` and `shadow` over it.
//!
//! # Contract
//! Pure over a [`ScanInput`] (`loki-syntax`): no I/O, no panic on any input; files over
//! [`MAX_SCAN_BYTES`] are skipped. A finding is reported only for what the change adds (hits at
//! head that the base does not have, [`loki_syntax::diff`]), with its line and the quoted code.
//! The scan (`loki_integrity::scan`) sorts and de-duplicates.
//!
//! # Roles
//! - **test**: a test file by path ([`loki_syntax::testcode::is_test_path`]), a jest/vitest setup file
//!   named by a config, a jest/vitest config itself, or a Python pytest plugin (a file that
//!   defines a `pytest_*` hook); all of it is test code.
//! - **tooling**: build and project scripts that legitimately read CI variables and exit:
//!   `setup.py`, `noxfile.py`, `*.config.*`, anything under `scripts/`, `tools/`, `ci/`, `.github/`,
//!   `benches/`, `examples/`, `docs/`, `xtask/`, and Rust `build.rs` (which has its own takeover
//!   rule). Source rules skip it.
//! - **source**: everything else. Its test regions (Rust items under `#[cfg(test)]` or a test
//!   attribute, `#![cfg(test)]` files, vitest in-source `if (import.meta.vitest) { .. }` blocks)
//!   are test code; the rest is library code.

mod buildscript;
mod equality;
mod failing;
mod hooks;
mod loose;
mod outcome;
mod runner;
mod shadow;
mod special;
mod state;
mod steering;
mod takeover;
mod values;
mod views;

pub use outcome::{mock_targets, mocked_modules, pytest_outcome_rewrites};
pub use special::wants_test_literals;

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{self, Ast, Grammar, Index, named_children};
use loki_syntax::diff::{Hit, added_lines, new_hits};
use loki_syntax::lex::normalize;
use loki_syntax::testcode::is_test_path;
use loki_syntax::{FileChange, MAX_SCAN_BYTES, ScanInput};

/// What a file is to the rules (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Test,
    Tooling,
    Source,
}

/// One side of a changed file, parsed.
pub(crate) struct Parsed {
    pub ast: Ast,
    /// Byte ranges of test code inside a source file (empty for test files: all of it is).
    pub test_ranges: Vec<(usize, usize)>,
}

impl Parsed {
    fn new(path: &str, text: &str) -> Option<Parsed> {
        let ast = ast::parse(path, text)?;
        let test_ranges = test_ranges(&ast);
        Some(Parsed { ast, test_ranges })
    }
}

/// A parsed side with its node index, built once and shared by every rule.
pub(crate) struct View<'a> {
    pub ast: &'a Ast,
    pub ix: Index<'a>,
    test_ranges: &'a [(usize, usize)],
}

impl<'a> View<'a> {
    fn new(p: &'a Parsed) -> View<'a> {
        View {
            ast: &p.ast,
            ix: Index::new(p.ast.root()),
            test_ranges: &p.test_ranges,
        }
    }

    /// The tree's parent index (see [`ast::Index`]).
    pub(crate) fn index(&self) -> &Index<'a> {
        &self.ix
    }

    /// Whether `node` is inside a test region.
    pub(crate) fn in_test_region(&self, node: Node) -> bool {
        let at = node.start_byte();
        self.test_ranges.iter().any(|&(s, e)| at >= s && at < e)
    }

    /// Whether `node` is test code in a file of role `role`.
    pub(crate) fn is_test_code(&self, role: Role, node: Node) -> bool {
        role == Role::Test || self.in_test_region(node)
    }
}

/// A changed file prepared for the rules.
pub(crate) struct Prepared<'a> {
    pub change: &'a FileChange,
    pub path: &'a str,
    pub role: Role,
    pub base_text: Option<String>,
    pub head_text: Option<String>,
    pub base: Option<View<'a>>,
    pub head: Option<View<'a>>,
    /// Head lines the base does not have.
    pub added: BTreeSet<u32>,
}

impl Prepared<'_> {
    /// The rule's head hits that the base does not have, as findings of `kind`.
    pub(crate) fn diff(
        &self,
        kind: FindingKind,
        extract: impl Fn(&View, Role) -> Vec<Hit>,
        out: &mut Out,
    ) {
        if (self.base_text.is_some() && self.base.is_none())
            || (self.head_text.is_some() && self.head.is_none())
        {
            // A side exists but could not be parsed: nothing can be shown to be new.
            return;
        }
        let base = self
            .base
            .as_ref()
            .map(|b| extract(b, self.role))
            .unwrap_or_default();
        let head = self
            .head
            .as_ref()
            .map(|h| extract(h, self.role))
            .unwrap_or_default();
        let mut count: BTreeMap<&str, isize> = BTreeMap::new();
        for h in &base {
            *count.entry(h.key.as_str()).or_default() += 1;
        }
        for h in &head {
            *count.entry(h.key.as_str()).or_default() -= 1;
        }
        for (key, n) in count {
            if let Ok(n) = usize::try_from(n)
                && n > 0
            {
                *out.gone.entry((kind, key.to_owned())).or_default() += n;
            }
        }
        for h in new_hits(&base, head, &self.added) {
            out.pending.push((kind, self.path.to_owned(), h));
        }
    }
}

/// Where the rules put their findings. Hits that [`Prepared::diff`] finds new in one file are
/// held until every file is judged: code that moved between files (a file renamed, a module
/// split) is gone from one and new in another, and is not new to the change.
#[derive(Default)]
pub(crate) struct Out {
    findings: Vec<Finding>,
    pending: Vec<(FindingKind, String, Hit)>,
    gone: BTreeMap<(FindingKind, String), usize>,
}

impl Out {
    pub(crate) fn push(&mut self, f: Finding) {
        // One finding per kind and line: a rule that sees the same line from another side says
        // nothing new.
        if f.line.is_some()
            && self
                .findings
                .iter()
                .any(|x| x.kind == f.kind && x.path == f.path && x.line == f.line)
        {
            return;
        }
        self.findings.push(f);
    }

    fn finish(mut self) -> Vec<Finding> {
        for (kind, path, h) in std::mem::take(&mut self.pending) {
            match self.gone.get_mut(&(kind, h.key.clone())) {
                Some(n) if *n > 0 => *n -= 1,
                _ => self
                    .findings
                    .push(Finding::new(kind, &path, h.detail).at_line(h.line)),
            }
        }
        self.findings
    }
}

/// Python files that define a pytest hook are plugins: pytest loads them like conftest.py.
fn is_pytest_plugin(path: &str, text: &str) -> bool {
    path.ends_with(".py")
        && text.lines().any(|l| {
            let t = l.trim_start();
            let t = t.strip_prefix("async ").unwrap_or(t);
            t.strip_prefix("def pytest_").is_some_and(|r| {
                r.split('(')
                    .next()
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            })
        })
}

/// Whether a path is a jest/vitest configuration (loaded by the runner itself).
pub(crate) fn is_runner_config(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    [
        "jest.config.",
        "vitest.config.",
        "vite.config.",
        "vitest.workspace.",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Build and project scripts (see the module doc).
pub(crate) fn is_tooling(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dirs: Vec<&str> = path.split('/').rev().skip(1).collect();
    matches!(name, "setup.py" | "noxfile.py" | "fabfile.py" | "build.rs")
        || name.contains(".config.")
        || name.starts_with('.')
        || dirs.iter().any(|d| {
            matches!(
                *d,
                "scripts"
                    | "script"
                    | "tools"
                    | "ci"
                    | ".github"
                    | "benches"
                    | "examples"
                    | "docs"
                    | "xtask"
            )
        })
}

fn role(path: &str, head: Option<&str>, setup_files: &BTreeSet<String>) -> Role {
    if is_test_path(path)
        || setup_files.contains(path)
        || is_runner_config(path)
        || head.is_some_and(|t| is_pytest_plugin(path, t))
    {
        Role::Test
    } else if is_tooling(path) {
        Role::Tooling
    } else {
        Role::Source
    }
}

/// Byte ranges of test code inside a source file: Rust items under test attributes (or a whole
/// file under `#![cfg(test)]`), vitest in-source test blocks.
fn test_ranges(ast: &Ast) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    match ast.grammar {
        Grammar::Rust => {
            for n in ast.all(ast.root()) {
                if n.kind() == "inner_attribute_item"
                    && cfg_gate(&ast.squashed(n)) == Gate::OnlyTest
                {
                    out.push((0, ast.text.len()));
                }
                // Attributes precede their item among the same parent's children: one pass.
                let mut pending: Vec<Node> = Vec::new();
                for c in named_children(n) {
                    match c.kind() {
                        "attribute_item" => pending.push(c),
                        "line_comment" | "block_comment" => {}
                        _ => {
                            for a in pending.drain(..) {
                                if is_test_attribute(&ast.squashed(a)) {
                                    out.push((a.start_byte(), c.end_byte()));
                                }
                            }
                        }
                    }
                }
            }
        }
        g if g.is_js() => {
            // Only at the module's top: an `if (import.meta.vitest)` inside a function is a
            // branch of library code on being tested, not an in-source test block.
            for n in named_children(ast.root()) {
                if n.kind() == "if_statement"
                    && ast
                        .field_text(n, "condition")
                        .contains("import.meta.vitest")
                    && let Some(c) = n.child_by_field_name("consequence")
                {
                    out.push((n.start_byte(), c.end_byte()));
                }
            }
        }
        _ => {}
    }
    out
}

/// The item an outer attribute applies to: the next named sibling that is not an attribute or a
/// comment.
pub(crate) fn attributed_item<'t>(ix: &Index<'t>, attr: Node<'t>) -> Option<Node<'t>> {
    ix.next_named_siblings(attr).into_iter().find(|n| {
        !matches!(
            n.kind(),
            "attribute_item" | "line_comment" | "block_comment"
        )
    })
}

/// The attributes of an item: its preceding attribute siblings, in source order.
pub(crate) fn attributes_of<'t>(ix: &Index<'t>, item: Node<'t>) -> Vec<Node<'t>> {
    let mut out: Vec<Node<'t>> = ix
        .prev_named_siblings(item)
        .into_iter()
        .filter(|n| !matches!(n.kind(), "line_comment" | "block_comment"))
        .take_while(|n| n.kind() == "attribute_item")
        .collect();
    out.reverse();
    out
}

/// Rust attributes that make an item test code (`#[test]` and its async and table forms, and a
/// `cfg` that holds only under test).
pub(crate) fn is_test_attribute(squashed: &str) -> bool {
    let a: String = squashed.chars().filter(|c| !c.is_whitespace()).collect();
    a == "#[test]"
        || a.starts_with("#[tokio::test")
        || a.starts_with("#[async_std::test")
        || a.starts_with("#[rstest")
        || a.starts_with("#[test_case(")
        || a.starts_with("#[test_log::test")
        || a.starts_with("#[wasm_bindgen_test")
        || cfg_gate(&a) == Gate::OnlyTest
}

/// What a `#[cfg(..)]` predicate says about `test`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Not a cfg attribute, or `test` does not decide it.
    Neither,
    /// The item exists only under test (`cfg(test)`, `cfg(all(test, unix))`).
    OnlyTest,
    /// The item exists only outside test (`cfg(not(test))`).
    NotTest,
}

/// Deeper cfg predicates are not judged (real ones nest two or three levels).
const MAX_CFG_DEPTH: usize = 16;

/// Three-valued cfg logic: `Some(b)` when the predicate's value is known.
fn eval_cfg(pred: &str, test: bool) -> Option<bool> {
    eval_cfg_at(pred, test, 0)
}

fn eval_cfg_at(pred: &str, test: bool, depth: usize) -> Option<bool> {
    if depth > MAX_CFG_DEPTH {
        return None;
    }
    let eval_cfg = |p: &str, t: bool| eval_cfg_at(p, t, depth + 1);
    let pred = pred.trim();
    let args = |inner: &str| -> Vec<String> {
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut cur = String::new();
        for c in inner.chars() {
            match c {
                '(' => {
                    depth += 1;
                    cur.push(c);
                }
                ')' => {
                    depth = depth.saturating_sub(1);
                    cur.push(c);
                }
                ',' if depth == 0 => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
        out
    };
    let call = |name: &str| {
        pred.strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
    };
    if pred == "test" {
        Some(test)
    } else if let Some(inner) = call("not") {
        eval_cfg(inner, test).map(|v| !v)
    } else if let Some(inner) = call("all") {
        let vals: Vec<Option<bool>> = args(inner).iter().map(|a| eval_cfg(a, test)).collect();
        if vals.contains(&Some(false)) {
            Some(false)
        } else if vals.iter().all(|v| *v == Some(true)) {
            Some(true)
        } else {
            None
        }
    } else if let Some(inner) = call("any") {
        let vals: Vec<Option<bool>> = args(inner).iter().map(|a| eval_cfg(a, test)).collect();
        if vals.contains(&Some(true)) {
            Some(true)
        } else if vals.iter().all(|v| *v == Some(false)) {
            Some(false)
        } else {
            None
        }
    } else {
        None
    }
}

/// What the cfg attribute `attr` (`#[cfg(..)]` or `#![cfg(..)]`, any spacing) says about test.
pub(crate) fn cfg_gate(attr: &str) -> Gate {
    let a: String = attr.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(pred) = a
        .strip_prefix("#![cfg(")
        .or_else(|| a.strip_prefix("#[cfg("))
        .and_then(|r| r.strip_suffix(")]"))
    else {
        return Gate::Neither;
    };
    match (eval_cfg(pred, true), eval_cfg(pred, false)) {
        (Some(false), _) => Gate::NotTest,
        (_, Some(false)) => Gate::OnlyTest,
        _ => Gate::Neither,
    }
}

/// Everything the structural rules need about the change besides the files themselves.
pub(crate) struct Context<'a> {
    /// Literals of the head's test code: changed test files, test regions, unchanged test files.
    pub test_literals: crate::rules::special::TestLiterals,
    /// The values of each test call in the same test code ([`crate::rules::values::Group`]).
    pub test_calls: crate::rules::steering::TestCalls,
    /// Literals of the files the change deletes (at base), so that a moved file's literals are
    /// not new.
    pub deleted_literals: loki_syntax::literals::LiteralSet,
    /// Paths of changed source files that exist at both sides (edited, not added).
    pub edited_sources: BTreeSet<&'a str>,
    pub input: &'a ScanInput,
}

/// A change's base and head texts and their trees.
type Sides = (
    Option<String>,
    Option<String>,
    Option<Parsed>,
    Option<Parsed>,
);

/// Runs the structural rules over `input`.
pub fn rules(input: &ScanInput, setup_files: &BTreeSet<String>) -> Vec<Finding> {
    let text = |b: &Option<Vec<u8>>| {
        b.as_deref()
            .filter(|b| b.len() <= MAX_SCAN_BYTES)
            .map(normalize)
    };
    // Texts and trees first; the prepared files borrow the trees.
    let parsed: Vec<Sides> = input
        .changes
        .iter()
        .map(|c| {
            let (bt, ht) = (text(&c.base), text(&c.head));
            let parse = |t: &Option<String>| t.as_deref().and_then(|t| Parsed::new(&c.path, t));
            let (bp, hp) = (parse(&bt), parse(&ht));
            (bt, ht, bp, hp)
        })
        .collect();
    let prepared: Vec<Prepared> = input
        .changes
        .iter()
        .zip(parsed.iter())
        .map(|(c, (base_text, head_text, bp, hp))| {
            let added = head_text
                .as_deref()
                .map(|h| added_lines(base_text.as_deref(), h))
                .unwrap_or_default();
            Prepared {
                change: c,
                path: c.path.as_str(),
                role: if input.runner_test_file(&c.path) {
                    Role::Test
                } else {
                    role(&c.path, head_text.as_deref(), setup_files)
                },
                base_text: base_text.clone(),
                head_text: head_text.clone(),
                base: bp.as_ref().map(View::new),
                head: hp.as_ref().map(View::new),
                added,
            }
        })
        .collect();
    let ctx = Context {
        test_literals: crate::rules::special::TestLiterals::collect(&prepared, &input.test_context),
        test_calls: crate::rules::steering::TestCalls::collect(&prepared, &input.test_context),
        deleted_literals: crate::rules::special::deleted_literals(&prepared),
        edited_sources: prepared
            .iter()
            .filter(|p| p.role == Role::Source && p.change.base.is_some() && p.head.is_some())
            .map(|p| p.path)
            .collect(),
        input,
    };
    // Whether the tests compare printed values (the views a change may narrow).
    let test_texts: Vec<&str> = prepared
        .iter()
        .filter(|p| p.role == Role::Test)
        .filter_map(|p| p.head_text.as_deref())
        .chain(
            input
                .test_context
                .iter()
                .filter_map(|(_, b)| std::str::from_utf8(b).ok()),
        )
        .collect();
    let printed = crate::rules::views::tests_print(&test_texts);
    let mut out = Out::default();
    for p in &prepared {
        crate::rules::equality::rules(p, &mut out);
        crate::rules::buildscript::rules(p, &mut out);
        crate::rules::views::rules(p, printed, &mut out);
        crate::rules::loose::rules(p, &mut out);
        crate::rules::failing::rules(p, &mut out);
        crate::rules::runner::rules(p, &mut out);
        crate::rules::special::rules(p, &ctx, &mut out);
        crate::rules::steering::rules(p, &ctx.test_calls, &ctx.deleted_literals, &mut out);
        crate::rules::takeover::rules(p, &mut out);
        crate::rules::hooks::rules(p, &mut out);
        crate::rules::state::rules(p, &mut out);
        crate::rules::outcome::rules(p, &mut out);
    }
    crate::rules::shadow::rules(&prepared, &ctx, &mut out);
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cfg_predicates() {
        assert_eq!(cfg_gate("#[cfg(test)]"), Gate::OnlyTest);
        assert_eq!(cfg_gate("#[cfg( all(test, unix) )]"), Gate::OnlyTest);
        assert_eq!(cfg_gate("#![cfg(test)]"), Gate::OnlyTest);
        assert_eq!(cfg_gate("#[cfg(not(test))]"), Gate::NotTest);
        assert_eq!(
            cfg_gate("#[cfg(any(test, feature = \"x\"))]"),
            Gate::Neither
        );
        assert_eq!(cfg_gate("#[cfg(unix)]"), Gate::Neither);
        assert_eq!(cfg_gate("#[derive(Debug)]"), Gate::Neither);
        let deep = format!(
            "#[cfg({}test{})]",
            "not(".repeat(10_000),
            ")".repeat(10_000)
        );
        assert_eq!(cfg_gate(&deep), Gate::Neither);
        assert!(is_test_attribute(
            "#[tokio::test(flavor = \"multi_thread\")]"
        ));
        assert!(!is_test_attribute("#[inline]"));
    }

    #[test]
    fn roles_and_regions() {
        let none = BTreeSet::new();
        assert_eq!(role("tests/test_a.py", None, &none), Role::Test);
        assert_eq!(
            role(
                "plug.py",
                Some("def pytest_configure(config):\n    pass\n"),
                &none
            ),
            Role::Test
        );
        assert_eq!(role("vitest.config.ts", None, &none), Role::Test);
        assert_eq!(role("scripts/release.py", None, &none), Role::Tooling);
        assert_eq!(role("build.rs", None, &none), Role::Tooling);
        assert_eq!(role("src/lib.rs", None, &none), Role::Source);
        let src = "fn a() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        let p = Parsed::new("src/lib.rs", src).unwrap();
        assert_eq!(p.test_ranges.len(), 2);
        assert_eq!(
            &src[p.test_ranges[0].0..p.test_ranges[0].1],
            &src[10..src.len() - 1]
        );
        let js =
            "export const f = 1;\nif (import.meta.vitest) { const { it } = import.meta.vitest; }\n";
        let p = Parsed::new("src/a.ts", js).unwrap();
        assert_eq!(p.test_ranges.len(), 1);
    }
}
