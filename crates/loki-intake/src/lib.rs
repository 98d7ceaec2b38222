//! Issues in: GitHub, GitLab, Jira and Linear issues fetched and normalised before any model runs.
//!
//! # Flow
//! [`refs::parse`] tells an issue reference from a task ([`refs`] lists the forms); [`fetch`]
//! reads the issue over the tracker's API (GitHub REST, GitLab REST v4, Jira REST v3 with the ADF
//! description turned into text, Linear GraphQL), follows pagination of its comments, and waits
//! out rate limits (`429`, or `403` with `x-ratelimit-remaining: 0`, by `Retry-After` or
//! `X-RateLimit-Reset`) while the deadline allows. The result is an [`Issue`], written by the
//! build run as `.loki/runs/<run>/issue.json`; its canonical reference and the sha256 of the task
//! text made from it ([`Issue::task_text`]) go into the receipt's `task`.
//!
//! # Settings ([`Endpoints`], from the environment)
//! `GITHUB_TOKEN` (optional for public issues), `LOKI_GITHUB_API_URL` (default
//! `https://api.github.com`); `GITLAB_URL` (default `https://gitlab.com`), `GITLAB_TOKEN`;
//! `JIRA_BASE_URL`, `JIRA_EMAIL`, `JIRA_API_TOKEN` (all three required for Jira); `LINEAR_API_KEY`
//! (required), `LOKI_LINEAR_API_URL` (default `https://api.linear.app`). A missing required
//! variable is an error naming it before any request ([`IntakeError::Missing`]).
//!
//! # Bounds and failure modes
//! An issue's body and each comment are stored cut to [`MAX_TEXT_BYTES`] with a note of what was
//! dropped, and the task text made from them is capped to it again; a response body
//! at [`MAX_RESPONSE_BYTES`]. 401/403 are auth errors naming the variable to check; 404 names the
//! reference; anything that is not the expected JSON is a bad response with the URL. The token
//! never leaves this crate: it is not in the issue, the task or any error.
//!
//! # Publishing
//! [`pr`] pushes a run's branch and opens its request; [`after`] is the one code path of `loki pr`
//! and a build's `--pr` (preflight, publish, what a sealed run's `--pr` did).
//!
//! # Verdicts out
//! [`review`] posts a `loki seal check` verdict on the pull or merge request a CI job runs for:
//! one comment updated on every push, and a check run or commit status.
//!
//! # Never
//! Talk to a host the user did not configure or name, or send a token to a host other than its
//! tracker's.

mod adf;
pub mod after;
pub mod backlog;
pub mod batch;
mod error;
mod fetch;
pub mod pr;
pub mod refs;
pub mod review;

pub use error::IntakeError;
pub use fetch::{Endpoints, fetch};
pub use refs::{Hosts, IssueRef, Source, parse};

use serde::{Deserialize, Serialize};

/// The most of an issue's text (body and comments) kept: beyond, it is cut with a note.
pub const MAX_TEXT_BYTES: usize = 256 * 1024;
/// The largest response body read from a tracker.
pub const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// One comment of an issue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comment {
    pub author: String,
    pub body: String,
}

/// An issue, normalised: `issue.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Issue {
    /// `github`, `gitlab`, `jira`, `linear`.
    pub source: String,
    /// The canonical reference (`github:owner/repo#12`).
    #[serde(rename = "ref")]
    pub reference: String,
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
    pub url: String,
    pub author: String,
    pub comments: Vec<Comment>,
}

impl Issue {
    /// The task a build run is given: the issue's title, body and comments, marked as the
    /// issue's words (data to act on).
    #[must_use]
    pub fn task_text(&self) -> String {
        let mut s = format!(
            "Resolve {} ({}): {}\n\n{}\n",
            self.reference,
            self.url,
            self.title.trim(),
            self.body.trim()
        );
        if !self.labels.is_empty() {
            s.push_str(&format!("\nLabels: {}\n", self.labels.join(", ")));
        }
        for c in &self.comments {
            s.push_str(&format!("\nComment by {}:\n{}\n", c.author, c.body.trim()));
        }
        cap(s)
    }
}

/// Cuts `s` to [`MAX_TEXT_BYTES`] on a character boundary, saying so.
pub(crate) fn cap(mut s: String) -> String {
    if s.len() <= MAX_TEXT_BYTES {
        return s;
    }
    let mut end = MAX_TEXT_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let dropped = s.len() - end;
    s.truncate(end);
    s.push_str(&format!(
        "\n[… {dropped} more bytes of the issue were cut]\n"
    ));
    s
}
