//! Integration tests of the edit engine: Codex's apply-patch scenarios, files on disk (encodings,
//! confinement, all-or-nothing, backups), unified diffs, error texts and property tests.

// Test helpers outside #[test] functions unwrap, build fixture trees with plain fs::write (they are
// fixtures, not state) and print the fixture-skip notice.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods,
    clippy::print_stderr
)]

mod suite;
