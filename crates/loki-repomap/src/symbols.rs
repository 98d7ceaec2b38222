//! Top-level symbols through tree-sitter: one [`Scanner`] owns one parser per grammar and walks
//! only the top of each tree (and the direct members of types). What is listed per language, and
//! why, is specified in the parent module's doc.

use std::time::Duration;

use tree_sitter::{Node, Parser, Tree};

pub(crate) use crate::grammar::Grammar;

use super::{MAX_SCAN_BYTES, MAX_SYMBOLS};

/// A parse still running after this long is abandoned and the file yields no symbols. A normal
/// 256 KiB file parses in well under 50 ms; the margin covers a loaded two-core machine, and the
/// limit keeps one pathological file from stalling intake.
const PARSE_TIMEOUT: Duration = Duration::from_millis(500);
/// Longer "names" are error-recovery debris, not identifiers anyone wrote.
const MAX_NAME_BYTES: usize = 128;
/// How deep the walk follows ERROR nodes that wrap top-level items of a broken file. Bounded so a
/// tree of nested ERROR nodes cannot recurse without limit.
const MAX_ERROR_DEPTH: usize = 4;

/// The grammar for a language name of [`super::lang_of`], plus `"tsx"`.
pub(crate) fn of_lang(lang: &str) -> Option<Grammar> {
    Some(match lang {
        "rust" => Grammar::Rust,
        "python" => Grammar::Python,
        "javascript" => Grammar::JavaScript,
        "typescript" => Grammar::TypeScript,
        "tsx" => Grammar::Tsx,
        "go" => Grammar::Go,
        "java" => Grammar::Java,
        _ => return None,
    })
}

/// The grammar for a file of language `lang`: its language's, except that `.tsx` files parse as
/// TSX.
pub(crate) fn of_file(path: &str, lang: &str) -> Option<Grammar> {
    if lang == "typescript" && path.ends_with(".tsx") {
        return Some(Grammar::Tsx);
    }
    of_lang(lang)
}

/// A parser slot: created on first use, so a map of a Go-only repository never builds the others.
#[derive(Default)]
enum Slot {
    #[default]
    Untried,
    Ready(Parser),
    /// The grammar's ABI is not one this tree-sitter accepts (a build problem, not a file
    /// problem): its files yield no symbols rather than failing the map.
    Unavailable,
}

/// Extracts top-level symbols, reusing one parser per grammar across files.
pub(crate) struct Scanner {
    slots: [Slot; Grammar::ALL.len()],
    timeout: Duration,
}

impl Scanner {
    pub(crate) fn new() -> Scanner {
        Scanner::with_timeout(PARSE_TIMEOUT)
    }

    pub(crate) fn with_timeout(timeout: Duration) -> Scanner {
        Scanner {
            slots: Default::default(),
            timeout,
        }
    }

    /// The symbols of `text` (see the module doc of `repomap`); empty when the text is over
    /// [`MAX_SCAN_BYTES`], the grammar is unavailable or the parse ran out of time.
    pub(crate) fn symbols(&mut self, grammar: Grammar, text: &str) -> Vec<String> {
        if text.len() as u64 > MAX_SCAN_BYTES {
            return Vec::new();
        }
        let Some(tree) = self.parse(grammar, text) else {
            return Vec::new();
        };
        let mut names = Names::new(text);
        let root = tree.root_node();
        match grammar {
            Grammar::Rust => rust_items(root, &mut names, 0),
            Grammar::Python => python_items(root, &mut names, 0),
            Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx => {
                es_items(root, &mut names, 0);
            }
            Grammar::Go => go_items(root, &mut names, 0),
            Grammar::Java => java_items(root, &mut names, None, 0),
        }
        names.out
    }

    /// The 1-based line of the first syntax error in `text` (an `ERROR` or a `MISSING` node),
    /// or `None` when it parses cleanly or cannot be parsed at all (no grammar, out of time).
    pub(crate) fn first_error_line(&mut self, grammar: Grammar, text: &str) -> Option<usize> {
        let tree = self.parse(grammar, text)?;
        let mut node = tree.root_node();
        if !node.has_error() {
            return None;
        }
        // Descend along the first erroneous child: iterative, so nesting depth cannot overflow.
        loop {
            if node.is_error() || node.is_missing() {
                return Some(node.start_position().row + 1);
            }
            let mut cursor = node.walk();
            let next = node
                .children(&mut cursor)
                .find(|c| c.has_error() || c.is_missing());
            match next {
                Some(child) => node = child,
                None => return Some(node.start_position().row + 1),
            }
        }
    }

