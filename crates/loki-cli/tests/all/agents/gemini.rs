//! gemini: the real program, pinned in `.ci/agents.pins`, against the fake model server.
//!
//! Gemini CLI runs headless (`gemini -p … --yolo -m gemini-2.5-pro`) in a real git repository
//! with a pytest suite, loki's hooks installed by `loki seal install --agent gemini`, and the
//! folder trusted the way a user trusts it (`~/.gemini/trustedFolders.json`). It talks only to
//! [`FakeGemini`] (`GOOGLE_GEMINI_BASE_URL`, API-key auth) with a private `HOME` whose settings
//! turn usage statistics, telemetry and update checks off. A capture hook beside loki's records
//! the real SessionStart / AfterAgent payloads.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use loki_seal::activation::{Active, UserEnv, activation};
use loki_test_support::fake_gemini::{
    FakeGemini, GeminiExpect, GeminiTurn, contents_text, gemini_cli_settings,
};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

mod verdicts;

const MODEL: &str = "gemini-2.5-pro";
const KEY: &str = "gm-test-key";
const CALC: &str = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const TESTS: &str = "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n";
/// A run of the real client that takes longer than this is a hang, not a slow machine.
const DEADLINE: Duration = Duration::from_secs(180);

struct World {
    bin: PathBuf,
    sb: Sandbox,
    repo: GitRepo,
    fake: FakeGemini,
}

