//! What `loki seal stop` adds to the suite's own run time, on a small pytest repository.
//!
//! Side by side in one run: the suite run directly (`python3 -m pytest -q`, plain
//! `std::process`), the same suite through loki's process runner (`run_check`: JUnit report,
//! scrubbed environment, log file), then `loki_seal::stop` after one `start`, on an unchanged tree
//! (a "no change" stop: nothing runs)
//! and on a tree with a clean source change, each round next to a direct run (the machine's load
//! drifts; pairing cancels it). Prints the medians, the median paired overhead over the direct run
//! and the ratio, and a breakdown of the stop's own steps measured one by one (snapshot,
//! integrity scan, original tests). The target is an overhead of at most 300 ms. Asserts nothing.
//!
//! Run: `cargo bench -p loki-seal --bench stop_overhead` (needs `python3` with pytest).

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use loki_checks::judge::{JudgeInput, judge};
use loki_git::Git;
use loki_integrity::scan_changes;
use loki_receipt::KeyEnv;
use loki_runner::{RunOptions, detect, run_check};
use loki_seal::{Decision, HookInput, SealOptions};
use loki_test_support::GitRepo;

/// Rounds per measurement; the median is reported (pytest's start-up varies run to run).
const ROUNDS: usize = 9;
/// The overhead the seal promises to stay under.
const TARGET: Duration = Duration::from_millis(300);
/// Tests in the fixture: a small real suite, not an empty one.
const TESTS: usize = 20;

const CALC: &str = "def add(a, b):\n    return a + b\n";

fn test_file() -> String {
    let mut s = String::from("from calc import add\n\n");
    for i in 0..TESTS {
        s.push_str(&format!(
            "\ndef test_add_{i}():\n    assert add({i}, 1) == {}\n",
            i + 1
        ));
    }
    s
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn timed(rounds: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn pytest_direct(root: &Path) {
    let ok = Command::new("python3")
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .current_dir(root)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "the fixture suite must pass");
}

fn stop_allows(root: &Path, input: &HookInput, opts: &SealOptions) {
    let report = loki_seal::stop(root, input, opts).unwrap();
    assert!(
        matches!(report.decision, Decision::Allow { .. }),
        "{:?}",
        report.decision
    );
}

/// Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ, 100 on Linux).
const TICKS_PER_S: u64 = 100;

/// CPU time (user + sys) of this process and of every child it has waited for, from
/// `/proc/self/stat`. Unlike wall time it hardly moves with other processes' load, so it shows
/// the seal's own cost on a busy machine (zero where `/proc` is absent).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    // Fields 14-17 (utime, stime, cutime, cstime); `after_name` starts at field 3.
    let ticks: u64 = after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 1000 / TICKS_PER_S)
}

/// Wall time and CPU time of `f`.
fn once(f: impl FnOnce()) -> (Duration, Duration) {
    let (t, c) = (Instant::now(), cpu());
    f();
    (t.elapsed(), cpu().saturating_sub(c))
}

/// A measurement and the direct suite run made right before it, round by round.
#[derive(Default)]
struct Paired {
    direct: Vec<Duration>,
    measured: Vec<Duration>,
    direct_cpu: Vec<Duration>,
    measured_cpu: Vec<Duration>,
}

impl Paired {
    fn push(&mut self, direct: (Duration, Duration), measured: (Duration, Duration)) {
        self.direct.push(direct.0);
        self.measured.push(measured.0);
        self.direct_cpu.push(direct.1);
        self.measured_cpu.push(measured.1);
    }

    /// (measured - direct) per round, in ms, in round order.
    fn overheads_ms(&self) -> Vec<f64> {
        self.direct
            .iter()
            .zip(&self.measured)
            .map(|(a, b)| ms(*b) - ms(*a))
            .collect()
    }

    /// Median over rounds of (measured - direct), in ms.
    fn overhead_ms(&self) -> f64 {
        let mut d = self.overheads_ms();
        d.sort_by(f64::total_cmp);
        d[d.len() / 2]
    }

    fn print(&self, label: &str) {
        let (direct, measured) = (median(self.direct.clone()), median(self.measured.clone()));
        let over = self.overhead_ms();
        println!(
            "{label:<44} {:>8.1} ms   overhead {over:>7.1} ms   ratio {:.2}x{}",
            ms(measured),
            ms(measured) / ms(direct),
            if over <= ms(TARGET) {
                ""
            } else {
                "   OVER TARGET"
            }
        );
        // Every round, so load spikes from other processes are visible as outliers.
        let rounds: Vec<String> = self
            .overheads_ms()
            .iter()
            .map(|o| format!("{o:.0}"))
            .collect();
        println!("{:<44} per round (ms): {}", "", rounds.join(" "));
        let (dc, mc) = (
            median(self.direct_cpu.clone()),
            median(self.measured_cpu.clone()),
        );
        println!(
            "{:<44} cpu {:>8.1} ms vs {:.1} ms direct: overhead {:.1} ms",
            "",
            ms(mc),
            ms(dc),
            ms(mc) - ms(dc)
        );
    }
}

