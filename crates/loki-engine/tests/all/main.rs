//! The engine end to end: real git, real test runners, the scripted provider.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods,
    clippy::needless_pass_by_value
)]

mod adversarial;
mod common;
mod demo;
mod environments;
mod generated;
mod lint;
mod wall_runners;
