/// Parse "#rrggbb" into (r, g, b). Upper- and lower-case hex are accepted.
pub fn parse_rgb(s: &str) -> Option<(u8, u8, u8)> {
    let h = s.strip_prefix('#')?;
    if h.len() != 6 {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 10).ok();
    Some((byte(0)?, byte(2)?, byte(4)?))
}
