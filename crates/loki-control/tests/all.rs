//! loki-control's integration tests: one binary (see STYLE.md).

mod suite;
