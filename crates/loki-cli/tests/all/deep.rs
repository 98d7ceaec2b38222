//! `loki deep <run>` and `--deep` end to end: a real build run by the scripted provider in a real
//! repository, then the deep verify of it: the full suite (catching a failure outside the impacted
//! tests), the app boot, the secret scan (a planted token found by file and line, its value
//! nowhere), its own signed receipt that `loki verify` checks, and a tampered one that it refuses.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

pub const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";
const APP: &str = "import http.server, os\n\nclass H(http.server.BaseHTTPRequestHandler):\n    def do_GET(self):\n        self.send_response(200)\n        self.end_headers()\n        self.wfile.write(b'ok')\n\nhttp.server.HTTPServer(('127.0.0.1', int(os.environ['PORT'])), H).serve_forever()\n";

/// The planted secret, assembled at run time so this file holds no token a scanner would flag.
fn token() -> String {
    format!("ghp_{}{}", "Zq8Lm3Vt9Xw2Rk7Pb4Nc", "6Hd1Jf5Gs0Ay3Ue8")
}

/// A Python project with a bug, a booting app (`app/__main__.py`) and, when `with_web`, a Node
/// package in `web/` whose test fails: not impacted by a change to `calc.py`.
pub fn repo(with_web: bool) -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write("app/__init__.py", "")
        .write("app/__main__.py", APP)
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    if with_web {
        repo.write(
            "web/package.json",
            r#"{"name":"web","private":true,"scripts":{"test":"node --test"}}"#,
        )
        .write(
            "web/test/sum.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\ntest('sum', () => { assert.strictEqual(1 + 1, 3); });\n",
        );
    }
    repo.commit("calc with a bug");
    repo
}

fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

pub fn script(dir: &Path, extra: &[Value]) -> PathBuf {
    script_with(dir, true, extra)
}

fn script_with(dir: &Path, fix: bool, extra: &[Value]) -> PathBuf {
    let mut turns = Vec::new();
    if fix {
        turns.push(call(
            "edit",
            &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"}),
        ));
    }
    turns.extend_from_slice(extra);
    turns.push(call("finish", &json!({"status": "done", "detail": "done"})));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", &json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": turns}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

pub fn only_run(repo: &GitRepo) -> String {
    let runs: Vec<_> = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(runs.len(), 1);
    runs[0].file_name().to_string_lossy().into_owned()
}

/// Every file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every file under `dir` and its bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut all = Vec::new();
    files(dir, &mut all);
    all.into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

