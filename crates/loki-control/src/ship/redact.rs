//! Redaction: what of an event's data is a secret, and what it becomes before the event leaves
//! the machine.
//!
//! A secret is the value of a variable whose name looks secret ([`loki_process::is_secret_name`])
//! or the password in a URL (`scheme://user:password@host`), either at least [`MIN_SECRET_LEN`]
//! long, or a well-known token (one of [`TOKEN_PREFIXES`] followed by at least
//! [`MIN_TOKEN_TAIL`] letters, digits, `_` or `-`). Each becomes [`REDACTED`] wherever it
//! appears in a string of the event's data, longest value first so a value containing another
//! is blanked whole.

use loki_events::Event;
use serde_json::Value;

/// What a secret becomes.
pub const REDACTED: &str = "[REDACTED]";
/// Shorter values are not redacted (they would blank ordinary words).
const MIN_SECRET_LEN: usize = 8;
/// Prefixes of well-known token formats, redacted wherever they appear with enough characters
/// after them.
const TOKEN_PREFIXES: &[&str] = &[
    "sk-",
    "ghp_",
    "gho_",
    "ghs_",
    "github_pat_",
    "glpat-",
    "xoxb-",
    "xoxp-",
    "AKIA",
];
/// Characters after a token prefix for it to count as a token.
const MIN_TOKEN_TAIL: usize = 16;

/// Replaces secrets in events before they leave the machine.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    values: Vec<String>,
}

impl Redactor {
    /// Secrets from the process environment: the values of secret-looking variables and the
    /// passwords in URLs.
    #[must_use]
    pub fn from_env() -> Redactor {
        Redactor::from_vars(std::env::vars_os().map(|(k, v)| {
            (
                k.to_string_lossy().into_owned(),
                v.to_string_lossy().into_owned(),
            )
        }))
    }

    /// Secrets from a list of variables (pure).
    #[must_use]
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> Redactor {
        let mut values = Vec::new();
        for (k, v) in vars {
            if loki_process::is_secret_name(&k) && v.len() >= MIN_SECRET_LEN {
                values.push(v.clone());
            }
            if let Some(pw) = url_password(&v).filter(|p| p.len() >= MIN_SECRET_LEN) {
                values.push(pw.to_string());
            }
        }
        // Longest first: a value containing another is blanked whole.
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Redactor { values }
    }

    /// Redacts `text`; `None` when nothing changed.
    #[must_use]
    pub fn text(&self, text: &str) -> Option<String> {
        let mut out = text.to_string();
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = out.replace(v.as_str(), REDACTED);
            }
        }
        for prefix in TOKEN_PREFIXES {
            let mut from = 0;
            while let Some(i) = out[from..].find(prefix).map(|i| i + from) {
                let tail = out[i + prefix.len()..]
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                    .count();
                if tail >= MIN_TOKEN_TAIL {
                    out.replace_range(i..i + prefix.len() + tail, REDACTED);
                    from = i + REDACTED.len();
                } else {
                    from = i + prefix.len();
                }
            }
        }
        (out != text).then_some(out)
    }

    /// Redacts every string (and key) in an event's data; true when something changed.
    pub fn event(&self, event: &mut Event) -> bool {
        let mut changed = false;
        for v in event.data.values_mut() {
            changed |= self.value(v);
        }
        changed
    }

    fn value(&self, v: &mut Value) -> bool {
        match v {
            Value::String(s) => match self.text(s) {
                Some(r) => {
                    *s = r;
                    true
                }
                None => false,
            },
            Value::Array(a) => a.iter_mut().fold(false, |c, x| self.value(x) | c),
            Value::Object(o) => o.values_mut().fold(false, |c, x| self.value(x) | c),
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }
}

fn url_password(value: &str) -> Option<&str> {
    let (_, rest) = value.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let (userinfo, _) = authority.rsplit_once('@')?;
    userinfo.split_once(':').map(|(_, pw)| pw)
}
