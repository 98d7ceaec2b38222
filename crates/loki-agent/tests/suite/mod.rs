mod bad_input;
mod common;
mod e2e;
mod messages;
