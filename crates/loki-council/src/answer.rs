//! A reviewer's answer: the one JSON object it must reply with, and its validation.
//!
//! # Format
//! ```json
//! {"verdict": "pass" | "block",
//!  "findings": [{"severity": "blocking" | "advisory", "file": "src/a.rs", "line": 12,
//!                "title": "one line", "detail": "why, and what to do"}]}
//! ```
//! - `verdict` and `findings` are required (an empty list is fine); unknown fields are refused,
//!   so a reviewer that answers some other shape is told so rather than half-read.
//! - A finding needs a non-empty `file` and `title`; `line` is optional (a finding about a whole
//!   file) but, when given, a positive integer; `detail` is optional.
//! - The verdict must agree with the findings: `block` needs at least one blocking finding and
//!   `pass` may have none. A contradiction is malformed, not guessed at.
//! - The object may be wrapped in a Markdown code fence (models do that); nothing else may
//!   surround it.

use serde::Deserialize;

/// Whether the reviewer lets the change through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Block,
}

impl Verdict {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Block => "block",
        }
    }
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Lowers a VERIFIED run to PARTIAL.
    Blocking,
    /// Shown, never lowering.
    Advisory,
}

/// One finding of a reviewer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub file: String,
    pub line: Option<u64>,
    pub title: String,
    pub detail: String,
}

impl Finding {
    /// `file:line title` (or `file title`): how the finding is named in the receipt.
    #[must_use]
    pub fn name(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l} {}", self.file, self.title),
            None => format!("{} {}", self.file, self.title),
        }
    }
}

/// A valid answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub verdict: Verdict,
    pub findings: Vec<Finding>,
}

impl Answer {
    /// The blocking findings.
    pub fn blocking(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Blocking)
    }

    /// The advisory findings.
    pub fn advisory(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Advisory)
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAnswer {
    verdict: String,
    findings: Vec<RawFinding>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFinding {
    severity: String,
    file: String,
    #[serde(default)]
    line: Option<i64>,
    title: String,
    #[serde(default)]
    detail: Option<String>,
}

/// What is wrong with a reviewer's reply, in words the reviewer is shown when it is asked
/// again; each names the field at fault and the value found.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    #[error("the reply was empty")]
    Empty,
    #[error("not the JSON object asked for: {error}")]
    NotJson { error: serde_json::Error },
    #[error("verdict {found:?} is not \"pass\" or \"block\"")]
    Verdict { found: String },
    /// `n` counts the findings from 1.
    #[error("finding {n}: severity {found:?} is not \"blocking\" or \"advisory\"")]
    Severity { n: usize, found: String },
    #[error("finding {n}: {field} is empty")]
    EmptyField { n: usize, field: &'static str },
    #[error("finding {n}: line {line} is not a positive number")]
    Line { n: usize, line: i64 },
    #[error("verdict \"block\" needs at least one finding with severity \"blocking\"")]
    BlockWithoutBlocking,
    #[error("verdict \"pass\" contradicts a \"blocking\" finding: block, or make it advisory")]
    PassWithBlocking,
}

/// Reads a reviewer's reply. `Err` says what is wrong, in words the reviewer is shown when it
/// is asked again.
pub fn parse(reply: &str) -> Result<Answer, AnswerError> {
    let text = unfence(reply.trim());
    if text.is_empty() {
        return Err(AnswerError::Empty);
    }
    let raw: RawAnswer =
        serde_json::from_str(text).map_err(|error| AnswerError::NotJson { error })?;
    let verdict = match raw.verdict.as_str() {
        "pass" => Verdict::Pass,
        "block" => Verdict::Block,
        other => {
            return Err(AnswerError::Verdict {
                found: other.to_string(),
            });
        }
    };
    let mut findings = Vec::new();
    for (i, f) in raw.findings.into_iter().enumerate() {
        let n = i + 1;
        let severity = match f.severity.as_str() {
            "blocking" => Severity::Blocking,
            "advisory" => Severity::Advisory,
            other => {
                return Err(AnswerError::Severity {
                    n,
                    found: other.to_string(),
                });
            }
        };
        if f.file.trim().is_empty() {
            return Err(AnswerError::EmptyField { n, field: "file" });
        }
        if f.title.trim().is_empty() {
            return Err(AnswerError::EmptyField { n, field: "title" });
        }
        let line = match f.line {
            None => None,
            Some(l) if l >= 1 => u64::try_from(l).ok(),
            Some(line) => return Err(AnswerError::Line { n, line }),
        };
        findings.push(Finding {
            severity,
            file: f.file.trim().to_string(),
            line,
            title: one_line(&f.title),
            detail: f.detail.unwrap_or_default(),
        });
    }
    let answer = Answer { verdict, findings };
    let blocks = answer.blocking().next().is_some();
    match (verdict, blocks) {
        (Verdict::Block, false) => Err(AnswerError::BlockWithoutBlocking),
        (Verdict::Pass, true) => Err(AnswerError::PassWithBlocking),
        _ => Ok(answer),
    }
}

/// The text inside one Markdown code fence, or the text itself.
fn unfence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("```") else {
        return s;
    };
    let body = rest.split_once('\n').map_or("", |(_, b)| b);
    body.trim_end().strip_suffix("```").map_or(s, str::trim)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_and_a_block_are_read_with_their_findings() {
        let a = parse(r#"{"verdict":"pass","findings":[]}"#).unwrap();
        assert_eq!(a.verdict, Verdict::Pass);
        let a = parse(
            "```json\n{\"verdict\":\"block\",\"findings\":[{\"severity\":\"blocking\",\"file\":\"src/a.rs\",\"line\":3,\"title\":\"token  compared\\nwith ==\",\"detail\":\"timing\"},{\"severity\":\"advisory\",\"file\":\"src/b.rs\",\"title\":\"name\"}]}\n```",
        )
        .unwrap();
        assert_eq!(a.verdict, Verdict::Block);
        assert_eq!(
            a.blocking().next().unwrap().name(),
            "src/a.rs:3 token compared with =="
        );
        assert_eq!(a.advisory().next().unwrap().name(), "src/b.rs name");
    }

    #[test]
    fn malformed_answers_say_what_is_wrong() {
        for (reply, says) in [
            ("", "empty"),
            ("looks good to me", "not the JSON object"),
            (r#"{"verdict":"ok","findings":[]}"#, "verdict \"ok\""),
            (r#"{"verdict":"pass"}"#, "missing field `findings`"),
            (
                r#"{"verdict":"pass","findings":[],"score":3}"#,
                "unknown field `score`",
            ),
            (
                r#"{"verdict":"block","findings":[]}"#,
                "needs at least one finding",
            ),
            (
                r#"{"verdict":"pass","findings":[{"severity":"blocking","file":"a","title":"t"}]}"#,
                "contradicts",
            ),
            (
                r#"{"verdict":"pass","findings":[{"severity":"minor","file":"a","title":"t"}]}"#,
                "severity \"minor\"",
            ),
            (
                r#"{"verdict":"pass","findings":[{"severity":"advisory","file":"","title":"t"}]}"#,
                "file is empty",
            ),
            (
                r#"{"verdict":"pass","findings":[{"severity":"advisory","file":"a","line":0,"title":"t"}]}"#,
                "line 0",
            ),
        ] {
            let e = parse(reply).unwrap_err().to_string();
            assert!(e.contains(says), "{reply}: {e}");
        }
    }
}
