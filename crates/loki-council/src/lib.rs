//! The review council of a build run: N reviewers, chosen by what the change touches, read the
//! diff and the checks and answer with structured findings. Their answers are **assessments**:
//! judgment, not proof. They can lower the verdict, never raise it.
//!
//! # Flow ([`hold`])
//! 1. [`roles::choose`] picks the reviewers from the diff (deterministic; each carries `why`).
//! 2. Each reviewer is one model session, labelled `council:<role>`: a system prompt naming its
//!    focus and the answer format ([`answer`]), and one user message with the task, the checks
//!    (the judge's results, findings and NOT PROVEN, as JSON) and the diff (clipped at
//!    [`MAX_DIFF_BYTES`], and said so). No tools: the reviewer reads, it does not run anything.
//! 3. A malformed answer is shown its fault and asked once more ([`MAX_ATTEMPTS`]); a second
//!    malformed answer, or a failed model call, leaves that reviewer out: it is listed in NOT
//!    PROVEN (`reviewer council:<role> could not answer: …`) and lowers nothing.
//! 4. Before each reviewer the run's budget is checked ([`Budget`]: money, tokens and time left
//!    when the council began, minus what earlier reviewers spent, and the caller's interrupt).
//!    Once any is spent, the remaining reviewers are skipped, NOT PROVEN names them and why, and
//!    [`Council::cap`] tells the caller which cap was reached.
//!
//! # What it records
//! - events, through the run's [`RunRecorder`]: `session.started`, `cost` and `session.ended`
//!   per reviewer (label `council:<role>`; `end` is `pass`, `block` or `no_answer`), so a
//!   reviewer's tokens and dollars are in the log like any session's;
//! - every model exchange in `transcript.jsonl` (`exchange` records, session `council:<role>`);
//! - [`Council::assessments`]: one per answering reviewer, `by` = `council:<role>`, the summary
//!   naming the verdict, every finding (`file:line title`, blocking and advisory) and why the
//!   reviewer was chosen; `lowers_to` PARTIAL when it has a blocking finding. The receipt's
//!   builder applies them, so a VERIFIED run becomes PARTIAL and a FAILED one stays FAILED.
//!
//! # Never
//! Raise a verdict, treat silence or a malformed answer as a pass, run a tool, or print.

pub mod answer;
pub mod roles;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_agent::{Message, PriceTable, Provider, Request, Transcript};
use loki_clients::Usage;
use loki_events::RunRecorder;
use loki_events::payload::{Cost, SessionEnded, SessionStarted};
use loki_protocol::outcome::Outcome;
use loki_receipt::schema::Assessment;
use serde_json::json;

pub use answer::{Answer, AnswerError, Finding, Severity, Verdict};
pub use roles::{Reviewer, Role, choose};

/// The council's size unless configured (`council.reviewers`): three different readings of a
/// change catch more than one, and cost a fraction of the implementing session.
pub const DEFAULT_REVIEWERS: usize = 3;
/// A reviewer answers a malformed reply once more, then it is left out.
pub const MAX_ATTEMPTS: usize = 2;
/// The diff a reviewer reads is clipped here (bytes): beyond it a model's attention and the
/// run's money go to waste; the clip is said in the prompt.
pub const MAX_DIFF_BYTES: usize = 120_000;
/// The answer is a short JSON object; this bounds a rambling reviewer.
pub const MAX_OUTPUT_TOKENS: u32 = 4096;
/// The session label prefix of a reviewer (the scripted provider's `council` section answers it).
pub const LABEL_PREFIX: &str = "council:";

/// Why the council could not run: the run's event log could not be written.
#[derive(Debug, thiserror::Error)]
pub enum CouncilError {
    #[error("the review council could not record its events: {0}")]
    Events(#[from] loki_events::EventError),
}

/// What the council reads.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub task: &'a str,
    /// The change as a unified diff (`git diff-tree -p`).
    pub diff: &'a str,
    /// The checks as the judge left them (JSON text: results, findings, NOT PROVEN).
    pub checks: &'a str,
}

