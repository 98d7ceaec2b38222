//! Test items inside source files, and splicing one version's test items into another version's
//! source: how the judge runs "the original tests on the new code" (and "the new tests on the old
//! code") when the tests live in the same file as the code they test.
//!
//! A whole-file restore cannot do it: restoring the base `src/lib.rs` to get the base
//! `#[cfg(test)] mod tests` back restores the base *code* too, and a regression in the same file
//! then passes its original test. [`splice`] takes the source from one version and only the test
//! items from the other.
//!
//! # Languages, by path extension ([`SpliceLang::of_path`])
//! - **Rust** (`.rs`). Test items, in the file and in inline non-test `mod`s, `impl` and `trait`
//!   blocks (never inside function bodies):
//!   - an item whose `#[cfg(...)]` is false whenever `test` is false and not always false:
//!     `#[cfg(test)]`, `#[cfg(all(test, feature = "x"))]`, but not `any(test, ...)` nor
//!     `not(test)`. Modules ([`ItemKind::TestModule`], including a `mod tests;` declaration: the
//!     file it names is a whole test file, the caller's business), functions
//!     ([`ItemKind::TestFn`]) and any other item (`use`, `impl`, `const`, ...: [`ItemKind::TestOnly`]);
//!   - a function with a test attribute (`#[test]`, any `#[...::test]`, `#[rstest]`,
//!     `#[test_case(..)]`, `#[quickcheck]`, `#[bench]`, any `#[..._test]`) ([`ItemKind::TestFn`]);
//!   - an item-level macro call whose tokens hold `#[test]` (`proptest! { #[test] fn .. }`);
//!   - an inline module whose body starts `#![cfg(test)]`; a file that does is one test item,
//!     `file`, spliced only with another such file (then it is a whole-file swap);
//!   - a doctest ([`ItemKind::Doctest`]): the doc comments of an item (`///`, `/** */`,
//!     `#[doc = ".."]`; enum variants and struct fields included) or the inner docs of a file or
//!     inline module (`//!`, `/*! */`, `#![doc = ".."]`) when they hold a code block (a ``` or
//!     `~~~` fence, or an indented block). `#[doc = include_str!(..)]` counts as a doctest: its
//!     text is elsewhere. The doc is the item; the documented item itself is source.
//!
//!   A test item's range runs from its first attribute or doc comment to its end; the attributes
//!   stacked on it (`#[test] #[should_panic]`, `#[cfg(test)]`) and its own docs belong to it.
//!   Nested test items are inside their test module and not listed on their own.
//! - **Python** (`.py`): docstrings holding `>>>` of the module, of classes and of functions
//!   (methods and nested classes included, functions nested in functions not: doctest does not
//!   look there), also under module- or class-level `if`/`try`/`with` blocks. The range is the
//!   string literal only.
//! - **JS/TS** (`.js .jsx .mjs .cjs .ts .tsx .mts .cts`): vitest in-source blocks, a top-level
//!   `if (...)` whose condition mentions `import.meta.vitest` ([`ItemKind::InSource`]).
//!
//! Go tests live in `_test.go` files: whole files, not this module's concern.
//!
//! Ranges of Rust and JS items are whole lines when the item has its lines to itself: the leading
//! indentation and the trailing line break are part of the item, so removing one leaves no blank
//! debris and inserting one needs no glue.
//!
//! # Keys: the stable identity of an item
//! `<what> <path>`, the path qualified within the file:
//! - Rust: `mod tests`, `mod net::tests`, `fn top_level_test`, `fn tests::adds` (a `#[test]` in
//!   a module that is not itself test-only), `fn Parser::helper` (a test-only method),
//!   `use super::*`, `impl Foo`, `macro! proptest::proptest`, `file`; doctests `doc fn parse`,
//!   `doc struct Foo`, `doc fn Foo::new`, `doc fn <Foo as Display>::fmt`, `doc variant Mode::Fast`,
//!   `doc field Config::name`, `doc macro my_macro`; inner docs `inner doc` (the file) and
//!   `inner doc mod net`. Paths and types are written without whitespace.
//! - Python: `doc module`, `doc class Foo`, `doc def Foo.bar`, `doc def helper`.
//! - JS/TS: `vitest`.
//!
//! A key seen again in the same file gets ` #2`, ` #3`, ... in source order (`#[cfg(unix)] fn f`
//! and `#[cfg(windows)] fn f`), so duplicates are matched in order.
//!
//! # Splicing
//! [`splice`]`(path, code_from, tests_from)` is `code_from` with:
//! - each test item also in `tests_from` (same key) replaced in place by `tests_from`'s bytes;
//! - each test item only in `code_from` removed;
//! - each test item only in `tests_from` inserted where it belongs: a test module, test function or
//!   test-only item at the end of its container (the file, or the inline module / impl / trait of
//!   its path, which must exist in `code_from` as source); a doc before its item (before the item's
//!   attributes); an inner doc at the top of the file (after a shebang) or of its inline module; a
//!   Python docstring as the first statement of its owner's body (its own line, the body's
//!   indentation); a vitest block at the end of the file.
//!
//! A doc comment is swapped as a whole, so an item whose doc holds a code block on either side
//! gets `tests_from`'s doc (prose and all, or none). Inserted and replaced bytes take
//! `code_from`'s line endings (CRLF or LF; mixed files are left alone): every language here
//! normalises line breaks inside literals, so this changes no test.
//!
//! # Invariants (checked on every result before it is returned, and by property tests)
//! - `splice(p, x, x) == Some(x)`; splicing is idempotent: `splice(p, splice(p, c, t), t)` is the
//!   same result.
//! - The test items of the result are those of `tests_from`: the same keys, the same bytes (up to
//!   line endings, and a line break added after an item that ended mid-line).
//! - Every byte of the result outside those items (and outside the prose docs swapped whole with
//!   them, above) is `code_from`'s, in order, plus only the line breaks and indentation that put an
//!   inserted item on its own line: source is never taken from `tests_from`. The result is
//!   re-parsed and every placed item located where it was put, so both hold for every `Some`.
//!
//! # Failure modes: `None`, and the caller falls back to whole-file behaviour and says so
//! - the path is no language handled here, a side is over [`MAX_SPLICE_BYTES`], not UTF-8, or does
//!   not parse cleanly (any syntax error, or a parse over its time budget; Rust syntax newer than
//!   the grammar counts as not parsing);
//! - an item cannot be placed: its container or owner is missing from `code_from` (a doctest of a
//!   renamed function), a test item would collide with a source item of the same key that no
//!   `#[cfg]` guards (a second `mod tests` does not compile), a
//!   Python owner's body starts on its `def` line, a removed docstring is its body's only
//!   statement or shares its line with code;
//! - a Rust doc whose comments are interleaved with other attributes
//!   (`/// a` `#[inline]` `/// b`) would have to be swapped (the attribute is source);
//! - the result fails its own check (above).
//!
//! # Limits
//! Test code the grammar cannot see as an item is source: `#[cfg(test)]` statements inside
//! function bodies, `cfg!(test)` (the integrity rules flag it), `#[cfg_attr(test, ..)]`, tests
//! generated by macros that do not spell `#[test]`, Python's `__test__` dictionaries, doctests in
//! functions nested in functions. Identity is the qualified name: an item moved to another module
//! or class, or renamed, is another item. Several `impl Foo` blocks are told apart by order
//! (`impl Foo`, `impl Foo #2`). Files an item points at are whole test files for the caller: the
//! file of `mod tests;`, the README of `#[doc = include_str!("../README.md")]`.
//!
//! # Submodules
//! - `walk`: the walk over a parsed file, the state and helpers the language walkers share;
//! - `rust`, `python`, `js`: finding the test items (and docs) of one language's file;
//! - `cfg`: `#[cfg(...)]` predicates, and whether one is test-only;
//! - `lines`: line starts, whole-line ranges and line endings;
//! - `edit`: planning, applying and verifying the edits of a splice.

