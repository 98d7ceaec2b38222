//! `loki serve` end to end with the real binary on a throwaway LOKI_HOME and SQLite: runs made
//! while it runs ship to it as they are written (`loki demo`, a BLOCKED build, a deep verify),
//! arrive intact with their receipts verified by the home's own key (no manual trust), a BLOCKED
//! run's answer posted to the server is what `loki answer` builds with, a second server of the
//! same home refuses, and the server cleans up after itself on SIGTERM.

use std::io::{BufRead as _, BufReader, Read as _};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use loki_control::ship::{Client, Target};
use loki_test_support::Sandbox;
use serde_json::{Value, json};

use crate::cli::sandboxed;
use crate::contract::{TEST_AC_1, build, calc_repo, script};

/// How long the answers of the running server may take.
const WAIT: Duration = Duration::from_secs(5);

/// `loki serve --port 0` in the sandbox, stopped with SIGTERM when dropped.
pub struct Serve {
    child: Child,
    pub url: String,
}

impl Serve {
    pub fn start(sb: &Sandbox) -> Serve {
        Serve::start_with(sb, &[])
    }

    /// [`Serve::start`] with more arguments.
    pub fn start_with(sb: &Sandbox, extra: &[&str]) -> Serve {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loki"));
        sb.apply(&mut cmd)
            .current_dir(sb.home())
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .strip_prefix("listening on ")
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string);
        let mut err = String::new();
        if url.is_none() {
            let stderr = child.stderr.as_mut().unwrap();
            stderr.read_to_string(&mut err).unwrap();
        }
        assert!(url.is_some(), "loki serve did not start: {line}{err}");
        let url = url.unwrap();
        Serve { url, child }
    }

    pub fn client(&self) -> Client {
        Client::new(Target {
            url: self.url.clone(),
            token: None,
        })
        .unwrap()
    }

    pub fn get(&self, path: &str) -> Value {
        self.client().get_json(path, WAIT).unwrap()
    }

    /// SIGKILL: a crash that leaves instance.json and the lock file behind.
    fn crash(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then the exit status.
    fn stop(&mut self) -> std::process::ExitStatus {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `loki answer <blocked>` with no `--text`: it builds with the answer posted to the running
/// server, judged against AC-1 alone, and must verify.
pub fn answer_from_the_server_verifies(
    sb: &Sandbox,
    repo: &loki_test_support::GitRepo,
    blocked: &str,
    tmp: &std::path::Path,
) {
    let fixed = script(&tmp.join("fixed.json"), TEST_AC_1);
    let out = sandboxed(sb, repo.path())
        .args([
            "answer",
            blocked,
            "--json",
            "--provider",
            "scripted",
            "--script",
        ])
        .arg(&fixed)
        .assert()
        .code(0)
        .get_output()
        .clone();
    let follow: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(follow["outcome"], "VERIFIED", "{follow:#}");
}

pub fn trust_home_key(sb: &Sandbox) {
    let pubkey = sb.loki_home().join("keys").join("receipt-ed25519.pub.pem");
    sandboxed(sb, sb.home())
        .args(["serve", "trust"])
        .arg(&pubkey)
        .assert()
        .success();
}

#[test]
fn a_demo_run_ships_to_the_running_server_and_arrives_intact() {
    let sb = Sandbox::new();
    let mut server = Serve::start(&sb);
    let instance = sb.loki_home().join("control").join("instance.json");
    let inst: Value = serde_json::from_slice(&std::fs::read(&instance).unwrap()).unwrap();
    assert_eq!(inst["url"], server.url.as_str());
    assert_eq!(inst["pid"], server.child.id());

    sandboxed(&sb, sb.home())
        .args(["demo", "--keep"])
        .assert()
        .code(0);
    // No `loki serve trust`: the server trusts the key of the home it serves.

    let runs = server.get("/v1/runs");
    let run = &runs["runs"][0];
    assert_eq!(runs["runs"].as_array().unwrap().len(), 1, "{runs:#}");
    assert_eq!(run["verdict"], "VERIFIED", "{run:#}");
    assert_eq!(run["state"], "intact", "{run:#}");
    let one = server.get(&format!(
        "/v1/runs/{}/{}",
        run["source"].as_str().unwrap(),
        run["run"].as_str().unwrap()
    ));
    assert_eq!(one["receipt"]["state"], "intact", "{one:#}");
    assert!(one["chain"]["broken"].is_null(), "{one:#}");
    assert!(!one["not_proven"].as_array().unwrap().is_empty(), "{one:#}");

    sandboxed(&sb, sb.home())
        .args(["serve", "status"])
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "control plane: running at {}",
            server.url
        )));
    let repo = run["repo"].as_str().unwrap();
    sandboxed(&sb, sb.home())
        .args([
            "serve",
            "prune",
            "--repo",
            repo,
            "--before",
            "2999-01-01",
            "--dry-run",
        ])
        .assert()
        .success()
        .stdout(predicates::str::contains("1 run(s) of"))
        .stdout(predicates::str::contains("dry run: nothing removed"));

    assert!(server.stop().success());
    assert!(!instance.exists(), "instance.json is removed at exit");
    sandboxed(&sb, sb.home())
        .args(["serve", "status"])
        .assert()
        .code(1)
        .stdout("control plane: not running\n");
}

