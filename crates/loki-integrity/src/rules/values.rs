//! Literal values as the code means them, not as it spells them: a tuple, a list, an array, a Go
//! composite literal and a Rust `vec![..]` of the same numbers are one value; a dict, a JS object
//! and a Go keyed literal are one map. Used to see test data reproduced in code
//! ([`crate::rules::steering`]).
//!
//! # Values
//! A leaf is a [`Lit`] (numbers in canonical form, strings by content) or a word (`true`,
//! `false`, `none`/`null`/`nil`/`undefined`, all read as lower case). A sequence holds the values
//! of its elements; a map its key-value pairs. A node whose elements are not all values (a call,
//! a name) has no value. Sets compare as sorted sequences ([`Val::canonical`]).
//!
//! # Test groups
//! [`groups`] reads test code into the values of one test call each: the innermost statement
//! around each literal (`assert solve(19, 50, 2) == 6`, `expect(f(1)).toBe(2)`,
//! `assert_eq!(f(19, 50), 7)`), or, inside a table (a collection of at least two composite rows),
//! the row. A group keeps its leaves and its composite values, with every call's literal arguments
//! as one sequence (`(19, 50, 2)` for `solve(19, 50, 2)`). Python doctests (`>>> f(1, 2)` and the
//! line after it) are groups too.

use std::collections::BTreeSet;

use tree_sitter::Node;

use loki_syntax::ast::{Ast, Grammar, line, named_children};
use loki_syntax::literals::{Lit, literal};

/// A literal value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Val {
    Leaf(Lit),
    Word(String),
    Seq(Vec<Val>),
    Map(Vec<(Val, Val)>),
}

impl Val {
    /// Every leaf of the value.
    pub(crate) fn leaves(&self, out: &mut BTreeSet<Lit>) {
        match self {
            Val::Leaf(l) => {
                out.insert(l.clone());
            }
            Val::Word(_) => {}
            Val::Seq(v) => v.iter().for_each(|x| x.leaves(out)),
            Val::Map(v) => v.iter().for_each(|(k, x)| {
                k.leaves(out);
                x.leaves(out);
            }),
        }
    }

    pub(crate) fn leaf_set(&self) -> BTreeSet<Lit> {
        let mut s = BTreeSet::new();
        self.leaves(&mut s);
        s
    }