    fn parser(&mut self, grammar: Grammar) -> Option<&mut Parser> {
        let slot = &mut self.slots[grammar.index()];
        if matches!(slot, Slot::Untried) {
            *slot = crate::grammar::parser(grammar).map_or(Slot::Unavailable, Slot::Ready);
        }
        match slot {
            Slot::Ready(parser) => Some(parser),
            Slot::Untried | Slot::Unavailable => None,
        }
    }

    fn parse(&mut self, grammar: Grammar, text: &str) -> Option<Tree> {
        let timeout = self.timeout;
        crate::grammar::parse_within(self.parser(grammar)?, text, timeout)
    }
}

/// The names found so far: de-duplicated, in source order, at most [`MAX_SYMBOLS`].
struct Names<'s> {
    text: &'s str,
    out: Vec<String>,
}

impl<'s> Names<'s> {
    fn new(text: &'s str) -> Names<'s> {
        Names {
            text,
            out: Vec::new(),
        }
    }

    fn full(&self) -> bool {
        self.out.len() >= MAX_SYMBOLS
    }

    /// The source text of `node` if it reads as a name (error recovery can hand us anything).
    fn text_of(&self, node: Node) -> Option<&'s str> {
        if node.is_missing() {
            return None;
        }
        let s = self.text.get(node.byte_range())?;
        let plausible = !s.is_empty()
            && s.len() <= MAX_NAME_BYTES
            && !s.contains(|c: char| c.is_whitespace() || c.is_control());
        plausible.then_some(s)
    }

    /// The text of `node`'s `field` child, if it is a name.
    fn field(&self, node: Node, field: &str) -> Option<&'s str> {
        self.text_of(node.child_by_field_name(field)?)
    }

    fn push(&mut self, name: &str) {
        if !self.full() && !self.out.iter().any(|n| n == name) {
            self.out.push(name.to_string());
        }
    }

    fn push_member(&mut self, owner: &str, sep: &str, member: &str) {
        self.push(&format!("{owner}{sep}{member}"));
    }
}

fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// Rust: items of a source file (or of an ERROR node that wraps some of them).
fn rust_items(list: Node, names: &mut Names, depth: usize) {
    for item in named_children(list) {
        if names.full() {
            return;
        }
        match item.kind() {
            "function_item"
            | "function_signature_item"
            | "struct_item"
            | "enum_item"
            | "union_item"
            | "type_item"
            | "mod_item"
            | "const_item"
            | "static_item"
            | "macro_definition" => {
                if let Some(name) = names.field(item, "name") {
                    names.push(name);
                }
            }
            "trait_item" => {
                if let Some(name) = names.field(item, "name") {
                    names.push(name);
                    rust_members(item, name, names);
                }
            }
            "impl_item" => {
                if let Some(name) = item
                    .child_by_field_name("type")
                    .and_then(|t| rust_type(t, names))
                    && !rust_is_type_parameter(item, name, names)
                {
                    names.push(name);
                    rust_members(item, name, names);
                }
            }
            "foreign_mod_item" => {
                if let Some(body) = item.child_by_field_name("body") {
                    rust_items(body, names, MAX_ERROR_DEPTH);
                }
            }
            "ERROR" if depth < MAX_ERROR_DEPTH => rust_items(item, names, depth + 1),
            _ => {}
        }
    }
}

/// The functions of a trait or impl body, as `Owner::name`.
fn rust_members(item: Node, owner: &str, names: &mut Names) {
    let Some(body) = item.child_by_field_name("body") else {
        return;
    };
    for member in named_children(body) {
        if matches!(member.kind(), "function_item" | "function_signature_item")
            && let Some(name) = names.field(member, "name")
        {
            names.push_member(owner, "::", name);
        }
    }
}

/// The name an impl is for: `Foo` for `Foo`, `Foo<T>`, `a::Foo`, `&'a Foo`.
fn rust_type<'s>(mut ty: Node, names: &Names<'s>) -> Option<&'s str> {
    loop {
        ty = match ty.kind() {
            "type_identifier" | "primitive_type" | "identifier" => return names.text_of(ty),
            "generic_type" | "reference_type" | "pointer_type" => ty.child_by_field_name("type")?,
            "scoped_type_identifier" | "scoped_identifier" => ty.child_by_field_name("name")?,
            _ => return None,
        };
    }
}

