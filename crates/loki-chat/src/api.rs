//! The one Slack Web API method loki calls: `chat.postMessage`, as JSON with the bot token as a
//! Bearer token, always into a thread (`thread_ts`). Slack answers HTTP 200 with `"ok": false`
//! on most failures, so the answer's `ok` is what decides.

use std::time::Duration;

use serde_json::{Value, json};

use crate::error::ChatError;

/// A post that takes longer is given up (and reported in the server's log).
const POST_TIMEOUT: Duration = Duration::from_secs(20);

/// A Web API client for one bot.
#[derive(Debug, Clone)]
pub struct SlackApi {
    base: String,
    token: String,
    http: reqwest::Client,
}

impl SlackApi {
    pub fn new(base: &str, token: &str) -> Result<SlackApi, ChatError> {
        let http = reqwest::Client::builder()
            .timeout(POST_TIMEOUT)
            .build()
            .map_err(|e| ChatError::Client(e.to_string()))?;
        Ok(SlackApi {
            base: base.trim_end_matches('/').to_string(),
            token: token.to_string(),
            http,
        })
    }

    /// Posts `text` into the thread `thread_ts` of `channel`.
    pub async fn post(&self, channel: &str, thread_ts: &str, text: &str) -> Result<(), ChatError> {
        let url = format!("{}/chat.postMessage", self.base);
        let fail = |detail: String| ChatError::Post {
            url: url.clone(),
            detail,
        };
        let resp = self
            .http
            .post(&url)
            .bearer_auth(&self.token)
            .json(&json!({"channel": channel, "thread_ts": thread_ts, "text": text}))
            .send()
            .await
            .map_err(|e| fail(e.to_string()))?;
        let status = resp.status();
        let body: Value = resp
            .json()
            .await
            .map_err(|e| fail(format!("HTTP {status}, the answer is not JSON: {e}")))?;
        if body.get("ok").and_then(Value::as_bool) == Some(true) {
            Ok(())
        } else {
            let error = body
                .get("error")
                .and_then(Value::as_str)
                .unwrap_or("no error named");
            Err(fail(format!("HTTP {status}, ok is not true: {error}")))
        }
    }
}
