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
            usage: aider_usage(stdout).or_else(|| aider_usage(stderr)),
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

/// The tokens of every message aider reported, summed: one `Tokens: <n> sent[, <n> cache
/// write][, <n> cache hit], <n> received.` line per message (its counts are per message; the
/// `Cost:` after it is the session's). A count is aider's `format_tokens`: `950`, `2.1k`,
/// `12k` (and `1.2M`, should a release print it), so it is exact below 1000 and rounded above.
/// `sent` holds the cache hits (and, from Anthropic, the cache writes): they are taken out of
/// `input_tokens`, so that the four buckets do not overlap ([`Usage`]).
fn aider_usage(text: &str) -> Option<Usage> {
    let mut total: Option<Usage> = None;
    for line in text.lines() {
        let Some(report) = line.split_once("Tokens: ").map(|(_, r)| r) else {
            continue;
        };
        let Some(u) = aider_tokens_line(report) else {
            continue;
        };
        total.get_or_insert_with(Usage::default).add(&u);
    }
    total
}

/// One `Tokens:` report (after the prefix): its parts up to the first `.` that ends it.
fn aider_tokens_line(report: &str) -> Option<Usage> {
    let body = report.split(". ").next()?.trim_end_matches('.');
    let (mut sent, mut received, mut write, mut hit) = (None, None, 0, 0);
    for part in body.split(", ") {
        let (count, what) = part.trim().split_once(' ')?;
        let n = aider_count(count)?;
        match what.trim() {
            "sent" => sent = Some(n),
            "received" => received = Some(n),
            "cache write" => write = n,
            "cache hit" => hit = n,
            _ => return None,
        }
    }
    let sent = sent?;
    Some(Usage {
        input_tokens: sent.saturating_sub(hit).saturating_sub(write),
        output_tokens: received?,
        cache_read_tokens: hit,
        cache_write_tokens: write,
    })
}

/// A count as aider prints it: digits, optionally with a fraction, optionally `k` or `M`.
fn aider_count(text: &str) -> Option<u64> {
    let (digits, scale) = match text.strip_suffix('k') {
        Some(d) => (d, 1_000),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (text, 1),
        },
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !all_digits(whole)
        || !all_digits(frac)
        || (scale == 1 && !frac.is_empty())
    {
        return None;
    }
    let mut n = whole.parse::<u64>().ok()?.checked_mul(scale)?;
    // The fraction's digits, each a tenth of the one before (exact: no float).
    let mut unit = scale;
    for d in frac.bytes() {
        unit /= 10;
        n = n.checked_add(u64::from(d - b'0').checked_mul(unit)?)?;
    }
    Some(n)
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
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 2100,
                output_tokens: 150,
                ..Usage::default()
            })
        );

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

    #[test]
    fn aider_tokens_are_summed_over_its_messages_with_cache_hits_and_writes_apart() {
        // Two messages: the second with an Anthropic cache (its two lines: hits and writes).
        let text = "Tokens: 12k sent, 1.2k received. Cost: $0.04 message, $0.04 session.\n\
                    Tokens: 3.4k sent, 1.0k cache write, 2.0k cache hit, 95 received.\n\
                    Cost: $0.01 message, $0.05 session.\n\
                    Tokens: 950 sent, 3 received.\n";
        assert_eq!(
            aider_usage(text),
            Some(Usage {
                input_tokens: 12_000 + 400 + 950,
                output_tokens: 1200 + 95 + 3,
                cache_read_tokens: 2000,
                cache_write_tokens: 1000,
            })
        );
        assert_eq!(aider_usage("no tokens here\nTokens: many sent\n"), None);
        assert_eq!(aider_count("1.5M"), Some(1_500_000));
        for bad in ["", "k", "1.5", "1..2k", "-3", "1e3"] {
            assert_eq!(aider_count(bad), None, "{bad:?}");
        }
    }

    /// aider's `format_tokens` (aider/utils.py), to print what the parser reads.
    fn format_tokens(count: u64) -> String {
        if count < 1000 {
            format!("{count}")
        } else if count < 10_000 {
            format!("{:.1}k", count as f64 / 1000.0)
        } else {
            format!("{}k", (count as f64 / 1000.0).round())
        }
    }

    proptest::proptest! {
        /// Whatever aider printed, the parser reads each count back to within aider's rounding,
        /// puts the cache buckets apart from the input, and sums the messages.
        #[test]
        fn aider_token_lines_read_back_within_their_rounding(
            messages in proptest::collection::vec(
                (0u64..5_000_000, 0u64..200_000, 0u64..100_000, 0u64..100_000),
                1..5,
            )
        ) {
            let mut text = String::from("Model: openai/gpt-4.1 with diff edit format\n");
            let mut want = Usage::default();
            // aider's rounding: exact below 1000, to 50 below 10k, to 500 above; sent carries
            // the rounding of the input and of both cache counts.
            let mut slack = 0u64;
            for (input, received, write, hit) in &messages {
                let sent = input + write + hit;
                text.push_str(&format!("Tokens: {} sent", format_tokens(sent)));
                if *write > 0 {
                    text.push_str(&format!(", {} cache write", format_tokens(*write)));
                }
                if *hit > 0 {
                    text.push_str(&format!(", {} cache hit", format_tokens(*hit)));
                }
                let sep = if *write > 0 && *hit > 0 { "\n" } else { " " };
                text.push_str(&format!(
                    ", {} received.{sep}Cost: $0.01 message, $0.02 session.\n",
                    format_tokens(*received)
                ));
                want.add(&Usage {
                    input_tokens: *input,
                    output_tokens: *received,
                    cache_read_tokens: *hit,
                    cache_write_tokens: *write,
                });
                slack += 3 * 500;
            }
            let u = aider_usage(&text).unwrap();
            let near = |got: u64, want: u64| got.abs_diff(want) <= slack;
            proptest::prop_assert!(near(u.input_tokens, want.input_tokens), "{u:?} {want:?}\n{text}");
            proptest::prop_assert!(near(u.output_tokens, want.output_tokens), "{u:?} {want:?}\n{text}");
            proptest::prop_assert!(near(u.cache_read_tokens, want.cache_read_tokens), "{u:?} {want:?}\n{text}");
            proptest::prop_assert!(near(u.cache_write_tokens, want.cache_write_tokens), "{u:?} {want:?}\n{text}");
        }

        /// Any text at all: no panic, and nothing read from a line without `Tokens: `.
        #[test]
        fn aider_usage_never_panics(text in ".{0,200}") {
            let u = aider_usage(&text);
            if !text.contains("Tokens: ") {
                proptest::prop_assert_eq!(u, None);
            }
        }
    }
}
