//! Shared fixtures: a repository in a temp dir, recording, scripted answers, a signer.

use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_agent::scripted::Scripted;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_heal::{
    FixOptions, FixReport, FixSession, Incident, ObserveOptions, Observed, PatchSource,
};
use loki_receipt::{KeyEnv, Signer};
use serde_json::json;
use sha2::{Digest, Sha256};

pub struct Fx {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
    pub repo: Repo,
}

impl Fx {
    pub fn new(files: &[(&str, &str)]) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let repo = Repo::discover(dir.path()).unwrap();
        Fx {
            dir,
            home: tempfile::tempdir().unwrap(),
            repo,
        }
    }

    pub fn root(&self) -> &Path {
        &self.repo.root
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.repo.root.join(rel)
    }

    /// Runs `cmd` under observation and expects a crash.
    pub fn crash(&self, cmd: &[&str]) -> (RunId, Incident) {
        match self.observe(cmd) {
            Observed::Crashed {
                run_id, incident, ..
            } => (run_id, *incident),
            other => panic!("expected a crash, got {other:?}"),
        }
    }

    pub fn observe(&self, cmd: &[&str]) -> Observed {
        let opts = ObserveOptions {
            command: cmd.iter().map(ToString::to_string).collect(),
            cwd: self.repo.root.clone(),
            seed: Some(7),
            timeout: Duration::from_secs(120),
            argv: vec!["loki".into(), "run".into()],
            clean_env: false,
            browser: None,
        };
        loki_heal::observe(&self.repo, &opts).unwrap()
    }

    pub fn signer(&self) -> Signer {
        Signer::load_or_create(self.home.path(), &KeyEnv::from_lookup(|_| None)).unwrap()
    }

    pub fn session(&self, run: &RunId) -> FixSession {
        let opts = FixOptions {
            argv: vec!["loki".into(), "fix".into()],
            repro_timeout: Some(Duration::from_secs(120)),
            replay_wrapper: Vec::new(),
        };
        FixSession::start(&self.repo, run, opts).unwrap()
    }

    /// The whole loop: propose with `answers`, apply, verify, seal.
    pub fn heal(&self, run: &RunId, answers: &[String]) -> FixReport {
        let provider = scripted(self.home.path(), answers);
        let mut s = self.session(run);
        s.propose(PatchSource::Model(&provider)).unwrap();
        s.apply().unwrap();
        s.verify().unwrap();
        s.finish(&self.signer()).unwrap()
    }
}

/// A scripted provider that answers each call with the next text.
pub fn scripted(dir: &Path, answers: &[String]) -> Scripted {
    let turns: Vec<_> = answers.iter().map(|a| json!({"text": a})).collect();
    let script = json!({"sessions": [{"name": "heal", "turns": turns}]});
    let path = dir.join("script.json");
    std::fs::write(&path, script.to_string()).unwrap();
    Scripted::load(&path).unwrap()
}

/// A JSON patch answer.
pub fn answer(file: &str, original: &str, replacement: &str) -> String {
    json!({
        "file": file, "root_cause": "the divisor can be zero", "explanation": "guard it",
        "original_snippet": original, "replacement_snippet": replacement,
    })
    .to_string()
}

pub fn sha(p: &Path) -> String {
    hex::encode(Sha256::digest(std::fs::read(p).unwrap()))
}

pub fn event_types(run_dir: &Path) -> Vec<String> {
    let (events, _) = loki_events::read_events(&run_dir.join("events.jsonl"), None).unwrap();
    events.into_iter().map(|e| e.kind).collect()
}

pub const PY_APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";
pub const PY_LINE: &str = "    return sum(values) / len(values)\n";