    /// Its leaves in order, nested sequences flattened (`((1, 2), (4, 6))` → `1, 2, 4, 6`).
    pub(crate) fn flat(&self) -> Vec<Lit> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match v {
                Val::Leaf(l) => out.push(l.clone()),
                Val::Word(_) => {}
                Val::Seq(xs) => stack.extend(xs.iter().rev()),
                Val::Map(pairs) => {
                    for (k, x) in pairs.iter().rev() {
                        stack.push(x);
                        stack.push(k);
                    }
                }
            }
        }
        out
    }

    /// How many leaves (with repeats) the value has.
    pub(crate) fn size(&self) -> usize {
        match self {
            Val::Leaf(_) | Val::Word(_) => 1,
            Val::Seq(v) => v.iter().map(Val::size).sum(),
            Val::Map(v) => v.iter().map(|(k, x)| k.size() + x.size()).sum(),
        }
    }

    /// The value with every map's pairs sorted (key order does not matter in a map).
    pub(crate) fn canonical(&self) -> Val {
        match self {
            Val::Seq(v) => Val::Seq(v.iter().map(Val::canonical).collect()),
            Val::Map(v) => {
                let mut pairs: Vec<(Val, Val)> = v
                    .iter()
                    .map(|(k, x)| (k.canonical(), x.canonical()))
                    .collect();
                pairs.sort();
                Val::Map(pairs)
            }
            other => other.clone(),
        }
    }

    /// The same value with its sequence's elements sorted (a set, or a list compared as one).
    pub(crate) fn sorted(&self) -> Val {
        match self.canonical() {
            Val::Seq(mut v) => {
                v.sort();
                Val::Seq(v)
            }
            other => other,
        }
    }

    /// How it reads in a finding.
    pub(crate) fn show(&self) -> String {
        match self {
            Val::Leaf(l) => l.show(),
            Val::Word(w) => w.clone(),
            Val::Seq(v) => format!(
                "({})",
                v.iter().map(Val::show).collect::<Vec<_>>().join(", ")
            ),
            Val::Map(v) => format!(
                "{{{}}}",
                v.iter()
                    .map(|(k, x)| format!("{}: {}", k.show(), x.show()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Nodes that are collections of values in some grammar.
pub(crate) fn is_collection(kind: &str) -> bool {
    matches!(
        kind,
        "tuple"
            | "list"
            | "set"
            | "array"
            | "tuple_expression"
            | "array_expression"
            | "dictionary"
            | "object"
            | "composite_literal"
            | "literal_value"
    )
}

/// The value of `n`, when it is a literal or a collection of literals.
pub(crate) fn value(ast: &Ast, n: Node) -> Option<Val> {
    if let Some(l) = literal(ast, n) {
        return Some(Val::Leaf(l));
    }
    match n.kind() {
        "true" | "false" | "none" | "null" | "undefined" | "nil" | "boolean_literal" => {
            Some(Val::Word(ast.text_of(n).to_ascii_lowercase()))
        }
        "char_literal" | "rune_literal" => {
            let t = ast.text_of(n);
            let inner = t.get(1..t.len().saturating_sub(1))?;
            Some(Val::Leaf(Lit::Str(inner.replace('\\', ""))))
        }
        "parenthesized_expression" => {
            let kids = named_children(n);
            match kids.as_slice() {
                [one] => value(ast, *one),
                _ => None,
            }
        }
        // Java's `{1, 2}` is an `array_initializer`.
        "tuple" | "list" | "set" | "array" | "tuple_expression" | "array_expression"
        | "expression_list" | "array_initializer" => seq(ast, &named_children(n)),
        "dictionary" | "object" => {
            let mut pairs = Vec::new();
            for p in named_children(n) {
                if p.kind() == "comment" {
                    continue;
                }
                if p.kind() != "pair" {
                    return None;
                }
                let k = p.child_by_field_name("key")?;
                let v = p.child_by_field_name("value")?;
                let kv = match k.kind() {
                    "property_identifier" | "identifier" => {
                        Val::Leaf(Lit::Str(ast.text_of(k).to_owned()))
                    }
                    _ => value(ast, k)?,
                };
                pairs.push((kv, value(ast, v)?));
            }
            Some(Val::Map(pairs))
        }
        "composite_literal" => value(ast, n.child_by_field_name("body")?),
        "literal_value" => {
            let elems: Vec<Node> = named_children(n)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .collect();
            if elems.iter().any(|e| e.kind() == "keyed_element") {
                let mut pairs = Vec::new();
                for e in elems {
                    let kids = named_children(e);
                    let [k, v] = kids.as_slice() else { return None };
                    let kv = match unwrap_element(*k) {
                        k if k.kind() == "identifier" || k.kind() == "field_identifier" => {
                            Val::Leaf(Lit::Str(ast.text_of(k).to_owned()))
                        }
                        k => value(ast, k)?,
                    };
                    pairs.push((kv, value(ast, unwrap_element(*v))?));
                }
                Some(Val::Map(pairs))
            } else {
                let inner: Vec<Node> = elems.into_iter().map(unwrap_element).collect();
                seq(ast, &inner)
            }
        }
        "array_creation_expression" => value(ast, n.child_by_field_name("value")?),
        "null_literal" => Some(Val::Word("null".to_owned())),
        "method_invocation" | "object_creation_expression" if ast.grammar == Grammar::Java => {
            java_collection(ast, n)
        }
        "macro_invocation" if ast.grammar == Grammar::Rust => {
            // `vec![1, 2]`: the token tree's literals, when it holds nothing else.
            let name = n.child_by_field_name("macro").map(|m| ast.text_of(m))?;
            if name != "vec" {
                return None;
            }
            let tree = named_children(n)
                .into_iter()
                .find(|c| c.kind() == "token_tree")?;
            token_seq(ast, tree)
        }
        _ => None,
    }
}

pub(crate) fn unwrap_element(n: Node) -> Node {
    if n.kind() == "literal_element" {
        n.named_child(0).unwrap_or(n)
    } else {
        n
    }
}

fn seq(ast: &Ast, nodes: &[Node]) -> Option<Val> {
    nodes
        .iter()
        .filter(|c| !c.kind().ends_with("comment"))
        .map(|c| value(ast, *c))
        .collect::<Option<Vec<_>>>()
        .map(Val::Seq)
}

/// The elements of a Java collection literal, each with its value for a map: `List.of(..)`,
/// `Set.of(..)`, `Arrays.asList(..)`, `Stream.of(..)`, `{..}`, `Map.of(k, v, ..)` and
/// `Map.ofEntries(Map.entry(k, v), ..)`, through `new HashSet<>(..)` and `copyOf(..)`. Empty
/// for anything else. The one reader of Java's collection factories: [`value`] and the special
/// case rule both go through it.
pub(crate) fn java_entries<'t>(ast: &'t Ast, n: Node<'t>) -> Vec<(Node<'t>, Option<Node<'t>>)> {
    let n = unparen(n);
    if n.kind() == "array_initializer" {
        return named_children(n)
            .into_iter()
            .filter(|e| !e.kind().ends_with("comment"))
            .map(|e| (e, None))
            .collect();
    }
    if n.kind() == "object_creation_expression" {
        let args = n
            .child_by_field_name("arguments")
            .map(named_children)
            .unwrap_or_default();
        return match args[..] {
            [one] => java_entries(ast, one),
            _ => Vec::new(),
        };
    }
    let Some(c) = loki_syntax::ast::call(ast, n) else {
        return Vec::new();
    };
    let owner = c.object.map_or("", |o| ast.text_of(o));
    let owner = owner.rsplit('.').next().unwrap_or(owner);
    let map = matches!(owner, "Map" | "ImmutableMap");
    match (owner, c.method) {
        (
            "List" | "Set" | "Stream" | "Arrays" | "EnumSet" | "ImmutableList" | "ImmutableSet",
            "of" | "asList",
        ) => c.args.into_iter().map(|a| (a, None)).collect(),
        (_, "of") if map => c
            .args
            .chunks(2)
            .filter_map(|kv| match kv {
                [k, v] => Some((*k, Some(*v))),
                _ => None,
            })
            .collect(),
        (_, "ofEntries") if map => c
            .args
            .iter()
            .filter_map(|e| {
                let entry = loki_syntax::ast::call(ast, *e)?;
                match entry.args[..] {
                    [k, v] => Some((k, Some(v))),
                    _ => None,
                }
            })
            .collect(),
        (_, "copyOf" | "unmodifiableList" | "unmodifiableSet" | "unmodifiableMap") => {
            match c.args[..] {
                [one] => java_entries(ast, one),
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

fn unparen(n: Node) -> Node {
    let mut n = n;
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// Java's collection values ([`java_entries`]): a sequence, or a map when every element has a
/// value; `new Key(2024, 2)`, a record or value class built from literals, is the composite of
/// its arguments.
fn java_collection(ast: &Ast, n: Node) -> Option<Val> {
    if n.kind() == "object_creation_expression" {
        let args = n.child_by_field_name("arguments").map(named_children)?;
        if args.len() >= 2 {
            return seq(ast, &args);
        }
    }
    let entries = java_entries(ast, n);
    if entries.is_empty() {
        return None;
    }
    if entries.iter().all(|(_, v)| v.is_some()) {
        entries
            .into_iter()
            .map(|(k, v)| Some((value(ast, k)?, value(ast, v?)?)))
            .collect::<Option<Vec<_>>>()
            .map(Val::Map)
    } else {
        let keys: Vec<Node> = entries.into_iter().map(|(k, _)| k).collect();
        seq(ast, &keys)
    }
}

/// A Rust token tree's literal elements (`(19, 50)`, `[1, 2]`), nested trees as sequences;
/// `None` when it holds anything but literals.
fn token_seq(ast: &Ast, tree: Node) -> Option<Val> {
    let mut out = Vec::new();
    for c in named_children(tree) {
        match c.kind() {
            "token_tree" => out.push(token_seq(ast, c)?),
            _ => out.push(value(ast, c)?),
        }
    }
    Some(Val::Seq(out))
}

/// The values of one test call (see the module doc).
#[derive(Debug, Clone, Default)]
pub(crate) struct Group {
    pub path: String,
    pub line: u32,
    /// The statement or row, as written (one line, shortened).
    pub quote: String,
    pub leaves: BTreeSet<Lit>,
    /// Composite values in it, each call's literal arguments among them.
    pub composites: Vec<Val>,
    /// Each call's callee (its last name: `solve` of `mod.solve(..)`) and its arguments' values
    /// by position (`None` where an argument is not a literal value).
    pub calls: Vec<(String, Vec<Option<Val>>)>,
    /// The group is a row of a table (its values are one call's inputs and answer).
    pub row: bool,
}

impl Group {
    /// Values the test's data implies without spelling them: each sequence's length, each
    /// string's length, the sum of each sequence of integers, and each sequence of strings
    /// joined (`''`, `','`, `' '`, `'-'`): what code that fingerprints an input compares with.
    pub(crate) fn derived(&self) -> (BTreeSet<Lit>, BTreeSet<String>) {
        let mut measures = BTreeSet::new();
        let mut joined = BTreeSet::new();
        let num = |n: usize| Lit::Num(n.to_string());
        for l in &self.leaves {
            if let Lit::Str(s) = l {
                measures.insert(num(s.chars().count()));
            }
        }
        let mut stack: Vec<&Val> = self.composites.iter().collect();
        while let Some(v) = stack.pop() {
            if let Val::Seq(xs) = v {
                measures.insert(num(xs.len()));
                let ints: Option<Vec<i128>> = xs
                    .iter()
                    .map(|x| match x {
                        Val::Leaf(Lit::Num(n)) => n.parse::<i128>().ok(),
                        _ => None,
                    })
                    .collect();
                if let Some(ints) = ints.filter(|i| i.len() >= 2) {
                    let sum: i128 = ints.iter().sum();
                    measures.insert(Lit::Num(sum.unsigned_abs().to_string()));
                }
                let strs: Option<Vec<&str>> = xs
                    .iter()
                    .map(|x| match x {
                        Val::Leaf(Lit::Str(s)) => Some(s.as_str()),
                        _ => None,
                    })
                    .collect();
                if let Some(strs) = strs.filter(|s| s.len() >= 2) {
                    for sep in ["", ",", " ", "-", "/", ":"] {
                        joined.insert(strs.join(sep));
                    }
                }
                stack.extend(xs.iter());
            }
        }
        (measures, joined)
    }

    /// Whether `v` is an input of this group: an argument of one of its calls, a value inside
    /// such an argument, or, for a table row, any of its values.
    pub(crate) fn has_input(&self, v: &Val) -> bool {
        let canon = v.canonical();
        if self.row {
            return match v {
                Val::Leaf(l) => self.leaves.contains(l),
                _ => self.composites.iter().any(|c| c.canonical() == canon),
            };
        }
        self.calls.iter().any(|(_, args)| {
            args.iter().flatten().any(|a| {
                a.canonical() == canon || matches!(v, Val::Leaf(l) if a.leaf_set().contains(l))
            })
        })
    }

    /// The string leaves long enough to be an input rather than a word.
    pub(crate) fn long_strings(&self) -> impl Iterator<Item = &str> {
        self.leaves.iter().filter_map(|l| match l {
            Lit::Str(s) if s.chars().count() >= 6 => Some(s.as_str()),
            _ => None,
        })
    }
}

/// Statement kinds whose innermost instance around a literal is one test call.
fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "assert_statement"
            | "return_statement"
            | "assignment"
            | "augmented_assignment"
            | "let_declaration"
            | "short_var_declaration"
            | "var_declaration"
            | "lexical_declaration"
            | "variable_declaration"
            | "assignment_statement"
            | "if_statement"
            | "decorator"
    )
}

/// Whether a collection is a table: at least two elements, each a composite.
fn is_table(n: Node) -> bool {
    let elems: Vec<Node> = named_children(n)
        .into_iter()
        .filter(|c| c.kind() != "comment")
        .map(unwrap_element)
        .collect();
    elems.len() >= 2 && elems.iter().all(|e| is_collection(e.kind()))
}

/// The groups of the test code of `ast` inside `ranges` (all of it when `None`).
pub(crate) fn groups(
    ast: &Ast,
    path: &str,
    ranges: Option<&[(usize, usize)]>,
    out: &mut Vec<Group>,
) {
    let inside = |n: Node| {
        ranges.is_none_or(|r| {
            r.iter()
                .any(|&(s, e)| n.start_byte() >= s && n.start_byte() < e)
        })
    };
    // The group node of every node: the innermost row or statement around it.
    let mut by_node: std::collections::BTreeMap<usize, Group> = std::collections::BTreeMap::new();
    let all = ast.all(ast.root());
    let ix = loki_syntax::ast::Index::new(ast.root());
    for n in &all {
        let n = *n;
        if !inside(n) {
            continue;
        }
        let is_leaf =
            literal(ast, n).is_some() && ix.parent(n).is_none_or(|p| literal(ast, p).is_none());
        let is_call = matches!(n.kind(), "call" | "call_expression" | "new_expression");
        let is_composite = is_collection(n.kind());
        if !(is_leaf || is_call || is_composite) {
            continue;
        }
        let Some(root) = group_root(&ix, n) else {
            continue;
        };
        let g = by_node.entry(root.id()).or_insert_with(|| Group {
            path: path.to_owned(),
            line: line(root),
            quote: loki_syntax::ast::quote(ast.text_of(root).lines().next().unwrap_or_default()),
            ..Group::default()
        });
        if let Some(Val::Leaf(l)) = is_leaf.then(|| value(ast, n)).flatten() {
            g.leaves.insert(l);
        }
        if is_composite
            && let Some(v) = value(ast, n)
            && v.size() >= 2
        {
            g.composites.push(v);
        }
        if is_call && let Some(args) = call_args(ast, n) {
            g.composites.push(args);
        }
        if is_call && let Some(c) = call_by_position(ast, n) {
            g.calls.push(c);
        }
    }
    // Rust macros hold their arguments as token trees: `assert_eq!(f(19, 50), 7)`.
    if ast.grammar == Grammar::Rust {
        for n in all
            .iter()
            .filter(|n| n.kind() == "token_tree" && inside(**n))
        {
            let Some(root) = group_root(&ix, *n) else {
                continue;
            };
            if let Some(g) = by_node.get_mut(&root.id())
                && let Some(v) = token_seq(ast, *n)
                && v.size() >= 2
            {
                g.composites.push(v);
            }
        }
    }
    out.extend(by_node.into_values().filter(|g| !g.leaves.is_empty()));
    if ast.grammar == Grammar::Python {
        doctests(ast, path, out);
    }
}

/// The innermost table row or statement around `n`.
fn group_root<'t>(ix: &loki_syntax::ast::Index<'t>, n: Node<'t>) -> Option<Node<'t>> {
    let mut prev = n;
    for a in std::iter::once(n).chain(ix.ancestors(n)) {
        if a != n && is_collection(a.kind()) && is_table(a) && a != prev {
            return Some(prev);
        }
        if is_statement(a.kind()) {
            return Some(a);
        }
        prev = a;
    }
    None
}

/// A call's literal arguments as one sequence, when there are at least two and all are values
/// (keyword arguments by their value).
fn call_args(ast: &Ast, call: Node) -> Option<Val> {
    let args = call.child_by_field_name("arguments")?;
    let vals: Vec<Val> = named_children(args)
        .into_iter()
        .filter(|a| a.kind() != "comment")
        .map(|a| {
            if a.kind() == "keyword_argument" {
                a.child_by_field_name("value").and_then(|v| value(ast, v))
            } else {
                value(ast, a)
            }
        })
        .collect::<Option<Vec<_>>>()?;
    (vals.len() >= 2).then_some(Val::Seq(vals))
}

/// A call's callee (its last name) and its positional arguments' values.
fn call_by_position(ast: &Ast, call: Node) -> Option<(String, Vec<Option<Val>>)> {
    // `new Date('2023-11-23')` is a call of its constructor.
    let f = ast.text_of(
        call.child_by_field_name("function")
            .or_else(|| call.child_by_field_name("constructor"))?,
    );
    let name = f.rsplit(['.', ':']).next().unwrap_or(f).trim().to_owned();
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let vals: Vec<Option<Val>> = named_children(args)
        .into_iter()
        .filter(|a| a.kind() != "comment" && a.kind() != "keyword_argument")
        .map(|a| value(ast, a))
        .collect();
    vals.iter().any(Option::is_some).then_some((name, vals))
}

/// Python doctests: each `>>> expr` with the output line after it is one group.
fn doctests(ast: &Ast, path: &str, out: &mut Vec<Group>) {
    let lines: Vec<&str> = ast.text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        let Some(expr) = l.trim_start().strip_prefix(">>> ") else {
            continue;
        };
        let answer = lines
            .get(i + 1)
            .map(|a| a.trim())
            .filter(|a| !a.starts_with(">>>") && !a.is_empty())
            .unwrap_or("");
        let text = format!("{expr}\n{answer}\n");
        let Some(snippet) = loki_syntax::ast::parse("doctest.py", &text) else {
            continue;
        };
        let mut g = Group {
            path: path.to_owned(),
            line: u32::try_from(i + 1).unwrap_or(u32::MAX),
            quote: loki_syntax::ast::quote(&format!("{} → {answer}", expr.trim())),
            ..Group::default()
        };
        for n in snippet.all(snippet.root()) {
            if let Some(l) = literal(&snippet, n) {
                g.leaves.insert(l);
            }
            if matches!(n.kind(), "call")
                && let Some(a) = call_args(&snippet, n)
            {
                g.composites.push(a);
            }
            if is_collection(n.kind())
                && let Some(v) = value(&snippet, n)
            {
                g.composites.push(v);
            }
        }
        if !g.leaves.is_empty() {
            out.push(g);
        }
    }
}

/// Groups of test data in JSON (`[{"in": [1, 2], "want": 3}, …]`): each element of an array of
/// composites, at any depth, is a row.
pub(crate) fn json_groups(path: &str, bytes: &[u8], out: &mut Vec<Group>) {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return;
    };
    let mut stack = vec![&v];
    let mut budget = MAX_JSON_NODES;
    while let Some(v) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match v {
            serde_json::Value::Array(items) => {
                for it in items {
                    if it.is_array() || it.is_object() {
                        let val = from_json(it);
                        out.push(Group {
                            path: path.to_owned(),
                            line: 1,
                            quote: loki_syntax::ast::quote(&it.to_string()),
                            leaves: val.leaf_set(),
                            composites: vec![val],
                            calls: Vec::new(),
                            row: true,
                        });
                    }
                    stack.push(it);
                }
            }
            serde_json::Value::Object(m) => stack.extend(m.values()),
            _ => {}
        }
    }
}

/// JSON nodes read per file.
const MAX_JSON_NODES: usize = 20_000;

pub(crate) fn from_json(v: &serde_json::Value) -> Val {
    use serde_json::Value as J;
    match v {
        J::Null => Val::Word("null".into()),
        J::Bool(b) => Val::Word(b.to_string()),
        J::Number(n) => loki_syntax::literals::canonical_number(&n.to_string())
            .map_or_else(|| Val::Word(n.to_string()), |c| Val::Leaf(Lit::Num(c))),
        J::String(s) => Val::Leaf(Lit::Str(s.clone())),
        J::Array(a) => Val::Seq(a.iter().map(from_json).collect()),
        J::Object(m) => Val::Map(
            m.iter()
                .map(|(k, x)| (Val::Leaf(Lit::Str(k.clone())), from_json(x)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests;
