use pctenc::{encode, encode_path};

#[test]
fn unreserved_pass_through() {
    assert_eq!(encode("AZaz09-._~"), "AZaz09-._~");
}

#[test]
fn reserved_and_space_are_escaped() {
    let e = encode("a b&c/d=e");
    assert!(!e.contains(' ') && !e.contains('&') && !e.contains('='));
    assert!(e.starts_with("a%20b"));
}

#[test]
fn utf8_bytes_are_escaped() {
    assert_eq!(encode("é").to_uppercase(), "%C3%A9");
}

#[test]
fn path_keeps_slashes() {
    assert_eq!(encode_path("/docs/a b.txt"), "/docs/a%20b.txt");
}
