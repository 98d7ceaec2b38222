//! The patch a model proposes, validated before anything is touched.
//!
//! The model must answer with exactly one JSON object ([`PROPOSAL_SCHEMA`]):
//! `{"file", "root_cause", "explanation", "original_snippet", "replacement_snippet"}`, all strings,
//! nothing else (a single surrounding Markdown code fence is tolerated, prose is not). `file` is
//! relative to the repository, confined to it ([`crate::resolve::confine`]: not in `.git`, `.loki`
//! or [`loki_core::walk::DEPENDENCY_DIRS`]) and an existing regular file;
//! `original_snippet` must occur exactly once in that file on the `loki-patch` ladder (exact,
//! then whitespace-tolerant); the replacement must change something.
//!
//! [`plan`] computes the patched bytes in memory with [`loki_patch::search_replace`] (which keeps
//! CRLF line endings, a BOM and a missing final newline) and renders the diff; nothing is written.
//! Every rejection is a sentence written for the model, which gets one retry with it.

use std::path::{Path, PathBuf};

use loki_patch::text;
use serde_json::Value;

use loki_core::paths::Root;

use crate::resolve::confine;

/// The JSON Schema the answer is validated against (sent to the model in the prompt).
pub const PROPOSAL_SCHEMA: &str = r#"{"type": "object", "additionalProperties": false,
 "required": ["file", "root_cause", "explanation", "original_snippet", "replacement_snippet"],
 "properties": {
  "file": {"type": "string", "minLength": 1, "description": "path relative to the repository root"},
  "root_cause": {"type": "string", "minLength": 1},
  "explanation": {"type": "string", "minLength": 1},
  "original_snippet": {"type": "string", "minLength": 1, "description": "exact text copied from the file, occurring once"},
  "replacement_snippet": {"type": "string", "description": "the text that replaces it"}}}"#;

/// The fields, in the order the schema lists them.
const FIELDS: [&str; 5] = [
    "file",
    "root_cause",
    "explanation",
    "original_snippet",
    "replacement_snippet",
];

/// A validated patch proposal.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Proposal {
    pub file: String,
    pub root_cause: String,
    pub explanation: String,
    pub original_snippet: String,
    pub replacement_snippet: String,
}

/// The patch as it would be applied: bytes before and after, and the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedEdit {
    pub proposal: Proposal,
    /// Relative to the repository root.
    pub rel: String,
    pub abs: PathBuf,
    pub before: Vec<u8>,
    pub after: Vec<u8>,
    /// Plain unified diff (`a/<rel>`, `b/<rel>`).
    pub diff: String,
    /// The 1-based line where the snippet was found.
    pub line: usize,
    /// The rung of the strictness ladder that matched (`exact`, …).
    pub rung: String,
}

impl PlannedEdit {
    /// Lines added and removed by the diff.
    #[must_use]
    pub fn stat(&self) -> (u64, u64) {
        let mut ins = 0;
        let mut del = 0;
        for l in self.diff.lines() {
            if l.starts_with('+') && !l.starts_with("+++") {
                ins += 1;
            } else if l.starts_with('-') && !l.starts_with("---") {
                del += 1;
            }
        }
        (ins, del)
    }
}

/// Removes one surrounding Markdown code fence (```json … ```), if any.
fn strip_fence(text: &str) -> &str {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return t;
    };
    let Some(body_start) = rest.find('\n') else {
        return t;
    };
    match rest[body_start..].trim_end().strip_suffix("```") {
        Some(body) => body.trim(),
        None => t,
    }
}

