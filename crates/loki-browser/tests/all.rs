//! Integration tests of `loki-browser` against a real headless Chromium (`require_browser`:
//! skipped on a laptop without one, a failure under CI).

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

mod suite;
