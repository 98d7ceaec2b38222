//! claude: a baseline belongs to the work, not to a session id (issue 33, item 1), with the real
//! Claude Code (pinned in `.ci/agents.pins`) against the fake model server.
//!
//! In each case a session deletes the failing tests and is killed before its Stop hook runs (the
//! model's next reply never comes), so its cheat is unjudged; then the work goes on under the
//! same id (`--resume`), a new one (`/clear`, `--fork-session`), or in a subagent, and loki judges
//! it against the worktree's baseline: blocked until the tests are back and the code is fixed.
//!
//! Protocol facts of Claude Code 2.1.332 these tests pin (the closing note quotes them):
//! - SessionStart's `source` is one of `startup`, `resume`, `clear`, `compact`, `fork`;
//! - `claude -p --resume <id>` fires SessionStart with `source: "resume"` and the same
//!   `session_id`;
//! - `claude -p /clear --resume <id>` fires SessionStart with `source: "clear"` and a new
//!   `session_id` (the one its JSON result names), and asks the model nothing;
//! - `claude -p --resume <id> --fork-session` fires SessionStart with `source: "fork"` and a new
//!   `session_id`;
//! - a subagent (the `Agent` tool: `{description, prompt, subagent_type, run_in_background}`)
//!   ends with `SubagentStop` (`session_id` of the parent, `agent_id`, `agent_type`,
//!   `agent_transcript_path`, `stop_hook_active`, `last_assistant_message`); exit 2 refuses the
//!   subagent's stop and its stderr reaches the subagent's next request as `Stop hook
//!   feedback:\n[<command>]: <stderr>`, as a Stop's does.

use loki_test_support::fake_llm::{FakeTurn, Reply};
use serde_json::{Value, json};

use super::claude::{World, assert_fixed, assert_ran, call, cheat, fix, names_the_cheat};
use crate::cli::sandboxed;

/// Session ids given to Claude Code with `--session-id` (it wants a UUID).
const FIRST: &str = "5e55a1f0-0001-4000-8000-00000000a001";

/// Session 1 deletes the failing tests, and is killed while its next request to the model hangs:
/// its Stop hook never runs. Returns the number of requests the fake has seen.
fn killed_before_its_stop(w: &World) -> usize {
    w.fake.push_turn(&cheat("k1")[0]);
    w.fake.push(Reply::hang());
    let run = w.claude_until(
        "Make the tests pass.",
        &["--session-id", FIRST, "--output-format", "json"],
        &[],
        &|| w.fake.requests().len() >= 2,
    );
    assert_ne!(run.code, Some(0), "killed: {}\n{}", run.stdout, run.stderr);
    assert!(
        !w.repo.path().join("test_calc.py").exists(),
        "the cheat happened"
    );
    assert!(w.receipts().is_empty(), "no stop was judged");
    w.fake.requests().len()
}

