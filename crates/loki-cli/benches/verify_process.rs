//! `loki verify` end to end as a process, side by side with `loki version` (the cost of starting
//! the binary at all). Prints both, the difference and the ratio; asserts nothing.
//!
//! Run: `cargo bench -p loki-cli --bench verify_process`.

#![expect(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "a benchmark prints its figures, stops loudly on a broken fixture, and writes and runs its fixtures directly"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStatus, RunStore};
use loki_events::{EventType, EventWriter};
use loki_protocol::CheckStatus;
use loki_receipt::schema::{Check, WallFile, sha256_hex};
use loki_receipt::{KeyEnv, ReceiptBuilder, ReceiptFacts, Signer};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::json;

const RUNS: u32 = 30;
/// A build run logs tens to a few hundred events; 300 is a long one.
const EVENTS: usize = 300;

fn seal(sb: &Sandbox, repo: &GitRepo) {
    repo.write("a.txt", "a\n");
    let head = repo.commit("base");
    let store = RunStore::new(Repo::discover(repo.path()).unwrap());
    let mut rec = store
        .start(RunKind::Build, Some("bench".into()), vec![])
        .unwrap();
    let dir = store.dir(&rec.id);
    let mut log = EventWriter::open(&dir, rec.id.as_str()).unwrap();
    for i in 0..EVENTS {
        log.append(
            EventType::ToolCalled,
            None,
            json!({"tool": "read_file", "path": "src/lib.rs", "i": i}),
        )
        .unwrap();
    }
    let mut f = ReceiptFacts::new(rec.id.as_str(), RunKind::Build);
    f.repo.base_sha.clone_from(&head);
    f.repo.head_sha = head;
    f.diff.files = 1;
    f.diff.sha256 = sha256_hex(b"d");
    f.wall.passed = true;
    f.wall.files = vec![WallFile {
        path: "w".into(),
        sha256: sha256_hex(b"w"),
    }];
    f.checks = vec![Check {
        name: "cargo".into(),
        kind: loki_protocol::CheckRole::Tests,
        cmd: "cargo test".into(),
        result: CheckStatus::Pass,
        executed: 10,
        passed: 10,
        failed: 0,
        skipped: 0,
        duration_s: 1.0,
        log_sha256: sha256_hex(b"l"),
    }];
    let signer = Signer::load_or_create(&sb.loki_home(), &KeyEnv::default()).unwrap();
    ReceiptBuilder::new(f)
        .seal(&dir, &mut log, &signer)
        .unwrap();
    store
        .finish(&mut rec, RunStatus::Completed, None, None)
        .unwrap();
}

fn time(sb: &Sandbox, dir: &Path, args: &[&str]) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..RUNS {
        let mut c = Command::new(env!("CARGO_BIN_EXE_loki"));
        sb.apply(&mut c).current_dir(dir).args(args);
        let t = Instant::now();
        let out = c.output().unwrap();
        total += t.elapsed();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    total / RUNS
}

fn main() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    seal(&sb, &repo);
    let base = time(&sb, repo.path(), &["version"]);
    let verify = time(&sb, repo.path(), &["verify"]);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("loki version (process baseline): {:.2} ms", ms(base));
    println!(
        "loki verify ({EVENTS}-event log):   {:.2} ms  (+{:.2} ms, {:.1}x)",
        ms(verify),
        ms(verify) - ms(base),
        ms(verify) / ms(base)
    );
    println!(
        "target: under 20 ms -> {}",
        if ms(verify) < 20.0 { "met" } else { "NOT met" }
    );
}
