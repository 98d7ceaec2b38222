//! Atlassian Document Format (Jira's rich text) to plain text: paragraphs and headings as lines,
//! list items with `- `, code blocks fenced, mentions and emoji by their text, hard breaks as
//! newlines. Unknown nodes contribute their children's text, so nothing written is lost.

use serde_json::Value;

/// The plain text of an ADF document (or a plain string, which older Jira versions send).
#[must_use]
pub fn to_text(doc: &Value) -> String {
    match doc {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        _ => {
            let mut out = String::new();
            node(doc, &mut out, 0);
            out.trim().to_string()
        }
    }
}

fn children(v: &Value, out: &mut String, depth: usize) {
    if let Some(items) = v["content"].as_array() {
        for c in items {
            node(c, out, depth);
        }
    }
}

fn node(v: &Value, out: &mut String, depth: usize) {
    match v["type"].as_str().unwrap_or_default() {
        "text" => out.push_str(v["text"].as_str().unwrap_or_default()),
        "hardBreak" => out.push('\n'),
        "mention" | "emoji" => {
            out.push_str(v["attrs"]["text"].as_str().unwrap_or_default());
        }
        "paragraph" | "heading" => {
            children(v, out, depth);
            out.push('\n');
        }
        "bulletList" | "orderedList" => children(v, out, depth + 1),
        "listItem" => {
            out.push_str(&"  ".repeat(depth.saturating_sub(1)));
            out.push_str("- ");
            let mut inner = String::new();
            children(v, &mut inner, depth);
            out.push_str(inner.trim_end());
            out.push('\n');
        }
        "codeBlock" => {
            out.push_str("```\n");
            children(v, out, depth);
            out.push_str("\n```\n");
        }
        _ => children(v, out, depth),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paragraphs_lists_code_and_mentions_become_text() {
        let doc = json!({"type": "doc", "version": 1, "content": [
            {"type": "heading", "content": [{"type": "text", "text": "Steps"}]},
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Ask "},
                {"type": "mention", "attrs": {"text": "@ana"}},
                {"type": "hardBreak"},
                {"type": "text", "text": "then:"}]},
            {"type": "bulletList", "content": [
                {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "one"}]}]},
                {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "two"}]}]}]},
            {"type": "codeBlock", "content": [{"type": "text", "text": "x = 1"}]},
            {"type": "panel", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "kept"}]}]}
        ]});
        assert_eq!(
            to_text(&doc),
            "Steps\nAsk @ana\nthen:\n- one\n- two\n```\nx = 1\n```\nkept"
        );
        assert_eq!(to_text(&json!("plain")), "plain");
        assert_eq!(to_text(&Value::Null), "");
    }
}
