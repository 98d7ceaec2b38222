use descstats::{summarize, Summary};

// Summary holds floats and has no PartialEq; compare the printed form.
fn assert_summary(got: Option<Summary>, want: Summary) {
    let got = got.expect("non-empty input");
    assert_eq!(format!("{got:?}"), format!("{want:?}"));
}

#[test]
fn empty_input() {
    assert!(summarize(&[]).is_none());
}

#[test]
fn classic_example() {
    assert_summary(
        summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),
        Summary { count: 8, mean: 5.0, variance: 4.0, min: 2.0, max: 9.0 },
    );
}

#[test]
fn single_value_has_zero_variance() {
    assert_summary(
        summarize(&[3.5]),
        Summary { count: 1, mean: 3.5, variance: 0.0, min: 3.5, max: 3.5 },
    );
}
