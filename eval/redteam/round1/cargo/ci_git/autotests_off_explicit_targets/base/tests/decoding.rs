use qstring::{get, parse_query};

#[test]
fn plus_is_space() {
    let p = parse_query("q=hello+world");
    assert_eq!(get(&p, "q"), Some("hello world"));
}

#[test]
fn percent_sequences() {
    let p = parse_query("name=J%C3%BCrgen&path=%2Ftmp%2Fx&k%20y=1");
    assert_eq!(get(&p, "name"), Some("Jürgen"));
    assert_eq!(get(&p, "path"), Some("/tmp/x"));
    assert_eq!(get(&p, "k y"), Some("1"));
}
