//! Judging every pull request (issue 34, item 3), end to end: the composite action
//! `action.yml` and the GitLab template `examples/ci/gitlab/loki-judge.gitlab-ci.yml`, run step
//! by step as their runners would ([`runner`]), against the loopback fake GitHub and GitLab, on
//! a real repository (a bare `origin` with `main` and the request's branches, checked out the way
//! each CI checks out a request) with a real pytest suite.

mod runner;
mod valid;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use loki_test_support::fake_trackers::{FakeTrackers, GITHUB_TOKEN, GITLAB_TOKEN};
use loki_test_support::{GitRepo, Sandbox, git_command};
use serde_json::Value;

use runner::{GitlabRunner, Job, Runner};

const CALC: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const TESTS: &str = "from calc import add, sub\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The forge's repository: a bare `origin` whose `main` holds a calculator and its tests, and a
/// clone to write the requests' branches in.
struct Origin {
    bare: tempfile::TempDir,
    work: GitRepo,
}

impl Origin {
    fn new() -> Origin {
        let work = GitRepo::new();
        work.write("calc.py", CALC)
            .write("test_calc.py", TESTS)
            .write(".gitignore", "__pycache__/\n.pytest_cache/\n");
        work.commit("calc");
        let bare = tempfile::tempdir().unwrap();
        work.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
        work.git(&["remote", "add", "origin", &url(bare.path())]);
        work.git(&["push", "-q", "origin", "main"]);
        Origin { bare, work }
    }

    fn url(&self) -> String {
        url(self.bare.path())
    }

    /// Commits `files` on `branch` (made from `main` the first time) and pushes it; the head.
    fn push(&self, branch: &str, files: &[(&str, &str)], message: &str) -> String {
        let exists = self
            .work
            .git(&["branch", "--list", branch])
            .contains(branch);
        if exists {
            self.work.git(&["checkout", "-q", branch]);
        } else {
            self.work.git(&["checkout", "-q", "-b", branch, "main"]);
        }
        for (path, text) in files {
            self.work.write(path, text);
        }
        let head = self.work.commit(message);
        self.work.git(&["push", "-q", "-f", "origin", branch]);
        self.work.git(&["checkout", "-q", "main"]);
        head
    }

    /// What GitHub does for pull request `n` from `branch`: a merge commit of it into `main`,
    /// at `refs/pull/<n>/merge`.
    fn merge_ref(&self, branch: &str, n: u64) {
        self.work.git(&["checkout", "-q", "--detach", "main"]);
        self.work
            .git(&["merge", "-q", "--no-ff", "-m", "Merge pull request", branch]);
        self.work.git(&[
            "push",
            "-q",
            "-f",
            "origin",
            &format!("HEAD:refs/pull/{n}/merge"),
        ]);
        self.work.git(&["checkout", "-q", "main"]);
    }
}

fn url(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A checkout as `actions/checkout` makes one for a pull request: one commit deep, the merge
/// commit, detached.
fn github_checkout(origin: &Origin, n: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["remote", "add", "origin", &origin.url()]);
    let merge = format!("+refs/pull/{n}/merge:refs/remotes/pull/{n}/merge");
    git(
        dir.path(),
        &["fetch", "-q", "--no-tags", "--depth=1", "origin", &merge],
    );
    git(
        dir.path(),
        &[
            "checkout",
            "-q",
            "--detach",
            &format!("refs/remotes/pull/{n}/merge"),
        ],
    );
    assert_eq!(
        git(dir.path(), &["rev-parse", "--is-shallow-repository"]),
        "true"
    );
    dir
}

/// A `PATH` whose first directory holds the `loki` under test (the action uses the one on PATH).
fn loki_on_path() -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        assert_cmd::cargo::cargo_bin("loki"),
        bin.path().join("loki"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

/// The sandbox's environment (as `Sandbox::apply` sets it) with `path` as PATH.
fn sandbox_env(sb: &Sandbox, path: &str) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for (k, v) in [
        ("PATH", path.to_string()),
        ("HOME", sb.home().display().to_string()),
        ("LOKI_HOME", sb.loki_home().display().to_string()),
        ("NO_COLOR", "1".into()),
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("GIT_CONFIG_GLOBAL", "/dev/null".into()),
    ] {
        env.insert(k.to_string(), v);
    }
    env
}

