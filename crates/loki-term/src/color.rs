//! Whether loki writes colour: decided once per process, before the configuration is loaded.
//!
//! Order: the `--color` flag wins, then `NO_COLOR` (any value), then `LOKI_OUTPUT_COLOR`
//! (`always` / `never`, the environment form of `output.color`), then whether stdout is a
//! terminal. The choice is anstream's global one, so every `anstream::print!` follows it.

use std::io::IsTerminal;

/// The `--color` flag's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// Decides colour for the process (see the module doc) and makes it anstream's global choice.
pub fn init(flag: Option<ColorWhen>) {
    // The configuration is not loaded yet (an error loading it is printed in this colour).
    let from_env = loki_core::env::config_value("output.color");
    let choice = match flag {
        Some(ColorWhen::Always) => anstream::ColorChoice::AlwaysAnsi,
        Some(ColorWhen::Never) => anstream::ColorChoice::Never,
        Some(ColorWhen::Auto) => anstream::ColorChoice::Auto,
        None if loki_core::env::NO_COLOR.get_os().is_some() => anstream::ColorChoice::Never,
        None => match from_env.as_deref() {
            Some("always") => anstream::ColorChoice::AlwaysAnsi,
            Some("never") => anstream::ColorChoice::Never,
            _ if std::io::stdout().is_terminal() => anstream::ColorChoice::Auto,
            _ => anstream::ColorChoice::Never,
        },
    };
    choice.write_global();
}

/// Whether stderr gets colour, after [`init`].
#[must_use]
pub fn stderr_color() -> bool {
    match anstream::ColorChoice::global() {
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
        anstream::ColorChoice::Never => false,
        anstream::ColorChoice::Auto => std::io::stderr().is_terminal(),
    }
}
