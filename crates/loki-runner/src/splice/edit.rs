//! The edits of a splice: planned from both analyses, applied to `code_from`, and the result
//! re-parsed and checked (the module's invariants).

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use loki_repomap::grammar::Grammar;

use super::lines::Eol;
use super::{After, Analysis, Place, Slot, analyze};

#[derive(Debug)]
enum Part {
    Glue(Vec<u8>),
    Item { key: String, bytes: Vec<u8> },
}

#[derive(Debug)]
pub(super) struct Edit {
    range: Range<usize>,
    parts: Vec<Part>,
    order: usize,
}

pub(super) fn plan(
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
pub(super) fn apply(src: &[u8], edits: Vec<Edit>) -> (Vec<u8>, Vec<(String, Range<usize>)>) {
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
pub(super) fn verify(
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