fn main() {
    let repo = GitRepo::new();
    repo.write("calc.py", CALC)
        .write("tests/test_calc.py", &test_file())
        .write("pytest.ini", "[pytest]\npythonpath = .\n")
        .write(".gitignore", ".loki/\n");
    let base = repo.commit("base");
    let root = repo.path();
    let home = tempfile::tempdir().unwrap();
    let opts = SealOptions {
        home: home.path().to_path_buf(),
        run: RunOptions::new(home.path().join("logs")),
        max_blocks: 5,
        keys: KeyEnv::default(),
        expectation_changes: loki_seal::declare::Mode::default(),
    };
    let input = HookInput {
        session_id: Some("bench".into()),
        ..HookInput::default()
    };

    // Warm-up: Python's imports, git's object store, the signing key (created once per home).
    pytest_direct(root);
    let t = Instant::now();
    loki_seal::start(root, &input, &opts, false).unwrap();
    let start = t.elapsed();
    stop_allows(root, &input, &opts);

    let checks = detect(root).unwrap();
    let logs = tempfile::tempdir().unwrap();
    let run = RunOptions::new(logs.path());
    // Interleaved rounds: the machine's load drifts, and each stop is compared with the direct run
    // next to it, so the drift cancels out of the overhead.
    let mut unchanged = Paired::default();
    let mut runner = Paired::default();
    for _ in 0..ROUNDS {
        let direct = once(|| pytest_direct(root));
        unchanged.push(direct, once(|| stop_allows(root, &input, &opts)));
        runner.push(
            direct,
            once(|| {
                run_check(&checks[0], &run).unwrap();
            }),
        );
    }
    repo.write(
        "calc.py",
        &format!("{CALC}\n\ndef sub(a, b):\n    return a - b\n"),
    );
    // An allowed stop moves the worktree's baseline to the tree it judged: each round starts
    // again from the session start's baseline, so every round judges the same change.
    let state_path = loki_seal::worktree_state_path(&opts.home, root);
    let started = std::fs::read(&state_path).unwrap();
    let mut changed = Paired::default();
    for _ in 0..ROUNDS {
        std::fs::write(&state_path, &started).unwrap();
        let direct = once(|| pytest_direct(root));
        changed.push(direct, once(|| stop_allows(root, &input, &opts)));
    }

    // The stop's own steps, one at a time, on the changed tree.
    let git = Git::new(root);
    let snapshot = timed(ROUNDS, || {
        let tree = git.snapshot_worktree().unwrap();
        git.commit_tree(&tree, "bench").unwrap();
    });
    let head_tree = git.snapshot_worktree().unwrap();
    let scan = timed(ROUNDS, || {
        scan_changes(&git, &base, &head_tree).unwrap();
    });
    let head = vec![run_check(&checks[0], &run).unwrap()];
    let cache = tempfile::tempdir().unwrap();
    let original = timed(ROUNDS, || {
        judge(&JudgeInput {
            repo_root: root,
            head_root: root,
            base: &base,
            head_tree: &head_tree,
            checks: &checks,
            base_results: Some(&head),
            head_results: Some(&head),
            opts: &run,
            cache_dir: cache.path(),
            exclude: &[],
        })
        .unwrap();
    });

    println!(
        "loki seal stop overhead: pytest repo with {TESTS} tests, medians of {ROUNDS} interleaved rounds (target: at most {} ms over the direct run)",
        TARGET.as_millis()
    );
    println!(
        "{:<44} {:>8.1} ms",
        "suite directly (python3 -m pytest -q)",
        ms(median(unchanged.direct.clone()))
    );
    println!(
        "{:<44} cpu {:>8.1} ms",
        "",
        ms(median(unchanged.direct_cpu.clone()))
    );
    runner.print("suite through loki's runner (run_check)");
    unchanged.print("seal stop, unchanged tree");
    changed.print("seal stop, clean source change");
    println!(
        "{:<44} {:>8.1} ms   (once; runs the suite too)",
        "seal start",
        ms(start)
    );
    println!("stop's steps other than the suite, measured alone:");
    println!(
        "  {:<42} {:>8.1} ms",
        "snapshot (tree + commit)",
        ms(snapshot)
    );
    println!("  {:<42} {:>8.1} ms", "integrity scan", ms(scan));
    println!(
        "  {:<42} {:>8.1} ms",
        "judge, suites given (no test modified)",
        ms(original)
    );
}
