//! The HTTP endpoint and the background work of each event (the spec is the crate's doc).

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use loki_mcp::args::{AnswerArgs, RunArgs};
use loki_mcp::tools::{self, Ctx};
use serde_json::{Value, json};

use crate::api::SlackApi;
use crate::error::ChatError;
use crate::{Options, signature};

/// The Events API request URL's path.
pub const EVENTS_PATH: &str = "/slack/events";
/// The largest body read: Slack's events are a few kilobytes.
pub const BODY_LIMIT: usize = 256 * 1024;
/// Event ids remembered for deduplication (Slack retries within minutes).
const SEEN_MAX: usize = 4096;
/// Between two looks at a running build.
const POLL: Duration = Duration::from_millis(500);
/// Looks at a finished run's output for its summary: 15 s at [`POLL`].
const SUMMARY_POLLS: u32 = 30;
/// The outcome of a run that waits for an answer.
const BLOCKED: &str = "BLOCKED";

struct App {
    secret: String,
    api: SlackApi,
    tools: Ctx,
    /// The repository root, as the tools take it.
    repo: String,
    seen: Mutex<Seen>,
    /// `channel thread_ts` → the BLOCKED run whose question was posted there.
    waiting: Mutex<HashMap<String, String>>,
}

#[derive(Default)]
struct Seen {
    ids: HashSet<String>,
    order: VecDeque<String>,
}

impl Seen {
    /// True when `id` is new (and remembers it).
    fn first(&mut self, id: &str) -> bool {
        if !self.ids.insert(id.to_string()) {
            return false;
        }
        self.order.push_back(id.to_string());
        if self.order.len() > SEEN_MAX
            && let Some(old) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        true
    }
}

/// Where replies go.
#[derive(Debug, Clone)]
struct Thread {
    channel: String,
    ts: String,
}

impl Thread {
    fn key(&self) -> String {
        format!("{} {}", self.channel, self.ts)
    }
}

/// What a background job starts.
enum Start {
    Task(String),
    Answer { run: String, text: String },
}

pub fn serve(opts: &Options, ready: impl FnOnce(SocketAddr)) -> Result<(), ChatError> {
    let repo = loki_core::layout::Repo::discover(&opts.repo)
        .map_err(|e| ChatError::Repo(e.to_string()))?;
    let tools = loki_mcp::Options {
        exe: opts.exe.clone(),
        repos: vec![repo.root.clone()],
        home: opts.home.clone(),
    }
    .context()
    .map_err(|e| ChatError::Repo(e.to_string()))?;
    let api = SlackApi::new(&opts.credentials.api_url, &opts.credentials.bot_token)?;
    let app = Arc::new(App {
        secret: opts.credentials.signing_secret.clone(),
        api,
        tools,
        repo: repo.root.display().to_string(),
        seen: Mutex::new(Seen::default()),
        waiting: Mutex::new(HashMap::new()),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ChatError::Runtime)?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(opts.addr)
            .await
            .map_err(|source| ChatError::Bind {
                addr: opts.addr.to_string(),
                source,
            })?;
        let bound = listener.local_addr().map_err(ChatError::Http)?;
        let router = Router::new()
            .route(EVENTS_PATH, axum::routing::post(events))
            .layer(DefaultBodyLimit::max(BODY_LIMIT))
            .with_state(app);
        ready(bound);
        axum::serve(listener, router).await.map_err(ChatError::Http)
    })
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

fn text(status: StatusCode, body: impl Into<String>) -> Response {
    (status, body.into()).into_response()
}

