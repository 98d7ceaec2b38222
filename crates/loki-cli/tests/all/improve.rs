//! `loki improve` as a user runs it: build runs that follow `.loki/agent` instructions and stamp
//! their revision, failed runs learnt from, a dry run that writes nothing, an automatic apply with
//! a receipt `loki verify` checks, the manual queue and `approve`, the kill switch from the
//! environment, the audit trail and its tamper check, `status` and `history`.

use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "add(a, b) returns the wrong value; make it return the sum a + b.";
const MARKER: &str = "ALWAYS CHECK THE SIGN";

fn turn(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}],
           "usage": {"input_tokens": 500, "output_tokens": 100}})
}

fn edit(replace: &str) -> Vec<Value> {
    vec![
        turn(
            "edit",
            &json!({"path": "calc.py", "search": "return a - b", "replace": replace}),
        ),
        json!({"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "done"}}]}),
    ]
}

/// The agent fixes `add` only when its instructions say so; the editor proposes that they do.
fn script(dir: &Path) -> PathBuf {
    let s = json!({"sessions": [
        {"name": "implement", "if_prompt_contains": MARKER, "turns": edit("return a + b")},
        {"name": "implement", "turns": edit("return a * b")},
        {"name": "fix-1", "turns": [{"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "no"}}]}]},
        {"name": "fix-2", "turns": [{"tool_calls": [{"name": "finish", "arguments": {"status": "done", "detail": "no"}}]}]},
        {"name": "editor", "turns": [{"tool_calls": [{"name": "propose", "arguments": {
            "files": [{"path": "instructions.md", "content": format!("Be quick.\n{MARKER} of arithmetic.\n")}],
            "rationale": "both runs got the operator wrong"}}],
            "usage": {"input_tokens": 100, "output_tokens": 50}}]},
        {"name": "reflect", "turns": [{"text": "It did not help."}]}
    ]});
    let p = dir.join("script.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

fn repo() -> GitRepo {
    let r = GitRepo::new();
    r.write("calc.py", "def add(a, b):\n    return a - b\n")
        .write(
            "test_calc.py",
            "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
        )
        .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
    r.commit("a bug");
    r
}

fn instructions(repo: &GitRepo, text: &str) {
    let dir = repo.path().join(".loki/agent");
    std::fs::create_dir_all(&dir).unwrap();
    // Excluded from git like the rest of .loki (the first loki command would do it).
    let exclude = repo.path().join(".git/info/exclude");
    let mut ex = std::fs::read_to_string(&exclude).unwrap_or_default();
    if !ex.contains("/.loki/") {
        ex.push_str("/.loki/\n");
        std::fs::write(&exclude, ex).unwrap();
    }
    std::fs::write(dir.join("instructions.md"), text).unwrap();
}

/// `loki <args> --provider scripted --script <script>` in `dir`.
fn scripted(sb: &Sandbox, dir: &Path, script: &Path, args: &[&str]) -> std::process::Output {
    let mut c = sandboxed(sb, dir);
    c.args(args)
        .args(["--provider", "scripted", "--script"])
        .arg(script);
    c.output().unwrap()
}

/// Two quick runs of [`TASK`] that fail (the agent multiplies): what improve learns from.
fn fail_twice(loki: &dyn Fn(&[&str]) -> std::process::Output) {
    for _ in 0..2 {
        let out = loki(&["quick", TASK]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

fn json_of(out: &std::process::Output) -> Value {
    let parsed = serde_json::from_slice(&out.stdout);
    assert!(
        parsed.is_ok(),
        "not JSON: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    parsed.unwrap()
}

#[test]
fn a_build_follows_the_repository_instructions_and_stamps_their_revision() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let r = repo();
    instructions(&r, &format!("{MARKER} of arithmetic.\n"));
    std::fs::create_dir_all(r.path().join(".loki/agent/skills/tests-first")).unwrap();
    std::fs::write(
        r.path().join(".loki/agent/skills/tests-first/SKILL.md"),
        "---\nname: tests-first\ndescription: run the tests first\n---\nRun pytest before editing.\n",
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let s = script(tmp.path());
    let out = sandboxed(&sb, r.path())
        .args(["quick", TASK, "--provider", "scripted", "--script"])
        .arg(&s)
        .arg("--json")
        .output()
        .unwrap();
    let report = json_of(&out);
    // The instructions reached the agent: it followed them and the run is VERIFIED.
    assert_eq!(report["outcome"], "VERIFIED", "{report:#}");
    let run = report["run_id"].as_str().unwrap();
    let dir = r.path().join(".loki/runs").join(run);
    let rec: Value = serde_json::from_slice(&std::fs::read(dir.join("run.json")).unwrap()).unwrap();
    let rev = rec["agent_revision"].as_str().unwrap().to_string();
    assert!(rev.starts_with("sha256:") && rev.len() == 71, "{rev}");
    let receipt: Value =
        serde_json::from_slice(&std::fs::read(dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(receipt["agent_revision"], rev.as_str());
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains(&format!("revision {rev}")),
        "the prompt names the revision"
    );
    assert!(
        transcript.contains("tests-first: run the tests first"),
        "the skill index"
    );
    assert!(
        transcript.contains("Run pytest before editing."),
        "the skill body"
    );
    // A broken skill file is refused before the run, naming the file.
    std::fs::write(
        r.path().join(".loki/agent/skills/tests-first/SKILL.md"),
        "no frontmatter\n",
    )
    .unwrap();
    let out = sandboxed(&sb, r.path())
        .args(["quick", TASK, "--provider", "scripted", "--script"])
        .arg(&s)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skills/tests-first/SKILL.md") && err.contains("frontmatter"),
        "{err}"
    );
}

#[test]
fn improve_learns_from_failed_runs_applies_with_a_receipt_and_keeps_an_audit_trail() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let r = repo();
    instructions(&r, "Be quick.\n");
    let tmp = tempfile::tempdir().unwrap();
    let s = script(tmp.path());
    let loki = |args: &[&str]| scripted(&sb, r.path(), &s, args);
    fail_twice(&loki);
    // The dry run prints the card and writes nothing.
    let out = loki(&["improve", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0));
    let card = String::from_utf8_lossy(&out.stdout);
    assert!(
        card.contains("Outcome:    idle") && card.contains("dry run"),
        "{card}"
    );
    assert!(!r.path().join(".loki/improve").exists());
    // The kill switch from the environment.
    let mut c = sandboxed(&sb, r.path());
    let out = c
        .args([
            "improve",
            "--mode",
            "auto",
            "--json",
            "--provider",
            "scripted",
            "--script",
        ])
        .arg(&s)
        .env("LOKI_IMPROVE", "off")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)["outcome"], "paused");
    // Auto: the canary proves the edit, it is applied and sealed.
    let out = loki(&["improve", "--mode", "auto", "--json"]);
    let j = json_of(&out);
    assert_eq!(j["outcome"], "applied", "{j:#}");
    assert_eq!(out.status.code(), Some(0));
    let text = std::fs::read_to_string(r.path().join(".loki/agent/instructions.md")).unwrap();
    assert!(text.contains(MARKER), "{text}");
    let receipt = j["receipt"].as_str().unwrap();
    let run_dir = Path::new(receipt).parent().unwrap();
    let run_id = run_dir.file_name().unwrap().to_str().unwrap();
    // `loki verify <run>` finds it; with no protected case the receipt is honest: PARTIAL.
    let out = sandboxed(&sb, r.path())
        .args(["verify", run_id])
        .output()
        .unwrap();
    let v = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(4), "{v}");
    assert!(
        v.contains("pass  signature") && v.contains("PARTIAL"),
        "{v}"
    );
    let md = std::fs::read_to_string(run_dir.join("receipt.md")).unwrap();
    assert!(md.contains("no protected case"), "{md}");
    // The audit chain: intact, then a tampered line is found.
    let out = loki(&["improve", "audit", "--verify"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("intact (3 lines"));
    let audit = r.path().join(".loki/improve/audit.jsonl");
    let t = std::fs::read_to_string(&audit).unwrap();
    std::fs::write(&audit, t.replacen("\"guard-pass\"", "\"rollback\"", 1)).unwrap();
    let out = loki(&["improve", "audit", "--verify"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("BROKEN at line 3"));
    std::fs::write(&audit, t).unwrap();
    // Status and history read the state.
    let out = loki(&["improve", "status", "--json"]);
    let st = json_of(&out);
    assert_eq!(st["cycles_today"], 1);
    assert_eq!(st["last_cycle"]["outcome"], "applied");
    let out = loki(&["improve", "history"]);
    let h = String::from_utf8_lossy(&out.stdout);
    assert_eq!(h.lines().count(), 2, "{h}");
    assert!(h.lines().next().unwrap().contains("paused"), "{h}");
    // Rolled back by hand: the old text is back, byte for byte.
    let out = loki(&["improve", "rollback"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(r.path().join(".loki/agent/instructions.md")).unwrap(),
        "Be quick.\n"
    );
}

#[test]
fn manual_mode_queues_a_proposal_for_approve_and_pins_the_card() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let r = repo();
    instructions(&r, "Be quick.\n");
    let tmp = tempfile::tempdir().unwrap();
    let s = script(tmp.path());
    let loki = |args: &[&str]| scripted(&sb, r.path(), &s, args);
    fail_twice(&loki);
    std::fs::create_dir_all(r.path().join(".loki/improve")).unwrap();
    std::fs::write(
        r.path().join(".loki/improve/improve.toml"),
        "[canary]\nreplay_runs = 1\n",
    )
    .unwrap();
    let out = loki(&["improve"]);
    assert_eq!(out.status.code(), Some(0));
    let card = String::from_utf8_lossy(&out.stdout).into_owned();
    let pending: Vec<String> = std::fs::read_dir(r.path().join(".loki/improve/pending"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(pending.len(), 1);
    let id = &pending[0];
    let cycle = id.replacen("prop_", "cyc_", 1);
    let redacted = loki_test_support::redact(
        &card
            .replace(id.as_str(), "[PROPOSAL]")
            .replace(&cycle, "[CYCLE]"),
        &[],
    );
    insta::assert_snapshot!(redacted);
    assert_eq!(
        std::fs::read_to_string(r.path().join(".loki/agent/instructions.md")).unwrap(),
        "Be quick.\n",
        "manual mode writes nothing"
    );
    let out = loki(&["improve", "pending"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(id.as_str()));
    let out = loki(&["improve", "approve", id]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(r.path().join(".loki/agent/instructions.md"))
            .unwrap()
            .contains(MARKER)
    );
    // Approving twice: there is nothing pending any more (exit 2, names the id).
    let out = loki(&["improve", "approve", id]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(id.as_str()));
}

#[test]
fn watch_runs_a_cycle_after_failed_runs_until_stopped() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let r = repo();
    instructions(&r, "Be quick.\n");
    std::fs::create_dir_all(r.path().join(".loki/improve")).unwrap();
    std::fs::write(
        r.path().join(".loki/improve/improve.toml"),
        "trigger = \"failures\"\nmin_new_failures = 2\nwatch_debounce_s = 0\n[canary]\nreplay_runs = 1\n",
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let s = script(tmp.path());
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd).current_dir(r.path());
    let mut watcher = cmd
        .args([
            "improve",
            "watch",
            "--interval",
            "1",
            "--provider",
            "scripted",
            "--script",
        ])
        .arg(&s)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Nothing to learn from yet: no cycle.
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert!(!r.path().join(".loki/improve/cycles").exists());
    fail_twice(&|args: &[&str]| scripted(&sb, r.path(), &s, args));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let cycles = r.path().join(".loki/improve/cycles");
    // A cycle after the first failed run is idle (one of two needed); after the second, the
    // canary proves the edit and it is queued (manual mode).
    loop {
        let outcomes: Vec<String> = std::fs::read_dir(&cycles)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
            .filter(|v: &Value| v["ended_at"].is_string())
            .map(|v| v["outcome"].as_str().unwrap().to_string())
            .collect();
        assert!(
            outcomes.iter().all(|o| o == "idle" || o == "pending"),
            "{outcomes:?}"
        );
        if outcomes.iter().any(|o| o == "pending") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher ran no cycle: {outcomes:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&watcher),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = watcher.wait().unwrap();
    assert!(
        status.code().is_some(),
        "the watcher stopped on Ctrl-C: {status:?}"
    );
}
