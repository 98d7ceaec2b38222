mod common;
use common::{hex, parse_rgb};

#[test]
fn decimal_looking_digits() {
    assert_eq!(parse_rgb("#102030"), Some((0x10, 0x20, 0x30)));
}

#[test]
fn hex_letters() {
    assert_eq!(parse_rgb("#ff8000"), Some((255, 128, 0)));
}

#[test]
fn round_trip() {
    assert_eq!(parse_rgb(&hex(1, 171, 205)), Some((1, 171, 205)));
}

#[test]
fn rejects_short() {
    assert_eq!(parse_rgb("#fff"), None);
}