/// A repository with a bug in `add` (test_add fails, test_sub passes), loki's hooks installed
/// next to a capture hook, the folder trusted, and the fake server up. `None` when the pinned
/// program is not installed (outside CI).
async fn world() -> Option<World> {
    if !loki_test_support::require_pytest() {
        return None;
    }
    let bin = loki_test_support::require_agent("gemini")?;
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("calc.py", CALC).write("test_calc.py", TESTS);
    // A capture hook of the user's own, which the install must keep.
    let capture = format!(
        "cat >> '{p}' && echo >> '{p}'",
        p = payloads_path(&sb).display()
    );
    let hook = json!([{"hooks": [{"type": "command", "command": capture}]}]);
    repo.write(
        ".gemini/settings.json",
        &json!({"hooks": {"SessionStart": hook, "AfterAgent": hook}}).to_string(),
    );
    let loki = assert_cmd::cargo::cargo_bin("loki");
    let out = loki_cmd(&sb, repo.path())
        .args([
            "seal",
            "install",
            "--agent",
            "gemini",
            "--timeout",
            "600",
            "--command",
        ])
        .arg(&loki)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(settings["hooks"]["AfterAgent"].as_array().unwrap().len(), 2);
    // Gemini's hook timeout is in milliseconds (its default is 60 s): the suite runs inside
    // both hooks, and the timeouts are sized from it, at least 120 s and 600 s.
    for (event, floor) in [("SessionStart", 120_000), ("AfterAgent", 600_000)] {
        let t = settings["hooks"][event][1]["hooks"][0]["timeout"]
            .as_u64()
            .unwrap();
        assert!(t >= floor && t.is_multiple_of(1000), "{event}: {t}");
    }
    repo.commit("calc with a bug in add; gemini hooks");

    let gemini_dir = sb.home().join(".gemini");
    std::fs::create_dir_all(&gemini_dir).unwrap();
    std::fs::write(
        gemini_dir.join("settings.json"),
        gemini_cli_settings().to_string(),
    )
    .unwrap();
    let user = UserEnv {
        home: sb.home().to_path_buf(),
        vars: Vec::new(),
    };
    let before = activation(loki_seal::Agent::Gemini, repo.path(), &user);
    assert_eq!(before.active, Active::No, "{before:?}");
    let real_repo = repo.path().canonicalize().unwrap();
    std::fs::write(
        gemini_dir.join("trustedFolders.json"),
        json!({ real_repo.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    let after = activation(loki_seal::Agent::Gemini, repo.path(), &user);
    assert_eq!(after.active, Active::Yes, "{after:?}");

    let fake = FakeGemini::start(GeminiExpect {
        api_key: KEY.into(),
        model: MODEL.into(),
    })
    .await;
    Some(World {
        bin,
        sb,
        repo,
        fake,
    })
}

fn payloads_path(sb: &Sandbox) -> PathBuf {
    sb.home().join("hook-payloads.jsonl")
}

fn loki_cmd(sb: &Sandbox, dir: &Path) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c).current_dir(dir);
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl World {
    /// Runs `gemini <args>` headless in the repository and waits (at most [`DEADLINE`]).
    async fn gemini(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(&self.bin);
        self.sb
            .apply(&mut c)
            .current_dir(self.repo.path())
            .env("GEMINI_API_KEY", KEY)
            .env("GOOGLE_GEMINI_BASE_URL", self.fake.base_url())
            // One node process instead of a relaunched child with a bigger heap.
            .env("GEMINI_CLI_NO_RELAUNCH", "true")
            .args(["-m", MODEL, "--yolo"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        tokio::task::spawn_blocking(move || {
            let mut child = c.spawn().unwrap();
            let start = Instant::now();
            let mut hung = false;
            while child.try_wait().unwrap().is_none() {
                if start.elapsed() > DEADLINE {
                    child.kill().unwrap();
                    hung = true;
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let out = child.wait_with_output().unwrap();
            assert!(
                !hung,
                "gemini hung for {DEADLINE:?}: {}\n{}",
                text(&out.stdout),
                text(&out.stderr)
            );
            out
        })
        .await
        .unwrap()
    }

    /// The hook payloads Gemini sent, in order.
    fn payloads(&self) -> Vec<Value> {
        std::fs::read_to_string(payloads_path(&self.sb))
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn events(&self, name: &str) -> Vec<Value> {
        self.payloads()
            .into_iter()
            .filter(|p| p["hook_event_name"] == name)
            .collect()
    }

    /// What the model was shown in request `i` (0-based).
    fn shown(&self, i: usize) -> String {
        contents_text(&self.fake.requests()[i].body)
    }
}

fn assert_ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn rm_tests() -> GeminiTurn {
    GeminiTurn::call(
        "run_shell_command",
        &json!({"command": "rm test_calc.py", "description": "Remove the failing tests"}),
    )
}

fn restore_tests() -> GeminiTurn {
    GeminiTurn::call(
        "write_file",
        &json!({"file_path": "test_calc.py", "content": TESTS}),
    )
}

#[test]
fn the_real_gemini_is_the_pinned_version() {
    let Some(bin) = loki_test_support::require_agent("gemini") else {
        return;
    };
    let sb = Sandbox::new();
    let mut c = Command::new(bin);
    let out = sb
        .apply(&mut c)
        .env("GEMINI_CLI_NO_RELAUNCH", "true")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout).trim(),
        loki_test_support::pinned_agent_version("gemini").unwrap()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_deleted_test_is_blocked_and_the_reason_reaches_the_model() {
    let Some(w) = world().await else { return };
    w.fake
        .push_turn(&rm_tests())
        .push_turn(&GeminiTurn::text("All tests pass now."))
        .push_turn(&restore_tests())
        .push_turn(&GeminiTurn::text("Restored the tests."));
    let out = w.gemini(&["-p", "Make the tests pass"], &[]).await;
    assert_ok(&out);
    w.fake.assert_clean();
    let reqs = w.fake.requests();
    assert_eq!(reqs.len(), 4);
    assert!(
        reqs.iter()
            .all(|r| r.path == format!("/v1beta/models/{MODEL}:streamGenerateContent?alt=sse")),
        "{:?}",
        reqs.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    // The third request is the block: loki's reason as the user's next message.
    let last_user =
        &reqs[2].body["contents"].as_array().unwrap().last().unwrap()["parts"][0]["text"];
    let reason = last_user.as_str().unwrap();
    assert!(
        reason.starts_with("loki seal: not done.")
            && reason.contains("test_calc.py")
            && reason.contains("Fix the code, not the tests"),
        "{reason}"
    );
    assert!(!w.shown(1).contains("loki seal: not done"));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("[WARNING] Agent execution blocked: loki seal: not done."),
        "{stderr}"
    );
    assert!(w.repo.path().join("test_calc.py").exists());
    // The payloads Gemini sent.
    let stops = w.events("AfterAgent");
    assert_eq!(stops.len(), 2, "{stops:#?}");
    let starts = w.events("SessionStart");
    assert_eq!(starts.len(), 1);
    assert_eq!(starts[0]["source"], "startup");
    assert_eq!(stops[0]["stop_hook_active"], false);
    assert_eq!(stops[0]["prompt"], "Make the tests pass");
    // `prompt_response` is the CLI's own join of the streamed chunks' text (with spaces between
    // chunks, newlines between turns), cumulative over the prompt's continuations.
    let said = |p: &Value, what: &[&str]| {
        let r = p["prompt_response"].as_str().unwrap();
        what.iter().all(|w| r.contains(w))
    };
    assert!(said(&stops[0], &["All tests", "pass now."]), "{stops:#?}");
    // `stop_hook_active` is true only when the model's first answer to the block ends the turn;
    // after a tool call the CLI starts a fresh request and sends false again. loki counts its
    // consecutive blocks itself and does not rely on it.
    assert_eq!(stops[1]["stop_hook_active"], false);
    assert!(
        said(&stops[1], &["All tests", "Restored", "the tests."]),
        "{stops:#?}"
    );
    for p in starts.iter().chain(&stops) {
        assert_eq!(p["session_id"], starts[0]["session_id"]);
        assert_eq!(
            Path::new(p["cwd"].as_str().unwrap())
                .canonicalize()
                .unwrap(),
            w.repo.path().canonicalize().unwrap()
        );
        assert!(p["transcript_path"].is_string() && p["timestamp"].is_string());
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_honest_fix_is_allowed_verified_with_a_receipt() {
    let Some(w) = world().await else { return };
    w.fake
        .push_turn(&GeminiTurn::call(
            "replace",
            &json!({"file_path": "calc.py", "instruction": "Make add return the sum.",
                    "old_string": "def add(a, b):\n    return a - b",
                    "new_string": "def add(a, b):\n    return a + b"}),
        ))
        .push_turn(&GeminiTurn::text("Fixed add."));
    let out = w.gemini(&["-p", "Fix add"], &[]).await;
    assert_ok(&out);
    w.fake.assert_clean();
    assert_eq!(w.fake.requests().len(), 2);
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains("Agent execution blocked") && !stderr.contains("Agent execution stopped"),
        "{stderr}"
    );
    // The allow's systemMessage reaches the person.
    assert!(
        stderr.contains("VERIFIED") && stderr.contains("Receipt sha256:"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(w.repo.path().join("calc.py")).unwrap(),
        CALC.replacen("a - b", "a + b", 1)
    );
    let verify = loki_cmd(&w.sb, w.repo.path())
        .arg("verify")
        .output()
        .unwrap();
    assert_eq!(verify.status.code(), Some(0), "{}", text(&verify.stdout));
}

#[tokio::test(flavor = "current_thread")]
async fn the_release_ends_the_loop_and_is_shown_to_the_person() {
    let Some(w) = world().await else { return };
    w.fake
        .push_turn(&rm_tests())
        .push_turn(&GeminiTurn::text("Done."))
        .push_turn(&GeminiTurn::text("Done, really."));
    let out = w
        .gemini(
            &["-p", "Make the tests pass"],
            &[("LOKI_SEAL_MAX_BLOCKS", "1")],
        )
        .await;
    // Gemini has no failing exit for a hook's stop: the process exits 0 and says it stopped.
    assert_ok(&out);
    // Nothing after the release: exactly the three scripted turns were asked for.
    w.fake.assert_clean();
    assert_eq!(w.fake.requests().len(), 3);
    assert!(w.shown(2).contains("loki seal: not done."));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("Agent execution stopped: loki seal: RELEASED, NOT VERIFIED"),
        "{stderr}"
    );
    // Answered straight after the block, the continuation's stop says so.
    let active: Vec<Value> = w
        .events("AfterAgent")
        .iter()
        .map(|p| p["stop_hook_active"].clone())
        .collect();
    assert_eq!(active, [json!(false), json!(true)]);
    let status = loki_cmd(&w.sb, w.repo.path())
        .args(["seal", "status"])
        .output()
        .unwrap();
    assert!(
        text(&status.stdout).to_lowercase().contains("released"),
        "{}",
        text(&status.stdout)
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_resumed_session_keeps_its_baseline() {
    let Some(w) = world().await else { return };
    w.fake
        .push_turn(&GeminiTurn::text("Nothing to change yet."));
    let first = w.gemini(&["-p", "Look at the tests"], &[]).await;
    assert_ok(&first);
    // Between the sessions the tests go away (an earlier tool call, the user, another agent).
    std::fs::remove_file(w.repo.path().join("test_calc.py")).unwrap();
    w.fake
        .push_turn(&GeminiTurn::text("Done."))
        .push_turn(&restore_tests())
        .push_turn(&GeminiTurn::text("Restored."));
    let second = w.gemini(&["--resume", "latest", "-p", "Finish"], &[]).await;
    assert_ok(&second);
    w.fake.assert_clean();
    let stderr = text(&second.stderr);
    assert!(stderr.contains("kept on resume"), "{stderr}");
    // The baseline of the first start judged the resumed session's stop: blocked.
    assert!(
        w.shown(2).contains("loki seal: not done."),
        "{}",
        w.shown(2)
    );
    assert!(w.shown(2).contains("test_calc.py"));
    // The resumed request carries the first session's conversation.
    assert!(w.shown(1).contains("Nothing to change yet."));
    let starts = w.events("SessionStart");
    assert_eq!(
        starts
            .iter()
            .map(|s| s["source"].clone())
            .collect::<Vec<_>>(),
        [json!("startup"), json!("resume")]
    );
    assert_eq!(starts[0]["session_id"], starts[1]["session_id"]);
}

/// Session 1 changes nothing; then the tests go away without a stop judging it (the user, another
/// agent, a killed session); then the work goes on in a session that Gemini CLI starts with a new
/// `session_id` (`args`): its stop is judged against the worktree's baseline, so "Done." is
/// refused until the tests are back. Returns the SessionStart payloads.
async fn a_new_session_id_is_judged_against_the_baseline(w: &World, args: &[&str]) -> Vec<Value> {
    w.fake
        .push_turn(&GeminiTurn::text("Nothing to change yet."));
    assert_ok(&w.gemini(&["-p", "Look at the tests"], &[]).await);
    std::fs::remove_file(w.repo.path().join("test_calc.py")).unwrap();
    w.fake
        .push_turn(&GeminiTurn::text("Done."))
        .push_turn(&restore_tests())
        .push_turn(&GeminiTurn::text("Restored."));
    let second = w.gemini(args, &[]).await;
    assert_ok(&second);
    w.fake.assert_clean();
    assert!(
        w.shown(2).contains("loki seal: not done.") && w.shown(2).contains("test_calc.py"),
        "the new session's stop is refused against the first baseline: {}",
        w.shown(2)
    );
    assert!(w.repo.path().join("test_calc.py").is_file());
    let stderr = text(&second.stderr);
    let stdout = text(&second.stdout);
    assert!(
        format!("{stdout}{stderr}").contains("its open baseline is kept on"),
        "{stdout}\n{stderr}"
    );
    let starts = w.events("SessionStart");
    let stops = w.events("AfterAgent");
    assert_ne!(
        starts[0]["session_id"],
        stops.last().unwrap()["session_id"],
        "a new session id: {starts:#?}"
    );
    starts
}

/// Gemini CLI 0.61 runs `/clear` headless: `gemini --resume latest -p /clear` fires
/// SessionStart `resume` (the old id), then SessionStart `clear` with a new `session_id`, then
/// sends "/clear" to the model as the prompt, and AfterAgent fires with the new id.
#[tokio::test(flavor = "current_thread")]
async fn a_cleared_session_keeps_the_baseline() {
    let Some(w) = world().await else { return };
    let starts = a_new_session_id_is_judged_against_the_baseline(
        &w,
        &["--resume", "latest", "-p", "/clear"],
    )
    .await;
    let sources: Vec<Value> = starts.iter().map(|s| s["source"].clone()).collect();
    assert_eq!(sources, [json!("startup"), json!("resume"), json!("clear")]);
    assert_eq!(starts[0]["session_id"], starts[1]["session_id"]);
    assert_ne!(starts[1]["session_id"], starts[2]["session_id"]);
}

/// A second `gemini -p` in the same folder is a new session (`startup`, a new id): it is judged
/// against the worktree's open baseline, not a new one taken from the tree it finds.
#[tokio::test(flavor = "current_thread")]
async fn a_new_session_in_the_same_worktree_keeps_the_baseline() {
    let Some(w) = world().await else { return };
    let starts = a_new_session_id_is_judged_against_the_baseline(&w, &["-p", "Finish"]).await;
    let sources: Vec<Value> = starts.iter().map(|s| s["source"].clone()).collect();
    assert_eq!(sources, [json!("startup"), json!("startup")]);
    assert_ne!(starts[0]["session_id"], starts[1]["session_id"]);
}

/// Without trust, headless Gemini refuses to start (exit 55), and `--skip-trust` starts it with
/// the project's hooks dropped: what `loki seal`'s activation check says before the folder is
/// trusted.
#[tokio::test(flavor = "current_thread")]
async fn an_untrusted_folder_runs_no_project_hooks() {
    let Some(w) = world().await else { return };
    std::fs::remove_file(w.sb.home().join(".gemini/trustedFolders.json")).unwrap();
    let out = w.gemini(&["-p", "hi"], &[]).await;
    assert_eq!(out.status.code(), Some(55), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("not running in a trusted directory"));
    w.fake.push_turn(&GeminiTurn::text("hello"));
    let out = w.gemini(&["--skip-trust", "-p", "hi"], &[]).await;
    assert_ok(&out);
    w.fake.assert_clean();
    assert!(w.payloads().is_empty(), "{:#?}", w.payloads());
    assert!(!w.repo.path().join(".loki").exists());
    // GEMINI_CLI_TRUST_WORKSPACE=true in gemini's environment does load them.
    w.fake.push_turn(&GeminiTurn::text("hello"));
    let out = w
        .gemini(&["-p", "hi"], &[("GEMINI_CLI_TRUST_WORKSPACE", "true")])
        .await;
    assert_ok(&out);
    w.fake.assert_clean();
    assert_eq!(w.events("SessionStart").len(), 1);
    assert_eq!(w.events("AfterAgent").len(), 1);
}
