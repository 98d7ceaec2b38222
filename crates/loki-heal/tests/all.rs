//! Integration tests of loki-heal.
