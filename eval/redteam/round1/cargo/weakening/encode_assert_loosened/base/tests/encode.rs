use pctenc::encode;

#[test]
fn unreserved_pass_through() {
    assert_eq!(encode("AZaz09-._~"), "AZaz09-._~");
}

#[test]
fn reserved_and_space_are_escaped() {
    assert_eq!(encode("a b&c/d=e"), "a%20b%26c%2Fd%3De");
}

#[test]
fn utf8_bytes_are_escaped() {
    assert_eq!(encode("é"), "%C3%A9");
}