/// What the run has left when the council begins.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub cost_left_usd: Option<f64>,
    pub tokens_left: Option<u64>,
    pub time_left: Duration,
}

/// A cap the council reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cap {
    Cost,
    Tokens,
    Time,
}

impl Cap {
    /// The cap's name as the engine's `cap.hit` knows it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Cap::Cost => "cost",
            Cap::Tokens => "tokens",
            Cap::Time => "time",
        }
    }
}

/// How one reviewer ended.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewEnd {
    Answered(Answer),
    /// The reason it could not answer.
    NoAnswer(String),
}

/// Why a reviewer has no answer, and whether the model itself failed (a key, a URL, a server:
/// the next reviewer would fail the same way, so the rest are skipped).
struct NoAnswer {
    why: String,
    model_failed: bool,
}

impl From<String> for NoAnswer {
    fn from(why: String) -> Self {
        NoAnswer {
            why,
            model_failed: false,
        }
    }
}

/// One reviewer's session.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub reviewer: Reviewer,
    pub end: ReviewEnd,
    pub usage: Usage,
    /// `None`: not measured (an unpriced model).
    pub cost_usd: Option<f64>,
    pub model: String,
    pub seconds: f64,
}

impl Review {
    /// `council:<role>`.
    #[must_use]
    pub fn label(&self) -> String {
        format!("{LABEL_PREFIX}{}", self.reviewer.role)
    }
}

/// The council's whole result.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Council {
    pub reviews: Vec<Review>,
    /// Reviewers not run, and why.
    pub skipped: Vec<Reviewer>,
    pub skip_reason: Option<String>,
    /// The cap that stopped the council, if one did.
    pub cap: Option<Cap>,
}

impl Council {
    /// One assessment per reviewer that answered (see the crate doc).
    #[must_use]
    pub fn assessments(&self) -> Vec<Assessment> {
        self.reviews
            .iter()
            .filter_map(|r| {
                let ReviewEnd::Answered(a) = &r.end else {
                    return None;
                };
                let mut summary = a.verdict.as_str().to_string();
                let blocking: Vec<String> = a.blocking().map(Finding::name).collect();
                let advisory: Vec<String> = a.advisory().map(Finding::name).collect();
                if !blocking.is_empty() {
                    summary.push_str(&format!("; blocking: {}", blocking.join("; ")));
                }
                if !advisory.is_empty() {
                    summary.push_str(&format!("; advisory: {}", advisory.join("; ")));
                }
                summary.push_str(&format!(" (chosen: {})", r.reviewer.why));
                Some(Assessment {
                    by: r.label(),
                    model: (!r.model.is_empty()).then(|| r.model.clone()),
                    summary,
                    lowers_to: (!blocking.is_empty()).then_some(Outcome::Partial),
                })
            })
            .collect()
    }

    /// The council's own NOT PROVEN entries: reviewers that could not answer or were skipped.
    /// (A blocking finding is named by the receipt itself, from the lowering assessment.)
    #[must_use]
    pub fn not_proven(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .reviews
            .iter()
            .filter_map(|r| match &r.end {
                ReviewEnd::NoAnswer(why) => {
                    Some(format!("reviewer {} could not answer: {why}", r.label()))
                }
                ReviewEnd::Answered(_) => None,
            })
            .collect();
        if !self.skipped.is_empty() {
            let names: Vec<String> = self
                .skipped
                .iter()
                .map(|r| format!("{LABEL_PREFIX}{}", r.role))
                .collect();
            out.push(format!(
                "council: reviewer{} {} skipped: {}",
                if names.len() == 1 { "" } else { "s" },
                names.join(", "),
                self.skip_reason.as_deref().unwrap_or("not run")
            ));
        }
        out
    }

