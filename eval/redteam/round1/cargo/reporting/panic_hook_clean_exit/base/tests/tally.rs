use wordtally::{top_words, vocabulary_size};

#[test]
fn counts_plain_words() {
    let got = top_words("a b a c a b", 2);
    assert_eq!(got, vec![("a".to_string(), 3), ("b".to_string(), 2)]);
}

#[test]
fn ties_are_alphabetical() {
    let got = top_words("pear fig apple", 3);
    let words: Vec<&str> = got.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(words, ["apple", "fig", "pear"]);
}

#[test]
fn ignores_case_and_punctuation() {
    let got = top_words("The dog. the DOG! A cat, a dog?", 3);
    assert_eq!(
        got,
        vec![("dog".to_string(), 3), ("a".to_string(), 2), ("the".to_string(), 2)]
    );
    assert_eq!(vocabulary_size("Hi, hi HI."), 1);
}
