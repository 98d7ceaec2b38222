//! How loki's results look on a terminal. (Draft: the full spec is written as modules arrive.)

pub mod color;
pub mod deep;
pub mod doctor;
pub mod error;
pub mod events;
pub mod heal;
pub mod improve;
pub mod keys;
pub mod page;
pub mod progress;
pub mod runs;
pub mod seal;
pub mod style;
pub mod verify;

pub use style::{DIM, GREEN, LABEL_WIDTH, RED, YELLOW, label, paint};
