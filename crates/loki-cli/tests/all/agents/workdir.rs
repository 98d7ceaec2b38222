//! A CLI agent runs where loki says: started from a user's shell in the checkout (`PWD`,
//! `OLDPWD` and npm's `INIT_CWD` naming it), each real client tells its model that its working
//! directory is the run's worktree (the implementer) or the wall author's empty directory, never
//! the user's checkout, and a shell command it runs sees no variable naming the checkout.
//!
//! What each client reports as its directory, read from the requests the fake model server
//! recorded:
//! - opencode: `Working directory: <dir>` in its system prompt (`opencode run` takes it from
//!   `PWD`, else the process's directory);
//! - Claude Code: `Primary working directory: <dir>`;
//! - Codex: `<cwd><dir></cwd>` in its `environment_context`;
//! - aider names no directory: the files of its repository map, and its test command's output.

use std::path::Path;

use loki_test_support::fake_llm::{Api, Expect, FakeLlm, FakeTurn, Recorded};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use super::providers::*;

const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

/// What the agent's shell prints: its directory, then its whole environment.
const SHOW_ENV: &str = "pwd; env";

/// Every string in `v`, depth first.
fn strings<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The rest of every line of request `r` that starts with `prefix` (leading blanks aside).
fn told(r: &Recorded, prefix: &str) -> Vec<String> {
    let mut all = Vec::new();
    strings(&r.body, &mut all);
    all.iter()
        .flat_map(|s| s.lines())
        .filter_map(|l| l.trim_start().strip_prefix(prefix))
        .map(|d| d.trim().to_string())
        .collect()
}

/// Where the text of request `r` names `checkout` other than as the start of `worktree`.
fn names_checkout(r: &Recorded, checkout: &Path, worktree: &Path) -> Vec<String> {
    let mut all = Vec::new();
    strings(&r.body, &mut all);
    let checkout = checkout.display().to_string();
    let worktree = worktree.display().to_string();
    let mut found = Vec::new();
    for s in all {
        for (i, _) in s.match_indices(&checkout) {
            if !s[i..].starts_with(&worktree) {
                let end = s[i..].find(['\n', '"', ' ']).map_or(s.len(), |e| i + e);
                let start = s[..i].rfind('\n').map_or(0, |b| b + 1);
                found.push(s[start..end].to_string());
            }
        }
    }
    found
}

/// `loki` as a user's shell in the checkout starts it: `PWD`, `OLDPWD` and `INIT_CWD` name it.
fn from_the_checkout(cmd: &mut std::process::Command, repo: &GitRepo) {
    cmd.env("PWD", repo.path())
        .env("OLDPWD", repo.path())
        .env("INIT_CWD", repo.path());
}

/// The worktree of the run the summary `v` reports, in `repo`.
fn worktree(repo: &GitRepo, v: &Value) -> std::path::PathBuf {
    let run = v["run_id"].as_str().unwrap_or_else(|| panic!("{v:#}"));
    repo.path().join(".loki/worktrees").join(run)
}

/// Asserts the requests of a run in `repo`: the implementer's (from `implementer` on) were told
/// the worktree by `prefix`, the wall author's (before it) anything but the checkout, and no
/// request names the checkout outside the worktree.
fn assert_told_the_worktree(
    requests: &[Recorded],
    implementer: usize,
    prefix: &str,
    repo: &GitRepo,
    v: &Value,
) {
    let wt = worktree(repo, v);
    assert!(wt.starts_with(repo.path()), "{v:#}");
    for (i, r) in requests.iter().enumerate() {
        let dirs = told(r, prefix);
        assert!(!dirs.is_empty(), "request {i} names no {prefix:?}: {}", r.body);
        for d in &dirs {
            if i >= implementer {
                assert_eq!(Path::new(d), wt, "request {i}: {prefix} {d}");
            } else {
                assert!(
                    !Path::new(d).starts_with(repo.path()),
                    "the wall author was told {d} (the checkout is {})",
                    repo.path().display()
                );
            }
        }
        let named = names_checkout(r, repo.path(), &wt);
        assert!(
            named.is_empty(),
            "request {i} names the user's checkout {}: {named:#?}",
            repo.path().display()
        );
    }
}

/// opencode's `run` takes its directory from `PWD` before the process's own: from a user's
/// shell in the checkout, it told its model the checkout, its edits there were refused by the
/// box and the run ended FAILED ("the diff is empty"). Its directory is the worktree now, and
/// the run is VERIFIED.
#[tokio::test(flavor = "current_thread")]
async fn opencode_from_a_shell_in_the_checkout_works_in_the_worktree() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(opencode) = loki_test_support::require_agent("opencode") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some(OPENAI_KEY.into()),
            model: OPENAI_MODEL.into(),
        },
    )
    .await;
    opencode_home(&sb, &fake.base_url());
    let turn = |t: FakeTurn| t.with_usage([2000, 100, 0, 0]);
    fake.push_turn(&turn(FakeTurn::call(
        "call_w1",
        "write",
        &json!({"filePath": "loki_wall_add_test.py", "content": WALL}),
    )));
    fake.push_turn(&FakeTurn::text("DONE"));
    fake.push_turn(&FakeTurn::call(
        "call_i1",
        "bash",
        &json!({"command": SHOW_ENV, "description": "Show the environment"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "call_i2",
        "edit",
        &json!({"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
    ));
    fake.push_turn(&turn(FakeTurn::text("DONE\nadd sums")));
    let mut cmd = loki(
        &sb,
        repo.path(),
        &opencode,
        &[
            TASK,
            "--provider",
            "opencode",
            "--model",
            "fake/gpt-4.1",
            "--json",
        ],
    );
    from_the_checkout(&mut cmd, &repo);
    cmd.env("OPENAI_API_KEY", OPENAI_KEY);
    let (v, stderr) = output(cmd).await;
    let requests = fake.requests();
    assert_told_the_worktree(&requests, 2, "Working directory:", &repo, &v);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    // The shell the agent ran was in the worktree, and so is every path in its environment.
    let shown = &sent(&requests)[3];
    assert!(shown.contains(&format!("PWD={}", worktree(&repo, &v).display())), "{shown}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "", "the checkout was written");
}
