//! `loki mcp` driven by real MCP clients: the official Python SDK (`client.py` beside this file)
//! over stdio and Streamable HTTP, and the official MCP Inspector's CLI mode. Every build is
//! offline (the scripted provider) in a fixture repository with a real test suite.

mod http;
mod inspector;
mod malformed;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

/// Every tool the server offers, in `tools/list` order.
const TOOLS: [&str; 8] = [
    "loki_answer",
    "loki_fix",
    "loki_receipt",
    "loki_run",
    "loki_runs",
    "loki_seal_check",
    "loki_status",
    "loki_verify",
];

const TASK: &str = "add(a, b) returns the difference instead of the sum; make it return a + b.";
const CALC: &str = "def add(a, b):\n    return a - b\n";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";
/// Seconds a followed build may take on a loaded two-core machine.
const BUILD_TIMEOUT_S: u64 = 240;

/// The `loki` binary under test.
fn loki() -> PathBuf {
    assert_cmd::cargo::cargo_bin("loki")
}

fn client_py() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/all/mcp/client.py")
}

/// A repository with a bug and a pytest suite that catches it.
fn bug_repo() -> GitRepo {
    let repo = GitRepo::new();
    repo.write("calc.py", CALC)
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

/// A scripted build: the wall session writes the acceptance test, the implement session makes
/// `implement` and finishes with `finish`.
fn script(path: &Path, implement: &[Value], finish: &Value) -> PathBuf {
    let mut turns = implement.to_vec();
    turns.push(call("finish", finish));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})),
            call("finish", &json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": turns}]});
    std::fs::write(path, s.to_string()).unwrap();
    path.to_path_buf()
}

fn fix_edit() -> Value {
    call(
        "edit",
        &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"}),
    )
}

/// The Python SDK's directory, or `None` (the test returns) when it is not installed.
fn python_sdk() -> Option<PathBuf> {
    loki_test_support::require_mcp_python()
}

/// Runs `client.py` with `args` in the sandbox's environment plus `env`, and returns the
/// results of its steps.
fn python(sdk: &Path, sb: &Sandbox, args: &[OsString], env: &[(&str, &Path)]) -> Vec<Value> {
    let mut cmd = std::process::Command::new("python3");
    sb.apply(&mut cmd);
    cmd.env("PYTHONPATH", sdk).arg(client_py()).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "client.py failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let parsed = serde_json::from_str::<Value>(&stdout);
    assert!(parsed.is_ok(), "{stdout}");
    let v = parsed.unwrap();
    v["results"].as_array().unwrap().clone()
}

/// The Python SDK driving `loki mcp` over stdio, started in `cwd`.
fn over_stdio(sdk: &Path, sb: &Sandbox, cwd: &Path, steps: &Value) -> Vec<Value> {
    over_stdio_with(sdk, sb, cwd, steps, &[])
}

fn over_stdio_with(
    sdk: &Path,
    sb: &Sandbox,
    cwd: &Path,
    steps: &Value,
    env: &[(&str, &Path)],
) -> Vec<Value> {
    let args = [
        "stdio".into(),
        loki().into_os_string(),
        cwd.as_os_str().to_owned(),
        steps.to_string().into(),
    ];
    python(sdk, sb, &args, env)
}

