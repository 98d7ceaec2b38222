//! The chat intake's errors.

/// What stops `loki slack serve`, or one of its posts.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error(
        "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET must both be set (missing: {0}); nothing was started"
    )]
    Credentials(String),
    #[error("chat intake is turned off (LOKI_SLACK_INBOUND={0}); unset it to serve Slack")]
    Off(String),
    #[error("the repository to build in: {0}")]
    Repo(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen on {addr}: {source} (is the port in use? pick another with --port)")]
    Bind {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("serving HTTP: {0}")]
    Http(#[source] std::io::Error),
    #[error("Slack's {url} refused a message: {detail}")]
    Post { url: String, detail: String },
}

impl loki_core::exit::Classify for ChatError {
    /// Missing settings and a switched-off intake are the command line's fault (exit 2).
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            ChatError::Credentials(_) | ChatError::Off(_) | ChatError::Repo(_) => {
                loki_core::exit::ExitClass::Usage
            }
            _ => loki_core::exit::ExitClass::Failure,
        }
    }
}
