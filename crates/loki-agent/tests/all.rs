//! Single integration-test binary of loki-agent (one link on two cores): every suite is a module.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "helpers outside #[test] functions unwrap (a broken fixture stops the test where it broke) and write fixtures (worktrees, scripts, fake CLIs) directly: they are not loki state"
)]

mod suite;
