//! Line numbers for YAML paths. `serde_yaml_ng` gives values without positions, so findings find
//! their line by walking the text's block structure: every line's indentation, `- ` item markers
//! and `key:` keys (plain or quoted), with block scalars (`run: |`) skipped as content. A path such
//! as `jobs.test.steps[2].run` resolves to the line of the deepest part found, so a finding points
//! at the nearest line that exists even in flow style (`{ run: x }`) or through anchors.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One part of a path into a YAML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seg {
    Key(String),
    Index(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Mark {
    Item,
    Key(String),
}

#[derive(Debug, Clone)]
struct Line {
    /// 1-based line number.
    no: u32,
    marks: Vec<(usize, Mark)>,
}

/// A mark as (line, mark index), or the root (`None`).
type Node = Option<(usize, usize)>;
/// The children of a node, shared by every lookup.
type Kids = Rc<Vec<(usize, usize)>>;

/// The block structure of a YAML text.
#[derive(Debug, Clone)]
pub struct YamlPos {
    lines: Vec<Line>,
    raw: Vec<String>,
    /// Children by node, computed once: a file with many steps looks each up many times.
    kids: RefCell<BTreeMap<Node, Kids>>,
}

fn key_of(rest: &str) -> Option<(String, &str)> {
    let (key, after) = if let Some(q) = rest.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_owned(), &q[end + 1..])
    } else if let Some(q) = rest.strip_prefix('\'') {
        let end = q.find('\'')?;
        (q[..end].to_owned(), &q[end + 1..])
    } else {
        // A plain key ends at the first `: ` (or a `:` at the end of the line).
        let mut end = None;
        for (i, c) in rest.char_indices() {
            if c == ':' {
                let next = rest[i + 1..].chars().next();
                if next.is_none_or(|n| n == ' ' || n == '\t') {
                    end = Some(i);
                    break;
                }
            }
            if c == '#' && i > 0 && rest[..i].ends_with(' ') {
                return None;
            }
            if matches!(c, '{' | '[' | '"' | '\'') && i == 0 {
                return None;
            }
        }
        let end = end?;
        (rest[..end].trim_end().to_owned(), &rest[end..])
    };
    let after = after.trim_start().strip_prefix(':')?;
    (!key.is_empty()).then_some((key, after))
}

fn is_block_scalar(value: &str) -> bool {
    let v = value.trim();
    let v = v.split(" #").next().unwrap_or(v).trim();
    v.starts_with('|') || v.starts_with('>')
}

impl YamlPos {
    pub fn new(text: &str) -> YamlPos {
        let raw: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut lines = Vec::new();
        // Lines more indented than this column belong to a block scalar.
        let mut block: Option<usize> = None;
        for (i, l) in raw.iter().enumerate() {
            let t = l.trim_start();
            let col = l.len() - t.len();
            if t.is_empty() {
                continue;
            }
            if let Some(b) = block {
                if col > b {
                    continue;
                }
                block = None;
            }
            if t.starts_with('#') || t.starts_with("---") || t.starts_with("...") {
                continue;
            }
            let mut marks = Vec::new();
            let mut c = col;
            let mut rest = t;
            loop {
                if rest == "-" || rest.starts_with("- ") {
                    marks.push((c, Mark::Item));
                    let after = rest[1..].trim_start();
                    c += rest.len() - after.len();
                    rest = after;
                    if rest.is_empty() {
                        break;
                    }
                    if is_block_scalar(rest) {
                        block = Some(marks.last().map_or(col, |m| m.0));
                        break;
                    }
                    continue;
                }
                if let Some((k, value)) = key_of(rest) {
                    marks.push((c, Mark::Key(k)));
                    if is_block_scalar(value) {
                        block = Some(c);
                    }
                }
                break;
            }
            if !marks.is_empty() {
                lines.push(Line {
                    no: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    marks,
                });
            }
        }
        YamlPos {
            lines,
            raw,
            kids: RefCell::default(),
        }
    }

    fn children(&self, node: Option<(usize, usize)>) -> Rc<Vec<(usize, usize)>> {
        if let Some(k) = self.kids.borrow().get(&node) {
            return Rc::clone(k);
        }
        let k = Rc::new(self.compute_children(node));
        self.kids.borrow_mut().insert(node, Rc::clone(&k));
        k
    }

