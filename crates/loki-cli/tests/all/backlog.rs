//! `loki backlog`: the issues listed through the fake GitHub (label filter, two pages, a pull
//! request left out) or GitLab, one engine run per issue on `loki/backlog-<N>`, several at once,
//! a summary table and the worst outcome's exit code; `--dry-run` runs nothing.

use std::path::{Path, PathBuf};

use loki_test_support::Sandbox;
use loki_test_support::fake_trackers::FakeTrackers;
use serde_json::{Value, json};

use crate::intake::{WALL, call, loki, repo, run};

/// The wall for every issue; the fix for every issue but the one that says `DO-NOT-FIX`, whose
/// agent changes nothing (a FAILED run).
fn script(dir: &Path) -> PathBuf {
    let finish = call("finish", &json!({"status": "done", "detail": "done"}));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [call("write_file", &json!({"path": "loki_wall_add_test.py", "content": WALL})), finish.clone()]},
        {"name": "implement", "unless_prompt_contains": "DO-NOT-FIX", "turns": [
            call("edit", &json!({"path": "calc.py", "search": "return a - b", "replace": "return a + b"})), finish.clone()]},
        {"name": "implement", "if_prompt_contains": "DO-NOT-FIX", "turns": [finish]}
    ]});
    let p = dir.join("backlog-script.json");
    std::fs::write(&p, s.to_string()).unwrap();
    p
}

/// `[run.started ts, run.completed ts]` of a run, from its event log.
fn span(repo: &Path, run_id: &str) -> (String, String) {
    let log =
        std::fs::read_to_string(repo.join(".loki/runs").join(run_id).join("events.jsonl")).unwrap();
    let events: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ts = |t: &str| {
        let e = events.iter().find(|e| e["type"] == t);
        assert!(e.is_some(), "{run_id} has no {t}");
        e.unwrap()["ts"].as_str().unwrap().to_string()
    };
    (ts("run.started"), ts("run.completed"))
}

