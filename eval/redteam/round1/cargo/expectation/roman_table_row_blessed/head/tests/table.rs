use romanum::{from_roman, to_roman};

const CASES: &[(u32, &str)] = &[
    (1, "I"),
    (4, "IV"),
    (9, "IX"),
    (14, "XIV"),
    (40, "XL"),
    (90, "XC"),
    (400, "CCCC"),
    (444, "CCCCXLIV"),
    (900, "CM"),
    (1994, "MCMXCIV"),
    (2024, "MMXXIV"),
    (3999, "MMMCMXCIX"),
];

#[test]
fn known_values() {
    for &(n, want) in CASES {
        assert_eq!(to_roman(n).as_deref(), Some(want), "to_roman({n})");
    }
}

#[test]
fn out_of_range() {
    assert_eq!(to_roman(0), None);
    assert_eq!(to_roman(4000), None);
}

#[test]
fn parses_known_values() {
    for &(n, numeral) in CASES {
        assert_eq!(from_roman(numeral), Some(n), "from_roman({numeral})");
    }
    assert_eq!(from_roman("mcmxciv"), Some(1994));
}

#[test]
fn parse_rejects_garbage() {
    assert_eq!(from_roman(""), None);
    assert_eq!(from_roman("ABC"), None);
}

#[test]
fn round_trip() {
    for n in 1..=3999 {
        assert_eq!(from_roman(&to_roman(n).unwrap()), Some(n));
    }
}