/// Why a model's answer is not a patch loki can apply: each names what the model must change in
/// its next answer (the words go back to it), with the evidence.
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error("the answer is not a JSON object ({error}); reply with only the JSON object, no prose")]
    NotJson { error: serde_json::Error },
    #[error("the answer is JSON but not an object; reply with one JSON object")]
    NotObject,
    #[error("unexpected field {field:?}; the object has exactly the fields {}", FIELDS.join(", "))]
    UnexpectedField { field: String },
    #[error("field {field} is missing")]
    MissingField { field: &'static str },
    #[error("field {field} must be a string, found {found}")]
    NotAString { field: &'static str, found: Value },
    #[error("field {field} is empty")]
    EmptyField { field: &'static str },
    #[error("field file is absolute ({file:?}); give the path relative to the repository root")]
    AbsoluteFile { file: String },
    #[error("cannot resolve the repository root: {error}")]
    Root { error: std::io::Error },
    /// `why` is [`confine`]'s predicate ("is outside the repository").
    #[error("field file {file:?} {why}; name a file of the repository")]
    Refused {
        file: String,
        why: crate::resolve::Refusal,
    },
    #[error("cannot read {rel}: {error}")]
    Read { rel: String, error: std::io::Error },
    /// The file cannot be decoded or encoded as text.
    #[error("{0}")]
    Text(loki_patch::PatchError),
    /// `original_snippet` is not found once in the file (`detail` names the file).
    #[error("original_snippet: {detail}")]
    Snippet { detail: String },
    #[error("the replacement_snippet equals the original: the patch changes nothing")]
    NoChange,
}

/// Parses and checks the shape of a model's answer (pure).
pub fn parse_proposal(answer: &str) -> Result<Proposal, ProposalError> {
    let body = strip_fence(answer);
    let v: Value = serde_json::from_str(body).map_err(|error| ProposalError::NotJson { error })?;
    let Some(obj) = v.as_object() else {
        return Err(ProposalError::NotObject);
    };
    if let Some(extra) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(ProposalError::UnexpectedField {
            field: extra.clone(),
        });
    }
    for field in FIELDS {
        match obj.get(field) {
            None => return Err(ProposalError::MissingField { field }),
            Some(Value::String(_)) => {}
            Some(other) => {
                return Err(ProposalError::NotAString {
                    field,
                    found: other.clone(),
                });
            }
        }
    }
    // Every field is a string now.
    let text = |f: &str| obj.get(f).and_then(Value::as_str).unwrap_or_default();
    if let Some(field) = FIELDS.iter().take(4).find(|f| text(f).trim().is_empty()) {
        return Err(ProposalError::EmptyField { field });
    }
    Ok(Proposal {
        file: text("file").to_string(),
        root_cause: text("root_cause").to_string(),
        explanation: text("explanation").to_string(),
        original_snippet: text("original_snippet").to_string(),
        replacement_snippet: text("replacement_snippet").to_string(),
    })
}

/// Locates the proposal in its file and computes the result in memory. `root` is canonical.
pub fn plan(root: &Path, p: Proposal) -> Result<PlannedEdit, ProposalError> {
    let rel_path = Path::new(&p.file);
    if rel_path.is_absolute() {
        return Err(ProposalError::AbsoluteFile { file: p.file });
    }
    let root = Root::new(root).map_err(|error| ProposalError::Root { error })?;
    let (abs, rel) = confine(&root, &p.file).map_err(|why| ProposalError::Refused {
        file: p.file.clone(),
        why,
    })?;
    let before = std::fs::read(&abs).map_err(|error| ProposalError::Read {
        rel: rel.clone(),
        error,
    })?;
    let decoded = text::decode(&rel, &before).map_err(ProposalError::Text)?;
    let replaced =
        loki_patch::search_replace(&decoded.text, &p.original_snippet, &p.replacement_snippet)
            .map_err(|e| ProposalError::Snippet {
                detail: e.to_string().replace("<text>", &rel),
            })?;
    let after = decoded
        .encode(&rel, &replaced.text)
        .map_err(ProposalError::Text)?;
    if after == before {
        return Err(ProposalError::NoChange);
    }
    let diff = loki_patch::render_diff(&rel, &decoded.text, &replaced.text, false);
    Ok(PlannedEdit {
        proposal: p,
        rel,
        abs,
        before,
        after,
        diff,
        line: replaced.line,
        rung: replaced.rung.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(v: &Value) -> String {
        v.to_string()
    }

    fn good() -> Value {
        serde_json::json!({
            "file": "app.py", "root_cause": "empty list", "explanation": "guard it",
            "original_snippet": "a / b", "replacement_snippet": "a / b if b else 0"
        })
    }

    #[test]
    fn a_fenced_object_is_accepted_and_prose_is_not() {
        let fenced = format!("```json\n{}\n```", answer(&good()));
        assert_eq!(parse_proposal(&fenced).unwrap().file, "app.py");
        let e = parse_proposal("Sure! Here is the fix: {}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("the answer is not a JSON object"), "{e}");
    }

    #[test]
    fn missing_extra_and_mistyped_fields_are_named() {
        let mut v = good();
        v.as_object_mut().unwrap().remove("original_snippet");
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err().to_string(),
            "field original_snippet is missing"
        );
        let mut v = good();
        v["confidence"] = 0.9.into();
        assert!(
            parse_proposal(&answer(&v))
                .unwrap_err()
                .to_string()
                .contains("\"confidence\"")
        );
        let mut v = good();
        v["file"] = 3.into();
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err().to_string(),
            "field file must be a string, found 3"
        );
        let mut v = good();
        v["root_cause"] = " ".into();
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err().to_string(),
            "field root_cause is empty"
        );
        assert!(
            parse_proposal("[1]")
                .unwrap_err()
                .to_string()
                .contains("not an object")
        );
    }
}