    /// The children of the mark at `(line, mark)`, or of the root for `None`.
    fn compute_children(&self, node: Option<(usize, usize)>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let (start, col, is_item) = match node {
            None => (0, None, false),
            Some((li, mi)) => {
                let (c, m) = &self.lines[li].marks[mi];
                if mi + 1 < self.lines[li].marks.len() {
                    out.push((li, mi + 1));
                }
                (li + 1, Some(*c), *m == Mark::Item)
            }
        };
        let mut child_col = out.first().map(|&(l, m)| self.lines[l].marks[m].0);
        for (lj, line) in self.lines.iter().enumerate().skip(start) {
            let (first, m) = &line.marks[0];
            if let Some(c) = col {
                // A key's block ends at a sibling key; an item's at anything not deeper.
                let sibling = *first < c || (*first == c && (is_item || *m != Mark::Item));
                if sibling {
                    break;
                }
            }
            match child_col {
                None => {
                    child_col = Some(*first);
                    out.push((lj, 0));
                }
                Some(cc) if *first == cc => out.push((lj, 0)),
                Some(cc) if *first < cc => break,
                _ => {}
            }
        }
        out
    }

    fn find(&self, node: Option<(usize, usize)>, seg: &Seg) -> Option<(usize, usize)> {
        let kids = self.children(node);
        match seg {
            Seg::Key(k) => kids
                .iter()
                .copied()
                .find(|&(l, m)| matches!(&self.lines[l].marks[m].1, Mark::Key(x) if x == k)),
            Seg::Index(n) => kids
                .iter()
                .copied()
                .filter(|&(l, m)| self.lines[l].marks[m].1 == Mark::Item)
                .nth(*n),
        }
    }

    /// The line of the deepest part of `path` that exists.
    pub fn line(&self, path: &[Seg]) -> Option<u32> {
        let mut node = None;
        let mut best = None;
        for seg in path {
            let Some(n) = self.find(node, seg) else { break };
            // An item's value is its first key on the same line: step into it for `Key` lookups.
            best = Some(self.lines[n.0].no);
            node = Some(n);
        }
        best
    }

    /// The raw text of 1-based line `no`.
    pub fn raw(&self, no: u32) -> Option<&str> {
        self.raw
            .get(usize::try_from(no).ok()?.checked_sub(1)?)
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WF: &str = "name: ci\non:\n  push:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      # a comment: with a colon\n      - name: Tests\n        run: |\n          cargo build\n          cargo test\n        env:\n          A: 1\n  lint:\n    steps:\n    - run: cargo clippy\n    - \"name\": x\n      run: echo\n";

    #[test]
    fn lines_of_paths() {
        let p = |parts: &[&str]| -> Vec<Seg> {
            parts
                .iter()
                .map(|x| match x.parse::<usize>() {
                    Ok(i) => Seg::Index(i),
                    Err(_) => Seg::Key((*x).to_owned()),
                })
                .collect()
        };
        let y = YamlPos::new(WF);
        assert_eq!(y.line(&p(&["on", "push"])), Some(3));
        assert_eq!(y.line(&p(&["jobs", "test"])), Some(6));
        assert_eq!(y.line(&p(&["jobs", "test", "steps", "1"])), Some(11));
        assert_eq!(y.line(&p(&["jobs", "test", "steps", "1", "run"])), Some(12));
        assert_eq!(
            y.line(&p(&["jobs", "test", "steps", "1", "env", "A"])),
            Some(16)
        );
        assert_eq!(y.raw(14).map(str::trim), Some("cargo test"));
        // Indentless sequences and quoted keys.
        assert_eq!(y.line(&p(&["jobs", "lint", "steps", "1", "run"])), Some(21));
        // A missing part: the deepest found.
        assert_eq!(y.line(&p(&["jobs", "test", "strategy"])), Some(6));
        assert_eq!(y.line(&p(&["nope"])), None);
        // Block scalar content never looks like keys.
        let y = YamlPos::new("a:\n  run: |\n    b: 1\n  c: 2\n");
        assert_eq!(y.line(&p(&["a", "b"])), Some(1));
        assert_eq!(y.line(&p(&["a", "c"])), Some(4));
    }
}