fn tool(name: &str, arguments: &Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

/// The structured answer of a successful tool call.
fn ok(result: &Value) -> &Value {
    assert_eq!(result["isError"], json!(false), "{result:#}");
    &result["structuredContent"]
}

/// The message of a tool error (`isError: true`, one text block).
fn tool_error(result: &Value) -> String {
    assert_eq!(result["isError"], json!(true), "{result:#}");
    assert!(result.get("structuredContent").is_none(), "{result:#}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

fn path_str(p: &Path) -> String {
    p.canonicalize().unwrap().to_str().unwrap().to_string()
}

#[test]
fn the_tool_list_is_pinned_and_every_tool_has_an_input_schema() {
    let Some(sdk) = python_sdk() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([{"op": "initialize"}, {"op": "list_tools"}, {"op": "list_resource_templates"}]),
    );
    assert_eq!(r[0]["serverInfo"]["name"], "loki", "{:#}", r[0]);
    assert!(r[0]["capabilities"]["tools"].is_object(), "{:#}", r[0]);
    assert!(r[0]["capabilities"]["resources"].is_object(), "{:#}", r[0]);
    let tools = r[1]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    for t in tools {
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{t:#}");
        assert_eq!(schema["additionalProperties"], false, "{t:#}");
        assert!(!t["description"].as_str().unwrap().is_empty(), "{t:#}");
        for (field, prop) in schema["properties"].as_object().unwrap() {
            assert!(prop["type"].is_string(), "{}.{field}: {prop}", t["name"]);
            assert!(prop["description"].is_string(), "{}.{field}", t["name"]);
        }
    }
    // Hints a client uses to decide what needs a confirmation: reading never changes a file;
    // loki_fix may patch one.
    let hint = |name: &str, key: &str| {
        tools.iter().find(|t| t["name"] == name).unwrap()["annotations"][key].clone()
    };
    for read_only in [
        "loki_status",
        "loki_runs",
        "loki_receipt",
        "loki_verify",
        "loki_seal_check",
    ] {
        assert_eq!(hint(read_only, "readOnlyHint"), true, "{read_only}");
    }
    for acting in ["loki_run", "loki_answer", "loki_fix"] {
        assert_eq!(hint(acting, "readOnlyHint"), false, "{acting}");
    }
    assert_eq!(hint("loki_fix", "destructiveHint"), true);
    let pinned: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t["name"], "inputSchema": t["inputSchema"]}))
        .collect();
    insta::assert_json_snapshot!("tools", pinned);
    let templates: Vec<&str> = r[2]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(
        templates,
        ["loki://runs/{run_id}", "loki://runs/{run_id}/receipt"]
    );
}

#[test]
fn a_client_on_the_2026_protocol_discovers_the_server_and_calls_its_tools() {
    let Some(sdk) = python_sdk() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let here = path_str(repo.path());
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "discover"},
            {"op": "list_tools"},
            tool("loki_runs", &json!({"repo": here})),
            tool("loki_status", &json!({"repo": here, "run": "-1"})),
        ]),
    );
    let versions = r[0]["supportedVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")), "{:#}", r[0]);
    assert!(versions.contains(&json!("2025-11-25")), "{:#}", r[0]);
    assert_eq!(r[1]["tools"].as_array().unwrap().len(), TOOLS.len());
    assert_eq!(ok(&r[2])["total"], 0);
    assert!(tool_error(&r[3]).starts_with("invalid `run`: `-1` starts with `-`"));
}

#[test]
fn bad_input_is_a_tool_error_naming_the_input_and_the_server_keeps_serving() {
    let Some(sdk) = python_sdk() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let other = bug_repo();
    let plain = tempfile::tempdir().unwrap();
    let here = path_str(repo.path());
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "initialize"},
            tool("loki_status", &json!({"repo": here, "run": "-x"})),
            tool("loki_seal_check", &json!({"repo": here, "base": "--output=/tmp/x"})),
            tool("loki_run", &json!({"repo": here, "task": "fix\u{0}the bug"})),
            tool("loki_runs", &json!({"repo": format!("{here}\u{0}")})),
            tool("loki_runs", &json!({"repo": path_str(plain.path())})),
            tool("loki_runs", &json!({"repo": path_str(other.path())})),
            tool("loki_runs", &json!({"repo": "relative/dir"})),
            tool("loki_receipt", &json!({"repo": here, "run": "../../etc/passwd"})),
            tool("loki_verify", &json!({"target": "latest"})),
            tool("loki_runs", &json!({"repo": here, "limit": 1, "colour": "red"})),
            tool("loki_fix", &json!({"repo": here})),
            tool("loki_answer", &json!({"repo": here, "run": "run_20261203_075000_ab12", "text": "yes"})),
            tool("loki_run", &json!({"repo": here, "task": TASK, "provider": "-p"})),
            tool("loki_runs", &json!({"repo": here})),
        ]),
    );
    let expect = [
        "invalid `run`: `-x` starts with `-`, which would be read as an option",
        "invalid `base`: `--output=/tmp/x` starts with `-`, which would be read as an option",
        "invalid `task`: contains a NUL character",
        "invalid `repo`: contains a NUL character",
        "is not inside a git work tree",
        "is not one of the repositories this server serves",
        "invalid `repo`: `relative/dir` is not an absolute path",
        "invalid `run`: `../../etc/passwd` is not a run id",
        "invalid `repo`: is needed when `target` is a run id or `latest`",
        "unknown field `colour`",
        "no incident recorded",
        "run_20261203_075000_ab12",
        "invalid `provider`: `-p` starts with `-`",
    ];
    for (i, want) in expect.iter().enumerate() {
        let msg = tool_error(&r[i + 1]);
        assert!(msg.contains(want), "step {}: {msg:?} lacks {want:?}", i + 1);
    }
    let plain_msg = tool_error(&r[5]);
    assert!(plain_msg.starts_with("invalid `repo`: "), "{plain_msg}");
    // After every refusal the server still answers, and nothing was started or written.
    assert_eq!(ok(&r[14])["total"], 0);
    assert!(!repo.path().join(".loki/mcp").exists());
}

