//! Integration tests of loki-checks: detection on fixture trees, and real runners on fixture repos
//! built in temp dirs.

#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

mod suite;
