//! What the person running Claude Code sees of each verdict, per mode: `claude -p` in text,
//! `json` and `stream-json` output, and the interactive TUI under a pseudo-terminal.
//!
//! Claude Code 2.1.332 shows a Stop hook's `systemMessage` in the TUI (`Stop says: …`) and as a
//! `stream-json` `system`/`informational` event, but in `-p` text and `json` output nothing at
//! all: there loki writes its line to Claude Code's own stderr (`loki_seal::person`).

use loki_test_support::fake_llm::FakeTurn;
use serde_json::Value;

use super::{KEY, MODEL, QUIET, Run, World, cheat, fix, names_the_cheat};
use crate::agents::tui::Tui;

/// Session 1 fixes `add` (allowed, VERIFIED); session 2 deletes the tests, is blocked once and
/// released (`seal.max_blocks = 1`). `extra` picks the output mode.
fn honest_then_cheat(w: &World, extra: &[&str]) -> (Run, Run) {
    w.script(&fix(w, "h", false));
    let allowed = w.claude("Make the tests pass.", extra, &[]);
    assert_eq!(
        allowed.code,
        Some(0),
        "{}\n{}",
        allowed.stdout,
        allowed.stderr
    );
    let seen = w.fake.requests().len();
    let mut turns = cheat("c");
    turns.push(FakeTurn::text("I cannot do better."));
    w.script(&turns);
    let released = w.claude(
        "Make the tests pass.",
        extra,
        &[("LOKI_SEAL_MAX_BLOCKS", "1")],
    );
    assert_eq!(
        released.code,
        Some(0),
        "{}\n{}",
        released.stdout,
        released.stderr
    );
    w.fake.assert_clean();
    // The block still reaches the model, and only the block.
    let bodies = w.requests_text(seen);
    assert!(names_the_cheat(&bodies[2]), "{}", bodies[2]);
    assert!(!bodies.iter().any(|b| b.contains("RELEASED")));
    let verdicts: Vec<Value> = w.receipts().iter().map(|r| r["verdict"].clone()).collect();
    assert_eq!(verdicts.len(), 3, "{verdicts:?}");
    assert_eq!(verdicts[0], "VERIFIED");
    assert_ne!(verdicts[2], "VERIFIED");
    (allowed, released)
}

/// The lines loki wrote to Claude Code's stderr.
fn said(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|l| l.starts_with("loki seal"))
        .collect()
}

fn assert_verified_line(lines: &[&str]) {
    assert!(
        lines.len() == 1
            && lines[0].starts_with("loki seal: VERIFIED: ")
            && lines[0].contains("Receipt sha256:"),
        "{lines:#?}"
    );
}

fn assert_block_and_release_lines(lines: &[&str]) {
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].starts_with("loki seal: BLOCKED, the agent was told to go on: test_")
            && lines[0].contains("test_calc.py"),
        "{lines:#?}"
    );
    assert!(
        lines[1].starts_with("loki seal: RELEASED, NOT VERIFIED: ")
            && lines[1].contains("seal.max_blocks = 1")
            && lines[1].contains("test_calc.py::test_sub"),
        "{lines:#?}"
    );
}

/// `claude -p` (text): stdout is the agent's last words only; every verdict is on stderr.
#[test]
fn claude_p_text_shows_every_verdict_on_its_stderr() {
    let Some(w) = World::new() else { return };
    let (allowed, released) = honest_then_cheat(&w, &[]);
    assert_eq!(allowed.stdout.trim(), "Fixed add: it returns a + b.");
    assert_verified_line(&said(&allowed));
    assert_eq!(released.stdout.trim(), "I cannot do better.");
    assert_block_and_release_lines(&said(&released));
}

/// `claude -p --output-format json`: the result object has no field for a hook's message (a
/// release is only `terminal_reason: "stop_hook_prevented"`); the verdicts are on stderr and
/// stdout is still exactly one JSON object.
#[test]
fn claude_p_json_shows_every_verdict_on_its_stderr_and_keeps_its_json() {
    let Some(w) = World::new() else { return };
    let (allowed, released) = honest_then_cheat(&w, &["--output-format", "json"]);
    for (run, reason) in [(&allowed, "completed"), (&released, "stop_hook_prevented")] {
        let result: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("stdout is one JSON object ({e}): {}", run.stdout));
        assert_eq!(result["terminal_reason"], reason, "{result:#}");
    }
    assert_verified_line(&said(&allowed));
    assert_block_and_release_lines(&said(&released));
}

