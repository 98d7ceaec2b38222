//! The interrupt matrix: Ctrl-C (SIGINT) or SIGTERM at every stage boundary and inside every long
//! stage of a build, inside a seal stop and a `seal check`, inside a fix's replay, inside a deep
//! verify. Each time the run claims nothing it did not finish: its receipt verifies intact and
//! says INTERRUPTED with no check, finding or contract result; the exit code is the signal's; and
//! nothing of loki's is left in the temporary directory. Real processes and real signals; a
//! point is reached by watching the run's own event log or a marker file the slow part writes,
//! never by sleeping a guessed time.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

/// How long a point may take to be reached, or loki to end, before the test gives up.
const BOUND: Duration = Duration::from_secs(120);

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
/// A test that sleeps (writing a marker in its working directory and its temporary directory
/// first, where the box lets it) while the flag file
/// `{flag}` exists: the long part of a stage the signal is sent into. The flag is outside the
/// repository, so the test decides when a suite is slow whatever tree it runs on.
fn slow_test(name: &str, flag: &Path, marker: &str) -> String {
    format!(
        "import os, tempfile, time\nfrom calc import add\n\n\ndef {name}():\n    if os.path.exists({flag:?}):\n        for d in ('.', tempfile.gettempdir()):\n            try:\n                open(os.path.join(d, '{marker}'), 'w').close()\n            except OSError:\n                pass\n        time.sleep(60)\n    assert add(2, 3) == 5\n"
    )
}

const SUITE_FLAG: &str = "SLOW_SUITE";
const WALL_FLAG: &str = "SLOW_WALL";

/// Which parts are slow.
#[derive(Clone, Copy, PartialEq)]
enum Slow {
    Nothing,
    /// The repository's suite (verify, a seal stop, a deep verify).
    Suite,
    /// The wall's test (the gate runs it on the base).
    Wall,
}

struct Fixture {
    sb: Sandbox,
    repo: GitRepo,
    /// `$TMPDIR` of every loki started here: must be empty after each interruption.
    tmp: PathBuf,
    suite_flag: PathBuf,
    wall_flag: PathBuf,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new(slow: Slow) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).unwrap();
        // In $TMPDIR: every box loki draws lets the suites read it.
        let (suite_flag, wall_flag) = (tmp.join(SUITE_FLAG), tmp.join(WALL_FLAG));
        let repo = GitRepo::new();
        repo.write("calc.py", "def add(a, b):\n    return a - b\n")
            .write(
                "test_calc.py",
                &slow_test("test_add", &suite_flag, ".marker-suite"),
            )
            .write(".gitignore", "__pycache__/\n.pytest_cache/\n.marker-*\n");
        repo.commit("calc with a bug");
        match slow {
            Slow::Nothing => {}
            Slow::Suite => std::fs::write(&suite_flag, "").unwrap(),
            Slow::Wall => std::fs::write(&wall_flag, "").unwrap(),
        }
        Fixture {
            sb: Sandbox::new(),
            repo,
            tmp,
            suite_flag,
            wall_flag,
            _dir: dir,
        }
    }

    /// Whether a marker named `name` was written anywhere a suite runs (the repository, its
    /// worktrees, the temporary directory).
    fn marker(&self, name: &str) -> bool {
        marker_below(self.repo.path(), name)
            || marker_below(&self.tmp, name)
            || marker_below(&self.sb.loki_home(), name)
    }

    /// The scripted build: the wall author, then the implementer making `calls` and the fix.
    fn script(&self, calls: &[Value]) -> PathBuf {
        let call =
            |name: &str, args: Value| json!({"tool_calls": [{"name": name, "arguments": args}]});
        let mut turns = calls.to_vec();
        turns.push(call(
            "edit",
            json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"}),
        ));
        turns.push(call("finish", json!({"status": "done", "detail": "done"})));
        let s = json!({"sessions": [
            {"name": "wall", "turns": [
                call("write_file", json!({"path": "loki_wall_add_test.py",
                    "content": slow_test("test_add_sums", &self.wall_flag, ".marker-wall")})),
                call("finish", json!({"status": "done", "detail": "wall"}))]},
            {"name": "implement", "turns": turns}]});
        let path = self._dir.path().join("script.json");
        std::fs::write(&path, s.to_string()).unwrap();
        path
    }

    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
        self.sb
            .apply(&mut cmd)
            .env("TMPDIR", &self.tmp)
            .current_dir(self.repo.path())
            .args(args);
        cmd
    }

    fn start(&self, args: &[&str], stdin: Option<&str>) -> Child {
        let out = self._dir.path().join("loki.out");
        let err = self._dir.path().join("loki.err");
        let mut cmd = self.command(args);
        cmd.stdout(std::fs::File::create(out).unwrap())
            .stderr(std::fs::File::create(err).unwrap());
        match stdin {
            Some(text) => {
                let input = self._dir.path().join("stdin.json");
                std::fs::write(&input, text).unwrap();
                cmd.stdin(std::fs::File::open(input).unwrap());
            }
            None => {
                cmd.stdin(Stdio::null());
            }
        }
        cmd.spawn().unwrap()
    }

    fn output(&self) -> String {
        let out = std::fs::read_to_string(self._dir.path().join("loki.out")).unwrap_or_default();
        let err = std::fs::read_to_string(self._dir.path().join("loki.err")).unwrap_or_default();
        format!("stdout:\n{out}\nstderr:\n{err}")
    }

    /// The newest run directory, once there is one.
    fn latest_run(&self) -> Option<PathBuf> {
        loki_test_support::newest_run(&self.repo.path().join(".loki/runs"))
    }

    /// Nothing loki made is left in `$TMPDIR`.
    fn assert_tmp_clean(&self, point: &str) {
        let left: Vec<String> = std::fs::read_dir(&self.tmp)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != SUITE_FLAG && n != WALL_FLAG)
            .collect();
        assert!(left.is_empty(), "{point}: left in $TMPDIR: {left:?}");
    }
}

