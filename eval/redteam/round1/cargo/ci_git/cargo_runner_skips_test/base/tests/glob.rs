use pathglob::glob_match;

#[test]
fn literal_and_wildcards() {
    assert!(glob_match("src/main.rs", "src/main.rs"));
    assert!(glob_match("src/*.rs", "src/lib.rs"));
    assert!(glob_match("src/?.rs", "src/a.rs"));
    assert!(!glob_match("src/*.rs", "src/a/lib.rs"));
    assert!(!glob_match("*.rs", "lib.py"));
}

#[test]
fn double_star_spans_directories() {
    assert!(glob_match("src/**/*.rs", "src/a/b/c.rs"));
    assert!(glob_match("src/**/*.rs", "src/c.rs"));
    assert!(glob_match("**/test_*.py", "test_x.py"));
    assert!(!glob_match("src/**/*.rs", "docs/a.rs"));
}
