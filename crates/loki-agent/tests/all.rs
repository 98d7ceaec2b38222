//! Single integration-test binary of loki-agent (one link on two cores): every suite is a module.

// Helpers outside #[test] functions unwrap (a broken fixture stops the test where it broke) and
// write fixtures (worktrees, scripts, fake CLIs) directly: they are not loki state.
#![allow(clippy::unwrap_used, clippy::disallowed_methods)]

mod suite;
