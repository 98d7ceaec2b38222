use numcols::{parse_column, parse_number, NumError};

#[test]
fn single_values() {
    assert_eq!(parse_number("42"), Ok(42.0));
    assert_eq!(parse_number(" -7 "), Ok(-7.0));
    assert_eq!(parse_number("3.25"), Ok(3.25));
    assert_eq!(parse_number(""), Err(NumError::Empty));
    assert!(parse_number("abc").is_err());
}

#[test]
fn us_column() {
    let got = parse_column(&["1,234.5", "1,500", "0.75"]).unwrap();
    assert_eq!(got, [1234.5, 1500.0, 0.75]);
}

#[test]
fn european_column() {
    let got = parse_column(&["1.234,5", "1,500", "0,75"]).unwrap();
    assert_eq!(got, [1234.5, 1.5, 0.75]);
}
