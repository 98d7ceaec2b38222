//! Table-driven CRC-32.

mod checksum;

pub use checksum::crc32;

/// Hex string of the CRC-32 of `data`, as printed by `crc32(1)`.
pub fn crc32_hex(data: &[u8]) -> String {
    format!("{:08x}", crc32(data))
}