async fn events(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Err(e) = signature::verify(
        &app.secret,
        header("x-slack-request-timestamp"),
        header("x-slack-signature"),
        &body,
        now(),
    ) {
        tracing::warn!("refused a request: {e}");
        return text(StatusCode::UNAUTHORIZED, e.to_string());
    }
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return text(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    match v.get("type").and_then(Value::as_str) {
        Some("url_verification") => match s(&v, "challenge") {
            Some(c) => (
                [(axum::http::header::CONTENT_TYPE, "application/json")],
                json!({"challenge": c}).to_string(),
            )
                .into_response(),
            None => text(
                StatusCode::BAD_REQUEST,
                "url_verification without a challenge",
            ),
        },
        Some("event_callback") => {
            let Some(id) = s(&v, "event_id") else {
                return text(
                    StatusCode::BAD_REQUEST,
                    "event_callback without an event_id",
                );
            };
            let fresh = app
                .seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .first(&id);
            if !fresh {
                tracing::info!(
                    "event {id} already handled (retry {})",
                    header("x-slack-retry-num").unwrap_or("-")
                );
                return text(StatusCode::OK, "");
            }
            if let Some(event) = v.get("event") {
                dispatch(&app, event);
            }
            text(StatusCode::OK, "")
        }
        _ => text(StatusCode::OK, ""),
    }
}

/// Starts the background work of one new event, if it asks for any.
fn dispatch(app: &Arc<App>, event: &Value) {
    let s = |k: &str| event.get(k).and_then(Value::as_str);
    let (Some(channel), Some(ts)) = (s("channel"), s("ts")) else {
        return;
    };
    let thread = Thread {
        channel: channel.to_string(),
        ts: s("thread_ts").unwrap_or(ts).to_string(),
    };
    let words = task_text(s("text").unwrap_or(""));
    let start = match s("type") {
        Some("app_mention") => match take_waiting(app, &thread) {
            Some(run) if s("thread_ts").is_some() => Start::Answer { run, text: words },
            _ => Start::Task(words),
        },
        Some("message") => {
            let human = s("subtype").is_none() && s("bot_id").is_none();
            // A mention is also delivered as `app_mention`, which handles it.
            let mention = s("text").is_some_and(|t| t.contains("<@"));
            if !human || mention || s("thread_ts").is_none() {
                return;
            }
            match take_waiting(app, &thread) {
                Some(run) => Start::Answer { run, text: words },
                None => return,
            }
        }
        _ => return,
    };
    let app = Arc::clone(app);
    tokio::spawn(async move { job(app, thread, start).await });
}

fn take_waiting(app: &App, thread: &Thread) -> Option<String> {
    app.waiting
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&thread.key())
}

