//! The `--json` contract (issue 32, item 8): every command prints exactly one JSON object on
//! stdout, nothing else, and it validates against the command's schema in `schemas/cli/` (an
//! error against `error.schema.json`). The same things have the same names everywhere: no
//! `run` key (it is `run_id`), a `signature` is always the incident's object, and what is not
//! known is null (a cost nobody measured is never 0).
//!
//! Each command runs as a real `loki` process on a real repository in a temp dir, with the
//! scripted provider where a model is asked.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const SCHEMA_BASE: &str = "https://loki.dev/schema/cli/";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/cli")
}

fn schema_file(name: &str) -> Value {
    let path = schema_dir().join(format!("{name}.schema.json"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("no schema {}: {e}", path.display()))
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A validator for `name`, with every schema of the directory registered so `$ref`s resolve.
fn validator(name: &str) -> jsonschema::Validator {
    let mut registry = jsonschema::Registry::new();
    for e in std::fs::read_dir(schema_dir()).unwrap() {
        let file = e.unwrap().file_name().to_string_lossy().into_owned();
        let stem = file.strip_suffix(".schema.json").unwrap().to_string();
        registry = registry
            .add(
                format!("{SCHEMA_BASE}{file}"),
                jsonschema::Resource::from_contents(schema_file(&stem)),
            )
            .unwrap();
    }
    let registry = registry.prepare().unwrap();
    jsonschema::options()
        .with_registry(&registry)
        .build(&schema_file(name))
        .map_err(|e| format!("schema {name} does not compile: {e}"))
        .unwrap()
}

/// Names that mean the same thing as a vocabulary name and must not appear in its place.
fn check_vocabulary(v: &Value, at: &str, problems: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            // An event log line, as written and hashed (`prev`, `hash`): its `run` is the log's
            // own field (DESIGN.md), not this contract's.
            let log_line = m.contains_key("prev") && m.contains_key("hash");
            for (k, x) in m {
                let here = format!("{at}.{k}");
                if k == "run" && !log_line {
                    problems.push(format!("{here}: `run` (use `run_id`)"));
                }
                if k == "signature" && !(x.is_object() || x.is_null()) {
                    problems.push(format!("{here}: a signature is the incident's object"));
                }
                check_vocabulary(x, &here, problems);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                check_vocabulary(x, &format!("{at}[{i}]"), problems);
            }
        }
        _ => {}
    }
}

/// Asserts `v` is valid against `schema` and speaks the shared vocabulary.
#[track_caller]
pub(crate) fn validate(v: &Value, schema: &str) {
    let errors: Vec<String> = validator(schema)
        .iter_errors(v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{v:#}");
    let mut problems = Vec::new();
    check_vocabulary(v, "$", &mut problems);
    assert!(problems.is_empty(), "{problems:#?}\n{v:#}");
}

/// Asserts `out`'s stdout is exactly one JSON object on one line, valid against `schema`, and
/// speaks the shared vocabulary; returns it.
#[track_caller]
fn one_object(out: &Output, schema: &str) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let ctx = format!(
        "schema {schema}, exit {:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status.code()
    );
    assert!(
        stdout.ends_with('\n') && stdout.trim_end().lines().count() == 1,
        "stdout is not one line: {ctx}"
    );
    let v: Value = serde_json::from_str(stdout.trim_end())
        .map_err(|e| format!("not JSON ({e}): {ctx}"))
        .unwrap();
    assert!(v.is_object(), "not an object: {ctx}");
    let errors: Vec<String> = validator(schema)
        .iter_errors(&v)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}\n{ctx}");
    let mut problems = Vec::new();
    check_vocabulary(&v, "$", &mut problems);
    assert!(problems.is_empty(), "{problems:#?}\n{ctx}");
    v
}

fn loki(sb: &Sandbox, dir: &Path, args: &[&str]) -> Output {
    let mut c = sandboxed(sb, dir);
    c.arg("--json").args(args);
    c.output().unwrap()
}

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

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

fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn build_script(dir: &Path) -> PathBuf {
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", &json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": [
            call("edit", &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})),
            call("finish", &json!({"status": "done", "detail": "done"}))]}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

