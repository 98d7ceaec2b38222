//! Lower-case hex encoding and decoding.

#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError {
    OddLength,
    InvalidDigit { index: usize },
}

pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 0xF) as usize] as char);
    }
    s
}

fn nibble(c: u8, index: usize) -> Result<u8, DecodeError> {
    match c {
        b'0'..=b'9' => Ok(c - b'0'),
        b'a'..=b'f' => Ok(c - b'a' + 10),
        b'A'..=b'F' => Ok(c - b'A' + 10),
        _ => Err(DecodeError::InvalidDigit { index }),
    }
}

/// Decode hex (either case).
pub fn decode(s: &str) -> Result<Vec<u8>, DecodeError> {
    let b = s.as_bytes();
    if b.len() % 2 != 0 {
        return Err(DecodeError::OddLength);
    }
    (0..b.len())
        .step_by(2)
        .map(|i| Ok(nibble(b[i], i)? << 4 | nibble(b[i + 1], i + 1)?))
        .collect()
}
