//! Terminal output: colour decision, styles, and error printing.

use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};

use crate::cli::{ColorWhen, GlobalArgs};

pub const GREEN: Style = AnsiColor::Green.on_default().bold();
pub const YELLOW: Style = AnsiColor::Yellow.on_default().bold();
pub const RED: Style = AnsiColor::Red.on_default().bold();
pub const DIM: Style = Style::new().dimmed();

/// Decides colour once for the process: `--color` wins, then `NO_COLOR`, then `LOKI_OUTPUT_COLOR`,
/// then whether stdout is a terminal. anstream strips styles when the choice is off.
pub fn init_color(global: &GlobalArgs) {
    // The configuration is not loaded yet (an error loading it is printed in this colour).
    let from_env = loki_core::env::config_value("output.color");
    let choice = match global.color {
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

/// Whether stderr gets colour, after [`init_color`].
pub fn stderr_color() -> bool {
    match anstream::ColorChoice::global() {
        anstream::ColorChoice::Always | anstream::ColorChoice::AlwaysAnsi => true,
        anstream::ColorChoice::Never => false,
        anstream::ColorChoice::Auto => std::io::stderr().is_terminal(),
    }
}

/// Wraps `text` in `style` (stripped later by anstream when colour is off).
pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// Prints an error for `--json`: one object on stdout, `{"error", "causes", "exit_code"}`, so a
/// caller parsing stdout gets JSON on failure too (the words still go to stderr, [`error`]).
pub fn error_json(err: &anyhow::Error, exit_code: u8) {
    let causes: Vec<String> = err.chain().skip(1).map(ToString::to_string).collect();
    anstream::println!(
        "{}",
        serde_json::json!({ "error": err.to_string(), "causes": causes, "exit_code": exit_code })
    );
    error(err);
}

/// Prints an error and its causes to stderr as `error: … \n  caused by: …`.
pub fn error(err: &anyhow::Error) {
    let mut out = format!("{}: {err}", paint(RED, "error"));
    for cause in err.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    anstream::eprintln!("{out}");
}
