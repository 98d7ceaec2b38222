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

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::time::Duration;

use loki_repomap::grammar::Grammar;
use tree_sitter::{Node, Tree};

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

/// The grammar of a path this module splices (not Go: its tests live in `_test.go` files).
fn grammar_of(path: &str) -> Option<Grammar> {
    Grammar::of_path(path).filter(|g| *g != Grammar::Go)
}

/// The language of a grammar this module splices.
fn splice_lang(grammar: Grammar) -> Option<SpliceLang> {
    Some(match grammar {
        Grammar::Rust => SpliceLang::Rust,
        Grammar::Python => SpliceLang::Python,
        Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => SpliceLang::Js,
        Grammar::Go => return None,
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
        Grammar::Go => return None,
    }
    let mut analysis = walk.out;
    analysis.slots.sort_by_key(|s| (s.range.start, s.range.end));
    Some(analysis)
}

struct Walk<'s> {
    text: &'s str,
    src: &'s [u8],
    out: Analysis,
    seen_items: HashMap<String, usize>,
    seen_owners: HashMap<String, usize>,
}

impl<'s> Walk<'s> {
    fn new(text: &'s str) -> Walk<'s> {
        Walk {
            text,
            src: text.as_bytes(),
            out: Analysis::default(),
            seen_items: HashMap::new(),
            seen_owners: HashMap::new(),
        }
    }

    fn text_of(&self, node: Node) -> &'s str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The node's text without whitespace (types and paths in keys).
    fn compact(&self, node: Node) -> String {
        self.text_of(node)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    }

    fn item_key(&mut self, key: String) -> String {
        dedupe(&mut self.seen_items, key)
    }

    fn owner_key(&mut self, key: String) -> String {
        dedupe(&mut self.seen_owners, key)
    }

    fn push(&mut self, slot: Slot) {
        self.out.slots.push(slot);
    }

    /// `start..end` widened to whole lines when the item has them to itself.
    fn lines(&self, start: usize, end: usize) -> Range<usize> {
        line_extend(self.src, start, end)
    }

    /// Insertion point before `start`: its line start when only indentation precedes it.
    fn before(&self, start: usize) -> Insert {
        let ls = line_start(self.src, start);
        let at = if self.src[ls..start]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t'))
        {
            ls
        } else {
            start
        };
        Insert {
            at,
            eol_before: false,
            after: After::EolIfMissing,
        }
    }

    /// Insertion point at the end of a `{ ... }` body: the line of its closing brace.
    fn before_close(&self, body: Node) -> Insert {
        let close = body.end_byte().saturating_sub(1);
        let ls = line_start(self.src, close);
        let own_line = self.src[ls..close]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t'));
        Insert {
            at: if own_line { ls } else { close },
            eol_before: !own_line,
            after: After::EolIfMissing,
        }
    }

    // --- Rust -----------------------------------------------------------------------------------

    fn rust_file(&mut self, root: Node) -> Option<()> {
        let len = self.src.len();
        self.out.containers.insert(
            String::new(),
            Insert {
                at: len,
                eol_before: len > 0 && !self.src.ends_with(b"\n"),
                after: After::EolIfMissing,
            },
        );
        // Inner docs go first in the file, after a shebang line (`#!` not starting `#![`).
        let top = if self.src.starts_with(b"#!") && !self.src.starts_with(b"#![") {
            self.src
                .iter()
                .position(|&b| b == b'\n')
                .map_or(len, |i| i + 1)
        } else {
            usize::from(self.src.starts_with(BOM)) * BOM.len()
        };
        self.out.inner.insert(
            String::new(),
            Insert {
                at: top,
                eol_before: top == len && len > 0 && !self.src.ends_with(b"\n"),
                after: After::EolIfMissing,
            },
        );
        // `#![cfg(test)]` on the file: all of it is one test item, spliced only with another
        // such file (it has no source to keep, and nowhere to go in a file that has some).
        if self.inner_cfg_test_only(root) {
            self.push(Slot {
                key: "file".into(),
                kind: ItemKind::TestModule,
                range: 0..len,
                test: true,
                place: Place::Nowhere,
                tangled: false,
                removable: false,
            });
            return Some(());
        }
        self.rust_list(root, "", &[], 0)
    }

    /// Whether a file or `{ ... }` body carries `#![cfg(P)]` with a test-only `P`.
    fn inner_cfg_test_only(&self, list: Node) -> bool {
        children(list)
            .into_iter()
            .any(|k| k.kind() == "inner_attribute_item" && self.is_cfg_test_only(k))
    }

    /// The items of a file or a `{ ... }` body of a module, impl or trait.
    fn rust_list(
        &mut self,
        list: Node,
        container: &str,
        path: &[String],
        depth: usize,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut prefix: Vec<Node> = Vec::new();
        let mut inner_docs: Vec<Node> = Vec::new();
        let kids = children(list);
        for &kid in &kids {
            match kid.kind() {
                "line_comment" | "block_comment" if doc_marker(kid) == Some(DocSide::Inner) => {
                    inner_docs.push(kid);
                }
                "line_comment" | "block_comment" | "attribute_item" => prefix.push(kid),
                "inner_attribute_item" => {
                    if self.is_doc_attr(kid) {
                        inner_docs.push(kid);
                    }
                    prefix.clear();
                }
                _ if kid.is_named() => {
                    self.rust_item(kid, &prefix, container, path, depth)?;
                    prefix.clear();
                }
                _ => prefix.clear(),
            }
        }
        if let (Some(first), Some(last)) = (inner_docs.first(), inner_docs.last()) {
            let range = self.lines(first.start_byte(), last.end_byte());
            // Anything but comments and the docs themselves between the first and the last
            // inner doc is source the slot must not carry.
            let tangled = kids.iter().any(|k| {
                k.start_byte() >= first.end_byte()
                    && k.end_byte() <= last.start_byte()
                    && !matches!(k.kind(), "line_comment" | "block_comment")
                    && !inner_docs.iter().any(|d| d.id() == k.id())
            });
            let key = if container.is_empty() {
                "inner doc".to_string()
            } else {
                format!("inner doc {container}")
            };
            let test = self.docs_have_code(&inner_docs);
            self.push(Slot {
                key,
                kind: ItemKind::Doctest,
                range,
                test,
                place: Place::InnerDoc(container.to_string()),
                tangled,
                removable: true,
            });
        }
        Some(())
    }

    fn rust_item(
        &mut self,
        item: Node,
        prefix: &[Node],
        container: &str,
        path: &[String],
        depth: usize,
    ) -> Option<()> {
        let attrs: Vec<Node> = prefix
            .iter()
            .copied()
            .filter(|n| n.kind() == "attribute_item")
            .collect();
        let docs: Vec<Node> = prefix
            .iter()
            .copied()
            .filter(|&n| {
                doc_marker(n) == Some(DocSide::Outer)
                    || (n.kind() == "attribute_item" && self.is_doc_attr(n))
            })
            .collect();
        let (what, name) = self.rust_name(item);
        let full = qualified(path, &name, "::");
        let base_key = format!("{what} {full}").trim_end().to_string();
        let kind = item.kind();
        let cfg_test = attrs.iter().any(|&a| self.is_cfg_test_only(a));
        let test_fn = kind == "function_item" && attrs.iter().any(|&a| self.is_test_attr(a));
        let test_macro = kind == "macro_invocation" && self.text_of(item).contains("#[test]");
        let inner_cfg_test = kind == "mod_item"
            && item
                .child_by_field_name("body")
                .is_some_and(|body| self.inner_cfg_test_only(body));
        let first_marked = prefix
            .iter()
            .find(|n| n.kind() == "attribute_item" || doc_marker(**n).is_some())
            .map_or(item.start_byte(), Node::start_byte);
        if cfg_test || inner_cfg_test || test_fn || test_macro {
            let key = self.item_key(base_key);
            let kind = match kind {
                "mod_item" => ItemKind::TestModule,
                "function_item" => ItemKind::TestFn,
                _ => ItemKind::TestOnly,
            };
            let range = self.lines(first_marked, item.end_byte());
            self.push(Slot {
                key,
                kind,
                range,
                test: true,
                place: Place::Append(container.to_string()),
                tangled: false,
                removable: true,
            });
            return Some(());
        }

        let owner = self.owner_key(base_key);
        let insert = self.before(first_marked);
        self.out.owners.insert(owner.clone(), insert);
        if !attrs.iter().any(|&a| self.attr_path(a) == "cfg") {
            self.out.taken.insert(owner.clone());
        }
        self.doc_slot(&owner, prefix, &docs);

        let mut inner_path = path.to_vec();
        inner_path.push(name);
        let body = item.child_by_field_name("body");
        match (kind, body) {
            ("mod_item" | "impl_item" | "trait_item", Some(body))
                if body.kind() == "declaration_list" =>
            {
                self.out
                    .containers
                    .insert(owner.clone(), self.before_close(body));
                if let Some(open) = children(body).first().filter(|n| n.kind() == "{") {
                    let after = line_extend(self.src, open.start_byte(), open.end_byte());
                    if after.end > open.end_byte() {
                        self.out.inner.insert(
                            owner.clone(),
                            Insert {
                                at: after.end,
                                eol_before: false,
                                after: After::EolIfMissing,
                            },
                        );
                    }
                }
                self.rust_list(body, &owner, &inner_path, depth + 1)
            }
            ("struct_item" | "union_item", Some(body))
                if body.kind() == "field_declaration_list" =>
            {
                self.rust_members(body, "field", &inner_path);
                Some(())
            }
            ("enum_item", Some(body)) => {
                self.rust_members(body, "variant", &inner_path);
                Some(())
            }
            _ => Some(()),
        }
    }

    /// Docs of struct fields and enum variants (doctests run there too); no test items.
    fn rust_members(&mut self, body: Node, what: &str, path: &[String]) {
        let mut prefix: Vec<Node> = Vec::new();
        for kid in children(body) {
            match kid.kind() {
                "line_comment" | "block_comment" | "attribute_item" => prefix.push(kid),
                "field_declaration" | "enum_variant" => {
                    let name = kid
                        .child_by_field_name("name")
                        .map(|n| self.compact(n))
                        .unwrap_or_default();
                    let owner = self.owner_key(format!("{what} {}", qualified(path, &name, "::")));
                    let docs: Vec<Node> = prefix
                        .iter()
                        .copied()
                        .filter(|&n| {
                            doc_marker(n) == Some(DocSide::Outer)
                                || (n.kind() == "attribute_item" && self.is_doc_attr(n))
                        })
                        .collect();
                    let first = prefix
                        .iter()
                        .find(|n| n.kind() == "attribute_item" || doc_marker(**n).is_some())
                        .map_or(kid.start_byte(), Node::start_byte);
                    let insert = self.before(first);
                    self.out.owners.insert(owner.clone(), insert);
                    self.doc_slot(&owner, &prefix, &docs);
                    prefix.clear();
                }
                _ => prefix.clear(),
            }
        }
    }

    fn doc_slot(&mut self, owner: &str, prefix: &[Node], docs: &[Node]) {
        let (Some(first), Some(last)) = (docs.first(), docs.last()) else {
            return;
        };
        let tangled = prefix.iter().any(|n| {
            n.start_byte() > first.start_byte()
                && n.end_byte() < last.end_byte()
                && n.kind() == "attribute_item"
                && !self.is_doc_attr(*n)
        });
        let range = self.lines(first.start_byte(), last.end_byte());
        let test = self.docs_have_code(docs);
        self.push(Slot {
            key: format!("doc {owner}"),
            kind: ItemKind::Doctest,
            range,
            test,
            place: Place::DocOf(owner.to_string()),
            tangled,
            removable: true,
        });
    }

    /// `(what, name)` of a Rust item: `("fn", "parse")`, `("impl", "<Foo as Display>")`.
    fn rust_name(&self, item: Node) -> (String, String) {
        let field = |f: &str| item.child_by_field_name(f).map(|n| self.compact(n));
        let what = match item.kind() {
            "function_item" | "function_signature_item" => "fn",
            "mod_item" => "mod",
            "struct_item" => "struct",
            "enum_item" => "enum",
            "union_item" => "union",
            "trait_item" => "trait",
            "type_item" | "associated_type" => "type",
            "const_item" => "const",
            "static_item" => "static",
            "macro_definition" => "macro",
            "macro_invocation" => "macro!",
            "use_declaration" => "use",
            "extern_crate_declaration" => "extern crate",
            "impl_item" => {
                let ty = field("type").unwrap_or_default();
                let name = match field("trait") {
                    Some(tr) => format!("<{ty} as {tr}>"),
                    None => ty,
                };
                return ("impl".into(), name);
            }
            other => return (format!("item {other}"), String::new()),
        };
        let name = match item.kind() {
            "use_declaration" => field("argument"),
            "macro_invocation" => field("macro"),
            _ => field("name"),
        };
        (what.into(), name.unwrap_or_default())
    }

    /// The path of an attribute (`cfg`, `tokio::test`, `doc`).
    fn attr_path(&self, attr_item: Node) -> String {
        named_children(attr_item)
            .into_iter()
            .find(|n| n.kind() == "attribute")
            .and_then(|attr| named_children(attr).into_iter().next())
            .map(|p| self.compact(p))
            .unwrap_or_default()
    }

    fn attribute<'t>(attr_item: Node<'t>) -> Option<Node<'t>> {
        named_children(attr_item)
            .into_iter()
            .find(|n| n.kind() == "attribute")
    }

    /// `#[doc = ...]` or `#![doc = ...]` (not `#[doc(hidden)]`).
    fn is_doc_attr(&self, attr_item: Node) -> bool {
        self.attr_path(attr_item) == "doc"
            && Self::attribute(attr_item).is_some_and(|a| a.child_by_field_name("value").is_some())
    }

    fn is_test_attr(&self, attr_item: Node) -> bool {
        let path = self.attr_path(attr_item);
        let last = path.rsplit("::").next().unwrap_or_default();
        matches!(
            last,
            "test" | "rstest" | "test_case" | "test_matrix" | "quickcheck" | "bench"
        ) || last.ends_with("_test")
    }

    /// `#[cfg(P)]` where P is false whenever `test` is false, and not always false.
    fn is_cfg_test_only(&self, attr_item: Node) -> bool {
        if self.attr_path(attr_item) != "cfg" {
            return false;
        }
        let Some(args) =
            Self::attribute(attr_item).and_then(|a| a.child_by_field_name("arguments"))
        else {
            return false;
        };
        let Some(pred) = cfg::parse(self.text_of(args)) else {
            return false;
        };
        pred.eval(false) == cfg::Tri::False && pred.eval(true) != cfg::Tri::False
    }

    /// Whether these doc pieces hold a code block (a doctest).
    fn docs_have_code(&self, docs: &[Node]) -> bool {
        let mut text = String::new();
        for &doc in docs {
            match doc.kind() {
                "line_comment" => {
                    let body = doc
                        .child_by_field_name("doc")
                        .map_or("", |d| self.text_of(d));
                    text.push_str(body.trim_end_matches(['\r', '\n']));
                    text.push('\n');
                }
                "block_comment" => {
                    let body = doc
                        .child_by_field_name("doc")
                        .map_or("", |d| self.text_of(d));
                    for line in body.lines() {
                        let line = line.trim_start();
                        text.push_str(line.strip_prefix('*').unwrap_or(line));
                        text.push('\n');
                    }
                }
                _ => {
                    let value = Self::attribute(doc).and_then(|a| a.child_by_field_name("value"));
                    match value {
                        Some(v) if matches!(v.kind(), "string_literal" | "raw_string_literal") => {
                            let lit = self.text_of(v);
                            let lit = lit.trim_matches(|c| c == '"' || c == 'r' || c == '#');
                            text.push_str(&lit.replace("\\n", "\n"));
                            text.push('\n');
                        }
                        // `include_str!(..)` and friends: the text is elsewhere; assume examples.
                        _ => return true,
                    }
                }
            }
        }
        markdown_has_code(&text)
    }

    // --- Python ---------------------------------------------------------------------------------

    fn py_module(&mut self, root: Node) -> Option<()> {
        let owner = self.owner_key("module".into());
        let insert = match first_statement(root) {
            Some(stmt) => self.indent_before(stmt.start_byte()).map(|indent| Insert {
                at: stmt.start_byte(),
                eol_before: false,
                after: After::EolIndent(indent),
            }),
            None => {
                let len = self.src.len();
                Some(Insert {
                    at: len,
                    eol_before: len > 0 && !self.src.ends_with(b"\n"),
                    after: After::Nothing,
                })
            }
        };
        if let Some(insert) = insert {
            self.out.owners.insert(owner.clone(), insert);
        }
        self.py_docstring(root, &owner, true);
        self.py_stmts(root, &[], 0)
    }

    /// Indentation before `at` when it starts its line's code; `None` when code precedes it.
    fn indent_before(&self, at: usize) -> Option<String> {
        let ls = line_start(self.src, at);
        let indent = &self.text[ls..at];
        indent
            .chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| indent.to_string())
    }

    /// Definitions directly in a module or class body, and under its compound statements.
    fn py_stmts(&mut self, list: Node, qual: &[String], depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        for kid in named_children(list) {
            let def = if kid.kind() == "decorated_definition" {
                kid.child_by_field_name("definition")
            } else {
                Some(kid)
            };
            let Some(def) = def else { continue };
            match def.kind() {
                "class_definition" | "function_definition" => self.py_def(def, qual, depth)?,
                "block" => self.py_stmts(def, qual, depth + 1)?,
                k if k.ends_with("_statement") || k.ends_with("_clause") => {
                    for part in named_children(def) {
                        if part.kind() == "block" || part.kind().ends_with("_clause") {
                            self.py_stmts(part, qual, depth + 1)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Some(())
    }

    fn py_def(&mut self, def: Node, qual: &[String], depth: usize) -> Option<()> {
        let class = def.kind() == "class_definition";
        let name = def
            .child_by_field_name("name")
            .map(|n| self.compact(n))
            .unwrap_or_default();
        let what = if class { "class" } else { "def" };
        let owner = self.owner_key(format!("{what} {}", qualified(qual, &name, ".")));
        let Some(body) = def.child_by_field_name("body") else {
            return Some(());
        };
        // The docstring goes first in the body, on its own line with the body's indentation;
        // a body that starts on the `def` line takes none.
        if let Some(stmt) = first_statement(body)
            && let Some(indent) = self.indent_before(stmt.start_byte())
            && line_start(self.src, stmt.start_byte()) > def.start_byte()
        {
            self.out.owners.insert(
                owner.clone(),
                Insert {
                    at: stmt.start_byte(),
                    eol_before: false,
                    after: After::EolIndent(indent),
                },
            );
        }
        self.py_docstring(body, &owner, false);
        if class {
            let mut inner = qual.to_vec();
            inner.push(name);
            self.py_stmts(body, &inner, depth + 1)?;
        }
        Some(())
    }

    /// The docstring of a module or body: its first statement, when that is a plain string.
    fn py_docstring(&mut self, body: Node, owner: &str, module: bool) {
        let Some(stmt) = first_statement(body) else {
            return;
        };
        let parts = named_children(stmt);
        let [string] = parts.as_slice() else { return };
        if !matches!(string.kind(), "string" | "concatenated_string") || !self.plain_string(*string)
        {
            return;
        }
        let text = self.text_of(*string);
        // Removal keeps the line's indentation and line break (a blank line): it needs the string
        // alone on its line and, in a class or function, another statement to keep the body.
        let others = named_children(body)
            .into_iter()
            .filter(|n| n.kind() != "comment")
            .count();
        let alone_before = self.indent_before(string.start_byte()).is_some();
        let rest = &self.src[stmt.end_byte()..];
        let rest_of_line = &rest[..rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len())];
        let trimmed: Vec<u8> = rest_of_line
            .iter()
            .copied()
            .skip_while(|b| matches!(b, b' ' | b'\t' | b'\r'))
            .collect();
        let alone_after = trimmed.is_empty() || trimmed.starts_with(b"#");
        self.push(Slot {
            key: format!("doc {owner}"),
            kind: ItemKind::Doctest,
            range: string.byte_range(),
            test: text.contains(">>>"),
            place: Place::DocOf(owner.to_string()),
            tangled: false,
            removable: alone_before
                && alone_after
                && stmt.end_byte() == string.end_byte()
                && (module || others > 1),
        });
    }

    /// A string Python takes as a docstring: no `f` or `b` prefix.
    fn plain_string(&self, node: Node) -> bool {
        if node.kind() == "concatenated_string" {
            return named_children(node)
                .into_iter()
                .all(|n| n.kind() != "string" || self.plain_string(n));
        }
        let text = self.text_of(node);
        let prefix = &text[..text.find(['"', '\'']).unwrap_or(0)];
        prefix.chars().all(|c| matches!(c, 'r' | 'R' | 'u' | 'U'))
    }

    // --- JS/TS ----------------------------------------------------------------------------------

    fn js_program(&mut self, root: Node) {
        let len = self.src.len();
        self.out.containers.insert(
            String::new(),
            Insert {
                at: len,
                eol_before: len > 0 && !self.src.ends_with(b"\n"),
                after: After::EolIfMissing,
            },
        );
        for kid in named_children(root) {
            if kid.kind() != "if_statement" {
                continue;
            }
            let in_source = kid
                .child_by_field_name("condition")
                .is_some_and(|c| self.compact(c).contains("import.meta.vitest"));
            if in_source {
                let key = self.item_key("vitest".into());
                let range = self.lines(kid.start_byte(), kid.end_byte());
                self.push(Slot {
                    key,
                    kind: ItemKind::InSource,
                    range,
                    test: true,
                    place: Place::Append(String::new()),
                    tangled: false,
                    removable: true,
                });
            }
        }
    }
}

fn dedupe(seen: &mut HashMap<String, usize>, key: String) -> String {
    let n = seen.entry(key.clone()).or_insert(0);
    *n += 1;
    if *n == 1 { key } else { format!("{key} #{n}") }
}

fn qualified(path: &[String], name: &str, sep: &str) -> String {
    let mut parts: Vec<&str> = path.iter().map(String::as_str).collect();
    parts.push(name);
    parts.join(sep)
}

fn first_statement(body: Node<'_>) -> Option<Node<'_>> {
    named_children(body)
        .into_iter()
        .find(|n| n.kind() != "comment")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DocSide {
    Outer,
    Inner,
}

/// Whether a Rust comment is a doc comment, and which side it documents.
fn doc_marker(node: Node) -> Option<DocSide> {
    if !matches!(node.kind(), "line_comment" | "block_comment") {
        return None;
    }
    if node.child_by_field_name("outer").is_some() {
        Some(DocSide::Outer)
    } else if node.child_by_field_name("inner").is_some() {
        Some(DocSide::Inner)
    } else {
        None
    }
}

/// Whether markdown text holds a code block: a fence, or a line indented four or more beyond
/// the text's least indentation after a blank line (rustdoc runs indented blocks too). Errs
/// towards yes: a prose doc taken for a doctest is only swapped whole.
fn markdown_has_code(text: &str) -> bool {
    let indent = |l: &str| l.len() - l.trim_start_matches([' ', '\t']).len();
    let least = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(indent)
        .min()
        .unwrap_or(0);
    let mut after_blank = true;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            return true;
        }
        if trimmed.is_empty() {
            after_blank = true;
            continue;
        }
        if after_blank && indent(line) >= least + 4 {
            return true;
        }
        after_blank = false;
    }
    false
}

/// The start of the line holding `at`; the first line starts after a byte order mark.
fn line_start(src: &[u8], at: usize) -> usize {
    match src[..at].iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None if at >= BOM.len() && src.starts_with(BOM) => BOM.len(),
        None => 0,
    }
}

const BOM: &[u8] = "\u{feff}".as_bytes();

/// `start..end` extended over the indentation before it when nothing else precedes it on its
/// line, and over trailing blanks and one line break when nothing else follows.
fn line_extend(src: &[u8], start: usize, end: usize) -> Range<usize> {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let mut s = start;
    while s > 0 && blank(src[s - 1]) {
        s -= 1;
    }
    if s != line_start(src, s) {
        s = start;
    }
    if end > 0 && src[end - 1] == b'\n' {
        return s..end;
    }
    let mut e = end;
    while e < src.len() && blank(src[e]) {
        e += 1;
    }
    let e = if src[e..].starts_with(b"\r\n") {
        e + 2
    } else if src[e..].starts_with(b"\n") || e == src.len() {
        e + usize::from(e < src.len())
    } else {
        end
    };
    s..e
}

// ---------------------------------------------------------------------------------------------
// Planning, applying and checking a splice

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Eol {
    Lf,
    Crlf,
    /// Both kinds: inserted bytes are left as they are.
    Mixed,
}

impl Eol {
    fn of(src: &[u8]) -> Eol {
        let crlf = src.windows(2).filter(|w| w == b"\r\n").count();
        let lf = src.iter().filter(|&&b| b == b'\n').count();
        match (crlf, lf) {
            (0, _) => Eol::Lf,
            (c, l) if c == l => Eol::Crlf,
            _ => Eol::Mixed,
        }
    }

    fn bytes(self) -> &'static [u8] {
        match self {
            Eol::Crlf => b"\r\n",
            Eol::Lf | Eol::Mixed => b"\n",
        }
    }

    fn convert(self, bytes: &[u8]) -> Vec<u8> {
        let lf: Vec<u8> = if bytes.windows(2).any(|w| w == b"\r\n") {
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(b"\r\n") {
                    out.push(b'\n');
                    i += 2;
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            out
        } else {
            bytes.to_vec()
        };
        match self {
            Eol::Mixed => bytes.to_vec(),
            Eol::Lf => lf,
            Eol::Crlf => {
                let mut out = Vec::with_capacity(lf.len() + lf.len() / 16);
                for b in lf {
                    if b == b'\n' {
                        out.push(b'\r');
                    }
                    out.push(b);
                }
                out
            }
        }
    }
}

#[derive(Debug)]
enum Part {
    Glue(Vec<u8>),
    Item { key: String, bytes: Vec<u8> },
}

#[derive(Debug)]
struct Edit {
    range: Range<usize>,
    parts: Vec<Part>,
    order: usize,
}

fn plan(
    code: &Analysis,
    tests: &Analysis,
    code_src: &[u8],
    tests_src: &[u8],
    eol: Eol,
) -> Option<Vec<Edit>> {
    let code_slots: HashMap<&str, &Slot> = code.slots.iter().map(|s| (s.key.as_str(), s)).collect();
    let test_slots: HashMap<&str, &Slot> =
        tests.slots.iter().map(|s| (s.key.as_str(), s)).collect();
    let relevant = |key: &str| {
        code_slots.get(key).is_some_and(|s| s.test) || test_slots.get(key).is_some_and(|s| s.test)
    };
    let bytes_of = |slot: &Slot| eol.convert(&tests_src[slot.range.clone()]);
    let mut edits = Vec::new();
    for slot in code.slots.iter().filter(|s| relevant(&s.key)) {
        let order = edits.len();
        match test_slots.get(slot.key.as_str()) {
            Some(theirs) => {
                let bytes = bytes_of(theirs);
                if (slot.tangled || theirs.tangled) && bytes != code_src[slot.range.clone()] {
                    return None;
                }
                edits.push(Edit {
                    range: slot.range.clone(),
                    parts: vec![Part::Item {
                        key: slot.key.clone(),
                        bytes,
                    }],
                    order,
                });
            }
            None => {
                if slot.tangled || !slot.removable {
                    return None;
                }
                edits.push(Edit {
                    range: slot.range.clone(),
                    parts: Vec::new(),
                    order,
                });
            }
        }
    }
    for slot in tests.slots.iter().filter(|s| relevant(&s.key)) {
        if code_slots.contains_key(slot.key.as_str()) {
            continue;
        }
        if slot.tangled || (slot.test && code.taken.contains(&slot.key)) {
            return None;
        }
        let insert = match &slot.place {
            Place::Append(container) => code.containers.get(container),
            Place::DocOf(owner) => code.owners.get(owner),
            Place::InnerDoc(container) => code.inner.get(container),
            Place::Nowhere => None,
        }?;
        let bytes = bytes_of(slot);
        let mut parts = Vec::new();
        if insert.eol_before {
            parts.push(Part::Glue(eol.bytes().to_vec()));
        }
        let ends_line = bytes.ends_with(b"\n");
        parts.push(Part::Item {
            key: slot.key.clone(),
            bytes,
        });
        match &insert.after {
            After::Nothing => {}
            After::EolIfMissing if ends_line => {}
            After::EolIfMissing => parts.push(Part::Glue(eol.bytes().to_vec())),
            After::EolIndent(indent) => {
                let mut glue = eol.bytes().to_vec();
                glue.extend_from_slice(indent.as_bytes());
                parts.push(Part::Glue(glue));
            }
        }
        let order = edits.len();
        edits.push(Edit {
            range: insert.at..insert.at,
            parts,
            order,
        });
    }
    edits.sort_by_key(|e| (e.range.start, e.range.end, e.order));
    let overlapping = edits.windows(2).any(|w| w[0].range.end > w[1].range.start);
    (!overlapping).then_some(edits)
}

/// The spliced bytes, and where each placed item landed in them.
fn apply(src: &[u8], edits: Vec<Edit>) -> (Vec<u8>, Vec<(String, Range<usize>)>) {
    let mut out = Vec::with_capacity(src.len());
    let mut placed = Vec::new();
    let mut cursor = 0;
    for edit in edits {
        out.extend_from_slice(&src[cursor..edit.range.start]);
        for part in edit.parts {
            match part {
                Part::Glue(bytes) => out.extend_from_slice(&bytes),
                Part::Item { key, bytes } => {
                    let start = out.len();
                    out.extend_from_slice(&bytes);
                    placed.push((key, start..out.len()));
                }
            }
        }
        cursor = edit.range.end;
    }
    out.extend_from_slice(&src[cursor..]);
    (out, placed)
}

/// The result parses, each placed item is found under its key where it was put, and its test
/// items are exactly `tests_from`'s, all of them placed (none comes from `code_from`'s bytes).
fn verify(
    grammar: Grammar,
    out: &[u8],
    placed: &[(String, Range<usize>)],
    tests: &Analysis,
) -> Option<()> {
    let result = analyze(grammar, out)?;
    let found: HashMap<&str, &Slot> = result.slots.iter().map(|s| (s.key.as_str(), s)).collect();
    let placed_at: HashMap<&str, Range<usize>> = placed
        .iter()
        .map(|(k, r)| (k.as_str(), trim(out, r.clone())))
        .collect();
    for (key, range) in &placed_at {
        let slot = found.get(key)?;
        if trim(out, slot.range.clone()) != *range {
            return None;
        }
    }
    let want: HashSet<&str> = tests
        .slots
        .iter()
        .filter(|s| s.test)
        .map(|s| s.key.as_str())
        .collect();
    let got: HashSet<&str> = result
        .slots
        .iter()
        .filter(|s| s.test)
        .map(|s| s.key.as_str())
        .collect();
    (want == got && got.iter().all(|k| placed_at.contains_key(k))).then_some(())
}

/// `range` without the ASCII whitespace at its ends.
fn trim(src: &[u8], range: Range<usize>) -> Range<usize> {
    let bytes = &src[range.clone()];
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    range.start + start..range.start + end
}

// ---------------------------------------------------------------------------------------------
// `#[cfg(...)]` predicates

mod cfg {
    /// A `cfg` predicate.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(super) enum Pred {
        /// `test`, `unix`, `feature = "x"`, ...
        Atom(String),
        All(Vec<Pred>),
        Any(Vec<Pred>),
        Not(Box<Pred>),
    }

    /// Three-valued truth: atoms other than `test` are unknown.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(super) enum Tri {
        True,
        False,
        Unknown,
    }

    impl Pred {
        pub(super) fn eval(&self, test: bool) -> Tri {
            match self {
                Pred::Atom(name) if name == "test" => {
                    if test {
                        Tri::True
                    } else {
                        Tri::False
                    }
                }
                Pred::Atom(_) => Tri::Unknown,
                Pred::All(ps) => {
                    let vals: Vec<Tri> = ps.iter().map(|p| p.eval(test)).collect();
                    if vals.contains(&Tri::False) {
                        Tri::False
                    } else if vals.iter().all(|v| *v == Tri::True) {
                        Tri::True
                    } else {
                        Tri::Unknown
                    }
                }
                Pred::Any(ps) => {
                    let vals: Vec<Tri> = ps.iter().map(|p| p.eval(test)).collect();
                    if vals.contains(&Tri::True) {
                        Tri::True
                    } else if vals.iter().all(|v| *v == Tri::False) {
                        Tri::False
                    } else {
                        Tri::Unknown
                    }
                }
                Pred::Not(p) => match p.eval(test) {
                    Tri::True => Tri::False,
                    Tri::False => Tri::True,
                    Tri::Unknown => Tri::Unknown,
                },
            }
        }
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Tok {
        Ident(String),
        Str,
        Open,
        Close,
        Comma,
        Eq,
    }

    fn lex(text: &str) -> Option<Vec<Tok>> {
        let mut out = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(&c) = chars.peek() {
            match c {
                c if c.is_whitespace() => {
                    chars.next();
                }
                '(' => {
                    chars.next();
                    out.push(Tok::Open);
                }
                ')' => {
                    chars.next();
                    out.push(Tok::Close);
                }
                ',' => {
                    chars.next();
                    out.push(Tok::Comma);
                }
                '=' => {
                    chars.next();
                    out.push(Tok::Eq);
                }
                '"' => {
                    chars.next();
                    let mut escaped = false;
                    loop {
                        let c = chars.next()?;
                        if escaped {
                            escaped = false;
                        } else if c == '\\' {
                            escaped = true;
                        } else if c == '"' {
                            break;
                        }
                    }
                    out.push(Tok::Str);
                }
                c if c.is_alphanumeric() || c == '_' => {
                    let mut ident = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_alphanumeric() || c == '_' || c == '#' {
                            ident.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    out.push(Tok::Ident(ident.trim_start_matches("r#").to_string()));
                }
                _ => return None,
            }
        }
        Some(out)
    }

    /// The predicate of `cfg`'s arguments, `(all(test, feature = "x"))`; `None` when it is not one.
    pub(super) fn parse(args: &str) -> Option<Pred> {
        let toks = lex(args)?;
        let mut pos = 0;
        if toks.first() != Some(&Tok::Open) {
            return None;
        }
        pos += 1;
        let pred = parse_pred(&toks, &mut pos, 0)?;
        if toks.get(pos) == Some(&Tok::Comma) {
            pos += 1;
        }
        (toks.get(pos) == Some(&Tok::Close) && pos + 1 == toks.len()).then_some(pred)
    }

    fn parse_pred(toks: &[Tok], pos: &mut usize, depth: usize) -> Option<Pred> {
        if depth > 32 {
            return None;
        }
        let Some(Tok::Ident(name)) = toks.get(*pos) else {
            return None;
        };
        *pos += 1;
        match toks.get(*pos) {
            Some(Tok::Eq) => {
                *pos += 1;
                if toks.get(*pos) != Some(&Tok::Str) {
                    return None;
                }
                *pos += 1;
                Some(Pred::Atom(format!("{name}=")))
            }
            Some(Tok::Open) => {
                *pos += 1;
                let mut args = Vec::new();
                while toks.get(*pos) != Some(&Tok::Close) {
                    args.push(parse_pred(toks, pos, depth + 1)?);
                    match toks.get(*pos) {
                        Some(Tok::Comma) => *pos += 1,
                        Some(Tok::Close) => {}
                        _ => return None,
                    }
                }
                *pos += 1;
                match name.as_str() {
                    "all" => Some(Pred::All(args)),
                    "any" => Some(Pred::Any(args)),
                    "not" if args.len() == 1 => args.pop().map(|p| Pred::Not(Box::new(p))),
                    _ => None,
                }
            }
            _ => Some(Pred::Atom(name.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// `(key, kind, text)` of each test item.
    fn items(path: &str, src: &str) -> Vec<(String, ItemKind, String)> {
        test_items(path, src.as_bytes())
            .unwrap_or_else(|| panic!("{path} does not parse:\n{src}"))
            .into_iter()
            .map(|i| (i.key, i.kind, src[i.range].to_string()))
            .collect()
    }

    fn keys(path: &str, src: &str) -> Vec<String> {
        items(path, src).into_iter().map(|(k, _, _)| k).collect()
    }

    fn spliced(path: &str, code: &str, tests: &str) -> String {
        let out = splice(path, code.as_bytes(), tests.as_bytes())
            .unwrap_or_else(|| panic!("no splice of\n{tests}\ninto\n{code}"));
        String::from_utf8(out).unwrap()
    }

    const RUST: &str = r#"//! Crate docs.
//!
//! ```
//! assert_eq!(demo::add(1, 2), 3);
//! ```

/// Adds.
///
/// ```
/// assert_eq!(demo::add(2, 2), 4);
/// ```
#[inline]
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Prose only, no example.
pub fn sub(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(not(test))]
fn now() -> u64 { 1 }
#[cfg(test)]
fn now() -> u64 { 0 }

#[cfg(any(test, feature = "fake"))]
pub fn fake() {}

#[cfg(all(test, feature = "x"))]
fn only_with_x() {}

pub struct Point {
    /// ```
    /// let _ = 1;
    /// ```
    pub x: i32,
}

pub enum Mode {
    /// Fast.
    ///
    ///     assert!(true);
    Fast,
    Slow,
}

impl Point {
    /// ```
    /// demo::Point::new();
    /// ```
    pub fn new() -> Point { Point { x: 0 } }

    #[cfg(test)]
    fn probe(&self) -> i32 { self.x }
}

impl std::fmt::Display for Point {
    /// ```
    /// let _ = 2;
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "p") }
}

#[doc = include_str!("../README.md")]
pub mod readme {}

pub mod net {
    pub fn checks() -> bool { true }

    #[test]
    #[should_panic]
    fn panics() { panic!() }

    #[cfg(test)]
    mod tests {
        #[test]
        fn checks() { assert!(super::checks()); }
    }
}

#[tokio::test]
async fn top_async() {}

proptest::proptest! {
    #[test]
    fn prop(x in 0..1) { let _ = x; }
}

#[cfg(test)]
mod files;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }
}
"#;

    #[test]
    fn rust_items_keys_and_ranges() {
        let got = items("src/lib.rs", RUST);
        let keys: Vec<(&str, ItemKind)> =
            got.iter().map(|(k, kind, _)| (k.as_str(), *kind)).collect();
        assert_eq!(
            keys,
            vec![
                ("inner doc", ItemKind::Doctest),
                ("doc fn add", ItemKind::Doctest),
                ("fn now", ItemKind::TestFn),
                ("fn only_with_x", ItemKind::TestFn),
                ("doc field Point::x", ItemKind::Doctest),
                ("doc variant Mode::Fast", ItemKind::Doctest),
                ("doc fn Point::new", ItemKind::Doctest),
                ("fn Point::probe", ItemKind::TestFn),
                (
                    "doc fn <Point as std::fmt::Display>::fmt",
                    ItemKind::Doctest
                ),
                ("doc mod readme", ItemKind::Doctest),
                ("fn net::panics", ItemKind::TestFn),
                ("mod net::tests", ItemKind::TestModule),
                ("fn top_async", ItemKind::TestFn),
                ("macro! proptest::proptest", ItemKind::TestOnly),
                ("mod files", ItemKind::TestModule),
                ("mod tests", ItemKind::TestModule),
            ]
        );
        let text = |key: &str| got.iter().find(|(k, _, _)| k == key).unwrap().2.as_str();
        // The doc is the doctest, the item it documents is not; stacked attributes belong to
        // the test function, whole lines with their indentation and line break.
        assert_eq!(
            text("doc fn add"),
            "/// Adds.\n///\n/// ```\n/// assert_eq!(demo::add(2, 2), 4);\n/// ```\n"
        );
        assert_eq!(
            text("fn net::panics"),
            "    #[test]\n    #[should_panic]\n    fn panics() { panic!() }\n"
        );
        assert_eq!(text("fn now"), "#[cfg(test)]\nfn now() -> u64 { 0 }\n");
        assert_eq!(text("mod files"), "#[cfg(test)]\nmod files;\n");
        assert!(text("mod tests").ends_with("    }\n}\n"));
        assert!(has_test_items("src/lib.rs", RUST.as_bytes()));
        assert!(!has_test_items(
            "src/lib.rs",
            b"/// Prose.\npub fn f() {}\n"
        ));
        assert_eq!(test_items("src/lib.rs", b"pub fn f() {}\n"), Some(vec![]));
    }

    #[test]
    fn unhandled_and_unparsable_files_are_none() {
        assert_eq!(SpliceLang::of_path("a/b.rs"), Some(SpliceLang::Rust));
        assert_eq!(SpliceLang::of_path("b.py"), Some(SpliceLang::Python));
        assert_eq!(SpliceLang::of_path("src/x.test.tsx"), Some(SpliceLang::Js));
        assert_eq!(SpliceLang::of_path("main.go"), None);
        assert_eq!(SpliceLang::of_path("Makefile"), None);
        assert_eq!(test_items("main.go", b"package main\n"), None);
        assert_eq!(test_items("x.rs", b"fn broken( {\n"), None);
        assert_eq!(test_items("x.rs", b"\xff\xfe"), None);
        assert_eq!(test_items("x.py", b"def f(:\n"), None);
        assert!(!has_test_items("x.rs", b"fn broken( {\n"));
        let good = b"pub fn f() {}\n#[cfg(test)]\nmod tests {}\n";
        assert_eq!(splice("x.rs", good, b"fn broken( {\n"), None);
        assert_eq!(splice("x.rs", b"fn broken( {\n", good), None);
        assert_eq!(splice("x.go", good, good), None);
        let big = vec![b' '; MAX_SPLICE_BYTES + 1];
        assert_eq!(test_items("x.rs", &big), None);
    }

    const BASE: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n";
    const HEAD: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 4);\n    }\n}\n";

    #[test]
    fn original_tests_on_new_code_take_only_the_test_module() {
        let hybrid = spliced("src/lib.rs", HEAD, BASE);
        assert!(hybrid.contains("a * 2"), "{hybrid}");
        assert!(hybrid.contains("add(2, 2), 4"), "{hybrid}");
        assert!(!hybrid.contains("a + b") && !hybrid.contains("add(2, 3)"));
        let other = spliced("src/lib.rs", BASE, HEAD);
        assert!(other.contains("a + b") && other.contains("add(2, 3), 4"));
        assert_eq!(spliced("src/lib.rs", HEAD, HEAD), HEAD);
    }

    #[test]
    fn items_only_on_one_side_are_removed_or_inserted_where_they_belong() {
        let code = "pub fn f() -> u8 { 2 }\n\npub mod m {\n    pub fn g() {}\n}\n";
        let tests = "pub fn f() -> u8 { 1 }\n\n/// ```\n/// assert!(true);\n/// ```\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n\n    #[test]\n    fn gs() { super::g() }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        // `h` is missing from the code: its doctest cannot be placed.
        assert_eq!(splice("lib.rs", code.as_bytes(), tests.as_bytes()), None);
        let code = "pub fn f() -> u8 { 2 }\n\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n}\n";
        let out = spliced("lib.rs", code, tests);
        assert_eq!(
            out,
            "pub fn f() -> u8 { 2 }\n\n/// ```\n/// assert!(true);\n/// ```\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n    #[test]\n    fn gs() { super::g() }\n}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
        );
        // And back: the test items only in the result go, its source stays.
        let back = spliced("lib.rs", &out, code);
        assert_eq!(
            back,
            "pub fn f() -> u8 { 2 }\n\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n}\n"
        );
    }

    #[test]
    fn a_doctest_swaps_the_doc_and_keeps_the_item() {
        let base = "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 }\n";
        let head = "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 5);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 + 1 }\n";
        let hybrid = spliced("src/lib.rs", head, base);
        assert_eq!(
            hybrid,
            "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 + 1 }\n"
        );
        // A prose doc on one side and a doctest on the other: the doc is swapped whole.
        let prose = "/// Doubles.\npub fn double(x: i32) -> i32 { x * 3 }\n";
        assert_eq!(
            spliced("src/lib.rs", prose, base),
            "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 3 }\n"
        );
        assert_eq!(
            spliced("src/lib.rs", base, prose),
            "/// Doubles.\npub fn double(x: i32) -> i32 { x * 2 }\n"
        );
        // Prose on both sides is source: code_from's stays.
        let prose2 = "/// Triples.\npub fn double(x: i32) -> i32 { x * 3 }\n";
        assert_eq!(spliced("src/lib.rs", prose, prose2), prose);
        // Inner docs and `#[doc = ..]` attributes are docs too.
        let inner = "//! ```\n//! assert!(demo::ok());\n//! ```\n\npub fn ok() -> bool { true }\n";
        let plain = "pub fn ok() -> bool { false }\n";
        assert_eq!(
            spliced("src/lib.rs", plain, inner),
            "//! ```\n//! assert!(demo::ok());\n//! ```\npub fn ok() -> bool { false }\n"
        );
        assert_eq!(
            spliced("src/lib.rs", inner, plain),
            "\npub fn ok() -> bool { true }\n"
        );
        let attr = "#[doc = \"```\\nassert!(true);\\n```\"]\npub fn ok() -> bool { false }\n";
        assert_eq!(keys("src/lib.rs", attr), vec!["doc fn ok"]);
        assert_eq!(spliced("src/lib.rs", plain, attr), attr);
    }

    #[test]
    fn docs_interleaved_with_attributes_are_not_swapped() {
        let tangled = "/// ```\n/// assert!(true);\n/// ```\n#[inline]\n/// More.\npub fn f() {}\n";
        let other = "/// ```\n/// assert!(false);\n/// ```\npub fn f() {}\n";
        assert_eq!(keys("lib.rs", tangled), vec!["doc fn f"]);
        assert_eq!(splice("lib.rs", tangled.as_bytes(), other.as_bytes()), None);
        assert_eq!(splice("lib.rs", other.as_bytes(), tangled.as_bytes()), None);
        assert_eq!(spliced("lib.rs", tangled, tangled), tangled);
    }

    #[test]
    fn collisions_and_missing_containers_are_refused() {
        // A source `mod tests` holding `#[test]`s on one side, `#[cfg(test)] mod tests` on the
        // other: two modules of one name would not compile.
        let source_mod = "pub fn f() {}\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        let cfg_mod = "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        assert_eq!(keys("lib.rs", source_mod), vec!["fn tests::t"]);
        assert_eq!(
            splice("lib.rs", source_mod.as_bytes(), cfg_mod.as_bytes()),
            None
        );
        assert_eq!(
            splice("lib.rs", cfg_mod.as_bytes(), source_mod.as_bytes()),
            None
        );
        // A cfg'd source item of the same name is the usual test seam, not a collision.
        let real = "#[cfg(not(test))]\nfn now() -> u64 { 1 }\n";
        let fake =
            "#[cfg(not(test))]\nfn now() -> u64 { 1 }\n#[cfg(test)]\nfn now() -> u64 { 0 }\n";
        assert_eq!(spliced("lib.rs", real, fake), fake);
        assert_eq!(spliced("lib.rs", fake, real), real);
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let code = HEAD.replace('\n', "\r\n");
        let out = spliced("src/lib.rs", &code, BASE);
        assert_eq!(out, spliced("src/lib.rs", HEAD, BASE).replace('\n', "\r\n"));
        let lf = spliced("src/lib.rs", HEAD, &BASE.replace('\n', "\r\n"));
        assert!(!lf.contains('\r'));
        // Appended at the end of a CRLF file without a final line break.
        let code = "pub fn f() {}".to_string();
        let tests = "pub fn f() {}\r\n#[cfg(test)]\r\nmod tests {}\r\n";
        assert_eq!(
            spliced("lib.rs", &code, tests),
            "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n"
        );
        let code = "pub fn g() {}\r\npub fn f() {}";
        assert_eq!(
            spliced("lib.rs", code, tests),
            "pub fn g() {}\r\npub fn f() {}\r\n#[cfg(test)]\r\nmod tests {}\r\n"
        );
    }

    #[test]
    fn module_declarations_nested_modules_and_test_only_files() {
        let declared = "pub fn f() {}\n\n#[cfg(test)]\nmod tests;\n";
        let inline = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        assert_eq!(items("lib.rs", declared)[0].2, "#[cfg(test)]\nmod tests;\n");
        assert_eq!(spliced("lib.rs", declared, inline), inline);
        assert_eq!(spliced("lib.rs", inline, declared), declared);
        // A test module nested in a source module goes back into that module.
        let code = "pub mod net {\n    pub fn up() -> bool { false }\n}\n";
        let tests = "pub mod net {\n    pub fn up() -> bool { true }\n\n    #[cfg(test)]\n    mod tests {\n        #[test]\n        fn up() { assert!(super::up()); }\n    }\n}\n";
        assert_eq!(keys("lib.rs", tests), vec!["mod net::tests"]);
        assert_eq!(
            spliced("lib.rs", code, tests),
            "pub mod net {\n    pub fn up() -> bool { false }\n    #[cfg(test)]\n    mod tests {\n        #[test]\n        fn up() { assert!(super::up()); }\n    }\n}\n"
        );
        // Its container missing from code_from: cannot be placed.
        assert_eq!(
            splice("lib.rs", b"pub fn up() {}\n", tests.as_bytes()),
            None
        );
        // `#![cfg(test)]` inside a module makes it a test module; on a file, the file is one.
        let inner =
            "pub fn f() {}\nmod checks {\n    #![cfg(test)]\n    #[test]\n    fn t() {}\n}\n";
        assert_eq!(items("lib.rs", inner)[0].1, ItemKind::TestModule);
        assert_eq!(keys("lib.rs", inner), vec!["mod checks"]);
        let whole_a = "#![cfg(test)]\nuse super::*;\n#[test]\nfn a() {}\n";
        let whole_b = "#![cfg(test)]\n#[test]\nfn b() {}\n";
        assert_eq!(keys("tests.rs", whole_a), vec!["file"]);
        assert_eq!(spliced("tests.rs", whole_a, whole_b), whole_b);
        assert_eq!(
            splice("tests.rs", whole_a.as_bytes(), inline.as_bytes()),
            None
        );
        assert_eq!(
            splice("tests.rs", inline.as_bytes(), whole_a.as_bytes()),
            None
        );
    }

    #[test]
    fn byte_order_mark() {
        let bom = "\u{feff}//! ```\n//! x();\n//! ```\npub fn f() {}\n#[cfg(test)]\nmod tests {}\n";
        assert_eq!(keys("lib.rs", bom), vec!["inner doc", "mod tests"]);
        // Inner docs go after the mark, which stays first.
        assert_eq!(spliced("lib.rs", "\u{feff}pub fn f() {}\n", bom), bom);
        let doc = "\u{feff}\"\"\">>> 1\n1\n\"\"\"\nimport os\n";
        assert_eq!(keys("m.py", doc), vec!["doc module"]);
        assert_eq!(spliced("m.py", "\u{feff}import os\n", doc), doc);
        assert_eq!(
            spliced("m.py", doc, "\u{feff}import os\n"),
            "\u{feff}\nimport os\n"
        );
    }

    #[test]
    fn cfg_predicates() {
        let only = |args: &str| {
            let p = cfg::parse(args).unwrap();
            p.eval(false) == cfg::Tri::False && p.eval(true) != cfg::Tri::False
        };
        assert!(only("(test)"));
        assert!(only("(all(test, feature = \"x\"))"));
        assert!(only("(all(unix, any(test, any())))"));
        assert!(!only("(all(unix, any(test, all())))"));
        assert!(only("(not(not(test)))"));
        assert!(!only("(any(test, feature = \"x\"))"));
        assert!(!only("(not(test))"));
        assert!(!only("(unix)"));
        assert!(!only("(any())"));
        assert!(!only("(all(test, not(test)))"));
        assert_eq!(cfg::parse("(test"), None);
        assert_eq!(cfg::parse("(foo(test))"), None);
        assert_eq!(cfg::parse("(feature = )"), None);
    }

    #[test]
    fn code_blocks_in_docs() {
        assert!(markdown_has_code(" a\n\n ```\n x\n ```\n"));
        assert!(markdown_has_code(" a\n ~~~rust\n x\n ~~~\n"));
        assert!(markdown_has_code(" a\n\n     let x = 1;\n"));
        assert!(!markdown_has_code(" a\n b `code`\n"));
        assert!(!markdown_has_code(" a\n     continued\n"));
    }

    const PY: &str = r#"#!/usr/bin/env python3
