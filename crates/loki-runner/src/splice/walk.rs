//! The walk over a parsed file: the state the language walkers (`rust`, `python`, `js`) share,
//! where items go, and the helpers for keys and docs.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::lines::{line_extend, line_start};
use super::{After, Analysis, Insert, Slot, named_children};

pub(super) struct Walk<'s> {
    pub(super) text: &'s str,
    pub(super) src: &'s [u8],
    pub(super) out: Analysis,
    pub(super) seen_items: HashMap<String, usize>,
    pub(super) seen_owners: HashMap<String, usize>,
}

impl<'s> Walk<'s> {
    pub(super) fn new(text: &'s str) -> Walk<'s> {
        Walk {
            text,
            src: text.as_bytes(),
            out: Analysis::default(),
            seen_items: HashMap::new(),
            seen_owners: HashMap::new(),
        }
    }

    pub(super) fn text_of(&self, node: Node) -> &'s str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    /// The node's text without whitespace (types and paths in keys).
    pub(super) fn compact(&self, node: Node) -> String {
        self.text_of(node)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    }

    pub(super) fn item_key(&mut self, key: String) -> String {
        dedupe(&mut self.seen_items, key)
    }

    pub(super) fn owner_key(&mut self, key: String) -> String {
        dedupe(&mut self.seen_owners, key)
    }

    pub(super) fn push(&mut self, slot: Slot) {
        self.out.slots.push(slot);
    }

    /// `start..end` widened to whole lines when the item has them to itself.
    pub(super) fn lines(&self, start: usize, end: usize) -> Range<usize> {
        line_extend(self.src, start, end)
    }

    /// Insertion point before `start`: its line start when only indentation precedes it.
    pub(super) fn before(&self, start: usize) -> Insert {
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
    pub(super) fn before_close(&self, body: Node) -> Insert {
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
}

fn dedupe(seen: &mut HashMap<String, usize>, key: String) -> String {
    let n = seen.entry(key.clone()).or_insert(0);
    *n += 1;
    if *n == 1 { key } else { format!("{key} #{n}") }
}

pub(super) fn qualified(path: &[String], name: &str, sep: &str) -> String {
    let mut parts: Vec<&str> = path.iter().map(String::as_str).collect();
    parts.push(name);
    parts.join(sep)
}

pub(super) fn first_statement(body: Node<'_>) -> Option<Node<'_>> {
    named_children(body)
        .into_iter()
        .find(|n| n.kind() != "comment")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DocSide {
    Outer,
    Inner,
}

/// Whether a Rust comment is a doc comment, and which side it documents.
pub(super) fn doc_marker(node: Node) -> Option<DocSide> {
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
pub(super) fn markdown_has_code(text: &str) -> bool {
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
