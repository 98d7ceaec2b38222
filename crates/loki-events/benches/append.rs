//! Appending 100,000 events, side by side with a baseline that writes the same bytes without
//! hashing or canonicalising. Prints both and the ratio; asserts nothing.
//!
//! Run: `cargo bench -p loki-events --bench append`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::cast_precision_loss,
    reason = "a benchmark prints its figures and fails loudly on a broken setup"
)]

use std::io::Write;
use std::time::Instant;

use loki_events::{EventType, EventWriter};
use serde_json::json;

const N: usize = 100_000;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("log");
    std::fs::create_dir_all(&run_dir).unwrap();
    let t = Instant::now();
    let mut w = EventWriter::open(&run_dir, "run_20261129_151736_beef").unwrap();
    for i in 0..N {
        w.append(
            EventType::ToolCalled,
            None,
            json!({"tool": "read_file", "path": "src/lib.rs", "i": i}),
        )
        .unwrap();
    }
    w.sync().unwrap();
    let ours = t.elapsed();
    drop(w);

    // Baseline: one write(2) per line of the same size on an O_APPEND fd, no hashing.
    let line = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
    let first = line.lines().next().unwrap().to_string() + "\n";
    let base_path = dir.path().join("baseline.jsonl");
    let t = Instant::now();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&base_path)
        .unwrap();
    for _ in 0..N {
        f.write_all(first.as_bytes()).unwrap();
    }
    f.sync_data().unwrap();
    let base = t.elapsed();

    let t = Instant::now();
    let s = loki_events::verify_log(&run_dir.join("events.jsonl"), None).unwrap();
    let verify = t.elapsed();
    assert_eq!(s.count, N as u64);

    println!(
        "append {N} events: {:.3}s ({:.2} us/event)",
        ours.as_secs_f64(),
        ours.as_secs_f64() * 1e6 / N as f64
    );
    println!(
        "baseline raw writes: {:.3}s; ratio {:.1}x",
        base.as_secs_f64(),
        ours.as_secs_f64() / base.as_secs_f64()
    );
    println!("verify {N} events: {:.3}s", verify.as_secs_f64());
    println!(
        "target: append under 2s -> {}",
        if ours.as_secs_f64() < 2.0 {
            "met"
        } else {
            "NOT met"
        }
    );
}
