//! `verify` of a sealed receipt, in process, side by side with a baseline that only reads and
//! parses the same three files (receipt, envelope, event log) as JSON. Prints both and the ratio;
//! asserts nothing.
//!
//! Run: `cargo bench -p loki-receipt --bench verify`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::time::{Duration, Instant};

use ed25519_dalek::SigningKey;
use loki_core::run::RunKind;
use loki_events::{EventType, EventWriter};
use loki_protocol::CheckStatus;
use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::keys::private_key_pem_v1;
use loki_receipt::schema::{Check, WallFile, sha256_hex};
use loki_receipt::{
    KeyEnv, ReceiptBuilder, ReceiptFacts, Signer, VerifyInput, VerifyOptions, verify,
};
use serde_json::json;

/// Iterations per measurement: enough for a stable mean at about a millisecond each.
const ITERATIONS: u32 = 500;
/// Events in the log, about what a build run writes.
const EVENTS: usize = 200;

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let run_dir = tmp.path().join("run_20261129_151736_beef");
    std::fs::create_dir_all(&run_dir).unwrap();
    let env = KeyEnv {
        signing_key: Some(
            private_key_pem_v1(&SigningKey::from_bytes(&[1; 32]))
                .unwrap()
                .to_string(),
        ),
        ..KeyEnv::default()
    };
    let signer = Signer::load(None, &env).unwrap().unwrap();
    let mut w = EventWriter::open(&run_dir, "run_20261129_151736_beef").unwrap();
    for i in 0..EVENTS {
        w.append(
            EventType::ToolCalled,
            None,
            json!({"tool": "read_file", "i": i}),
        )
        .unwrap();
    }
    let mut f = ReceiptFacts::new("run_20261129_151736_beef", RunKind::Build);
    f.repo.head_sha = "1".repeat(40);
    f.repo.tree = "2".repeat(40);
    f.diff.files = 3;
    f.wall.files = vec![WallFile {
        path: "tests/wall.rs".into(),
        sha256: sha256_hex(b"w"),
    }];
    f.wall.passed = true;
    f.checks = (0..5)
        .map(|i| Check {
            name: format!("check {i}"),
            kind: loki_protocol::CheckRole::Tests,
            cmd: "cargo test".into(),
            result: CheckStatus::Pass,
            executed: 100,
            passed: 100,
            failed: 0,
            skipped: 0,
            duration_s: 3.5,
            log_sha256: sha256_hex(b"log"),
        })
        .collect();
    ReceiptBuilder::new(f)
        .seal(&run_dir, &mut w, &signer)
        .unwrap();
    drop(w);

    let opts = VerifyOptions {
        home: None,
        env,
        pubkey: None,
        allow_unsigned: false,
    };
    let input = VerifyInput::RunDir(run_dir.clone());
    assert_eq!(verify(&input, &opts).verdict, VerifyVerdict::Verified);

    let ours = time(|| {
        std::hint::black_box(verify(&input, &opts));
    });
    let base = time(|| {
        for name in ["receipt.json", "receipt.dsse.json"] {
            let v: serde_json::Value =
                serde_json::from_slice(&std::fs::read(run_dir.join(name)).unwrap()).unwrap();
            std::hint::black_box(v);
        }
        let text = std::fs::read_to_string(run_dir.join("events.jsonl")).unwrap();
        for line in text.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            std::hint::black_box(v);
        }
    });
    let log_only = time(|| {
        std::hint::black_box(loki_events::verify_log(&run_dir.join("events.jsonl"), None).unwrap());
    });
    println!(
        "verify (receipt + {EVENTS}-event log + signature): {:>9.1} us/op",
        ours.as_secs_f64() * 1e6
    );
    println!(
        "baseline (read + parse the same files):        {:>9.1} us/op",
        base.as_secs_f64() * 1e6
    );
    println!(
        "of which the event log chain alone:            {:>9.1} us/op",
        log_only.as_secs_f64() * 1e6
    );
    println!("ratio: {:.1}x", ours.as_secs_f64() / base.as_secs_f64());
}

fn time(mut f: impl FnMut()) -> Duration {
    f();
    let t = Instant::now();
    for _ in 0..ITERATIONS {
        f();
    }
    t.elapsed() / ITERATIONS
}
