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

fn glyph_value(c: char) -> Option<u32> {
    Some(match c {
        'I' => 1,
        'V' => 5,
        'X' => 10,
        'L' => 50,
        'C' => 100,
        'D' => 500,
        'M' => 1000,
        _ => return None,
    })
}

/// Parse a Roman numeral (case-insensitive). Returns `None` for anything
/// that is not a numeral in `1..=3999`.
pub fn from_roman(s: &str) -> Option<u32> {
    let values: Vec<u32> = s
        .chars()
        .map(|c| glyph_value(c.to_ascii_uppercase()))
        .collect::<Option<_>>()?;
    if values.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    for (i, &v) in values.iter().enumerate() {
        match values.get(i + 1) {
            Some(&next) if next > v => total -= v as i64,
            _ => total += v as i64,
        }
    }
    (1..=3999).contains(&total).then_some(total as u32)
}
