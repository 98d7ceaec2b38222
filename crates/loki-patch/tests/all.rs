//! Integration tests of the edit engine: Codex's apply-patch scenarios, files on disk (encodings,
//! confinement, all-or-nothing, backups), unified diffs, error texts and property tests.

// Test helpers outside #[test] functions unwrap and build fixture trees with plain fs::write (they
// are fixtures, not state).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods
)]

mod suite;
