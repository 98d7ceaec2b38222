//! Unified diff rendering.
//!
//! Output is the standard unified format (`--- a/p`, `+++ b/p`, `@@ -l,n +l,n @@`, three lines of
//! context, `\ No newline at end of file` where a side lacks one), so it reads back with
//! [`crate::parse_unified`]. Colour is the caller's decision (a TTY, `--color`): when asked, the
//! lines are wrapped in ANSI SGR escapes, and stripping those gives the plain text back.

use std::time::Duration;

use similar::{ChangeTag, TextDiff};

/// Lines of unchanged context around each change (the `diff -u` and git default).
pub const CONTEXT_LINES: usize = 3;
/// Upper bound on the time spent finding a minimal diff; past it the diff is still correct, only
/// less minimal. Keeps a pathological pair of files from stalling a tool call.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

const BOLD: &str = "\x1b[1m";
const RED: &str = "\x1b[31m";
const GREEN: &str = "\x1b[32m";
const CYAN: &str = "\x1b[36m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// A unified diff from `old` to `new` of the file `path` (headers `a/path` and `b/path`); empty
/// when the texts are equal.
#[must_use]
pub fn render_diff(path: &str, old: &str, new: &str, color: bool) -> String {
    render_labeled(&format!("a/{path}"), &format!("b/{path}"), old, new, color)
}

pub(crate) fn render_labeled(
    old_label: &str,
    new_label: &str,
    old: &str,
    new: &str,
    color: bool,
) -> String {
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    // Hunks are formatted here rather than by similar's `unified_diff`, whose header can
    // under-count the new side when a trailing Delete op carries a stale `new_index`: the ranges
    // are taken as the span of every op in the group instead.
    let mut plain = String::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        if plain.is_empty() {
            plain.push_str(&format!("--- {old_label}\n+++ {new_label}\n"));
        }
        let span = |r: fn(&similar::DiffOp) -> std::ops::Range<usize>| {
            let start = group.iter().map(|op| r(op).start).min().unwrap_or(0);
            let end = group.iter().map(|op| r(op).end).max().unwrap_or(start);
            (start, end)
        };
        let (os, oe) = span(similar::DiffOp::old_range);
        let (ns, ne) = span(similar::DiffOp::new_range);
        plain.push_str(&format!("@@ -{} +{} @@\n", range(os, oe), range(ns, ne)));
        for op in &group {
            for change in diff.iter_changes(op) {
                plain.push_str(match change.tag() {
                    ChangeTag::Equal => " ",
                    ChangeTag::Delete => "-",
                    ChangeTag::Insert => "+",
                });
                plain.push_str(change.value());
                if change.missing_newline() {
                    plain.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    if color { colorize(&plain) } else { plain }
}

/// A hunk range in unified form: `L` for one line, `L,N` otherwise; an empty range names the
/// line before it.
fn range(start: usize, end: usize) -> String {
    match end - start {
        1 => format!("{}", start + 1),
        0 => format!("{start},0"),
        n => format!("{},{n}", start + 1),
    }
}

fn colorize(plain: &str) -> String {
    let mut out = String::with_capacity(plain.len() * 2);
    for line in plain.split_inclusive('\n') {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        let style = if body.starts_with("--- ") || body.starts_with("+++ ") {
            BOLD
        } else if body.starts_with("@@") {
            CYAN
        } else if body.starts_with('+') {
            GREEN
        } else if body.starts_with('-') {
            RED
        } else if body.starts_with('\\') {
            DIM
        } else {
            out.push_str(line);
            continue;
        };
        out.push_str(style);
        out.push_str(body);
        out.push_str(RESET);
        out.push_str(nl);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_texts_render_nothing() {
        assert_eq!(render_diff("f", "a\n", "a\n", true), "");
    }

    #[test]
    fn color_wraps_lines_and_stripping_it_gives_the_plain_diff() {
        let plain = render_diff("f", "a\nb\n", "a\nc", false);
        let colored = render_diff("f", "a\nb\n", "a\nc", true);
        assert!(colored.contains("\x1b[31m-b\x1b[0m\n"), "{colored:?}");
        assert!(colored.contains("\x1b[32m+c\x1b[0m\n"), "{colored:?}");
        let stripped = colored
            .replace(BOLD, "")
            .replace(RED, "")
            .replace(GREEN, "")
            .replace(CYAN, "")
            .replace(DIM, "")
            .replace(RESET, "");
        assert_eq!(stripped, plain);
        assert!(plain.contains("\\ No newline at end of file"), "{plain}");
    }
}
