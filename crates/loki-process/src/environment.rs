//! The environments children start from: the usual one for test suites and tools ([`scrubbed_env`]:
//! secrets out, `CI=1 NO_COLOR=1` in), an observed command's ([`caller_env`]: the caller's own,
//! minus loki's secrets), and the pure filters under both; plus [`shell_quote`] for showing a
//! command line.

use std::ffi::OsString;

/// Variable names (upper-cased) that are dropped when they *contain* one of these words.
const SECRET_WORDS: &[&str] = &["TOKEN", "KEY", "SECRET", "PASSWORD", "CREDENTIAL"];
/// Variable names (upper-cased) that are dropped when they *start* with one of these prefixes.
const SECRET_PREFIXES: &[&str] = &[
    "AWS_",
    "ANTHROPIC_",
    "OPENAI_",
    "LOKI_RECEIPT_",
    "GITHUB_TOKEN",
];

/// Quotes `s` for display the way a POSIX shell would need it.
#[must_use]
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// True when an environment variable of this name may carry a credential and must not reach a child.
#[must_use]
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
        || SECRET_PREFIXES.iter().any(|p| upper.starts_with(p))
}

/// The current environment without secrets, plus `CI=1` and `NO_COLOR=1`, sorted by name.
#[must_use]
pub fn scrubbed_env() -> Vec<(OsString, OsString)> {
    scrub(std::env::vars_os())
}

/// [`scrubbed_env`] over any list of variables (pure, for tests and for callers that build one).
#[must_use]
pub fn scrub(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Vec<(OsString, OsString)> {
    let mut out: Vec<(OsString, OsString)> = without_secrets(vars)
        .into_iter()
        .filter(|(name, _)| name != "CI" && name != "NO_COLOR")
        .collect();
    out.push(("CI".into(), "1".into()));
    out.push(("NO_COLOR".into(), "1".into()));
    out.sort();
    out
}

/// `vars` without anything that looks like a secret ([`is_secret_name`]), in their order and
/// with nothing added (pure): `loki run --clean-env`, and what a reproduction starts from.
#[must_use]
pub fn without_secrets(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| !is_secret_name(&name.to_string_lossy()))
        .collect()
}

/// The environment of a command the user asked loki to *observe* (`loki run`): the caller's own,
/// unchanged, except for loki's own secrets ([`loki_core::env::is_loki_secret`]), which configure
/// loki and never the program. Nothing is added: an observed program must behave as it does
/// without loki.
#[must_use]
pub fn caller_env() -> Vec<(OsString, OsString)> {
    without_loki_secrets(std::env::vars_os())
}

/// [`caller_env`] over any list of variables (pure).
#[must_use]
pub fn without_loki_secrets(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
) -> Vec<(OsString, OsString)> {
    vars.into_iter()
        .filter(|(name, _)| !loki_core::env::is_loki_secret(&name.to_string_lossy()))
        .collect()
}
