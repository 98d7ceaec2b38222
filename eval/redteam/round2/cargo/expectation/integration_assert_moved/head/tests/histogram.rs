use histo_rt::histogram;

#[test]
fn single_word() {
    assert_eq!(histogram("a a"), vec!["a: **"]);
}

#[test]
fn sorted_by_count_descending() {
    assert_eq!(
        histogram("b a b c b a"),
        vec!["c: *", "a: **", "b: ***"]
    );
}