#[test]
fn deep_verify_finds_the_secret_the_suite_failure_and_boots_the_app() {
    if !loki_test_support::require_pytest()
        || !loki_test_support::require_tool("npm", &["--version"])
    {
        return;
    }
    let sb = Sandbox::new();
    let repo = repo(true);
    let tmp = tempfile::tempdir().unwrap();
    let secret = token();
    let plant = call(
        "write_file",
        &json!({"path": "settings.py", "content": format!("DEBUG = False\nGITHUB_TOKEN = \"{secret}\"\n")}),
    );
    let script = script(tmp.path(), &[plant]);
    let build = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let build_out = format!(
        "{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    assert!(build_out.contains("NOT PROVEN:"), "{build_out}");
    let run = only_run(&repo);
    let run_dir = repo.path().join(".loki/runs").join(&run);
    let main_before = std::fs::read(run_dir.join("receipt.json")).unwrap();
    // The main run's own records (its worktree, the agent's transcript) hold what the agent
    // wrote; what the deep verify writes must not.
    let before = snapshot(&repo.path().join(".loki"));

    let out = sandboxed(&sb, repo.path())
        .args(["deep", &run])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    // The summary's word is the receipt's verdict: a failing suite and a secret, beside checks
    // that passed, are PARTIAL there as for any run.
    assert!(stdout.starts_with("Deep:       PARTIAL\n"), "{stdout}");
    // The secret: file, line and rule, never the value.
    assert!(
        stdout.contains("Secrets:    settings.py:2: github-pat ghp_…(40 chars)"),
        "{stdout}"
    );
    assert!(!stdout.contains(&secret) && !stderr.contains(&secret));
    // The full suite ran the Node package the change did not touch, and caught its failure.
    assert!(stdout.contains("Full suite: node:web fail"), "{stdout}");
    assert!(stdout.contains("Full suite: pytest pass"), "{stdout}");
    // The app booted and answered.
    assert!(
        stdout.contains("App boot:   python `python3 -m app`: booted: listened on port"),
        "{stdout}"
    );

    // The main receipt is untouched; the deep one is bound to it.
    assert_eq!(
        std::fs::read(run_dir.join("receipt.json")).unwrap(),
        main_before
    );
    let main: Value = serde_json::from_slice(&main_before).unwrap();
    let deep_dir = run_dir.join("deep");
    let deep: Value =
        serde_json::from_slice(&std::fs::read(deep_dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(deep["kind"], "deep");
    assert_eq!(deep["run_id"], main["run_id"]);
    assert_eq!(deep["repo"], main["repo"]);
    assert_eq!(deep["main_receipt"], main["receipt_sha256"]);
    let what = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|n| n["what"].as_str().unwrap().to_string())
            .collect()
    };
    let not_proven = what(&deep["not_proven"]);
    assert!(
        !not_proven.iter().any(|n| n == "full suite"),
        "{not_proven:?}"
    );
    assert!(
        !not_proven.iter().any(|n| n == "app boot"),
        "{not_proven:?}"
    );
    assert!(
        not_proven
            .iter()
            .any(|n| n == "integrity: secret settings.py"),
        "{not_proven:?}"
    );
    // The build's receipt says why app boot is not proven, and that this deep verify proves it.
    let main_np = main["not_proven"].as_array().unwrap();
    assert!(
        main_np.iter().any(|v| v["what"] == "app boot"
            && v["prove"] == format!("loki deep {}", main["run_id"].as_str().unwrap())),
        "{main_np:?}"
    );

    // The value is in no file the deep verify wrote or changed under .loki.
    let after = snapshot(&repo.path().join(".loki"));
    let written: Vec<_> = after
        .iter()
        .filter(|(p, bytes)| before.get(*p) != Some(bytes))
        .collect();
    assert!(
        written
            .iter()
            .any(|(p, _)| p.ends_with("deep/receipt.json")),
        "{:?}",
        written.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    for (path, bytes) in written {
        assert!(
            !String::from_utf8_lossy(bytes).contains(&secret),
            "{} holds the secret",
            path.display()
        );
    }

    // The format of receipt.md.
    let md = std::fs::read_to_string(deep_dir.join("receipt.md")).unwrap();
    insta::with_settings!({filters => vec![
        (r"[0-9a-f]{64}", "[sha256]"),
        (r"`[0-9a-f]{40}`", "`[sha1]`"),
        (r"`[0-9a-f]{12}`", "`[short]`"),
        (r"run_[0-9]{8}_[0-9]{6}_[0-9a-z]+", "[run]"),
        (r"\| [0-9.]+(ms|s|m[0-9]+s) \|", "| [time] |"),
        (r"Time \| .*\|", "Time | [time] |"),
        // Where Landlock is missing the suite runs unconfined and NOT PROVEN says so.
        (r"- isolation: [^\n]*\n", ""),
    ]}, {
        insta::assert_snapshot!("deep_receipt_md", md);
    });

    // It verifies: intact and signed, its outcome not VERIFIED (exit 4).
    let verify = sandboxed(&sb, repo.path())
        .args(["verify"])
        .arg(&deep_dir)
        .output()
        .unwrap();
    let v = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(4), "{v}");
    assert!(v.contains("pass  signature"), "{v}");

    // Tampered: a secret finding dropped from the receipt is detected.
    let mut forged = deep.clone();
    forged["integrity"] = json!([]);
    std::fs::write(
        deep_dir.join("receipt.json"),
        serde_json::to_vec_pretty(&forged).unwrap(),
    )
    .unwrap();
    let verify = sandboxed(&sb, repo.path())
        .args(["verify"])
        .arg(&deep_dir)
        .output()
        .unwrap();
    let v = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(1), "{v}");
    assert!(v.contains("TAMPERED"), "{v}");
}

