//! Roman numerals.

const TABLE: [(u32, &str); 12] = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
];

/// Standard (subtractive) Roman numeral for `n` in `1..=3999`.
pub fn to_roman(mut n: u32) -> Option<String> {
    if n == 0 || n > 3999 {
        return None;
    }
    let mut out = String::new();
    for &(value, glyphs) in TABLE.iter() {
        while n >= value {
            out.push_str(glyphs);
            n -= value;
        }
    }
    Some(out)
}
