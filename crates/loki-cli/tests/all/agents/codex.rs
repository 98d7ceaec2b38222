//! codex: the real program, pinned in `.ci/agents.pins`, against the fake Responses server.
//!
//! Codex is pointed at the fake with a private `CODEX_HOME` whose `config.toml` defines a model
//! provider (`base_url`, `wire_api = "responses"`, `env_key`), no retries, and analytics,
//! feedback and update checks off. It loads the repository's `.codex/hooks.json` only for a
//! trusted project whose hooks are each trusted by hash (see `loki_seal`'s Codex activation);
//! the tests apply exactly the lines `loki seal install` prints as the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use loki_test_support::fake_responses::{Expect, FakeResponses, ResponsesTurn};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::Value;

use crate::cli::sandboxed;

const MODEL: &str = "gpt-fake-codex";
const KEY_VAR: &str = "LOKI_FAKE_OPENAI_KEY";
const KEY: &str = "sk-fake-codex";

/// The program, or `None` (skipped) when it is not installed.
fn codex() -> Option<PathBuf> {
    let bin = loki_test_support::require_agent("codex")?;
    let v = Command::new(&bin).arg("--version").output().unwrap();
    let pinned = loki_test_support::pinned_agent_version("codex").unwrap();
    assert!(
        String::from_utf8_lossy(&v.stdout).contains(&pinned),
        "codex --version says {:?}, the pin is {pinned}",
        String::from_utf8_lossy(&v.stdout)
    );
    Some(bin)
}

/// A `CODEX_HOME` whose config points Codex at `base_url` and turns off everything that would
/// phone home.
pub fn codex_home(dir: &Path, base_url: &str) -> PathBuf {
    let home = dir.join("codex-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            r#"model = "{MODEL}"
model_provider = "lokifake"
check_for_update_on_startup = false

[model_providers.lokifake]
name = "loki fake"
base_url = "{base_url}"
wire_api = "responses"
env_key = "{KEY_VAR}"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false
"#
        ),
    )
    .unwrap();
    home
}

async fn fake() -> FakeResponses {
    FakeResponses::start(Expect {
        api_key: KEY.into(),
        model: MODEL.into(),
    })
    .await
}

fn calc_repo() -> GitRepo {
    let r = GitRepo::new();
    r.write(
        "calc.py",
        "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
    )
    .write(
        "test_calc.py",
        "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
    )
    .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    r.commit("calc with a bug in add");
    r
}