/// `claude -p --output-format stream-json`: the verdicts are `Stop says: …` events, and on
/// stderr as well; every stdout line is still a JSON event.
#[test]
fn claude_p_stream_json_shows_every_verdict_as_an_event_and_on_its_stderr() {
    let Some(w) = World::new() else { return };
    let (allowed, released) =
        honest_then_cheat(&w, &["--output-format", "stream-json", "--verbose"]);
    for run in [&allowed, &released] {
        for l in run.stdout.lines() {
            serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"));
        }
    }
    let notices = |run: &Run| -> Vec<String> {
        run.events("system", "informational")
            .iter()
            .filter_map(|e| e["content"].as_str().map(str::to_string))
            .collect()
    };
    let n = notices(&allowed);
    assert!(
        n.iter()
            .any(|n| n.starts_with("Stop says: loki seal: VERIFIED: ")),
        "{n:#?}"
    );
    let n = notices(&released);
    assert!(
        n.iter()
            .any(|n| n.starts_with("Stop says: loki seal: RELEASED, NOT VERIFIED: ")),
        "{n:#?}"
    );
    assert_verified_line(&said(&allowed));
    assert_block_and_release_lines(&said(&released));
}

// ---- the interactive TUI ----

/// Marks the repository trusted and onboarding done in the sandbox's `~/.claude.json` (what the
/// first interactive start asks), then starts `claude` in the repository under a pseudo-terminal.
fn start_tui(w: &World, env: &[(&str, &str)]) -> Tui {
    let config = w.sb.home().join(".claude.json");
    let mut c: Value = std::fs::read_to_string(&config)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| serde_json::json!({}));
    let repo = w.repo.path().canonicalize().unwrap();
    c["hasCompletedOnboarding"] = true.into();
    c["theme"] = "dark".into();
    c["customApiKeyResponses"] =
        serde_json::json!({"approved": [&KEY[KEY.len() - 20..]], "rejected": []});
    c["projects"][repo.display().to_string()] =
        serde_json::json!({"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true});
    std::fs::write(&config, c.to_string()).unwrap();
    let line = format!(
        "{} --model {MODEL} --allowedTools Bash Read Edit Write",
        loki_process::shell_quote(&w.claude.to_string_lossy())
    );
    let mut env: Vec<(&str, &str)> = env.to_vec();
    let url = w.fake.base_url();
    env.extend(QUIET.iter().copied());
    env.extend([
        ("ANTHROPIC_BASE_URL", url.as_str()),
        ("ANTHROPIC_API_KEY", KEY),
    ]);
    Tui::start(&w.sb, w.repo.path(), &line, &env)
}

/// The interactive TUI: an allowed VERIFIED stop and, in the same session, a release, each shown
/// as the Stop hook's notice (the TUI is the person's channel there: loki relays nothing, as
/// `claude` runs without `-p`).
#[test]
fn the_tui_shows_the_allowed_and_the_released_verdict() {
    let Some(w) = World::new() else { return };
    if !loki_test_support::require_tool("script", &["--version"]) {
        return;
    }
    let mut turns = fix(&w, "t", false);
    turns.extend(cheat("tc"));
    turns.push(FakeTurn::text("I cannot do better."));
    w.script(&turns);
    let mut tui = start_tui(&w, &[("LOKI_SEAL_MAX_BLOCKS", "1")]);
    tui.wait_for("its prompt", |t| t.contains("❯"));
    tui.ask("Fix add.");
    tui.wait_for("the VERIFIED notice", |t| {
        t.contains("Stop says: loki seal: VERIFIED: ")
    });
    tui.ask("Make all the tests pass.");
    tui.wait_for("the release notice", |t| {
        t.contains("Stop says: loki seal: RELEASED, NOT VERIFIED")
    });
    tui.quit();
    w.fake.assert_clean();
    let verdicts: Vec<Value> = w.receipts().iter().map(|r| r["verdict"].clone()).collect();
    assert_eq!(verdicts.len(), 3, "{verdicts:?}");
    assert_eq!(verdicts[0], "VERIFIED");
}