/// The task of a mention: the mentions removed, Slack's `<url>` and `<url|label>` links
/// unwrapped to the URL (an issue URL is a reference).
fn task_text(raw: &str) -> String {
    let mut out = String::new();
    let mut rest = raw;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let inner = &after[..close];
        if !inner.starts_with('@') {
            out.push_str(inner.split('|').next().unwrap_or(inner));
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    // Slack escapes these three in message text.
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
        .trim()
        .to_string()
}

async fn say(app: &App, thread: &Thread, msg: &str) {
    if let Err(e) = app.api.post(&thread.channel, &thread.ts, msg).await {
        tracing::warn!("{e}");
    }
}

/// Starts a build (or a follow-up), says so in the thread, waits for its end and posts it.
async fn job(app: Arc<App>, thread: Thread, start: Start) {
    if let Start::Task(t) = &start
        && t.is_empty()
    {
        say(
            &app,
            &thread,
            "Mention me with an issue reference (owner/repo#12, an issue URL, jira:KEY-1) or a task in plain words.",
        )
        .await;
        return;
    }
    let answering = match &start {
        Start::Answer { run, .. } => Some(run.clone()),
        Start::Task(_) => None,
    };
    let Some(id) = start_run(&app, &thread, start, answering.clone()).await else {
        return;
    };
    let first = match &answering {
        Some(run) => format!(
            "Started run {id}, the follow-up of {run} with your answer, in {}. I will post its outcome here.",
            app.repo
        ),
        None => format!(
            "Started run {id} in {}. I will post its outcome here.",
            app.repo
        ),
    };
    say(&app, &thread, &first).await;
    let Ok(run) = id.parse::<loki_core::RunId>() else {
        say(
            &app,
            &thread,
            &format!("Lost track of the run: {id:?} is not a run id"),
        )
        .await;
        return;
    };
    let Some((v, repo)) = wait_for_end(&app, &thread, &id, &run).await else {
        return;
    };
    let log = summary_of(&repo, &id).await;
    let outcome = v
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or("(no outcome)");
    let question = v.get("question").and_then(Value::as_str);
    let msg = outcome_message(&id, &app.repo, outcome, &log, question);
    if outcome == BLOCKED {
        app.waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(thread.key(), id.clone());
    }
    say(&app, &thread, &msg).await;
}

/// Starts the run of `start` in the background and returns its id; on failure says why in
/// the thread (and a follow-up that could not start, `answering` its run, waits again).
async fn start_run(
    app: &App,
    thread: &Thread,
    start: Start,
    answering: Option<String>,
) -> Option<String> {
    let tools = app.tools.clone();
    let repo = app.repo.clone();
    // The run names the thread it came from, the follow-up too (not its task file).
    let source = format!("slack:{}/{}", thread.channel, thread.ts);
    let started = tokio::task::spawn_blocking(move || match start {
        Start::Task(task) => tools::run_from(
            &tools,
            &RunArgs {
                repo,
                task,
                provider: None,
                model: None,
                script: None,
            },
            Some(&source),
        ),
        Start::Answer { run, text } => tools::answer_from(
            &tools,
            &AnswerArgs {
                repo,
                run,
                text,
                provider: None,
                model: None,
                script: None,
            },
            Some(&source),
        ),
    })
    .await;
    match started {
        Ok(Ok(v)) => Some(
            v.get("run_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        ),
        Ok(Err(e)) => {
            if let Some(run) = answering {
                // The question still stands: the next reply may answer it.
                app.waiting
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(thread.key(), run);
            }
            say(app, thread, &format!("Could not start the run: {e}")).await;
            None
        }
        Err(e) => {
            say(app, thread, &format!("Could not start the run: {e}")).await;
            None
        }
    }
}

/// Polls run `id` until it is done: its status and its repository; `None` when it was lost
/// (said in the thread when the status could not be read).
async fn wait_for_end(
    app: &App,
    thread: &Thread,
    id: &str,
    run: &loki_core::RunId,
) -> Option<(Value, loki_core::layout::Repo)> {
    loop {
        tokio::time::sleep(POLL).await;
        let (tools, run) = (app.tools.clone(), run.clone());
        let repo = app.repo.clone();
        let looked = tokio::task::spawn_blocking(move || {
            let repo = tools.scope.repo(&repo)?;
            Ok::<_, loki_mcp::ToolError>((tools::status_of(&repo, &run)?, repo))
        })
        .await;
        match looked {
            Ok(Ok((v, repo))) if v.get("done").and_then(Value::as_bool) == Some(true) => {
                return Some((v, repo));
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                say(app, thread, &format!("Lost track of run {id}: {e}")).await;
                return None;
            }
            Err(_) => return None,
        }
    }
}

/// The output of run `id`. The run's record ends a moment before the child prints its
/// summary: wait for the summary's last line (`Next:`), within reason.
async fn summary_of(repo: &loki_core::layout::Repo, id: &str) -> String {
    let path = loki_mcp::background::log_of(repo, id);
    let mut log = String::new();
    for _ in 0..SUMMARY_POLLS {
        log = tokio::fs::read_to_string(&path).await.unwrap_or_default();
        if log.lines().any(|l| l.starts_with("Next:")) {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    log
}

/// The last value of a summary line (`Reason:     …`) in a run's output.
fn summary_line<'a>(log: &'a str, label: &str) -> Option<&'a str> {
    log.lines()
        .rev()
        .find_map(|l| l.strip_prefix(label))
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// The outcome post: what the run's printed summary says (DESIGN.md's format).
fn outcome_message(
    id: &str,
    repo: &str,
    outcome: &str,
    log: &str,
    question: Option<&str>,
) -> String {
    let mut m = format!("Run {id} ended: {outcome}\n");
    if let Some(r) = summary_line(log, "Reason:") {
        m.push_str(&format!("Reason: {r}\n"));
    }
    let receipt = summary_line(log, "Receipt:").unwrap_or("(none recorded)");
    m.push_str(&format!("Receipt: {receipt}\n"));
    m.push_str(&format!("Check it: cd {repo} && loki verify {id}"));
    if outcome == BLOCKED {
        let q = question.unwrap_or("(the run recorded no question)");
        m.push_str(&format!(
            "\nQuestion: {q}\nReply in this thread with your answer: it starts the follow-up run."
        ));
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mention_becomes_its_task() {
        assert_eq!(task_text("<@U0LOKI> acme/app#12"), "acme/app#12");
        assert_eq!(
            task_text("<@U0LOKI> build <https://github.com/a/b/issues/3|a/b#3> now &amp; here"),
            "build https://github.com/a/b/issues/3 now & here"
        );
        assert_eq!(task_text("<@U0LOKI>"), "");
        assert_eq!(task_text("a < b"), "a < b");
    }

    #[test]
    fn seen_ids_are_bounded() {
        let mut s = Seen::default();
        assert!(s.first("a"));
        assert!(!s.first("a"));
        for i in 0..SEEN_MAX {
            s.first(&i.to_string());
        }
        assert!(s.first("a"), "the oldest id is forgotten first");
    }

    #[test]
    fn the_outcome_post_carries_reason_digest_and_verify() {
        let log = "Outcome:    PARTIAL\nReason:     no wall\nReceipt:    sha256:abc\nRun: x\n";
        assert_eq!(
            outcome_message("run_1", "/r", "PARTIAL", log, None),
            "Run run_1 ended: PARTIAL\nReason: no wall\nReceipt: sha256:abc\nCheck it: cd /r && loki verify run_1"
        );
    }
}