/// A build, and every command about runs on it: status, logs, runs, events, verify, deep,
/// apply, discard; each prints one object its schema describes.
#[test]
fn run_commands_print_one_object_each() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let script = build_script(sb.home());
    let script = script.to_str().unwrap();
    let p = repo.path();
    let built = one_object(
        &loki(
            &sb,
            p,
            &["--provider", "scripted", "--script", script, TASK],
        ),
        "build",
    );
    assert_eq!(built["outcome"], "VERIFIED", "{built}");
    let run = built["run_id"].as_str().unwrap().to_string();
    // The scripted provider has no price: its cost is unknown, so null.
    assert_eq!(built["cost_usd"], Value::Null);
    let status = one_object(&loki(&sb, p, &["status", &run]), "status");
    assert_eq!(status["run_id"], run.as_str());
    let logs = one_object(&loki(&sb, p, &["logs", &run]), "logs");
    assert!(!logs["lines"].as_array().unwrap().is_empty());
    one_object(&loki(&sb, p, &["runs", "list"]), "runs-list");
    one_object(&loki(&sb, p, &["runs", "show", &run]), "runs-show");
    let events = one_object(&loki(&sb, p, &["events", &run]), "events");
    assert!(events["events"].as_array().unwrap().len() > 2);
    one_object(&loki(&sb, p, &["events", &run, "--verify"]), "events");
    let verified = one_object(&loki(&sb, p, &["verify", &run]), "verify");
    assert_eq!(verified["verdict"], "VERIFIED");
    let dsse = one_object(&loki(&sb, p, &["verify", &run, "--export-dsse"]), "verify");
    assert_eq!(dsse["payloadType"], "application/vnd.in-toto+json");
    one_object(&loki(&sb, p, &["deep", &run]), "deep");
    one_object(&loki(&sb, p, &["apply", &run]), "apply");
    one_object(&loki(&sb, p, &["discard", &run]), "discard");
    one_object(&loki(&sb, p, &["discard", "--failed"]), "discard");
    std::fs::write(sb.home().join("task.md"), TASK).unwrap();
    let from_file = one_object(
        &loki(
            &sb,
            p,
            &[
                "run-task",
                "--file",
                sb.home().join("task.md").to_str().unwrap(),
                "--provider",
                "scripted",
                "--script",
                script,
            ],
        ),
        "run-task",
    );
    assert!(from_file["run_id"].is_string());
    // A run that does not exist is the error object, under --json as everywhere.
    one_object(
        &loki(&sb, p, &["status", "run_20200101_000000_abcd"]),
        "error",
    );
}

const APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";

fn heal_script(dir: &Path) -> PathBuf {
    let answer = json!({"file": "app.py", "root_cause": "empty list",
        "explanation": "return 0.0 for no values",
        "original_snippet": "    return sum(values) / len(values)\n",
        "replacement_snippet": "    return sum(values) / len(values) if values else 0.0\n"});
    let p = dir.join("heal-script.json");
    let s = json!({"sessions": [{"name": "heal", "turns": [{"text": answer.to_string()}]}]});
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

/// `run`, `fix` (diagnose, apply, restore), `replay`: the crash's output and the program's
/// own stdout stay off stdout, and the signature is one object everywhere.
#[test]
fn heal_commands_print_one_object_and_one_signature_shape() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("app.py", APP);
    repo.commit("app");
    let p = repo.path();
    let crashed = one_object(&loki(&sb, p, &["run", "--", "python3", "app.py"]), "run");
    assert_eq!(crashed["outcome"], "CRASHED");
    assert!(crashed["signature"].is_object());
    let run = crashed["run_id"].as_str().unwrap().to_string();
    let diagnosis = one_object(&loki(&sb, p, &["fix", &run]), "fix");
    assert_eq!(diagnosis["signature"], crashed["signature"]);
    let replayed = one_object(&loki(&sb, p, &["replay", &run]), "replay");
    assert_eq!(replayed["signature"], crashed["signature"]);
    let script = heal_script(sb.home());
    let mut c = sandboxed(&sb, p);
    c.env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["--json", "fix", "--apply", "--yes", &run]);
    let fixed = one_object(&c.output().unwrap(), "fix");
    assert_eq!(fixed["incident_run_id"], run.as_str());
    one_object(&loki(&sb, p, &["fix", "--restore"]), "fix");
    let clean = GitRepo::new();
    clean.write("ok.py", "print('all good')\n");
    let out = loki(&sb, clean.path(), &["run", "--", "python3", "ok.py"]);
    assert_eq!(one_object(&out, "run")["outcome"], "CLEAN");
    assert!(String::from_utf8_lossy(&out.stderr).contains("all good"));
}

