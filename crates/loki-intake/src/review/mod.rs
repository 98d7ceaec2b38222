//! Verdicts out: a pull or merge request judged in CI gets one comment, updated on every push,
//! and a check (GitHub check run, GitLab commit status), from a `loki seal check --json`
//! report.
//!
//! # Flow (`loki ci judge`, then `loki ci post`)
//! - [`context`] reads the request from the CI's environment (GitHub Actions' event file,
//!   GitLab CI's `CI_*` variables): the forge and project, the number, the head commit, the
//!   target branch, the links, whether it comes from a fork.
//! - [`gate`] turns the verdict into the check's conclusion by the `--fail-on` list (default:
//!   findings fail; DECLARE and CANNOT JUDGE are neutral).
//! - [`comment`] renders the report in Markdown behind a hidden marker (its module doc has the
//!   shape and the bounds).
//! - [`post`] finds the marked comment and updates it, or creates it, then sets the check.
//! - [`judge`] judges the checkout (`loki ci judge` apart from printing) and reads a report
//!   back for `post` and `comment`.
//! - [`out`] writes what `judge` leaves in its output directory and what `post` tells the
//!   runner, and words the lines both print.
//!
//! # Never
//! Run the change's code while holding the forge token: `loki ci judge` (which runs the suites)
//! needs no token, and `loki ci post` (which holds it) runs nothing but HTTP. A token is sent to
//! its forge's configured API only.

pub mod comment;
pub mod context;
pub mod gate;
pub mod judge;
pub mod out;
pub mod post;

pub use comment::{Rendered, marker, render};
pub use context::{Ci, Request, fork_point};
pub use gate::{Conclusion, DEFAULT_FAIL_ON, FailOn};
pub use judge::JudgeError;
pub use out::{OutError, gated};
pub use post::{Posted, post};
