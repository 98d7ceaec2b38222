//! What the person running `codex exec` sees of each verdict, in text and `--json` mode.
//!
//! Codex 0.171's `exec` shows a Stop hook only as `hook: Stop Completed|Blocked|Stopped` (text)
//! or not at all (`--json`): neither `systemMessage` nor `stopReason` is printed. loki writes its
//! line to Codex's own stderr (`loki_seal::person`). The TUI shows both messages itself.

use std::process::Output;

use loki_test_support::Sandbox;
use loki_test_support::fake_responses::{ResponsesTurn, input_texts, is_thread_title};
use serde_json::Value;

use super::{
    KEY, KEY_VAR, calc_repo, codex, codex_exec, codex_home, fake, install_and_trust, new_texts,
    text,
};
use crate::agents::tui::Tui;

/// The lines loki wrote to Codex's stderr.
fn said(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("loki seal"))
        .map(str::to_string)
        .collect()
}

/// Run 1 fixes `add` (allowed, VERIFIED); run 2 deletes the tests, is blocked once and released
/// (`seal.max_blocks = 1`). `mode` is put before the prompt (`--json` or nothing).
async fn honest_then_cheat(mode: &[&str]) -> Option<(Output, Output)> {
    if !loki_test_support::require_pytest() {
        return None;
    }
    let bin = codex()?;
    let sb = Sandbox::new();
    let repo = calc_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    install_and_trust(&sb, &repo, &home);
    let args = |prompt: &'static str| -> Vec<&str> {
        let mut a = mode.to_vec();
        a.extend(["--skip-git-repo-check", prompt]);
        a
    };

    fake.push(ResponsesTurn::exec(
        "call_fix",
        "sed -i '0,/a - b/s//a + b/' calc.py",
    ));
    fake.push(ResponsesTurn::text("Fixed add."));
    let allowed = codex_exec(&bin, &sb, repo.path(), &home, 5, &args("fix add")).await;
    assert!(allowed.status.success(), "{}", text(&allowed));

    fake.push(ResponsesTurn::exec("call_cheat", "rm test_calc.py"));
    fake.push(ResponsesTurn::text("All tests pass now."));
    fake.push(ResponsesTurn::text("They pass, I am done."));
    let released = codex_exec(&bin, &sb, repo.path(), &home, 1, &args("make it pass")).await;
    assert!(released.status.success(), "{}", text(&released));
    fake.assert_clean();
    assert_eq!(fake.requests().len(), 5, "{}", text(&released));
    // The block still reaches the model as Codex's hook prompt; the release does not.
    let told = new_texts(&fake, 4);
    assert!(
        told.contains("<hook_prompt") && told.contains("test_file_removed"),
        "{told}"
    );
    assert!(!told.contains("RELEASED"), "{told}");
    Some((allowed, released))
}

fn assert_verified_line(lines: &[String]) {
    assert!(
        lines.len() == 1
            && lines[0].starts_with("loki seal: VERIFIED: ")
            && lines[0].contains("Receipt sha256:"),
        "{lines:#?}"
    );
}

fn assert_block_and_release_lines(lines: &[String]) {
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].starts_with("loki seal: BLOCKED, the agent was told to go on: test_")
            && lines[0].contains("test_calc.py"),
        "{lines:#?}"
    );
    assert!(
        lines[1].starts_with("loki seal: RELEASED, NOT VERIFIED: ")
            && lines[1].contains("seal.max_blocks = 1"),
        "{lines:#?}"
    );
}

/// `codex exec`: every verdict on Codex's stderr, next to its own `hook: Stop …` lines.
#[tokio::test(flavor = "current_thread")]
async fn codex_exec_shows_every_verdict_on_its_stderr() {
    let Some((allowed, released)) = honest_then_cheat(&[]).await else {
        return;
    };
    let (a, r) = (text(&allowed), text(&released));
    assert!(a.contains("hook: Stop Completed"), "{a}");
    assert_verified_line(&said(&allowed));
    assert!(
        r.contains("hook: Stop Blocked") && r.contains("hook: Stop Stopped"),
        "{r}"
    );
    assert_block_and_release_lines(&said(&released));
}

/// `codex exec --json`: no event carries a hook's message; the verdicts are on stderr and every
/// stdout line is still a JSON event.
#[tokio::test(flavor = "current_thread")]
async fn codex_exec_json_shows_every_verdict_on_its_stderr_and_keeps_its_events() {
    let Some((allowed, released)) = honest_then_cheat(&["--json"]).await else {
        return;
    };
    for out in [&allowed, &released] {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let events: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        assert_eq!(events[0]["type"], "thread.started", "{stdout}");
    }
    assert_verified_line(&said(&allowed));
    assert_block_and_release_lines(&said(&released));
}

/// The interactive TUI (`--no-daemon`: by default it runs its hooks in a shared app-server daemon
/// that outlives the TUI, which a test would leave behind; the answers are shown the same way):
/// an allowed VERIFIED stop and, in the same session, a release, each shown as the hook's
/// notice (loki relays nothing there).
#[tokio::test(flavor = "current_thread")]
async fn the_tui_shows_the_allowed_and_the_released_verdict() {
    if !loki_test_support::require_pytest()
        || !loki_test_support::require_tool("script", &["--version"])
    {
        return;
    }
    let Some(bin) = codex() else { return };
    let sb = Sandbox::new();
    let repo = calc_repo();
    let fake = fake().await;
    let home = codex_home(sb.home(), &fake.base_url());
    install_and_trust(&sb, &repo, &home);
    fake.push(ResponsesTurn::exec(
        "call_fix",
        "sed -i '0,/a - b/s//a + b/' calc.py",
    ));
    fake.push(ResponsesTurn::text("Fixed add."));
    fake.push(ResponsesTurn::exec("call_cheat", "rm test_calc.py"));
    fake.push(ResponsesTurn::text("All tests pass now."));
    fake.push(ResponsesTurn::text("They pass, I am done."));
    let line = format!(
        "{} --no-daemon --dangerously-bypass-approvals-and-sandbox",
        loki_process::shell_quote(&bin.to_string_lossy())
    );
    let home_dir = home.display().to_string();
    let env = [
        ("CODEX_HOME", home_dir.as_str()),
        (KEY_VAR, KEY),
        ("LOKI_SEAL_MAX_BLOCKS", "1"),
    ];
    let mut tui = Tui::start(&sb, repo.path(), &line, &env);
    // The waits block; the fake serves on this thread's runtime meanwhile.
    let screen = tokio::task::spawn_blocking(move || {
        tui.wait_for("its prompt", |t| t.contains("Ask Codex to do anything"));
        tui.ask("fix add");
        tui.wait_for("the VERIFIED notice", |t| {
            t.contains("loki seal: VERIFIED: ")
        });
        tui.ask("make the tests pass");
        tui.wait_for("the release notice", |t| {
            t.contains("loki seal: RELEASED, NOT VERIFIED")
        });
        let screen = tui.text();
        tui.quit();
        screen
    })
    .await
    .unwrap();
    fake.assert_clean();
    // The script's five turns, and the TUI's thread title on the side.
    let (title, script): (Vec<_>, Vec<_>) = fake
        .requests()
        .into_iter()
        .partition(|r| is_thread_title(&r.body));
    assert_eq!((title.len(), script.len()), (1, 5));
    assert!(screen.contains("Hook"), "{screen}");
    // The block reached the model: the last turn was asked for after it.
    let told = input_texts(&script[4].body).join("\n");
    assert!(told.contains("loki seal: not done."), "{told}");
}
