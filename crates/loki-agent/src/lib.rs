//! Model providers and the built-in agent loop of loki.
//!
//! # Providers
//! One async trait, [`Provider`]: a [`Request`] (system prompt, messages, tool specs) in, a
//! [`Response`] (text, tool calls, [`Usage`], [`StopReason`]) out. Implementations:
//! - [`openai::provider`]: Chat Completions (OpenAI, Ollama, vLLM, LiteLLM, OpenRouter via
//!   `base_url`; the key may be empty);
//! - [`anthropic::provider`]: the Messages API with prompt caching of tools and system;
//! - [`scripted::Scripted`]: a JSON file of sessions and turns (format in its module doc and
//!   `schema/scripted.schema.json`), deterministic;
//! - [`replay::Replay`]: the `exchange` records of a run's `transcript.jsonl`.
//!
//! Both HTTP providers are one [`HttpProvider`] with a different wire format: they stream (SSE)
//! and read either form back, retry 429/5xx/dropped connections/stalled streams with backoff
//! honouring `Retry-After`, bounded by a count *and* a time budget, never retry a refused
//! connection or another 4xx ([`http`] has the policy). Every failure is one typed
//! [`ProviderFailure`] ([`AgentError::Model`]) whose [`FailureKind`] is `auth`, `unreachable`,
//! `timeout`, `bad_response`, `context_length`, `rate_limited`, `server_error` or `refused`, with
//! the URL and what to change ([`failure`]).
//!
//! CLI agents (`loki_clients::CliAgent`: claude, codex, aider, opencode) are not providers: they
//! run the whole task in the worktree themselves, through the process runner, with a timeout;
//! their cost is what they report, else `None`. [`build`] makes one or the other.
//!
//! Choosing: [`ProviderChoice::parse`], [`detect_auto`] (order, choice and reason), [`build`];
//! from loki's configuration: [`ProviderSettings::from_config`], [`configured::detect`].
//! An explicit choice is never replaced by another.
//!
//! # The loop
//! [`run_session`]: ask → execute tool calls ([`tools`], every path confined to the worktree by
//! [`loki_core::paths`]) → append results → repeat until `finish` or a [`Limits`] limit. Tool
//! failures go back to the model as tool results; long outputs are clipped head+tail and older
//! ones elided near the window ([`context`]); every exchange with its usage and cost is appended
//! to `transcript.jsonl` ([`transcript`]).
//!
//! # Cost
//! [`PriceTable`]: versioned USD prices per million tokens in four buckets, overridable; an
//! unknown model costs `None` ("not measured"), never 0.
//!
//! # Never
//! Print, write outside the worktree and the transcript, pass secrets to the `run` tool's
//! children, or substitute a provider the user did not choose.

pub mod agent;
pub mod anthropic;
pub mod choice;
pub mod configured;
pub mod confine;
pub mod context;
pub mod cost;
pub mod error;
pub mod failure;
pub mod http;
pub mod message;
pub mod openai;
pub mod provider;
pub mod replay;
pub mod scripted;
pub mod sse;
pub mod tools;
pub mod transcript;
pub mod words;

pub use agent::{Limits, SessionConfig, SessionEnd, SessionOutcome, run_session};
pub use choice::{
    Backend, Candidate, Detection, ProviderChoice, ProviderInfo, ProviderSettings, build, describe,
    detect_auto,
};
pub use cost::{Price, PriceTable};
pub use error::AgentError;
pub use failure::{FailureKind, ProviderFailure};
pub use http::{HttpOptions, HttpProvider};
pub use message::{Message, Request, Response, StopReason, ToolCall, ToolSpec};
pub use provider::{BoxFuture, Provider};
pub use tools::{Finish, FinishStatus, RunHook};
pub use transcript::Transcript;
pub use words::finish_from_reply;
