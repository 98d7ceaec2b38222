//! Issues in: `loki owner/repo#N`, `loki issue REF` for GitHub, GitLab, Jira and Linear against
//! the loopback fake trackers (which check every request's auth form, path and pagination), the
//! issue fetched before any model runs, `issue.json` and the receipt's `task.ref`; and every bad
//! input stopping before any work.

use std::path::Path;
use std::process::Command;

use loki_test_support::fake_trackers::{
    Behaviour, FakeTrackers, GITHUB_TOKEN, GITLAB_TOKEN, JIRA_EMAIL, JIRA_TOKEN, LINEAR_KEY,
};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

pub(crate) const WALL: &str =
    "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

pub(crate) fn repo() -> GitRepo {
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

pub(crate) fn call(name: &str, args: &Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn script(dir: &Path) -> std::path::PathBuf {
    let finish = call("finish", &json!({"status": "done", "detail": "done"}));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})), finish.clone()]},
        {"name": "implement", "turns": [call("edit", &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})), finish]}
    ]});
    let p = dir.join("script.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

/// `loki <args>` with the trackers pointed at the fake and their credentials set.
pub(crate) fn loki(sb: &Sandbox, repo: &Path, fake: &FakeTrackers, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd).current_dir(repo);
    let origin = fake.origin();
    cmd.env("LOKI_GITHUB_API_URL", &origin)
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .env("GITLAB_URL", &origin)
        .env("GITLAB_TOKEN", GITLAB_TOKEN)
        .env("JIRA_BASE_URL", &origin)
        .env("JIRA_EMAIL", JIRA_EMAIL)
        .env("JIRA_API_TOKEN", JIRA_TOKEN)
        .env("LINEAR_API_KEY", LINEAR_KEY)
        .env("LOKI_LINEAR_API_URL", &origin)
        .args(args);
    cmd
}

pub(crate) async fn run(mut cmd: Command) -> std::process::Output {
    tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap()
}

/// A build of `reference` (`args` before it, e.g. `issue`) in a new repository, with the scripted
/// fix: the repository, the summary, and, when `remote`, its local bare `origin` (kept alive).
async fn built(
    sb: &Sandbox,
    fake: &FakeTrackers,
    args: &[&str],
    remote: bool,
) -> (GitRepo, Value, Option<tempfile::TempDir>) {
    let r = repo();
    let bare = remote.then(|| {
        let bare = tempfile::tempdir().unwrap();
        r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
        r.git(&["remote", "add", "origin", bare.path().to_str().unwrap()]);
        bare
    });
    // The script lives in the sandbox's home, outside the repository it builds.
    let s = script(sb.home());
    let mut cmd = loki(sb, r.path(), fake, args);
    cmd.args(["--provider", "scripted", "--json", "--script"])
        .arg(&s);
    let out = run(cmd).await;
    let v = serde_json::from_slice::<Value>(&out.stdout);
    assert!(
        v.is_ok(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (r, v.unwrap(), bare)
}

pub(crate) fn run_dir(repo: &GitRepo, v: &Value) -> std::path::PathBuf {
    repo.path()
        .join(".loki/runs")
        .join(v["run_id"].as_str().unwrap())
}

#[tokio::test(flavor = "current_thread")]
async fn a_github_issue_becomes_a_verified_run_with_its_issue_json_and_ref() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, v, _) = built(&sb, &fake, &["octo/widgets#12"], false).await;
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    fake.assert_clean();
    let dir = run_dir(&r, &v);
    let issue: Value =
        serde_json::from_slice(&std::fs::read(dir.join("issue.json")).unwrap()).unwrap();
    assert_eq!(issue["source"], "github");
    assert_eq!(issue["ref"], "github:octo/widgets#12");
    assert_eq!(issue["title"], "add() subtracts");
    assert_eq!(issue["labels"], json!(["bug"]));
    let comments: Vec<&str> = issue["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["body"].as_str().unwrap())
        .collect();
    assert_eq!(comments, ["first page", "second page"], "both pages");
    let receipt: Value =
        serde_json::from_slice(&std::fs::read(dir.join("receipt.json")).unwrap()).unwrap();
    assert_eq!(receipt["task"]["source"], "github");
    assert_eq!(receipt["task"]["ref"], "github:octo/widgets#12");
    // The agent was given the issue's words; the token went nowhere near it.
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("add(2, 3) returns -1; it must return 5."));
    assert!(!transcript.contains(GITHUB_TOKEN));
    assert!(
        !std::fs::read_to_string(dir.join("events.jsonl"))
            .unwrap()
            .contains(GITHUB_TOKEN)
    );
}