mod cfg;
mod edit;
mod js;
mod lines;
mod python;
mod rust;
mod walk;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::Duration;

use loki_repomap::grammar::Grammar;
use tree_sitter::{Node, Tree};

use edit::{apply, plan, verify};
use lines::Eol;
use walk::Walk;

/// Files larger than this are not parsed: no test items, no splice.
pub const MAX_SPLICE_BYTES: usize = 2 * 1024 * 1024;
/// A parse still running after this long is abandoned (the file counts as not parsing). Generous:
/// the judge parses few files, on a loaded two-core machine, and a wrong `None` costs a fallback.
const PARSE_TIMEOUT: Duration = Duration::from_secs(2);
/// How deep nested modules, impls and classes are followed; deeper files do not parse for us.
/// Bounded so that a pathological file cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// The languages whose source files can hold test items.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpliceLang {
    Rust,
    Python,
    /// JavaScript and TypeScript (vitest in-source tests).
    Js,
}

impl SpliceLang {
    /// The language of a path, by its extension.
    #[must_use]
    pub fn of_path(path: &str) -> Option<SpliceLang> {
        grammar_of(path).and_then(splice_lang)
    }
}

/// What a test item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKind {
    /// A test-only Rust module, inline or a `mod tests;` declaration.
    TestModule,
    /// A Rust test function or test-only function.
    TestFn,
    /// Any other test-only Rust item (`use`, `impl`, `const`, a macro call holding tests).
    TestOnly,
    /// A doc comment or docstring holding examples that run as tests.
    Doctest,
    /// A vitest in-source block.
    InSource,
}

/// One test item of a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestItem {
    /// Stable identity within the file (see the module doc for the format).
    pub key: String,
    pub kind: ItemKind,
    /// Byte range in the file.
    pub range: Range<usize>,
}

