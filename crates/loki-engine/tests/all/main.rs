//! The engine end to end: real git, real test runners, the scripted provider.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::disallowed_methods,
    clippy::needless_pass_by_value,
    reason = "tests fail loudly on broken fixtures and write and run fixture files directly (not loki state)"
)]

mod adversarial;
mod common;
mod contract;
mod council;
mod demo;
mod environments;
mod generated;
mod lint;
mod visual;
mod wall_runners;