/// Whether `name` is one of the impl's own type parameters: a blanket impl (`impl<T> X for &T`)
/// is for no type in particular.
fn rust_is_type_parameter(item: Node, name: &str, names: &Names) -> bool {
    item.child_by_field_name("type_parameters")
        .is_some_and(|params| {
            named_children(params)
                .into_iter()
                .any(|p| p.kind() == "type_parameter" && names.field(p, "name") == Some(name))
        })
}

/// Python: definitions of a module; a class also lists its methods as `Class.method`.
fn python_items(list: Node, names: &mut Names, depth: usize) {
    for item in named_children(list) {
        if names.full() {
            return;
        }
        match python_definition(item) {
            Some(def) if def.kind() == "class_definition" => {
                if let Some(class) = names.field(def, "name") {
                    names.push(class);
                    python_methods(def, class, names);
                }
            }
            Some(def) => {
                if let Some(name) = names.field(def, "name") {
                    names.push(name);
                }
            }
            None if item.kind() == "ERROR" && depth < MAX_ERROR_DEPTH => {
                python_items(item, names, depth + 1);
            }
            None => {}
        }
    }
}

/// The function or class `node` defines, looking through decorators.
fn python_definition(node: Node) -> Option<Node> {
    match node.kind() {
        "function_definition" | "class_definition" => Some(node),
        "decorated_definition" => node.child_by_field_name("definition"),
        _ => None,
    }
}

fn python_methods(class: Node, owner: &str, names: &mut Names) {
    let Some(body) = class.child_by_field_name("body") else {
        return;
    };
    for member in named_children(body) {
        if let Some(def) = python_definition(member)
            && def.kind() == "function_definition"
            && let Some(name) = names.field(def, "name")
            && !(name.starts_with("__") && name.ends_with("__"))
        {
            names.push_member(owner, ".", name);
        }
    }
}

/// JavaScript, TypeScript and TSX: the statements of a program.
fn es_items(list: Node, names: &mut Names, depth: usize) {
    for item in named_children(list) {
        if names.full() {
            return;
        }
        if item.kind() == "ERROR" {
            if depth < MAX_ERROR_DEPTH {
                es_items(item, names, depth + 1);
            }
        } else {
            es_declaration(item, names, false);
        }
    }
}

fn es_declaration(node: Node, names: &mut Names, exported: bool) {
    match node.kind() {
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration"
        | "internal_module"
        | "module" => {
            // `declare module "pkg"` names a string, not a symbol: `text_of` keeps the quotes,
            // so it is skipped by the identifier check below.
            if let Some(name) = names.field(node, "name")
                && !name.starts_with(['"', '\''])
            {
                names.push(name);
            }
        }
        "class_declaration" | "abstract_class_declaration" | "class" => {
            if let Some(class) = names.field(node, "name") {
                names.push(class);
                es_methods(node, class, names);
            }
        }
        "lexical_declaration" | "variable_declaration" => {
            for declarator in named_children(node) {
                let Some(name) = declarator
                    .child_by_field_name("name")
                    .filter(|n| n.kind() == "identifier")
                    .and_then(|n| names.text_of(n))
                else {
                    continue;
                };
                let function_like = declarator.child_by_field_name("value").is_some_and(|v| {
                    matches!(
                        v.kind(),
                        "arrow_function" | "function_expression" | "generator_function" | "class"
                    )
                });
                if exported || function_like {
                    names.push(name);
                }
            }
        }
        "export_statement" => {
            if let Some(declaration) = node.child_by_field_name("declaration") {
                es_declaration(declaration, names, true);
            } else if let Some(value) = node.child_by_field_name("value") {
                // `export default Name;`, or a named function or class expression.
                match value.kind() {
                    "identifier" => {
                        if let Some(name) = names.text_of(value) {
                            names.push(name);
                        }
                    }
                    "function_expression" | "generator_function" => {
                        if let Some(name) = names.field(value, "name") {
                            names.push(name);
                        }
                    }
                    "class" => es_declaration(value, names, true),
                    _ => {}
                }
            }
        }
        "ambient_declaration" => {
            for inner in named_children(node) {
                es_declaration(inner, names, true);
            }
        }
        "expression_statement" => {
            // `namespace Foo {}` at statement level is an expression in the TypeScript grammar.
            if let Some(inner) = node.named_child(0)
                && inner.kind() == "internal_module"
            {
                es_declaration(inner, names, exported);
            }
        }
        _ => {}
    }
}