#[test]
fn an_answer_posted_to_the_server_is_what_loki_answer_builds_with() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let server = Serve::start(&sb);
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let unused = script(&tmp.path().join("unused.json"), TEST_AC_1);
    let conflicting = "Fix add() in calc.py.\n\n## Requirements\n- `add(2, 3)` must return 5\n- `add(2, 3)` must not return 5\n";
    let v = build(&sb, &repo, conflicting, &unused, 4);
    assert_eq!(v["outcome"], "BLOCKED", "{v:#}");
    let blocked = v["run_id"].as_str().unwrap().to_string();

    let list = server.get("/v1/runs?verdict=BLOCKED");
    let run = &list["runs"][0];
    assert_eq!(run["run"], blocked.as_str(), "{list:#}");
    assert_eq!(run["blocked"], true);
    let answer = format!(
        "/v1/runs/{}/{blocked}/answer",
        run["source"].as_str().unwrap()
    );
    let (status, body) = server
        .client()
        .post_json(&answer, &json!({"answer": "AC-1: add sums."}))
        .unwrap();
    assert_eq!(status, 200, "{body}");

    // No --text and nothing on stdin: without the posted answer this is "the answer is empty"
    // (exit 2); with it, the follow-up is judged against AC-1 alone and verifies.
    answer_from_the_server_verifies(&sb, &repo, &blocked, tmp.path());
    // The answer was taken: it is not used twice.
    let (_, again) = server
        .client()
        .post_json(&format!("{answer}/take"), &json!({}))
        .unwrap();
    assert_eq!(again["answer"], Value::Null);
}

#[test]
fn a_second_serve_of_the_same_home_refuses_with_the_firsts_address_and_the_first_keeps_serving() {
    let sb = Sandbox::new();
    let mut first = Serve::start(&sb);
    let instance = sb.loki_home().join("control").join("instance.json");
    let before = std::fs::read(&instance).unwrap();
    let out = sandboxed(&sb, sb.home())
        .args(["serve", "--port", "0"])
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("another loki serve already serves"),
        "{stderr}"
    );
    assert!(stderr.contains(&first.url), "{stderr}");
    assert_eq!(
        std::fs::read(&instance).unwrap(),
        before,
        "instance.json untouched"
    );
    sandboxed(&sb, sb.home())
        .args(["serve", "status"])
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "control plane: running at {}",
            first.url
        )));
    // A crashed server blocks nobody: its lock went with it.
    first.crash();
    let second = Serve::start(&sb);
    assert_eq!(second.get("/health")["service"], "loki-control");
}

#[test]
fn serve_with_a_db_in_a_missing_directory_refuses_and_creates_nothing() {
    let sb = Sandbox::new();
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nonexistent").join("dir");
    let out = sandboxed(&sb, sb.home())
        .args(["serve", "--port", "0", "--db"])
        .arg(missing.join("x.db"))
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "the directory {} does not exist",
            missing.display()
        )),
        "{stderr}"
    );
    assert!(
        !tmp.path().join("nonexistent").exists(),
        "a directory was created"
    );
    let out = sandboxed(&sb, sb.home())
        .args([
            "serve",
            "prune",
            "--repo",
            "/r",
            "--before",
            "2999-01-01",
            "--db",
        ])
        .arg(missing.join("x.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !tmp.path().join("nonexistent").exists(),
        "a directory was created"
    );
}

#[test]
fn a_deep_verify_with_the_server_up_ships_as_its_own_run_and_the_build_stays_intact() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let server = Serve::start(&sb);
    let repo = crate::deep::repo(false);
    let tmp = tempfile::tempdir().unwrap();
    let script = crate::deep::script(tmp.path(), &[]);
    sandboxed(&sb, repo.path())
        .args([crate::deep::TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .assert()
        .code(0);
    let run = crate::deep::only_run(&repo);
    for _ in 0..2 {
        // Twice: a second deep verify of the same run is a run of its own too.
        sandboxed(&sb, repo.path())
            .args(["deep", &run])
            .timeout(Duration::from_secs(300))
            .assert()
            .code(0);
    }
    let list = server.get("/v1/runs");
    let runs = list["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{list:#}");
    let build = runs.iter().find(|r| r["run"] == run.as_str()).unwrap();
    assert_eq!(build["state"], "intact", "{build:#}");
    assert_eq!(build["kind"], "build", "{build:#}");
    for deep in runs.iter().filter(|r| r["run"] != run.as_str()) {
        assert_eq!(deep["kind"], "deep", "{deep:#}");
        assert_eq!(deep["state"], "intact", "{deep:#}");
        assert!(
            deep["run"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{run}.deep.")),
            "{deep:#}"
        );
    }
    let audit = server.get("/v1/audit");
    assert!(!audit.to_string().contains("conflict"), "{audit:#}");
}
