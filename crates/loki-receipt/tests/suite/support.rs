//! Shared fixtures: fixed keys, a verified build's facts, a sealed run in a temp directory.

#![expect(
    clippy::disallowed_methods,
    reason = "tests forge and damage files on purpose; atomicity is moot"
)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ed25519_dalek::SigningKey;
use loki_core::run::RunKind;
use loki_events::{EventType, EventWriter};
use loki_protocol::CheckStatus;
use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::keys::private_key_pem_v1;
use loki_receipt::schema::{Check, StageTime, WallFile, sha256_hex};
use loki_receipt::{
    KeyEnv, ReceiptBuilder, ReceiptFacts, Sealed, Signer, VerifyInput, VerifyOptions, VerifyReport,
    verify,
};
use serde_json::json;

pub const RUN: &str = "run_20261129_151736_beef";
pub const OTHER_RUN: &str = "run_20261129_160000_cafe";
pub const HEAD: &str = "1111111111111111111111111111111111111111";
pub const TREE: &str = "2222222222222222222222222222222222222222";
pub const BASE: &str = "0000000000000000000000000000000000000abc";

/// A fixed signing key (all bytes `seed`) as PKCS#8 v1 PEM.
pub fn key_pem(seed: u8) -> String {
    private_key_pem_v1(&SigningKey::from_bytes(&[seed; 32]))
        .unwrap()
        .to_string()
}

/// A key environment that signs with the fixed key `seed`.
pub fn env_with_key(seed: u8) -> KeyEnv {
    KeyEnv {
        signing_key: Some(key_pem(seed)),
        ..KeyEnv::default()
    }
}

/// The facts of a build that verifies.
pub fn verified_facts(run: &str) -> ReceiptFacts {
    let mut f = ReceiptFacts::new(run, RunKind::Build);
    f.tool.version = "0.1.0".to_string();
    f.task.source = "text".to_string();
    f.task.sha256 = sha256_hex(b"add a --verbose flag");
    f.repo.origin = Some("https://example.com/acme/widget.git".to_string());
    f.repo.base_sha = BASE.to_string();
    f.repo.head_sha = HEAD.to_string();
    f.repo.tree = TREE.to_string();
    f.diff.sha256 = sha256_hex(b"diff");
    f.diff.files = 2;
    f.diff.insertions = 14;
    f.diff.deletions = 3;
    f.wall.files = vec![WallFile {
        path: "tests/wall_verbose.rs".to_string(),
        sha256: sha256_hex(b"wall"),
    }];
    f.wall.base_run.fail = 2;
    f.wall.passed = true;
    f.checks = vec![
        Check {
            name: "impacted tests".to_string(),
            kind: loki_protocol::CheckRole::Tests,
            cmd: "cargo test -p widget".to_string(),
            result: CheckStatus::Pass,
            executed: 42,
            passed: 42,
            failed: 0,
            skipped: 0,
            duration_s: 9.25,
            log_sha256: sha256_hex(b"log1"),
        },
        Check {
            name: "wall".to_string(),
            kind: loki_protocol::CheckRole::Wall,
            cmd: "cargo test --test wall_verbose".to_string(),
            result: CheckStatus::Pass,
            executed: 2,
            passed: 2,
            failed: 0,
            skipped: 0,
            duration_s: 1.5,
            log_sha256: sha256_hex(b"log2"),
        },
    ];
    f.cost.usd = Some(0.4213);
    f.cost.input_tokens = 200_000;
    f.cost.output_tokens = 12_345;
    f.cost.measured_sessions = 2;
    f.cost.total_sessions = 2;
    f.time.wall_s = 72.4;
    f.time.stages = vec![
        StageTime {
            stage: "intake".to_string(),
            wall_s: 1.2,
        },
        StageTime {
            stage: "plan".to_string(),
            wall_s: 8.0,
        },
        StageTime {
            stage: "implement".to_string(),
            wall_s: 51.0,
        },
        StageTime {
            stage: "verify".to_string(),
            wall_s: 9.3,
        },
    ];
    f.provider = "scripted".to_string();
    f.model = "scripted-1".to_string();
    f
}

/// A sealed run in a temp directory.
pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub run_dir: PathBuf,
    pub home: PathBuf,
    pub env: KeyEnv,
    pub sealed: Sealed,
}

impl Fixture {
    pub fn opts(&self) -> VerifyOptions {
        VerifyOptions {
            home: Some(self.home.clone()),
            env: self.env.clone(),
            pubkey: None,
            allow_unsigned: false,
        }
    }

    pub fn verify(&self) -> VerifyReport {
        verify(&VerifyInput::RunDir(self.run_dir.clone()), &self.opts())
    }

    pub fn receipt_path(&self) -> PathBuf {
        self.run_dir.join("receipt.json")
    }

    pub fn envelope_path(&self) -> PathBuf {
        self.run_dir.join("receipt.dsse.json")
    }

    pub fn events_path(&self) -> PathBuf {
        self.run_dir.join("events.jsonl")
    }
}

/// Seals `facts` (run id taken from them) in a fresh run directory with the given key environment.
pub fn seal_with(facts: ReceiptFacts, env: KeyEnv) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    fs::create_dir_all(&home).unwrap();
    let run_dir = tmp.path().join("runs").join(&facts.run_id);
    fs::create_dir_all(&run_dir).unwrap();
    fs::write(run_dir.join("run.json"), "{}").unwrap();
    let signer = Signer::load_or_create(&home, &env).unwrap();
    let mut w = EventWriter::open(&run_dir, &facts.run_id).unwrap();
    w.append(
        EventType::RunStarted,
        None,
        json!({"kind": "build", "task": "añadir ✓"}),
    )
    .unwrap();
    w.append(
        EventType::StageStarted,
        Some(loki_protocol::Stage::Verify),
        json!({}),
    )
    .unwrap();
    w.append(
        EventType::CheckResult,
        None,
        json!({"name": "impacted tests", "passed": 42}),
    )
    .unwrap();
    w.append(
        EventType::StageCompleted,
        Some(loki_protocol::Stage::Verify),
        json!({}),
    )
    .unwrap();
    let sealed = ReceiptBuilder::new(facts)
        .seal(&run_dir, &mut w, &signer)
        .unwrap();
    drop(w);
    Fixture {
        tmp,
        run_dir,
        home,
        env,
        sealed,
    }
}

/// The standard verified run, signed by the fixed key 1.
pub fn sealed_run() -> Fixture {
    seal_with(verified_facts(RUN), env_with_key(1))
}

pub fn assert_verdict(report: &VerifyReport, want: VerifyVerdict) {
    assert_eq!(
        report.verdict,
        want,
        "{}",
        loki_receipt::render_human(report)
    );
    assert_eq!(report.exit_code, want.exit_status());
}

pub fn write(path: &Path, bytes: impl AsRef<[u8]>) {
    fs::write(path, bytes).unwrap();
}

pub fn chmod(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Serialises JSON with every object's keys in reverse order (same value, different bytes).
pub fn reversed_json(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Object(map) => {
            let items: Vec<String> = map
                .iter()
                .rev()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        serde_json::to_string(k).unwrap(),
                        reversed_json(v)
                    )
                })
                .collect();
            format!("{{\n{}\n}}", items.join(",\n"))
        }
        serde_json::Value::Array(items) => {
            format!(
                "[{}]",
                items
                    .iter()
                    .map(reversed_json)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        other => serde_json::to_string(other).unwrap(),
    }
}
