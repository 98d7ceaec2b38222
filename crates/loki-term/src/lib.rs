//! How loki's results look on a terminal: the words, colours and alignment of every report the
//! `loki` binary prints for a person, and the progress it shows while a run goes. Each module
//! opens with the spec of the text it renders.
//!
//! # Formats
//! - **Summaries** are labelled lines, labels padded to [`LABEL_WIDTH`] (12) columns
//!   (`Outcome:    VERIFIED`), as DESIGN.md pins the run summary; `NOT PROVEN:` is never left
//!   out of a summary that can prove less than everything.
//! - **Colour** carries meaning only in addition to words: [`GREEN`] good news, [`YELLOW`]
//!   attention, [`RED`] failure, [`DIM`] context. Renderers always paint ([`paint`]); the binary
//!   prints through anstream, which strips the styles when colour is off ([`color`]: `--color`,
//!   then `NO_COLOR`, then `LOKI_OUTPUT_COLOR`, then whether stdout is a terminal).
//! - **`--json`** forms are built here too where they are more than one serialised value, so a
//!   command's text and its JSON are side by side.
//! - **Progress** ([`progress`]) goes to stderr: a live line on a terminal, plain lines with
//!   `--verbose`, nothing otherwise.
//!
//! Per command: [`summary`] (what a build run ends with), [`demo`], [`ask`], [`providers`],
//! [`runs`], [`events`], [`verify`], [`keys`], [`doctor`] (and `--airgap`), [`deep`], [`seal`],
//! [`improve`], [`heal`] (`loki run`, `fix`, `replay`), [`build`] (`status`, `apply`,
//! `discard`, `pr`), [`checks`] (`detect`, `run`), [`ci`] (`judge`, `post`), [`config`],
//! [`contract`], [`workspace`], [`backlog`], [`serve`];
//! [`modelbox`] for what a model-driven command says about its box; [`error`] for a failed
//! command. The hidden `loki __page` check is `loki_heal::page`: it is the heal's
//! observer, not a rendering.
//!
//! # Invariants
//! - Renderers (every module but [`color`] and [`progress`]) are pure: data in,
//!   `String` (or a JSON value) out. They read no file, run no process and decide no exit code;
//!   the command keeps the I/O, the prompts and the exit codes.
//! - Nothing here prints (`println!`/`eprintln!` are denied): the [`progress::Printer`] writes
//!   only to the writer it is given (a build's is stderr: [`progress::Printer::stderr`]).
//! - A text changes only with its snapshot: the binary's tests pin them byte for byte.

pub mod ask;
pub mod backlog;
pub mod build;
pub mod checks;
pub mod ci;
pub mod color;
pub mod config;
pub mod contract;
pub mod deep;
pub mod demo;
pub mod doctor;
pub mod error;
pub mod events;
pub mod heal;
pub mod improve;
pub mod keys;
pub mod modelbox;
pub mod progress;
pub mod providers;
pub mod runs;
pub mod seal;
pub mod serve;
pub mod style;
pub mod summary;
pub mod verify;
pub mod workspace;

pub use style::{DIM, GREEN, LABEL_WIDTH, RED, YELLOW, label, paint};
