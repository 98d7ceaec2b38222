//! The error type of `loki-intake`: each names the reference or URL and what to do.

use loki_core::exit::{Classify, ExitClass};

/// Why an issue could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IntakeError {
    #[error("{input:?} is not an issue reference: {why}")]
    BadRef { input: String, why: String },
    #[error("{var} is not set; {what} needs it (export {var}=…)")]
    Missing {
        var: &'static str,
        what: &'static str,
    },
    #[error("{reference}: authentication failed (HTTP {status} from {url}): check {var}")]
    Auth {
        reference: String,
        status: u16,
        url: String,
        var: &'static str,
    },
    #[error(
        "{reference} was not found (HTTP 404 from {url}); check the reference and that the token can read it"
    )]
    NotFound { reference: String, url: String },
    #[error(
        "{reference}: rate limited by {url}, and waiting {wait_s}s would pass the run's deadline; retry later"
    )]
    RateLimited {
        reference: String,
        url: String,
        wait_s: u64,
    },
    #[error("{reference}: {url} answered HTTP {status}: {detail}")]
    Http {
        reference: String,
        url: String,
        status: u16,
        detail: String,
    },
    #[error("{reference}: cannot reach {url}: {detail}")]
    Unreachable {
        reference: String,
        url: String,
        detail: String,
    },
    #[error("run {run}: {why}")]
    Publish { run: String, why: String },
    #[error("{var}: {why}")]
    CiContext { var: &'static str, why: String },
    #[error(
        "the checkout shares no history with {target}: nothing to judge against (name a revision with --base REV)"
    )]
    NoForkPoint { target: String },
    #[error(transparent)]
    Git(#[from] loki_git::GitError),
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error("{reference}: {url} answered something that is not {expected}: {detail}")]
    BadResponse {
        reference: String,
        url: String,
        expected: &'static str,
        detail: String,
    },
}

impl Classify for IntakeError {
    fn exit_class(&self) -> ExitClass {
        match self {
            IntakeError::BadRef { .. }
            | IntakeError::Missing { .. }
            | IntakeError::Auth { .. }
            | IntakeError::NotFound { .. }
            | IntakeError::Publish { .. }
            | IntakeError::CiContext { .. }
            | IntakeError::NoForkPoint { .. } => ExitClass::Usage,
            IntakeError::Git(e) => e.exit_class(),
            IntakeError::Core(e) => e.exit_class(),
            IntakeError::RateLimited { .. }
            | IntakeError::Http { .. }
            | IntakeError::Unreachable { .. }
            | IntakeError::BadResponse { .. } => ExitClass::Failure,
        }
    }
}
