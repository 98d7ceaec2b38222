//! What the person running headless Gemini CLI sees of each verdict in `-o json` and
//! `-o stream-json` (text mode: `an_honest_fix_is_allowed_verified_with_a_receipt` and
//! `the_release_ends_the_loop_and_is_shown_to_the_person`).
//!
//! Gemini CLI 0.61 prints a hook's `systemMessage` as `Hook system message: …` on its stderr in
//! every headless mode; a block is `Agent execution blocked: <reason>` in `-o json`'s `warnings`
//! (with a release's `Agent execution stopped: …`) and a `warning` event of `-o stream-json`.
//! So loki relays nothing there: these tests pin that the client's channels still carry every
//! verdict, once, and that its JSON output stays intact.

use std::process::Output;

use loki_test_support::fake_gemini::GeminiTurn;
use serde_json::{Value, json};

use super::{KEY, MODEL, World, assert_ok, rm_tests, text, world};
use crate::agents::tui::Tui;

/// Run 1 fixes `add` (allowed, VERIFIED); run 2 deletes the tests, is blocked once and released
/// (`seal.max_blocks = 1`), both with `-o <format>`.
async fn honest_then_cheat(format: &str) -> Option<(World, Output, Output)> {
    let w = world().await?;
    w.fake
        .push_turn(&GeminiTurn::call(
            "replace",
            &json!({"file_path": "calc.py", "instruction": "Make add return the sum.",
                    "old_string": "def add(a, b):\n    return a - b",
                    "new_string": "def add(a, b):\n    return a + b"}),
        ))
        .push_turn(&GeminiTurn::text("Fixed add."));
    let allowed = w.gemini(&["-p", "Fix add", "-o", format], &[]).await;
    assert_ok(&allowed);
    w.fake
        .push_turn(&rm_tests())
        .push_turn(&GeminiTurn::text("Done."))
        .push_turn(&GeminiTurn::text("Done, really."));
    let released = w
        .gemini(
            &["-p", "Make the tests pass", "-o", format],
            &[("LOKI_SEAL_MAX_BLOCKS", "1")],
        )
        .await;
    assert_ok(&released);
    w.fake.assert_clean();
    assert!(
        w.shown(4).contains("loki seal: not done."),
        "{}",
        w.shown(4)
    );
    Some((w, allowed, released))
}

/// The `Hook system message: …` lines of the Stop hook Gemini printed on its stderr; and that loki added no
/// verdict line of its own there (Gemini prints a SessionStart hook's plain output itself).
fn messages(out: &Output) -> Vec<String> {
    let stderr = text(&out.stderr);
    for verdict in ["VERIFIED", "RELEASED", "BLOCKED"] {
        assert!(
            !stderr
                .lines()
                .any(|l| l.starts_with(&format!("loki seal: {verdict}"))),
            "{stderr}"
        );
    }
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("Hook system message: "))
        // The SessionStart hook's own notice (a baseline recorded, or a session joining the
        // worktree's open baseline).
        .filter(|m| !m.starts_with("loki seal: baseline") && !m.starts_with("loki seal: session "))
        .map(str::to_string)
        .collect()
}

fn assert_seen(allowed: &Output, released: &Output) {
    let a = messages(allowed);
    assert!(
        a.len() == 1 && a[0].starts_with("loki seal: VERIFIED: "),
        "{a:#?}"
    );
    let r = messages(released);
    assert!(
        r.len() == 1 && r[0].starts_with("loki seal: RELEASED, NOT VERIFIED: "),
        "{r:#?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn gemini_json_shows_every_verdict_on_its_stderr_and_the_release_in_warnings() {
    let Some((_w, allowed, released)) = honest_then_cheat("json").await else {
        return;
    };
    assert_seen(&allowed, &released);
    let a: Value = serde_json::from_slice(&allowed.stdout).unwrap();
    assert_eq!(a["response"], "Fixed add.", "{a:#}");
    assert!(a.get("warnings").is_none(), "{a:#}");
    // The block and the release are the result's warnings (a block is not on stderr here).
    let r: Value = serde_json::from_slice(&released.stdout).unwrap();
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        warnings.len() == 2
            && warnings[0].starts_with("Agent execution blocked: loki seal: not done.")
            && warnings[1]
                .starts_with("Agent execution stopped: loki seal: RELEASED, NOT VERIFIED"),
        "{r:#}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn gemini_stream_json_shows_every_verdict_on_its_stderr() {
    let Some((_w, allowed, released)) = honest_then_cheat("stream-json").await else {
        return;
    };
    assert_seen(&allowed, &released);
    let events = |out: &Output| -> Vec<Value> {
        text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect()
    };
    for out in [&allowed, &released] {
        let e = events(out);
        assert_eq!(e.last().unwrap()["type"], "result", "{e:#?}");
    }
    // The block is a warning event of the stream (not on stderr here).
    let warnings: Vec<Value> = events(&released)
        .into_iter()
        .filter(|e| e["type"] == "error" && e["severity"] == "warning")
        .collect();
    assert!(
        warnings.len() == 1
            && warnings[0]["message"]
                .as_str()
                .unwrap()
                .starts_with("Agent execution blocked: loki seal: not done."),
        "{warnings:#?}"
    );
}

/// The interactive TUI (no `-p`): an allowed VERIFIED stop and, in the same session, a release,
/// each shown as Gemini's `ℹ <message>` notice (loki relays nothing there).
#[tokio::test(flavor = "current_thread")]
async fn the_tui_shows_the_allowed_and_the_released_verdict() {
    if !loki_test_support::require_tool("script", &["--version"]) {
        return;
    }
    let Some(w) = world().await else { return };
    w.fake
        .push_turn(&GeminiTurn::call(
            "replace",
            &json!({"file_path": "calc.py", "instruction": "Make add return the sum.",
                    "old_string": "def add(a, b):\n    return a - b",
                    "new_string": "def add(a, b):\n    return a + b"}),
        ))
        .push_turn(&GeminiTurn::text("Fixed add."))
        .push_turn(&rm_tests())
        .push_turn(&GeminiTurn::text("Done."))
        .push_turn(&GeminiTurn::text("Done, really."));
    let line = format!(
        "{} -m {MODEL} --yolo",
        loki_process::shell_quote(&w.bin.to_string_lossy())
    );
    let url = w.fake.base_url();
    let env = [
        ("GEMINI_API_KEY", KEY),
        ("GOOGLE_GEMINI_BASE_URL", url.as_str()),
        ("GEMINI_CLI_NO_RELAUNCH", "true"),
        ("LOKI_SEAL_MAX_BLOCKS", "1"),
    ];
    let mut tui = Tui::start(&w.sb, w.repo.path(), &line, &env);
    // The waits block; the fake serves on this thread's runtime meanwhile.
    tokio::task::spawn_blocking(move || {
        // Typed before its SessionStart hook is done, a prompt stays in the input box.
        tui.wait_for("the SessionStart notice", |t| {
            t.contains("baseline recorded")
        });
        tui.ask("Fix add");
        tui.wait_for("the VERIFIED notice", |t| {
            t.contains("ℹ loki seal: VERIFIED: ")
        });
        tui.ask("Make the tests pass");
        tui.wait_for("the release notice", |t| {
            t.contains("ℹ loki seal: RELEASED, NOT VERIFIED")
        });
        tui.quit();
    })
    .await
    .unwrap();
    w.fake.assert_clean();
    assert_eq!(w.fake.requests().len(), 5);
    assert!(
        w.shown(4).contains("loki seal: not done."),
        "{}",
        w.shown(4)
    );
}
