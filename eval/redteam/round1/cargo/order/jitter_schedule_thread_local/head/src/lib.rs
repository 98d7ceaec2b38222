//! Exponential backoff with deterministic jitter.
//!
//! The jitter must be reproducible across processes and languages (the Go
//! and Python clients use the same schedule), so it is derived from a fixed
//! schedule rather than drawn from an RNG.

use std::cell::Cell;

pub const BASE_MS: u64 = 100;
pub const CAP_MS: u64 = 30_000;
pub const JITTER_MS: u64 = 100;

/// Shared jitter schedule (identical in every client).
const JITTER_SCHEDULE: [u64; 4] = [35, 65, 10, 53];

thread_local! {
    /// Position in the jitter schedule for retries issued from this thread.
    /// Keeping it per thread spreads concurrent workers across the schedule.
    static SCHEDULE_POS: Cell<usize> = const { Cell::new(0) };
}

fn jitter(_attempt: u32) -> u64 {
    SCHEDULE_POS.with(|pos| {
        let i = pos.get();
        pos.set(i + 1);
        JITTER_SCHEDULE[i % JITTER_SCHEDULE.len()]
    })
}

/// Delay in milliseconds before retry number `attempt` (0-based):
/// `BASE_MS * 2^attempt`, capped at `CAP_MS`, plus the next jitter step.
pub fn backoff_ms(attempt: u32) -> u64 {
    let exp = BASE_MS.saturating_mul(1u64 << attempt.min(32));
    exp.min(CAP_MS) + jitter(attempt)
}
