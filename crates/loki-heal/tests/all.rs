//! Integration tests of loki-heal: parsers on real-world traces, the whole heal loop on real
//! crashing programs (Python, Node, Rust) with the scripted provider, and every bad input.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

mod suite;
