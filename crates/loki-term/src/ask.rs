//! `loki ask`: the agent's last words (when it had any), then one dim line
//! `<provider> · <end> after <turns> turn(s) · <tokens> tokens · cost <cost> · run <id> (not
//! verified)`, the cost `not measured` when unknown.

use loki_core::RunId;
use loki_engine::ask::AskEnd;
use serde_json::{Value, json};

use crate::{DIM, paint};

/// The text of a session of `provider` (its label) recorded as `id` that ended as `e`.
#[must_use]
pub fn ended(provider: &str, id: &RunId, e: &AskEnd) -> String {
    let cost = e
        .cost_usd
        .map_or_else(|| "not measured".to_string(), loki_agent::cost::usd);
    let mut out = String::new();
    if !e.detail.is_empty() {
        out.push_str(&e.detail);
        out.push('\n');
    }
    let line = format!(
        "{provider} · {} after {} turn(s) · {} tokens · cost {cost} · run {id} (not verified)",
        e.end,
        e.turns,
        e.input_tokens + e.output_tokens,
    );
    out.push_str(&paint(DIM, &line));
    out.push('\n');
    out
}

/// The `--json` object of the same.
#[must_use]
pub fn ended_json(provider: &str, id: &RunId, e: &AskEnd) -> Value {
    json!({"run_id": id, "provider": provider, "end": e.end, "detail": e.detail,
           "turns": e.turns, "input_tokens": e.input_tokens, "output_tokens": e.output_tokens,
           "cost_usd": e.cost_usd})
}
