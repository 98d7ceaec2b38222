//! `--pr` on a build (`loki owner/repo#N --pr`, `loki "<task>" --pr`): the run seals, then is
//! published exactly as `loki pr <run>` publishes it; the forge token never reaches the agent; a
//! publish that fails keeps the run's outcome and says how to retry.

use std::path::{Path, PathBuf};

use loki_test_support::fake_trackers::{FakeTrackers, GITHUB_TOKEN, GITLAB_TOKEN};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::intake::{WALL, call, loki, repo, run, run_dir};

/// The scripted fix, whose agent also prints its environment (so the transcript shows what it
/// was given).
pub(crate) fn script(dir: &Path) -> PathBuf {
    let finish = call("finish", &json!({"status": "done", "detail": "done"}));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})), finish.clone()]},
        {"name": "implement", "turns": [
            call("run", &json!({"command": "env; echo ENV-PRINTED"})),
            call("edit", &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})),
            finish]}
    ]});
    let p = dir.join("script-env.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

/// A repository with a local bare `origin` (kept alive by the returned dir).
fn with_remote() -> (GitRepo, tempfile::TempDir) {
    let r = repo();
    let bare = tempfile::tempdir().unwrap();
    r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    r.git(&["remote", "add", "origin", bare.path().to_str().unwrap()]);
    (r, bare)
}

fn build_cmd(
    sb: &Sandbox,
    r: &GitRepo,
    fake: &FakeTrackers,
    args: &[&str],
) -> std::process::Command {
    let s = script(sb.home());
    let mut cmd = loki(sb, r.path(), fake, args);
    cmd.args(["--provider", "scripted", "--json", "--pr", "--script"])
        .arg(&s);
    cmd
}

#[tokio::test(flavor = "current_thread")]
async fn pr_on_an_issue_build_opens_the_evidence_pull_request_and_the_agent_never_sees_the_token() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, _bare) = with_remote();
    let out = run(build_cmd(&sb, &r, &fake, &["octo/widgets#12"])).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let run_id = v["run_id"].as_str().unwrap();
    assert_eq!(v["pr"]["created"], true, "{v:#}");
    assert!(
        v["pr"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/octo/widgets/pull/1"),
        "{v:#}"
    );
    // The same publish as `loki pr`: pr.json, the branch on the remote, one request.
    let dir = run_dir(&r, &v);
    let recorded: Value =
        serde_json::from_slice(&std::fs::read(dir.join("pr.json")).unwrap()).unwrap();
    assert_eq!(recorded, v["pr"]);
    let head = r.git(&["rev-parse", &format!("loki/{run_id}")]);
    assert!(r.git(&["ls-remote", "origin"]).contains(head.trim()));
    let prs = fake.pull_requests();
    assert_eq!(prs.len(), 1);
    assert_eq!(prs[0]["draft"], false);
    assert!(
        prs[0]["body"]
            .as_str()
            .unwrap()
            .contains(&format!("loki verify {run_id}"))
    );
    // The agent printed its environment: no forge token, no tracker credentials in it.
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("ENV-PRINTED"), "the env command ran");
    assert!(
        transcript.contains("PATH="),
        "the env command's output is there"
    );
    for secret in [GITHUB_TOKEN, GITLAB_TOKEN, "GITHUB_TOKEN", "GITLAB_TOKEN"] {
        assert!(!transcript.contains(secret), "{secret} reached the agent");
    }
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    assert!(!events.contains(GITHUB_TOKEN));
    fake.assert_clean();
}

/// A plain task with `--pr` whose request cannot be opened: refused before the run (no forge
/// token), or, when publishing fails after a good run (the remote is gone), the VERIFIED outcome
/// is kept and the exit code and message say the pull request failed and how to retry.
#[tokio::test(flavor = "current_thread")]
async fn pr_that_cannot_be_published_keeps_the_run_and_says_how_to_retry() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let (r, bare) = with_remote();
    // No token: refused before any run starts.
    let mut cmd = build_cmd(&sb, &r, &fake, &["octo/widgets#12"]);
    cmd.env_remove("GITHUB_TOKEN");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GITHUB_TOKEN is not set"));
    let runs = r.path().join(".loki/runs");
    assert!(
        !runs.exists() || std::fs::read_dir(&runs).unwrap().next().is_none(),
        "no run was started: {:?}",
        std::fs::read_dir(&runs).map(|d| d.map(|e| e.unwrap().path()).collect::<Vec<_>>())
    );
    // The push fails after the run: the remote disappeared.
    drop(bare);
    let out = run(build_cmd(&sb, &r, &fake, &["octo/widgets#12"])).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(v["outcome"], "VERIFIED", "the run's outcome stays: {v:#}");
    let run_id = v["run_id"].as_str().unwrap();
    let said = v["pr_error"].as_str().unwrap();
    assert!(said.contains("opening its pull request failed"), "{said}");
    assert!(
        said.contains(&format!("retry with `loki pr {run_id}`")),
        "{said}"
    );
    assert!(err.contains(&format!("loki pr {run_id}")), "{err}");
    let rec: Value =
        serde_json::from_slice(&std::fs::read(run_dir(&r, &v).join("run.json")).unwrap()).unwrap();
    assert_eq!(rec["outcome"], "VERIFIED");
    assert!(
        fake.pull_requests().is_empty(),
        "no request without the push"
    );
    fake.assert_clean();
}

/// A plain task with `--pr`: the request goes to the forge of the remote's URL (here
/// github.com/octo/widgets, pushed to a local bare repository through its push URL).
#[tokio::test(flavor = "current_thread")]
async fn pr_on_a_text_task_opens_the_request_on_the_remotes_forge() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    let bare = tempfile::tempdir().unwrap();
    r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    r.git(&[
        "remote",
        "add",
        "origin",
        "https://github.com/octo/widgets.git",
    ]);
    r.git(&[
        "remote",
        "set-url",
        "--push",
        "origin",
        bare.path().to_str().unwrap(),
    ]);
    let out = run(build_cmd(
        &sb,
        &r,
        &fake,
        &["make add return the sum of a and b"],
    ))
    .await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pr"]["created"], true, "{v:#}");
    let prs = fake.pull_requests();
    assert_eq!(prs.len(), 1);
    assert_eq!(prs[0]["repo"], "octo/widgets");
    assert_eq!(prs[0]["title"], "loki: make add return the sum of a and b");
    // The push went to the push URL (the fetch URL is never contacted).
    assert!(
        r.git(&["ls-remote", bare.path().to_str().unwrap()])
            .contains("refs/heads/loki/")
    );
    fake.assert_clean();
}
