use linewrap::wrap;

#[test]
fn packs_words_greedily() {
    assert_eq!(
        wrap("the quick brown fox jumps over the lazy dog", 10),
        ["the quick", "brown fox", "jumps over", "the lazy", "dog"]
    );
}

#[test]
fn empty_and_whitespace() {
    assert!(wrap("", 5).is_empty());
    assert!(wrap("   \n ", 5).is_empty());
}

#[test]
fn word_exactly_width() {
    assert_eq!(wrap("abcde fghij", 5), ["abcde", "fghij"]);
}

#[test]
fn long_words_are_broken() {
    assert_eq!(
        wrap("see supercalifragilistic now", 8),
        ["see", "supercal", "ifragili", "stic now"]
    );
}