/// GitLab (a three-segment project, notes paged by `X-Next-Page`, system notes left out), Jira
/// (Basic auth, the ADF description as text, comments paged by `startAt`) and Linear (GraphQL,
/// comments paged by cursor), each to its `issue.json`; a rate limit is waited out.
#[tokio::test(flavor = "current_thread")]
async fn gitlab_jira_and_linear_issues_are_fetched_and_normalised() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let jira_url = format!("{}/browse/PROJ-7", fake.origin());
    for (reference, canonical, body) in [
        (
            "grp/sub/proj#3",
            "gitlab:grp/sub/proj#3",
            "make add return the sum",
        ),
        (
            jira_url.as_str(),
            "jira:PROJ-7",
            "make add return the sum\n- add(2, 3) == 5",
        ),
        ("linear:ENG-42", "linear:ENG-42", "make add return the sum"),
    ] {
        fake.set(Behaviour::RateLimitOnce);
        let (r, v, _) = built(&sb, &fake, &["issue", reference], false).await;
        assert_eq!(v["outcome"], "VERIFIED", "{reference}: {v:#}");
        let issue: Value =
            serde_json::from_slice(&std::fs::read(run_dir(&r, &v).join("issue.json")).unwrap())
                .unwrap();
        assert_eq!(issue["ref"], canonical);
        assert_eq!(issue["body"], body, "{reference}");
        let comments: Vec<&str> = issue["comments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["body"].as_str().unwrap())
            .collect();
        assert_eq!(comments, ["first page", "second page"], "{reference}");
    }
    fake.assert_clean();
}

#[tokio::test(flavor = "current_thread")]
async fn bad_references_and_tracker_failures_stop_before_any_work() {
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    let expect = async |args: &[&str], code: i32, says: &str, behaviour: Behaviour| {
        fake.set(behaviour);
        let out = run(loki(&sb, r.path(), &fake, args)).await;
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    expect(&["octo/widgets#x"], 2, "octo/widgets#x", Behaviour::Normal).await;
    expect(
        &["https://evil.example.com/octo/widgets/issues/1"],
        2,
        "evil.example.com",
        Behaviour::Normal,
    )
    .await;
    expect(
        &["issue", "fix the parser"],
        2,
        "not an issue reference",
        Behaviour::Normal,
    )
    .await;
    expect(
        &["octo/widgets#12"],
        2,
        "was not found",
        Behaviour::NotFound,
    )
    .await;
    expect(&["octo/widgets#12"], 1, "not JSON", Behaviour::Garbage).await;
    expect(
        &["linear:ENG-404"],
        2,
        "linear:ENG-404 was not found",
        Behaviour::Normal,
    )
    .await;
    // Jira without its variables: the one missing is named.
    let mut cmd = loki(&sb, r.path(), &fake, &["jira:PROJ-7"]);
    cmd.env_remove("JIRA_API_TOKEN");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("JIRA_API_TOKEN is not set"));
    // Nothing started: no run was recorded.
    assert!(!r.path().join(".loki/runs").exists());
    fake.assert_clean();
}

#[tokio::test(flavor = "current_thread")]
async fn a_huge_issue_is_cut_and_says_so() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    fake.set(Behaviour::HugeBody);
    let sb = Sandbox::new();
    let (r, v, _) = built(&sb, &fake, &["octo/widgets#12"], false).await;
    let transcript = std::fs::read_to_string(run_dir(&r, &v).join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("more bytes of the issue were cut"));
    assert!(transcript.len() < 2 * 1024 * 1024, "{}", transcript.len());
    // Stored bounded too: issue.json keeps the head of the body and says how much was cut.
    let stored = std::fs::read(run_dir(&r, &v).join("issue.json")).unwrap();
    assert!(
        stored.len() < 300 * 1024,
        "issue.json is {} bytes",
        stored.len()
    );
    let issue: Value = serde_json::from_slice(&stored).unwrap();
    let body = issue["body"].as_str().unwrap();
    assert!(body.starts_with("xxxx"), "the head is kept");
    assert!(
        body.trim_end().ends_with(&format!(
            "[… {} more bytes of the issue were cut]",
            1024 * 1024 - 256 * 1024
        )),
        "{}",
        &body[body.len() - 80..]
    );
}

