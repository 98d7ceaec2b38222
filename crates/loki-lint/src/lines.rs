//! Which lines a change added or modified, per file, from a zero-context patch.
//!
//! # Input
//! `git diff-tree -r -p -U0 --no-renames --no-ext-diff --no-textconv --no-color
//! --src-prefix=a/ --dst-prefix=b/ <base> <head>`: plumbing, so `diff.noprefix`,
//! `diff.mnemonicPrefix`, colour, external diff drivers and textconv filters in the user's
//! configuration cannot change what is parsed. Each file section starts with
//! `diff --git a/<p> b/<p>` (C-quoted when the path has special bytes), then extended headers,
//! then hunks `@@ -a[,b] +c[,d] @@`. With zero context every line on the `+` side of a hunk is
//! added or modified: lines `c ..= c+d-1` (a missing `d` means 1; `d = 0` is a pure deletion and
//! adds nothing).
//!
//! # Output rules
//! - A file new in the change is [`LineSet::All`]: every line of it is the change's.
//! - Deleted files, binary files (`Binary files … differ`, `GIT binary patch`), symlinks (mode
//!   120000) and submodules (mode 160000) are left out: there is nothing at head to lint as code.
//! - A file whose change only deleted lines (or only its mode) is kept with an empty set: it is
//!   still linted, and its findings are logged as pre-existing.
//! - Paths are repository-relative with `/` separators, unquoted from git's C-quoting.
//!
//! The parser is pure over bytes and never panics; content lines are never interpreted, so
//! invalid UTF-8 or CRLF content cannot confuse it.

use std::collections::BTreeMap;

use loki_git::Git;
use serde::{Deserialize, Serialize};

use loki_runner::ChecksError;

/// Git's file modes that are not regular files: symlinks and submodules (gitlinks).
const NON_FILE_MODES: &[&str] = &["120000", "160000"];

/// An inclusive range of 1-based line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

/// The lines of one file that a change added or modified at head.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineSet {
    /// The whole file (it is new in the change).
    All,
    /// Sorted, merged, non-overlapping ranges; empty when the change only removed lines.
    Ranges(Vec<LineRange>),
}

impl LineSet {
    /// The set of the given ranges, sorted and merged (adjacent ranges join).
    #[must_use]
    pub fn from_ranges(ranges: impl IntoIterator<Item = LineRange>) -> LineSet {
        let mut v: Vec<LineRange> = ranges.into_iter().filter(|r| r.start <= r.end).collect();
        v.sort();
        let mut merged: Vec<LineRange> = Vec::with_capacity(v.len());
        for r in v {
            match merged.last_mut() {
                Some(last) if r.start <= last.end.saturating_add(1) => {
                    last.end = last.end.max(r.end);
                }
                _ => merged.push(r),
            }
        }
        LineSet::Ranges(merged)
    }

    /// Whether `line` was added or modified.
    #[must_use]
    pub fn contains(&self, line: u32) -> bool {
        self.intersects(line, line)
    }

    /// Whether any line of `start ..= end` was added or modified.
    #[must_use]
    pub fn intersects(&self, start: u32, end: u32) -> bool {
        match self {
            LineSet::All => true,
            LineSet::Ranges(rs) => rs.iter().any(|r| r.start <= end && start <= r.end),
        }
    }

    /// No line was added or modified (a pure deletion or a mode change).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        matches!(self, LineSet::Ranges(rs) if rs.is_empty())
    }
}

/// One file the change touched that exists at head, and the lines it added or modified there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    /// Repository-relative, `/` separators.
    pub path: String,
    pub lines: LineSet,
}

impl ChangedFile {
    /// A file new in the change: all of its lines count.
    #[must_use]
    pub fn new_file(path: impl Into<String>) -> ChangedFile {
        ChangedFile {
            path: path.into(),
            lines: LineSet::All,
        }
    }
}

/// The changed files between `base` (a commit or tree) and `head_tree`, with the lines each added
/// or modified, from git plumbing in `git.root()` (see the module doc for what is left out).
pub fn changed_lines(
    git: &Git,
    base: &str,
    head_tree: &str,
) -> Result<Vec<ChangedFile>, ChecksError> {
    let patch = git
        .diff_patch_zero_context(base, head_tree)
        .map_err(|source| ChecksError::Git {
            action: "read the changed lines for lint",
            source,
        })?;
    Ok(parse_patch(&patch))
}

/// One file section of the patch while it is read.
#[derive(Debug, Default)]
struct Section {
    path: Option<String>,
    new: bool,
    deleted: bool,
    skip: bool,
    ranges: Vec<LineRange>,
}

impl Section {
    fn finish(self, out: &mut BTreeMap<String, ChangedFile>) {
        let Some(path) = self.path else { return };
        if self.deleted || self.skip {
            return;
        }
        let lines = if self.new {
            LineSet::All
        } else {
            LineSet::from_ranges(self.ranges)
        };
        out.insert(path.clone(), ChangedFile { path, lines });
    }
}

