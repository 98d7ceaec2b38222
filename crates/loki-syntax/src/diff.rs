//! What is new in a change: the lines the head adds, and the occurrences a rule finds at head that
//! the base does not have.
//!
//! Rules report only what the change introduced. Each rule extracts [`Hit`]s from both sides; a hit
//! carries a `key` that names the evidence independently of where it sits (the enclosing function
//! and the squashed code), so moving or re-indenting existing code adds nothing. A key found `n`
//! times at base and `m > n` times at head yields `m - n` head hits, preferring those on added
//! lines.

use std::collections::{BTreeMap, BTreeSet};

/// One occurrence of what a rule looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line at its side.
    pub line: u32,
    /// Identity across the two sides.
    pub key: String,
    /// The finding's text.
    pub detail: String,
}

impl Hit {
    pub fn new(line: u32, key: impl Into<String>, detail: impl Into<String>) -> Hit {
        Hit {
            line,
            key: key.into(),
            detail: detail.into(),
        }
    }
}

/// 1-based numbers of the head lines that the base does not have (compared as trimmed text, as a
/// multiset: a line that moved is not added, a second copy of an existing line is).
pub fn added_lines(base: Option<&str>, head: &str) -> BTreeSet<u32> {
    let mut pool: BTreeMap<&str, usize> = BTreeMap::new();
    for l in base.unwrap_or("").lines() {
        *pool.entry(l.trim()).or_default() += 1;
    }
    let mut out = BTreeSet::new();
    for (i, l) in head.lines().enumerate() {
        let t = l.trim();
        match pool.get_mut(t) {
            Some(n) if *n > 0 => *n -= 1,
            _ => {
                out.insert(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
    }
    out
}

/// The head hits whose key occurs more often than at base (see the module doc).
pub fn new_hits(base: &[Hit], head: Vec<Hit>, added: &BTreeSet<u32>) -> Vec<Hit> {
    let mut before: BTreeMap<&str, usize> = BTreeMap::new();
    for h in base {
        *before.entry(h.key.as_str()).or_default() += 1;
    }
    let mut by_key: BTreeMap<String, Vec<Hit>> = BTreeMap::new();
    for h in head {
        by_key.entry(h.key.clone()).or_default().push(h);
    }
    let mut out = Vec::new();
    for (key, mut hits) in by_key {
        let old = before.get(key.as_str()).copied().unwrap_or(0);
        if hits.len() <= old {
            continue;
        }
        let extra = hits.len() - old;
        // Hits on added lines first, then the latest ones.
        hits.sort_by_key(|h| (!added.contains(&h.line), std::cmp::Reverse(h.line)));
        out.extend(hits.into_iter().take(extra));
    }
    out.sort_by_key(|h| h.line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_are_a_multiset_difference() {
        let a = added_lines(Some("a\n  b\nc\n"), "b\na\nx\na\n");
        assert_eq!(a.into_iter().collect::<Vec<_>>(), [3, 4]);
        assert_eq!(added_lines(None, "a\nb").len(), 2);
    }

    #[test]
    fn only_extra_occurrences_are_new() {
        let base = [Hit::new(1, "k", "d")];
        let head = vec![
            Hit::new(5, "k", "d"),
            Hit::new(9, "k", "d"),
            Hit::new(2, "j", "e"),
        ];
        let added: BTreeSet<u32> = [5].into();
        let got = new_hits(&base, head, &added);
        assert_eq!(
            got.iter().map(|h| h.line).collect::<Vec<_>>(),
            [2, 5],
            "{got:?}"
        );
        assert!(new_hits(&base, vec![Hit::new(3, "k", "d")], &added).is_empty());
    }
}
