//! What `loki run` adds to a quick command: the command run directly vs. under observation
//! (run record, event log, process runner), side by side in one process. Target: under 50 ms.
//!
//! `cargo bench -p loki-heal --bench run_overhead`. With `LOKI_BIN=/path/to/loki` set, the whole
//! binary (`loki run -- true`, including start-up and config loading) is measured as well.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use loki_core::layout::Repo;
use loki_heal::{ObserveOptions, Observed, observe};

/// Runs per measurement: enough for a stable median on a busy two-core machine.
const RUNS: usize = 40;
/// The quick command: exits at once, so the difference is loki's own cost.
const COMMAND: &str = "true";

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn measure(mut f: impl FnMut()) -> Duration {
    f(); // warm-up: page cache, dynamic loader
    median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let repo = Repo::discover(dir.path()).unwrap();
    let direct = measure(|| {
        let s = Command::new(COMMAND).stdin(Stdio::null()).status().unwrap();
        assert!(s.success());
    });
    let opts = ObserveOptions {
        command: vec![COMMAND.into()],
        cwd: repo.root.clone(),
        seed: Some(1),
        timeout: Duration::from_secs(30),
        argv: vec!["loki".into(), "run".into(), "--".into(), COMMAND.into()],
        clean_env: false,
        browser: None,
    };
    let observed = measure(|| {
        let o = observe(&repo, &opts).unwrap();
        assert!(matches!(o, Observed::Clean { .. }));
    });
    println!("run_overhead ({RUNS} runs each, median)");
    println!("  {COMMAND} directly:            {:>8.2} ms", ms(direct));
    println!(
        "  observe(): loki run -- {COMMAND}: {:>8.2} ms",
        ms(observed)
    );
    println!(
        "  added by loki run (library):  {:>8.2} ms  (ratio {:.1}x; target < 50 ms)",
        ms(observed.saturating_sub(direct)),
        observed.as_secs_f64() / direct.as_secs_f64()
    );
    if let Some(bin) = loki_core::env::BENCH_BIN.get_os() {
        let home = tempfile::tempdir().unwrap();
        let whole = measure(|| {
            let s = Command::new(&bin)
                .args(["run", "--", COMMAND])
                .current_dir(&repo.root)
                .env("LOKI_HOME", home.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(s.success());
        });
        println!(
            "  loki binary: loki run -- {COMMAND}: {:>8.2} ms  (added {:.2} ms, ratio {:.1}x)",
            ms(whole),
            ms(whole.saturating_sub(direct)),
            whole.as_secs_f64() / direct.as_secs_f64()
        );
    } else {
        println!("  (set LOKI_BIN to a loki binary to measure the whole command too)");
    }
}
