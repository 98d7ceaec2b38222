//! Patch synthesis: one model call (no tools, no loop) for one JSON patch object, validated, with
//! one retry that shows the model its validation error.
//!
//! The prompt carries the crash (kind, message, signature, frames, output tail) and the target
//! file with line numbers. Every exchange is appended to the heal run's `transcript.jsonl` with its
//! usage and cost (`null` when the model has no price).

use std::path::Path;
use std::time::Instant;

use loki_agent::{Message, PriceTable, Provider, Request, Transcript};
use loki_clients::Usage;
use serde_json::json;

use crate::HealError;
use crate::incident::Incident;
use crate::proposal::{PROPOSAL_SCHEMA, PlannedEdit, parse_proposal, plan};
use crate::resolve::Resolution;

/// Attempts per synthesis: the first answer and one retry with its validation error.
pub const MAX_ATTEMPTS: u32 = 2;
/// The answer is one small JSON object; this bounds a runaway reply.
const MAX_OUTPUT_TOKENS: u32 = 4096;
/// Characters of the crash output shown to the model (the end holds the crash).
const PROMPT_OUTPUT_CHARS: usize = 6000;
/// Bytes of a source file shown to the model; larger files are cut around the crash line.
const PROMPT_FILE_BYTES: usize = 60_000;
/// Lines shown around the crash line when a file is cut.
const PROMPT_WINDOW_LINES: usize = 200;
/// Characters of the last user message kept in a transcript record.
const TRANSCRIPT_MESSAGE_CHARS: usize = 2000;
/// The session label the scripted provider can select.
pub const SESSION_LABEL: &str = "heal";

/// What the model produced and what it cost.
#[derive(Debug, Clone)]
pub struct Synthesis {
    pub planned: PlannedEdit,
    pub usage: Usage,
    /// `None` when the model's price is unknown (never 0 for unknown).
    pub cost_usd: Option<f64>,
    pub provider: String,
    pub model: String,
    pub attempts: u32,
}

const SYSTEM: &str = "You fix crashes with the smallest possible change. You are given a crash \
and the source file where it happened. Answer with ONLY one JSON object (no prose, no code fence) \
matching this JSON Schema:\n";

fn tail_chars(s: &str, n: usize) -> &str {
    let count = s.chars().count();
    if count <= n {
        return s;
    }
    let skip = count - n;
    let start = s.char_indices().nth(skip).map_or(0, |(i, _)| i);
    &s[start..]
}

/// The file with line numbers, cut to a window around `line` when large.
fn numbered(text: &str, line: Option<u32>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let (from, to) = if text.len() <= PROMPT_FILE_BYTES {
        (0, lines.len())
    } else {
        let at = line.map_or(0, |l| l as usize).saturating_sub(1);
        let from = at.saturating_sub(PROMPT_WINDOW_LINES / 2);
        (from, (from + PROMPT_WINDOW_LINES).min(lines.len()))
    };
    let mut out = String::new();
    for (i, l) in lines[from..to].iter().enumerate() {
        out.push_str(&format!("{:>5}| {l}\n", from + i + 1));
    }
    out
}

/// The last user message, clipped, for the transcript's request summary.
fn last_user_text(messages: &[Message]) -> String {
    let text = messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User { text } => Some(text.as_str()),
            Message::Assistant { .. } | Message::Tool { .. } => None,
        })
        .unwrap_or_default();
    tail_chars(text, TRANSCRIPT_MESSAGE_CHARS).to_string()
}

/// The user message of the first attempt (pure).
#[must_use]
pub fn prompt(inc: &Incident, res: &Resolution, target_text: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!("Command: {}\n", inc.command.join(" ")));
    s.push_str(&format!(
        "Crash: {} ({})\n",
        inc.crash.kind,
        inc.crash.lang.as_str()
    ));
    if !inc.crash.message.is_empty() {
        s.push_str(&format!("Message: {}\n", inc.crash.message));
    }
    s.push_str(&format!("Signature: {}\n", inc.signature.text));
    s.push_str("Frames in the repository (innermost first):\n");
    for r in &res.files {
        s.push_str(&format!(
            "  {}{}{}\n",
            r.rel,
            r.line.map(|l| format!(":{l}")).unwrap_or_default(),
            r.function
                .as_deref()
                .map(|f| format!(" in {f}"))
                .unwrap_or_default()
        ));
    }
    let output = format!("{}\n{}", inc.stdout_tail, inc.stderr_tail);
    s.push_str(&format!(
        "Output (end):\n{}\n",
        tail_chars(output.trim(), PROMPT_OUTPUT_CHARS)
    ));
    if let Some(t) = res.target() {
        s.push_str(&format!(
            "\nFile {} (line numbers are not part of the file):\n{}",
            t.rel,
            numbered(target_text, t.line)
        ));
    }
    s.push_str(
        "\nCopy original_snippet exactly from the file (without the line numbers); it must occur \
         exactly once. Change only what fixes the root cause.",
    );
    s
}

