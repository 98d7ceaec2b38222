//! Keeping the conversation inside the model's window (pure).
//!
//! Two mechanisms, cheapest first:
//! - **Clipping** ([`clip`]): one long tool output keeps its head and its tail, with a note of
//!   how much was dropped between. Test failures, compiler errors and file ends are at the tail,
//!   file and log beginnings at the head; the middle is what a model misses least.
//! - **Eliding** ([`elide_to_fit`]): when the whole conversation nears the window, the *oldest*
//!   tool outputs are replaced by a short note, one at a time, until it fits. The newest results
//!   are the ones the model is acting on, and user and assistant text is never elided.
//!
//! Token counts are estimated from bytes ([`estimate_tokens`]): exact counts need the provider's
//! tokenizer, and the estimate only has to keep a safety margin, not be right.

use crate::message::{Message, Request};

/// Bytes per token for the estimate: about 4 for English and code in every current tokenizer.
const BYTES_PER_TOKEN: usize = 4;
/// Tokens charged per message for roles and framing in the estimate.
const TOKENS_PER_MESSAGE: usize = 8;
/// The note that replaces an elided tool output.
pub const ELIDED_NOTE: &str = "[loki: this older tool output was elided to fit the context window; run the tool again if you need it]";

/// `text` unchanged when it has at most `max` bytes, else its first and last `max/2` bytes (on
/// character boundaries) with a note between them saying how many bytes were dropped.
#[must_use]
pub fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let half = max / 2;
    let mut head_end = half;
    while !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - half;
    while !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let dropped = tail_start - head_end;
    format!(
        "{}\n[loki: {dropped} bytes of output truncated here; showing the first and last {half} bytes]\n{}",
        &text[..head_end],
        &text[tail_start..]
    )
}

/// A rough token count of everything sent in `req` (system, tools, messages).
#[must_use]
pub fn estimate_tokens(req: &Request) -> usize {
    let tools: usize = req
        .tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.parameters.to_string().len())
        .sum();
    let messages: usize = req.messages.iter().map(message_bytes).sum();
    (req.system.len() + tools + messages) / BYTES_PER_TOKEN
        + TOKENS_PER_MESSAGE * req.messages.len()
}

fn message_bytes(m: &Message) -> usize {
    match m {
        Message::User { text } => text.len(),
        Message::Assistant { text, tool_calls } => {
            text.as_ref().map_or(0, String::len)
                + tool_calls
                    .iter()
                    .map(|c| c.name.len() + c.id.len() + c.arguments_text().len())
                    .sum::<usize>()
        }
        Message::Tool {
            call_id, content, ..
        } => call_id.len() + content.len(),
    }
}

/// Elides the oldest tool outputs of `req` until its estimate is at most `budget` tokens, never
/// touching the newest `keep_last` tool outputs. Returns how many outputs were elided; the
/// request may still be over budget when nothing elidable is left.
pub fn elide_to_fit(req: &mut Request, budget: usize, keep_last: usize) -> usize {
    let tool_positions: Vec<usize> = req
        .messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::Tool { content, .. } if content != ELIDED_NOTE))
        .map(|(i, _)| i)
        .collect();
    let elidable = tool_positions.len().saturating_sub(keep_last);
    let mut estimate = estimate_tokens(req);
    let mut elided = 0;
    for &i in tool_positions.iter().take(elidable) {
        if estimate <= budget {
            break;
        }
        if let Message::Tool { content, .. } = &mut req.messages[i] {
            let saved = content.len().saturating_sub(ELIDED_NOTE.len()) / BYTES_PER_TOKEN;
            *content = ELIDED_NOTE.to_string();
            estimate = estimate.saturating_sub(saved);
            elided += 1;
        }
    }
    elided
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tool(id: &str, content: &str) -> Message {
        Message::Tool {
            call_id: id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    #[test]
    fn clip_keeps_head_and_tail_with_a_note() {
        let text = format!("{}{}{}", "a".repeat(100), "m".repeat(1000), "z".repeat(100));
        let c = clip(&text, 200);
        assert!(c.starts_with(&"a".repeat(100)));
        assert!(c.ends_with(&"z".repeat(100)));
        assert!(c.contains("[loki: 1000 bytes of output truncated here"));
        assert_eq!(clip("short", 200), "short");
    }

    #[test]
    fn oldest_tool_outputs_are_elided_first_and_the_newest_kept() {
        let big = "x".repeat(40_000);
        let mut req = Request {
            system: "s".into(),
            messages: vec![
                Message::User {
                    text: "task".into(),
                },
                tool("1", &big),
                tool("2", &big),
                tool("3", &big),
            ],
            tools: vec![],
            max_output_tokens: 100,
        };
        let n = elide_to_fit(&mut req, 15_000, 1);
        assert_eq!(n, 2);
        assert_eq!(req.messages[1], tool("1", ELIDED_NOTE));
        assert_eq!(req.messages[2], tool("2", ELIDED_NOTE));
        assert_eq!(req.messages[3], tool("3", &big));
        assert_eq!(
            req.messages[0],
            Message::User {
                text: "task".into()
            }
        );
        // Already under budget: nothing changes.
        assert_eq!(elide_to_fit(&mut req, 15_000, 1), 0);
    }

    proptest! {
        #[test]
        fn clip_is_bounded_and_keeps_both_ends(s in "\\PC{0,400}", max in 8usize..200) {
            let c = clip(&s, max);
            if s.len() <= max {
                prop_assert_eq!(c, s);
            } else {
                // Bounded by the cap plus the note (and at most one char of boundary slack per side).
                prop_assert!(c.len() <= max + 120);
                let first = s.chars().next().unwrap_or_default();
                let last = s.chars().last().unwrap_or_default();
                if first.len_utf8() <= max / 2 { prop_assert!(c.starts_with(first)); }
                if last.len_utf8() <= max / 2 { prop_assert!(c.ends_with(last)); }
            }
        }
    }
}