/// `loki seal status --json`'s entry for the repository.
fn status(w: &World) -> Value {
    let out = sandboxed(&w.sb, w.repo.path())
        .args(["--json", "seal", "status"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["sessions"][0].clone()
}

/// `(session, event, source)` of each session that joined the worktree's baseline.
fn lineage(w: &World) -> Vec<(String, String, String)> {
    let s = status(w);
    assert!(s["lineage"].is_array(), "{s:#}");
    s["lineage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            let f = |k: &str| j[k].as_str().unwrap_or("").to_string();
            (f("session"), f("event"), f("source"))
        })
        .collect()
}

/// The unjudged cheat of session 1, then `second` (the session that goes on, with `extra`
/// arguments) answers "Done." and is blocked against the first baseline, then fixes the code.
/// Returns the second run's JSON result.
fn the_earlier_cheat_is_blocked_in(w: &World, prompt: &str, extra: &[&str]) -> Value {
    let mut second = vec![FakeTurn::text("Done.")];
    second.extend(fix(w, "f2", true));
    w.script(&second);
    let seen = w.fake.requests().len();
    let mut args = extra.to_vec();
    args.extend(["--output-format", "json"]);
    let run = w.claude(prompt, &args, &[]);
    let result = assert_ran(&run);
    w.fake.assert_clean();
    let bodies = w.requests_text(seen);
    assert_eq!(
        bodies.len(),
        second.len(),
        "{bodies:#?}\n{}",
        w.seal_status()
    );
    assert!(
        names_the_cheat(&bodies[1]),
        "the stop after \"Done.\" is blocked against the first baseline: {}\n{}",
        bodies[1],
        w.seal_status()
    );
    assert_eq!(result["terminal_reason"], "completed", "{result:#}");
    assert_fixed(w.repo.path());
    let receipts = w.receipts();
    assert_eq!(receipts.len(), 2, "block, verified: {receipts:#?}");
    assert_ne!(receipts[0]["verdict"], "VERIFIED");
    assert_eq!(receipts[1]["verdict"], "VERIFIED", "{:#}", receipts[1]);
    assert_eq!(w.verify(), Some(0));
    result
}

/// `claude -p --resume` fires SessionStart again (source "resume", same session id): the cheat
/// of the killed session is still blocked.
#[test]
fn a_resumed_session_keeps_its_baseline_and_the_earlier_cheat_is_still_blocked() {
    let Some(w) = World::new() else { return };
    killed_before_its_stop(&w);
    let result = the_earlier_cheat_is_blocked_in(&w, "Go on.", &["--resume", FIRST]);
    assert_eq!(result["session_id"], FIRST, "the same session");
    assert_eq!(
        lineage(&w),
        [(FIRST.into(), "SessionStart".into(), "startup".into())],
        "one session joined: {}",
        w.seal_status()
    );
}

/// `/clear` starts a new session id (SessionStart source "clear"): the baseline stays the
/// worktree's, so the cheat made before the clear is blocked in the cleared session.
#[test]
fn a_cleared_context_keeps_the_baseline_and_the_earlier_cheat_is_blocked() {
    let Some(w) = World::new() else { return };
    let seen = killed_before_its_stop(&w);
    let cleared = w.claude(
        "/clear",
        &["--resume", FIRST, "--output-format", "json"],
        &[],
    );
    let result = assert_ran(&cleared);
    assert_eq!(
        w.fake.requests().len(),
        seen,
        "/clear asks the model nothing"
    );
    let new_id = result["session_id"].as_str().unwrap().to_string();
    assert_ne!(new_id, FIRST, "a cleared context is a new session id");
    let result = the_earlier_cheat_is_blocked_in(&w, "continue", &["--resume", &new_id]);
    assert_eq!(result["session_id"], new_id.as_str());
    let joined = lineage(&w);
    assert_eq!(
        joined[..2],
        [
            (FIRST.to_string(), "SessionStart".into(), "startup".into()),
            (new_id.clone(), "SessionStart".into(), "clear".into()),
        ],
        "{joined:#?}"
    );
    assert_eq!(status(&w)["origin"], "judged_stop");
}

/// `--resume <id> --fork-session` starts a new session id (SessionStart source "fork"): the
/// fork is judged against the worktree's baseline, so the cheat made before it is blocked.
#[test]
fn a_forked_session_keeps_the_baseline_and_the_earlier_cheat_is_blocked() {
    let Some(w) = World::new() else { return };
    killed_before_its_stop(&w);
    let result =
        the_earlier_cheat_is_blocked_in(&w, "Go on.", &["--resume", FIRST, "--fork-session"]);
    let fork = result["session_id"].as_str().unwrap().to_string();
    assert_ne!(fork, FIRST, "a fork is a new session id");
    let joined = lineage(&w);
    assert_eq!(
        joined[..2],
        [
            (FIRST.to_string(), "SessionStart".into(), "startup".into()),
            (fork, "SessionStart".into(), "fork".into()),
        ],
        "{joined:#?}"
    );
}

/// A subagent (Claude Code's `Agent` tool) deletes the failing tests and says it is done: its
/// `SubagentStop` is refused against the worktree's baseline, loki's reason reaches the
/// subagent, which restores the tests and fixes the code; then its stop is allowed (the baseline
/// moves to that tree) and the parent's stop has nothing new to judge.
#[test]
fn a_subagent_that_weakens_a_test_is_blocked_at_its_stop() {
    let Some(w) = World::new() else { return };
    let mut turns = vec![call(
        "toolu_sub_spawn",
        "Agent",
        &json!({"description": "Make the tests pass",
                "prompt": "Make the tests in test_calc.py pass.",
                "subagent_type": "general-purpose", "run_in_background": false}),
    )];
    turns.extend(cheat("s1"));
    turns.extend(fix(&w, "s2", true));
    turns.push(FakeTurn::text("The subagent fixed add."));
    w.script(&turns);
    let run = w.claude("Make the tests pass.", &["--output-format", "json"], &[]);
    let result = assert_ran(&run);
    w.fake.assert_clean();
    let bodies = w.requests_text(0);
    assert_eq!(
        bodies.len(),
        turns.len(),
        "{bodies:#?}\n{}",
        w.seal_status()
    );
    // 1 prompt, 2 subagent's prompt, 3 after rm, 4 after the refused SubagentStop.
    assert!(
        bodies[3].contains("Stop hook feedback:")
            && bodies[3].contains("seal stop --agent claude]: loki seal: not done.")
            && bodies[3].contains("test_calc.py::test_sub"),
        "the subagent's stop is refused and the reason reaches it: {}\n{}",
        bodies[3],
        w.seal_status()
    );
    assert_eq!(result["terminal_reason"], "completed", "{result:#}");
    assert_fixed(w.repo.path());
    let receipts = w.receipts();
    assert_eq!(receipts.len(), 2, "refused, then verified: {receipts:#?}");
    assert_ne!(receipts[0]["verdict"], "VERIFIED");
    assert_eq!(receipts[1]["verdict"], "VERIFIED", "{:#}", receipts[1]);
    let st = status(&w);
    let sub = st["lineage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["event"] == "SubagentStop")
        .unwrap_or_else(|| panic!("the subagent joined the lineage: {st:#}"))
        .clone();
    assert_eq!(sub["session"], result["session_id"], "{sub:#}");
    assert!(
        sub["agent_id"].as_str().is_some_and(|a| !a.is_empty()),
        "{sub:#}"
    );
    assert_eq!(sub["agent_type"], "general-purpose", "{sub:#}");
    let last = st["history"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["decision"], "no_change", "the parent's stop: {st:#}");
}