/// The test items of a source file, in source order; `None` when the path is no language handled
/// here or the file does not parse (see the module doc).
#[must_use]
pub fn test_items(path: &str, src: &[u8]) -> Option<Vec<TestItem>> {
    let grammar = grammar_of(path)?;
    let analysis = analyze(grammar, src)?;
    Some(
        analysis
            .slots
            .into_iter()
            .filter(|s| s.test)
            .map(|s| TestItem {
                key: s.key,
                kind: s.kind,
                range: s.range,
            })
            .collect(),
    )
}

/// Whether the file holds any test item: a mixed source and test file.
#[must_use]
pub fn has_test_items(path: &str, src: &[u8]) -> bool {
    test_items(path, src).is_some_and(|items| !items.is_empty())
}

/// `code_from`'s source with `tests_from`'s test items (see the module doc); `None` when either
/// side does not parse or an item cannot be placed, and the caller falls back to whole files.
#[must_use]
pub fn splice(path: &str, code_from: &[u8], tests_from: &[u8]) -> Option<Vec<u8>> {
    let grammar = grammar_of(path)?;
    let code = analyze(grammar, code_from)?;
    let tests = analyze(grammar, tests_from)?;
    let eol = Eol::of(code_from);
    let edits = plan(&code, &tests, code_from, tests_from, eol)?;
    let (out, placed) = apply(code_from, edits);
    verify(grammar, &out, &placed, &tests)?;
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// Grammars and parsing

/// The grammar of a path this module splices (not Go: its tests live in `_test.go` files; not
/// Java: its tests live in their own classes under `src/test`).
fn grammar_of(path: &str) -> Option<Grammar> {
    Grammar::of_path(path).filter(|g| !matches!(g, Grammar::Go | Grammar::Java))
}

/// The language of a grammar this module splices.
fn splice_lang(grammar: Grammar) -> Option<SpliceLang> {
    Some(match grammar {
        Grammar::Rust => SpliceLang::Rust,
        Grammar::Python => SpliceLang::Python,
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => SpliceLang::Js,
        Grammar::Go | Grammar::Java => return None,
    })
}

/// A clean parse of `text`, or `None` (no grammar, out of time, any syntax error).
fn parse(grammar: Grammar, text: &str) -> Option<Tree> {
    let mut parser = loki_repomap::grammar::parser(grammar)?;
    let tree = loki_repomap::grammar::parse_within(&mut parser, text, PARSE_TIMEOUT)?;
    (!tree.root_node().has_error()).then_some(tree)
}

fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

// ---------------------------------------------------------------------------------------------
// Analysis: every slot (test items, and every doc, prose or not) and where missing ones would go

/// A test item, or a doc comment that is not one (a doc is swapped whole when either side's is a
/// test, so prose docs are tracked too).
#[derive(Debug, Clone)]
struct Slot {
    key: String,
    kind: ItemKind,
    range: Range<usize>,
    /// A test item (false: a doc without examples).
    test: bool,
    /// Where it goes in a file that lacks it.
    place: Place,
    /// The range also holds source (an attribute between two doc comments): never swapped.
    tangled: bool,
    /// Removing it leaves a valid file (false: a docstring that is its body's only statement).
    removable: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// At the end of this container (`""` is the file).
    Append(String),
    /// Before this owner (its docs).
    DocOf(String),
    /// At the top of this container (inner docs).
    InnerDoc(String),
    /// Cannot be inserted (a whole test-only file).
    Nowhere,
}

/// Where and how an item is inserted into a file that lacks it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Insert {
    at: usize,
    /// A line break goes before the item (the point is not at a line start).
    eol_before: bool,
    after: After,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum After {
    /// Nothing.
    Nothing,
    /// A line break when the item does not end with one.
    EolIfMissing,
    /// A line break and this indentation (the code the item now precedes).
    EolIndent(String),
}

#[derive(Debug, Default)]
struct Analysis {
    slots: Vec<Slot>,
    /// Container key → where appended items go.
    containers: HashMap<String, Insert>,
    /// Owner key → where its doc goes.
    owners: HashMap<String, Insert>,
    /// Container key → where its inner docs go.
    inner: HashMap<String, Insert>,
    /// Source items no test item of the same key may be inserted next to (a second `mod tests`
    /// does not compile); a source item under some `#[cfg]` is not one: `#[cfg(not(test))] fn
    /// now()` beside `#[cfg(test)] fn now()` is the usual pattern.
    taken: HashSet<String>,
}

fn analyze(grammar: Grammar, src: &[u8]) -> Option<Analysis> {
    if src.len() > MAX_SPLICE_BYTES {
        return None;
    }
    let text = std::str::from_utf8(src).ok()?;
    let tree = parse(grammar, text)?;
    let root = tree.root_node();
    let mut walk = Walk::new(text);
    match grammar {
        Grammar::Rust => walk.rust_file(root)?,
        Grammar::Python => walk.py_module(root)?,
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => walk.js_program(root),
        Grammar::Go | Grammar::Java => return None,
    }
    let mut analysis = walk.out;
    analysis.slots.sort_by_key(|s| (s.range.start, s.range.end));
    Some(analysis)
}
