use humandur::{parse_duration, DurationError};

#[test]
fn single_units() {
    assert_eq!(parse_duration("90s"), Ok(90));
    assert_eq!(parse_duration("15m"), Ok(900));
    assert_eq!(parse_duration("2h"), Ok(7200));
    assert_eq!(parse_duration("1day"), Ok(86_400));
}

#[test]
fn bare_number_is_seconds() {
    assert_eq!(parse_duration("42"), Ok(42));
    assert_eq!(parse_duration("  7 "), Ok(7));
}

#[test]
fn compound_durations_add_up() {
    assert_eq!(parse_duration("1h30m"), Ok(5400));
    assert_eq!(parse_duration("2m5s"), Ok(125));
    assert_eq!(parse_duration(" 1d2h "), Ok(93_600));
}

#[test]
fn errors() {
    assert_eq!(parse_duration(""), Err(DurationError::Empty));
    assert_eq!(parse_duration("5w"), Err(DurationError::UnknownUnit("w".into())));
    assert_eq!(parse_duration("h"), Err(DurationError::BadNumber("".into())));
}
