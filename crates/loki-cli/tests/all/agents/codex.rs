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

mod verdicts;

const MODEL: &str = "gpt-fake-codex";
const KEY_VAR: &str = "FAKE_CODEX_PROVIDER_KEY";
const KEY: &str = "sk-fake-codex";

/// The program, or `None` (skipped) when it is not installed.
pub(super) fn codex() -> Option<PathBuf> {
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

pub(super) async fn fake() -> FakeResponses {
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
            .args([
                "seal",
                "install",
                "--agent",
                "codex",
                "--timeout",
                "600",
                "--command",
            ])
            .arg(&loki)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let said = install();
    assert!(said.contains("NOT ACTIVE"), "{said}");
    assert!(said.contains("to make them run: "), "{said}");
    let fix = said.split_once("to make them run: ").unwrap().1;
    let lines = fix.split_once('\n').unwrap().1;
    assert!(lines.contains("trust_level = \"trusted\""), "{said}");
    assert!(
        lines.contains(":stop:0:0\"]\ntrusted_hash = \"sha256:"),
        "{said}"
    );
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

pub(super) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The texts the model got in request `i` after the ones of request `i - 1` (what is new).
fn new_texts(fake: &FakeResponses, i: usize) -> String {
    let all = fake.input_texts(i);
    let before = if i == 0 {
        0
    } else {
        fake.input_texts(i - 1).len()
    };
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

/// The first run (`codex exec --json`) changes nothing; between the runs, the passing test_sub
/// gets a skip marker hiding a regression in `sub` (a skip with no code change is only a
/// weakening to show), with no stop to judge it; the second run (`second`, given the first run's
/// thread id) says "Done." and is judged against the worktree's baseline. Returns the fake, the
/// first thread id and the worktree's lineage as `(session, source)`.
async fn a_skip_between_runs_is_judged_in(
    second: &dyn Fn(&str) -> Vec<String>,
) -> Option<(FakeResponses, String, Vec<(String, String)>)> {
    if !loki_test_support::require_pytest() {
        return None;
    }
    let bin = codex()?;
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
        String::from_utf8_lossy(&first.stdout)
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(thread["type"], "thread.started", "{thread}");
    let id = thread["thread_id"].as_str().unwrap().to_string();

    let t = std::fs::read_to_string(repo.path().join("test_calc.py")).unwrap();
    std::fs::write(
        repo.path().join("test_calc.py"),
        t.replace(
            "def test_sub():",
            "import pytest\n\n\n@pytest.mark.skip\ndef test_sub():",
        ),
    )
    .unwrap();
    let c = std::fs::read_to_string(repo.path().join("calc.py")).unwrap();
    let broken = c.replace(
        "def sub(a, b):\n    return a - b",
        "def sub(a, b):\n    return a - b + (1 if a >= 5 else 0)",
    );
    assert_ne!(broken, c, "calc.py has the `sub` this case breaks");
    std::fs::write(repo.path().join("calc.py"), broken).unwrap();
    fake.push(ResponsesTurn::text("Done."));
    fake.push(ResponsesTurn::text("Still done."));
    let args = second(&id);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = codex_exec(&bin, &sb, repo.path(), &home, 1, &args).await;
    let said = text(&run);
    assert!(run.status.success(), "{said}");
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 3, "{said}");
    let told = new_texts(&fake, 2);
    assert!(
        told.contains("newly_skipped"),
        "judged against the first baseline: {told}"
    );
    let status = sandboxed(&sb, repo.path())
        .args(["--json", "seal", "status"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert!(status["sessions"][0]["lineage"].is_array(), "{status:#}");
    let lineage = status["sessions"][0]["lineage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let f = |k: &str| j[k].as_str().unwrap_or("").to_string();
            (f("session"), f("source"))
        })
        .collect();
    Some((fake, id, lineage))
}

/// A resumed session (`codex exec resume <id>`: SessionStart with `source: "resume"`, same
/// session id) keeps the first baseline: a test skipped between the two runs is caught.
#[tokio::test(flavor = "current_thread")]
async fn a_resumed_session_keeps_its_baseline() {
    let second = |id: &str| vec!["resume".into(), id.into(), "finish up".into()];
    let Some((fake, id, lineage)) = a_skip_between_runs_is_judged_in(&second).await else {
        return;
    };
    // The resumed request carries the first run's history: the same thread.
    let history = fake.input_texts(1).join("\n");
    assert!(history.contains("Nothing to do yet."), "{history}");
    assert_eq!(lineage, [(id, "startup".to_string())]);
}

/// `codex exec fork <id>` starts a new session id (SessionStart `source: "fork"`) with the first
/// one's history: it is judged against the worktree's baseline.
#[tokio::test(flavor = "current_thread")]
async fn a_forked_session_keeps_the_baseline() {
    let second = |id: &str| vec!["fork".into(), id.into(), "finish up".into()];
    let Some((fake, id, lineage)) = a_skip_between_runs_is_judged_in(&second).await else {
        return;
    };
    let history = fake.input_texts(1).join("\n");
    assert!(history.contains("Nothing to do yet."), "{history}");
    assert_eq!(lineage.len(), 2, "{lineage:?}");
    assert_eq!(lineage[0], (id.clone(), "startup".to_string()));
    assert_ne!(lineage[1].0, id, "a fork is a new session id");
    assert_eq!(lineage[1].1, "fork", "{lineage:?}");
}

/// A second `codex exec` in the same folder is a new session (`startup`, a new id): judged
/// against the worktree's open baseline, not a new one taken from the tree it finds.
#[tokio::test(flavor = "current_thread")]
async fn a_new_session_in_the_same_worktree_keeps_the_baseline() {
    let second = |_: &str| vec!["--skip-git-repo-check".into(), "finish up".into()];
    let Some((_, id, lineage)) = a_skip_between_runs_is_judged_in(&second).await else {
        return;
    };
    assert_eq!(lineage.len(), 2, "{lineage:?}");
    assert_ne!(lineage[1].0, id, "a new session id");
    assert_eq!(lineage[1].1, "startup", "{lineage:?}");
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

// ---- `--provider codex`: loki runs the real Codex as its coding agent ----

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

/// A directory holding only `codex` (linked to the pinned program), to put first on PATH.
pub(super) fn codex_on_path(bin: &Path) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(bin, dir.path().join("codex")).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (dir, path)
}

fn bug_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    repo.commit("calc with a bug");
    repo
}

/// `loki <task> --provider codex --json` with the user's Codex home at `codex_home` and the
/// provider's key in the environment (as a user would have them).
pub(super) async fn loki_build(
    sb: &Sandbox,
    repo: &GitRepo,
    path: &str,
    codex_home: &Path,
    extra: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd)
        .current_dir(repo.path())
        .env("PATH", path)
        .env("CODEX_HOME", codex_home)
        .env(KEY_VAR, KEY)
        .args([TASK, "--provider", "codex", "--json"]);
    for (k, v) in extra {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// The wall author writes the acceptance test, the implementer fixes the bug, both through the
/// real Codex in loki's box: VERIFIED, with the model and the tokens Codex reported on the
/// receipt, and the user's Codex home left as it was (Codex worked on a private copy).
#[tokio::test(flavor = "current_thread")]
async fn a_build_through_the_real_codex_is_verified() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    std::fs::write(home.join("auth.json"), "{\"OPENAI_API_KEY\": null}\n").unwrap();
    let (_bin_dir, path) = codex_on_path(&bin);
    let write_wall = format!("cat > loki_wall_add_test.py <<'EOF'\n{WALL}EOF");
    fake.push(ResponsesTurn::exec("w1", &write_wall).with_usage(2000, 500, 100));
    fake.push(ResponsesTurn::text("Wall written.").with_usage(2100, 0, 10));
    fake.push(
        ResponsesTurn::exec("i1", "sed -i 's/a - b/a + b/' calc.py").with_usage(3000, 1000, 50),
    );
    fake.push(ResponsesTurn::text("add sums now.").with_usage(3100, 0, 10));
    let out = loki_build(&sb, &repo, &path, &home, &[]).await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out)));
    assert_eq!(out.status.code(), Some(0), "{v:#}\n{}", text(&out));
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 4);
    // The wall author got the task; the implementer's prompt is the task too.
    let first = fake.input_texts(0).join("\n");
    assert!(
        first.contains("add(a, b) returns the difference"),
        "{first}"
    );
    let run_dir = repo
        .path()
        .join(".loki/runs")
        .join(v["run_id"].as_str().unwrap());
    let r: Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(r["provider"], "codex", "{r:#}");
    assert_eq!(r["model"], MODEL, "{r:#}");
    // Codex reports tokens, not dollars: measured tokens, cost not measured.
    let cost = &r["cost"];
    assert_eq!(
        cost["input_tokens"],
        2000 + 2100 + 3000 + 3100 - 1500,
        "{cost:#}"
    );
    assert_eq!(cost["cache_read_tokens"], 1500, "{cost:#}");
    assert_eq!(cost["output_tokens"], 170, "{cost:#}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
    // The user's Codex home holds what it held: Codex wrote its sessions in the box.
    let mut left: Vec<String> = std::fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["auth.json", "config.toml"]);
}

