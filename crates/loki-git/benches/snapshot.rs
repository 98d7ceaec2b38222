//! `Git::snapshot_worktree` (reads every file) and `Git::snapshot_worktree_cached` (seeded with
//! the checkout's index) on a repository of 5,000 files with one file changed, side by side with
//! `git status --porcelain` (git's own stat-cached look at the same tree): the engine snapshots
//! its worktree at every gate, verify round and put-back.
//! Prints the medians and the ratio; asserts nothing.
//!
//! Run: `cargo bench -p loki-git --bench snapshot`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::process::Command;
use std::time::{Duration, Instant};

use loki_git::Git;
use loki_test_support::GitRepo;

const FILES: usize = 5_000;
const ROUNDS: usize = 9;

fn median(mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..ROUNDS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[ROUNDS / 2]
}

fn main() {
    let repo = GitRepo::new();
    let body = "fn f() -> u32 { 42 }\n".repeat(200);
    for i in 0..FILES {
        repo.write(&format!("src/m{}/f{i}.rs", i % 50), &body);
    }
    repo.commit("base");
    repo.write("src/m0/f0.rs", "changed\n");
    let git = Git::new(repo.path());
    let snapshot = median(|| {
        std::hint::black_box(git.snapshot_worktree().unwrap());
    });
    let cached = median(|| {
        std::hint::black_box(git.snapshot_worktree_cached().unwrap());
    });
    let status = median(|| {
        let out = Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(repo.path())
            .output()
            .unwrap();
        assert!(out.status.success());
    });
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "snapshot: {FILES} files ({} KiB each), one changed, {ROUNDS} rounds, medians",
        body.len() / 1024
    );
    println!(
        "  git status --porcelain (baseline)  {:>8.1} ms",
        ms(status)
    );
    println!(
        "  Git::snapshot_worktree (every file) {:>7.1} ms",
        ms(snapshot)
    );
    println!(
        "  Git::snapshot_worktree_cached       {:>7.1} ms",
        ms(cached)
    );
    println!(
        "  ratio to status: full {:.1}x, cached {:.1}x",
        ms(snapshot) / ms(status),
        ms(cached) / ms(status)
    );
}
