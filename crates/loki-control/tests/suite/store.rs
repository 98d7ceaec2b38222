//! The store on SQLite and on a real PostgreSQL: every scenario runs on both backends.

use loki_control::check::RunState;
use loki_control::ship::{Redactor, batches};
use loki_control::store::{AnswerOutcome, Group, RunFilter, Store};
use serde_json::Value;

use super::fixture::{Ending, Key, Run, backends, record};

const MACHINE: &str = "laptop";
const REPO: &str = "/work/widget";

async fn ingest(
    store: &Store,
    run: &Run,
    machine: &str,
    repo: &str,
) -> loki_control::store::IngestOutcome {
    store.ingest(&run.batch(machine, repo)).await.unwrap()
}

fn sid(machine: &str, repo: &str) -> String {
    loki_control::store::source_id(machine, repo)
}

#[tokio::test]
async fn a_signed_run_from_a_trusted_key_is_intact_with_the_receipts_facts() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_100000_aaaa",
        &key,
        Ending::Sealed,
        "planned",
    );
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        let out = ingest(&b.store, &run, MACHINE, REPO).await;
        assert_eq!(out.accepted, run.events.len() as u64, "{}", b.name);
        assert_eq!(out.state, RunState::Intact, "{}", b.name);
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v["state"], "intact", "{}: {v}", b.name);
        assert_eq!(v["verdict"], "VERIFIED", "{}", b.name);
        assert_eq!(v["provider"], "scripted", "{}", b.name);
        assert_eq!(v["model"], "scripted-1", "{}", b.name);
        assert_eq!(v["cost_usd"], 0.25, "{}", b.name);
        assert_eq!(v["repo"], REPO, "{}", b.name);
        assert_eq!(v["machine"], MACHINE, "{}", b.name);
        assert_eq!(v["checks"][0]["name"], "impacted tests", "{}", b.name);
        assert!(
            !v["not_proven"].as_array().unwrap().is_empty(),
            "{}: {v}",
            b.name
        );
        assert_eq!(v["stages"][0]["name"], "plan", "{}", b.name);
        assert_eq!(v["receipt"]["state"], "intact", "{}", b.name);
        assert!(
            v["receipt"]["detail"]
                .as_str()
                .unwrap()
                .contains("verified"),
            "{v}"
        );
        assert_eq!(
            v["chain"]["contiguous"],
            run.events.len() as u64,
            "{}",
            b.name
        );
    }
}

#[tokio::test]
async fn a_receipt_signed_by_a_key_not_trusted_is_unattested_until_the_key_is_trusted() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_100000_bbbb",
        &key,
        Ending::Sealed,
        "x",
    );
    for b in backends().await {
        let out = ingest(&b.store, &run, MACHINE, REPO).await;
        assert_eq!(out.state, RunState::Unattested, "{}", b.name);
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert!(
            v["state_detail"]
                .as_str()
                .unwrap()
                .contains("loki serve trust"),
            "{}: {v}",
            b.name
        );
        b.store.trust(&key.pem).await.unwrap();
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v["state"], "intact", "{}: {v}", b.name);
    }
}

#[tokio::test]
async fn a_run_shipped_twice_is_stored_once() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_100000_cccc",
        &key,
        Ending::Sealed,
        "x",
    );
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        ingest(&b.store, &run, MACHINE, REPO).await;
        let again = ingest(&b.store, &run, MACHINE, REPO).await;
        assert_eq!(again.accepted, 0, "{}", b.name);
        assert_eq!(again.duplicate, run.events.len() as u64, "{}", b.name);
        assert_eq!(again.conflict_seq, None, "{}", b.name);
        assert_eq!(again.state, RunState::Intact, "{}", b.name);
        let ev = b
            .store
            .events(&sid(MACHINE, REPO), &run.run, None, 10_000)
            .await
            .unwrap();
        assert_eq!(ev.len(), run.events.len(), "{}", b.name);
    }
}

