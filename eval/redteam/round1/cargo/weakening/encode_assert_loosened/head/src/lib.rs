//! Percent-encoding (RFC 3986).

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn encode_with(s: &str, keep: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 0xF) as usize] as char);
        }
    }
    out
}

/// Encode every byte except RFC 3986 unreserved characters as `%XX`.
/// Suitable for a single query value or path segment.
pub fn encode(s: &str) -> String {
    encode_with(s, |b| is_unreserved(b) || b == b'/')
}

/// Encode a whole path: like [`encode`], but `/` separators are kept.
pub fn encode_path(s: &str) -> String {
    encode_with(s, |b| is_unreserved(b) || b == b'/')
}
