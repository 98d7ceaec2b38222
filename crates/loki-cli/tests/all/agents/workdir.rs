//! A CLI agent runs where loki says: started from a user's shell in the checkout (`PWD`,
//! `OLDPWD` and npm's `INIT_CWD` naming it), each real client tells its model that its working
//! directory is the run's worktree (the implementer) or the wall author's empty directory, never
//! the user's checkout, and a shell command it runs sees no variable naming the checkout.
//!
//! What each client reports as its directory, read from the requests the fake model server
//! recorded:
//! - opencode: `Working directory: <dir>` in its system prompt (`opencode run` takes it from
//!   `PWD`, else the process's directory);
//! - Claude Code: `- Primary working directory: <dir>` in its environment reminder;
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

/// The rest of every line of request `r` that starts with `prefix` (leading blanks aside), up
/// to `end` (Codex's closing tag) when there is one.
fn told(r: &Recorded, prefix: &str, end: &str) -> Vec<String> {
    let mut all = Vec::new();
    strings(&r.body, &mut all);
    all.iter()
        .flat_map(|s| s.lines())
        .filter_map(|l| l.trim_start().strip_prefix(prefix))
        .map(|d| {
            let d = if end.is_empty() {
                d
            } else {
                d.split(end).next().unwrap_or(d)
            };
            d.trim().to_string()
        })
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
    let run = v["run_id"].as_str();
    assert!(run.is_some(), "{v:#}");
    let run = run.unwrap();
    repo.path().join(".loki/worktrees").join(run)
}

/// How a client names its directory to the model: a line starting with `prefix`, up to `end`;
/// `every`: in every request (its system prompt), else in some (a tool's output).
struct Says {
    prefix: &'static str,
    end: &'static str,
    every: bool,
}