/// Parses a zero-context patch (the module doc's format) into changed files, sorted by path.
#[must_use]
pub fn parse_patch(patch: &[u8]) -> Vec<ChangedFile> {
    let mut out = BTreeMap::new();
    let mut cur: Option<Section> = None;
    let mut in_hunks = false;
    for raw in patch.split(|&b| b == b'\n') {
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        if let Some(rest) = line.strip_prefix(b"diff --git ") {
            if let Some(done) = cur.take() {
                done.finish(&mut out);
            }
            cur = Some(Section {
                path: diff_git_path(rest),
                ..Section::default()
            });
            in_hunks = false;
            continue;
        }
        let Some(sec) = cur.as_mut() else { continue };
        if line.starts_with(b"@@ ") {
            in_hunks = true;
            if let Some(r) = hunk_added(line) {
                sec.ranges.push(r);
            }
            continue;
        }
        if in_hunks {
            // Content lines (`+`, `-`, `\ No newline…`) say nothing about which lines changed.
            continue;
        }
        let text = String::from_utf8_lossy(line);
        if let Some(mode) = text.strip_prefix("new file mode ") {
            sec.new = true;
            sec.skip |= NON_FILE_MODES.contains(&mode.trim());
        } else if text.starts_with("deleted file mode ") {
            sec.deleted = true;
        } else if let Some(mode) = text.strip_prefix("new mode ") {
            sec.skip |= NON_FILE_MODES.contains(&mode.trim());
        } else if text.starts_with("index ") {
            let mode = text.split(' ').nth(2).unwrap_or("");
            sec.skip |= NON_FILE_MODES.contains(&mode.trim());
        } else if text.starts_with("Binary files ") || text.starts_with("GIT binary patch") {
            sec.skip = true;
        } else if let Some(p) = text.strip_prefix("+++ ") {
            if p == "/dev/null" {
                sec.deleted = true;
            } else if let Some(path) = header_path(p) {
                sec.path = Some(path);
            }
        }
    }
    if let Some(done) = cur {
        done.finish(&mut out);
    }
    out.into_values().collect()
}

/// The added lines of a hunk header `@@ -a[,b] +c[,d] @@…`, or `None` for a pure deletion or a
/// line that is not a hunk header.
#[must_use]
pub fn hunk_added(header: &[u8]) -> Option<LineRange> {
    let text = std::str::from_utf8(header).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (_, after) = rest.split_once(" +")?;
    let spec = after.split(' ').next()?;
    let (start, count) = match spec.split_once(',') {
        Some((s, c)) => (s.parse::<u32>().ok()?, c.parse::<u32>().ok()?),
        None => (spec.parse::<u32>().ok()?, 1),
    };
    if count == 0 || start == 0 {
        return None;
    }
    Some(LineRange {
        start,
        end: start.saturating_add(count - 1),
    })
}

/// The `b/` path of a `+++ b/<path>` header: C-unquoted, without the tab git appends to names
/// that contain a space.
fn header_path(p: &str) -> Option<String> {
    let p = p.strip_suffix('\t').unwrap_or(p);
    let p = if p.starts_with('"') {
        let (bytes, _) = unquote(p.as_bytes())?;
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        p.to_owned()
    };
    p.strip_prefix("b/").map(str::to_owned)
}

/// The path of `a/<p> b/<p>` (renames are off, so both sides name the same path); `None` when it
/// cannot be told apart, and the `+++` header then names it.
fn diff_git_path(rest: &[u8]) -> Option<String> {
    if rest.first() == Some(&b'"') {
        let (_, used) = unquote(rest)?;
        let second = rest.get(used..)?.strip_prefix(b" ")?;
        let bytes = if second.first() == Some(&b'"') {
            unquote(second)?.0
        } else {
            second.to_vec()
        };
        return bytes
            .strip_prefix(b"b/")
            .map(|b| String::from_utf8_lossy(b).into_owned());
    }
    // `a/P b/P` has length 2p + 5.
    let p = rest.len().checked_sub(5)? / 2;
    if rest.len() != 2 * p + 5 {
        return None;
    }
    let (a, b) = (rest.get(2..2 + p)?, rest.get(5 + p..)?);
    (rest.starts_with(b"a/") && rest.get(2 + p..5 + p) == Some(b" b/") && a == b)
        .then(|| String::from_utf8_lossy(a).into_owned())
}

