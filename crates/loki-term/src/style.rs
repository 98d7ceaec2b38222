//! The four styles loki paints with, and the 12-column label every summary aligns on.
//!
//! Styles are written as ANSI sequences into the returned strings; the binary prints them through
//! anstream, which strips them when colour is off ([`crate::color`]). A renderer therefore never
//! asks whether colour is on.

use anstyle::{AnsiColor, Style};

/// Good news: VERIFIED, PASS, CLEAN, restored.
pub const GREEN: Style = AnsiColor::Green.on_default().bold();
/// Attention without failure: WARN, a warning, an interrupted log.
pub const YELLOW: Style = AnsiColor::Yellow.on_default().bold();
/// Failure: FAILED, FAIL, FINDING, a crash.
pub const RED: Style = AnsiColor::Red.on_default().bold();
/// Context the eye may skip: notes, timestamps, a command's own output.
pub const DIM: Style = Style::new().dimmed();

/// Width of a summary label (`Outcome:    `), as DESIGN.md's run summary pins it.
pub const LABEL_WIDTH: usize = 12;

/// Wraps `text` in `style` (stripped later by anstream when colour is off).
#[must_use]
pub fn paint(style: Style, text: &str) -> String {
    format!("{style}{text}{style:#}")
}

/// `l` padded to [`LABEL_WIDTH`] columns (longer labels are kept whole).
#[must_use]
pub fn label(l: &str) -> String {
    format!("{l:<LABEL_WIDTH$}")
}
