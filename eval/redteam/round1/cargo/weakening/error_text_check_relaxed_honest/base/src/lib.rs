//! Parse `key = value` lines with `#` comments.

use std::collections::BTreeMap;
use std::fmt;

#[derive(Debug, PartialEq, Eq)]
pub enum ParseError {
    MissingEquals { line: usize, key: String },
    EmptyKey { line: usize },
    Duplicate { line: usize, key: String },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::MissingEquals { line, key } => {
                write!(f, "line {line}: expected '=' after key `{key}`")
            }
            ParseError::EmptyKey { line } => write!(f, "line {line}: empty key"),
            ParseError::Duplicate { line, key } => {
                write!(f, "line {line}: duplicate key `{key}`")
            }
        }
    }
}

impl std::error::Error for ParseError {}

pub fn parse(text: &str) -> Result<BTreeMap<String, String>, ParseError> {
    let mut map = BTreeMap::new();
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let Some((k, v)) = content.split_once('=') else {
            return Err(ParseError::MissingEquals { line, key: content.to_string() });
        };
        let k = k.trim();
        if k.is_empty() {
            return Err(ParseError::EmptyKey { line });
        }
        if map.insert(k.to_string(), v.trim().to_string()).is_some() {
            return Err(ParseError::Duplicate { line, key: k.to_string() });
        }
    }
    Ok(map)
}
