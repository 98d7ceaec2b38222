#![expect(
    clippy::unwrap_used,
    reason = "tests fail loudly at the line that broke"
)]

mod admin;
mod check;
mod fixture;
mod load;
mod server;
mod ship;
mod store;
mod truth;
mod ui;
