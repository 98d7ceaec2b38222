//! Check against the published test vectors in tests/data/vectors.txt
//! (`<input>\t<crc32 hex>`; `#` starts a comment line).

use crc32_lite::{crc32, crc32_hex};

fn vectors() -> Vec<(String, u32)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/vectors.txt");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (input, crc) = l.split_once('\t').expect("tab separated");
            (input.to_string(), u32::from_str_radix(crc, 16).unwrap())
        })
        .collect()
}

#[test]
fn published_vectors() {
    let v = vectors();
    assert!(v.len() >= 4);
    for (input, want) in v {
        assert_eq!(crc32(input.as_bytes()), want, "crc32({input:?})");
    }
}

#[test]
fn hex_is_zero_padded() {
    assert_eq!(crc32_hex(b"").len(), 8);
}
