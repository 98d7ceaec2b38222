//! Integration tests of loki-improve: every outcome and every guard of a cycle, on a real
//! repository with real builds replayed by the engine (pytest), a scripted editor and agent whose
//! behaviour depends on the instructions they are given, and crashes at every step.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

mod suite;
