//! NOT PROVEN entries: what a run did not prove, why, and the command that would prove it.
//!
//! # Format (`not_proven[]` of `loki.receipt/1`)
//!
//! ```text
//! {"what": "app boot", "why": "a build runs the tests; it never starts the app",
//!  "prove": "loki deep run_20261129_151736_beef"}
//! ```
//!
//! `what` names the gap, `why` says why this run could not prove it, `prove` is the command a
//! person runs to prove it (or to learn why it fails). Receipts sealed before entries carried a
//! reason hold a bare string (`"app boot"`): it still reads, as an entry with an empty `why` and
//! `prove` ([`NotProven::is_bare`]), and writes back as the same bare string, so the hash of an
//! old receipt is unchanged by reading and writing it.
//!
//! # Invariants
//!
//! Every entry is listed once (the same `what`, `why` and `prove` noted twice, by two sessions,
//! is one entry, where it came first). Every entry a producer makes comes from
//! [`NotProven::new`]; sealing refuses an entry whose `why` or `prove` is empty ([`crate::ReceiptBuilder::build`]), so no receipt loki seals lists a
//! gap without its reason and its command.

use std::fmt;

use loki_protocol::CheckStatus;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::builder::{FULL_SUITE, ReceiptFacts, always_not_proven, requires_wall};

/// One thing a run did not prove.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NotProven {
    what: String,
    why: String,
    prove: String,
}

impl NotProven {
    /// `what` was not proven because `why`; `prove` is the command that would prove it.
    #[must_use]
    pub fn new(
        what: impl Into<String>,
        why: impl Into<String>,
        prove: impl Into<String>,
    ) -> NotProven {
        NotProven {
            what: what.into(),
            why: why.into(),
            prove: prove.into(),
        }
    }

    /// What was not proven.
    #[must_use]
    pub fn what(&self) -> &str {
        &self.what
    }

    /// Why this run could not prove it (empty only in a receipt sealed before entries had one).
    #[must_use]
    pub fn why(&self) -> &str {
        &self.why
    }

    /// The command that would prove it (empty only in a receipt sealed before entries had one).
    #[must_use]
    pub fn prove(&self) -> &str {
        &self.prove
    }

    /// An entry read from a receipt sealed before entries carried a reason and a command.
    #[must_use]
    pub fn is_bare(&self) -> bool {
        self.why.is_empty() && self.prove.is_empty()
    }

    /// True when the entry says why and how to prove it (what sealing requires).
    #[must_use]
    pub fn is_complete(&self) -> bool {
        !self.what.trim().is_empty() && !self.why.trim().is_empty() && !self.prove.trim().is_empty()
    }
}

/// `what: why (prove: command)`, or `what` alone for a bare entry of an old receipt.
impl fmt::Display for NotProven {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_bare() {
            return f.write_str(&self.what);
        }
        write!(f, "{}: {} (prove: {})", self.what, self.why, self.prove)
    }
}

/// The two shapes on the wire: an object, or a bare string (old receipts).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Wire {
    Entry {
        what: String,
        why: String,
        prove: String,
    },
    Bare(String),
}

impl Serialize for NotProven {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.is_bare() {
            Wire::Bare(self.what.clone()).serialize(s)
        } else {
            Wire::Entry {
                what: self.what.clone(),
                why: self.why.clone(),
                prove: self.prove.clone(),
            }
            .serialize(s)
        }
    }
}

impl<'de> Deserialize<'de> for NotProven {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NotProven, D::Error> {
        Ok(match Wire::deserialize(d)? {
            Wire::Entry { what, why, prove } => NotProven { what, why, prove },
            Wire::Bare(what) => NotProven {
                what,
                why: String::new(),
                prove: String::new(),
            },
        })
    }
}

/// `loki deep <run>`: the full suite, the app boot and a secret scan of a build run's change.
#[must_use]
pub fn deep(run_id: &str) -> String {
    format!("loki deep {run_id}")
}

/// `loki logs <run>`: the run's own record of what happened.
#[must_use]
pub fn logs(run_id: &str) -> String {
    format!("loki logs {run_id}")
}

/// The summary's NOT PROVEN block: `label` padded to `width`, then one entry a line (`what: why
/// (prove: command)`), continuation lines indented to `width`. `nothing` when the list is empty.
#[must_use]
pub fn summary_lines(label: &str, width: usize, entries: &[NotProven]) -> String {
    let mut out = String::new();
    if entries.is_empty() {
        out.push_str(&format!("{label:<width$}nothing\n"));
    }
    for (i, n) in entries.iter().enumerate() {
        let head = if i == 0 { label } else { "" };
        out.push_str(&format!("{head:<width$}{n}\n"));
    }
    out
}

