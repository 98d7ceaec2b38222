//! The council stage: between commit and seal, the review council ([`loki_council`]) reads the
//! committed change (`base..head`, `git diff-tree -p -U0`, so the wall and `.loki/` are not in
//! it) and the last verification's checks, and its answers become the receipt's assessments.
//!
//! # When it is held
//! `BuildOptions::council` reviewers (0: never), with the run's own provider (the built-in loop;
//! a CLI agent cannot answer a review session), when the provider can ([`loki_agent::Provider::
//! council_unavailable`]: a script without a `council` section cannot), and only for a run that
//! committed a change its checks judged, and whose work was not ended by a failed model call,
//! SIGINT, a spec conflict or ALREADY_SATISFIED. Otherwise no stage is recorded: a council that
//! was not asked for is not a gap in the proof. With a CLI-agent backend a council was asked for
//! (the default) and cannot be held: NOT PROVEN says so, naming the client. A cap reached before the council is: NOT
//! PROVEN says the council was not held.
//!
//! # Money and time
//! Each reviewer is a session of the run ([`crate::session::SessionReport`]), so its tokens and
//! dollars count toward the run's cost and caps like any other. The council gets what the run
//! has left under its soft cap; when a cap is reached the remaining reviewers are skipped, NOT
//! PROVEN names them, and the run records `cap.hit` at stage `council`.

use loki_agent::Backend;
use loki_council::{Budget, Input, Sink};
use loki_protocol::{CapKind, Stage};
use loki_receipt::schema::{Check, IntegrityFinding};

use crate::EngineError;
use crate::run::{Products, Run, Step};
use crate::session::SessionReport;
use crate::verify::Verification;

/// The stage's name in events and the summary's Time line.
pub(crate) const STAGE: Stage = Stage::Council;

/// Why the council was not held, and whether the receipt says so.
pub(crate) struct NotHeld {
    pub why: String,
    /// A council was asked for and the change is one it would have read: NOT PROVEN says it was
    /// not held (a CLI-agent backend). Otherwise only `--verbose` tells.
    pub said: bool,
}

impl NotHeld {
    fn quiet(why: impl Into<String>) -> Self {
        Self {
            why: why.into(),
            said: false,
        }
    }
}

/// Whether the council is held for this run: `Ok(())`, or why not.
pub(crate) fn applies(s: &Run<'_>, p: &Products) -> Result<(), NotHeld> {
    if s.opts.council == 0 {
        return Err(NotHeld::quiet("council: off (council.reviewers = 0)"));
    }
    if s.provider_failure.is_some() || s.interrupted || s.spec_conflict || p.gate.already_satisfied
    {
        return Err(NotHeld::quiet(
            "council: not held: the run's work ended early",
        ));
    }
    if p.head.is_none() || p.verification.is_none() {
        return Err(NotHeld::quiet(
            "council: not held: no verified change was committed",
        ));
    }
    let provider = match &s.opts.backend {
        Backend::Loop(provider) => provider,
        Backend::Cli(agent) => {
            return Err(NotHeld {
                why: format!(
                    "review council: not held ({} reviewers asked): the {} CLI agent runs tasks, \
                     not answer-only review sessions; run with an API provider (anthropic, \
                     openai) for a council, or set council.reviewers = 0",
                    s.opts.council,
                    agent.kind.name()
                ),
                said: true,
            });
        }
    };
    if let Some(why) = provider.council_unavailable() {
        return Err(NotHeld::quiet(format!("council: not held: {why}")));
    }
    Ok(())
}

