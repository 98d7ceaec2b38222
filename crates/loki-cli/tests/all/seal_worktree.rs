//! A seal baseline belongs to the work, not to a session id (issue 33, item 1): the hook
//! commands driven with the payloads the agents send (a cleared context and a fork start a new
//! `session_id`, a subagent stops with `SubagentStop`), on real git repositories with a real
//! pytest suite.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use loki_test_support::Sandbox;
use serde_json::{Value, json};

use crate::seal::{calc_repo, skip_test_sub};

/// Runs `loki seal <args>` in `dir` with `stdin` as the hook input.
fn seal_in(sb: &Sandbox, dir: &Path, args: &[&str], stdin: &Value) -> Output {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut c)
        .current_dir(dir)
        .arg("seal")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let input = if stdin.is_null() {
        String::new()
    } else {
        stdin.to_string()
    };
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Claude Code's SessionStart of `session` in `dir`, with `source`.
fn start(sb: &Sandbox, dir: &Path, session: &str, source: &str) -> Output {
    let out = seal_in(
        sb,
        dir,
        &["start", "--agent", "claude"],
        &json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": dir,
                "hook_event_name": "SessionStart", "source": source}),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    out
}

/// Claude Code's Stop of `session` in `dir`: exit 2 blocks, stderr is the reason.
fn stop(sb: &Sandbox, dir: &Path, session: &str) -> Output {
    seal_in(
        sb,
        dir,
        &["stop", "--agent", "claude"],
        &json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": dir,
                "permission_mode": "default", "hook_event_name": "Stop",
                "stop_hook_active": false, "last_assistant_message": "Done."}),
    )
}

#[track_caller]
fn assert_blocked_for_the_skip(out: &Output) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "blocked: {stderr}");
    assert!(stderr.contains("newly_skipped"), "{stderr}");
    assert!(
        !stderr.contains("no session start was recorded"),
        "judged against the recorded baseline, not the last commit: {stderr}"
    );
}

#[track_caller]
fn assert_allowed(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["systemMessage"].as_str().unwrap().to_string()
}

/// `loki seal status --json` in `dir`: the worktree's entry.
fn status(sb: &Sandbox, dir: &Path) -> Value {
    let out = crate::cli::sandboxed(sb, dir)
        .args(["--json", "seal", "status"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = v["sessions"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "one baseline for the worktree: {v:#}");
    entries[0].clone()
}

/// The receipts sealed in `dir`, oldest first (by the run's recorded start).
fn receipts(dir: &Path) -> Vec<Value> {
    let mut runs: Vec<(String, PathBuf)> = std::fs::read_dir(dir.join(".loki/runs"))
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let run: Value =
                serde_json::from_str(&std::fs::read_to_string(path.join("run.json")).unwrap())
                    .unwrap();
            (run["started_at"].as_str().unwrap().to_string(), path)
        })
        .filter(|(_, p)| p.join("receipt.json").exists())
        .collect();
    runs.sort();
    runs.iter()
        .map(|(_, p)| {
            serde_json::from_str(&std::fs::read_to_string(p.join("receipt.json")).unwrap()).unwrap()
        })
        .collect()
}

