//! Bad input around issues and pull requests: malformed references of several shapes, URLs on
//! hosts loki was not told about, an issue that disappears between the run and its pull request,
//! and a push the remote rejects. Each is refused with an error that names it; none loses a run.

use loki_test_support::Sandbox;
use loki_test_support::fake_trackers::{Behaviour, FakeTrackers};
use serde_json::Value;

use crate::intake::{loki, repo, run, run_dir};

#[tokio::test(flavor = "current_thread")]
async fn malformed_references_and_unknown_hosts_are_refused_by_name() {
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    for reference in [
        "octo/widgets#",
        "octo/widgets#-3",
        "octo/widgets#3x",
        "octo/#3",
        "/widgets#3",
        "github:octo#3",
        "https://github.com/octo/widgets/issues/abc",
        "https://github.com/octo/issues/3",
        "jira:",
        "linear:",
        "gitlab:grp#3",
    ] {
        let out = run(loki(&sb, r.path(), &fake, &["issue", reference])).await;
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{reference}: {err}");
        assert!(err.contains(reference), "{reference} is named: {err}");
    }
    // Hosts that are neither github.com, gitlab.com, GITLAB_URL's nor JIRA_BASE_URL's: refused,
    // and nothing is asked of them (the fake saw no request for them).
    for url in [
        "https://evil.example.com/octo/widgets/issues/1",
        "https://gitlab.evil.example/grp/proj/-/issues/3",
        "https://jira.evil.example/browse/PROJ-7",
        "http://github.com.evil.example/octo/widgets/issues/1",
    ] {
        let out = run(loki(&sb, r.path(), &fake, &["issue", url])).await;
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{url}: {err}");
        let host = url.split('/').nth(2).unwrap();
        assert!(err.contains(host), "{url}: {err}");
    }
    assert!(fake.requests().is_empty(), "no tracker was asked anything");
    let runs = r.path().join(".loki/runs");
    assert!(!runs.exists() || std::fs::read_dir(&runs).unwrap().next().is_none());
    fake.assert_clean();
}

/// Built, then the issue is deleted: `loki pr` reads it again, gets 404, and refuses before
/// pushing; the run's outcome is kept. Then the issue is back, the remote's pre-receive hook
/// rejects the push: git's own message is in the error, no request is opened.
#[tokio::test(flavor = "current_thread")]
async fn an_issue_gone_before_its_pr_and_a_rejected_push_open_nothing_and_keep_the_run() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    let bare = tempfile::tempdir().unwrap();
    r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    r.git(&["remote", "add", "origin", bare.path().to_str().unwrap()]);
    let s = crate::intake_pr::script(sb.home());
    let mut cmd = loki(&sb, r.path(), &fake, &["octo/widgets#12"]);
    cmd.args(["--provider", "scripted", "--json", "--script"])
        .arg(&s);
    let out = run(cmd).await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let run_id = v["run_id"].as_str().unwrap().to_string();
    let outcome = || {
        let rec: Value =
            serde_json::from_slice(&std::fs::read(run_dir(&r, &v).join("run.json")).unwrap())
                .unwrap();
        rec["outcome"].clone()
    };
    // The issue disappears.
    fake.set(Behaviour::NotFound);
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id])).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("its issue github:octo/widgets#12 is gone"),
        "{err}"
    );
    assert!(err.contains("was not found (HTTP 404"), "{err}");
    assert!(
        r.git(&["ls-remote", "origin"]).trim().is_empty(),
        "nothing pushed"
    );
    assert!(fake.pull_requests().is_empty());
    assert_eq!(outcome(), "VERIFIED");
    // The issue is back; the remote refuses the push.
    fake.set(Behaviour::Normal);
    let hook = bare.path().join("hooks/pre-receive");
    std::fs::write(
        &hook,
        "#!/bin/sh\necho 'policy: pushes to this remote are frozen' >&2\nexit 1\n",
    )
    .unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
    let out = run(loki(&sb, r.path(), &fake, &["pr", &run_id])).await;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("policy: pushes to this remote are frozen"),
        "git's words: {err}"
    );
    assert!(err.contains("pre-receive hook declined"), "{err}");
    assert!(
        r.git(&["ls-remote", "origin"]).trim().is_empty(),
        "nothing pushed"
    );
    assert!(
        fake.pull_requests().is_empty(),
        "no request without the push"
    );
    assert_eq!(outcome(), "VERIFIED");
    fake.assert_clean();
}