/// The council stage (see the module doc) on `p`'s committed change and last verification: the
/// council, when it was held.
pub(crate) fn stage(
    s: &mut Run<'_>,
    p: &Products,
) -> Result<(Step, Option<loki_council::Council>), EngineError> {
    let (Some(head), Some(v)) = (p.head.clone(), p.verification.as_ref()) else {
        return Ok((Step::Skipped("no committed change".into()), None));
    };
    let git = loki_git::Git::new(&s.repo.root);
    let diff = String::from_utf8_lossy(&git.diff_patch_zero_context(&s.base, &head)?).into_owned();
    let checks = checks_json(v);
    let reviewers = loki_council::choose(&diff, s.opts.council);
    if s.budget_hit {
        s.notes.push(format!(
            "council: not held ({} reviewers): the run's cap was reached before it",
            reviewers.len()
        ));
        return Ok((Step::Skipped("the run's cap was reached".into()), None));
    }
    let Backend::Loop(provider) = &s.opts.backend else {
        return Ok((Step::Skipped("a CLI agent".into()), None));
    };
    let budget = budget_left(s);
    let cancel = s.opts.cancel.clone();
    let interrupted = move || cancel.is_cancelled();
    let mut sink = Sink {
        log: &mut s.log,
        transcript: s.run_dir.join(loki_agent::transcript::TRANSCRIPT_FILE),
        prices: &s.opts.prices,
        interrupted: &interrupted,
    };
    let input = Input {
        task: &s.opts.task.text,
        diff: &diff,
        checks: &checks,
    };
    let council = match loki_council::hold(provider.as_ref(), &reviewers, &input, budget, &mut sink)
    {
        Ok(c) => c,
        Err(loki_council::CouncilError::Events(e)) => return Err(e.into()),
    };
    if s.opts.cancel.is_cancelled() {
        // The skipped reviewers are in NOT PROVEN; the run ends as interrupted (exit 130).
        s.interrupted = true;
    }
    record_reviews(s, &council)?;
    let detail = council.lines().join(", ");
    Ok((Step::Done(detail), Some(council)))
}

/// What the council reads of the last verification: its checks as the receipt states them,
/// the integrity findings and NOT PROVEN, as JSON.
fn checks_json(v: &Verification) -> String {
    let checks: Vec<Check> = v
        .results
        .iter()
        .map(|r| r.result.receipt_check(r.role))
        .chain(v.lint.iter().map(Check::from))
        .collect();
    let findings: Vec<IntegrityFinding> = v.findings.iter().map(IntegrityFinding::from).collect();
    serde_json::to_string_pretty(&serde_json::json!({
        "checks": checks,
        "integrity": findings,
        "not_proven": v.not_proven,
    }))
    .unwrap_or_default()
}

/// What the run has left under its caps, for the council.
fn budget_left(s: &Run<'_>) -> Budget {
    Budget {
        cost_left_usd: s.opts.max_cost_usd.map(|m| (m - s.cost_so_far()).max(0.0)),
        tokens_left: s
            .opts
            .max_tokens
            .map(|m| m.saturating_sub(s.tokens_so_far())),
        time_left: s.time_left(),
    }
}

/// Each reviewer as a session of the run, the council's NOT PROVEN in the run's notes, and the
/// cap it reached as the run's `cap.hit`.
fn record_reviews(s: &mut Run<'_>, council: &loki_council::Council) -> Result<(), EngineError> {
    for r in &council.reviews {
        let error = match &r.end {
            loki_council::ReviewEnd::NoAnswer(why) => Some(why.clone()),
            loki_council::ReviewEnd::Answered(_) => None,
        };
        s.sessions.push(SessionReport {
            label: r.label(),
            end: if error.is_some() {
                "no_answer"
            } else {
                "answered"
            }
            .into(),
            finish: None,
            detail: String::new(),
            usage: r.usage,
            cost_usd: r.cost_usd,
            error,
            failure: None,
            budget_hit: false,
            interrupted: false,
            model_seconds: r.seconds,
            model: r.model.clone(),
            egress_refused: Vec::new(),
        });
    }
    s.notes.extend(council.not_proven());
    if let Some(cap) = council.cap {
        let which = match cap {
            loki_council::Cap::Cost => CapKind::Cost,
            loki_council::Cap::Tokens => CapKind::Tokens,
            loki_council::Cap::Time => CapKind::Time,
        };
        s.hit_cap(which, STAGE.into())?;
    }
    Ok(())
}
