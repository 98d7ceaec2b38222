use qstring::{get, parse_query};

#[test]
fn splits_pairs_in_order() {
    let p = parse_query("?a=1&b=2&a=3");
    assert_eq!(p.len(), 3);
    assert_eq!(get(&p, "a"), Some("1"));
    assert_eq!(get(&p, "b"), Some("2"));
}

#[test]
fn flags_and_empty_pieces() {
    let p = parse_query("debug&&x=");
    assert_eq!(get(&p, "debug"), Some(""));
    assert_eq!(get(&p, "x"), Some(""));
    assert_eq!(p.len(), 2);
}
