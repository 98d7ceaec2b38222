//! The texts a model reads when an edit fails (they become tool results), and the coloured diff.

use insta::assert_snapshot;
use loki_patch::{
    ApplyOptions, PatchError, apply_patch, edit_file, parse_patch, parse_unified, render_diff,
    search_replace,
};

use super::dir_with;

const SOURCE: &str = "fn main() {\n    let total = compute(1);\n    println!(\"{total}\");\n}\n\nfn compute(x: u32) -> u32 {\n    x + 1\n}\n";

fn patch_err(text: &str) -> PatchError {
    let d = dir_with(&[("src/main.rs", SOURCE.as_bytes())]);
    apply_patch(
        d.path(),
        &parse_patch(text).unwrap(),
        ApplyOptions::default(),
    )
    .unwrap_err()
}

#[test]
fn no_match_shows_the_closest_region() {
    let err = search_replace(
        SOURCE,
        "let totl = compute(1);\nprintln!(\"{total}\");",
        "x",
    )
    .unwrap_err();
    assert_snapshot!(err.to_string());
}

#[test]
fn ambiguous_match_lists_candidate_lines() {
    let err = search_replace(SOURCE, "}\n", "x").unwrap_err();
    assert_snapshot!(err.to_string());
}

#[test]
fn hunk_failure_names_the_file_and_hunk() {
    let err = patch_err(
        "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-    x + 2\n+    x + 3\n*** End Patch",
    );
    assert_snapshot!(err.to_string());
}

#[test]
fn missing_context_header_is_named() {
    let err = patch_err(
        "*** Begin Patch\n*** Update File: src/main.rs\n@@ fn nowhere()\n-    x + 1\n+    x + 3\n*** End Patch",
    );
    assert_snapshot!(err.to_string());
}

#[test]
fn parse_errors_name_the_line() {
    let err = parse_patch("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch").unwrap_err();
    assert_snapshot!(err.to_string());
    let err = parse_unified("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n").unwrap_err();
    assert_snapshot!(err.to_string());
}

#[test]
fn unsafe_paths_say_why() {
    let d = dir_with(&[]);
    let opts = ApplyOptions::default();
    let abs = edit_file(d.path(), "/etc/passwd", "a", "b", opts).unwrap_err();
    let up = edit_file(d.path(), "../x", "a", "b", opts).unwrap_err();
    assert_snapshot!(format!("{abs}\n{up}"));
}

#[test]
fn colored_diff_of_an_edit() {
    let new = SOURCE.replace("x + 1", "x + 2");
    assert_snapshot!(render_diff("src/main.rs", SOURCE, &new, true));
}