/// The case: `fix --demo --json` printed the demo's text, the app's Python traceback and
/// then JSON. Now the traceback goes to stderr and the cost of a fix no model made is null.
#[test]
fn fix_demo_prints_only_its_summary_and_no_cost_it_did_not_measure() {
    let sb = Sandbox::new();
    let out = loki(&sb, sb.home(), &["fix", "--demo"]);
    let v = one_object(&out, "fix");
    assert_eq!(v["outcome"], "VERIFIED", "{v}");
    assert_eq!(
        v["cost_usd"],
        Value::Null,
        "no model call, no measured cost"
    );
    assert!(v["demo_dir"].is_string());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Traceback"));
}

/// The hook commands, `seal check`, `status`, `reset`, `declare` (refused: nothing to declare)
/// and `install`.
#[test]
fn seal_commands_print_one_object_each() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let p = repo.path();
    let installed = one_object(
        &loki(&sb, p, &["seal", "install", "--agent", "claude"]),
        "seal-install",
    );
    assert_eq!(installed["changed"], true);
    let input = |event: &str| json!({"session_id": "s-1", "cwd": p, "hook_event_name": event, "stop_hook_active": false});
    let hook = |args: &[&str], input: &Value| {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
        sb.apply(&mut c)
            .current_dir(p)
            .arg("--json")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    one_object(
        &hook(&["seal", "start"], &input("SessionStart")),
        "seal-start",
    );
    std::fs::remove_file(p.join("test_calc.py")).unwrap();
    let stop = one_object(&hook(&["seal", "stop"], &input("Stop")), "seal-stop");
    assert_eq!(stop["decision"], "block");
    one_object(&loki(&sb, p, &["seal", "check"]), "seal-check");
    let status = one_object(&loki(&sb, p, &["seal", "status"]), "seal-status");
    assert_eq!(status["sessions"][0]["lineage"][0]["session"], "s-1");
    let reset = one_object(&loki(&sb, p, &["seal", "reset"]), "seal-reset");
    assert_eq!(reset["reset"]["by"]["kind"], "reset", "{reset}");
    assert!(
        reset["not_proven"]["prove"]
            .as_str()
            .unwrap()
            .starts_with("loki seal check --base "),
        "{reset}"
    );
    let rejoined = one_object(
        &hook(&["seal", "start"], &input("SessionStart")),
        "seal-start",
    );
    assert_eq!(rejoined["kept"], true, "{rejoined}");
    assert_eq!(rejoined["origin"], "reset", "{rejoined}");
    let declared = loki(
        &sb,
        p,
        &[
            "seal",
            "declare",
            "test_calc.py::test_add",
            "--reason",
            "asked",
        ],
    );
    let schema = if declared.status.success() {
        "seal-declare"
    } else {
        "error"
    };
    one_object(&declared, schema);
}

/// Settings, keys, checks, the machine, contracts, improve's records, workspaces, the control
/// plane's status when none runs, and the refusals and usage errors under --json.
#[test]
fn the_small_commands_print_one_object_each() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let p = repo.path();
    for (args, schema) in [
        (&["version"][..], "version"),
        (&["config", "show"], "config-show"),
        (&["config", "path"], "config-path"),
        (&["config", "get", "run.cap_s"], "config-get"),
        (&["config", "set", "run.cap_s", "600"], "config-set"),
        (&["config", "init", "--repo"], "config-init"),
        (&["keys", "show"], "keys-show"),
        (&["keys", "export"], "keys-export"),
        (&["keys", "rotate"], "keys-rotate"),
        (&["checks", "detect"], "checks-detect"),
        (&["providers"], "providers"),
        (&["improve", "status"], "improve-status"),
        (&["improve", "history"], "improve-history"),
        (&["improve", "pending"], "improve-pending"),
        (&["improve", "audit"], "improve-audit"),
        (&["improve", "audit", "--verify"], "improve-audit"),
        (&["workspace", "list"], "workspace-list"),
        (&["runs", "list"], "runs-list"),
        (&["doctor"], "doctor"),
        // No run yet: verify says NO_RUNS in its own object.
        (&["verify"], "verify"),
        // Refused under --json, with the error object.
        (&["completions", "bash"], "error"),
        (&["mcp"], "error"),
        (&["improve", "reject", "nope"], "error"),
        (
            &["frobnicate-the-parser-now-please", "--frobnicate"],
            "error",
        ),
        (&[], "error"),
    ] {
        one_object(&loki(&sb, p, args), schema);
    }
    let path = one_object(&loki(&sb, sb.home(), &["config", "path"]), "config-path");
    assert_eq!(
        path["repo"]["path"],
        Value::Null,
        "outside a repository: unknown"
    );
    std::fs::write(
        p.join("spec.md"),
        "## Acceptance criteria\n\n- [ ] add returns the sum\n- [ ] sub returns the difference\n",
    )
    .unwrap();
    one_object(&loki(&sb, p, &["contract", "spec.md"]), "contract");
    if loki_test_support::require_pytest() {
        one_object(&loki(&sb, p, &["checks", "run"]), "checks-run");
    }
    let status = loki(&sb, p, &["serve", "status"]);
    assert_eq!(status.status.code(), Some(1));
    let v = one_object(&status, "serve-status");
    assert_eq!(v["running"], false);
    assert_eq!(v["url"], Value::Null);
}