/// A note of the judge (`loki_checks::judge`): its own words say what was not settled and
/// why; judging again against `base` is how to settle it.
#[must_use]
pub fn judge_note(note: impl Into<String>, base: &str) -> NotProven {
    NotProven::new(
        note,
        "the judge's runs of the suite on the base and on the change could not settle it",
        format!("loki seal check --base {base}"),
    )
}

/// A suite the judge could not judge (`reason`), and what to do about it (`fix`).
#[must_use]
pub fn cannot_judge(check: &str, reason: &str, fix: &str, base: &str) -> NotProven {
    NotProven::new(
        format!("cannot judge {check}"),
        format!("{reason}; {fix}"),
        format!("loki seal check --base {base}"),
    )
}

/// Why, and the command, for an entry every receipt of `kind` carries (`what` is one of
/// [`crate::builder::always_not_proven`]).
#[must_use]
pub fn always(kind: loki_core::run::RunKind, what: &str, run_id: &str) -> NotProven {
    use loki_core::run::RunKind;
    let (why, prove) = match (kind, what) {
        (RunKind::Build | RunKind::Quick, "app boot") => (
            "a build run changes code and runs its tests; it never starts the app",
            deep(run_id),
        ),
        (RunKind::Build | RunKind::Quick, _) => (
            "a build run runs no security scanner; deep verify scans the change for secrets",
            deep(run_id),
        ),
        (RunKind::Seal, "app boot") => (
            "the seal hook re-runs the test suite; it never starts the app",
            "loki run -- <the app's start command>".to_string(),
        ),
        (RunKind::Seal, "security scan") => (
            "the seal hook runs no security scanner; a build run of the change with deep verify scans it for secrets",
            "loki \"<the task>\" --deep".to_string(),
        ),
        (RunKind::Seal, _) => (
            "the seal hook proves only what the suite's tests check: add a test that covers the behaviour",
            "loki seal check".to_string(),
        ),
        (RunKind::Heal | RunKind::Incident, "security scan") => (
            "loki fix replays the crash; it runs no security scanner (a build run with deep verify scans a change for secrets)",
            "loki \"<the fix as a task>\" --deep".to_string(),
        ),
        (RunKind::Heal | RunKind::Incident, _) => (
            "loki fix replays only the recorded reproduction; another input that crashes is recorded as an incident",
            "loki run -- <the command with another input>".to_string(),
        ),
        (RunKind::Deep, _) => (
            "deep verify scans only the change, for secrets: no dependency or code scan ran",
            "cargo audit, npm audit, pip-audit or govulncheck ./... at the run's head".to_string(),
        ),
        (RunKind::Improve | RunKind::Ask | RunKind::Checks, _) => (
            "this kind of run runs no security scanner (a build run with deep verify scans a change for secrets)",
            "loki \"<the change as a task>\" --deep".to_string(),
        ),
    };
    NotProven::new(what, why, prove)
}

/// The NOT PROVEN entries of `f` (the order and rules are in [`crate::builder`]'s doc).
pub(crate) fn of_facts(f: &ReceiptFacts) -> Vec<NotProven> {
    let run = f.run_id.as_str();
    let logs = || shows_why(f);
    let mut out = Vec::new();
    if !f.full_suite_ran {
        out.push(NotProven::new(
            FULL_SUITE,
            "only the tests the change impacts ran, not the whole suite",
            deep(run),
        ));
    }
    out.extend(
        always_not_proven(f.kind)
            .iter()
            .map(|what| always(f.kind, what, run)),
    );
    if f.diff.files == 0 && !f.flags.already_satisfied {
        out.push(NotProven::new("change", "the diff is empty", logs()));
    }
    // An interrupted run's checks and wall were dropped, not failed: its first entry says so.
    if requires_wall(f.kind) && !f.flags.interrupted {
        if f.wall.files.is_empty() {
            out.push(NotProven::new(
                "acceptance checks",
                "no wall was sealed",
                logs(),
            ));
        } else if !f.wall.passed {
            out.push(NotProven::new(
                "acceptance checks",
                "the wall did not pass",
                logs(),
            ));
        }
    }
    if f.checks.is_empty() && !f.flags.interrupted {
        out.push(NotProven::new("checks", "none ran", logs()));
    }
    checks(f, &mut out);
    out.extend(f.pre_existing_failures.iter().map(|t| {
        NotProven::new(
            format!("pre-existing failure: {t}"),
            "it fails on the base commit too, so this change is not what it tests",
            deep(run),
        )
    }));
    judged(f, &mut out);
    if f.cost.measured_sessions < f.cost.total_sessions {
        out.push(NotProven::new(
            "cost",
            format!(
                "{} of {} sessions not measured: the provider reported no usage, or loki has no price for its model",
                f.cost.total_sessions - f.cost.measured_sessions,
                f.cost.total_sessions
            ),
            "loki providers",
        ));
    }
    out.extend(f.extra_not_proven.iter().cloned());
    // Each entry once: a note several sessions make alike (the egress proxy refused the same
    // host to each) is one gap, in the place it was first noted.
    let mut seen = std::collections::HashSet::new();
    out.retain(|n| seen.insert(n.clone()));
    out
}