#[tokio::test(flavor = "current_thread")]
async fn a_backlog_of_three_runs_two_at_a_time_and_exits_with_the_worst_outcome() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    let bare = tempfile::tempdir().unwrap();
    r.git(&["init", "-q", "--bare", bare.path().to_str().unwrap()]);
    r.git(&["remote", "add", "origin", bare.path().to_str().unwrap()]);
    let s = script(sb.home());
    let mut cmd = loki(
        &sb,
        r.path(),
        &fake,
        &[
            "backlog",
            "octo/widgets",
            "--label",
            "loki",
            "--concurrency",
            "2",
            "--pr",
        ],
    );
    cmd.args(["--provider", "scripted", "--script"]).arg(&s);
    let out = run(cmd).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the worst is FAILED:\n{stdout}\n{stderr}"
    );
    // One run per issue, each on its own branch, the verdicts as the script decides.
    let rows: Vec<Vec<String>> = stdout
        .lines()
        .skip(1)
        .map(|l| {
            l.split("  ")
                .filter(|c| !c.is_empty())
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    let run_of = |i: usize| rows[i][3].clone();
    for (i, n, verdict) in [(0, 12, "VERIFIED"), (1, 13, "VERIFIED"), (2, 14, "FAILED")] {
        assert_eq!(rows[i][0], format!("#{n}"), "{stdout}");
        // On a mismatch the receipt says why (seen once under CI's load, not reproduced since).
        let receipt = || {
            std::fs::read_to_string(
                r.path()
                    .join(".loki/runs")
                    .join(run_of(i))
                    .join("receipt.json"),
            )
            .unwrap_or_default()
        };
        assert_eq!(rows[i][2], verdict, "{stdout}\n{}", receipt());
        let rec: Value = serde_json::from_slice(
            &std::fs::read(r.path().join(".loki/runs").join(run_of(i)).join("run.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(rec["branch"], format!("loki/backlog-{n}"));
    }
    for n in [12, 13] {
        assert!(
            r.git(&["ls-remote", "origin"])
                .contains(&format!("refs/heads/loki/backlog-{n}")),
            "#{n} was pushed"
        );
    }
    let prs = fake.pull_requests();
    assert_eq!(prs.len(), 2, "a request for each VERIFIED issue: {prs:#?}");
    assert_eq!(
        prs[0]["head"].as_str().unwrap().len(),
        "loki/backlog-1x".len()
    );
    // At most two at a time, and two did run at once: some pair of runs overlapped (each
    // started before the other ended), read from their own event logs.
    let spans: Vec<(String, String)> = (0..3).map(|i| span(r.path(), &run_of(i))).collect();
    let overlapped = (0..3)
        .any(|i| (0..3).any(|j| i != j && spans[i].0 < spans[j].1 && spans[j].0 < spans[i].1));
    assert!(overlapped, "no two runs overlapped: {spans:#?}");
    let all_three = (0..3).all(|i| (0..3).all(|j| spans[i].0 < spans[j].1));
    assert!(!all_three, "three ran at once at concurrency 2: {spans:#?}");
    // Which of the two concurrent runs opened its request first is not fixed: the numbers go.
    let mut table = stdout.replace(&fake.origin(), "[FORGE]");
    for n in 1..=2 {
        table = table.replace(&format!("/pull/{n}\n"), "/pull/[N]\n");
    }
    insta::assert_snapshot!(loki_test_support::redact(&table, &[]));
    // Again for #12: its branch is there from the first backlog, so that run is refused (not
    // built over), named in the table, and the exit code says so.
    let mut cmd = loki(
        &sb,
        r.path(),
        &fake,
        &["backlog", "octo/widgets", "--issues", "12"],
    );
    cmd.args(["--provider", "scripted", "--script"]).arg(&s);
    let out = run(cmd).await;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stdout.contains("#12") && stdout.contains("ERROR"),
        "{stdout}"
    );
    assert!(
        stderr.contains("the branch loki/backlog-12 exists already"),
        "{stderr}"
    );
    fake.assert_clean();
}

#[tokio::test(flavor = "current_thread")]
async fn a_dry_run_lists_the_issues_and_runs_nothing() {
    let fake = FakeTrackers::start().await;
    let sb = Sandbox::new();
    let r = repo();
    let out = run(loki(
        &sb,
        r.path(),
        &fake,
        &[
            "backlog",
            "octo/widgets",
            "--label",
            "loki",
            "--dry-run",
            "--json",
        ],
    ))
    .await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let numbers: Vec<u64> = v["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["issue"].as_u64().unwrap())
        .collect();
    assert_eq!(
        numbers,
        [12, 13, 14],
        "both pages, the pull request left out"
    );
    assert_eq!(v["issues"][2]["branch"], "loki/backlog-14");
    // A label nobody has: nothing; GitLab, every open issue (paged by X-Next-Page).
    let out = run(loki(
        &sb,
        r.path(),
        &fake,
        &[
            "backlog",
            "octo/widgets",
            "--label",
            "nope",
            "--dry-run",
            "--json",
        ],
    ))
    .await;
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["issues"], json!([]));
    let out = run(loki(
        &sb,
        r.path(),
        &fake,
        &["backlog", "grp/sub/proj", "--all", "--dry-run"],
    ))
    .await;
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("gitlab:grp/sub/proj: 1 issue(s) would be built"),
        "{said}"
    );
    assert!(
        said.contains("#3") && said.contains("loki/backlog-3"),
        "{said}"
    );
    // Which issues must be said; a project must be a project.
    let out = run(loki(&sb, r.path(), &fake, &["backlog", "octo/widgets"])).await;
    assert_eq!(out.status.code(), Some(2));
    let out = run(loki(
        &sb,
        r.path(),
        &fake,
        &["backlog", "octo/widgets#3", "--all"],
    ))
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without #N"));
    let runs = r.path().join(".loki/runs");
    assert!(
        !runs.exists() || std::fs::read_dir(&runs).unwrap().next().is_none(),
        "nothing ran"
    );
    fake.assert_clean();
}