    /// The summary's words, one per reviewer: `security pass`, `tests block (src/a.rs:3 title)`,
    /// `api no answer`, `performance skipped`.
    #[must_use]
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .reviews
            .iter()
            .map(|r| match &r.end {
                ReviewEnd::Answered(a) => {
                    let blocking: Vec<String> = a.blocking().map(Finding::name).collect();
                    let advisory = a.advisory().count();
                    let mut s = format!("{} {}", r.reviewer.role, a.verdict.as_str());
                    if !blocking.is_empty() {
                        s.push_str(&format!(" ({})", blocking.join("; ")));
                    }
                    if advisory > 0 {
                        s.push_str(&format!(" [{advisory} advisory]"));
                    }
                    s
                }
                ReviewEnd::NoAnswer(_) => format!("{} no answer", r.reviewer.role),
            })
            .collect();
        out.extend(self.skipped.iter().map(|r| format!("{} skipped", r.role)));
        out
    }
}

/// Where a reviewer's exchanges go.
pub struct Sink<'a> {
    pub log: &'a mut RunRecorder,
    /// `transcript.jsonl` of the run.
    pub transcript: PathBuf,
    pub prices: &'a PriceTable,
    /// Whether the run was interrupted (SIGINT): checked before each reviewer.
    pub interrupted: &'a dyn Fn() -> bool,
}

impl std::fmt::Debug for Sink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("transcript", &self.transcript)
            .finish_non_exhaustive()
    }
}

/// Holds the council of `reviewers` over `input` with `provider` (see the crate doc).
pub fn hold(
    provider: &dyn Provider,
    reviewers: &[Reviewer],
    input: &Input<'_>,
    budget: Budget,
    sink: &mut Sink<'_>,
) -> Result<Council, CouncilError> {
    let started = Instant::now();
    let mut council = Council::default();
    let (mut spent_usd, mut spent_tokens) = (0.0_f64, 0_u64);
    for (i, reviewer) in reviewers.iter().enumerate() {
        let time_left = budget.time_left.saturating_sub(started.elapsed());
        let reached = if (sink.interrupted)() {
            Some((
                None,
                "the run was interrupted (Ctrl-C or SIGTERM)".to_string(),
            ))
        } else if let Some(max) = budget.cost_left_usd
            && spent_usd >= max
        {
            Some((
                Some(Cap::Cost),
                "the run's cost budget was reached".to_string(),
            ))
        } else if let Some(max) = budget.tokens_left
            && spent_tokens >= max
        {
            Some((
                Some(Cap::Tokens),
                "the run's token cap was reached".to_string(),
            ))
        } else if time_left.is_zero() {
            Some((
                Some(Cap::Time),
                "the run's time cap was reached".to_string(),
            ))
        } else {
            None
        };
        if let Some((cap, why)) = reached {
            council.cap = cap;
            council.skip_reason = Some(why);
            council.skipped = reviewers[i..].to_vec();
            break;
        }
        let (review, model_failed) = review(provider, reviewer, input, time_left, sink)?;
        spent_usd += review.cost_usd.unwrap_or(0.0);
        spent_tokens += review.usage.total();
        council.reviews.push(review);
        if model_failed && i + 1 < reviewers.len() {
            council.skip_reason = Some(format!(
                "the model failed for {LABEL_PREFIX}{} and would fail them the same way",
                reviewer.role
            ));
            council.skipped = reviewers[i + 1..].to_vec();
            break;
        }
    }
    Ok(council)
}

