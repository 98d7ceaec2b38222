//! The binary's terminal I/O that is not a command's: the colour choice and error printing. How
//! things look is `loki_term`'s.

use crate::cli::{ColorWhen, GlobalArgs};

/// Decides colour once for the process ([`loki_term::color`]).
pub fn init_color(global: &GlobalArgs) {
    loki_term::color::init(global.color.map(|c| match c {
        ColorWhen::Auto => loki_term::color::ColorWhen::Auto,
        ColorWhen::Always => loki_term::color::ColorWhen::Always,
        ColorWhen::Never => loki_term::color::ColorWhen::Never,
    }));
}

/// Prints an error for `--json`: one object on stdout, so a caller parsing stdout gets JSON on
/// failure too (the words still go to stderr, [`error`]).
pub fn error_json(err: &anyhow::Error, exit_code: u8) {
    anstream::println!("{}", loki_term::error::json(err.chain(), exit_code));
    error(err);
}

/// Prints an error and its causes to stderr as `error: … \n  caused by: …`.
pub fn error(err: &anyhow::Error) {
    anstream::eprintln!("{}", loki_term::error::text(err.chain()));
}
