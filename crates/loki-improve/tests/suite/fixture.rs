//! A repository with failed runs to learn from and a passing run to protect, built once with real
//! builds (pytest, the engine, the scripted provider) and copied for each test.
//!
//! History: commit A has one bug (`add` subtracts); two quick runs on A ask for it to be fixed
//! and fail (the scripted agent multiplies unless its instructions say ALWAYS CHECK THE SIGN).
//! Commit B fixes `add` by hand and brings a bug into `shout` (it lowercases); a quick run on B
//! fixes `shout` and passes: the protectable case. The scripted agent's behaviour depends only on its prompt, so canary and
//! guard results are deterministic:
//! - instructions with `SHOUT QUIETLY`: it breaks `shout` (and leaves `add` as it is);
//! - a task about `shout`: it fixes `shout`;
//! - instructions with `ALWAYS CHECK THE SIGN`: it fixes `add`;
//! - otherwise: it gets `add` wrong.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use loki_agent::Backend;
use loki_agent::scripted::Scripted;
use loki_core::layout::Repo;
use loki_engine::{BuildOptions, Silent, TaskInput};
use loki_improve::{CycleOptions, CycleRecord, Hooks, Mode, NoHooks, Paths, Runtime, Trigger};
use serde_json::{Value, json};

pub const CALC_TASK: &str = "add(a, b) returns the wrong value; make it return the sum a + b.";
pub const SHOUT_TASK: &str = "shout(s) must return s in upper case.";
pub const INSTRUCTIONS: &str = "Be quick.\n";
pub const GOOD: &str = "Be quick.\nALWAYS CHECK THE SIGN of arithmetic.\n";
pub const USELESS: &str = "Be quick.\nBe careful.\n";
pub const HARMFUL: &str = "Be quick.\nALWAYS CHECK THE SIGN.\nSHOUT QUIETLY.\n";
/// Tokens each implementing session reports.
pub const SESSION_TOKENS: u64 = 600;

fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}],
           "usage": {"input_tokens": 500, "output_tokens": 100}})
}

fn finish() -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "done"}}]})
}

fn edit(path: &str, search: &str, replace: &str) -> Vec<Value> {
    vec![
        call(
            "edit",
            &json!({"path": path, "search": search, "replace": replace}),
        ),
        finish(),
    ]
}

/// The implementing agent's sessions (see the module doc). `broken`: `shout` is always broken.
pub fn agent_sessions(broken: bool) -> Vec<Value> {
    let quiet = edit("text.py", "return s.lower()", "return s.lower() + \"\"");
    let mut v =
        vec![json!({"name": "implement", "if_prompt_contains": "SHOUT QUIETLY", "turns": quiet})];
    if broken {
        v.push(json!({"name": "implement", "if_prompt_contains": "must return s in upper case", "turns": edit("text.py", "return s.lower()", "return s.title()")}));
    } else {
        v.push(json!({"name": "implement", "if_prompt_contains": "must return s in upper case", "turns": edit("text.py", "return s.lower()", "return s.upper()")}));
    }
    v.push(
        json!({"name": "implement", "if_prompt_contains": "ALWAYS CHECK THE SIGN",
                  "turns": edit("calc.py", "return a - b", "return a + b")}),
    );
    v.push(json!({"name": "implement", "turns": edit("calc.py", "return a - b", "return a * b")}));
    for fix in ["fix-1", "fix-2"] {
        v.push(json!({"name": fix, "turns": [finish()]}));
    }
    v
}

/// The editor proposing `content` as `instructions.md`.
pub fn propose(content: &str) -> Value {
    json!({"tool_calls": [{"name": "propose", "arguments": {
        "files": [{"path": "instructions.md", "content": content}],
        "rationale": "the failed runs got the arithmetic wrong"}}],
        "usage": {"input_tokens": 100, "output_tokens": 50}})
}

