//! Rust: test modules, test functions, test-only items, macro calls holding tests and doctests.

use tree_sitter::Node;

use super::lines::{BOM, line_extend};
use super::walk::{DocSide, Walk, doc_marker, markdown_has_code, qualified};
use super::{After, Insert, ItemKind, MAX_DEPTH, Place, Slot, cfg, children, named_children};

impl<'s> Walk<'s> {
    pub(super) fn rust_file(&mut self, root: Node) -> Option<()> {
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
                self.container(&owner, body);
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

    /// Where items go in the container `owner` (a module, impl or trait `body`): before its
    /// closing brace, and first inside it, after the line of its opening brace.
    fn container(&mut self, owner: &str, body: Node) {
        self.out
            .containers
            .insert(owner.to_string(), self.before_close(body));
        if let Some(open) = children(body).first().filter(|n| n.kind() == "{") {
            let after = line_extend(self.src, open.start_byte(), open.end_byte());
            if after.end > open.end_byte() {
                self.out.inner.insert(
                    owner.to_string(),
                    Insert {
                        at: after.end,
                        eol_before: false,
                        after: After::EolIfMissing,
                    },
                );
            }
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
}