/// Asks `provider` for a patch and validates it against the repository at `root` (canonical).
pub async fn synthesize(
    provider: &dyn Provider,
    root: &Path,
    inc: &Incident,
    res: &Resolution,
    transcript: &Transcript,
) -> Result<Synthesis, HealError> {
    let target_text = match res.target() {
        Some(t) => String::from_utf8_lossy(
            &std::fs::read(&t.abs).map_err(|e| HealError::io("read", &t.abs, e))?,
        )
        .into_owned(),
        None => String::new(),
    };
    provider.begin_session(Some(SESSION_LABEL))?;
    let prices = PriceTable::builtin();
    transcript.record(json!({
        "type": "session_start", "session": SESSION_LABEL, "provider": provider.name(),
        "model": provider.model(), "task": format!("heal {}", inc.signature.text),
    }))?;
    let mut messages = vec![Message::User {
        text: prompt(inc, res, &target_text),
    }];
    let mut usage = Usage::default();
    let mut cost: Option<f64> = Some(0.0);
    let mut last_problem = String::new();
    let mut model = provider.model().to_string();
    for attempt in 1..=MAX_ATTEMPTS {
        let req = Request {
            system: format!("{SYSTEM}{PROPOSAL_SCHEMA}"),
            messages: messages.clone(),
            tools: Vec::new(),
            max_output_tokens: MAX_OUTPUT_TOKENS,
        };
        let started = Instant::now();
        let resp = match provider.complete(&req).await {
            Ok(r) => r,
            Err(e) => {
                transcript.record(json!({"type": "error", "session": SESSION_LABEL,
                    "turn": attempt, "error": e.to_string()}))?;
                return Err(e.into());
            }
        };
        usage.add(&resp.usage);
        let call_cost = prices.cost(&resp.model, &resp.usage);
        cost = match (cost, call_cost) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
        model.clone_from(&resp.model);
        transcript.record(json!({
            "type": "exchange", "session": SESSION_LABEL, "turn": attempt,
            "provider": provider.name(), "model": resp.model,
            "request": {"messages": req.messages.len(), "tools": [],
                        "last_message": last_user_text(&req.messages)},
            "response": resp, "usage": resp.usage, "cost_usd": call_cost,
            "duration_ms": u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        }))?;
        let text = resp.text.clone().unwrap_or_default();
        let checked = parse_proposal(&text).and_then(|p| plan(root, p));
        match checked {
            Ok(planned) => {
                transcript.record(json!({"type": "session_end", "session": SESSION_LABEL,
                    "end": "patch", "turns": attempt, "usage": usage, "cost_usd": cost}))?;
                return Ok(Synthesis {
                    planned,
                    usage,
                    cost_usd: cost,
                    provider: provider.name().to_string(),
                    model,
                    attempts: attempt,
                });
            }
            Err(problem) => {
                last_problem = problem.to_string();
                messages.push(resp.to_message());
                messages.push(Message::User {
                    text: format!(
                        "Your answer was rejected: {last_problem}\nReply again with only the \
                         corrected JSON object."
                    ),
                });
            }
        }
    }
    transcript.record(json!({"type": "session_end", "session": SESSION_LABEL,
        "end": "rejected", "turns": MAX_ATTEMPTS, "usage": usage, "cost_usd": cost,
        "problem": last_problem}))?;
    Err(HealError::BadModelAnswer {
        attempts: MAX_ATTEMPTS,
        problem: last_problem,
    })
}

/// [`synthesize`] on a private single-threaded runtime, for callers that are not async.
pub fn synthesize_blocking(
    provider: &dyn Provider,
    root: &Path,
    inc: &Incident,
    res: &Resolution,
    transcript: &Transcript,
) -> Result<Synthesis, HealError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(HealError::Runtime)?;
    rt.block_on(synthesize(provider, root, inc, res, transcript))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_lines_start_at_one() {
        assert_eq!(numbered("a\nb\n", None), "    1| a\n    2| b\n");
    }

    #[test]
    fn tail_chars_keeps_the_end() {
        assert_eq!(tail_chars("abcdef", 3), "def");
        assert_eq!(tail_chars("ab", 3), "ab");
    }
}