/// Git's C-quoted string at the start of `s` (which starts with `"`): its bytes and the number of
/// input bytes it used, closing quote included.
fn unquote(s: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut i = 1;
    while let Some(&b) = s.get(i) {
        match b {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                let e = *s.get(i + 1)?;
                i += 2;
                let byte = match e {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'0'..=b'7' => {
                        let digits = s.get(i - 1..i + 2)?;
                        i += 2;
                        digits.iter().try_fold(0u8, |acc, d| {
                            (b'0'..=b'7')
                                .contains(d)
                                .then(|| acc.wrapping_mul(8).wrapping_add(d - b'0'))
                        })?
                    }
                    other => other,
                };
                out.push(byte);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn r(start: u32, end: u32) -> LineRange {
        LineRange { start, end }
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(hunk_added(b"@@ -3,2 +3,4 @@ fn x()"), Some(r(3, 6)));
        assert_eq!(hunk_added(b"@@ -3 +3 @@"), Some(r(3, 3)));
        assert_eq!(hunk_added(b"@@ -5,2 +4,0 @@"), None);
        assert_eq!(hunk_added(b"@@ -0,0 +1,3 @@"), Some(r(1, 3)));
        assert_eq!(hunk_added(b"@@ garbage"), None);
        assert_eq!(hunk_added(b"@@ -1 +x,2 @@"), None);
    }

    #[test]
    fn sections_new_deleted_binary_symlink_and_quoted() {
        let patch = b"diff --git a/new.py b/new.py\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n\
diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\
diff --git a/img.png b/img.png\nindex 1..2 100644\nBinary files a/img.png and b/img.png differ\n\
diff --git a/link b/link\nindex 1..2 120000\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-a\n+b\n\
diff --git \"a/caf\\303\\251 x.py\" \"b/caf\\303\\251 x.py\"\nindex 1..2 100644\n--- \"a/caf\\303\\251 x.py\"\n+++ \"b/caf\\303\\251 x.py\"\n@@ -2,0 +3,2 @@\n+y\r\n+z\r\n@@ -9 +10 @@\n-q\n+r\n\
diff --git a/d/sp ace.py b/d/sp ace.py\nindex 1..2 100644\n--- a/d/sp ace.py\t\n+++ b/d/sp ace.py\t\n@@ -4 +3,0 @@\n-gone\n\
diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n";
        let files = parse_patch(patch);
        let got: Vec<(&str, &LineSet)> =
            files.iter().map(|f| (f.path.as_str(), &f.lines)).collect();
        assert_eq!(
            got,
            [
                ("caf\u{e9} x.py", &LineSet::Ranges(vec![r(3, 4), r(10, 10)])),
                ("d/sp ace.py", &LineSet::Ranges(vec![])),
                ("empty.txt", &LineSet::All),
                ("new.py", &LineSet::All),
            ]
        );
    }

    #[test]
    fn line_sets_merge_and_answer() {
        let s = LineSet::from_ranges([r(5, 6), r(1, 2), r(3, 3), r(10, 12), r(11, 11)]);
        assert_eq!(s, LineSet::Ranges(vec![r(1, 3), r(5, 6), r(10, 12)]));
        assert!(s.contains(1) && s.contains(6) && !s.contains(4) && !s.contains(7));
        assert_eq!(
            LineSet::from_ranges([r(1, 2), r(3, 3)]),
            LineSet::Ranges(vec![r(1, 3)])
        );
        assert!(s.intersects(7, 10) && !s.intersects(7, 9));
        assert!(LineSet::All.contains(99) && !LineSet::All.is_empty());
        assert!(LineSet::from_ranges([]).is_empty());
    }

    proptest! {
        /// Random hunks (count omitted, zero, or n) round-trip into exactly the added lines.
        #[test]
        fn hunks_round_trip(hunks in proptest::collection::vec(
            (1u32..5000, 0u32..50, 1u32..5000, proptest::option::of(0u32..50)), 0..12)) {
            let mut patch = String::from("diff --git a/f.rs b/f.rs\nindex 1..2 100644\n--- a/f.rs\n+++ b/f.rs\n");
            let mut expected = std::collections::BTreeSet::new();
            for (a, b, c, d) in &hunks {
                match d {
                    Some(d) => patch.push_str(&format!("@@ -{a},{b} +{c},{d} @@ ctx\n")),
                    None => patch.push_str(&format!("@@ -{a},{b} +{c} @@\n")),
                }
                for _ in 0..*b { patch.push_str("-old\n"); }
                let n = d.unwrap_or(1);
                for i in 0..n { patch.push_str(&format!("+new {i}\n")); expected.insert(c + i); }
            }
            let files = parse_patch(patch.as_bytes());
            prop_assert_eq!(files.len(), 1);
            let lines = &files[0].lines;
            for line in 1..5100u32 {
                prop_assert_eq!(lines.contains(line), expected.contains(&line), "line {}", line);
            }
        }

        /// Nothing the parser is fed makes it panic.
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut patch = b"diff --git \"a/x\" b/x\n@@ -1 +1 @@\n".to_vec();
            patch.extend(bytes);
            let _ = parse_patch(&patch);
        }
    }
}
