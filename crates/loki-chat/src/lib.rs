//! loki's chat intake: `loki slack serve`, a Slack Events API endpoint that starts builds from
//! mentions and reports them in the thread they came from.
//!
//! # Settings
//! `SLACK_BOT_TOKEN` and `SLACK_SIGNING_SECRET` are both required: either missing is one error
//! naming both ([`ChatError::Credentials`]) before any port is bound. `LOKI_SLACK_INBOUND=0`
//! (or `false`) turns the intake off ([`ChatError::Off`]). Replies go to `LOKI_SLACK_API_URL`
//! (default [`loki_core::env::SLACK_API_DEFAULT`]). The server listens on `127.0.0.1` unless told otherwise.
//!
//! # `POST /slack/events`
//! 1. Bodies over [`BODY_LIMIT`] are refused (413) unread.
//! 2. The signature is checked ([`signature`]): a missing, stale or forged one is answered 401
//!    and nothing else happens (no run, no message, not even the JSON parsed).
//! 3. Malformed JSON: 400. `url_verification`: the `challenge` echoed back.
//! 4. `event_callback`: answered 200 at once (Slack retries after 3 s); an `event_id` already
//!    seen (Slack's retries, `X-Slack-Retry-Num`) is acknowledged and dropped. The work goes on
//!    in the background:
//!    - `app_mention` `@loki <issue ref or task>`: a build in the repository the server started
//!      in, started the way `loki mcp`'s `loki_run` starts one ([`loki_mcp::tools::run_from`]:
//!      an issue reference runs `loki issue` and records the issue as the task's source,
//!      anything else `loki run-task` recording `slack:<channel>/<thread_ts>`). A reply in the
//!      mention's thread (`thread_ts`: the thread it was in, else the mention itself) says the
//!      run started (its id), and another when it ended: outcome, reason, receipt digest, run id
//!      and the `loki verify` command.
//!    - A BLOCKED run's question is posted in the thread, and the thread waits for an answer: the
//!      next human reply there (a `message` event with that `thread_ts`, not from a bot and not a
//!      mention, or a mention in that thread) is the answer, given to
//!      [`loki_mcp::tools::answer_from`], the follow-up `loki answer` builds, whose task's
//!      source is the same `slack:<channel>/<thread_ts>`; its start and outcome are posted in the
//!      same thread.
//!    - Anything else is acknowledged and ignored.
//!
//! # Failure modes
//! A post Slack refuses (HTTP error or `"ok": false`) is logged (tracing, `LOKI_LOG`) and does not
//! stop the run or the server. A run that cannot start is reported in the thread with the reason.
//! The waiting threads and the seen event ids live in memory: a restarted server forgets them.

pub mod api;
mod error;
mod server;
pub mod signature;

use std::net::SocketAddr;
use std::path::PathBuf;

pub use error::ChatError;
pub use server::{BODY_LIMIT, EVENTS_PATH};

/// The credentials and endpoint of the bot, from the environment.
#[derive(Clone)]
pub struct Credentials {
    pub bot_token: String,
    pub signing_secret: String,
    pub api_url: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token or the secret.
        f.debug_struct("Credentials")
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

impl Credentials {
    /// Reads the switch, then both credentials: either missing is one error naming both.
    pub fn from_env() -> Result<Credentials, ChatError> {
        use loki_core::env::{SLACK_API_URL, SLACK_BOT_TOKEN, SLACK_INBOUND, SLACK_SIGNING_SECRET};
        if let Some(v) = SLACK_INBOUND.get()
            && !SLACK_INBOUND.is_on()
        {
            return Err(ChatError::Off(v));
        }
        let token = SLACK_BOT_TOKEN.get();
        let secret = SLACK_SIGNING_SECRET.get();
        let missing: Vec<&str> = [
            (token.is_none(), SLACK_BOT_TOKEN.name),
            (secret.is_none(), SLACK_SIGNING_SECRET.name),
        ]
        .into_iter()
        .filter_map(|(m, n)| m.then_some(n))
        .collect();
        match (token, secret) {
            (Some(bot_token), Some(signing_secret)) => Ok(Credentials {
                bot_token,
                signing_secret,
                api_url: SLACK_API_URL
                    .get()
                    .unwrap_or_else(|| loki_core::env::SLACK_API_DEFAULT.to_string()),
            }),
            _ => Err(ChatError::Credentials(missing.join(" and "))),
        }
    }
}

/// How the server was started.
#[derive(Debug, Clone)]
pub struct Options {
    pub credentials: Credentials,
    /// The repository runs are built in (the one `loki slack serve` started in).
    pub repo: PathBuf,
    /// The `loki` executable runs start (the running binary).
    pub exe: PathBuf,
    /// `$LOKI_HOME`.
    pub home: Option<PathBuf>,
    pub addr: SocketAddr,
}

/// Serves until the process is stopped; `ready` gets the bound address once it accepts
/// connections.
pub fn serve(opts: &Options, ready: impl FnOnce(SocketAddr)) -> Result<(), ChatError> {
    server::serve(opts, ready)
}
