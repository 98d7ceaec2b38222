//! `loki slack serve`: signed Slack events start builds in the repository the server runs in,
//! and the start, the outcome (with the receipt digest) and a BLOCKED question go to the thread
//! of the mention, on a fake Slack that checks the bot token, the channel and the thread id. A
//! forged or stale request is refused with 401 and starts nothing; missing credentials and
//! `LOKI_SLACK_INBOUND=0` refuse to start.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use loki_test_support::fake_slack::{BOT_TOKEN, FakeSlack, Posted};
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::cli::sandboxed;
use crate::contract::{TASK, TEST_AC_1, TEST_AC_2, calc_repo, script};

const SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
const CHANNEL: &str = "C0BUILDS";
/// A build takes seconds; a loaded machine, more.
const RUN_WAIT: Duration = Duration::from_secs(180);

/// HMAC-SHA256 written out here, independent of loki's own, so a wrong one in loki fails.
fn hmac(key: &[u8], msg: &[u8]) -> String {
    let mut k = [0u8; 64];
    k[..key.len()].copy_from_slice(key);
    let inner = Sha256::new()
        .chain_update(k.map(|b| b ^ 0x36))
        .chain_update(msg)
        .finalize();
    let outer = Sha256::new()
        .chain_update(k.map(|b| b ^ 0x5c))
        .chain_update(inner)
        .finalize();
    hex::encode(outer)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A running `loki slack serve --port 0`, killed when dropped.
struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(sb: &Sandbox, repo: &Path, slack: &FakeSlack, script: &Path) -> Server {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sb.apply(&mut cmd);
    cmd.current_dir(repo)
        .args(["slack", "serve", "--port", "0"])
        .env("SLACK_BOT_TOKEN", BOT_TOKEN)
        .env("SLACK_SIGNING_SECRET", SECRET)
        .env("LOKI_SLACK_API_URL", slack.api_url())
        .env("LOKI_PROVIDER_NAME", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    std::thread::spawn(move || lines.for_each(drop));
    let announced = "loki slack: serving the Events API on http://";
    assert!(first.starts_with(announced), "{first}");
    let addr = first[announced.len()..]
        .split_once("/slack/events")
        .unwrap()
        .0
        .to_string();
    Server { child, addr }
}

/// Sends `body` to `/slack/events` with the given headers; returns the status and the body.
fn post(server: &Server, body: &str, headers: &[(&str, String)]) -> (u16, String) {
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut req = format!(
        "POST /slack/events HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        server.addr,
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    // A server that refuses a body unread may close before all of it is written.
    let _ = s.write_all(req.as_bytes());
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status: u16 = out.split(' ').nth(1).unwrap().parse().unwrap();
    let body = out
        .split_once("\r\n\r\n")
        .map(|x| x.1)
        .unwrap_or("")
        .to_string();
    (status, body)
}

/// Signs `body` as Slack does, at `ts`, and posts it; the answer must come within Slack's 3 s.
fn signed_at(server: &Server, body: &str, ts: u64, extra: &[(&str, String)]) -> (u16, String) {
    let sig = format!(
        "v0={}",
        hmac(SECRET.as_bytes(), format!("v0:{ts}:{body}").as_bytes())
    );
    let mut headers = vec![
        ("X-Slack-Request-Timestamp", ts.to_string()),
        ("X-Slack-Signature", sig),
    ];
    headers.extend(extra.iter().cloned());
    let start = Instant::now();
    let r = post(server, body, &headers);
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "answered in {:?}",
        start.elapsed()
    );
    r
}

fn signed(server: &Server, body: &str) -> (u16, String) {
    signed_at(server, body, now(), &[])
}

fn event(id: &str, event: &Value) -> String {
    json!({"type": "event_callback", "team_id": "T1", "api_app_id": "A1", "event_id": id,
           "event_time": now(), "event": event})
    .to_string()
}

fn mention(id: &str, ts: &str, text: &str) -> String {
    event(
        id,
        &json!({"type": "app_mention", "user": "U0ANA", "channel": CHANNEL, "ts": ts,
                "text": format!("<@U0LOKI> {text}")}),
    )
}

fn runs(repo: &GitRepo) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(repo.path().join(".loki/runs")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// The receipt digest the run recorded in its event log's `run.completed`.
fn recorded_digest(repo: &GitRepo, run: &str) -> String {
    let log = std::fs::read_to_string(
        repo.path()
            .join(".loki/runs")
            .join(run)
            .join("events.jsonl"),
    )
    .unwrap();
    log.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "run.completed")
        .unwrap()["data"]["receipt_sha256"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The `task.source` of the run's receipt.
fn recorded_source(repo: &GitRepo, run: &str) -> String {
    let receipt: Value = serde_json::from_slice(
        &std::fs::read(
            repo.path()
                .join(".loki/runs")
                .join(run)
                .join("receipt.json"),
        )
        .unwrap(),
    )
    .unwrap();
    receipt["task"]["source"].as_str().unwrap().to_string()
}

/// The run id a "Started run <id>" message names.
fn started_id(p: &Posted) -> String {
    let rest = p
        .text
        .strip_prefix("Started run ")
        .expect("a \"Started run\" message");
    rest.split([' ', ',']).next().unwrap().to_string()
}

fn in_thread(posted: &[Posted], ts: &str) {
    for p in posted {
        assert_eq!(
            (p.channel.as_str(), p.thread_ts.as_str()),
            (CHANNEL, ts),
            "{p:#?}"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn forged_and_stale_requests_are_refused_and_a_mention_builds_and_reports_in_its_thread() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let slack = FakeSlack::start().await;
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    let wall = format!("{TEST_AC_1}{TEST_AC_2}");
    let fixed = script(&tmp.path().join("fixed.json"), &wall);
    let server = serve(&sb, repo.path(), &slack, &fixed);

    // Slack's handshake when the request URL is saved.
    let (code, body) = signed(
        &server,
        &json!({"type": "url_verification", "token": "x", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}).to_string(),
    );
    assert_eq!(code, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["challenge"],
        "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"
    );

    // A forged signature, a stale timestamp, no signature: 401, nothing else happens.
    let bait = mention("Ev0FORGED", "1700000001.000100", TASK);
    let ts = now();
    let forged = format!(
        "v0={}",
        hmac(b"not-the-secret", format!("v0:{ts}:{bait}").as_bytes())
    );
    let (code, body) = post(
        &server,
        &bait,
        &[
            ("X-Slack-Request-Timestamp", ts.to_string()),
            ("X-Slack-Signature", forged),
        ],
    );
    assert_eq!(
        (code, body.as_str()),
        (
            401,
            "X-Slack-Signature does not match the body signed with the signing secret"
        )
    );
    let (code, body) = signed_at(&server, &bait, now() - 6 * 60, &[]);
    assert_eq!(code, 401, "{body}");
    assert!(body.contains("outside the 5-minute window"), "{body}");
    let (code, _) = post(&server, &bait, &[]);
    assert_eq!(code, 401);
    // Signed but not JSON.
    assert_eq!(signed(&server, "{not json").0, 400);
    // Over the body limit (256 KiB): refused before it is read.
    let huge = json!({"type": "event_callback", "pad": "x".repeat(300 * 1024)}).to_string();
    assert_eq!(signed(&server, &huge).0, 413);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(slack.posted(), [], "a refused request posts nothing");
    assert_eq!(
        runs(&repo),
        Vec::<String>::new(),
        "a refused request starts no run"
    );

    // The mention, and Slack's retry of it: one run.
    let ts = "1700000002.000200";
    let m = mention("Ev0MENTION", ts, TASK);
    assert_eq!(signed(&server, &m).0, 200);
    let retry = [
        ("X-Slack-Retry-Num", "1".to_string()),
        ("X-Slack-Retry-Reason", "http_timeout".to_string()),
    ];
    assert_eq!(signed_at(&server, &m, now(), &retry).0, 200);
    let posted = slack.wait_for(2, RUN_WAIT).await;
    in_thread(&posted, ts);
    let id = started_id(&posted[0]);
    let digest = recorded_digest(&repo, &id);
    assert_eq!(
        posted[1].text,
        format!(
            "Run {id} ended: VERIFIED\nReceipt: sha256:{digest}\nCheck it: cd {} && loki verify {id}",
            canonical(repo.path()).display()
        )
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        slack.posted().len(),
        2,
        "the retry started nothing: {:#?}",
        slack.posted()
    );
    assert_eq!(runs(&repo), std::slice::from_ref(&id));
    slack.assert_clean();

    // The command it says to run verifies the receipt.
    sandboxed(&sb, repo.path())
        .args(["verify", &id])
        .assert()
        .success();
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap()
}

const CONFLICTING: &str = "Fix add() in calc.py.\n\n## Requirements\n- `add(2, 3)` must return 5\n- `add(2, 3)` must not return 5\n";

#[tokio::test(flavor = "current_thread")]
async fn a_blocked_question_is_answered_in_the_thread_and_the_follow_up_reports_there() {
    if !loki_test_support::require_pytest() {
        return;
    }
    let slack = FakeSlack::start().await;
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();
    // The contradiction stops the first run before any session; the follow-up uses the script.
    let fixed = script(&tmp.path().join("fixed.json"), TEST_AC_1);
    let server = serve(&sb, repo.path(), &slack, &fixed);
    let thread = "1700000003.000300";
    // A mention inside an existing thread answers there.
    let m = event(
        "Ev0BLOCK",
        &json!({"type": "app_mention", "user": "U0ANA", "channel": CHANNEL, "ts": "1700000003.000400",
                "thread_ts": thread, "text": format!("<@U0LOKI> {CONFLICTING}")}),
    );
    assert_eq!(signed(&server, &m).0, 200);
    let posted = slack.wait_for(2, RUN_WAIT).await;
    let blocked = started_id(&posted[0]);
    let question = "AC-1 \"`add(2, 3)` must return 5\" and AC-2 \"`add(2, 3)` must not return 5\" contradict each other (the same thing required and forbidden): which one holds? Answer with its id (AC-1 or AC-2).";
    let end = &posted[1].text;
    assert!(end.starts_with(&format!("Run {blocked} ended: BLOCKED\nReason: spec conflict in the contract: {question}\nReceipt: sha256:{}\n", recorded_digest(&repo, &blocked))), "{end}");
    assert!(end.ends_with(&format!("\nQuestion: {question}\nReply in this thread with your answer: it starts the follow-up run.")), "{end}");

    // A bot's message and a reply in another thread are not answers.
    let bot = event(
        "Ev0BOT",
        &json!({"type": "message", "subtype": "bot_message", "bot_id": "B1", "channel": CHANNEL,
                                      "ts": "1700000003.000500", "thread_ts": thread, "text": "AC-2"}),
    );
    assert_eq!(signed(&server, &bot).0, 200);
    let other = event(
        "Ev0OTHER",
        &json!({"type": "message", "user": "U0ANA", "channel": CHANNEL,
                                        "ts": "1700000003.000600", "thread_ts": "1700000009.000001", "text": "AC-2"}),
    );
    assert_eq!(signed(&server, &other).0, 200);
    // The answer.
    let answer = event(
        "Ev0ANSWER",
        &json!({"type": "message", "user": "U0ANA", "channel": CHANNEL,
                                         "ts": "1700000003.000700", "thread_ts": thread, "text": "AC-1: add sums."}),
    );
    assert_eq!(signed(&server, &answer).0, 200);
    let posted = slack.wait_for(4, RUN_WAIT).await;
    in_thread(&posted, thread);
    let follow = started_id(&posted[2]);
    assert_ne!(follow, blocked);
    assert!(
        posted[2]
            .text
            .contains(&format!("the follow-up of {blocked} with your answer")),
        "{:#?}",
        posted[2]
    );
    assert_eq!(
        posted[3].text,
        format!(
            "Run {follow} ended: VERIFIED\nReceipt: sha256:{}\nCheck it: cd {} && loki verify {follow}",
            recorded_digest(&repo, &follow),
            canonical(repo.path()).display()
        )
    );
    // The follow-up carries the task, the question and the answer (as `loki answer`'s does).
    let status: Value = serde_json::from_slice(
        &sandboxed(&sb, repo.path())
            .args(["status", "--json", &follow])
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .unwrap();
    let task = status["task"].as_str().unwrap();
    for part in [CONFLICTING.trim_end(), question, "AC-1: add sums."] {
        assert!(task.contains(part), "{part}\n---\n{task}");
    }
    // Both runs name the thread they came from as their task's source, not a task file.
    let from_thread = format!("slack:{CHANNEL}/{thread}");
    assert_eq!(recorded_source(&repo, &blocked), from_thread);
    assert_eq!(recorded_source(&repo, &follow), from_thread);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(slack.posted().len(), 4, "{:#?}", slack.posted());
    slack.assert_clean();
}

#[test]
fn missing_credentials_or_the_switch_refuse_to_start_and_bind_nothing() {
    let sb = Sandbox::new();
    let repo = calc_repo();
    // A port held here: a server that tried to bind it would fail differently.
    let held = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let both = "error: SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET must both be set";
    for (env, missing) in [
        (vec![], "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET"),
        (vec![("SLACK_BOT_TOKEN", BOT_TOKEN)], "SLACK_SIGNING_SECRET"),
        (vec![("SLACK_SIGNING_SECRET", SECRET)], "SLACK_BOT_TOKEN"),
    ] {
        let out = sandboxed(&sb, repo.path())
            .args(["slack", "serve", "--port", &port])
            .envs(env)
            .timeout(Duration::from_secs(30))
            .assert()
            .code(2)
            .get_output()
            .clone();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!("{both} (missing: {missing}); nothing was started\n")
        );
        assert!(out.stdout.is_empty());
    }
    for off in ["0", "false"] {
        let out = sandboxed(&sb, repo.path())
            .args(["slack", "serve", "--port", &port])
            .env("LOKI_SLACK_INBOUND", off)
            .env("SLACK_BOT_TOKEN", BOT_TOKEN)
            .env("SLACK_SIGNING_SECRET", SECRET)
            .timeout(Duration::from_secs(30))
            .assert()
            .code(2)
            .get_output()
            .clone();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: chat intake is turned off (LOKI_SLACK_INBOUND={off}); unset it to serve Slack\n"
            )
        );
    }
    drop(held);
}