/// A script: the agent's sessions, the editor's turn and a reflection.
pub fn script(dir: &Path, name: &str, broken: bool, editor: Option<Value>) -> PathBuf {
    let mut sessions = agent_sessions(broken);
    if let Some(e) = editor {
        sessions.push(json!({"name": "editor", "turns": [e]}));
    }
    sessions.push(json!({"name": "reflect", "turns": [{"text": "The edit did not address the operator.", "usage": {"input_tokens": 10, "output_tokens": 5}}]}));
    let path = dir.join(name);
    std::fs::write(&path, json!({ "sessions": sessions }).to_string()).unwrap();
    path
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = loki_test_support::git_command(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn quick(repo: &Path, home: &Path, task: &str, script: &Path) -> loki_engine::BuildReport {
    let provider = Scripted::load(script).unwrap();
    let mut opts = BuildOptions::new(
        TaskInput {
            text: task.into(),
            source: "text".into(),
        },
        Backend::Loop(Box::new(provider)),
        "scripted",
        home.to_path_buf(),
    );
    opts.kind = loki_core::run::RunKind::Quick;
    opts.check_timeout = Duration::from_secs(120);
    loki_engine::run_build(&Repo::discover(repo).unwrap(), &opts, &Silent).unwrap()
}

struct Template {
    dir: PathBuf,
    failed: Vec<String>,
    passed: String,
}

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let repo = dir.join("repo");
        let home = dir.join("home");
        std::fs::create_dir_all(&repo).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        git(&repo, &["init", "-q", "-b", "main"]);
        let files = [
            ("calc.py", "def add(a, b):\n    return a - b\n"),
            ("test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
            ("text.py", "def shout(s):\n    return s.upper()\n"),
            ("test_text.py", "from text import shout\n\n\ndef test_shout():\n    assert shout(\"hi\") == \"HI\"\n"),
            (".gitignore", "__pycache__/\n.pytest_cache/\n"),
        ];
        for (p, c) in files {
            std::fs::write(repo.join(p), c).unwrap();
        }
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-qm", "two bugs"]);
        let agent = repo.join(".loki/agent");
        std::fs::create_dir_all(&agent).unwrap();
        // `.loki` must be excluded before its first file appears (the engine does it too).
        Repo::discover(&repo).unwrap().ensure_loki_dir().unwrap();
        std::fs::write(agent.join("instructions.md"), INSTRUCTIONS).unwrap();
        let s = script(&dir, "base.json", false, None);
        let mut failed = Vec::new();
        for _ in 0..2 {
            let r = quick(&repo, &home, CALC_TASK, &s);
            assert!(!r.outcome.is_success(), "{:?} {:?}", r.outcome, r.not_proven);
            failed.push(r.run_id);
        }
        std::fs::write(repo.join("calc.py"), "def add(a, b):\n    return a + b\n").unwrap();
        std::fs::write(repo.join("text.py"), "def shout(s):\n    return s.lower()\n").unwrap();
        git(&repo, &["commit", "-qam", "fix add by hand, break shout"]);
        let r = quick(&repo, &home, SHOUT_TASK, &s);
        assert!(r.outcome.is_success(), "{:?} {:?}", r.outcome, r.not_proven);
        // Worktrees are links into this repository's .git: drop them so a copy stands alone.
        let _ = std::fs::remove_dir_all(repo.join(".loki/worktrees"));
        git(&repo, &["worktree", "prune"]);
        Template {
            dir,
            failed,
            passed: r.run_id,
        }
    })
}

/// One test's copy of the template.
pub struct Fx {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub repo: Repo,
    pub home: PathBuf,
    pub paths: Paths,
    pub failed: Vec<String>,
    pub passed: String,
    /// Set: every replay's agent breaks `shout` (a regression the canary did not see).
    pub broken: Arc<AtomicBool>,
}

impl Fx {
    /// A fresh copy; `None` when pytest is missing outside CI (the test then returns).
    pub fn new() -> Option<Fx> {
        if !loki_test_support::require_pytest() {
            return None;
        }
        let t = template();
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("fx");
        let status = std::process::Command::new("cp")
            .args(["-a"])
            .arg(&t.dir)
            .arg(&root)
            .status()
            .unwrap();
        assert!(status.success());
        let repo = Repo::discover(&root.join("repo")).unwrap();
        let paths = Paths::new(&repo);
        Some(Fx {
            _tmp: tmp,
            home: root.join("home"),
            repo,
            paths,
            failed: t.failed.clone(),
            passed: t.passed.clone(),
            broken: Arc::new(AtomicBool::new(false)),
            root,
        })
    }

