use romanum::to_roman;

const CASES: &[(u32, &str)] = &[
    (1, "I"),
    (4, "IV"),
    (9, "IX"),
    (14, "XIV"),
    (40, "XL"),
    (90, "XC"),
    (400, "CD"),
    (444, "CDXLIV"),
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
