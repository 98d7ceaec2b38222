//! The built-in agent loop: ask the model → execute its tool calls → append the results →
//! repeat, until it calls `finish` or a limit is hit.
//!
//! - **Limits** ([`Limits`]) are checked before every model call: turns, total tokens, dollars
//!   (only when the cost is measured: an unpriced model cannot hit a dollar limit) and wall time
//!   (which also bounds a model call in flight and the timeout of every `run`).
//! - **A turn without tool calls** gets one reminder to use the tools or call `finish`; a second
//!   one in a row ends the session ([`SessionEnd::NoFinish`]).
//! - **Tool failures are results**, not errors (see [`crate::tools`]). Provider errors end the
//!   session with `Err` after the retries of the provider, with one exception: a context-length
//!   refusal elides every older tool output and asks once more.
//! - **Context**: before each call the conversation is trimmed to [`CONTEXT_BUDGET_PERCENT`] of the
//!   model's window minus the output reserve, oldest tool outputs first ([`crate::context`]).
//!   Elision edits the kept conversation, so the prefix stays stable for prompt caching.
//! - **Transcript**: every exchange, tool result, error and the end are appended to the
//!   transcript as they happen ([`crate::transcript`]).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::confine::Worktree;
use crate::context::{clip, elide_to_fit, estimate_tokens};
use crate::cost::PriceTable;
use crate::error::AgentError;
use crate::failure::FailureKind;
use loki_clients::Usage;

use crate::message::{Message, Request, Response};
use crate::provider::Provider;
use crate::tools::{self, Finish, ToolOptions};
use crate::transcript::Transcript;

/// Share of the context window the conversation may fill; the rest absorbs estimate error.
pub const CONTEXT_BUDGET_PERCENT: u64 = 80;
/// Newest tool outputs never elided: the ones the model is working from.
pub const KEEP_RECENT_TOOL_OUTPUTS: usize = 2;
/// Default output reserve per call.
pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 8192;
/// Default turn limit: enough for a read–edit–test cycle repeated a few times.
pub const DEFAULT_MAX_TURNS: u32 = 50;
/// Characters of the last message kept in a transcript's request summary.
const SUMMARY_CHARS: usize = 2000;
/// Characters of a tool result kept in the transcript.
const TRANSCRIPT_TOOL_CHARS: usize = 4000;

/// Said to a model that answered without tools.
pub const NUDGE: &str = "Continue with the tools. When the task is complete, call the `finish` tool with status done, already_done or spec_conflict.";

/// The system prompt of the built-in loop.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a careful software engineer working in a git repository. \
Use the tools to read the code, make the smallest change that does the task, and run the tests with `run`. \
Paths are relative to the repository root. Prefer `edit` (exact search/replace of a unique snippet) or `apply_patch` for changes. \
When you are done, call `finish` with status `done`; if nothing needed changing, `already_done`; \
if the task contradicts the repository's tests or specification, `spec_conflict` with the reason.";

/// When a session stops even without `finish`.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub max_turns: u32,
    /// Total tokens of every bucket over the session.
    pub max_tokens: Option<u64>,
    pub max_cost_usd: Option<f64>,
    pub max_duration: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_turns: DEFAULT_MAX_TURNS,
            max_tokens: None,
            max_cost_usd: None,
            max_duration: None,
        }
    }
}

/// One session's parameters.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub system: String,
    pub task: String,
    /// Session label (scripted providers pick their session by it; recorded in the transcript).
    pub label: Option<String>,
    pub limits: Limits,
    pub prices: PriceTable,
    pub transcript: Transcript,
    pub max_output_tokens: u32,
    pub tools: ToolOptions,
}

impl SessionConfig {
    /// A session for `task` with the default prompt, limits, prices and no transcript.
    #[must_use]
    pub fn new(task: &str) -> SessionConfig {
        SessionConfig {
            system: DEFAULT_SYSTEM_PROMPT.to_string(),
            task: task.to_string(),
            label: None,
            limits: Limits::default(),
            prices: PriceTable::builtin(),
            transcript: Transcript::default(),
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            tools: ToolOptions::default(),
        }
    }
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionEnd {
    /// The model called `finish`.
    Finished,
    TurnLimit,
    TokenLimit,
    CostLimit,
    TimeLimit,
    /// The model stopped using tools without calling `finish`.
    NoFinish,
}

/// What a session did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SessionOutcome {
    pub end: SessionEnd,
    pub finish: Option<Finish>,
    pub turns: u32,
    pub usage: Usage,
    /// `None` when any call's cost was not measured.
    pub cost_usd: Option<f64>,
    pub tool_calls: u32,
    pub tool_errors: u32,
    /// Tool outputs elided to fit the window.
    pub elided: usize,
}