"""Module doc.

>>> add(1, 2)
3
"""


def add(a, b):
    """Add.

    >>> add(2, 2)
    4
    """
    return a + b


def sub(a, b):
    """Prose only."""
    return a - b


class Calc:
    r""">>> Calc().mul(2, 3)
    6
    """

    def mul(self, a, b):
        """
        >>> Calc().mul(1, 1)
        1
        """
        return a * b

    class Inner:
        """>>> 1
        1
        """

    if True:
        def cond(self):
            """>>> 2
            2
            """
            return 2


def outer():
    def nested():
        """>>> 3"""
    return nested


b"""not a doc >>> 1"""
"#;

    #[test]
    fn python_docstrings_by_qualified_owner() {
        assert_eq!(
            keys("m.py", PY),
            vec![
                "doc module",
                "doc def add",
                "doc class Calc",
                "doc def Calc.mul",
                "doc class Calc.Inner",
                "doc def Calc.cond"
            ]
        );
        let got = items("m.py", PY);
        assert_eq!(
            got[1].2,
            "\"\"\"Add.\n\n    >>> add(2, 2)\n    4\n    \"\"\""
        );
        let f = "def f():\n    '''>>> f()'''\n    return f\n";
        assert_eq!(keys("m.py", f), vec!["doc def f"]);
        assert_eq!(
            keys("m.py", "def f():\n    f'''>>> {x}'''\n    return 1\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn python_splices_docstrings_only() {
        let base =
            "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    4\n    \"\"\"\n    return a + b\n";
        let head = "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    5\n    \"\"\"\n    return a + b + 1\n";
        assert_eq!(
            spliced("m.py", head, base),
            "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    4\n    \"\"\"\n    return a + b + 1\n"
        );
        // Inserted as the body's first statement, with the body's indentation.
        let bare = "class K:\n    def add(self, a, b):\n        # why\n        return a - b\n";
        let doc = "class K:\n    def add(self, a, b):\n        \"\"\">>> K().add(1, 1)\n        2\n        \"\"\"\n        return a + b\n";
        let out = spliced("m.py", bare, doc);
        assert_eq!(
            out,
            "class K:\n    def add(self, a, b):\n        # why\n        \"\"\">>> K().add(1, 1)\n        2\n        \"\"\"\n        return a - b\n"
        );
        // Removed, leaving the line blank.
        assert_eq!(
            spliced("m.py", doc, bare),
            "class K:\n    def add(self, a, b):\n        \n        return a + b\n"
        );
        // A module docstring goes before the first statement, after comments and a shebang.
        let plain = "#!/usr/bin/env python3\nimport os\n";
        let with = "#!/usr/bin/env python3\n\"\"\">>> 1\n1\n\"\"\"\nimport os\n";
        assert_eq!(spliced("m.py", plain, with), with);
        assert_eq!(spliced("m.py", "", with), "\"\"\">>> 1\n1\n\"\"\"");
        // Cannot place: a body on the `def` line; a docstring that is its body's only statement.
        let inline = "def f(): return 1\n";
        let doc_f = "def f():\n    \">>> f()\"\n    return 1\n";
        assert_eq!(splice("m.py", inline.as_bytes(), doc_f.as_bytes()), None);
        let only = "def f():\n    \">>> f()\"\n";
        assert_eq!(splice("m.py", only.as_bytes(), inline.as_bytes()), None);
        assert_eq!(spliced("m.py", only, doc_f), only);
        // The docstring takes the body's indentation, whatever tests_from's was.
        let tabs = "def f():\n\treturn 1\n";
        let out = splice("m.py", tabs.as_bytes(), doc_f.as_bytes()).map(String::from_utf8);
        assert_eq!(
            out,
            Some(Ok("def f():\n\t\">>> f()\"\n\treturn 1\n".to_string()))
        );
    }

    #[test]
    fn vitest_in_source_blocks() {
        let base = "export const add = (a: number, b: number) => a + b;\n\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('adds', () => expect(add(2, 2)).toBe(4));\n}\n";
        let head = "export const add = (a: number, b: number) => a * b;\n";
        assert_eq!(keys("src/add.ts", base), vec!["vitest"]);
        assert_eq!(items("src/add.ts", base)[0].1, ItemKind::InSource);
        assert_eq!(keys("src/add.ts", head), Vec::<String>::new());
        assert_eq!(
            spliced("src/add.ts", head, base),
            "export const add = (a: number, b: number) => a * b;\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('adds', () => expect(add(2, 2)).toBe(4));\n}\n"
        );
        assert_eq!(
            spliced("src/add.ts", base, head),
            "export const add = (a: number, b: number) => a + b;\n\n"
        );
        let jsx = "export const A = () => <div/>;\nif (import.meta.vitest != null) { import.meta.vitest.it('x', () => {}) }\n";
        assert_eq!(keys("a.jsx", jsx), vec!["vitest"]);
        assert_eq!(keys("a.tsx", jsx), vec!["vitest"]);
    }

    // --- Properties ------------------------------------------------------------------------------

    /// One version of a generated Rust file: a variant per item, `None` for an absent test item.
    #[derive(Debug, Clone)]
    struct RustVersion {
        inner_doc: u8,
        add_body: u8,
        add_doc: u8,
        top_test: Option<u8>,
        m_test: Option<u8>,
        probe: Option<u8>,
        feature_test: Option<u8>,
        tests_mod: Option<u8>,
        crlf: bool,
    }

    fn rust_version() -> impl Strategy<Value = RustVersion> {
        (
            0u8..3,
            0u8..3,
            0u8..3,
            proptest::option::of(0u8..3),
            proptest::option::of(0u8..3),
            proptest::option::of(0u8..3),
            proptest::option::of(0u8..3),
            proptest::option::of(0u8..3),
            any::<bool>(),
        )
            .prop_map(
                |(
                    inner_doc,
                    add_body,
                    add_doc,
                    top_test,
                    m_test,
                    probe,
                    feature_test,
                    tests_mod,
                    crlf,
                )| {
                    RustVersion {
                        inner_doc,
                        add_body,
                        add_doc,
                        top_test,
                        m_test,
                        probe,
                        feature_test,
                        tests_mod,
                        crlf,
                    }
                },
            )
    }

    /// `0`: none, `1`: prose, `2`: an example.
    fn rust_doc(kind: u8, indent: &str, marker: &str, v: u8) -> String {
        match kind {
            0 => String::new(),
            1 => format!("{indent}{marker} Prose {v}.\n"),
            _ => format!(
                "{indent}{marker} ```\n{indent}{marker} assert_eq!(1, {v});\n{indent}{marker} ```\n"
            ),
        }
    }

    fn render_rust(v: &RustVersion) -> String {
        let mut s = rust_doc(v.inner_doc, "", "//!", v.add_body);
        s.push_str(&rust_doc(v.add_doc, "", "///", v.add_body));
        s.push_str(&format!(
            "#[inline]\npub fn add(a: i32, b: i32) -> i32 {{\n    a + b + {}\n}}\n\n",
            v.add_body
        ));
        if let Some(t) = v.top_test {
            s.push_str(&format!(
                "#[test]\n#[should_panic]\nfn top() {{\n    assert_eq!(add(1, 1), {t});\n}}\n\n"
            ));
        }
        s.push_str("pub struct S;\n\nimpl S {\n    pub fn new() -> S {\n        S\n    }\n");
        if let Some(p) = v.probe {
            s.push_str(&format!(
                "\n    #[cfg(test)]\n    fn probe(&self) -> u8 {{\n        {p}\n    }}\n"
            ));
        }
        s.push_str("}\n\npub mod m {\n    pub fn g() -> i32 {\n        7\n    }\n");
        if let Some(t) = v.m_test {
            s.push_str(&format!(
                "\n    #[test]\n    fn gs() {{\n        assert_eq!(super::m::g(), {t});\n    }}\n"
            ));
        }
        s.push_str("}\n\n");
        if let Some(t) = v.feature_test {
            s.push_str(&format!(
                "#[cfg(all(test, feature = \"x\"))]\nfn with_x() -> u8 {{\n    {t}\n}}\n\n"
            ));
        }
        if let Some(t) = v.tests_mod {
            s.push_str(&format!("#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    /// Checks.\n    #[test]\n    fn adds() {{\n        assert_eq!(add(1, 1), {t});\n    }}\n}}\n"));
        }
        if v.crlf { s.replace('\n', "\r\n") } else { s }
    }

    /// The result's bytes outside the spliced slots, whitespace-only lines dropped (the only glue
    /// a splice adds is a line break and indentation before an inserted item).
    fn skeleton(path: &str, src: &[u8], relevant: &HashSet<String>) -> Vec<String> {
        let analysis = analyze(grammar_of(path).unwrap(), src).unwrap();
        let mut rest = Vec::new();
        let mut cursor = 0;
        for slot in analysis.slots.iter().filter(|s| relevant.contains(&s.key)) {
            rest.extend_from_slice(&src[cursor..slot.range.start]);
            cursor = slot.range.end;
        }
        rest.extend_from_slice(&src[cursor..]);
        String::from_utf8(rest)
            .unwrap()
            .split('\n')
            .map(|l| l.trim_end_matches('\r').to_string())
            .filter(|l| !l.trim().is_empty())
            .collect()
    }

    fn test_keys(path: &str, src: &[u8]) -> HashSet<String> {
        test_items(path, src)
            .unwrap()
            .into_iter()
            .map(|i| i.key)
            .collect()
    }

    /// `(key, kind, bytes with LF line endings)`, sorted by key.
    fn normalized_items(path: &str, src: &[u8]) -> Vec<(String, ItemKind, Vec<u8>)> {
        let mut v: Vec<_> = test_items(path, src)
            .unwrap()
            .into_iter()
            .map(|i| (i.key, i.kind, Eol::Lf.convert(&src[i.range])))
            .collect();
        v.sort();
        v
    }

    fn check_invariants(path: &str, code: &[u8], tests: &[u8]) -> Result<(), TestCaseError> {
        prop_assert_eq!(splice(path, code, code), Some(code.to_vec()));
        prop_assert_eq!(splice(path, tests, tests), Some(tests.to_vec()));
        let out = splice(path, code, tests);
        prop_assert!(
            out.is_some(),
            "no splice of\n{}\ninto\n{}",
            String::from_utf8_lossy(tests),
            String::from_utf8_lossy(code)
        );
        let out = out.unwrap_or_default();
        // The result's test items are tests_from's, by key, kind and bytes.
        prop_assert_eq!(normalized_items(path, &out), normalized_items(path, tests));
        // Everything else is code_from's.
        let relevant: HashSet<String> = test_keys(path, code)
            .union(&test_keys(path, tests))
            .cloned()
            .collect();
        prop_assert_eq!(
            skeleton(path, &out, &relevant),
            skeleton(path, code, &relevant)
        );
        // Idempotent.
        prop_assert_eq!(splice(path, &out, tests), Some(out.clone()));
        // code_from's line endings.
        if Eol::of(code) == Eol::Crlf {
            prop_assert_eq!(Eol::of(&out), Eol::Crlf);
        } else if Eol::of(code) == Eol::Lf {
            prop_assert!(!out.contains(&b'\r'));
        }
        Ok(())
    }

    #[derive(Debug, Clone)]
    struct PyVersion {
        module_doc: u8,
        add_doc: u8,
        add_body: u8,
        class_doc: u8,
        method_doc: u8,
        crlf: bool,
    }

    fn py_version() -> impl Strategy<Value = PyVersion> {
        (0u8..3, 0u8..3, 0u8..3, 0u8..3, 0u8..3, any::<bool>()).prop_map(
            |(module_doc, add_doc, add_body, class_doc, method_doc, crlf)| PyVersion {
                module_doc,
                add_doc,
                add_body,
                class_doc,
                method_doc,
                crlf,
            },
        )
    }

    fn py_doc(kind: u8, indent: &str, v: u8) -> String {
        match kind {
            0 => String::new(),
            1 => format!("{indent}\"\"\"Prose {v}.\"\"\"\n"),
            _ => format!(
                "{indent}\"\"\"\n{indent}>>> 1 + {v}\n{indent}{}\n{indent}\"\"\"\n",
                1 + v
            ),
        }
    }

    fn render_py(v: &PyVersion) -> String {
        let mut s = String::from("# header\n");
        s.push_str(&py_doc(v.module_doc, "", v.add_body));
        s.push_str("import os\n\n\n@staticmethod\ndef add(a, b):\n");
        s.push_str(&py_doc(v.add_doc, "    ", v.add_body));
        s.push_str(&format!(
            "    return a + b + {}\n\n\nclass K:\n",
            v.add_body
        ));
        s.push_str(&py_doc(v.class_doc, "    ", v.add_body));
        s.push_str("    x = 1\n\n    def m(self):\n");
        s.push_str(&py_doc(v.method_doc, "        ", v.add_body));
        s.push_str(&format!("        return {}\n", v.add_body));
        if v.crlf { s.replace('\n', "\r\n") } else { s }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(96))]

        #[test]
        fn rust_splice_invariants(code in rust_version(), tests in rust_version()) {
            check_invariants("src/lib.rs", render_rust(&code).as_bytes(), render_rust(&tests).as_bytes())?;
        }

        #[test]
        fn python_splice_invariants(code in py_version(), tests in py_version()) {
            check_invariants("pkg/m.py", render_py(&code).as_bytes(), render_py(&tests).as_bytes())?;
        }

        #[test]
        fn vitest_splice_invariants(a in proptest::option::of(0u8..3), b in proptest::option::of(0u8..3), body in 0u8..3) {
            let render = |t: Option<u8>, body: u8| {
                let mut s = format!("export function f() {{\n  return {body};\n}}\n");
                if let Some(t) = t {
                    s.push_str(&format!("\nif (import.meta.vitest) {{\n  const {{ it, expect }} = import.meta.vitest;\n  it('f', () => expect(f()).toBe({t}));\n}}\n"));
                }
                s
            };
            check_invariants("src/f.ts", render(a, body).as_bytes(), render(b, 2 - body).as_bytes())?;
        }

        #[test]
        fn never_panics_on_arbitrary_bytes(a in proptest::collection::vec(any::<u8>(), 0..300), b in proptest::collection::vec(any::<u8>(), 0..300)) {
            for path in ["x.rs", "x.py", "x.ts", "x.tsx", "x.js"] {
                let _ = test_items(path, &a);
                let _ = splice(path, &a, &b);
            }
        }

        #[test]
        fn never_panics_on_damaged_files(v in rust_version(), p in py_version(), cut in 0usize..2000, len in 0usize..40, byte in any::<u8>()) {
            for (path, src) in [("x.rs", render_rust(&v)), ("x.py", render_py(&p))] {
                let mut damaged = src.clone().into_bytes();
                let at = cut % (damaged.len() + 1);
                let end = (at + len).min(damaged.len());
                damaged.splice(at..end, [byte]);
                let _ = test_items(path, &damaged);
                if let Some(out) = splice(path, &damaged, src.as_bytes()) {
                    // Whatever parses splices into something that parses.
                    prop_assert!(test_items(path, &out).is_some());
                }
                let _ = splice(path, src.as_bytes(), &damaged);
            }
        }
    }
}
