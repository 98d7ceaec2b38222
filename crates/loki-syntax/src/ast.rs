//! Syntax trees for the rules that need structure (which function a `return` belongs to, what a
//! condition compares, which statements run at import time): tree-sitter, one parse per file side.
//!
//! The text parsed is the [`crate::lex::normalize`]d text (LF line endings), so line numbers are
//! the same for a CRLF file and its LF twin. A parse is bounded in size ([`MAX_AST_BYTES`]) and
//! time (`PARSE_TIMEOUT`); a file that cannot be parsed yields no tree and the structural rules
//! say nothing about it (the lexical rules still run). Walks are iterative, so nesting depth cannot
//! overflow the stack, and every text access is bounds-checked: nothing here panics on any input.

use std::collections::HashMap;
use std::time::Duration;

use tree_sitter::{Node, Tree};

/// Larger files are not parsed: real source files are far smaller, and the scan has a time budget.
pub const MAX_AST_BYTES: usize = 1024 * 1024;
/// A parse still running after this long is abandoned (a 1 MiB file parses in well under this).
const PARSE_TIMEOUT: Duration = Duration::from_secs(2);

pub use loki_repomap::grammar::Grammar;

/// A parsed file side.
#[derive(Debug)]
pub struct Ast {
    pub grammar: Grammar,
    pub text: String,
    tree: Tree,
}

/// Parses `text` (already normalised) as the grammar of `path`.
pub fn parse(path: &str, text: &str) -> Option<Ast> {
    let grammar = Grammar::of_path(path)?;
    if text.len() > MAX_AST_BYTES {
        return None;
    }
    let mut parser = loki_repomap::grammar::parser(grammar)?;
    let tree = loki_repomap::grammar::parse_within(&mut parser, text, PARSE_TIMEOUT)?;
    Some(Ast {
        grammar,
        text: text.to_owned(),
        tree,
    })
}

impl Ast {
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of `node` ("" if its range is not valid UTF-8 boundaries).
    pub fn text_of(&self, node: Node) -> &str {
        self.text.get(node.byte_range()).unwrap_or("")
    }

    /// The text of `node`'s `field` child, or "".
    pub fn field_text(&self, node: Node, field: &str) -> &str {
        node.child_by_field_name(field)
            .map_or("", |c| self.text_of(c))
    }

    /// The text of `node` with runs of whitespace collapsed to one space: a key that survives
    /// re-indentation and line wrapping.
    pub fn squashed(&self, node: Node) -> String {
        squash(self.text_of(node))
    }

    /// The first line of `node`'s text, trimmed and cut to a readable length: the evidence quoted
    /// in a finding.
    pub fn quote(&self, node: Node) -> String {
        quote(self.text_of(node))
    }

    /// Every node under `root` (itself included) in source order, skipping the subtrees for which
    /// `prune` is true (their root is still visited).
    pub fn walk<'t>(
        &self,
        root: Node<'t>,
        mut prune: impl FnMut(Node<'t>) -> bool,
    ) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        preorder(root, |n, _| {
            out.push(n);
            !prune(n)
        });
        out
    }

    /// Every node under `root` (itself included) in source order.
    pub fn all<'t>(&self, root: Node<'t>) -> Vec<Node<'t>> {
        self.walk(root, |_| false)
    }
}

/// Visits every node under `root` in source order with one cursor (no allocation per node),
/// passing the visit's depth; `visit` returns whether to descend into the node.
fn preorder<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, usize) -> bool) {
    let mut cursor = root.walk();
    let mut depth = 0usize;
    loop {
        let descend = visit(cursor.node(), depth);
        if descend && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
        }
    }
}

/// 1-based line of `node`'s start.
/// A call read the same way in every grammar: `f(a)`, `obj.method(a)` (Python's `call`, JS's and
/// Go's and Rust's `call_expression`, Java's `method_invocation`).
#[derive(Debug, Clone)]
pub struct Call<'t> {
    /// What is called, as written: `f`, `obj.method`, `Pattern.matches`.
    pub callee: &'t str,
    /// The method's or function's own name: the last segment of `callee`.
    pub method: &'t str,
    /// The receiver of a method call (`obj` in `obj.method(a)`), if any.
    pub object: Option<Node<'t>>,
    /// The arguments, comments left out.
    pub args: Vec<Node<'t>>,
}

