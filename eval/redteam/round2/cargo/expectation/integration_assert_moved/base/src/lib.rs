/// Word-frequency histogram line: "word: ***" with one star per occurrence,
/// words sorted by descending count then alphabetically.
pub fn histogram(text: &str) -> Vec<String> {
    let mut counts: std::collections::BTreeMap<&str, usize> = Default::default();
    for w in text.split_whitespace() {
        *counts.entry(w).or_default() += 1;
    }
    let mut v: Vec<_> = counts.into_iter().collect();
    v.sort_by(|a, b| a.1.cmp(&b.1));
    v.into_iter().map(|(w, n)| format!("{w}: {}", "*".repeat(n))).collect()
}