#[tokio::test]
async fn a_line_shipped_again_with_another_hash_is_a_conflict() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_100000_dddd",
        &key,
        Ending::Sealed,
        "x",
    );
    let other = tempfile::tempdir().unwrap();
    // The same run id recorded again elsewhere: other timestamps, so other hashes.
    let rewritten = record(other.path(), &run.run, &key, Ending::Sealed, "y");
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        ingest(&b.store, &run, MACHINE, REPO).await;
        let out = ingest(&b.store, &rewritten, MACHINE, REPO).await;
        assert_eq!(out.conflict_seq, Some(0), "{}", b.name);
        assert_eq!(out.state, RunState::Conflict, "{}", b.name);
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v["state"], "conflict", "{}", b.name);
        // The first version stays what is stored.
        let ev = b
            .store
            .events(&sid(MACHINE, REPO), &run.run, None, 10_000)
            .await
            .unwrap();
        assert_eq!(ev[0].event.hash, run.events[0].hash, "{}", b.name);
        // A conflict stays: shipping the first version again does not clear it.
        let again = ingest(&b.store, &run, MACHINE, REPO).await;
        assert_eq!(again.state, RunState::Conflict, "{}", b.name);
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(v["state"], "conflict", "{}", b.name);
        let audit = b.store.audit_log(10).await.unwrap();
        assert!(
            audit.iter().any(|a| a["action"] == "conflict"),
            "{}",
            b.name
        );
    }
}

#[tokio::test]
async fn two_runs_with_one_id_from_two_machines_are_two_runs() {
    let key = Key::new();
    let (r1, r2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let id = "run_20261201_100000_eeee";
    let a = record(r1.path(), id, &key, Ending::Sealed, "a");
    let c = record(r2.path(), id, &key, Ending::Sealed, "c");
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        assert_eq!(
            ingest(&b.store, &a, "laptop", REPO).await.state,
            RunState::Intact
        );
        assert_eq!(
            ingest(&b.store, &c, "ci-runner", REPO).await.state,
            RunState::Intact
        );
        let page = b
            .store
            .runs(&RunFilter {
                limit: 10,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(page.runs.len(), 2, "{}", b.name);
        let machines: Vec<&str> = page
            .runs
            .iter()
            .map(|r| r["machine"].as_str().unwrap())
            .collect();
        assert!(
            machines.contains(&"laptop") && machines.contains(&"ci-runner"),
            "{machines:?}"
        );
        assert!(
            page.runs.iter().all(|r| r["state"] == "intact"),
            "{}",
            b.name
        );
    }
}

#[tokio::test]
async fn an_edited_line_makes_the_run_tampered_and_names_the_line() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let mut run = record(
        repo.path(),
        "run_20261201_100000_ffff",
        &key,
        Ending::Sealed,
        "x",
    );
    run.events[4]
        .data
        .insert("usd".to_string(), serde_json::json!(0.01));
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        assert_eq!(
            ingest(&b.store, &run, MACHINE, REPO).await.state,
            RunState::Tampered
        );
        let v = b
            .store
            .run(&sid(MACHINE, REPO), &run.run)
            .await
            .unwrap()
            .unwrap();
        assert!(
            v["state_detail"]
                .as_str()
                .unwrap()
                .starts_with("line 4 of the event log"),
            "{v}"
        );
        assert_eq!(v["chain"]["broken"]["seq"], 4, "{}", b.name);
    }
}

#[tokio::test]
async fn a_redacted_line_is_checked_by_its_links_and_the_run_says_so() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let secret = "hunter2-very-secret-value";
    let run = record(
        repo.path(),
        "run_20261201_100000_abab",
        &key,
        Ending::Sealed,
        &format!("used {secret}"),
    );
    let redactor = Redactor::from_vars([("DB_PASSWORD".to_string(), secret.to_string())]);
    let bodies = batches(
        MACHINE,
        REPO,
        &run.run,
        &run.events,
        run.envelope.clone(),
        &redactor,
    );
    assert_eq!(bodies.len(), 1);
    assert_eq!(bodies[0].redacted, vec![3]);
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        let out = b
            .store
            .ingest(&bodies[0].clone().into_batch().unwrap())
            .await
            .unwrap();
        assert_eq!(out.state, RunState::Intact, "{}", b.name);
        let source = sid(MACHINE, REPO);
        let ev = b.store.events(&source, &run.run, None, 100).await.unwrap();
        let stored = serde_json::to_string(&ev).unwrap();
        assert!(
            !stored.contains(secret),
            "{}: the secret reached the server",
            b.name
        );
        assert!(
            ev[3].redacted && stored.contains("[REDACTED]"),
            "{}",
            b.name
        );
        let v = b.store.run(&source, &run.run).await.unwrap().unwrap();
        assert_eq!(v["chain"]["redacted"], 1, "{}", b.name);
        assert!(
            v["chain"]["note"]
                .as_str()
                .unwrap()
                .contains("checked on the shipping machine before redaction"),
            "{v}"
        );
    }
    // A changed line that is not marked redacted is still caught.
    let mut forged = bodies[0].clone();
    forged.redacted.clear();
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        let out = b
            .store
            .ingest(&forged.clone().into_batch().unwrap())
            .await
            .unwrap();
        assert_eq!(out.state, RunState::Tampered, "{}", b.name);
    }
}