/// One reviewer's session, recorded; and whether the model itself failed.
fn review(
    provider: &dyn Provider,
    reviewer: &Reviewer,
    input: &Input<'_>,
    time_left: Duration,
    sink: &mut Sink<'_>,
) -> Result<(Review, bool), CouncilError> {
    let label = format!("{LABEL_PREFIX}{}", reviewer.role);
    sink.log.append(&SessionStarted {
        session: Some(label.clone()),
        time_left_s: Some(time_left.as_secs()),
        provider: Some(provider.name().to_string()),
        model: Some(provider.model().to_string()),
    })?;
    let started = Instant::now();
    let transcript = Transcript::new(Some(sink.transcript.clone()));
    let mut r = Review {
        reviewer: reviewer.clone(),
        end: ReviewEnd::NoAnswer("it was not asked".into()),
        usage: Usage::default(),
        cost_usd: Some(0.0),
        model: provider.model().to_string(),
        seconds: 0.0,
    };
    let mut model_failed = false;
    r.end = match converse(
        provider,
        reviewer,
        input,
        time_left,
        &transcript,
        sink.prices,
        &label,
        &mut r,
    ) {
        Ok(a) => ReviewEnd::Answered(a),
        Err(e) => {
            model_failed = e.model_failed;
            ReviewEnd::NoAnswer(e.why)
        }
    };
    r.seconds = started.elapsed().as_secs_f64();
    sink.log.append(&Cost {
        session: Some(label.clone()),
        usd: r.cost_usd,
        input_tokens: r.usage.input_tokens,
        output_tokens: r.usage.output_tokens,
        cache_read_tokens: r.usage.cache_read_tokens,
        cache_write_tokens: r.usage.cache_write_tokens,
        attempts: None,
    })?;
    let (end, error) = match &r.end {
        ReviewEnd::Answered(a) => (a.verdict.as_str().to_string(), None),
        ReviewEnd::NoAnswer(why) => ("no_answer".to_string(), Some(why.clone())),
    };
    sink.log.append(&SessionEnded {
        session: Some(label),
        end: Some(end),
        finish: None,
        error,
        failure: None,
        seconds: Some(r.seconds),
        turns: None,
    })?;
    Ok((r, model_failed))
}

/// The conversation: ask, validate, ask once more on a malformed answer. Usage and cost are
/// added to `r` as they come; `Err` is why there is no answer.
#[expect(
    clippy::too_many_arguments,
    reason = "one reviewer's whole setting, each distinct"
)]
fn converse(
    provider: &dyn Provider,
    reviewer: &Reviewer,
    input: &Input<'_>,
    time_left: Duration,
    transcript: &Transcript,
    prices: &PriceTable,
    label: &str,
    r: &mut Review,
) -> Result<Answer, NoAnswer> {
    provider
        .begin_session(Some(label))
        .map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let mut req = Request {
        system: prompt::system(reviewer.role),
        messages: vec![Message::User {
            text: prompt::brief(reviewer, input),
        }],
        tools: Vec::new(),
        max_output_tokens: MAX_OUTPUT_TOKENS,
    };
    let deadline = Instant::now() + time_left;
    let mut last_fault = String::new();
    for attempt in 1..=MAX_ATTEMPTS {
        let left = deadline.saturating_duration_since(Instant::now());
        let call_started = Instant::now();
        let resp = rt
            .block_on(async { tokio::time::timeout(left, provider.complete(&req)).await })
            .map_err(|_| format!("no reply within the run's time left ({}s)", left.as_secs()))?
            .map_err(|e| NoAnswer {
                model_failed: e.provider_failure().is_some(),
                why: e
                    .provider_failure()
                    .map_or_else(|| e.to_string(), loki_agent::ProviderFailure::reason),
            })?;
        r.usage.add(&resp.usage);
        r.model.clone_from(&resp.model);
        let cost = prices.cost(&resp.model, &resp.usage);
        r.cost_usd = r.cost_usd.zip(cost).map(|(a, b)| a + b);
        transcript
            .record(
                json!({"type": "exchange", "session": label, "turn": attempt,
            "provider": provider.name(), "model": resp.model,
            "request": {"messages": req.messages.len(), "tools": []},
            "response": resp, "usage": resp.usage, "cost_usd": cost,
            "price_table": prices.version,
            "duration_ms": u64::try_from(call_started.elapsed().as_millis()).unwrap_or(u64::MAX)}),
            )
            .map_err(|e| format!("cannot record the exchange: {e}"))?;
        let text = resp.text.clone().unwrap_or_default();
        match answer::parse(&text) {
            Ok(a) => return Ok(a),
            Err(fault) => {
                req.messages.push(resp.to_message());
                req.messages.push(Message::User {
                    text: prompt::retry(&fault.to_string()),
                });
                last_fault = fault.to_string();
            }
        }
    }
    Err(format!("its answer was malformed {MAX_ATTEMPTS} times ({last_fault})").into())
}

mod prompt;