/// Waits until `reached` holds (polling), or fails naming the point.
fn wait_for(point: &str, mut reached: impl FnMut() -> bool) {
    let start = Instant::now();
    while !reached() {
        assert!(start.elapsed() < BOUND, "{point} was never reached");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether the run's event log has an event of `kind` (for a stage, `stage.started` of it).
fn logged(run: &Path, kind: &str, stage: Option<&str>) -> bool {
    std::fs::read_to_string(run.join("events.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|e| e["type"] == kind && stage.is_none_or(|s| e["stage"] == s))
}

/// Whether a file named `name` exists anywhere below `root`.
fn marker_below(root: &Path, name: &str) -> bool {
    walkdir(root)
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == name))
}

fn walkdir(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

fn signal(child: &Child, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([format!("-{sig}"), child.id().to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig}");
}

fn exit_of(child: &mut Child) -> Option<i32> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        assert!(start.elapsed() < BOUND, "loki did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The sealed receipt of `run` says INTERRUPTED and claims nothing, and `loki verify` finds it
/// intact (exit 4: intact, the outcome is not VERIFIED).
fn assert_interrupted_receipt(f: &Fixture, run: &Path, point: &str) {
    let path = run.join("receipt.json");
    assert!(
        path.is_file(),
        "{point}: no receipt in {}\n{}",
        run.display(),
        f.output()
    );
    let receipt: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(
        receipt["verdict"],
        "INTERRUPTED",
        "{point}: {receipt:#}\n{}",
        f.output()
    );
    for claim in ["checks", "integrity", "facts", "assessments"] {
        assert!(
            receipt[claim].as_array().is_none_or(Vec::is_empty),
            "{point}: an interrupted run claims {claim}: {receipt:#}"
        );
    }
    assert!(receipt.get("judgement").is_none(), "{point}: {receipt:#}");
    let not_proven = receipt["not_proven"].to_string();
    assert!(not_proven.contains("interrupted"), "{point}: {not_proven}");
    let verify = f
        .command(&["verify", run.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&verify.stdout);
    assert_eq!(verify.status.code(), Some(4), "{point}: {text}");
    assert!(text.contains("INTERRUPTED"), "{point}: {text}");
}

/// Starts a build, sends `sig` once `reached` holds for its run directory, and checks the matrix's
/// promises.
fn interrupt_build(
    point: &str,
    slow: Slow,
    calls: &[Value],
    sig: &str,
    reached: impl Fn(&Fixture, &Path) -> bool,
) {
    let f = Fixture::new(slow);
    let script = f.script(calls);
    let mut loki = f.start(
        &[
            TASK,
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
        ],
        None,
    );
    let mut run = None;
    wait_for(point, || {
        run = f.latest_run();
        run.as_deref().is_some_and(|r| reached(&f, r))
    });
    signal(&loki, sig);
    let want = if sig == "TERM" { 143 } else { 130 };
    assert_eq!(exit_of(&mut loki), Some(want), "{point}\n{}", f.output());
    let run = run.unwrap();
    assert!(
        logged(&run, "run.interrupted", None),
        "{point}: no run.interrupted\n{}",
        f.output()
    );
    assert_interrupted_receipt(&f, &run, point);
    f.assert_tmp_clean(point);
}

#[test]
fn a_build_interrupted_at_every_stage_boundary_claims_nothing() {
    if !loki_test_support::require_pytest() {
        return;
    }
    for stage in ["intake", "wall", "gate", "implement", "verify", "commit"] {
        let point = format!("SIGINT at the start of {stage}");
        interrupt_build(&point, Slow::Nothing, &[], "INT", |_, run| {
            logged(run, "stage.started", Some(stage))
        });
    }
}

#[test]
fn a_build_interrupted_inside_its_long_stages_claims_nothing() {
    if !loki_test_support::require_pytest() {
        return;
    }
    // Inside the gate: the wall test sleeps on the base.
    interrupt_build(
        "SIGINT inside gate (the wall on the base)",
        Slow::Wall,
        &[],
        "INT",
        |f, _| f.marker(".marker-wall"),
    );
    // Inside implement: the agent's command sleeps.
    let slow = json!({"tool_calls": [{"name": "run", "arguments": {"command": "touch .marker-agent; sleep 60"}}]});
    interrupt_build(
        "SIGTERM inside implement (an agent command)",
        Slow::Nothing,
        &[slow],
        "TERM",
        |f, _| f.marker(".marker-agent"),
    );
    // Inside verify: the suite sleeps (the gate runs only the wall).
    interrupt_build(
        "SIGINT inside verify (the suite)",
        Slow::Suite,
        &[],
        "INT",
        |f, run| logged(run, "stage.started", Some("verify")) && f.marker(".marker-suite"),
    );
}

#[test]
fn a_seal_stop_and_a_seal_check_interrupted_while_the_suite_runs_judge_nothing() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let f = Fixture::new(Slow::Nothing);
    let hook = json!({"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup",
        "cwd": f.repo.path()})
    .to_string();
    let mut start = f.start(&["seal", "start"], Some(&hook));
    assert_eq!(exit_of(&mut start), Some(0), "{}", f.output());
    // The agent's change makes the suite slow (and would be judged); the stop is cut inside it.
    f.repo
        .write("calc.py", "def add(a, b):\n    return a + b\n");
    std::fs::write(&f.suite_flag, "").unwrap();
    let stop =
        json!({"session_id": "s1", "hook_event_name": "Stop", "cwd": f.repo.path()}).to_string();
    let mut loki = f.start(&["seal", "stop"], Some(&stop));
    wait_for("SIGINT inside a seal stop", || f.marker(".marker-suite"));
    signal(&loki, "INT");
    assert_eq!(exit_of(&mut loki), Some(130), "{}", f.output());
    let run = f.latest_run().unwrap();
    assert!(logged(&run, "run.interrupted", None), "{}", f.output());
    assert_interrupted_receipt(&f, &run, "seal stop");
    f.assert_tmp_clean("seal stop");
    // The worktree's state was not touched: no block counted, the next stop judges again.
    let state: Value = serde_json::from_slice(
        &std::fs::read(loki_seal::worktree_state_path(
            &f.sb.loki_home(),
            f.repo.path(),
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(state["blocks"], 0, "{state:#}");
    assert!(
        state["history"].as_array().is_none_or(Vec::is_empty),
        "the cut stop was recorded as a stop: {state:#}"
    );

    for root in [f.repo.path().to_path_buf(), f.tmp.clone(), f.sb.loki_home()] {
        for p in walkdir(&root) {
            if p.file_name().is_some_and(|n| n == ".marker-suite") {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    let mut check = f.start(&["seal", "check", "--base", "HEAD"], None);
    wait_for("SIGINT inside seal check", || f.marker(".marker-suite"));
    signal(&check, "INT");
    assert_eq!(exit_of(&mut check), Some(130), "{}", f.output());
    let out = f.output();
    assert!(
        out.contains("interrupted (SIGINT) before the change was judged"),
        "{out}"
    );
    assert!(!out.contains("FINDINGS") && !out.contains("CLEAN"), "{out}");
    f.assert_tmp_clean("seal check");
}

#[test]
fn a_deep_verify_interrupted_keeps_the_previous_one_and_seals_an_interrupted_receipt() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let f = Fixture::new(Slow::Nothing);
    let script = f.script(&[]);
    let mut build = f.start(
        &[
            TASK,
            "--provider",
            "scripted",
            "--script",
            script.to_str().unwrap(),
            "--keep",
        ],
        None,
    );
    assert_eq!(exit_of(&mut build), Some(0), "{}", f.output());
    let run = f.latest_run().unwrap();
    let id = run.file_name().unwrap().to_string_lossy().into_owned();
    let mut first = f.start(&["deep", &id], None);
    exit_of(&mut first);
    let first_receipt = run.join("deep/receipt.json");
    assert!(
        first_receipt.is_file(),
        "no first deep receipt\n{}",
        f.output()
    );
    let previous = std::fs::read(first_receipt).unwrap();
    // The second deep verify's full suite is slow; it is cut inside it.
    std::fs::write(&f.suite_flag, "").unwrap();
    let mut deep = f.start(&["deep", &id], None);
    wait_for("SIGINT inside deep", || f.marker(".marker-suite"));
    signal(&deep, "INT");
    assert_eq!(exit_of(&mut deep), Some(130), "{}", f.output());
    assert_eq!(
        std::fs::read(run.join("deep/receipt.json")).unwrap(),
        previous,
        "the previous deep receipt is kept"
    );
    let kept = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("deep."))
        })
        .find(|p| p.join("receipt.json").is_file());
    assert!(
        kept.is_some(),
        "no kept interrupted deep verify\n{}",
        f.output()
    );
    let kept = kept.unwrap();
    assert_interrupted_receipt(&f, &kept, "deep");
    f.assert_tmp_clean("deep");
}

#[test]
fn a_browser_capture_interrupted_removes_its_profile_and_records_no_incident() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let f = Fixture::new(Slow::Nothing);
    // A quiet page the capture waits on (a long step), served by loki.
    f.repo
        .write(
            "site/index.html",
            "<!doctype html><title>t</title><p>quiet</p>\n",
        )
        .write("steps.yaml", "- wait: 60000\n");
    let mut cmd = f.command(&[
        "run",
        "--url",
        "/index.html",
        "--serve",
        "site",
        "--steps",
        "steps.yaml",
    ]);
    cmd.env("LOKI_BROWSER", &browser)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(f._dir.path().join("loki.out")).unwrap())
        .stderr(std::fs::File::create(f._dir.path().join("loki.err")).unwrap());
    let mut loki = cmd.spawn().unwrap();
    wait_for("SIGINT inside a browser capture", || {
        std::fs::read_dir(&f.tmp)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("loki-browser-"))
    });
    // The browser is up (its profile exists) and waits on the page's step.
    std::thread::sleep(Duration::from_secs(2));
    signal(&loki, "INT");
    assert_eq!(exit_of(&mut loki), Some(130), "{}", f.output());
    let run = f.latest_run().unwrap();
    assert!(!run.join("incident.json").exists(), "{}", f.output());
    let record: Value =
        serde_json::from_slice(&std::fs::read(run.join("run.json")).unwrap()).unwrap();
    assert_eq!(record["status"], "interrupted", "{record}");
    let left: Vec<String> = std::fs::read_dir(&f.tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("loki-"))
        .collect();
    assert!(
        left.is_empty(),
        "browser capture: left in $TMPDIR: {left:?}"
    );
}