#[test]
fn a_build_started_with_loki_run_is_followed_to_verified_and_its_receipt_checks() {
    let Some(sdk) = python_sdk() else { return };
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = script(
        &tmp.path().join("script.json"),
        &[fix_edit()],
        &json!({"status": "done", "detail": "done"}),
    );
    let here = path_str(repo.path());
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "initialize"},
            tool("loki_run", &json!({"repo": here, "task": TASK, "provider": "scripted",
                                     "script": path_str(&script)})),
            {"op": "follow", "repo": here, "run_from": 1, "timeout": BUILD_TIMEOUT_S},
            tool("loki_runs", &json!({"repo": here, "limit": 5})),
            tool("loki_receipt", &json!({"repo": here, "run": "$1.run_id"})),
            tool("loki_verify", &json!({"repo": here, "target": "$1.run_id"})),
            tool("loki_verify", &json!({"target": "$2.receipt"})),
            {"op": "read_resource", "run_from": 1, "suffix": "/receipt"},
            {"op": "read_resource", "run_from": 1},
            {"op": "list_resources"},
            tool("loki_answer", &json!({"repo": here, "run": "$1.run_id", "text": "integers"})),
            tool("loki_seal_check", &json!({"repo": here})),
        ]),
    );
    let started = ok(&r[1]);
    let run_id = started["run_id"].as_str().unwrap().to_string();
    assert!(run_id.starts_with("run_"), "{started:#}");
    assert!(started["pid"].as_u64().unwrap() > 0, "{started:#}");
    let log = PathBuf::from(started["log"].as_str().unwrap());
    assert_eq!(
        log,
        repo.path()
            .canonicalize()
            .unwrap()
            .join(format!(".loki/mcp/{run_id}.log"))
    );

    let done = ok(&r[2]);
    assert_eq!(done["done"], true, "{:#}", r[2]);
    assert_eq!(done["outcome"], "VERIFIED", "{:#}\n{}", r[2], read(&log));
    assert_eq!(done["status"], "completed");
    assert_eq!(done["exit_code"], 0);
    assert_eq!(done["task"], TASK);
    assert!(done.get("question").is_none());
    assert_eq!(done["log"], log.to_str().unwrap());
    // The build's own summary went to the log.
    assert!(
        read(&log).contains("Outcome:    VERIFIED"),
        "{}",
        read(&log)
    );

    let runs = ok(&r[3]);
    assert_eq!(runs["total"], 1);
    assert_eq!(runs["runs"][0]["id"], run_id.as_str());

    let receipt = ok(&r[4]);
    assert_eq!(receipt["receipt"]["verdict"], "VERIFIED", "{receipt:#}");
    assert_eq!(receipt["receipt"]["run_id"], run_id.as_str());
    assert!(receipt["markdown"].as_str().unwrap().contains("VERIFIED"));
    for verified in [ok(&r[5]), ok(&r[6])] {
        assert_eq!(verified["verdict"], "VERIFIED", "{verified:#}");
        assert!(
            verified["steps"].as_array().unwrap().len() > 2,
            "{verified:#}"
        );
        assert!(
            verified["text"]
                .as_str()
                .unwrap()
                .contains("Verify:     VERIFIED")
        );
    }

    let contents = &r[7]["contents"][0];
    assert_eq!(contents["uri"], format!("loki://runs/{run_id}/receipt"));
    let read_back: Value = serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
    assert_eq!(read_back["receipt"]["verdict"], "VERIFIED");
    let status: Value =
        serde_json::from_str(r[8]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(status["outcome"], "VERIFIED");
    let uris: Vec<&str> = r[9]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            format!("loki://runs/{run_id}"),
            format!("loki://runs/{run_id}/receipt")
        ]
    );

    let msg = tool_error(&r[10]);
    assert_eq!(
        msg,
        format!("run {run_id} is not BLOCKED (VERIFIED): there is no question to answer")
    );
    // The checkout itself is unchanged (the build worked in its worktree): nothing to judge
    // as a regression.
    let judged = ok(&r[11]);
    assert_ne!(judged["verdict"], "findings", "{judged:#}");
    assert_eq!(
        std::fs::read_to_string(repo.path().join("calc.py")).unwrap(),
        CALC
    );
}

