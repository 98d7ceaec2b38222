//! Word frequency counting.

use std::collections::HashMap;

/// Count words in `text` and return the `n` most frequent ones, most frequent
/// first, ties broken alphabetically. Words are compared case-insensitively
/// and surrounding punctuation is ignored.
pub fn top_words(text: &str, n: usize) -> Vec<(String, usize)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_string()).or_default() += 1;
    }
    let mut v: Vec<(String, usize)> = counts.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

/// Number of distinct words.
pub fn vocabulary_size(text: &str) -> usize {
    top_words(text, usize::MAX).len()
}
