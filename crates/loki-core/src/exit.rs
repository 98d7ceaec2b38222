//! The class of an error, and so the exit code it ends the process with: decided in one place.
//!
//! Every library error type implements [`Classify`] in its own crate, as an exhaustive match, so a
//! new variant forces a decision about its exit code. An error that wraps another error of loki
//! (a `#[from]` variant) asks the wrapped error instead of deciding again.
//!
//! The binary turns an error chain into one class with [`classify_chain`]: the outermost error of
//! the chain that a [`Probe`] recognises decides, because it knows best what was being done (an
//! anyhow context line around it adds words, not a class). A chain with no classifiable error
//! is a [`ExitClass::Failure`]. The codes are DESIGN.md's: failure 1, usage or preflight refusal 2,
//! and for `loki verify`, the verdict's own code.

use std::error::Error;

use loki_protocol::outcome::{ExitCode, VerifyVerdict};

/// What kind of problem an error is, which decides the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitClass {
    /// loki failed while doing what was asked (I/O, a tool, a bug): exit 1.
    Failure,
    /// The user's input, setup or repository state must change first (a bad flag, file, key or
    /// value, a dirty tree, a missing provider key): usage or preflight refusal, exit 2.
    Usage,
    /// A `loki verify` verdict reached as an error (an export refused for a tampered receipt):
    /// the verdict's exit code from the verify table.
    Verdict(VerifyVerdict),
}

impl ExitClass {
    /// The numeric process exit status of this class.
    #[must_use]
    pub fn code(self) -> u8 {
        match self {
            ExitClass::Failure => ExitCode::Failure.code(),
            ExitClass::Usage => ExitCode::Usage.code(),
            ExitClass::Verdict(v) => v.exit_status(),
        }
    }
}

/// An error that knows its exit class. Implement it as an exhaustive match over the variants.
pub trait Classify {
    /// The class of this error.
    fn exit_class(&self) -> ExitClass;
}

/// Recognises one error type in a chain: `Some(class)` when `err` is of that type.
pub type Probe = fn(&(dyn Error + 'static)) -> Option<ExitClass>;

/// The [`Probe`] for the error type `E`: `probe::<CoreError>`.
#[must_use]
pub fn probe<E: Classify + Error + 'static>(err: &(dyn Error + 'static)) -> Option<ExitClass> {
    err.downcast_ref::<E>().map(Classify::exit_class)
}

/// The class of an error chain (outermost first, as `anyhow::Error::chain` yields it): the first
/// error a probe recognises decides; none recognised is [`ExitClass::Failure`].
pub fn classify_chain<'a>(
    chain: impl IntoIterator<Item = &'a (dyn Error + 'static)>,
    probes: &[Probe],
) -> ExitClass {
    chain
        .into_iter()
        .find_map(|err| probes.iter().find_map(|p| p(err)))
        .unwrap_or(ExitClass::Failure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CoreError;

    #[derive(Debug, thiserror::Error)]
    #[error("wrapper")]
    struct Wrapper(#[source] CoreError);

    #[derive(Debug, thiserror::Error)]
    #[error("refused")]
    struct Refused(#[source] std::io::Error);

    impl Classify for Refused {
        fn exit_class(&self) -> ExitClass {
            ExitClass::Verdict(VerifyVerdict::Tampered)
        }
    }

    fn chain<'a>(e: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
        std::iter::successors(Some(e), |&e| e.source()).collect()
    }

    const PROBES: &[Probe] = &[probe::<CoreError>, probe::<Refused>];

    #[test]
    fn codes_follow_the_design_tables() {
        assert_eq!(ExitClass::Failure.code(), 1);
        assert_eq!(ExitClass::Usage.code(), 2);
        assert_eq!(ExitClass::Verdict(VerifyVerdict::Unsigned).code(), 3);
        assert_eq!(ExitClass::Verdict(VerifyVerdict::NotVerified).code(), 4);
    }

    #[test]
    fn an_unclassified_wrapper_lets_the_classified_cause_decide() {
        let e = Wrapper(CoreError::BadRunId { id: "x".into() });
        assert_eq!(classify_chain(chain(&e), PROBES), ExitClass::Usage);
    }

    #[test]
    fn the_outermost_classified_error_decides() {
        let e = Refused(std::io::Error::other("inner"));
        assert_eq!(
            classify_chain(chain(&e), PROBES),
            ExitClass::Verdict(VerifyVerdict::Tampered)
        );
    }

    #[test]
    fn nothing_classified_is_a_failure() {
        let e = std::io::Error::other("disk on fire");
        assert_eq!(classify_chain(chain(&e), PROBES), ExitClass::Failure);
        assert_eq!(classify_chain(chain(&e), &[]), ExitClass::Failure);
    }
}
