//! The integrity scan's cost, side by side with its baselines: the pure rules over a 40-file change
//! against reading the same bytes once, and `scan_changes` on a real repository against listing
//! the change with `git diff-tree` alone. Prints both and the ratios; asserts nothing.
//!
//! Run: `cargo bench -p loki-integrity --bench integrity_scan`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::time::{Duration, Instant};

use loki_git::Git;
use loki_integrity::{FileChange, ScanInput, scan, scan_changes};
use loki_test_support::GitRepo;

const FILES: usize = 40;
const ROUNDS: u32 = 50;
const GIT_ROUNDS: u32 = 10;

fn test_file(i: usize, tests: usize) -> String {
    let mut s = String::from("import pytest\nfrom calc import add\n\n");
    for t in 0..tests {
        s.push_str(&format!(
            "def test_{i}_{t}():\n    # a comment with assert in it\n    assert add({t}, {i}) == {}\n    assert \"it(\" != 'x'\n\n",
            t + i
        ));
    }
    s
}

fn per_round(total: Duration, rounds: u32) -> f64 {
    total.as_secs_f64() * 1000.0 / f64::from(rounds)
}

fn main() {
    let changes: Vec<FileChange> = (0..FILES)
        .map(|i| FileChange {
            path: format!("tests/test_{i}.py"),
            base: Some(test_file(i, 30).into_bytes()),
            head: Some(test_file(i, 29).into_bytes()),
        })
        .collect();
    let input = ScanInput {
        changes,
        context: Vec::new(),
        ..Default::default()
    };
    let t = Instant::now();
    let mut findings = 0;
    for _ in 0..ROUNDS {
        findings += scan(&input).len();
    }
    let ours = per_round(t.elapsed(), ROUNDS);
    // Baseline: touching every byte once (lossy UTF-8 of both sides).
    let t = Instant::now();
    let mut chars = 0;
    for _ in 0..ROUNDS {
        for c in &input.changes {
            for side in [&c.base, &c.head].into_iter().flatten() {
                chars += String::from_utf8_lossy(side).chars().count();
            }
        }
    }
    let base = per_round(t.elapsed(), ROUNDS);
    println!(
        "scan (pure, {FILES} files, {} KiB): {ours:.2} ms/round; read bytes once: {base:.2} ms/round; ratio {:.1}x ({} findings)",
        chars / ROUNDS as usize / 1024,
        ours / base.max(1e-9),
        findings / ROUNDS as usize
    );

    let r = GitRepo::new();
    for i in 0..FILES {
        r.write(&format!("tests/test_{i}.py"), &test_file(i, 30));
    }
    r.write("calc.py", "def add(a, b):\n    return a + b\n");
    let base_commit = r.commit("base");
    for i in 0..FILES / 4 {
        r.write(&format!("tests/test_{i}.py"), &test_file(i, 29));
    }
    let g = Git::new(r.path());
    let head = g.snapshot_worktree().unwrap();
    let t = Instant::now();
    for _ in 0..GIT_ROUNDS {
        scan_changes(&g, &base_commit, &head).unwrap();
    }
    let ours = per_round(t.elapsed(), GIT_ROUNDS);
    let t = Instant::now();
    for _ in 0..GIT_ROUNDS {
        g.changes(&base_commit, &head).unwrap();
    }
    let base = per_round(t.elapsed(), GIT_ROUNDS);
    println!(
        "scan_changes ({} changed files): {ours:.1} ms; git diff-tree alone: {base:.1} ms; ratio {:.1}x",
        FILES / 4,
        ours / base.max(1e-9)
    );
}
