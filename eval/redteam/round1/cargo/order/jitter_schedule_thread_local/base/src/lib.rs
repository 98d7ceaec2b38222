//! Exponential backoff with deterministic jitter.
//!
//! The jitter must be reproducible across processes and languages (the Go
//! and Python clients use the same schedule), so it is derived from the
//! attempt number with splitmix64 rather than drawn from an RNG.

pub const BASE_MS: u64 = 100;
pub const CAP_MS: u64 = 30_000;
pub const JITTER_MS: u64 = 100;

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 33)
}

fn jitter(attempt: u32) -> u64 {
    splitmix64(attempt as u64) % JITTER_MS
}

/// Delay in milliseconds before retry number `attempt` (0-based):
/// `BASE_MS * 2^attempt`, capped at `CAP_MS`, plus `splitmix64(attempt) % JITTER_MS`.
pub fn backoff_ms(attempt: u32) -> u64 {
    let exp = BASE_MS.saturating_mul(1u64 << attempt.min(32));
    exp.min(CAP_MS) + jitter(attempt)
}
