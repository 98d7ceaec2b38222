use kvlines::{parse, ParseError};

#[test]
fn parses_pairs_and_comments() {
    let m = parse("# settings\nname = demo\nport=8080 # default\n\n").unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(m["name"], "demo");
    assert_eq!(m["port"], "8080");
}

#[test]
fn missing_equals_reports_line_and_key() {
    let err = parse("a = 1\nbroken\n").unwrap_err();
    assert!(matches!(err, ParseError::MissingEquals { line: 2, .. }));
    assert!(err.to_string().starts_with("line 2:"));
}

#[test]
fn duplicate_keys_are_rejected() {
    let err = parse("a=1\na=2").unwrap_err();
    assert!(matches!(err, ParseError::Duplicate { line: 2, .. }));
}

#[test]
fn empty_key() {
    assert_eq!(parse(" = x").unwrap_err(), ParseError::EmptyKey { line: 1 });
}