/// Asserts the requests of a run in `repo`: the implementer's (from `implementer` on) were told
/// the worktree as `says`, the wall author's (before it) anything but the checkout, and no
/// request names the checkout outside the worktree.
fn assert_told_the_worktree(
    requests: &[Recorded],
    implementer: usize,
    says: &Says,
    repo: &GitRepo,
    v: &Value,
) {
    let wt = worktree(repo, v);
    let mut seen = 0;
    for (i, r) in requests.iter().enumerate() {
        let dirs = told(r, says.prefix, says.end);
        assert!(
            !says.every || !dirs.is_empty(),
            "request {i} says no {:?}: {:.2000}",
            says.prefix,
            r.body.to_string()
        );
        for d in &dirs {
            seen += 1;
            if i >= implementer {
                assert_eq!(Path::new(d), wt, "request {i}: {} {d}", says.prefix);
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
    assert!(seen > 0, "no request says {:?}", says.prefix);
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
    let says = Says {
        prefix: "Working directory:",
        end: "",
        every: true,
    };
    assert_told_the_worktree(&requests, 2, &says, &repo, &v);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    // The shell the agent ran was in the worktree, and so is every path in its environment.
    let shown = &sent(&requests)[3];
    assert!(
        shown.contains(&format!("PWD={}", worktree(&repo, &v).display())),
        "{shown}"
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the checkout was written"
    );
}

/// Claude Code names its directory `- Primary working directory:` in its environment reminder.
#[tokio::test(flavor = "current_thread")]
async fn claude_code_from_a_shell_in_the_checkout_works_in_the_worktree() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(claude) = loki_test_support::require_agent("claude") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = FakeLlm::start(
        Api::Anthropic,
        Expect {
            api_key: Some(CLAUDE_KEY.into()),
            model: CLAUDE_MODEL.into(),
        },
    )
    .await;
    let call = |id: &str, tool: &str, input: Value| FakeTurn::call(id, tool, &input);
    fake.push_turn(
        &call(
            "toolu_w1",
            "Write",
            json!({"file_path": "loki_wall_add_test.py", "content": WALL}),
        )
        .with_usage([2000, 100, 0, 0]),
    );
    fake.push_turn(&FakeTurn::text("DONE\nwrote the acceptance test"));
    fake.push_turn(&call("toolu_i1", "Read", json!({"file_path": "calc.py"})));
    fake.push_turn(&call(
        "toolu_i2",
        "Bash",
        json!({"command": SHOW_ENV, "description": "Show the environment"}),
    ));
    fake.push_turn(&call(
        "toolu_i3",
        "Edit",
        json!({"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}),
    ));
    fake.push_turn(&FakeTurn::text("DONE\nadd sums").with_usage([3000, 50, 0, 0]));
    let mut cmd = loki(
        &sb,
        repo.path(),
        &claude,
        &[
            TASK,
            "--provider",
            "claude",
            "--model",
            CLAUDE_MODEL,
            "--json",
        ],
    );
    from_the_checkout(&mut cmd, &repo);
    cmd.env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .env("ANTHROPIC_BASE_URL", fake.base_url());
    let (v, stderr) = output(cmd).await;
    let requests = fake.requests();
    let says = Says {
        prefix: "- Primary working directory:",
        end: "",
        every: true,
    };
    assert_told_the_worktree(&requests, 2, &says, &repo, &v);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    let shown = &sent(&requests)[4];
    assert!(
        shown.contains(&format!("PWD={}", worktree(&repo, &v).display())),
        "{shown}"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the checkout was written"
    );
}

/// Codex names its directory in its `environment_context` (`<cwd>…</cwd>`).
#[tokio::test(flavor = "current_thread")]
async fn codex_from_a_shell_in_the_checkout_works_in_the_worktree() {
    use loki_test_support::fake_responses::ResponsesTurn;
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(bin) = super::codex::codex() else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let fake = super::codex::fake().await;
    let home = super::codex::codex_home(sb.home(), &fake.base_url());
    #[expect(clippy::disallowed_methods, reason = "a fixture")]
    std::fs::write(home.join("auth.json"), "{\"OPENAI_API_KEY\": null}\n").unwrap();
    let (_bin_dir, path) = super::codex::codex_on_path(&bin);
    let write_wall = format!("cat > loki_wall_add_test.py <<'EOF'\n{WALL}EOF");
    fake.push(ResponsesTurn::exec("w1", &write_wall).with_usage(2000, 500, 100));
    fake.push(ResponsesTurn::text("Wall written.").with_usage(2100, 0, 10));
    fake.push(ResponsesTurn::exec("i1", SHOW_ENV).with_usage(3000, 1000, 50));
    fake.push(ResponsesTurn::exec("i2", "sed -i 's/a - b/a + b/' calc.py"));
    fake.push(ResponsesTurn::text("add sums now.").with_usage(3100, 0, 10));
    let checkout = repo.path().display().to_string();
    let shell = [
        ("PWD", checkout.as_str()),
        ("OLDPWD", checkout.as_str()),
        ("INIT_CWD", checkout.as_str()),
    ];
    let out = super::codex::loki_build(&sb, &repo, &path, &home, &shell).await;
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", super::codex::text(&out)));
    let requests = fake.requests();
    let says = Says {
        prefix: "<cwd>",
        end: "</cwd>",
        every: true,
    };
    assert_told_the_worktree(&requests, 2, &says, &repo, &v);
    assert_eq!(
        v["outcome"],
        "VERIFIED",
        "{v:#}\n{}",
        super::codex::text(&out)
    );
    fake.assert_clean();
    let shown = fake.input_texts(3).join("\n");
    assert!(
        shown.contains(&format!("PWD={}", worktree(&repo, &v).display())),
        "{shown}"
    );
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the checkout was written"
    );
}

/// aider names no directory to its model: the output of the test command it runs in its own
/// directory does (the repository's pytest hook prints the directory the tests ran in and the
/// variables of the user's shell), and it is the worktree.
#[tokio::test(flavor = "current_thread")]
async fn aider_from_a_shell_in_the_checkout_works_in_the_worktree() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(aider) = loki_test_support::require_agent("aider") else {
        return;
    };
    let sb = Sandbox::new();
    aider_home(&sb);
    let repo = bug_repo();
    repo.write(
        "conftest.py",
        "import os\n\n\ndef pytest_terminal_summary(terminalreporter):\n    terminalreporter.write_line('tests ran in: ' + os.getcwd())\n    for k in ('OLDPWD', 'INIT_CWD'):\n        terminalreporter.write_line(k + '=' + os.environ.get(k, ''))\n",
    );
    repo.commit("say where the tests ran");
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some(OPENAI_KEY.into()),
            model: OPENAI_MODEL.into(),
        },
    )
    .await;
    // A wrong edit first: aider runs the tests and sends their output (and the directory) back.
    for b in [
        aider_block("loki_wall_add_test.py", "", WALL),
        aider_block("calc.py", "    return a - b\n", "    return a * b\n"),
        aider_block(
            "calc.py",
            "    return a * b\n",
            "    return a + b  # the sum\n",
        ),
    ] {
        fake.push(
            FakeTurn::text(&b)
                .with_usage([2000, 100, 0, 0])
                .json(Api::OpenAi),
        );
    }
    let mut cmd = loki(
        &sb,
        repo.path(),
        &aider,
        &[
            TASK,
            "--provider",
            "aider",
            "--model",
            "openai/gpt-4.1",
            "--json",
        ],
    );
    from_the_checkout(&mut cmd, &repo);
    cmd.env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_API_BASE", fake.base_url());
    let (v, stderr) = output(cmd).await;
    let requests = fake.requests();
    let says = Says {
        prefix: "tests ran in:",
        end: "",
        every: false,
    };
    assert_told_the_worktree(&requests, 1, &says, &repo, &v);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "the checkout was written"
    );
}
