//! What a CLI agent reported in its output: cost, tokens, model and final reply, parsed from
//! each client's own format (pure, except Codex's model, read from its session record).

use std::path::Path;

use serde_json::Value;

use crate::kind::CliKind;
use crate::usage::Usage;

/// The model of the session `codex exec --json` printed in `stdout` (its `thread.started`), from
/// Codex's session record under `codex_home/sessions` (`turn_context.model`).
pub(crate) fn codex_model(stdout: &str, codex_home: &Path) -> Option<String> {
    let thread = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v["type"] == "thread.started")?["thread_id"]
        .as_str()?
        .to_string();
    let suffix = format!("-{thread}.jsonl");
    // sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl
    let mut dirs = vec![(codex_home.join("sessions"), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if depth < 3 && path.is_dir() {
                dirs.push((path, depth + 1));
            } else if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
            {
                let text = std::fs::read_to_string(&path).ok()?;
                return text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|v| v["type"] == "turn_context")
                    .and_then(|v| v["payload"]["model"].as_str().map(str::to_string));
            }
        }
    }
    None
}

/// What an agent reported in its output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reported {
    pub cost_usd: Option<f64>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
    /// Its final reply, when its output has one apart from the log.
    pub reply: Option<String>,
}

/// Cost, usage, model and final reply an agent reported in its output (pure).
#[must_use]
pub fn reported(kind: CliKind, stdout: &str, stderr: &str) -> Reported {
    match kind {
        CliKind::Claude => claude_report(stdout),
        CliKind::Codex => Reported {
            usage: codex_usage(stdout),
            ..Reported::default()
        },
        CliKind::Aider => Reported {
            cost_usd: aider_cost(stdout).or_else(|| aider_cost(stderr)),
            model: aider_model(stdout).or_else(|| aider_model(stderr)),
            ..Reported::default()
        },
        CliKind::Opencode => opencode_report(stdout),
    }
}

/// The last JSON object in `text` that has `key` (whole text first, then line by line from the end).
fn last_json_with(text: &str, key: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text.trim())
        && v.get(key).is_some()
    {
        return Some(v);
    }
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v.get(key).is_some())
}

/// Claude Code's `--output-format json` result: `total_cost_usd`, `usage`, `result` (the final
/// reply) and `modelUsage` (per model: tokens and `costUSD`); the model is the one that cost the
/// most (the main model; a small one may answer side questions).
fn claude_report(stdout: &str) -> Reported {
    let Some(v) = last_json_with(stdout, "total_cost_usd") else {
        return Reported::default();
    };
    let u = &v["usage"];
    let usage = u.is_object().then(|| Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: u["cache_read_input_tokens"].as_u64().unwrap_or(0),
        cache_write_tokens: u["cache_creation_input_tokens"].as_u64().unwrap_or(0),
    });
    let model = v["modelUsage"].as_object().and_then(|m| {
        m.iter()
            .max_by(|(_, a), (_, b)| {
                let key = |x: &Value| {
                    (
                        x["costUSD"].as_f64().unwrap_or(0.0),
                        x["outputTokens"].as_u64().unwrap_or(0),
                    )
                };
                let (ca, oa) = key(a);
                let (cb, ob) = key(b);
                ca.total_cmp(&cb).then(oa.cmp(&ob))
            })
            .map(|(name, _)| name.clone())
    });
    Reported {
        cost_usd: v["total_cost_usd"].as_f64(),
        usage,
        model,
        reply: v["result"].as_str().map(str::to_string),
    }
}

/// opencode's `run --format json` events (one JSON object a line): `step_finish` parts carry
/// each step's `cost` and `tokens`; `text` parts the replies; the model is not in the events.
fn opencode_report(stdout: &str) -> Reported {
    let mut r = Reported::default();
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
    {
        let part = &v["part"];
        match v["type"].as_str() {
            Some("step_finish") => {
                if let Some(c) = part["cost"].as_f64() {
                    *r.cost_usd.get_or_insert(0.0) += c;
                }
                let t = &part["tokens"];
                if t.is_object() {
                    r.usage.get_or_insert_with(Usage::default).add(&Usage {
                        input_tokens: t["input"].as_u64().unwrap_or(0),
                        output_tokens: t["output"].as_u64().unwrap_or(0)
                            + t["reasoning"].as_u64().unwrap_or(0),
                        cache_read_tokens: t["cache"]["read"].as_u64().unwrap_or(0),
                        cache_write_tokens: t["cache"]["write"].as_u64().unwrap_or(0),
                    });
                }
            }
            Some("text") => {
                if let Some(t) = part["text"].as_str() {
                    r.reply = Some(t.to_string());
                }
            }
            _ => {}
        }
    }
    r
}

/// Sums the `usage` of codex's `turn.completed` events (`exec --json` JSONL).
fn codex_usage(stdout: &str) -> Option<Usage> {
    let mut total: Option<Usage> = None;
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(|v| v["type"] == "turn.completed")
    {
        let u = &v["usage"];
        let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
        total.get_or_insert_with(Usage::default).add(&Usage {
            input_tokens: u["input_tokens"]
                .as_u64()
                .unwrap_or(0)
                .saturating_sub(cached),
            output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        });
    }
    total
}

/// The model of aider's `Model: <name> with <format> edit format` line (`Main model:` when it
/// also names a weak model).
fn aider_model(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix("Main model: ")
            .or_else(|| l.trim().strip_prefix("Model: "))?;
        let name = rest.split(" with ").next()?.trim();
        (!name.is_empty()).then(|| name.to_string())
    })
}

/// The session total of aider's last `Cost: $X message, $Y session.` line.
fn aider_cost(text: &str) -> Option<f64> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("Cost: $") && l.contains("session"))?;
    let before = line.split(" session").next()?;
    let amount = before.rsplit('$').next()?;
    amount.trim().replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_costs_are_read_and_missing_ones_stay_none() {
        let claude = r#"{"type":"result","subtype":"success","result":"DONE","total_cost_usd":0.0421,"usage":{"input_tokens":12,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":700},"modelUsage":{"claude-haiku-4-5":{"outputTokens":9,"costUSD":0.0001},"claude-sonnet-4-5":{"outputTokens":300,"costUSD":0.042}}}"#;
        let r = reported(CliKind::Claude, claude, "");
        assert_eq!(r.cost_usd, Some(0.0421));
        assert_eq!(r.usage.unwrap().cache_read_tokens, 5000);
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(r.reply.as_deref(), Some("DONE"));
        assert_eq!(
            reported(CliKind::Claude, "not json", ""),
            Reported::default()
        );

        let aider = "Model: openai/gpt-4.1 with diff edit format\nTokens: 2.1k sent, 150 received. Cost: $0.0072 message, $0.0315 session.\n";
        let r = reported(CliKind::Aider, aider, "");
        assert_eq!(r.cost_usd, Some(0.0315));
        assert_eq!(r.model.as_deref(), Some("openai/gpt-4.1"));

        let codex = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":40,\"output_tokens\":9}}\n";
        let r = reported(CliKind::Codex, codex, "");
        assert_eq!(r.cost_usd, None);
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 60,
                output_tokens: 9,
                cache_read_tokens: 40,
                cache_write_tokens: 0
            })
        );
        assert_eq!(reported(CliKind::Opencode, "done", ""), Reported::default());
    }
}
