//! `loki workspace`: two repositories declared in `loki.toml`, one build run each with the same
//! task, an integration step over both heads that fails (exit 1), and with `--pr` a request per
//! repository (one on the fake GitHub, one on the fake GitLab), each commented with the integration status and both heads.

use std::path::Path;

use loki_test_support::fake_trackers::FakeTrackers;
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::intake::{WALL, call, loki, repo, run};

/// A repository whose `origin` fetches from `url` (so the forge is known) and pushes to a local
/// bare repository (kept alive by the returned dir).
fn forge_repo(url: &str) -> (GitRepo, tempfile::TempDir) {
    let r = repo();
    let bare = tempfile::tempdir().unwrap();
    r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    r.git(&["remote", "add", "origin", url]);
    r.git(&[
        "remote",
        "set-url",
        "--push",
        "origin",
        bare.path().to_str().unwrap(),
    ]);
    (r, bare)
}

fn script(dir: &Path) -> std::path::PathBuf {
    let finish = call("finish", &json!({"status": "done", "detail": "done"}));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})), finish.clone()]},
        {"name": "implement", "turns": [call("edit", &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})), finish]}
    ]});
    let p = dir.join("workspace-script.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

#[tokio::test(flavor = "current_thread")]
async fn a_workspace_of_two_repos_whose_integration_fails_exits_1_and_says_so_on_each_pr() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    // One on GitHub, one on GitLab: both forges' request and comment endpoints.
    let (api, _api_bare) = forge_repo("https://github.com/octo/api.git");
    let (web, _web_bare) = forge_repo("https://gitlab.com/grp/web.git");
    // The integration sees both repositories at their runs' heads (fixed), then fails.
    let integration = "for d in $(ls -A); do grep -q 'return a + b' \"$d/calc.py\" || exit 2; done; echo the services disagree; exit 1";
    api.write(
        "loki.toml",
        &format!(
            "[workspaces.shop]\nrepos = [\".\", {{ path = {:?}, setup = \"test -f calc.py\" }}]\nintegration = {:?}\n",
            web.path().display().to_string(),
            integration
        ),
    );
    api.commit("workspace");
    let api_name = api
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let web_name = web
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let out = run(loki(&sb, api.path(), &fake, &["workspace", "list"])).await;
    assert!(String::from_utf8_lossy(&out.stdout).contains("shop            2 repositories"));
    let out = run(loki(&sb, api.path(), &fake, &["workspace", "show", "shop"])).await;
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        said.contains("setup: test -f calc.py") && said.contains("integration: for d"),
        "{said}"
    );
    let s = script(sb.home());
    let mut cmd = loki(
        &sb,
        api.path(),
        &fake,
        &[
            "workspace",
            "run",
            "shop",
            "make add return the sum",
            "--pr",
            "--json",
        ],
    );
    cmd.args(["--provider", "scripted", "--script"]).arg(&s);
    let out = run(cmd).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(v["schema"], "loki.workspace-run/1");
    let repos = v["repos"].as_array().unwrap();
    assert_eq!(repos.len(), 2);
    let mut heads = Vec::new();
    for (row, (r, name)) in repos.iter().zip([(&api, &api_name), (&web, &web_name)]) {
        assert_eq!(row["name"], name.as_str());
        assert_eq!(row["outcome"], "VERIFIED", "{row:#}");
        let branch = format!("loki/{}", row["run_id"].as_str().unwrap());
        let head = r.git(&["rev-parse", &branch]).trim().to_string();
        assert_eq!(
            row["head_sha"],
            head.as_str(),
            "the integration used the run's head"
        );
        heads.push(head);
    }
    assert_eq!(v["integration"]["status"], "failed");
    assert_eq!(
        v["integration"]["exit_code"], 1,
        "not 2: both checkouts had the fix"
    );
    assert!(
        v["integration"]["detail"]
            .as_str()
            .unwrap()
            .contains("the services disagree")
    );
    // One request per repository, each on its own forge repository, each commented.
    let prs = fake.pull_requests();
    let mut pr_repos: Vec<&str> = prs.iter().map(|p| p["repo"].as_str().unwrap()).collect();
    pr_repos.sort_unstable();
    assert_eq!(pr_repos, ["grp/web", "octo/api"]);
    let comments = fake.comments();
    assert_eq!(comments.len(), 2, "{comments:#?}");
    let mut commented: Vec<&str> = comments
        .iter()
        .map(|c| c["repo"].as_str().unwrap())
        .collect();
    commented.sort_unstable();
    assert_eq!(commented, ["grp/web", "octo/api"]);
    for c in &comments {
        let body = c["body"].as_str().unwrap();
        assert!(body.contains("integration failed (exit 1)"), "{body}");
        for h in &heads {
            assert!(body.contains(h.as_str()), "{h} missing from {body}");
        }
    }
    // The record is kept; status shows the last run.
    let out = run(loki(
        &sb,
        api.path(),
        &fake,
        &["workspace", "status", "shop"],
    ))
    .await;
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("Integration: failed (exit 1)"), "{said}");
    assert!(said.contains(v["id"].as_str().unwrap()), "{said}");
    let records = std::fs::read_dir(api.path().join(".loki/workspaces"))
        .unwrap()
        .count();
    assert_eq!(records, 1);
    fake.assert_clean();
}

#[tokio::test(flavor = "current_thread")]
async fn a_workspace_with_a_dirty_or_missing_repo_is_refused_before_any_run() {
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let api = repo();
    // The missing repository: a path in the sandbox, which the test owns.
    api.write(
        "loki.toml",
        &format!(
            "[workspaces.shop]\nrepos = [\".\", {:?}]\n",
            sb.home().join("gone/web").display().to_string()
        ),
    );
    api.commit("workspace");
    let out = run(loki(
        &sb,
        api.path(),
        &fake,
        &["workspace", "run", "shop", "fix it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a git repository"));
    let out = run(loki(
        &sb,
        api.path(),
        &fake,
        &["workspace", "run", "nope", "fix it"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("declared: shop"));
    let out = run(loki(&sb, api.path(), &fake, &["workspace", "status"])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        !api.path().join(".loki/runs").exists()
            || std::fs::read_dir(api.path().join(".loki/runs"))
                .unwrap()
                .next()
                .is_none()
    );
    fake.assert_clean();
}