/// An agent fires SessionStart again on resume and compact with the same session id (and on
/// clear with a new one): the worktree's baseline recorded at the real start is kept, so a cheat
/// made before is still caught. Only `--rebaseline` (a reset) records a new one, and the next
/// receipt names the changes before it as NOT PROVEN.
#[test]
fn a_resumed_session_keeps_its_baseline() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let input = |source: &str| {
        json!({"session_id": "s-resume", "cwd": repo.path(), "hook_event_name": "SessionStart",
               "source": source})
    };
    let out = seal_in(&sb, repo.path(), &["start"], &input("startup"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("baseline recorded"));
    skip_test_sub(&repo);
    for source in ["resume", "compact", "clear"] {
        let out = seal_in(&sb, repo.path(), &["start"], &input(source));
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(&format!("kept on {source}")),
            "{}",
            text(&out.stderr)
        );
    }
    let stop = seal_in(&sb, repo.path(), &["stop"], &input("resume"));
    assert_eq!(stop.status.code(), Some(2), "{}", text(&stop.stderr));
    assert!(text(&stop.stderr).contains("newly_skipped"));

    let out = seal_in(
        &sb,
        repo.path(),
        &["start", "--rebaseline"],
        &input("resume"),
    );
    assert!(
        text(&out.stderr).contains("baseline reset by session s-resume (--rebaseline)"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(repo.path().join("NOTES.md"), "skipped on purpose\n").unwrap();
    let stop = seal_in(&sb, repo.path(), &["stop"], &input("resume"));
    assert_eq!(
        stop.status.code(),
        Some(0),
        "the skip is in the new baseline: {}",
        text(&stop.stderr)
    );
    let runs = std::fs::read_dir(repo.path().join(".loki/runs")).unwrap();
    let reset_named = runs
        .map(|r| r.unwrap().path().join("receipt.json"))
        .filter(|p| p.exists())
        .any(|p| {
            std::fs::read_to_string(p).unwrap().contains(
                "the user reset the baseline with `loki seal start --rebaseline` (session s-resume)",
            )
        });
    assert!(reset_named, "the rebaseline is NOT PROVEN in the receipt");
}

/// A session weakens a test (a new skip hiding a regression) and is killed before its stop; a
/// new session id of the same work starts (`source`) and stops: the earlier cheat is judged
/// against the worktree's baseline and blocked, and the start said the baseline was kept.
fn an_unjudged_cheat_is_blocked_in_a_new_session(source: &str) {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let dir = repo.path();
    start(&sb, dir, "s-first", "startup");
    skip_test_sub(&repo);
    let out = start(&sb, dir, "s-second", source);
    assert_blocked_for_the_skip(&stop(&sb, dir, "s-second"));
    let said = text(&out.stderr);
    assert!(
        said.contains(&format!("kept on {source}"))
            && said.contains("at the start of session s-first")
            && said.contains("still judged"),
        "{said}"
    );
    let st = status(&sb, dir);
    assert_eq!(st["session"], "s-first", "{st:#}");
    let lineage: Vec<(Value, Value)> = st["lineage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["session"].clone(), j["source"].clone()))
        .collect();
    assert_eq!(
        lineage,
        [
            (json!("s-first"), json!("startup")),
            (json!("s-second"), json!(source))
        ],
        "{st:#}"
    );
}

/// Claude Code's `/clear` starts a new session id with `source: "clear"`.
#[test]
fn a_cleared_context_is_still_judged_against_the_baseline() {
    an_unjudged_cheat_is_blocked_in_a_new_session("clear");
}

/// `--resume <id> --fork-session` starts a new session id with `source: "fork"`.
#[test]
fn a_forked_session_is_still_judged_against_the_baseline() {
    an_unjudged_cheat_is_blocked_in_a_new_session("fork");
}

/// A brand-new session in the same worktree while an earlier one left unjudged changes.
#[test]
fn a_new_session_in_the_same_worktree_is_judged_against_the_open_baseline() {
    an_unjudged_cheat_is_blocked_in_a_new_session("startup");
}

/// A subagent's stop (Claude Code's `SubagentStop`: the parent's `session_id`, the subagent's
/// `agent_id` and `agent_type`) judges the worktree against its open baseline like any stop, and
/// the subagent joins the lineage.
#[test]
fn a_subagent_stop_judges_against_the_open_baseline() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let dir = repo.path();
    start(&sb, dir, "s-parent", "startup");
    skip_test_sub(&repo);
    let sub = |active: bool| {
        seal_in(
            &sb,
            dir,
            &["stop", "--agent", "claude"],
            &json!({"session_id": "s-parent", "transcript_path": "/tmp/t.jsonl", "cwd": dir,
                    "hook_event_name": "SubagentStop", "stop_hook_active": active,
                    "agent_id": "a4b2c9", "agent_type": "general-purpose",
                    "agent_transcript_path": "/tmp/a.jsonl",
                    "last_assistant_message": "The tests pass."}),
        )
    };
    assert_blocked_for_the_skip(&sub(false));
    let st = status(&sb, dir);
    assert_eq!(st["blocks"], 1, "{st:#}");
    let joined = st["lineage"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["agent_id"] == "a4b2c9")
        .unwrap_or_else(|| panic!("the subagent joined the lineage: {st:#}"))
        .clone();
    assert_eq!(joined["event"], "SubagentStop", "{joined:#}");
    assert_eq!(joined["agent_type"], "general-purpose", "{joined:#}");
    assert_eq!(joined["session"], "s-parent", "{joined:#}");
    // The parent's own stop is judged against the same baseline: still blocked, counted.
    assert_blocked_for_the_skip(&stop(&sb, dir, "s-parent"));
    assert_eq!(status(&sb, dir)["blocks"], 2);
}

/// The baseline advances only at a judged stop that lets the agent go: after an allowed stop,
/// later changes (of the same session resumed, or of a new one) are judged against the tree that
/// stop allowed, with its suite results; a blocked stop does not move it.
#[test]
fn after_an_allowed_stop_later_changes_are_judged_against_the_allowed_tree() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let dir = repo.path();
    start(&sb, dir, "s-1", "startup");
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    assert!(assert_allowed(&stop(&sb, dir, "s-1")).contains("VERIFIED"));

    // The same session, resumed, adds a file: only that is judged.
    start(&sb, dir, "s-1", "resume");
    repo.write("NOTES.md", "add fixed\n");
    let said = assert_allowed(&stop(&sb, dir, "s-1"));
    let r = receipts(dir);
    assert_eq!(r.len(), 2);
    assert_eq!(
        r[1]["repo"]["base_sha"], r[0]["repo"]["head_sha"],
        "{:#}",
        r[1]
    );
    assert_eq!(r[1]["diff"]["files"], 1, "{:#}", r[1]["diff"]);
    assert_eq!(r[1]["verdict"], "VERIFIED", "{:#}", r[1]);
    assert!(said.contains("since the last judged stop"), "{said}");
    let st = status(&sb, dir);
    assert_eq!(st["origin"], "judged_stop", "{st:#}");
    assert_eq!(
        (st["session"].clone(), st["blocks"].clone()),
        (json!("s-1"), json!(0))
    );

    // A new session: a cheat is blocked (the baseline stays), the honest change is allowed and
    // judged against the tree the last allowed stop judged.
    let out = start(&sb, dir, "s-2", "startup");
    assert!(
        text(&out.stderr).contains("at a judged stop of session s-1"),
        "{}",
        text(&out.stderr)
    );
    skip_test_sub(&repo);
    assert_blocked_for_the_skip(&stop(&sb, dir, "s-2"));
    repo.git(&["checkout", "--", "test_calc.py"]);
    repo.write(
        "calc.py",
        "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    );
    repo.write("CHANGES.md", "sub is unchanged\n");
    assert!(assert_allowed(&stop(&sb, dir, "s-2")).contains("VERIFIED"));
    let r = receipts(dir);
    assert_eq!(r.len(), 4);
    assert_eq!(
        r[2]["repo"]["base_sha"], r[1]["repo"]["head_sha"],
        "blocked"
    );
    assert_eq!(
        r[3]["repo"]["base_sha"], r[1]["repo"]["head_sha"],
        "allowed"
    );
    assert_eq!(
        r[3]["task"]["ref"], "session s-2 (this worktree's baseline is shared with sessions s-1)",
        "the receipt names the worktree's other sessions"
    );
}

/// `loki seal reset`: the tree now is the baseline (the cheat made before it is no longer the
/// agent's to answer for), and the next receipt says so as NOT PROVEN, with the command that
/// judges what came before. Once a stop is judged and let through, the reset is settled.
#[test]
fn a_reset_is_named_not_proven_in_the_next_receipt() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let dir = repo.path();
    start(&sb, dir, "s-1", "startup");
    let first = status(&sb, dir)["snapshot"].as_str().unwrap().to_string();
    skip_test_sub(&repo);
    let out = crate::cli::sandboxed(&sb, dir)
        .args(["seal", "reset"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let said = text(&out.stdout);
    assert!(
        said.contains("baseline reset") && said.contains(&first[..12]),
        "{said}"
    );
    let st = status(&sb, dir);
    assert_eq!(st["origin"], "reset", "{st:#}");
    assert_eq!(st["resets"][0]["previous"], first.as_str(), "{st:#}");

    repo.write("NOTES.md", "after the reset\n");
    assert_allowed(&stop(&sb, dir, "s-1"));
    let r = receipts(dir);
    let entry = r[0]["not_proven"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| {
            n["what"]
                .as_str()
                .is_some_and(|w| w.starts_with("the changes made before the reset at"))
        })
        .unwrap_or_else(|| panic!("the reset is NOT PROVEN: {:#}", r[0]["not_proven"]))
        .clone();
    assert!(
        entry["what"]
            .as_str()
            .unwrap()
            .contains(&format!("(base {}..)", &first[..12])),
        "{entry:#}"
    );
    assert_eq!(
        entry["why"],
        "the user reset the baseline with `loki seal reset`"
    );
    assert_eq!(
        entry["prove"],
        format!("loki seal check --base {first}").as_str()
    );
    // Settled by that allowed stop: the next receipt does not repeat it.
    assert!(
        status(&sb, dir)["resets"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
    repo.write("NOTES.md", "more\n");
    assert_allowed(&stop(&sb, dir, "s-1"));
    let r = receipts(dir);
    assert!(
        !r[1]["not_proven"].to_string().contains("before the reset"),
        "{:#}",
        r[1]["not_proven"]
    );
}

/// Two git worktrees of one repository are two pieces of work: each keeps its own baseline, even
/// when one session id visits both.
#[test]
fn two_worktrees_of_one_repository_keep_separate_baselines() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let main = repo.path();
    let parent = tempfile::tempdir().unwrap();
    let other = parent.path().join("wt2");
    repo.git(&["worktree", "add", "-q", other.to_str().unwrap()]);
    start(&sb, main, "s-1", "startup");
    start(&sb, &other, "s-1", "startup");
    let out = start(&sb, &other, "s-2", "startup");
    // The cheat in the main worktree: blocked there against its own start; the other worktree
    // has no change.
    skip_test_sub(&repo);
    assert_blocked_for_the_skip(&stop(&sb, main, "s-1"));
    assert!(assert_allowed(&stop(&sb, &other, "s-2")).contains("no change since"));
    assert_eq!(status(&sb, main)["blocks"], 1);
    assert_eq!(status(&sb, &other)["blocks"], 0);
    assert!(text(&out.stderr).contains("kept"), "{}", text(&out.stderr));
    let states = std::fs::read_dir(sb.loki_home().join("seal/worktrees"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "json")
        })
        .count();
    assert_eq!(states, 2, "one state per worktree");
}

/// A session state file from before the keying by worktree (`$LOKI_HOME/seal/<session>.json`,
/// `loki.seal/1`) is still honoured: the session's next stop judges against it (not the last
/// commit) and moves it under its worktree.
#[test]
fn an_old_per_session_state_file_still_works_and_is_migrated() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let dir = repo.path();
    // The baseline as the old layout kept it: taken with an uncommitted file, so a baseline from
    // the last commit would differ.
    repo.write("NOTES.md", "before\n");
    start(&sb, dir, "s-old", "startup");
    let wt_dir = sb.loki_home().join("seal/worktrees");
    let state_file = std::fs::read_dir(&wt_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut old: Value =
        serde_json::from_str(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
    let snapshot = old["snapshot"].clone();
    old["schema"] = json!("loki.seal/1");
    let m = old.as_object_mut().unwrap();
    m.remove("lineage");
    m.insert("origin".into(), json!("session_start"));
    std::fs::remove_dir_all(&wt_dir).unwrap();
    let legacy = sb.loki_home().join("seal/s-old.json");
    std::fs::write(&legacy, serde_json::to_string_pretty(&old).unwrap()).unwrap();

    skip_test_sub(&repo);
    assert_blocked_for_the_skip(&stop(&sb, dir, "s-old"));
    let r = receipts(dir);
    assert_eq!(
        r[0]["repo"]["base_sha"], snapshot,
        "judged against the old baseline"
    );
    assert!(!legacy.exists(), "migrated");
    let st = status(&sb, dir);
    assert_eq!(st["snapshot"], snapshot, "{st:#}");
    assert_eq!(st["blocks"], 1, "{st:#}");
    assert_eq!(st["lineage"][0]["session"], "s-old", "{st:#}");
}