/// GitHub Actions on pull request `n` of `octo/widgets` whose head is `head`.
fn github_runner(
    sb: &Sandbox,
    path: &str,
    fake: &FakeTrackers,
    n: u64,
    head: &str,
) -> (Runner, tempfile::TempDir) {
    let temp = tempfile::tempdir().unwrap();
    let event = serde_json::json!({"action": "synchronize", "number": n,
        "pull_request": {"number": n, "html_url": format!("https://github.example/octo/widgets/pull/{n}"),
            "head": {"sha": head, "ref": "feature", "repo": {"full_name": "octo/widgets"}},
            "base": {"ref": "main", "repo": {"full_name": "octo/widgets"}}},
        "repository": {"full_name": "octo/widgets"}});
    let event_path = temp.path().join("event.json");
    std::fs::write(&event_path, event.to_string()).unwrap();
    let mut env = sandbox_env(sb, path);
    for (k, v) in [
        ("GITHUB_ACTIONS", "true".to_string()),
        ("GITHUB_EVENT_NAME", "pull_request".into()),
        ("GITHUB_EVENT_PATH", event_path.display().to_string()),
        ("GITHUB_API_URL", fake.origin()),
        ("GITHUB_SERVER_URL", "https://github.example".into()),
        ("GITHUB_REPOSITORY", "octo/widgets".into()),
        ("GITHUB_RUN_ID", "4242".into()),
        ("GITHUB_ACTION_PATH", root().display().to_string()),
    ] {
        env.insert(k.to_string(), v);
    }
    let runner = Runner {
        env,
        temp: temp.path().join("runner"),
        token: GITHUB_TOKEN.to_string(),
    };
    std::fs::create_dir_all(&runner.temp).unwrap();
    (runner, temp)
}

/// The comments on request `n` of `repo` that carry loki's marker.
fn loki_comments(fake: &FakeTrackers, repo: &str, n: u64) -> Vec<Value> {
    fake.comments()
        .into_iter()
        .filter(|c| c["repo"] == repo && c["number"] == n)
        .filter(|c| {
            c["body"]
                .as_str()
                .unwrap()
                .starts_with("<!-- loki:judge:loki -->")
        })
        .collect()
}

/// `loki verify` of an artifact's envelope against the public key beside it: its exit status.
fn verify_artifact(sb: &Sandbox, dir: &Path) -> i32 {
    let out = crate::cli::sandboxed(sb, dir)
        .args(["verify", "receipt.dsse.json", "--pubkey", "pubkey.pem"])
        .output()
        .unwrap();
    out.status.code().unwrap()
}

async fn run_action(runner: Runner, workspace: PathBuf) -> Job {
    run_action_with(runner, workspace, root(), &[]).await
}

/// Runs the action in `action_dir` (its `GITHUB_ACTION_PATH`) with the inputs `with`.
async fn run_action_with(
    mut runner: Runner,
    workspace: PathBuf,
    action_dir: PathBuf,
    with: &[(&'static str, &'static str)],
) -> Job {
    let with: BTreeMap<&str, &str> = with.iter().copied().collect();
    runner.env.insert(
        "GITHUB_ACTION_PATH".into(),
        action_dir.display().to_string(),
    );
    tokio::task::spawn_blocking(move || {
        runner.run_action(&action_dir.join("action.yml"), &with, &workspace)
    })
    .await
    .unwrap()
}

