/// Run-length encode: "aaab" -> "3a1b".
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        let mut n = 1;
        while it.peek() == Some(&c) {
            it.next();
            n += 1;
        }
        out.push_str(&n.to_string());
        out.push(c);
    }
    out
}

/// Inverse of `encode`.
pub fn decode(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(d) = chars.next() {
        let n = d.to_digit(10).expect("count") as usize;
        let c = chars.next().expect("symbol");
        out.extend(std::iter::repeat(c).take(n));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_runs() {
        assert_eq!(encode("aaab"), "3a1b");
    }

    #[test]
    fn decodes_short_runs() {
        assert_eq!(decode("2x1y"), "xxy");
    }

    #[test]
    fn round_trip_long_run() {
        let s = format!("{}b", "a".repeat(12));
        assert_eq!(decode(&encode(&s)), s);
    }
}