/// What shows why the run could not prove something: its logs; for a deep verify, deep verify
/// again.
fn shows_why(f: &ReceiptFacts) -> String {
    if f.kind == loki_core::run::RunKind::Deep {
        deep(f.run_id.as_str())
    } else {
        logs(f.run_id.as_str())
    }
}

/// Each check that did not prove its part (not passed, nothing executed, failures) and each
/// that skipped tests.
fn checks(f: &ReceiptFacts, out: &mut Vec<NotProven>) {
    let logs = || shows_why(f);
    for c in &f.checks {
        let what = format!("check {}", c.name);
        // The check's own command re-runs it; a deep verify's boot and scan are no shell command.
        let rerun = || {
            if f.kind == loki_core::run::RunKind::Deep || c.cmd.trim().is_empty() {
                logs()
            } else {
                c.cmd.clone()
            }
        };
        if c.result != CheckStatus::Pass {
            out.push(NotProven::new(&what, c.result.describe(), rerun()));
        } else if c.executed == 0 {
            out.push(NotProven::new(&what, "0 tests executed", rerun()));
        } else if c.failed > 0 {
            out.push(NotProven::new(
                &what,
                format!("{} failed", c.failed),
                rerun(),
            ));
        }
        if c.skipped > 0 {
            out.push(NotProven::new(
                &what,
                format!("{} skipped", c.skipped),
                rerun(),
            ));
        }
    }
}

/// What the judgement found: integrity findings, assessments that lowered the verdict, and
/// the contract's criteria that were not met.
fn judged(f: &ReceiptFacts, out: &mut Vec<NotProven>) {
    let logs = || shows_why(f);
    out.extend(f.integrity.iter().map(|i| {
        let why = match i.advice.as_deref().filter(|a| !a.is_empty()) {
            Some(a) if !i.detail.is_empty() => format!("{}; {a}", i.detail),
            Some(a) => a.to_string(),
            None => i.detail.clone(),
        };
        NotProven::new(
            format!("integrity: {} {}", i.kind.as_str(), i.path),
            or_why(
                why,
                "an integrity finding keeps the change from being proven",
            ),
            logs(),
        )
    }));
    out.extend(
        f.assessments
            .iter()
            .filter(|a| a.lowers_to.is_some())
            .map(|a| {
                NotProven::new(
                    format!("assessment by {}", a.by),
                    or_why(a.summary.clone(), "a reviewer lowered the verdict"),
                    logs(),
                )
            }),
    );
    if let Some(contract) = &f.contract {
        out.extend(
            contract
                .criteria
                .iter()
                .filter(|c| !c.status.is_met())
                .map(|c| {
                    NotProven::new(
                        format!(
                            "criterion {}{}: {}",
                            c.id,
                            if c.advisory { " (advisory)" } else { "" },
                            c.text
                        ),
                        c.reason.as_deref().unwrap_or("no wall test proves it"),
                        logs(),
                    )
                }),
        );
    }
}

/// An empty reason replaced by `fallback`: an entry never says nothing about why.
fn or_why(why: String, fallback: &str) -> String {
    if why.trim().is_empty() {
        fallback.to_string()
    } else {
        why
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_bare_entries_read_and_write_back_unchanged() {
        let old: NotProven = serde_json::from_str("\"app boot\"").unwrap();
        assert!(old.is_bare());
        assert!(!old.is_complete());
        assert_eq!(old.what(), "app boot");
        assert_eq!(serde_json::to_string(&old).unwrap(), "\"app boot\"");
        assert_eq!(old.to_string(), "app boot");
    }

    #[test]
    fn entries_carry_why_and_command() {
        let n = NotProven::new("app boot", "a build never starts the app", deep("run_x"));
        let v = serde_json::to_value(&n).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"what": "app boot", "why": "a build never starts the app",
                               "prove": "loki deep run_x"})
        );
        assert_eq!(serde_json::from_value::<NotProven>(v).unwrap(), n);
        assert!(n.is_complete());
        assert_eq!(
            n.to_string(),
            "app boot: a build never starts the app (prove: loki deep run_x)"
        );
    }
}
