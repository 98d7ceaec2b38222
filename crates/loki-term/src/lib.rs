//! How loki's results look on a terminal. (Draft: the full spec is written as modules arrive.)

pub mod color;
pub mod error;
pub mod page;
pub mod progress;
pub mod style;

pub use style::{DIM, GREEN, LABEL_WIDTH, RED, YELLOW, label, paint};
