//! Unified diffs: rendering, parsing and applying, all or nothing.

use std::fs;

use loki_patch::{
    ApplyOptions, ChangeKind, DiffLine, PatchError, apply_unified, parse_unified, render_diff,
};

use super::{dir_with, tree};

const OPTS: ApplyOptions = ApplyOptions { backup: false };

#[test]
fn parses_a_git_diff_with_headers_prose_and_markers() {
    let text = "diff --git a/src/x.rs b/src/x.rs\nindex 83db48f..bf269f4 100644\n\
                --- a/src/x.rs\t2026-01-01 00:00:00\n+++ b/src/x.rs\n@@ -1,2 +1,2 @@ fn main\n a\n-b\n+c\n\\ No newline at end of file\n";
    let p = parse_unified(text).unwrap();
    assert_eq!(p.files.len(), 1);
    let f = &p.files[0];
    assert_eq!(f.old_path.as_deref(), Some("src/x.rs"));
    assert_eq!(f.new_path.as_deref(), Some("src/x.rs"));
    let h = &f.hunks[0];
    assert_eq!(
        (h.old_start, h.old_len, h.new_start, h.new_len),
        (1, 2, 1, 2)
    );
    assert_eq!(
        h.lines,
        vec![
            DiffLine::Context("a".into()),
            DiffLine::Removed("b".into()),
            DiffLine::Added("c".into())
        ]
    );
    assert!(h.new_missing_newline);
}

#[test]
fn malformed_diffs_are_refused_with_the_line() {
    let cases = [
        ("just prose\n", 1, "no file"),
        ("--- a/x\n+++ b/x\n", 1, "not followed by an @@"),
        ("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n", 3, "ends early"),
        (
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n-b\n+c\n",
            5,
            "more lines",
        ),
        ("--- a/x\n+++ b/x\n@@ -x +1 @@\n", 3, "bad range"),
        (
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n?b\n",
            5,
            "unexpected line",
        ),
    ];
    for (text, line, needle) in cases {
        match parse_unified(text) {
            Err(PatchError::Parse { line: l, message }) => {
                assert_eq!(l, line, "{text:?}: {message}");
                assert!(message.contains(needle), "{text:?}: {message}");
            }
            other => panic!("{text:?}: {other:?}"),
        }
    }
}

#[test]
fn applies_updates_adds_deletes_and_renames() {
    let d = dir_with(&[
        ("keep.txt", b"1\n2\n3\n4\n5\n6\n7\n8\n"),
        ("old.txt", b"x\n"),
        ("gone.txt", b"a\nb\n"),
    ]);
    let text = "--- a/keep.txt\n+++ b/keep.txt\n@@ -2,2 +2,2 @@\n 2\n-3\n+three\n@@ -7,2 +7,3 @@\n 7\n 8\n+9\n\
                --- /dev/null\n+++ b/new/added.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n\\ No newline at end of file\n\
                --- a/gone.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n\
                --- a/old.txt\n+++ b/renamed.txt\n@@ -1 +1 @@\n-x\n+y\n";
    let changes = apply_unified(d.path(), &parse_unified(text).unwrap(), OPTS).unwrap();
    let t = tree(d.path());
    assert_eq!(t["keep.txt"], b"1\n2\nthree\n4\n5\n6\n7\n8\n9\n");
    assert_eq!(t["new/added.txt"], b"hello\nworld");
    assert_eq!(t["renamed.txt"], b"y\n");
    assert!(!t.contains_key("gone.txt") && !t.contains_key("old.txt"));
    let kinds: Vec<_> = changes.iter().map(|c| (c.path.as_str(), c.kind)).collect();
    assert!(
        kinds.contains(&("gone.txt", ChangeKind::Deleted)),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&("new/added.txt", ChangeKind::Added)),
        "{kinds:?}"
    );
}

#[test]
fn a_hunk_whose_line_number_drifted_is_found_by_content() {
    let d = dir_with(&[("f.txt", b"new top\nnew top 2\na\nb\nc\n")]);
    let text = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    apply_unified(d.path(), &parse_unified(text).unwrap(), OPTS).unwrap();
    assert_eq!(
        fs::read(d.path().join("f.txt")).unwrap(),
        b"new top\nnew top 2\na\nB\nc\n"
    );
}

#[test]
fn unified_failure_leaves_everything_untouched() {
    let d = dir_with(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
    let before = tree(d.path());
    let text = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-zzz\n+B\n";
    let err = apply_unified(d.path(), &parse_unified(text).unwrap(), OPTS).unwrap_err();
    assert!(
        matches!(&err, PatchError::HunkNoMatch { path, hunk: 1, .. } if path == "b.txt"),
        "{err}"
    );
    assert_eq!(tree(d.path()), before);
    // Adding over an existing file and deleting with a stale body are refused too.
    let add = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n";
    assert!(matches!(
        apply_unified(d.path(), &parse_unified(add).unwrap(), OPTS),
        Err(PatchError::AlreadyExists { .. })
    ));
    let del = "--- a/a.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-b\n";
    assert!(apply_unified(d.path(), &parse_unified(del).unwrap(), OPTS).is_err());
    assert_eq!(tree(d.path()), before);
}

#[test]
fn rendered_diff_applies_back_including_missing_newlines_and_crlf() {
    let cases: [(&str, &str); 5] = [
        ("a\nb\nc\n", "a\nB\nc\n"),
        ("a\nb", "a\nb\n"),
        ("a\nb\n", "a\nc"),
        ("", "new\n"),
        ("x\ny\n", "y\n"),
    ];
    for (old, new) in cases {
        let d = dir_with(&[("f.txt", old.as_bytes())]);
        let diff = render_diff("f.txt", old, new, false);
        apply_unified(d.path(), &parse_unified(&diff).unwrap(), OPTS).unwrap();
        assert_eq!(
            fs::read_to_string(d.path().join("f.txt")).unwrap(),
            new,
            "{diff}"
        );
    }
    let d = dir_with(&[("w.txt", b"a\r\nb\r\n")]);
    let diff = render_diff("w.txt", "a\nb\n", "a\nc\n", false);
    apply_unified(d.path(), &parse_unified(&diff).unwrap(), OPTS).unwrap();
    assert_eq!(fs::read(d.path().join("w.txt")).unwrap(), b"a\r\nc\r\n");
}