impl SessionOutcome {
    /// A session before its first turn: nothing spent, its cost measured (zero) so far.
    fn start() -> SessionOutcome {
        SessionOutcome {
            end: SessionEnd::NoFinish,
            finish: None,
            turns: 0,
            usage: Usage::default(),
            cost_usd: Some(0.0),
            tool_calls: 0,
            tool_errors: 0,
            elided: 0,
        }
    }
}

/// The tokens the conversation may fill: `CONTEXT_BUDGET_PERCENT` of `model`'s window, less
/// the room kept for the reply.
fn context_budget(cfg: &SessionConfig, model: &str) -> usize {
    let window = cfg.prices.context_window(model);
    let budget =
        (window * CONTEXT_BUDGET_PERCENT / 100).saturating_sub(u64::from(cfg.max_output_tokens));
    usize::try_from(budget).unwrap_or(usize::MAX)
}

/// A running session's fixed parts: the provider, the configuration, its name in the
/// transcript, the worktree its tools act on, and when it started.
struct Running<'a> {
    provider: &'a dyn Provider,
    cfg: &'a SessionConfig,
    session: String,
    wt: Worktree,
    started: Instant,
}

impl Running<'_> {
    /// What is left of the time limit, if there is one.
    fn time_left(&self) -> Option<Duration> {
        self.cfg
            .limits
            .max_duration
            .map(|d| d.saturating_sub(self.started.elapsed()))
    }

    /// The model's reply to `conv`; `None` when the time limit ran out first.
    async fn complete(&self, conv: &Request) -> Option<Result<Response, AgentError>> {
        match self.time_left() {
            Some(left) => tokio::time::timeout(left, self.provider.complete(conv))
                .await
                .ok(),
            None => Some(self.provider.complete(conv).await),
        }
    }

    /// Ends the session on the model call's error `e` of `turn`, recorded in the transcript.
    fn fail(&self, turn: u32, e: AgentError) -> Result<SessionOutcome, AgentError> {
        self.cfg.transcript.record(
            json!({"type": "error", "session": self.session, "turn": turn,
            "error": e.to_string()}),
        )?;
        Err(e)
    }

    /// Counts the turn answered by `resp` (its usage and cost) and records the exchange.
    fn account(
        &self,
        out: &mut SessionOutcome,
        conv: &Request,
        resp: &Response,
        call_started: Instant,
    ) -> Result<(), AgentError> {
        let cfg = self.cfg;
        out.turns += 1;
        out.usage.add(&resp.usage);
        let cost = cfg.prices.cost(&resp.model, &resp.usage);
        out.cost_usd = out.cost_usd.zip(cost).map(|(a, b)| a + b);
        let last = conv
            .messages
            .last()
            .map(|m| clip(&serde_json::to_string(m).unwrap_or_default(), SUMMARY_CHARS));
        cfg.transcript.record(
            json!({"type": "exchange", "session": self.session, "turn": out.turns,
            "provider": self.provider.name(), "model": resp.model,
            "request": {"messages": conv.messages.len(), "tools": tools::TOOL_NAMES,
                        "estimated_tokens": estimate_tokens(conv), "last": last},
            "response": resp, "usage": resp.usage, "cost_usd": cost,
            "price_table": cfg.prices.version,
            "duration_ms": u64::try_from(call_started.elapsed().as_millis()).unwrap_or(u64::MAX)}),
        )
    }

    /// Runs the tool calls of `resp`, each recorded and answered in `conv`; the first `finish`
    /// is kept in `out`.
    async fn run_tools(
        &self,
        resp: &Response,
        out: &mut SessionOutcome,
        conv: &mut Request,
    ) -> Result<(), AgentError> {
        for call in &resp.tool_calls {
            let r = tools::execute(&self.wt, &self.cfg.tools, call, self.time_left()).await;
            out.tool_calls += 1;
            out.tool_errors += u32::from(r.is_error);
            self.cfg.transcript.record(
                json!({"type": "tool", "session": self.session, "turn": out.turns,
                "call_id": call.id, "name": call.name, "is_error": r.is_error,
                "bytes": r.content.len(), "content": clip(&r.content, TRANSCRIPT_TOOL_CHARS)}),
            )?;
            if r.finish.is_some() && out.finish.is_none() {
                out.finish.clone_from(&r.finish);
            }
            conv.messages.push(Message::Tool {
                call_id: call.id.clone(),
                content: r.content,
                is_error: r.is_error,
            });
        }
        Ok(())
    }
}

