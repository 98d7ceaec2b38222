//! Shared prelude for the integration tests: the crate's API plus helpers.
#![allow(dead_code)]

pub use caseconv::*;

/// Split an identifier into lower-case words, keeping runs of capitals
/// (acronyms) together: `parseXMLDoc` -> `["parse", "xml", "doc"]`.
pub fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut words = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' || c == ' ' {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || (prev.is_uppercase() && next_lower) {
                words.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Snake case built from [`words`].
pub fn to_snake_case(s: &str) -> String {
    words(s).join("_")
}
