//! How a failed command reports its error.
//!
//! - Words, on stderr: `error: <message>` then one `  caused by: <cause>` line per cause, outermost
//!   first.
//! - `--json`, on stdout as well: one object `{"error", "causes", "exit_code"}`, so a caller
//!   parsing stdout gets JSON on failure too.
//!
//! - A command line the parser refused, under `--json`: the same object, from the parser's
//!   message ([`usage_json`]).
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

/// The `--json` object of a command line the parser refused, from its rendered message: the
/// first line is the error, the others its causes (`error: ` dropped, blank lines left out).
pub fn usage_json(rendered: &str, exit_code: u8) -> serde_json::Value {
    let mut lines = rendered
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.trim_start_matches("error: ").to_string());
    let error = lines.next().unwrap_or_default();
    serde_json::json!({"error": error, "causes": lines.collect::<Vec<_>>(), "exit_code": exit_code})
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An error with one cause, as a library's error wraps an io error.
    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("cannot read run.json")
        }
    }

    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    fn chain<'a>(e: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
        std::iter::successors(Some(e), |e| (*e).source()).collect()
    }

    #[test]
    fn an_error_names_each_cause_on_its_own_line_and_in_json() {
        let err = Outer(std::io::Error::other("permission denied"));
        let words = text(chain(&err));
        assert_eq!(
            anstream::adapter::strip_str(&words).to_string(),
            "error: cannot read run.json\n  caused by: permission denied"
        );
        assert!(words.starts_with(&paint(RED, "error")), "{words:?}");
        assert_eq!(
            json(chain(&err), 1),
            serde_json::json!({"error": "cannot read run.json",
                "causes": ["permission denied"], "exit_code": 1})
        );
    }
}