/// The methods of a class body as `Class.method` (constructors say nothing about relevance).
fn es_methods(class: Node, owner: &str, names: &mut Names) {
    let Some(body) = class.child_by_field_name("body") else {
        return;
    };
    for member in named_children(body) {
        if matches!(
            member.kind(),
            "method_definition" | "method_signature" | "abstract_method_signature"
        ) && let Some(key) = member.child_by_field_name("name")
            && matches!(
                key.kind(),
                "property_identifier" | "private_property_identifier"
            )
            && let Some(name) = names.text_of(key)
            && name != "constructor"
        {
            names.push_member(owner, ".", name);
        }
    }
}

/// Go: functions, methods as `Recv.Method`, each type of a `type (...)` group, and const and var
/// names (except `_`).
fn go_items(list: Node, names: &mut Names, depth: usize) {
    for item in named_children(list) {
        if names.full() {
            return;
        }
        match item.kind() {
            "function_declaration" => {
                if let Some(name) = names.field(item, "name") {
                    names.push(name);
                }
            }
            "method_declaration" => {
                let Some(name) = names.field(item, "name") else {
                    continue;
                };
                match item
                    .child_by_field_name("receiver")
                    .and_then(|r| go_receiver(r, names))
                {
                    Some(recv) => names.push_member(recv, ".", name),
                    None => names.push(name),
                }
            }
            "type_declaration" => {
                for spec in named_children(item) {
                    if matches!(spec.kind(), "type_spec" | "type_alias")
                        && let Some(name) = names.field(spec, "name")
                    {
                        names.push(name);
                    }
                }
            }
            "const_declaration" | "var_declaration" => go_specs(item, names),
            "ERROR" if depth < MAX_ERROR_DEPTH => go_items(item, names, depth + 1),
            _ => {}
        }
    }
}

/// Java's types (classes, interfaces, enums, records) and their methods as `Type.method`, nested
/// types as `Outer.Inner`.
fn java_items(list: Node, names: &mut Names, owner: Option<&str>, depth: usize) {
    for item in named_children(list) {
        if names.full() {
            return;
        }
        match item.kind() {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => {
                let Some(name) = names.field(item, "name") else {
                    continue;
                };
                let full = owner.map_or_else(|| name.to_owned(), |o| format!("{o}.{name}"));
                names.push(&full);
                if let Some(body) = item.child_by_field_name("body")
                    && depth < MAX_ERROR_DEPTH
                {
                    java_items(body, names, Some(&full), depth + 1);
                }
            }
            "method_declaration" | "constructor_declaration" => {
                if let (Some(name), Some(o)) = (names.field(item, "name"), owner) {
                    names.push_member(o, ".", name);
                }
            }
            "ERROR" | "enum_body_declarations" if depth < MAX_ERROR_DEPTH => {
                java_items(item, names, owner, depth + 1);
            }
            _ => {}
        }
    }
}

fn go_specs(declaration: Node, names: &mut Names) {
    for spec in named_children(declaration) {
        match spec.kind() {
            "const_spec" | "var_spec" => {
                let mut cursor = spec.walk();
                for name in spec.children_by_field_name("name", &mut cursor) {
                    if name.kind() == "identifier"
                        && let Some(name) = names.text_of(name)
                        && name != "_"
                    {
                        names.push(name);
                    }
                }
            }
            "var_spec_list" => go_specs(spec, names),
            _ => {}
        }
    }
}

/// The receiver's type name: `T` for `(t T)`, `(t *T)`, `(t *T[K])`.
fn go_receiver<'s>(receiver: Node, names: &Names<'s>) -> Option<&'s str> {
    let parameter = named_children(receiver)
        .into_iter()
        .find(|p| p.kind() == "parameter_declaration")?;
    let mut ty = parameter.child_by_field_name("type")?;
    loop {
        ty = match ty.kind() {
            "type_identifier" => return names.text_of(ty),
            "pointer_type" | "parenthesized_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

#[cfg(test)]
mod tests;