/// Issue 32, item 2: what `loki pr` publishes is verified material. A run whose receipt.md was
/// edited after sealing publishes nothing: no push, no request, and the error names the file.
#[tokio::test(flavor = "current_thread")]
async fn pr_publishes_nothing_from_an_edited_receipt_md() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, v, _bare) = built(&sb, &fake, &["octo/widgets#12"], true).await;
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let md_path = run_dir(&r, &v).join("receipt.md");
    let md = std::fs::read_to_string(&md_path).unwrap();
    std::fs::write(
        &md_path,
        md.replace("none ran", "all passed")
            .replace("**VERIFIED**", "**VERIFIED** (reviewed by a human)"),
    )
    .unwrap();
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id])).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("does not verify (TAMPERED"), "{err}");
    assert!(
        err.contains("receipt.md was changed after sealing"),
        "{err}"
    );
    assert!(
        r.git(&["ls-remote", "origin"]).trim().is_empty(),
        "nothing was pushed"
    );
    assert!(fake.pull_requests().is_empty(), "no request was opened");
    // Put back, the same run publishes.
    std::fs::write(&md_path, &md).unwrap();
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id])).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fake.pull_requests().len(), 1);
    fake.assert_clean();
}

/// `loki pr`: the run's branch pushed to the remote (a local bare repository), a pull request
/// opened on the fake GitHub whose body is the evidence (snapshot), and a second call updating the
/// same request; without the token nothing is pushed.
#[tokio::test(flavor = "current_thread")]
async fn pr_pushes_the_branch_and_opens_then_updates_one_evidence_pull_request() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, v, _bare) = built(&sb, &fake, &["octo/widgets#12"], true).await;
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    // No token: refused before anything is pushed.
    let mut cmd = loki(&sb, r.path(), &fake, &["pr", "latest"]);
    cmd.env_remove("GITHUB_TOKEN");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GITHUB_TOKEN is not set"));
    assert!(
        r.git(&["ls-remote", "origin"]).trim().is_empty(),
        "nothing was pushed"
    );
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id])).await;
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.starts_with("opened ") && said.contains("/octo/widgets/pull/1"),
        "{said}"
    );
    let head = r.git(&["rev-parse", &format!("loki/{run_id}")]);
    assert!(
        r.git(&["ls-remote", "origin"]).contains(head.trim()),
        "the branch is on the remote"
    );
    let prs = fake.pull_requests();
    assert_eq!(prs.len(), 1);
    assert_eq!(prs[0]["draft"], false, "a VERIFIED run is not a draft");
    assert_eq!(prs[0]["base"], "main");
    assert_eq!(prs[0]["title"], "add() subtracts (github:octo/widgets#12)");
    let body = prs[0]["body"].as_str().unwrap().to_string();
    for part in [
        "## What the issue asked",
        "- `calc.py`",
        "## How it was tested",
        "VERIFIED",
        "NOT PROVEN",
        &format!("loki verify {run_id}"),
        "DSSE envelope",
    ] {
        assert!(body.contains(part), "{part} missing from:\n{body}");
    }
    // Durations and the temporary remote's path change from run to run.
    let stable: Vec<String> = body
        .split("<details>")
        .next()
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("| Repository |") && !l.starts_with("| Time |"))
        .map(|l| {
            l.split(' ')
                .map(|w| {
                    let d = w.trim_end_matches("ms").trim_end_matches('s');
                    if !d.is_empty() && d != w && d.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    {
                        "[DUR]"
                    } else {
                        w
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let pinned = loki_test_support::redact(&stable.join("\n"), &[]);
    insta::assert_snapshot!(pinned);
    // Again: the same pull request, updated.
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id, "--json"])).await;
    let p: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(p["created"], false, "{p:#}");
    assert_eq!(fake.pull_requests().len(), 1);
    assert_eq!(fake.pull_requests()[0]["updates"], 1);
    fake.assert_clean();
}

/// `loki pr` for a run from a GitLab issue: a merge request on the fake GitLab, into `--base`.
#[tokio::test(flavor = "current_thread")]
async fn pr_opens_a_gitlab_merge_request_for_a_gitlab_issue() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, v, _bare) = built(&sb, &fake, &["grp/sub/proj#3"], true).await;
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let out = run(loki(
        &sb,
        r.path(),
        &fake,
        &["pr", "latest", "--base", "release", "--json"],
    ))
    .await;
    let p: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(p["created"], true, "{p:#}");
    assert!(
        p["url"].as_str().unwrap().contains("/-/merge_requests/1"),
        "{p:#}"
    );
    let mrs = fake.pull_requests();
    assert_eq!(mrs[0]["target_branch"], "release");
    assert_eq!(mrs[0]["title"], "add() subtracts (gitlab:grp/sub/proj#3)");
    assert!(
        mrs[0]["description"]
            .as_str()
            .unwrap()
            .contains("## How it was tested")
    );
    fake.assert_clean();
}
