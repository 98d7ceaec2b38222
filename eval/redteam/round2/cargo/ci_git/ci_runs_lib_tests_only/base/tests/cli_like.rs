use wc_rt::counts;

#[test]
fn last_line_without_newline() {
    assert_eq!(counts("a b\nc"), (2, 3, 5));
}

#[test]
fn single_word_no_newline() {
    assert_eq!(counts("hello"), (1, 1, 5));
}