#[test]
fn deep_refuses_an_unknown_run_with_exit_2() {
    let sb = Sandbox::new();
    let repo = repo(false);
    let out = sandboxed(&sb, repo.path())
        .args(["deep", "run_20260101_000000_abcd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no run run_20260101_000000_abcd"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn deep_refuses_a_run_without_a_change_with_exit_2() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = repo(false);
    let tmp = tempfile::tempdir().unwrap();
    let script = script_with(tmp.path(), false, &[]);
    let build = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_ne!(build.status.code(), Some(0));
    let run = only_run(&repo);
    let out = sandboxed(&sb, repo.path())
        .args(["deep", &run])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("made no change"), "{stderr}");
    assert!(
        !repo
            .path()
            .join(".loki/runs")
            .join(&run)
            .join("deep")
            .exists()
    );
}

#[test]
fn a_deep_build_returns_its_own_exit_code_and_the_deep_receipt_appears_and_verifies() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = repo(false);
    // Code under test reaching for the signing key: refused by the box (a machine without
    // Landlock skips this part locally and fails it under CI).
    let boxed = loki_test_support::require_landlock();
    if boxed {
        let key = loki_core::layout::default_signing_key_path(&sb.loki_home());
        repo.write(
            "test_key.py",
            &format!(
                "def test_the_signing_key_is_out_of_reach():\n    try:\n        open({:?}, 'rb').read()\n    except (PermissionError, FileNotFoundError):\n        return\n    raise AssertionError('the signing key was readable')\n",
                key.display().to_string()
            ),
        );
        repo.commit("a test that reaches for the key");
    }
    let tmp = tempfile::tempdir().unwrap();
    let script = script(tmp.path(), &[]);
    let out = sandboxed(&sb, repo.path())
        .args([TASK, "--deep", "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("Outcome:    VERIFIED\n"), "{stdout}");
    assert!(
        stderr.contains("Deep:       started in the background"),
        "{stderr}"
    );
    let run = only_run(&repo);
    let run_dir = repo.path().join(".loki/runs").join(&run);
    // Returned before the deep verify sealed: its receipt appears afterwards.
    let receipt = run_dir.join("deep/receipt.md");
    let deadline = Instant::now() + Duration::from_secs(180);
    while !receipt.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        receipt.exists(),
        "no deep receipt; log: {}",
        std::fs::read_to_string(run_dir.join("deep.log")).unwrap_or_default()
    );
    // The detached verify writes the envelope before receipt.md; its log names the result.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut log = String::new();
    while !log.contains("Written:") && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        log = std::fs::read_to_string(run_dir.join("deep.log")).unwrap_or_default();
    }
    assert!(log.starts_with("Deep:       VERIFIED\n"), "{log}");
    if boxed {
        // The key existed (the main run had signed) and the suite still passed: it was denied.
        assert!(
            log.contains("Full suite: pytest pass: 2 executed, 2 passed"),
            "{log}"
        );
    } else {
        assert!(
            log.contains("isolation: Landlock is not available"),
            "{log}"
        );
    }
    let verify = sandboxed(&sb, repo.path())
        .args(["verify"])
        .arg(run_dir.join("deep"))
        .output()
        .unwrap();
    let v = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(0), "{v}");
    assert!(v.contains("Verify:     VERIFIED"), "{v}");
}

