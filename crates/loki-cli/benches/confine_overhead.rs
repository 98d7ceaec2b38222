//! What the Landlock confinement costs each command the agent or a check runs: `loki __confine
//! <the engine's kind of policy> -- true` side by side with `true` alone, and with `loki version`
//! (the cost of starting the binary at all). Prints the medians, the differences and the ratio;
//! asserts nothing.
//!
//! Run: `cargo bench -p loki-cli --bench confine_overhead`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const RUNS: usize = 60;

fn median(mut cmd: impl FnMut() -> Command) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let mut c = cmd();
            c.stdout(std::process::Stdio::null());
            let t = Instant::now();
            let status = c.status().unwrap();
            let e = t.elapsed();
            assert!(status.success());
            e
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn main() {
    let loki = PathBuf::from(env!("CARGO_BIN_EXE_loki"));
    if !loki_process::confine::available() {
        println!("confine_overhead: Landlock is not available on this kernel; nothing to measure");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    for d in [".loki/keys", ".ssh", ".aws"] {
        std::fs::create_dir_all(home.path().join(d)).unwrap();
    }
    std::fs::create_dir_all(repo.path().join(".loki/runs")).unwrap();
    std::fs::create_dir_all(repo.path().join(".loki/worktrees/run_a")).unwrap();
    // The shape of the engine's policy: loki's home, the run records, credentials denied; the
    // worktree, a private dir, /tmp and /dev writable; the checkout read-only.
    let policy = loki_process::confine::Policy {
        deny: vec![
            home.path().join(".loki"),
            repo.path().join(".loki/runs"),
            home.path().join(".ssh"),
            home.path().join(".aws"),
        ],
        write: vec![
            repo.path().join(".loki/worktrees/run_a"),
            std::env::temp_dir(),
            PathBuf::from("/dev"),
        ],
        read_only: vec![repo.path().to_path_buf()],
        list: Vec::new(),
        pinned: Vec::new(),
        masked: Vec::new(),
        network: loki_process::confine::Network::Denied,
        egress_ports: Vec::new(),
    };
    let argv = policy.wrapper(&loki);
    let plain = median(|| Command::new("true"));
    let start = median(|| {
        let mut c = Command::new(&loki);
        c.arg("version");
        c
    });
    let confined = median(|| {
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]).arg("true");
        c
    });
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("confine_overhead: {RUNS} runs each, medians");
    println!("  true                          {:>7.2} ms", ms(plain));
    println!("  loki version (binary start)   {:>7.2} ms", ms(start));
    println!("  loki __confine … -- true      {:>7.2} ms", ms(confined));
    println!(
        "  confinement adds {:.2} ms per command ({:.1}x a bare `true`; {:.2} ms beyond starting loki)",
        ms(confined) - ms(plain),
        ms(confined) / ms(plain),
        ms(confined) - ms(start)
    );
}
