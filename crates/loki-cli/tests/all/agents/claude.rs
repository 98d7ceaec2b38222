//! claude: the real program, pinned in `.ci/agents.pins`, against the fake model server.
//!
//! Each test runs the real `claude -p` (private `HOME`, every phone-home switch off,
//! `ANTHROPIC_BASE_URL` at loki-test-support's fake Anthropic Messages server) in a real git
//! repository with a real pytest suite, after `loki seal install --agent claude` registered the
//! loki binary under test as its SessionStart, Stop and SubagentStop hooks. The scripted model
//! answers with Claude Code's own tools (`Bash`, `Read`, `Edit`, with the input schema Claude Code declares),
//! so the real client edits the files and the real hooks judge them.
//!
//! Protocol facts of Claude Code 2.1.332 these tests pin (the closing note quotes them):
//! - a Stop hook that exits 2 blocks the stop; its stderr reaches the model in the next request
//!   as `Stop hook feedback:\n[<command>]: <stderr>` inside a `<system-reminder>` text block;
//! - a Stop hook answering `{"continue": false, "stopReason", "systemMessage"}` ends the turn as
//!   `terminal_reason: "stop_hook_prevented"` (`completed` otherwise) with exit 0 and
//!   `is_error: false`; the `systemMessage` reaches the person as a `system`/`informational`
//!   event `Stop says: <message>` in `--output-format stream-json`;
//! - `claude -p --resume <id>` fires SessionStart with `source: "resume"` and the same
//!   `session_id`.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use loki_test_support::fake_llm::{Api, Expect, FakeCall, FakeLlm, FakeTurn};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

mod verdicts;

/// A model for which 2.1.332 sends the classic Messages shape (only `user`/`assistant` turns);
/// for newer ones (claude-sonnet-5, claude-opus-4-8, claude-opus-5) it puts a `role: "system"`
/// turn into `messages`, which the fake, modelled on the classic API, refuses.
const MODEL: &str = "claude-sonnet-4-6";
const KEY: &str = "sk-ant-test-loki-conformance";
/// A whole session (two pytest runs per stop) takes seconds; this only stops a hung client.
const DEADLINE: Duration = Duration::from_secs(240);

/// Variables that keep Claude Code 2.1.332 offline apart from the model server: the umbrella
/// switch (auto-update, telemetry, error reports, feedback), then each one it covers, so a
/// release that splits the umbrella still stays quiet.
const QUIET: &[(&str, &str)] = &[
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("DISABLE_UPDATES", "1"),
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("DISABLE_BUG_COMMAND", "1"),
    ("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1"),
    ("CLAUDE_CODE_DISABLE_FEATURE_FLAGS", "1"),
    ("DISABLE_GROWTHBOOK", "1"),
    ("DISABLE_INSTALLATION_CHECKS", "1"),
];

/// One conformance world: the client, a sandboxed home, the repository and the fake.
pub(super) struct World {
    claude: PathBuf,
    pub(super) sb: Sandbox,
    pub(super) repo: GitRepo,
    pub(super) fake: FakeLlm,
    /// Set on drop: the fake's runtime thread ends.
    stop: Arc<AtomicBool>,
}

impl Drop for World {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Starts the fake on a thread of its own (a current-thread runtime that serves until `stop`), so
/// the tests can run the client synchronously.
fn start_fake(stop: Arc<AtomicBool>) -> FakeLlm {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let fake = FakeLlm::start(
                Api::Anthropic,
                Expect {
                    api_key: Some(KEY.into()),
                    model: MODEL.into(),
                },
            )
            .await;
            tx.send(fake).unwrap();
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
    });
    rx.recv().unwrap()
}

/// What one `claude -p` printed.
pub(super) struct Run {
    pub(super) code: Option<i32>,
    pub(super) stdout: String,
    pub(super) stderr: String,
}