/// Every process whose command line mentions `marker`.
/// Live processes whose command line holds `marker` and whose working directory is under `dir`
/// (this test's repository: other tests run Codex at the same time).
fn processes_with(dir: &Path, marker: &str) -> Vec<String> {
    let dir = dir.canonicalize().unwrap();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if !e
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        let here = std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c.starts_with(&dir));
        if here && cmd.contains(marker) {
            found.push(format!("{}: {cmd}", e.file_name().to_string_lossy()));
        }
    }
    found
}

/// The run cap (`run.cap_s`) ends a Codex that is stuck on a long command: Codex, its native
/// binary and the command it started (in a terminal of its own session) are all gone.
#[tokio::test(flavor = "current_thread")]
async fn the_run_cap_kills_codex_and_every_process_it_started() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    let (_bin_dir, path) = codex_on_path(&bin);
    let marker = format!("{}", 4000 + std::process::id() % 1000);
    // The command outlives the cap; Codex waits for it, then for the model (which hangs).
    fake.push(ResponsesTurn::exec(
        "w1",
        &format!("sleep {marker}0 & sleep {marker}1; echo done"),
    ));
    fake.push_hang();
    let started = std::time::Instant::now();
    let out = loki_build(&sb, &repo, &path, &home, &[("LOKI_RUN_CAP_S", "6")]).await;
    let took = started.elapsed();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", text(&out)));
    assert_ne!(v["outcome"], "VERIFIED", "{v:#}");
    assert!(
        took < std::time::Duration::from_secs(60),
        "the cap held: {took:?}"
    );
    assert!(!fake.requests().is_empty(), "codex ran the command");
    // Give the kernel a moment to reap, then nothing of the tree is left.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let left = processes_with(repo.path(), &format!("sleep {marker}"));
    assert!(left.is_empty(), "survivors: {left:#?}");
    let codexes = processes_with(repo.path(), "--dangerously-bypass-approvals-and-sandbox");
    assert!(codexes.is_empty(), "codex survived: {codexes:#?}");
}
