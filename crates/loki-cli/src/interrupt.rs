//! Ctrl-C and `SIGTERM`: the process's one signal handler is [`loki_process::signals`] (its module
//! doc is the spec); the binary installs it with [`print_note`], how an interruption is told.

use loki_process::Cancel;
pub use loki_process::signals::{at_prompt, left, signal_name};
use loki_protocol::outcome::ExitCode;

use loki_term::{YELLOW, paint};

/// Prints what an interrupted command left: `loki: interrupted (SIGINT): …`.
fn print_note(signal: &str, note: &str) {
    anstream::eprintln!("{}: interrupted ({signal}): {note}", paint(YELLOW, "loki"));
}

/// Installs the handler for a build: the first signal sets the returned token.
pub fn install_cancel(note: impl Into<String>) -> anyhow::Result<Cancel> {
    Ok(loki_process::signals::install_cancel(note, print_note)?)
}

/// Installs the handler with `note` as what an interruption now would leave.
pub fn install(note: impl Into<String>) -> anyhow::Result<()> {
    Ok(loki_process::signals::install(note, print_note)?)
}

/// At the end of every command: the exit code loki must end with when a signal came, after the
/// note was printed (once).
pub fn finish() -> Option<ExitCode> {
    loki_process::signals::finish()
}