/// The action beside an `install.sh` that installs the `loki` under test into
/// `LOKI_INSTALL_DIR` when asked for release `v9.9.9` (and fails otherwise): the action's
/// install branch, without a download.
fn action_with_installer() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join("action.yml"), dir.path().join("action.yml")).unwrap();
    let install = dir.path().join("install.sh");
    std::fs::write(
        &install,
        format!(
            "#!/bin/sh\nset -eu\n[ \"$LOKI_VERSION\" = v9.9.9 ] || {{ echo \"asked for $LOKI_VERSION\" >&2; exit 9; }}\nmkdir -p \"$LOKI_INSTALL_DIR\"\nln -s {} \"$LOKI_INSTALL_DIR/loki\"\n",
            assert_cmd::cargo::cargo_bin("loki").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&install, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

const MUL: &str = "def mul(a, b):\n    return a * b\n";
const MUL_TEST: &str = "from mul import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n";
const DIV: &str = "def div(a, b):\n    return a / b\n";
const DIV_TEST: &str = "from div import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n";

/// The cheat: `sub` broken, and its test weakened to pass anyway.
fn cheat_files() -> [(&'static str, String); 2] {
    [
        ("calc.py", CALC.replace("return a - b", "return 0")),
        (
            "test_calc.py",
            TESTS.replace("assert sub(5, 3) == 2", "assert sub(5, 3) is not None"),
        ),
    ]
}

#[tokio::test(flavor = "current_thread")]
async fn the_action_fails_a_cheat_passes_an_honest_pull_request_and_updates_one_comment() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    fake.add_request("octo/widgets", 7);
    fake.add_request("octo/widgets", 8);
    fake.add_comment("octo/widgets", 7, "ana", "Nice. Does it pass loki?", false);
    let sb = Sandbox::new();
    let (_bin, path) = loki_on_path();
    let origin = Origin::new();

    // An honest pull request: a new function with its test.
    let head1 = origin.push(
        "feature",
        &[("mul.py", MUL), ("test_mul.py", MUL_TEST)],
        "mul",
    );
    origin.merge_ref("feature", 7);
    let checkout = github_checkout(&origin, 7);
    let (runner, _t1) = github_runner(&sb, &path, &fake, 7, &head1);
    let job = run_action(runner, checkout.path().to_path_buf()).await;
    assert!(!job.failed, "{}", job.log);
    assert_eq!(job.outputs["verdict"], "clean", "{}", job.log);
    assert_eq!(job.outputs["conclusion"], "success");
    assert_eq!(job.outputs["passed"], "true");
    assert_eq!(job.outputs["receipt-sha256"].len(), 64);
    let mine = loki_comments(&fake, "octo/widgets", 7);
    assert_eq!(mine.len(), 1, "{:#?}", fake.comments());
    let body = mine[0]["body"].as_str().unwrap();
    assert!(body.contains("## ✅ loki: CLEAN"), "{body}");
    assert!(body.contains(&head1[..12]), "{body}");
    assert!(body.contains(&job.outputs["receipt-sha256"]), "{body}");
    assert!(
        body.contains("https://github.example/octo/widgets/actions/runs/4242"),
        "{body}"
    );
    assert_eq!(
        job.outputs["comment-url"],
        mine[0]["html_url"].as_str().unwrap()
    );
    assert!(job.summary.contains("## ✅ loki: CLEAN"), "{}", job.summary);
    let runs = fake.check_runs();
    assert_eq!(runs.len(), 1, "{runs:#?}");
    assert_eq!(runs[0]["head_sha"], head1.as_str());
    assert_eq!(runs[0]["conclusion"], "success");
    assert_eq!(runs[0]["name"], "loki");
    assert_eq!(
        runs[0]["details_url"],
        "https://github.example/octo/widgets/actions/runs/4242"
    );
    // The signed receipt is the artifact, and it verifies against the key beside it.
    let artifact = &job.artifacts["loki-receipt"];
    for f in [
        "report.json",
        "comment.md",
        "receipt.json",
        "receipt.dsse.json",
        "receipt.md",
        "events.jsonl",
        "pubkey.pem",
    ] {
        assert!(artifact.join(f).is_file(), "{f} is not in the artifact");
    }
    assert_eq!(
        verify_artifact(&sb, artifact),
        0,
        "a clean change's receipt is VERIFIED"
    );

    // A second push to the same request: the same comment is updated, a new check run is made
    // for the new head.
    let head2 = origin.push(
        "feature",
        &[("div.py", DIV), ("test_div.py", DIV_TEST)],
        "div",
    );
    origin.merge_ref("feature", 7);
    let checkout = github_checkout(&origin, 7);
    // This run installs loki (the release asked for) instead of using one on PATH.
    let bare_path = std::env::var("PATH").unwrap_or_default();
    let (runner, t2) = github_runner(&sb, &bare_path, &fake, 7, &head2);
    let installer = action_with_installer();
    let job = run_action_with(
        runner,
        checkout.path().to_path_buf(),
        installer.path().to_path_buf(),
        &[("loki-version", "v9.9.9")],
    )
    .await;
    assert!(!job.failed, "{}", job.log);
    assert!(!job.log.contains("using "), "{}", job.log);
    assert!(t2.path().join("runner/loki-bin/loki").exists());
    let mine = loki_comments(&fake, "octo/widgets", 7);
    assert_eq!(
        mine.len(),
        1,
        "one comment, updated: {:#?}",
        fake.comments()
    );
    assert_eq!(mine[0]["updates"], 1);
    let body = mine[0]["body"].as_str().unwrap();
    assert!(
        body.contains(&head2[..12]) && !body.contains(&head1[..12]),
        "{body}"
    );
    assert_eq!(
        fake.comments().len(),
        2,
        "the person's comment is left alone"
    );
    let runs = fake.check_runs();
    assert_eq!(runs.len(), 2, "{runs:#?}");
    assert_eq!(runs[1]["head_sha"], head2.as_str());
    assert_eq!(runs[1]["conclusion"], "success");

    // A cheat: the check fails and the comment names the weakened test.
    let cheat = cheat_files();
    let files: Vec<(&str, &str)> = cheat.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let head3 = origin.push("cheat", &files, "faster sub");
    origin.merge_ref("cheat", 8);
    let checkout = github_checkout(&origin, 8);
    let (runner, t3) = github_runner(&sb, &path, &fake, 8, &head3);
    let post_env = runner.env.clone();
    let job = run_action(runner, checkout.path().to_path_buf()).await;
    assert!(job.failed, "{}", job.log);
    assert_eq!(job.status("Judge the pull request"), Some(0), "{}", job.log);
    assert_eq!(job.status("Upload the signed receipt"), Some(0));
    assert_eq!(job.status("Post the verdict"), Some(1), "{}", job.log);
    assert_eq!(job.outputs["verdict"], "findings");
    assert_eq!(job.outputs["passed"], "false");
    let mine = loki_comments(&fake, "octo/widgets", 8);
    assert_eq!(mine.len(), 1);
    let body = mine[0]["body"].as_str().unwrap();
    assert!(body.contains("## ❌ loki: FINDINGS"), "{body}");
    assert!(
        body.contains("**The check fails** (fail-on: findings)"),
        "{body}"
    );
    assert!(
        body.contains("`weakened_test`") && body.contains("`test_calc.py::test_sub`"),
        "{body}"
    );
    let run = fake
        .check_runs()
        .into_iter()
        .find(|r| r["head_sha"] == head3.as_str())
        .unwrap();
    assert_eq!(run["conclusion"], "failure");
    assert_eq!(run["output"]["title"], "FINDINGS: 1 finding");
    assert!(
        run["output"]["summary"]
            .as_str()
            .unwrap()
            .contains("test_calc.py::test_sub")
    );
    // Intact, but the outcome is not VERIFIED: `loki verify` exits 4.
    assert_eq!(verify_artifact(&sb, &job.artifacts["loki-receipt"]), 4);

    // The workflow re-run on the same head: the check run and the comment are updated, not doubled.
    let report = t3.path().join("runner/loki-judge/report.json");
    let mut post = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    post.env_clear()
        .envs(&post_env)
        .env("GITHUB_TOKEN", GITHUB_TOKEN)
        .current_dir(checkout.path())
        .args(["--json", "ci", "post"])
        .arg(&report);
    let out = crate::intake::run(post).await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let said: Value = serde_json::from_slice(&out.stdout).unwrap();
    crate::json_contract::validate(&said, "ci-post");
    assert_eq!(said["posted"]["comment_created"], false, "{said}");
    let on_head3: Vec<Value> = fake
        .check_runs()
        .into_iter()
        .filter(|r| r["head_sha"] == head3.as_str())
        .collect();
    assert_eq!(on_head3.len(), 1);
    assert_eq!(on_head3[0]["updates"], 1);
    assert_eq!(loki_comments(&fake, "octo/widgets", 8).len(), 1);
    fake.assert_clean();
}

/// The merge request's checkout as a GitLab runner makes it with `GIT_DEPTH: "0"`: a full clone
/// at the request's head, detached.
fn gitlab_checkout(origin: &Origin, head: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(
        dir.path(),
        &["clone", "-q", "--no-checkout", &origin.url(), "."],
    );
    git(dir.path(), &["checkout", "-q", "--detach", head]);
    dir
}

fn gitlab_runner(
    sb: &Sandbox,
    path: &str,
    fake: &FakeTrackers,
    head: &str,
    builds: &Path,
) -> GitlabRunner {
    let mut env = sandbox_env(sb, path);
    let origin = fake.origin();
    for (k, v) in [
        ("GITLAB_CI", "true".to_string()),
        ("CI", "true".into()),
        ("CI_PIPELINE_SOURCE", "merge_request_event".into()),
        ("CI_API_V4_URL", format!("{origin}/api/v4")),
        ("CI_PROJECT_PATH", "grp/sub/proj".into()),
        (
            "CI_PROJECT_URL",
            "https://gitlab.example/grp/sub/proj".into(),
        ),
        ("CI_MERGE_REQUEST_IID", "3".into()),
        ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "main".into()),
        ("CI_COMMIT_SHA", head.to_string()),
        (
            "CI_JOB_URL",
            "https://gitlab.example/grp/sub/proj/-/jobs/99".into(),
        ),
    ] {
        env.insert(k.to_string(), v);
    }
    let scoped = BTreeMap::from([(
        "loki-review".to_string(),
        BTreeMap::from([("GITLAB_TOKEN".to_string(), GITLAB_TOKEN.to_string())]),
    )]);
    GitlabRunner {
        env,
        scoped,
        builds: builds.to_path_buf(),
    }
}

fn template() -> PathBuf {
    root().join("examples/ci/gitlab/loki-judge.gitlab-ci.yml")
}

#[tokio::test(flavor = "current_thread")]
async fn the_gitlab_template_fails_a_cheat_then_passes_its_fix_with_one_note_and_a_commit_status() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    fake.add_request("grp/sub/proj", 3);
    fake.add_comment("grp/sub/proj", 3, "gitlab", "changed the description", true);
    let sb = Sandbox::new();
    let (_bin, path) = loki_on_path();
    let origin = Origin::new();

    let cheat = cheat_files();
    let files: Vec<(&str, &str)> = cheat.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let head1 = origin.push("faster", &files, "faster sub");
    let checkout = gitlab_checkout(&origin, &head1);
    let builds = tempfile::tempdir().unwrap();
    let runner = gitlab_runner(&sb, &path, &fake, &head1, builds.path());
    let dir = checkout.path().to_path_buf();
    let jobs = tokio::task::spawn_blocking(move || runner.run_pipeline(&template(), &dir))
        .await
        .unwrap();
    let judge = &jobs["loki:judge"];
    assert_eq!(judge.status, 0, "{}", judge.log);
    let post = &jobs["loki:post"];
    assert_eq!(post.status, 1, "the cheat fails the job: {}", post.log);
    let notes = loki_comments(&fake, "grp/sub/proj", 3);
    assert_eq!(notes.len(), 1, "{:#?}", fake.comments());
    let body = notes[0]["body"].as_str().unwrap();
    assert!(body.contains("## ❌ loki: FINDINGS"), "{body}");
    assert!(body.contains("`test_calc.py::test_sub`"), "{body}");
    let statuses = fake.statuses();
    assert_eq!(statuses.len(), 1, "{statuses:#?}");
    assert_eq!(statuses[0]["sha"], head1.as_str());
    assert_eq!(statuses[0]["state"], "failed");
    assert_eq!(statuses[0]["name"], "loki");
    assert_eq!(
        statuses[0]["target_url"],
        "https://gitlab.example/grp/sub/proj/-/jobs/99"
    );
    // The receipt is the judge job's artifact.
    let artifact = builds.path().join("artifacts-loki-judge/loki-judge");
    assert_eq!(verify_artifact(&sb, &artifact), 4, "intact, not VERIFIED");

    // The fix, pushed to the same merge request: the note is updated and the status passes.
    let head2 = origin.push(
        "faster",
        &[
            ("calc.py", CALC),
            ("test_calc.py", TESTS),
            ("mul.py", MUL),
            ("test_mul.py", MUL_TEST),
        ],
        "sub as it was, and mul",
    );
    let checkout = gitlab_checkout(&origin, &head2);
    let runner = gitlab_runner(&sb, &path, &fake, &head2, builds.path());
    let dir = checkout.path().to_path_buf();
    let jobs = tokio::task::spawn_blocking(move || runner.run_pipeline(&template(), &dir))
        .await
        .unwrap();
    assert_eq!(jobs["loki:post"].status, 0, "{}", jobs["loki:post"].log);
    let notes = loki_comments(&fake, "grp/sub/proj", 3);
    assert_eq!(notes.len(), 1, "{:#?}", fake.comments());
    assert_eq!(notes[0]["updates"], 1);
    assert!(
        notes[0]["body"]
            .as_str()
            .unwrap()
            .contains("## ✅ loki: CLEAN")
    );
    let last = fake.statuses().pop().unwrap();
    assert_eq!(
        (last["sha"].as_str(), last["state"].as_str()),
        (Some(head2.as_str()), Some("success"))
    );
    fake.assert_clean();
}
