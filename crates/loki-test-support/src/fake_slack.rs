//! A loopback fake of the Slack Web API's `chat.postMessage`, the one method `loki slack serve`
//! calls. Every request is checked: `POST /api/chat.postMessage`, `Authorization: Bearer
//! <BOT_TOKEN>`, a JSON body (`Content-Type: application/json`) with a non-empty `channel`,
//! `thread_ts` (loki only ever answers in a thread) and `text`. A request that breaks a rule is
//! answered as Slack would (`"ok": false`) and recorded as a violation that
//! [`FakeSlack::assert_clean`] turns into a test failure. Accepted messages are kept in order.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::fake_server::{Incoming, Ledger, Loopback};

/// The bot token the fake accepts.
pub const BOT_TOKEN: &str = "xoxb-fake-bot-token";

/// One message the fake accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    pub channel: String,
    pub thread_ts: String,
    pub text: String,
}

#[derive(Debug, Default)]
struct Shared {
    ledger: Ledger,
    posted: Vec<Posted>,
}

/// The fake; serves until dropped.
#[derive(Debug)]
pub struct FakeSlack {
    shared: Arc<Mutex<Shared>>,
    server: Loopback,
}

impl FakeSlack {
    /// Binds `127.0.0.1:0`; start it inside a tokio runtime.
    pub async fn start() -> FakeSlack {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = Loopback::serve(app).await;
        FakeSlack { shared, server }
    }

    /// The Web API's base URL, for `LOKI_SLACK_API_URL`.
    #[must_use]
    pub fn api_url(&self) -> String {
        format!("{}/api", self.server.origin())
    }

    /// The messages accepted so far, in order.
    #[must_use]
    pub fn posted(&self) -> Vec<Posted> {
        self.shared.lock().unwrap().posted.clone()
    }

    /// Waits (polling, up to `timeout`) until `n` messages were accepted; returns them all.
    pub async fn wait_for(&self, n: usize, timeout: Duration) -> Vec<Posted> {
        let end = Instant::now() + timeout;
        loop {
            let posted = self.posted();
            if posted.len() >= n {
                return posted;
            }
            assert!(
                Instant::now() < end,
                "waited {timeout:?} for {n} Slack messages, got {}: {posted:#?}",
                posted.len()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Fails the test with every violation recorded.
    pub fn assert_clean(&self) {
        self.shared
            .lock()
            .unwrap()
            .ledger
            .assert_clean("fake Slack", 0);
    }
}

async fn handle(
    State(shared): State<Arc<Mutex<Shared>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req = Incoming::new(&headers, &body);
    let mut s = shared.lock().unwrap();
    let path = uri.path().to_string();
    s.ledger.record(&req, &path);
    let h = |n: &str| req.headers.get(n).cloned().unwrap_or_default();
    let mut problems = Vec::new();
    if method != Method::POST || path != "/api/chat.postMessage" {
        problems.push("only POST /api/chat.postMessage is served".to_string());
    }
    if h("authorization") != format!("Bearer {BOT_TOKEN}") {
        problems.push("wants Authorization: Bearer <the bot token>".into());
    }
    if !h("content-type").starts_with("application/json") {
        problems.push("wants Content-Type: application/json".into());
    }
    let field = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let posted = match &req.body {
        Err(e) => {
            problems.push(e.clone());
            None
        }
        Ok(v) => match (field(v, "channel"), field(v, "thread_ts"), field(v, "text")) {
            (Some(channel), Some(thread_ts), Some(text)) => Some(Posted {
                channel,
                thread_ts,
                text,
            }),
            _ => {
                problems.push(format!("wants channel, thread_ts and text: {v}"));
                None
            }
        },
    };
    if !problems.is_empty() || posted.is_none() {
        for p in &problems {
            s.ledger.violations.push(format!("{method} {path}: {p}"));
        }
        return (
            StatusCode::OK,
            json!({"ok": false, "error": "invalid_request"}).to_string(),
        )
            .into_response();
    }
    let Some(p) = posted else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let ts = format!("1700000000.{:06}", s.posted.len() + 1);
    let reply = json!({"ok": true, "channel": p.channel, "ts": ts});
    s.posted.push(p);
    (
        StatusCode::OK,
        [("content-type", "application/json")],
        reply.to_string(),
    )
        .into_response()
}