#[test]
fn a_blocked_run_shows_its_question_and_loki_answer_builds_again_with_the_answer() {
    let Some(sdk) = python_sdk() else { return };
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let question = "should add() also accept strings?";
    let blocked = script(
        &tmp.path().join("blocked.json"),
        &[],
        &json!({"status": "spec_conflict", "detail": question}),
    );
    let fixed = script(
        &tmp.path().join("fixed.json"),
        &[fix_edit()],
        &json!({"status": "done", "detail": "done"}),
    );
    let here = path_str(repo.path());
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "initialize"},
            tool("loki_run", &json!({"repo": here, "task": TASK, "provider": "scripted",
                                     "script": path_str(&blocked)})),
            {"op": "follow", "repo": here, "run_from": 1, "timeout": BUILD_TIMEOUT_S},
            tool("loki_answer", &json!({"repo": here, "run": "$1.run_id", "text": "no, numbers only",
                                        "provider": "scripted", "script": path_str(&fixed)})),
            {"op": "follow", "repo": here, "run_from": 3, "timeout": BUILD_TIMEOUT_S},
        ]),
    );
    let first = ok(&r[2]);
    assert_eq!(first["outcome"], "BLOCKED", "{:#}", r[2]);
    assert_eq!(first["exit_code"], 4);
    assert_eq!(first["question"], question);
    let answered = ok(&r[3]);
    assert_eq!(answered["answers"], ok(&r[1])["run_id"]);
    assert_eq!(answered["question"], question);
    assert_ne!(answered["run_id"], ok(&r[1])["run_id"]);
    let second = ok(&r[4]);
    assert_eq!(second["outcome"], "VERIFIED", "{:#}", r[4]);
    let task = second["task"].as_str().unwrap();
    for part in [TASK, question, "no, numbers only"] {
        assert!(task.contains(part), "{task}");
    }
}

#[test]
fn seal_check_judges_the_working_tree_clean_then_with_a_newly_failing_test() {
    let Some(sdk) = python_sdk() else { return };
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = bug_repo();
    repo.write("calc.py", "def add(a, b):\n    return a + b\n");
    repo.commit("add sums");
    let here = path_str(repo.path());
    let check = json!([{"op": "initialize"}, tool("loki_seal_check", &json!({"repo": here, "base": "HEAD"}))]);
    let before = over_stdio(&sdk, &sb, repo.path(), &check);
    let clean = ok(&before[1]);
    assert_eq!(clean["verdict"], "clean", "{clean:#}");
    assert_eq!(clean["clean"], true);

    repo.write("calc.py", "def add(a, b):\n    return a * b\n");
    let after = over_stdio(&sdk, &sb, repo.path(), &check);
    let judged = ok(&after[1]);
    assert_eq!(judged["verdict"], "findings", "{judged:#}");
    assert_eq!(judged["clean"], false);
    let finding = &judged["findings"][0];
    assert_eq!(finding["kind"], "newly_failing", "{judged:#}");
    assert_eq!(finding["test"], "test_calc.py::test_add");
    assert!(finding["advice"].as_str().unwrap().contains("fix the code"));
}

const APP: &str = "def average(values):\n    return sum(values) / len(values)\n\n\ndef main():\n    print(\"average:\", average([]))\n\n\nmain()\n";

#[test]
fn a_crash_is_diagnosed_and_patched_only_when_apply_is_true() {
    let Some(sdk) = python_sdk() else { return };
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("app.py", APP);
    repo.commit("app");
    crate::cli::sandboxed(&sb, repo.path())
        .args(["run", "--", "python3", "app.py"])
        .assert()
        .code(1);
    let heal = sb.home().join("heal.json");
    let patch = json!({"file": "app.py", "root_cause": "empty list",
        "explanation": "return 0.0 for no values",
        "original_snippet": "    return sum(values) / len(values)\n",
        "replacement_snippet": "    return sum(values) / len(values) if values else 0.0\n"});
    let s = json!({"sessions": [{"name": "heal", "turns": [{"text": patch.to_string()}]}]});
    std::fs::write(&heal, s.to_string()).unwrap();
    let here = path_str(repo.path());
    let r = over_stdio_with(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "initialize"},
            tool("loki_fix", &json!({"repo": here})),
            tool("loki_fix", &json!({"repo": here, "apply": false})),
            tool("loki_fix", &json!({"repo": here, "run": "latest", "apply": true})),
            {"op": "follow", "repo": here, "run_from": 3, "timeout": BUILD_TIMEOUT_S},
        ]),
        &[
            ("LOKI_PROVIDER", Path::new("scripted")),
            ("LOKI_PROVIDER_SCRIPT", &heal),
        ],
    );
    let diagnosis = ok(&r[1]);
    assert!(
        diagnosis["crash"].to_string().contains("ZeroDivisionError"),
        "{diagnosis:#}"
    );
    assert_eq!(diagnosis["sources"][0]["file"], "app.py", "{diagnosis:#}");
    assert!(ok(&r[2])["sources"].is_array());
    let applying = ok(&r[3]);
    assert_eq!(applying["incident"], diagnosis["incident"]);
    let healed = ok(&r[4]);
    assert_eq!(healed["kind"], "heal", "{:#}", r[4]);
    assert_eq!(healed["outcome"], "VERIFIED", "{:#}", r[4]);
    assert!(
        std::fs::read_to_string(repo.path().join("app.py"))
            .unwrap()
            .contains("if values else 0.0")
    );
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_default()
}