#[tokio::test]
async fn runs_list_filters_and_pages_with_a_cursor() {
    let key = Key::new();
    let dirs: Vec<_> = (0..5).map(|_| tempfile::tempdir().unwrap()).collect();
    let runs: Vec<Run> = dirs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let ending = if i == 4 {
                Ending::Blocked
            } else {
                Ending::Sealed
            };
            // Distinct start times: the list's order is by start.
            std::thread::sleep(std::time::Duration::from_millis(5));
            record(
                d.path(),
                &format!("run_20261201_10000{i}_0000"),
                &key,
                ending,
                "x",
            )
        })
        .collect();
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        for (i, r) in runs.iter().enumerate() {
            let repo = if i % 2 == 0 {
                "/work/even"
            } else {
                "/work/odd"
            };
            ingest(&b.store, r, MACHINE, repo).await;
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = b
                .store
                .runs(&RunFilter {
                    limit: 2,
                    cursor: cursor.clone(),
                    ..RunFilter::default()
                })
                .await
                .unwrap();
            seen.extend(
                page.runs
                    .iter()
                    .map(|r| r["run"].as_str().unwrap().to_string()),
            );
            match page.next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        let newest_first: Vec<String> = runs.iter().rev().map(|r| r.run.clone()).collect();
        assert_eq!(seen, newest_first, "{}", b.name);
        let even = b
            .store
            .runs(&RunFilter {
                repo: Some("/work/even".into()),
                limit: 50,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(even.runs.len(), 3, "{}", b.name);
        let blocked = b
            .store
            .runs(&RunFilter {
                verdict: Some("BLOCKED".into()),
                limit: 50,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(blocked.runs.len(), 1, "{}", b.name);
        assert_eq!(blocked.runs[0]["run"], runs[4].run.as_str());
        let provider = b
            .store
            .runs(&RunFilter {
                provider: Some("scripted".into()),
                limit: 50,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(provider.runs.len(), 5, "{}", b.name);
        let since = runs[3].events[0].ts.clone();
        let later = b
            .store
            .runs(&RunFilter {
                since: Some(since.clone()),
                limit: 50,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(later.runs.len(), 2, "{}", b.name);
        let earlier = b
            .store
            .runs(&RunFilter {
                until: Some(since),
                limit: 50,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(earlier.runs.len(), 3, "{}", b.name);
        let bad = b
            .store
            .runs(&RunFilter {
                cursor: Some("zz".into()),
                limit: 5,
                ..RunFilter::default()
            })
            .await;
        assert!(bad.is_err(), "{}", b.name);
    }
}

#[tokio::test]
async fn stats_group_runs_and_cost_by_day_repo_model_and_verdict() {
    let key = Key::new();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = record(
        d1.path(),
        "run_20261201_100000_1111",
        &key,
        Ending::Sealed,
        "x",
    );
    let c = record(
        d2.path(),
        "run_20261201_100000_2222",
        &key,
        Ending::Sealed,
        "x",
    );
    for b in backends().await {
        b.store.trust(&key.pem).await.unwrap();
        ingest(&b.store, &a, MACHINE, "/work/a").await;
        ingest(&b.store, &c, MACHINE, "/work/b").await;
        let day = b.store.stats(Group::Day).await.unwrap();
        assert_eq!(day.len(), 1, "{}", b.name);
        assert_eq!(day[0].key, a.events[0].ts[..10], "{}", b.name);
        assert_eq!((day[0].runs, day[0].verified), (2, 2), "{}", b.name);
        assert!((day[0].cost_usd.unwrap() - 0.5).abs() < 1e-9, "{}", b.name);
        let repo = b.store.stats(Group::Repo).await.unwrap();
        let keys: Vec<&str> = repo.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["/work/b", "/work/a"], "{}", b.name);
        let model = b.store.stats(Group::Model).await.unwrap();
        assert_eq!(model[0].key, "scripted-1", "{}", b.name);
        let verdict = b.store.stats(Group::Verdict).await.unwrap();
        assert_eq!(verdict[0].key, "VERIFIED", "{}", b.name);
    }
}

#[tokio::test]
async fn only_a_blocked_run_takes_an_answer_and_it_is_picked_up_once() {
    let key = Key::new();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let blocked = record(
        d1.path(),
        "run_20261201_100000_b10c",
        &key,
        Ending::Blocked,
        "x",
    );
    let done = record(
        d2.path(),
        "run_20261201_100000_d0e0",
        &key,
        Ending::Sealed,
        "x",
    );
    for b in backends().await {
        let s = sid(MACHINE, REPO);
        ingest(&b.store, &blocked, MACHINE, REPO).await;
        ingest(&b.store, &done, MACHINE, REPO).await;
        let v = b.store.run(&s, &blocked.run).await.unwrap().unwrap();
        assert_eq!(v["blocked"], Value::Bool(true), "{}", b.name);
        assert_eq!(
            v["question"], "which database should the flag configure?",
            "{}",
            b.name
        );
        assert_eq!(
            b.store.answer(&s, &done.run, "x").await.unwrap(),
            AnswerOutcome::NotBlocked("VERIFIED".into())
        );
        assert_eq!(
            b.store.answer(&s, "run_nope", "x").await.unwrap(),
            AnswerOutcome::UnknownRun
        );
        assert_eq!(
            b.store
                .answer(&s, &blocked.run, "PostgreSQL")
                .await
                .unwrap(),
            AnswerOutcome::Stored
        );
        assert_eq!(
            b.store
                .pending_answer(&s, &blocked.run, true)
                .await
                .unwrap()
                .as_deref(),
            Some("PostgreSQL")
        );
        assert_eq!(
            b.store
                .pending_answer(&s, &blocked.run, true)
                .await
                .unwrap(),
            None,
            "{}",
            b.name
        );
    }
}

#[tokio::test]
async fn prune_lists_with_dry_run_then_removes_a_repos_old_runs() {
    let key = Key::new();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let a = record(
        d1.path(),
        "run_20261201_100000_0a0a",
        &key,
        Ending::Sealed,
        "x",
    );
    let c = record(
        d2.path(),
        "run_20261201_100000_0c0c",
        &key,
        Ending::Sealed,
        "x",
    );
    for b in backends().await {
        ingest(&b.store, &a, MACHINE, "/work/old").await;
        ingest(&b.store, &c, MACHINE, "/work/keep").await;
        let dry = b
            .store
            .prune("/work/old", "2999-01-01", true)
            .await
            .unwrap();
        assert_eq!(dry.runs.len(), 1, "{}", b.name);
        assert_eq!(
            b.store
                .runs(&RunFilter {
                    limit: 10,
                    ..RunFilter::default()
                })
                .await
                .unwrap()
                .runs
                .len(),
            2
        );
        let none = b
            .store
            .prune("/work/old", "2000-01-01", false)
            .await
            .unwrap();
        assert!(none.runs.is_empty(), "{}", b.name);
        let done = b
            .store
            .prune("/work/old", "2999-01-01", false)
            .await
            .unwrap();
        assert_eq!(
            done.runs,
            vec![format!("{}/{}", sid(MACHINE, "/work/old"), a.run)]
        );
        let left = b
            .store
            .runs(&RunFilter {
                limit: 10,
                ..RunFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(left.runs.len(), 1, "{}", b.name);
        assert!(
            b.store
                .events(&sid(MACHINE, "/work/old"), &a.run, None, 10)
                .await
                .unwrap()
                .is_empty()
        );
    }
}

#[tokio::test]
async fn opening_a_store_again_migrates_nothing_twice() {
    for b in backends().await {
        let again = Store::open(&b.spec).await.unwrap();
        assert!(again.ping().await, "{}", b.name);
        assert_eq!(again.engine(), b.name);
        // A third open at the same time as a fourth: the migration lock (PostgreSQL) or the
        // IF NOT EXISTS table and its versions keep them from applying the schema twice.
        let (x, y) = tokio::join!(Store::open(&b.spec), Store::open(&b.spec));
        x.unwrap();
        y.unwrap();
    }
}
