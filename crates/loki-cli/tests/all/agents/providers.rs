//! CLI providers (claude, aider, opencode): build runs through the real program, pinned in
//! `.ci/agents.pins`, against the fake model servers.
//!
//! Per client:
//! - its table ([`CliKind::flags`]) is checked against the real program's `--help`, so a flag a
//!   new release dropped is a red test here;
//! - a `loki build` run is VERIFIED through it: the wall author and the implementer are the real
//!   client, whose requests the strict fake validates, using the client's own tools (Claude
//!   Code's Write/Read/Edit/Bash, ...) and running the repository's tests from inside loki's box;
//!   the receipt records the model and cost the client reported;
//! - the run cap kills the client's whole process tree (no descendant of loki survives): `caps.rs`.
//!
//! Every client gets a private `HOME` (the sandbox's) and every variable that stops it phoning
//! home.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use loki_clients::CliKind;
use loki_test_support::fake_llm::{Api, Expect, FakeLlm, FakeTurn, Recorded};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

pub(super) const TASK: &str =
    "add(a, b) returns the difference instead of the sum; make it return a + b.";
const WALL: &str = "from calc import add\n\n\ndef test_add_sums():\n    assert add(2, 3) == 5\n";

/// Stops the clients phoning home (telemetry, updates, surveys, error reports).
const QUIET: &[(&str, &str)] = &[
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_TELEMETRY", "1"),
    ("DISABLE_ERROR_REPORTING", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
    ("CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY", "1"),
    ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
    ("OPENCODE_DISABLE_SHARE", "1"),
    ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
    ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
    ("AIDER_ANALYTICS", "false"),
    ("AIDER_CHECK_UPDATE", "false"),
];

/// How long a process may take to go before the test gives up.
pub(super) const BOUND: Duration = Duration::from_secs(30);

pub(super) fn bug_repo() -> GitRepo {
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

/// `loki <args>` in `repo` with the client `bin` first on `PATH` and the quiet variables.
pub(super) fn loki(sb: &Sandbox, repo: &Path, bin: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    sb.apply(&mut cmd).current_dir(repo).env("PATH", path);
    for (k, v) in QUIET {
        cmd.env(k, v);
    }
    cmd.args(args);
    cmd
}

/// Runs `cmd` on a blocking thread (the fake serves on this runtime meanwhile).
pub(super) async fn output(mut cmd: Command) -> (Value, String) {
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("{e}: {}{stderr}", String::from_utf8_lossy(&out.stdout)))
        .unwrap();
    (v, stderr)
}

pub(super) fn receipt(repo: &GitRepo, v: &Value) -> Value {
    let run = repo
        .path()
        .join(".loki/runs")
        .join(v["run_id"].as_str().unwrap());
    serde_json::from_slice(&std::fs::read(run.join("receipt.json")).unwrap()).unwrap()
}

/// The receipt's tokens: input, output, cache read, cache write.
pub(super) fn tokens(r: &Value) -> [u64; 4] {
    [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    ]
    .map(|k| r["cost"][k].as_u64().unwrap_or(u64::MAX))
}

/// Every text a client sent, as one string (for assertions on prompts and tool results).
pub(super) fn sent(requests: &[Recorded]) -> Vec<String> {
    requests.iter().map(|r| r.body.to_string()).collect()
}

/// `flag` appears in `help` as a whole flag (not as the prefix of a longer one).
fn listed(help: &str, flag: &str) -> bool {
    help.match_indices(flag).any(|(i, _)| {
        let before = help[..i].chars().next_back();
        let after = help[i + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
    })
}

/// Runs the client `bin` with `args` in a private home; its stdout and stderr.
fn run_client(bin: &Path, args: &[&str]) -> String {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin);
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .current_dir(home.path())
        .args(args)
        .stdin(Stdio::null());
    for (k, v) in QUIET {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn every_flag_loki_passes_is_one_the_pinned_client_lists() {
    for (kind, help) in [
        (CliKind::Claude, &["--help"][..]),
        (CliKind::Codex, &["exec", "--help"][..]),
        (CliKind::Aider, &["--help"][..]),
        (CliKind::Opencode, &["run", "--help"][..]),
    ] {
        let Some(bin) = loki_test_support::require_agent(kind.name()) else {
            return;
        };
        let pinned = loki_test_support::pinned_agent_version(kind.name()).unwrap();
        let version = run_client(&bin, &["--version"]);
        assert!(
            version.contains(&pinned),
            "{} --version says {version:?}, the pin is {pinned}",
            kind.name()
        );
        let text = run_client(&bin, help);
        for flag in kind.flags() {
            assert!(
                listed(&text, flag),
                "{} {pinned} does not list {flag}:\n{text}",
                kind.name()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Claude Code

pub(super) const CLAUDE_MODEL: &str = "claude-sonnet-4-5";
pub(super) const CLAUDE_KEY: &str = "sk-ant-test-for-claude-code";

/// The wall author writes the acceptance test with Write; the implementer reads calc.py, edits
/// it and runs the tests with Bash, then says DONE.
fn claude_build_turns(fake: &FakeLlm) {
    fake.push_turn(
        &FakeTurn::call(
            "toolu_w1",
            "Write",
            &json!({"file_path": "loki_wall_add_test.py", "content": WALL}),
        )
        .with_usage([2000, 100, 0, 0]),
    );
    fake.push_turn(&FakeTurn::text("DONE\nwrote the acceptance test"));
    fake.push_turn(&FakeTurn::call(
        "toolu_i1",
        "Read",
        &json!({"file_path": "calc.py"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "toolu_i2",
        "Edit",
        &json!({"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "toolu_i3",
        "Bash",
        &json!({"command": "python3 -m pytest -q -p no:cacheprovider", "description": "Run the tests"}),
    ));
    fake.push_turn(&FakeTurn::text("DONE\nadd sums").with_usage([3000, 50, 0, 0]));
}

#[tokio::test(flavor = "current_thread")]
async fn a_build_through_the_real_claude_code_is_verified() {
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
    claude_build_turns(&fake);
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
    cmd.env("ANTHROPIC_API_KEY", CLAUDE_KEY)
        .env("ANTHROPIC_BASE_URL", fake.base_url());
    let (v, stderr) = output(cmd).await;
    fake.assert_clean();
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    let sent = sent(&fake.requests());
    // The implementer was told its own tools, not loki's.
    let implementer_prompt = &sent[2];
    assert!(
        implementer_prompt.contains("with the Bash tool")
            && !implementer_prompt.contains("`finish`"),
        "{implementer_prompt}"
    );
    // Bash ran the repository's tests inside the box: its result went back to the model.
    let last = sent.last().unwrap();
    assert!(last.contains("passed"), "the Bash result: {last}");
    assert!(!last.contains("requested permissions"), "{last}");
    let r = receipt(&repo, &v);
    assert_eq!(r["provider"], "claude", "{r:#}");
    // The model Claude Code reported (its `modelUsage`), and the cost it computed.
    assert_eq!(r["model"], CLAUDE_MODEL, "{r:#}");
    assert!(r["cost"]["usd"].as_f64().unwrap() > 0.0, "{r:#}");
    assert_eq!(r["cost"]["measured_sessions"], 2, "{r:#}");
    // The tokens Claude Code reported: the two turns the fake priced.
    assert_eq!(tokens(&r), [5000, 150, 0, 0], "{r:#}");
    // A CLI agent answers no review session: the receipt says the default council was not held.
    assert!(
        r["not_proven"].to_string().contains(
            "review council: not held (3 reviewers asked): the claude CLI agent runs tasks"
        ),
        "{r:#}"
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
}

/// The implementer's turns: read calc.py, replace `a - b` by `fix`, say DONE; when the change
/// does not pass, one fix round that changes nothing (so verification stops there).
fn claude_implement_turns(fake: &FakeLlm, fix: &str, passes: bool) {
    fake.push_turn(&FakeTurn::call(
        "toolu_r",
        "Read",
        &json!({"file_path": "calc.py"}),
    ));
    fake.push_turn(
        &FakeTurn::call(
            "toolu_e",
            "Edit",
            &json!({"file_path": "calc.py", "old_string": "a - b", "new_string": fix}),
        )
        .with_usage([1000, 50, 0, 0]),
    );
    fake.push_turn(&FakeTurn::text("DONE\nedited calc.py"));
    if !passes {
        fake.push_turn(&FakeTurn::text("DONE\nnothing more to do"));
    }
}

/// `loki improve` with Claude Code as the editor and as the agent of the replays: the editor
/// runs in the box and answers with JSON, the failed run is replayed with the current and the
/// candidate instructions, and the proven edit is applied.
#[tokio::test(flavor = "current_thread")]
async fn improve_through_the_real_claude_code_edits_replays_and_applies() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let Some(claude) = loki_test_support::require_agent("claude") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let agent = repo.path().join(".loki/agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(repo.path().join(".git/info/exclude"), "/.loki/\n").unwrap();
    std::fs::write(agent.join("instructions.md"), "Be quick.\n").unwrap();
    std::fs::create_dir_all(repo.path().join(".loki/improve")).unwrap();
    std::fs::write(
        repo.path().join(".loki/improve/improve.toml"),
        "[canary]\nreplay_runs = 1\n",
    )
    .unwrap();
    let fake = FakeLlm::start(
        Api::Anthropic,
        Expect {
            api_key: Some(CLAUDE_KEY.into()),
            model: CLAUDE_MODEL.into(),
        },
    )
    .await;
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--provider", "claude", "--model", CLAUDE_MODEL, "--json"]);
        let mut cmd = loki(&sb, repo.path(), &claude, &all);
        cmd.env("ANTHROPIC_API_KEY", CLAUDE_KEY)
            .env("ANTHROPIC_BASE_URL", fake.base_url());
        cmd
    };
    // Two failed runs: the agent multiplies.
    for _ in 0..2 {
        claude_implement_turns(&fake, "a * b", false);
        let (v, stderr) = output(run(&["quick", TASK])).await;
        assert_eq!(v["outcome"], "PARTIAL", "{v:#}\n{stderr}");
    }
    let before = fake.requests().len();
    // The editor answers with a proposal; the baseline replay fails again, the candidate's passes.
    let proposal = json!({"files": [{"path": "instructions.md",
        "content": "Be quick.\nCheck the operator of every arithmetic expression.\n"}],
        "rationale": "both runs used the wrong operator"});
    fake.push_turn(&FakeTurn::text(&format!(
        "Here is my proposal.\n{proposal}"
    )));
    claude_implement_turns(&fake, "a * b", false);
    claude_implement_turns(&fake, "a + b", true);
    let (v, stderr) = output(run(&["improve", "--mode", "auto"])).await;
    fake.assert_clean();
    assert_eq!(v["outcome"], "applied", "{v:#}\n{stderr}");
    assert_eq!(v["canary"]["candidate"][0]["passed"], 1, "{v:#}");
    assert_eq!(v["canary"]["baseline"][0]["passed"], 0, "{v:#}");
    let text = std::fs::read_to_string(agent.join("instructions.md")).unwrap();
    assert!(text.contains("Check the operator"), "{text}");
    // The editor saw the failed run's task and was told to answer in JSON, not to edit files.
    let editor = &sent(&fake.requests())[before];
    assert!(editor.contains("make it return a + b"), "{editor}");
    assert!(
        editor.contains("Do not create or edit any file"),
        "{editor}"
    );
    // The candidate replay's agent got the new instructions in its prompt.
    let candidate = &sent(&fake.requests())[before + 5];
    assert!(candidate.contains("Check the operator"), "{candidate}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_logged_in_claude_user_reaches_the_model_with_only_the_login_copied() {
    let Some(claude) = loki_test_support::require_agent("claude") else {
        return;
    };
    let sb = Sandbox::new();
    let repo = bug_repo();
    let write = |rel: &str, text: &str| {
        let p = sb.home().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        #[expect(clippy::disallowed_methods, reason = "a fixture")]
        std::fs::write(p, text).unwrap();
    };
    // A user logged in to Claude Code (OAuth, no ANTHROPIC_API_KEY), with other secrets around.
    write(
        ".claude/.credentials.json",
        r#"{"claudeAiOauth":{"accessToken":"sk-ant-oat01-loki-test","refreshToken":"sk-ant-ort01-loki-test","expiresAt":4102444800000,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}"#,
    );
    write(".ssh/id_ed25519", "PRIVATE KEY");
    write(".aws/credentials", "[default]\naws_secret_access_key=x\n");
    write(".config/opencode/opencode.json", "{}");
    let fake = FakeLlm::start(
        Api::Anthropic,
        Expect {
            // OAuth: a bearer token, no x-api-key.
            api_key: None,
            model: CLAUDE_MODEL.into(),
        },
    )
    .await;
    fake.push_turn(&FakeTurn::call(
        "toolu_1",
        "Bash",
        &json!({"command": "cd ~ && find . -type f | grep -v -e '^./.claude/' -e '^./.claude.json' | sort; ls ~/.claude/.credentials.json", "description": "List the home"}),
    ));
    fake.push_turn(&FakeTurn::text("DONE"));
    let mut cmd = loki(
        &sb,
        repo.path(),
        &claude,
        &[
            "ask",
            "What is in my home?",
            "--provider",
            "claude",
            "--model",
            CLAUDE_MODEL,
            "--json",
        ],
    );
    cmd.env("ANTHROPIC_BASE_URL", fake.base_url());
    let (v, stderr) = output(cmd).await;
    fake.assert_clean();
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{v:#}\n{stderr}");
    assert_eq!(
        requests[0].headers.get("authorization").map(String::as_str),
        Some("Bearer sk-ant-oat01-loki-test"),
        "the user's login reached Claude Code"
    );
    assert!(!v.to_string().contains("Not logged in"), "{v:#}");
    // What the agent saw in its home: the login only (Claude Code's own state aside).
    let listing = requests[1].body["messages"][2].to_string();
    assert!(listing.contains(".claude/.credentials.json"), "{listing}");
    for absent in [".ssh", ".aws", "opencode", ".loki"] {
        assert!(
            !listing.contains(absent),
            "{absent} reached the agent: {listing}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// aider

pub(super) const OPENAI_MODEL: &str = "gpt-4.1";
pub(super) const OPENAI_KEY: &str = "sk-test-for-the-client";

/// The user's aider configuration, which must reach aider in the box: no streaming, and the
/// output limit the fake (a local server) requires, in its model settings.
pub(super) fn aider_home(sb: &Sandbox) {
    let write = |rel: &str, text: &str| {
        #[expect(clippy::disallowed_methods, reason = "a fixture")]
        std::fs::write(sb.home().join(rel), text).unwrap();
    };
    write(".aider.conf.yml", "stream: false\nauto-lint: true\n");
    write(
        ".aider.model.settings.yml",
        "- name: openai/gpt-4.1\n  edit_format: diff\n  use_repo_map: true\n  extra_params:\n    max_tokens: 4096\n",
    );
}

/// aider's SEARCH/REPLACE block for `path` (an empty search creates the file).
pub(super) fn aider_block(path: &str, search: &str, replace: &str) -> String {
    format!("{path}\n```python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n")
}

/// A build through the real aider against the fake Chat Completions answering `blocks` (aider
/// SEARCH/REPLACE answers, one per request): the repository, the fake, the summary and stderr.
/// `None` when pytest or aider is missing outside CI.
async fn aider_build(blocks: &[String]) -> Option<(GitRepo, FakeLlm, Value, String)> {
    if !loki_test_support::require_pytest() {
        return None;
    }
    let aider = loki_test_support::require_agent("aider")?;
    let sb = Sandbox::new();
    aider_home(&sb);
    let repo = bug_repo();
    let fake = FakeLlm::start(
        Api::OpenAi,
        Expect {
            api_key: Some(OPENAI_KEY.into()),
            model: OPENAI_MODEL.into(),
        },
    )
    .await;
    for b in blocks {
        fake.push(
            FakeTurn::text(b)
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
    cmd.env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_API_BASE", fake.base_url());
    let (v, stderr) = output(cmd).await;
    Some((repo, fake, v, stderr))
}

#[tokio::test(flavor = "current_thread")]
async fn a_build_through_the_real_aider_is_verified() {
    // The wall author creates the acceptance test with an empty SEARCH; the implementer edits
    // calc.py (aider asks, and --yes-always allows, an edit to a file not yet in its chat).
    let Some((repo, fake, v, stderr)) = aider_build(&[
        aider_block("loki_wall_add_test.py", "", WALL),
        aider_block("calc.py", "    return a - b\n", "    return a + b\n"),
    ])
    .await
    else {
        return;
    };
    if v["outcome"] != "VERIFIED" {
        for (i, r) in fake.requests().iter().enumerate() {
            let m = &r.body["messages"];
            let last = &m[m.as_array().map_or(0, Vec::len).saturating_sub(1)]["content"];
            eprintln!(
                "request {i}: {}",
                &last.to_string()[..200.min(last.to_string().len())]
            );
        }
    }
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    let r = receipt(&repo, &v);
    assert_eq!(r["provider"], "aider", "{r:#}");
    assert_eq!(r["model"], "openai/gpt-4.1", "{r:#}");
    assert!(r["cost"]["usd"].as_f64().unwrap() > 0.0, "{r:#}");
    // The tokens of aider's `Tokens: 2.0k sent, 100 received.` lines, one per session.
    assert_eq!(tokens(&r), [4000, 200, 0, 0], "{r:#}");
    // The wall author ran in a repository loki made for it: aider made none of its own, so no
    // `.gitignore` of aider's reached the wall, and NOT PROVEN names each gap once (each
    // session's refused host is the same gap).
    let np = r["not_proven"].as_array().unwrap();
    assert!(
        !r["not_proven"].to_string().contains("wall file discarded"),
        "{np:#?}"
    );
    for (i, n) in np.iter().enumerate() {
        assert!(!np[..i].contains(n), "listed twice: {n}");
    }
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
}

/// aider cannot run a command without asking, so loki hands it the repository's tests
/// (`--test-cmd … --auto-test`): after a wrong edit the real aider runs them inside the box and
/// sends the failures back to the model, whose next answer fixes the code.
#[tokio::test(flavor = "current_thread")]
async fn aider_runs_the_repository_tests_in_the_box_and_fixes_what_failed() {
    // The fix changes the file's size: the wrong edit and the fix land within one second, and
    // Python would otherwise trust calc.py's bytecode from the first test run (it checks the
    // source's mtime in whole seconds, and its size).
    let Some((repo, fake, v, stderr)) = aider_build(&[
        aider_block("loki_wall_add_test.py", "", WALL),
        aider_block("calc.py", "    return a - b\n", "    return a * b\n"),
        aider_block(
            "calc.py",
            "    return a * b\n",
            "    return a + b  # the sum\n",
        ),
    ])
    .await
    else {
        return;
    };
    let sent = sent(&fake.requests());
    // Each request's last user message (where aider puts the test output).
    let tails: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| {
            r.body["messages"]
                .as_array()
                .and_then(|m| m.iter().rev().find(|x| x["role"] == "user"))
                .map(|x| {
                    let c = x["content"].as_str().unwrap_or_default();
                    c.chars().take(500).collect::<String>()
                })
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}\n{tails:#?}");
    fake.assert_clean();
    assert_eq!(sent.len(), 3, "wall, the wrong edit, the fix: {tails:#?}");
    // The failures of the test run aider made after the wrong edit reached the model.
    assert!(
        sent[2].contains("assert 6 == 5") || sent[2].contains("FAILED"),
        "{}",
        sent[2]
    );
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
}

// ---------------------------------------------------------------------------------------------
// opencode

/// The user's opencode configuration: an OpenAI-compatible provider at the fake, its key from
/// the provider's own variable, priced so that opencode reports a cost.
pub(super) fn opencode_home(sb: &Sandbox, base_url: &str) {
    let dir = sb.home().join(".config/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    let config = json!({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": false,
        "share": "disabled",
        "provider": {"fake": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": base_url, "apiKey": "{env:OPENAI_API_KEY}"},
            "models": {OPENAI_MODEL: {"name": OPENAI_MODEL, "cost": {"input": 2.0, "output": 8.0}}}
        }}
    });
    #[expect(clippy::disallowed_methods, reason = "a fixture")]
    std::fs::write(dir.join("opencode.json"), config.to_string()).unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_build_through_the_real_opencode_is_verified() {
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
        "read",
        &json!({"filePath": "calc.py"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "call_i2",
        "edit",
        &json!({"filePath": "calc.py", "oldString": "a - b", "newString": "a + b"}),
    ));
    fake.push_turn(&FakeTurn::call(
        "call_i3",
        "bash",
        &json!({"command": "python3 -m pytest -q -p no:cacheprovider", "description": "Run the tests"}),
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
    cmd.env("OPENAI_API_KEY", OPENAI_KEY);
    let (v, stderr) = output(cmd).await;
    if v["outcome"] != "VERIFIED" {
        for (i, r) in fake.requests().iter().enumerate() {
            let m = &r.body["messages"];
            let last = m[m.as_array().map_or(0, Vec::len).saturating_sub(1)].to_string();
            eprintln!("request {i}: {}", &last[..300.min(last.len())]);
        }
    }
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}\n{stderr}");
    fake.assert_clean();
    let sent = sent(&fake.requests());
    assert!(sent[2].contains("with the bash tool"), "{}", sent[2]);
    assert!(sent.last().unwrap().contains("passed"), "the bash result");
    let r = receipt(&repo, &v);
    assert_eq!(r["provider"], "opencode", "{r:#}");
    assert_eq!(r["model"], "fake/gpt-4.1", "{r:#}");
    assert!(r["cost"]["usd"].as_f64().unwrap() > 0.0, "{r:#}");
    // The tokens of its `step_finish` events: the two turns the fake priced.
    assert_eq!(tokens(&r), [4000, 200, 0, 0], "{r:#}");
    assert_eq!(
        repo.git(&["diff", "--name-only", "main", v["branch"].as_str().unwrap()])
            .trim(),
        "calc.py"
    );
}
