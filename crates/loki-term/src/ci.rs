//! `loki ci judge|post`: what they print besides the comment, labelled in 12 columns.
//!
//! - **judge**: the suites' lines and the check's text as `loki seal check` prints them, then
//!   `Check:` (the conclusion under the gate) and `Report:` (where `report.json` is).
//! - **post**: `Verdict:`, `Check:` and, when one was posted, `Comment:` (created or updated, and
//!   its address); on stderr, the note of a request from a fork, which gets no comment.

use std::fmt::Write as _;
use std::path::Path;

use loki_intake::review::{Conclusion, FailOn, Posted, Request};
use loki_protocol::outcome::Verdict;
use loki_seal::CheckReport;

/// What `loki ci judge` prints: the check as `loki seal check` does, then [`judged_lines`].
#[must_use]
pub fn judged(report: &CheckReport, gate: &FailOn, out: &Path) -> String {
    let mut text = crate::checks::results(&report.judged.head);
    text.push_str(&crate::seal::check(report));
    text.push_str(&judged_lines(gate, report.verdict(), out));
    text
}

/// The note of `loki ci post` on a request from a fork (no trailing newline).
#[must_use]
pub fn from_fork(request: &Request) -> String {
    format!(
        "loki ci post: {} comes from a fork, whose jobs get a read-only token: no comment or check run; the verdict is in the job summary and the job's status",
        request.reference()
    )
}

/// What `loki ci judge` prints after the check's text: the check's conclusion and where the
/// report is.
#[must_use]
pub fn judged_lines(gate: &FailOn, verdict: Verdict, out: &Path) -> String {
    format!(
        "{:<12}{} (fail-on: {gate})\n{:<12}{}\n",
        "Check:",
        gate.conclusion(verdict).github(),
        "Report:",
        out.join("report.json").display()
    )
}

/// What `loki ci post` prints: the verdict, the check's conclusion and the comment posted.
#[must_use]
pub fn posted_lines(
    verdict: Verdict,
    conclusion: Conclusion,
    gate: &FailOn,
    posted: Option<&Posted>,
) -> String {
    let mut out = format!(
        "{:<12}{verdict}\n{:<12}{} (fail-on: {gate})\n",
        "Verdict:",
        "Check:",
        conclusion.github()
    );
    if let Some(p) = posted {
        let did = if p.comment_created {
            "created"
        } else {
            "updated"
        };
        let _ = writeln!(
            out,
            "{:<12}{did} {}",
            "Comment:",
            p.comment_url.as_deref().unwrap_or("(no address given)")
        );
    }
    out
}