#[test]
fn a_repo_flag_that_is_not_a_work_tree_is_refused_at_start() {
    let sb = Sandbox::new();
    let plain = tempfile::tempdir().unwrap();
    crate::cli::sandboxed(&sb, sb.home())
        .args(["mcp", "--repo"])
        .arg(plain.path())
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains("--repo: "))
        .stderr(predicates::str::contains("not inside a git repository"));
}

#[test]
fn a_build_refused_before_it_records_a_run_is_a_tool_error_with_its_reason() {
    let Some(sdk) = python_sdk() else { return };
    let sb = Sandbox::new();
    let repo = bug_repo();
    repo.write("calc.py", "def add(a, b):\n    return 0\n");
    let here = path_str(repo.path());
    let r = over_stdio(
        &sdk,
        &sb,
        repo.path(),
        &json!([
            {"op": "initialize"},
            tool("loki_run", &json!({"repo": here, "task": TASK, "provider": "scripted"})),
            tool("loki_runs", &json!({"repo": here})),
        ]),
    );
    let msg = tool_error(&r[1]);
    assert!(
        msg.starts_with("the background loki exited with status 2 before it recorded a run"),
        "{msg}"
    );
    assert!(
        msg.contains("uncommitted changes to tracked files: calc.py"),
        "{msg}"
    );
    assert_eq!(ok(&r[2])["total"], 0);
}

/// `loki_run` with an issue reference: the issue is fetched (`loki issue`) and built like any
/// task; its run records `issue.json`.
#[tokio::test(flavor = "current_thread")]
async fn loki_run_builds_an_issue_reference() {
    let Some(sdk) = python_sdk() else { return };
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = loki_test_support::fake_trackers::FakeTrackers::start().await;
    let origin = fake.origin();
    let repo = bug_repo();
    let tmp = tempfile::tempdir().unwrap();
    let script = script(
        &tmp.path().join("script.json"),
        &[fix_edit()],
        &json!({"status": "done", "detail": "done"}),
    );
    let here = path_str(repo.path());
    let steps = json!([
        {"op": "initialize"},
        tool("loki_run", &json!({"repo": here, "task": "octo/widgets#12", "provider": "scripted",
                                 "script": path_str(&script)})),
        {"op": "follow", "repo": here, "run_from": 1, "timeout": BUILD_TIMEOUT_S},
        tool("loki_run", &json!({"repo": here, "task": "octo/widgets#x"})),
    ]);
    let root = repo.path().to_path_buf();
    let r = tokio::task::spawn_blocking(move || {
        let sb = Sandbox::new();
        over_stdio_with(
            &sdk,
            &sb,
            &root,
            &steps,
            &[
                ("LOKI_GITHUB_API_URL", Path::new(&origin)),
                (
                    "GITHUB_TOKEN",
                    Path::new(loki_test_support::fake_trackers::GITHUB_TOKEN),
                ),
            ],
        )
    })
    .await
    .unwrap();
    let done = ok(&r[2]);
    assert_eq!(done["outcome"], "VERIFIED", "{:#}", r[2]);
    let run_id = ok(&r[1])["run_id"].as_str().unwrap().to_string();
    let issue: Value = serde_json::from_slice(
        &std::fs::read(
            repo.path()
                .join(".loki/runs")
                .join(&run_id)
                .join("issue.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(issue["ref"], "github:octo/widgets#12");
    let e = tool_error(&r[3]);
    assert!(e.contains("octo/widgets#x"), "{e}");
    fake.assert_clean();
}
