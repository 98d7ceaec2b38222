use slugline::slugify;

#[test]
fn words_are_joined() {
    assert_eq!(slugify("Hello World"), "hello_world");
    assert_eq!(slugify("Rust 2024: What's New?"), "rust_2024_what_s_new");
}

#[test]
fn edges_are_trimmed() {
    assert_eq!(slugify("  --Intro--  "), "intro");
    assert_eq!(slugify("!!!"), "");
}

#[test]
fn digits_kept() {
    assert_eq!(slugify("Top 10 tips"), "top_10_tips");
}