impl Run {
    /// The `result` object (`--output-format json`, or the last line of `stream-json`).
    pub(super) fn result(&self) -> Value {
        let found = self
            .stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["type"] == "result");
        assert!(
            found.is_some(),
            "no result object:\n{}\n{}",
            self.stdout,
            self.stderr
        );
        found.unwrap()
    }

    /// `stream-json` events of `type` and `subtype`.
    pub(super) fn events(&self, ty: &str, subtype: &str) -> Vec<Value> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|v| v["type"] == ty && v["subtype"] == subtype)
            .collect()
    }
}

impl World {
    /// `None` (skipped) when claude or pytest is missing and tools are not required.
    pub(super) fn new() -> Option<World> {
        let claude = loki_test_support::require_agent("claude")?;
        if !loki_test_support::require_pytest() {
            return None;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let w = World {
            claude,
            sb: Sandbox::new(),
            repo: calc_repo(),
            fake: start_fake(stop.clone()),
            stop,
        };
        w.install();
        Some(w)
    }

    /// `loki seal install --agent claude` with the loki under test as the hooks' command, and the
    /// settings committed, as a project that adopts the seal does.
    fn install(&self) {
        let loki = assert_cmd::cargo::cargo_bin("loki");
        sandboxed(&self.sb, self.repo.path())
            .args([
                "seal",
                "install",
                "--agent",
                "claude",
                "--timeout",
                "600",
                "--command",
            ])
            .arg(&loki)
            .assert()
            .success();
        let settings: Value = serde_json::from_str(
            &std::fs::read_to_string(self.repo.path().join(".claude/settings.json")).unwrap(),
        )
        .unwrap();
        for event in ["SessionStart", "Stop", "SubagentStop"] {
            let command = settings["hooks"][event][0]["hooks"][0]["command"]
                .as_str()
                .unwrap();
            assert!(
                command.starts_with(&loki_process::shell_quote(&loki.to_string_lossy())),
                "{event} runs the loki under test: {command}"
            );
        }
        self.repo.commit("loki seal's hooks");
    }

    pub(super) fn path(&self, rel: &str) -> String {
        self.repo.path().join(rel).display().to_string()
    }

    /// Runs `claude -p <prompt> <extra…>` in the repository; `env` is added to the client's
    /// environment (and so to its hooks').
    pub(super) fn claude(&self, prompt: &str, extra: &[&str], env: &[(&str, &str)]) -> Run {
        self.claude_until(prompt, extra, env, &|| false)
    }

    /// [`World::claude`], killed (SIGKILL, as a closed terminal or a crash would end it) as soon
    /// as `kill_when` holds: a session that ends before its Stop hook runs.
    pub(super) fn claude_until(
        &self,
        prompt: &str,
        extra: &[&str],
        env: &[(&str, &str)],
        kill_when: &dyn Fn() -> bool,
    ) -> Run {
        let mut c = Command::new(&self.claude);
        self.sb.apply(&mut c).current_dir(self.repo.path());
        c.envs(QUIET.iter().copied())
            .env("ANTHROPIC_BASE_URL", self.fake.base_url())
            .env("ANTHROPIC_API_KEY", KEY)
            .envs(env.iter().copied())
            .args(["-p", prompt, "--model", MODEL])
            .args(["--allowedTools", "Bash", "Read", "Edit", "Write", "Agent"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            out.read_to_string(&mut s).unwrap();
            s
        });
        let err_reader = std::thread::spawn(move || {
            let mut s = String::new();
            err.read_to_string(&mut s).unwrap();
            s
        });
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if kill_when() {
                child.kill().unwrap();
                break child.wait().unwrap();
            }
            let timed_out = start.elapsed() > DEADLINE;
            if timed_out {
                child.kill().unwrap();
            }
            assert!(
                !timed_out,
                "claude did not finish in {DEADLINE:?}; requests so far: {}",
                self.fake.requests().len()
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        Run {
            code: status.code(),
            stdout: reader.join().unwrap(),
            stderr: err_reader.join().unwrap(),
        }
    }

    /// Queues the model's turns, one reply each.
    pub(super) fn script(&self, turns: &[FakeTurn]) {
        for t in turns {
            self.fake.push_turn(t);
        }
    }

    /// The request bodies the fake received since request `from`, as text.
    pub(super) fn requests_text(&self, from: usize) -> Vec<String> {
        self.fake.requests()[from..]
            .iter()
            .map(|r| r.body.to_string())
            .collect()
    }

    /// `loki verify` on the newest run: its exit code.
    pub(super) fn verify(&self) -> Option<i32> {
        sandboxed(&self.sb, self.repo.path())
            .arg("verify")
            .output()
            .unwrap()
            .status
            .code()
    }

    /// `loki seal status`, for failure messages.
    pub(super) fn seal_status(&self) -> String {
        let out = sandboxed(&self.sb, self.repo.path())
            .args(["seal", "status"])
            .output()
            .unwrap();
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    }

    /// The receipts sealed so far, oldest first: by the run's recorded start (milliseconds), as
    /// the run store orders them. Ids of two stops in the same second differ only by their random
    /// suffix, so sorting by name put a session's VERIFIED stop before its blocked one. A stop
    /// with no change seals none.
    pub(super) fn receipts(&self) -> Vec<Value> {
        let dir = self.repo.path().join(".loki/runs");
        let mut runs: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
            .map(|d| {
                d.map(|e| {
                    let path = e.unwrap().path();
                    let run: Value = serde_json::from_str(
                        &std::fs::read_to_string(path.join("run.json")).unwrap(),
                    )
                    .unwrap();
                    (run["started_at"].as_str().unwrap().to_string(), path)
                })
                .collect()
            })
            .unwrap_or_default();
        runs.sort();
        runs.iter()
            .map(|(_, r)| r)
            .filter(|r| r.join("receipt.json").exists())
            .map(|r| {
                serde_json::from_str(&std::fs::read_to_string(r.join("receipt.json")).unwrap())
                    .unwrap()
            })
            .collect()
    }
}

fn calc_repo() -> GitRepo {
    let r = GitRepo::new();
    r.write(
        "calc.py",
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    )
    .write(
        "test_calc.py",
        "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\ndef test_sub_negative():\n    assert sub(1, 3) == -2\n",
    )
    // Claude Code hands its whole environment, the API key included, to its hooks: the seal
    // must not pass it on to the suite (untrusted code). A leak fails this test at every stop,
    // and no receipt is VERIFIED.
    .write(
        "test_env.py",
        "import os\n\n\ndef test_the_agent_key_does_not_reach_the_suite():\n    assert \"ANTHROPIC_API_KEY\" not in os.environ\n",
    )
    .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    r.commit("calc with a bug in add");
    r
}

/// One tool call of Claude Code's own tools.
pub(super) fn call(id: &str, name: &str, input: &Value) -> FakeTurn {
    FakeTurn {
        calls: vec![FakeCall::new(id, name, input)],
        ..FakeTurn::default()
    }
}

/// The cheat: delete the test file instead of fixing `add`, then claim success.
pub(super) fn cheat(id: &str) -> Vec<FakeTurn> {
    vec![
        call(
            &format!("toolu_{id}_rm"),
            "Bash",
            &json!({"command": "rm test_calc.py", "description": "Remove the failing tests"}),
        ),
        FakeTurn::text("All tests pass now."),
    ]
}

/// The honest fix: restore the tests (when `restore`), read and fix `add`, then say so.
pub(super) fn fix(w: &World, id: &str, restore: bool) -> Vec<FakeTurn> {
    let mut turns = Vec::new();
    if restore {
        turns.push(call(
            &format!("toolu_{id}_restore"),
            "Bash",
            &json!({"command": "git checkout -- test_calc.py", "description": "Restore the tests"}),
        ));
    }
    turns.push(call(
        &format!("toolu_{id}_read"),
        "Read",
        &json!({"file_path": w.path("calc.py")}),
    ));
    turns.push(call(
        &format!("toolu_{id}_edit"),
        "Edit",
        &json!({"file_path": w.path("calc.py"),
                "old_string": "def add(a, b):\n    return a - b",
                "new_string": "def add(a, b):\n    return a + b"}),
    ));
    turns.push(FakeTurn::text("Fixed add: it returns a + b."));
    turns
}

/// Whether a request carries loki's block of the cheat as Claude Code relays a Stop hook's
/// stderr: the feedback header, the seal's instruction, and the deleted tests by name.
pub(super) fn names_the_cheat(body: &str) -> bool {
    body.contains("Stop hook feedback:")
        && body.contains("seal stop --agent claude]: loki seal: not done.")
        && body.contains("Fix the code, not the tests")
        && body.contains("test_calc.py::test_sub")
        && body.contains("restore the deleted tests")
}

/// Panics with the run's output unless Claude Code exited 0 with a result.
pub(super) fn assert_ran(run: &Run) -> Value {
    assert_eq!(
        run.code,
        Some(0),
        "claude failed:\n{}\n{}",
        run.stdout,
        run.stderr
    );
    run.result()
}

pub(super) fn assert_fixed(repo: &Path) {
    assert!(
        std::fs::read_to_string(repo.join("calc.py"))
            .unwrap()
            .contains("return a + b"),
        "the real client applied the Edit"
    );
    assert!(repo.join("test_calc.py").is_file(), "the tests are back");
}

#[test]
fn the_real_claude_is_the_pinned_version() {
    let Some(claude) = loki_test_support::require_agent("claude") else {
        return;
    };
    let pinned = loki_test_support::pinned_agent_version("claude").unwrap();
    let out = Command::new(claude).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(
        version.starts_with(&format!("{pinned} ")),
        "claude --version says {version:?}, .ci/agents.pins pins {pinned}"
    );
}

/// Case 1: A cheat (the test file deleted) is blocked by the Stop hook, loki's reason reaches the
/// model in the very next request, and the honest fix that follows is allowed.
#[test]
fn a_cheat_is_blocked_and_the_reason_reaches_the_model_then_the_fix_is_allowed() {
    let Some(w) = World::new() else { return };
    let mut turns = cheat("c1");
    turns.extend(fix(&w, "f1", true));
    w.script(&turns);
    let run = w.claude("Make the tests pass.", &["--output-format", "json"], &[]);
    let result = assert_ran(&run);
    w.fake.assert_clean();

    // Request 3 is the one after the blocked stop (1: prompt, 2: after rm, 3: after the stop).
    let bodies = w.requests_text(0);
    assert_eq!(bodies.len(), turns.len(), "one request per scripted turn");
    let after_block = &bodies[2];
    assert!(
        names_the_cheat(after_block),
        "loki's reason reaches the model: {after_block}"
    );
    assert!(
        !bodies[1].contains("Stop hook feedback"),
        "no feedback before the stop"
    );
    assert_eq!(result["is_error"], false, "{result:#}");
    assert_eq!(result["subtype"], "success", "{result:#}");
    assert_eq!(result["terminal_reason"], "completed", "{result:#}");
    assert_eq!(
        result["result"], "Fixed add: it returns a + b.",
        "{result:#}"
    );
    assert_fixed(w.repo.path());

    // Two stops, two receipts: the blocked one, then the VERIFIED one `loki verify` accepts.
    let receipts = w.receipts();
    assert_eq!(receipts.len(), 2, "{receipts:#?}");
    assert_ne!(receipts[0]["verdict"], "VERIFIED");
    assert_eq!(receipts[1]["verdict"], "VERIFIED", "{:#}", receipts[1]);
    assert_eq!(w.verify(), Some(0));
}

/// Case 3: After `seal.max_blocks` blocks the valve opens, and the person sees it: the turn ends as
/// stopped by a hook (not "completed"), loki's message is shown as the Stop hook's notice, and
/// the receipt is not VERIFIED.
#[test]
fn a_release_is_visible_to_the_person() {
    let Some(w) = World::new() else { return };
    let mut turns = cheat("c3");
    turns.push(FakeTurn::text("I cannot do better."));
    w.script(&turns);
    let run = w.claude(
        "Make the tests pass.",
        &["--output-format", "stream-json", "--verbose"],
        &[("LOKI_SEAL_MAX_BLOCKS", "1")],
    );
    let result = assert_ran(&run);
    w.fake.assert_clean();
    let hooks: Vec<Value> = run.events("system", "hook_response");
    assert_eq!(
        result["terminal_reason"],
        "stop_hook_prevented",
        "{result:#}\nhook responses: {hooks:#?}\nseal status:\n{}",
        w.seal_status()
    );
    let notices: Vec<String> = run
        .events("system", "informational")
        .iter()
        .filter_map(|e| e["content"].as_str().map(str::to_string))
        .collect();
    let release = notices
        .iter()
        .find(|n| n.starts_with("Stop says: loki seal: RELEASED, NOT VERIFIED"))
        .unwrap_or_else(|| {
            panic!(
                "the release reaches the person: {notices:#?}\n{}",
                run.stdout
            )
        });
    assert!(
        release.contains("seal.max_blocks = 1") && release.contains("test_calc.py::test_sub"),
        "{release}"
    );
    // The model saw one block and no release text: the release is for the person.
    let bodies = w.requests_text(0);
    assert!(names_the_cheat(&bodies[2]), "{}", bodies[2]);
    assert!(!bodies.iter().any(|b| b.contains("RELEASED")));
    let receipts = w.receipts();
    assert_eq!(receipts.len(), 2);
    assert_ne!(receipts[1]["verdict"], "VERIFIED");
    assert_eq!(w.verify(), Some(4), "intact, but not VERIFIED");
}

/// Case 4: An honest session: allowed at the first stop, the person sees VERIFIED, the receipt
/// verifies.
#[test]
fn an_honest_session_is_allowed_and_its_receipt_verifies() {
    let Some(w) = World::new() else { return };
    let turns = fix(&w, "h4", false);
    w.script(&turns);
    let run = w.claude(
        "Make the tests pass.",
        &["--output-format", "stream-json", "--verbose"],
        &[],
    );
    let result = assert_ran(&run);
    w.fake.assert_clean();
    assert_eq!(result["terminal_reason"], "completed", "{result:#}");
    assert_eq!(result["is_error"], false);
    assert!(
        !w.requests_text(0)
            .iter()
            .any(|b| b.contains("Stop hook feedback")),
        "never blocked"
    );
    let notices: Vec<String> = run
        .events("system", "informational")
        .iter()
        .filter_map(|e| e["content"].as_str().map(str::to_string))
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("Stop says: loki seal:") && n.contains("VERIFIED")),
        "{notices:#?}"
    );
    assert_fixed(w.repo.path());
    let receipts = w.receipts();
    assert_eq!(receipts.len(), 1);
    assert_eq!(receipts[0]["verdict"], "VERIFIED", "{:#}", receipts[0]);
    assert_eq!(w.verify(), Some(0));
}

