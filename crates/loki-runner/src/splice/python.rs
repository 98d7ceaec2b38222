//! Python: docstrings holding `>>>` of the module, of classes and of functions.

use tree_sitter::Node;

use super::lines::line_start;
use super::walk::{Walk, first_statement, qualified};
use super::{After, Insert, ItemKind, MAX_DEPTH, Place, Slot, named_children};

impl<'s> Walk<'s> {
    pub(super) fn py_module(&mut self, root: Node) -> Option<()> {
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
}