/// A server prints one object once it listens (and nothing after); `serve status`, `trust`,
/// `backfill` and `prune` against it print one object each.
#[test]
fn the_control_plane_commands_print_one_object_each() {
    let sb = Sandbox::new();
    let repo = bug_repo();
    let p = repo.path();
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .current_dir(p)
        .args(["--json", "serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut server = c.spawn().unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let listening = Output {
        status: std::process::ExitStatus::default(),
        stdout: line.into_bytes(),
        stderr: Vec::new(),
    };
    one_object(&listening, "serve");
    let running = one_object(&loki(&sb, p, &["serve", "status"]), "serve-status");
    assert_eq!(running["running"], true);
    let exported = one_object(&loki(&sb, p, &["keys", "export"]), "keys-export");
    let pem = sb.home().join("pub.pem");
    std::fs::write(&pem, exported["public_key_pem"].as_str().unwrap()).unwrap();
    one_object(
        &loki(&sb, p, &["serve", "trust", pem.to_str().unwrap()]),
        "serve-trust",
    );
    one_object(
        &loki(&sb, p, &["serve", "backfill", p.to_str().unwrap()]),
        "serve-backfill",
    );
    one_object(
        &loki(
            &sb,
            p,
            &[
                "serve",
                "prune",
                "--repo",
                "x",
                "--before",
                "2020-01-01",
                "--dry-run",
            ],
        ),
        "serve-prune",
    );
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .status();
    let _ = server.wait();
}

/// `loki ci judge` and `ci comment`, and `seal check --receipt`, on a repository with no suite
/// (CANNOT JUDGE, quickly: nothing to run). `ci post`'s object is checked against the fake
/// GitHub in `ci_judge`.
#[test]
fn ci_commands_print_one_object_each() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("README.md", "notes\n");
    repo.commit("notes");
    repo.write("README.md", "more notes\n");
    let out = sb.home().join("judged");
    let judged = loki(
        &sb,
        repo.path(),
        &[
            "ci",
            "judge",
            "--base",
            "HEAD",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let v = one_object(&judged, "ci-judge");
    assert_eq!(v["verdict"], "cannot_judge", "{v}");
    assert_eq!(v["conclusion"], "neutral", "{v}");
    assert_eq!(judged.status.code(), Some(0), "neutral passes");
    let report = out.join("report.json");
    let comment = loki(
        &sb,
        repo.path(),
        &["ci", "comment", report.to_str().unwrap()],
    );
    let c = one_object(&comment, "ci-comment");
    assert!(
        c["body"]
            .as_str()
            .unwrap()
            .contains("## ❔ loki: CANNOT JUDGE"),
        "{c}"
    );
    let sealed = loki(&sb, repo.path(), &["seal", "check", "--receipt"]);
    let s = one_object(&sealed, "seal-check");
    assert_eq!(sealed.status.code(), Some(3));
    let run = s["receipt"]["run_id"].as_str().unwrap();
    assert!(
        repo.path()
            .join(format!(".loki/runs/{run}/receipt.dsse.json"))
            .is_file()
    );
    // A judgement that cannot run outside a request, and a bad gate, are refused.
    one_object(&loki(&sb, repo.path(), &["ci", "judge"]), "error");
    one_object(
        &loki(
            &sb,
            repo.path(),
            &[
                "ci",
                "comment",
                report.to_str().unwrap(),
                "--fail-on",
                "clean",
            ],
        ),
        "error",
    );
}
