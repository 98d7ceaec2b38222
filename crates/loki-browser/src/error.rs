//! The error type of `loki-browser`: each variant names what failed and what to do.

use std::path::PathBuf;

/// Errors of finding, launching and driving the browser and of checking a page.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "no Chromium found ({looked}); install it (`apt-get install chromium`) or set LOKI_BROWSER to the browser's path"
    )]
    NotFound { looked: String },

    #[error("the browser {program} could not start: {detail}")]
    Launch { program: String, detail: String },

    #[error("the browser exited or closed the DevTools connection during {during}: {detail}")]
    Gone { during: String, detail: String },

    #[error("the browser did not answer {method} within {secs}s; it may be hung")]
    Timeout { method: String, secs: u64 },

    #[error("the browser refused {method}: {message}")]
    Protocol { method: String, message: String },

    #[error("the page {url} never loaded: {detail}")]
    NotLoaded { url: String, detail: String },

    #[error("step {index} ({step}) failed: {detail}")]
    Step {
        index: usize,
        step: String,
        detail: String,
    },

    #[error("the steps file is not a list of steps: {0}")]
    BadSteps(String),

    #[error("the server command `{command}` {detail}")]
    Server { command: String, detail: String },

    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("the screencast could not be written as an animated PNG: {0}")]
    Video(String),

    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
}

impl BrowserError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, e: std::io::Error) -> Self {
        BrowserError::Io {
            action,
            path: path.into(),
            source: e,
        }
    }

    /// True when the page or its setup is the problem rather than the browser machinery:
    /// steps and pages the user controls.
    #[must_use]
    pub fn is_page_problem(&self) -> bool {
        match self {
            BrowserError::NotLoaded { .. }
            | BrowserError::Step { .. }
            | BrowserError::BadSteps(_)
            | BrowserError::Server { .. } => true,
            BrowserError::NotFound { .. }
            | BrowserError::Launch { .. }
            | BrowserError::Gone { .. }
            | BrowserError::Timeout { .. }
            | BrowserError::Protocol { .. }
            | BrowserError::Io { .. }
            | BrowserError::Video(_)
            | BrowserError::Core(_) => false,
        }
    }
}