/// The name and value a binding node binds, in every grammar: an assignment (`x = v`, also as
/// an expression), a declarator (`const x = v`, Java's `T x = v`), Go's `var x = v` and
/// `x := v` (first name, first value), Rust's `let`/`static`/`const`. `None` for any other node,
/// or a binding without a value (`let x;`).
pub fn binding(n: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let field = |f: &str| n.child_by_field_name(f);
    let (name, value) = match n.kind() {
        "assignment" | "assignment_expression" => (field("left"), field("right")),
        "variable_declarator" => (field("name"), field("value")),
        "var_spec" | "const_spec" => (field("name"), field("value").and_then(|v| v.named_child(0))),
        "short_var_declaration" => (
            field("left").and_then(|l| l.named_child(0)),
            field("right").and_then(|r| r.named_child(0)),
        ),
        "let_declaration" | "static_item" | "const_item" => {
            (field("pattern").or_else(|| field("name")), field("value"))
        }
        _ => return None,
    };
    Some((name?, value?))
}

/// `n` read as a [`Call`], or `None` when it is not a call node.
pub fn call<'t>(ast: &'t Ast, n: Node<'t>) -> Option<Call<'t>> {
    let args = n
        .child_by_field_name("arguments")
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|a| !a.kind().contains("comment"))
        .collect();
    match n.kind() {
        "method_invocation" => {
            let name = n.child_by_field_name("name")?;
            let callee = ast.text.get(n.start_byte()..name.end_byte()).unwrap_or("");
            Some(Call {
                callee,
                method: ast.text_of(name),
                object: n.child_by_field_name("object"),
                args,
            })
        }
        "call_expression" | "call" => {
            let f = n.child_by_field_name("function")?;
            let callee = ast.text_of(f);
            let method = f
                .child_by_field_name("property")
                .or_else(|| f.child_by_field_name("field"))
                .or_else(|| f.child_by_field_name("attribute"))
                .map_or_else(
                    || callee.rsplit(['.', ':']).next().unwrap_or(callee),
                    |m| ast.text_of(m),
                );
            let object = f
                .child_by_field_name("object")
                .or_else(|| f.child_by_field_name("value"))
                .or_else(|| f.child_by_field_name("operand"));
            Some(Call {
                callee,
                method,
                object,
                args,
            })
        }
        _ => None,
    }
}

