//! Integration tests of loki-checks: detection on fixture trees, and real runners on fixture repos
//! built in temp dirs.

// Tests fail loudly on broken fixtures and write fixture files directly (not loki state).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods
)]

mod suite;
