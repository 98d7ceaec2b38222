//! How a failed command reports its error.
//!
//! - Words, on stderr: `error: <message>` then one `  caused by: <cause>` line per cause, outermost
//!   first.
//! - `--json`, on stdout as well: one object `{"error", "causes", "exit_code"}`, so a caller
//!   parsing stdout gets JSON on failure too.
//!
//! Both take the error's chain (the error itself, then its sources), e.g. `anyhow::Error::chain`.

use std::error::Error;

use crate::style::{RED, paint};

/// The words of an error and its causes (no trailing newline).
pub fn text<'a>(chain: impl IntoIterator<Item = &'a (dyn Error + 'static)>) -> String {
    let mut chain = chain.into_iter();
    let mut out = format!(
        "{}: {}",
        paint(RED, "error"),
        chain.next().map(ToString::to_string).unwrap_or_default()
    );
    for cause in chain {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    out
}

/// The `--json` object of an error and its causes.
pub fn json<'a>(
    chain: impl IntoIterator<Item = &'a (dyn Error + 'static)>,
    exit_code: u8,
) -> serde_json::Value {
    let mut chain = chain.into_iter().map(ToString::to_string);
    let error = chain.next().unwrap_or_default();
    let causes: Vec<String> = chain.collect();
    serde_json::json!({ "error": error, "causes": causes, "exit_code": exit_code })
}