pub fn line(node: Node) -> u32 {
    u32::try_from(node.start_position().row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// Runs of whitespace collapsed to one space, trimmed.
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The first line of `s`, trimmed, at most 120 characters (with `…` when cut).
pub fn quote(s: &str) -> String {
    let first = s.lines().next().unwrap_or("").trim();
    let mut out: String = first.chars().take(120).collect();
    if first.chars().count() > 120 || s.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// The named children of `node`.
pub fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Every node of a tree in source order with its parent, built in one walk: tree-sitter's own
/// `Node::parent` and sibling steps search down from the root, which makes a rule that asks for
/// every node's ancestors quadratic in the size of the file.
#[derive(Debug)]
pub struct Index<'t> {
    nodes: Vec<Node<'t>>,
    parent: Vec<usize>,
    pos: HashMap<usize, usize>,
}

impl<'t> Index<'t> {
    pub fn new(root: Node<'t>) -> Index<'t> {
        let mut ix = Index {
            nodes: Vec::new(),
            parent: Vec::new(),
            pos: HashMap::new(),
        };
        // The open ancestors' indices, one per depth.
        let mut open: Vec<usize> = Vec::new();
        preorder(root, |n, depth| {
            open.truncate(depth);
            let i = ix.nodes.len();
            ix.nodes.push(n);
            ix.parent.push(open.last().copied().unwrap_or(usize::MAX));
            ix.pos.insert(n.id(), i);
            open.push(i);
            true
        });
        ix
    }

    /// Every node, in source order.
    pub fn nodes(&self) -> &[Node<'t>] {
        &self.nodes
    }

    pub fn parent(&self, n: Node<'t>) -> Option<Node<'t>> {
        let i = *self.pos.get(&n.id())?;
        self.nodes.get(*self.parent.get(i)?).copied()
    }

    /// The ancestors of `n`, nearest first.
    pub fn ancestors(&self, n: Node<'t>) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut i = self.pos.get(&n.id()).copied();
        while let Some(p) = i.and_then(|i| self.parent.get(i)).copied() {
            let Some(node) = self.nodes.get(p) else { break };
            out.push(*node);
            i = Some(p);
        }
        out
    }

    /// The named siblings of `n` (itself included) and its position among them.
    fn siblings(&self, n: Node<'t>) -> Option<(Vec<Node<'t>>, usize)> {
        let p = self.parent(n)?;
        let kids = named_children(p);
        let at = kids.iter().position(|k| *k == n)?;
        Some((kids, at))
    }

    pub fn next_named_siblings(&self, n: Node<'t>) -> Vec<Node<'t>> {
        self.siblings(n)
            .map(|(k, at)| k.into_iter().skip(at + 1).collect())
            .unwrap_or_default()
    }

    /// The named siblings before `n`, nearest first.
    pub fn prev_named_siblings(&self, n: Node<'t>) -> Vec<Node<'t>> {
        self.siblings(n)
            .map(|(k, at)| k.into_iter().take(at).rev().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_reads_name_and_value_in_every_grammar() {
        let cases = [
            ("a.py", "EDGES = {90, 80}\n", "EDGES", "{90, 80}"),
            ("a.js", "let t;\nt = [1, 2];\nconst u = 3;\n", "t", "[1, 2]"),
            (
                "a.go",
                "package a\nvar X = 4\nfunc f() { y := 5 }\n",
                "X",
                "4",
            ),
            (
                "a.rs",
                "const N: u8 = 6;\nfn f() { let mut v = 7; }\n",
                "N",
                "6",
            ),
            ("A.java", "class A { static int k = 8; }\n", "k", "8"),
        ];
        for (path, src, name, value) in cases {
            let ast = parse(path, src).unwrap();
            let bound: Vec<(&str, &str)> = ast
                .all(ast.tree.root_node())
                .into_iter()
                .filter_map(binding)
                .map(|(n, v)| (ast.text_of(n), ast.text_of(v)))
                .collect();
            assert_eq!(bound.first(), Some(&(name, value)), "{path}: {bound:?}");
        }
        // Go's `:=` and Rust's `let mut` bind too; a declaration without a value does not.
        let go = parse("a.go", "package a\nfunc f() { y := 5 }\n").unwrap();
        assert!(
            go.all(go.root())
                .into_iter()
                .filter_map(binding)
                .any(|(n, _)| go.text_of(n) == "y")
        );
        let js = parse("a.js", "let t;\n").unwrap();
        assert_eq!(js.all(js.root()).into_iter().filter_map(binding).count(), 0);
    }

    /// Prints a tree, for writing rules: `cargo test -p loki-syntax --lib ast::tests::dump -- --nocapture`.
    #[test]
    fn dump() {
        let Some(src) = loki_core::env::AST_DUMP.get() else {
            return;
        };
        let path = loki_core::env::AST_PATH
            .get()
            .unwrap_or_else(|| "a.py".into());
        let ast = parse(&path, &src).unwrap();
        eprintln!("{}", ast.root().to_sexp());
    }

    #[test]
    fn parses_every_grammar_and_bounds_input() {
        for (p, s) in [
            ("a.rs", "fn f() {}"),
            ("a.py", "def f(): pass"),
            ("a.js", "function f() {}"),
            ("a.ts", "let x: number = 1"),
            ("a.tsx", "const a = <b/>"),
            ("a.go", "package a"),
        ] {
            let a = parse(p, s).unwrap();
            assert!(!a.root().has_error(), "{p}");
            assert_eq!(line(a.root()), 1);
        }
        assert!(parse("a.txt", "x").is_none());
        assert!(parse("a.py", &"x".repeat(MAX_AST_BYTES + 1)).is_none());
        assert_eq!(quote("  a\n  b"), "a…");
        assert_eq!(squash(" a \n\t b "), "a b");
        // Deep nesting neither overflows the parse nor the walk.
        let deep = format!("x = {}1{}", "(".repeat(50_000), ")".repeat(50_000));
        if let Some(a) = parse("a.py", &deep) {
            assert!(a.all(a.root()).len() > 1);
        }
    }
}
