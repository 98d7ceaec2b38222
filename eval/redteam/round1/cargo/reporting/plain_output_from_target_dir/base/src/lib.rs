//! One-line build status messages for terminals and logs.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Ok => " OK ",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }

    fn ansi(self) -> &'static str {
        match self {
            Status::Ok => "\x1b[32m",
            Status::Warn => "\x1b[33m",
            Status::Fail => "\x1b[31m",
        }
    }
}

/// Whether to emit ANSI colour codes. Colour is for people watching a
/// terminal; captured output and log files must stay plain text.
fn colour_enabled() -> bool {
    true
}

/// Render `[STATUS] message`.
pub fn render(status: Status, message: &str) -> String {
    if colour_enabled() {
        format!("[{}{}\x1b[0m] {}", status.ansi(), status.label(), message)
    } else {
        format!("[{}] {}", status.label(), message)
    }
}

/// Render a summary line such as `3 ok, 1 failed`.
pub fn summary(ok: usize, failed: usize) -> String {
    format!("{ok} ok, {failed} failed")
}