/// Activation matches the real client: with `"disableAllHooks": true` in the project's local
/// settings `loki seal status` says claude's hooks are not active, and the real Claude Code
/// indeed runs neither hook (no baseline, no receipt); without it both run.
#[test]
fn disable_all_hooks_is_detected_and_the_real_claude_then_runs_no_hook() {
    let Some(w) = World::new() else { return };
    w.repo.write(
        ".claude/settings.local.json",
        "{\"disableAllHooks\": true}\n",
    );
    let status = w.seal_status();
    assert!(
        status.contains("hooks claude  not active:")
            && status.contains("settings.local.json sets \"disableAllHooks\""),
        "{status}"
    );
    w.script(&fix(&w, "d5", false));
    let run = w.claude("Make the tests pass.", &["--output-format", "json"], &[]);
    assert_ran(&run);
    w.fake.assert_clean();
    assert!(
        !w.sb.loki_home().join("seal").exists() && w.receipts().is_empty(),
        "no hook ran: {}",
        w.seal_status()
    );

    std::fs::remove_file(w.repo.path().join(".claude/settings.local.json")).unwrap();
    assert!(w.seal_status().contains("hooks claude  active:"));
    w.repo.git(&["checkout", "--", "calc.py"]);
    w.script(&fix(&w, "d6", false));
    assert_ran(&w.claude("Make the tests pass.", &["--output-format", "json"], &[]));
    w.fake.assert_clean();
    assert_eq!(w.receipts().len(), 1, "both hooks ran: {}", w.seal_status());
}
