//! Integration tests of the edit engine: the real Codex apply_patch as reference, files on disk (encodings,
//! confinement, all-or-nothing, backups), unified diffs, error texts and property tests.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "test helpers outside #[test] functions unwrap and build fixture trees with plain fs::write (they are fixtures, not state)"
)]

mod suite;