#[test]
fn an_app_that_crashes_on_boot_fails_the_deep_verify_with_its_exit_code_and_output() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = repo(false);
    repo.write(
        "app/__main__.py",
        "import sys\nprint('DATABASE_URL is not set')\nsys.exit(3)\n",
    );
    repo.commit("an app that needs a database");
    let tmp = tempfile::tempdir().unwrap();
    let script = script(tmp.path(), &[]);
    let build = sandboxed(&sb, repo.path())
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(build.status.code(), Some(0));
    let run = only_run(&repo);
    let out = sandboxed(&sb, repo.path())
        .args(["deep", &run])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("App boot:   python `python3 -m app`: crashed on boot: it exited with code 3 before listening on port"),
        "{stdout}"
    );
    assert!(stdout.contains("| DATABASE_URL is not set"), "{stdout}");
    assert!(stdout.contains("Secrets:    none in"), "{stdout}");
    let deep: Value = serde_json::from_slice(
        &std::fs::read(
            repo.path()
                .join(".loki/runs")
                .join(&run)
                .join("deep/receipt.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let not_proven = deep["not_proven"].as_array().unwrap();
    assert!(
        not_proven
            .iter()
            .any(|v| v["what"] == "check app boot: python" && v["why"] == "failed"),
        "{not_proven:?}"
    );
}

/// `loki demo --keep --json` with `LOKI_HOME` at `loki_home` (outside the sandbox's `HOME`):
/// the kept repository and the run's id.
fn kept_demo(sb: &Sandbox, loki_home: &Path) -> (PathBuf, String) {
    let out = sandboxed(sb, sb.home())
        .env("LOKI_HOME", loki_home)
        .args(["--json", "demo", "--keep"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let repo = PathBuf::from(v["repo"].as_str().unwrap());
    (repo, v["run_id"].as_str().unwrap().to_string())
}

/// The demo's kept run (a Rust crate) deep-verified with `HOME` and `LOKI_HOME` moved apart, as
/// in a sandbox: the suite runs with the build's toolchains, in the build's box with a private
/// temporary directory, and passes; the summary's word is the receipt's.
#[test]
fn deep_verify_of_the_kept_demo_runs_the_suite_with_the_builds_toolchains() {
    let sb = Sandbox::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let loki_home = elsewhere.path().join("lokihome");
    let (repo, run) = kept_demo(&sb, &loki_home);
    let out = sandboxed(&sb, &repo)
        .env("LOKI_HOME", &loki_home)
        .args(["deep", &run])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let receipt: Value = serde_json::from_slice(
        &std::fs::read(repo.join(".loki/runs").join(&run).join("deep/receipt.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(receipt["verdict"], "VERIFIED", "{stdout}{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.starts_with("Deep:       VERIFIED\n"), "{stdout}");
    assert!(stdout.contains("Full suite: cargo pass: "), "{stdout}");
    assert!(!stdout.contains("Machine:"), "{stdout}");
    std::fs::remove_dir_all(repo.parent().unwrap()).unwrap();
}

/// A toolchain that is not there is the machine's failure: the suite did not run (with the tool
/// and the fix), it did not fail, and the outcome word is the receipt's.
#[test]
fn a_missing_toolchain_is_reported_as_the_environment_not_as_the_code() {
    let sb = Sandbox::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let loki_home = elsewhere.path().join("lokihome");
    let (repo, run) = kept_demo(&sb, &loki_home);
    let empty = elsewhere.path().join("no-rustup");
    std::fs::create_dir_all(&empty).unwrap();
    let out = sandboxed(&sb, &repo)
        .env("LOKI_HOME", &loki_home)
        .env("RUSTUP_HOME", &empty)
        .args(["--json", "deep", &run])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}{stderr}"));
    assert_eq!(v["verdict"], "PARTIAL", "{v:#}");
    assert_eq!(v["failed"], false, "{v:#}");
    assert_eq!(v["suite"][0]["result"], "not_run", "{v:#}");
    assert_eq!(v["environment"][0]["check"], "cargo", "{v:#}");
    assert_eq!(v["environment"][0]["tool"], "rustup", "{v:#}");
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    let receipt: Value = serde_json::from_slice(
        &std::fs::read(repo.join(".loki/runs").join(&run).join("deep/receipt.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(receipt["verdict"], v["verdict"]);
    assert_eq!(receipt["checks"][0]["result"], "not_run", "{receipt:#}");
    let human = sandboxed(&sb, &repo)
        .env("LOKI_HOME", &loki_home)
        .env("RUSTUP_HOME", &empty)
        .args(["deep", &run])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.starts_with("Deep:       PARTIAL\n"), "{text}");
    assert!(
        text.contains("Machine:    cargo did not run, not the code's failure: rustup found no Rust toolchain; install one (`rustup default stable`)"),
        "{text}"
    );
    std::fs::remove_dir_all(repo.parent().unwrap()).unwrap();
}