/// `loki seal install --agent codex`, then the trust lines it prints appended to the user's
/// Codex config; asserts the state before and after.
fn install_and_trust(sb: &Sandbox, repo: &GitRepo, codex_home: &Path) {
    let loki = assert_cmd::cargo::cargo_bin("loki");
    let install = || {
        let out = sandboxed(sb, repo.path())
            .env("CODEX_HOME", codex_home)
            .args(["seal", "install", "--agent", "codex", "--command"])
            .arg(&loki)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = install();
    assert!(said.contains("NOT ACTIVE"), "{said}");
    let fix = said
        .split_once("to make them run: ")
        .unwrap_or_else(|| panic!("no fix in {said}"))
        .1;
    let lines = fix.split_once('\n').unwrap().1;
    assert!(lines.contains("trust_level = \"trusted\""), "{said}");
    assert!(lines.contains(":stop:0:0\"]\ntrusted_hash = \"sha256:"), "{said}");
    let config = codex_home.join("config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push('\n');
    text.push_str(lines);
    std::fs::write(&config, text).unwrap();
    let said = install();
    assert!(!said.contains("NOT ACTIVE"), "{said}");
    assert!(said.contains("trusts the project and each hook"), "{said}");
}

/// Runs `codex exec <args>` in the repository with the sandbox's environment plus Codex's.
async fn codex_exec(
    bin: &Path,
    sb: &Sandbox,
    repo: &Path,
    codex_home: &Path,
    max_blocks: u32,
    args: &[&str],
) -> Output {
    let mut c = Command::new(bin);
    sb.apply(&mut c)
        .current_dir(repo)
        .env("CODEX_HOME", codex_home)
        .env(KEY_VAR, KEY)
        .env("LOKI_SEAL_MAX_BLOCKS", max_blocks.to_string())
        .arg("exec")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || c.output().unwrap())
        .await
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The texts the model got in request `i` after the ones of request `i - 1` (what is new).
fn new_texts(fake: &FakeResponses, i: usize) -> String {
    let all = fake.input_texts(i);
    let before = if i == 0 { 0 } else { fake.input_texts(i - 1).len() };
    all[before.min(all.len())..].join("\n")
}

/// Untrusted, the hooks do not run; trusted by the printed lines, a cheat (a test file deleted)
/// is blocked and the reason is the next thing the model reads; the model insists and the
/// release valve (max 1) lets it go, visibly: the turn ends "Stopped" and `loki seal status`
/// says RELEASED.
#[tokio::test(flavor = "current_thread")]
async fn a_cheat_is_blocked_with_the_reason_reaching_the_model_then_released_visibly() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = calc_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    install_and_trust(&sb, &repo, &home);

    fake.push(ResponsesTurn::exec("call_cheat", "rm test_calc.py"));
    fake.push(ResponsesTurn::text("All tests pass now."));
    fake.push(ResponsesTurn::text("They pass, I am done."));
    let out = codex_exec(
        &bin,
        &sb,
        repo.path(),
        &home,
        1,
        &["--skip-git-repo-check", "fix the failing test"],
    )
    .await;
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    fake.assert_clean();
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 3, "{said}");
    assert!(
        fake.tool_names(0).iter().any(|n| n == "exec_command"),
        "{:?}",
        fake.tool_names(0)
    );
    assert!(!repo.path().join("test_calc.py").exists(), "the cheat ran");
    // The block reached the model as Codex's hook prompt.
    let told = new_texts(&fake, 2);
    assert!(told.contains("<hook_prompt"), "{told}");
    assert!(told.contains("loki seal"), "{told}");
    assert!(told.contains("test_file_removed"), "{told}");
    // The release is visible: Codex marks the stop hook "Stopped", not "Completed".
    assert!(said.contains("hook: Stop Blocked"), "{said}");
    assert!(said.contains("hook: Stop Stopped"), "{said}");
    let status = sandboxed(&sb, repo.path())
        .args(["seal", "status"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&status.stdout);
    assert!(shown.contains("RELEASED, NOT VERIFIED"), "{shown}");
}

/// A resumed session (`codex exec resume <id>`: SessionStart with `source: "resume"`, same
/// session id) keeps the first baseline: a test skipped between the two runs is caught.
#[tokio::test(flavor = "current_thread")]
async fn a_resumed_session_keeps_its_baseline() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = calc_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    install_and_trust(&sb, &repo, &home);

    fake.push(ResponsesTurn::text("Nothing to do yet."));
    let first = codex_exec(
        &bin,
        &sb,
        repo.path(),
        &home,
        1,
        &["--json", "--skip-git-repo-check", "look around"],
    )
    .await;
    assert!(first.status.success(), "{}", text(&first));
    let thread: Value = serde_json::from_str(
        String::from_utf8_lossy(&first.stdout).lines().next().unwrap(),
    )
    .unwrap();
    assert_eq!(thread["type"], "thread.started", "{thread}");
    let id = thread["thread_id"].as_str().unwrap().to_string();

    // Between the runs, the passing test_sub gets a skip marker.
    let t = std::fs::read_to_string(repo.path().join("test_calc.py")).unwrap();
    std::fs::write(
        repo.path().join("test_calc.py"),
        t.replace(
            "def test_sub():",
            "import pytest\n\n\n@pytest.mark.skip\ndef test_sub():",
        ),
    )
    .unwrap();
    fake.push(ResponsesTurn::text("Done."));
    fake.push(ResponsesTurn::text("Still done."));
    let second = codex_exec(
        &bin,
        &sb,
        repo.path(),
        &home,
        1,
        &["resume", &id, "finish up"],
    )
    .await;
    let said = text(&second);
    assert!(second.status.success(), "{said}");
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 3, "{said}");
    // The resumed request carries the first run's history: the same thread.
    let history = fake.input_texts(1).join("\n");
    assert!(history.contains("Nothing to do yet."), "{history}");
    let told = new_texts(&fake, 2);
    assert!(told.contains("newly_skipped"), "judged against the first baseline: {told}");
}

/// An honest fix: the stop hook allows it, the seal's receipt is VERIFIED, and the model is told
/// nothing more.
#[tokio::test(flavor = "current_thread")]
async fn an_honest_fix_is_allowed_and_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = calc_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    install_and_trust(&sb, &repo, &home);

    fake.push(ResponsesTurn::exec(
        "call_fix",
        "sed -i '0,/a - b/s//a + b/' calc.py",
    ));
    fake.push(ResponsesTurn::text("Fixed add."));
    let out = codex_exec(
        &bin,
        &sb,
        repo.path(),
        &home,
        5,
        &["--skip-git-repo-check", "fix the failing test"],
    )
    .await;
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 2, "no hook prompt followed: {said}");
    assert!(said.contains("hook: Stop Completed"), "{said}");
    assert!(
        std::fs::read_to_string(repo.path().join("calc.py"))
            .unwrap()
            .contains("return a + b"),
    );
    sandboxed(&sb, repo.path()).arg("verify").assert().code(0);
    let status = sandboxed(&sb, repo.path())
        .args(["seal", "status"])
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&status.stdout);
    assert!(shown.contains("VERIFIED"), "{shown}");
    assert!(!shown.contains("RELEASED"), "{shown}");
}
