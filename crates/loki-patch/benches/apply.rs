//! 1,000 search/replace edits to a 10,000-line file, side by side with a baseline that does the
//! same replacements with `str::replacen` (no uniqueness check, no ladder, no line numbers).
//! Also the same edits with whitespace-drifted snippets (the trailing-whitespace rung), which
//! must scan every line after the exact search fails. Prints per-edit times and ratios; asserts
//! nothing.
//!
//! Run: `cargo bench -p loki-patch --bench apply`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use loki_patch::{Rung, search_replace};

const LINES: usize = 10_000;
const EDITS: usize = 1_000;
/// Every this many lines of the file is one edited (10,000 / 1,000).
const STRIDE: usize = LINES / EDITS;

fn file() -> String {
    (0..LINES)
        .map(|i| format!("    let value_{i} = compute({i}, \"item {i}\");\n"))
        .collect()
}

fn snippet(i: usize) -> (String, String) {
    let n = i * STRIDE;
    (
        format!("    let value_{n} = compute({n}, \"item {n}\");\n"),
        format!("    let value_{n} = compute({n}, \"edited {n}\");\n"),
    )
}

fn per_edit(d: Duration) -> String {
    format!("{:.1} µs/edit", d.as_secs_f64() * 1e6 / EDITS as f64)
}

fn main() {
    let original = file();
    let edits: Vec<(String, String)> = (0..EDITS).map(snippet).collect();

    // Ours, exact rung.
    let t = Instant::now();
    let mut text = original.clone();
    for (search, replace) in &edits {
        let r = search_replace(&text, search, replace).unwrap();
        debug_assert_eq!(r.rung, Rung::Exact);
        text = r.text;
    }
    let ours = t.elapsed();
    let ours_text = black_box(text);

    // Baseline: replacen of the same snippets.
    let t = Instant::now();
    let mut text = original.clone();
    for (search, replace) in &edits {
        text = text.replacen(search.as_str(), replace, 1);
    }
    let base = t.elapsed();
    assert_eq!(black_box(text), ours_text, "ours and the baseline disagree");

    // Ours, drifted: trailing spaces the file does not have, so the exact rung fails first.
    let drifted: Vec<(String, String)> = edits
        .iter()
        .map(|(s, r)| (s.replace(";\n", ";   \n"), r.clone()))
        .collect();
    let t = Instant::now();
    let mut text = original.clone();
    for (search, replace) in &drifted {
        let r = search_replace(&text, search, replace).unwrap();
        debug_assert_eq!(r.rung, Rung::TrailingWhitespace);
        text = r.text;
    }
    let drift = t.elapsed();
    assert_eq!(
        black_box(text),
        ours_text,
        "drifted edits landed differently"
    );

    let ratio = |d: Duration| d.as_secs_f64() / base.as_secs_f64().max(f64::MIN_POSITIVE);
    println!(
        "{EDITS} search/replace edits to a {LINES}-line file ({} bytes)",
        original.len()
    );
    println!("  baseline str::replacen:        {}", per_edit(base));
    println!(
        "  loki-patch exact:              {}  ({:.1}x baseline)",
        per_edit(ours),
        ratio(ours)
    );
    println!(
        "  loki-patch trailing-whitespace: {}  ({:.1}x baseline)",
        per_edit(drift),
        ratio(drift)
    );
}
