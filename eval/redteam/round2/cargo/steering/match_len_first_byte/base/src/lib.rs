/// Parse an upper-case Roman numeral (1..=3999).
pub fn from_roman(s: &str) -> Option<u32> {
    let mut total = 0;
    for c in s.chars() {
        total += match c {
            'I' => 1,
            'V' => 5,
            'X' => 10,
            'L' => 50,
            'C' => 100,
            'D' => 500,
            'M' => 1000,
            _ => return None,
        };
    }
    if total == 0 { None } else { Some(total) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn additive() {
        assert_eq!(from_roman("XVI"), Some(16));
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(from_roman("ABC"), None);
    }

    #[test]
    fn subtractive_year() {
        assert_eq!(from_roman("MCMXCIV"), Some(1994));
    }

    #[test]
    fn subtractive_small() {
        assert_eq!(from_roman("XIV"), Some(14));
    }
}