    /// The fixture at `root`, made by [`Fx::new`] in another process (a crash test's child).
    pub fn open(root: &Path) -> Fx {
        let repo = Repo::discover(&root.join("repo")).unwrap();
        Fx {
            _tmp: tempfile::tempdir().unwrap(),
            root: root.to_path_buf(),
            home: root.join("home"),
            paths: Paths::new(&repo),
            repo,
            failed: Vec::new(),
            passed: String::new(),
            broken: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Writes `improve.toml`.
    pub fn config(&self, toml: &str) {
        std::fs::create_dir_all(&self.paths.dir).unwrap();
        std::fs::write(self.paths.config(), toml).unwrap();
    }

    pub fn instructions(&self) -> String {
        std::fs::read_to_string(self.paths.agent().join("instructions.md")).unwrap()
    }

    pub fn set_instructions(&self, text: &str) {
        std::fs::write(self.paths.agent().join("instructions.md"), text).unwrap();
    }

    /// Admits the passing run to the corpus without its six replays (tests of other things).
    pub fn protect_passing_run(&self) {
        let mut case = loki_improve::cases::passing_run(&self.repo, &self.passed).unwrap();
        case.admitted_at = Some("2026-01-01T00:00:00.000Z".into());
        loki_improve::cases::save_protected(&self.paths, &case).unwrap();
    }

    /// One cycle with the editor answering `editor`.
    pub fn cycle(&self, editor: Option<Value>, opts: &CycleOptions) -> CycleRecord {
        self.cycle_with(editor, opts, &NoHooks, loki_process::Cancel::new())
    }

    pub fn cycle_with(
        &self,
        editor: Option<Value>,
        opts: &CycleOptions,
        hooks: &dyn Hooks,
        cancel: loki_process::Cancel,
    ) -> CycleRecord {
        let scripts = self.root.join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        let n = std::fs::read_dir(&scripts).unwrap().count();
        let has_editor = editor.is_some();
        let good = script(&scripts, &format!("{n}-good.json"), false, editor.clone());
        let broken = script(&scripts, &format!("{n}-broken.json"), true, editor);
        let editor = {
            let good = good.clone();
            move || -> Result<Backend, String> {
                if !has_editor {
                    return Err("no model configured for the editor".to_string());
                }
                Scripted::load(&good)
                    .map(|s| Backend::Loop(Box::new(s)))
                    .map_err(|e| e.to_string())
            }
        };
        let home = self.home.clone();
        let flag = self.broken.clone();
        let replay = move |task: TaskInput| -> Result<BuildOptions, String> {
            let which = if flag.load(Ordering::SeqCst) {
                &broken
            } else {
                &good
            };
            let s = Scripted::load(which).map_err(|e| e.to_string())?;
            let mut o =
                BuildOptions::new(task, Backend::Loop(Box::new(s)), "scripted", home.clone());
            o.check_timeout = Duration::from_secs(120);
            Ok(o)
        };
        let rt = Runtime {
            repo: self.repo.clone(),
            home: self.home.clone(),
            key_env: loki_receipt::KeyEnv::from_lookup(|_| None),
            editor: &editor,
            provider: "scripted".into(),
            replay: &replay,
            cancel,
            hooks,
            confine_exe: None,
        };
        loki_improve::heal_once(&rt, opts).unwrap()
    }

    /// Every file under the repository with its bytes, but `.git`, for tree diffs.
    pub fn tree(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        walk(&self.repo.root, &self.repo.root, &mut out);
        out.sort();
        out
    }

    pub fn audit_actions(&self) -> Vec<String> {
        loki_improve::audit::read(&self.paths)
            .unwrap()
            .into_iter()
            .map(|l| l.entry.action.as_str().to_string())
            .collect()
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if rel == ".git" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&p).unwrap();
        if meta.is_dir() {
            walk(root, &p, out);
        } else {
            out.push((rel, std::fs::read(&p).unwrap_or_default()));
        }
    }
}

/// Files that differ between two trees (added, removed or changed), outside `allowed` prefixes.
pub fn changed_outside(
    before: &[(String, Vec<u8>)],
    after: &[(String, Vec<u8>)],
    allowed: &[&str],
) -> Vec<String> {
    let mut out = Vec::new();
    for (p, b) in after {
        if before.iter().find(|(q, _)| q == p).map(|(_, a)| a) != Some(b) {
            out.push(p.clone());
        }
    }
    for (p, _) in before {
        if !after.iter().any(|(q, _)| q == p) {
            out.push(p.clone());
        }
    }
    out.retain(|p| !allowed.iter().any(|a| p == a || p.starts_with(a)));
    out
}

/// Options: a manual trigger in `mode`.
pub fn opts(mode: Mode) -> CycleOptions {
    CycleOptions {
        trigger: Trigger::Manual,
        mode: Some(mode),
        ..CycleOptions::default()
    }
}

/// The settings most tests use: one replay per case (the agent is deterministic).
pub const FAST: &str = "[canary]\nreplay_runs = 1\n[guard]\nruns = 1\n";