/// Runs one session of `provider` on `cfg.task` in `worktree`.
pub async fn run_session(
    provider: &dyn Provider,
    worktree: &Path,
    cfg: &SessionConfig,
) -> Result<SessionOutcome, AgentError> {
    let started = Instant::now();
    let wt = Worktree::new(worktree).map_err(|e| AgentError::Task {
        message: format!("the worktree {} cannot be used: {e}", worktree.display()),
    })?;
    provider.begin_session(cfg.label.as_deref())?;
    let session = cfg.label.clone().unwrap_or_else(|| "main".into());
    let tr = &cfg.transcript;
    tr.record(
        json!({"type": "session_start", "session": session, "provider": provider.name(),
        "model": provider.model(), "system": cfg.system, "task": cfg.task,
        "price_table": cfg.prices.version}),
    )?;
    let run = Running {
        provider,
        cfg,
        session,
        wt,
        started,
    };
    let mut conv = Request {
        system: cfg.system.clone(),
        messages: vec![Message::User {
            text: cfg.task.clone(),
        }],
        tools: tools::tool_specs(),
        max_output_tokens: cfg.max_output_tokens,
    };
    let mut out = SessionOutcome::start();
    let budget = context_budget(cfg, provider.model());
    let mut nudged = false;
    let mut context_retry = false;
    loop {
        if let Some(end) = limit_reached(&cfg.limits, &out, run.time_left()) {
            out.end = end;
            break;
        }
        out.elided += elide_to_fit(&mut conv, budget, KEEP_RECENT_TOOL_OUTPUTS);
        let call_started = Instant::now();
        let Some(result) = run.complete(&conv).await else {
            out.end = SessionEnd::TimeLimit;
            break;
        };
        let resp = match result {
            Ok(r) => r,
            Err(AgentError::Model(f)) if f.kind == FailureKind::ContextLength && !context_retry => {
                context_retry = true;
                let n = elide_to_fit(&mut conv, 0, 1);
                out.elided += n;
                if n > 0 {
                    continue;
                }
                // Nothing left to elide: the server's own refusal, with its URL, is the error.
                return run.fail(out.turns + 1, AgentError::Model(f));
            }
            Err(e) => return run.fail(out.turns + 1, e),
        };
        context_retry = false;
        run.account(&mut out, &conv, &resp, call_started)?;
        conv.messages.push(resp.to_message());
        if resp.tool_calls.is_empty() {
            if nudged {
                out.end = SessionEnd::NoFinish;
                break;
            }
            nudged = true;
            conv.messages.push(Message::User {
                text: NUDGE.to_string(),
            });
            continue;
        }
        nudged = false;
        run.run_tools(&resp, &mut out, &mut conv).await?;
        if out.finish.is_some() {
            out.end = SessionEnd::Finished;
            break;
        }
    }
    tr.record(
        json!({"type": "session_end", "session": run.session, "end": out.end,
        "finish": out.finish, "turns": out.turns, "usage": out.usage, "cost_usd": out.cost_usd}),
    )?;
    Ok(out)
}

/// The first limit `out` has reached, if any (pure).
#[must_use]
pub fn limit_reached(
    limits: &Limits,
    out: &SessionOutcome,
    time_left: Option<Duration>,
) -> Option<SessionEnd> {
    if out.turns >= limits.max_turns {
        return Some(SessionEnd::TurnLimit);
    }
    if limits.max_tokens.is_some_and(|m| out.usage.total() >= m) {
        return Some(SessionEnd::TokenLimit);
    }
    if let (Some(max), Some(cost)) = (limits.max_cost_usd, out.cost_usd)
        && cost >= max
    {
        return Some(SessionEnd::CostLimit);
    }
    if time_left.is_some_and(|t| t.is_zero()) {
        return Some(SessionEnd::TimeLimit);
    }
    None
}
