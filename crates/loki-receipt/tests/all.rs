//! Integration tests of loki-receipt: seal → verify round trips, every documented mutation, keys,
//! OpenSSL interop, RFC 8785 examples and an independent implementation, and snapshots of what people read. One binary; the modules
//! live in `suite/` so Cargo does not build each as its own test target.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "this whole crate is tests: helpers outside #[test] fns may fail loudly too"
)]

#[path = "suite/human.rs"]
mod human;
#[path = "suite/interop.rs"]
mod interop;
#[path = "suite/jcs.rs"]
mod jcs;
#[path = "suite/keys.rs"]
mod keys;
#[path = "suite/screens.rs"]
mod screens;
#[path = "suite/snapshots.rs"]
mod snapshots;
#[path = "suite/support.rs"]
mod support;
#[path = "suite/tamper.rs"]
mod tamper;
