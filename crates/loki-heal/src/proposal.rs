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

/// Parses and checks the shape of a model's answer (pure).
pub fn parse_proposal(answer: &str) -> Result<Proposal, String> {
    let body = strip_fence(answer);
    let v: Value = serde_json::from_str(body).map_err(|e| {
        format!("the answer is not a JSON object ({e}); reply with only the JSON object, no prose")
    })?;
    let Some(obj) = v.as_object() else {
        return Err("the answer is JSON but not an object; reply with one JSON object".into());
    };
    if let Some(extra) = obj.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!(
            "unexpected field {extra:?}; the object has exactly the fields {}",
            FIELDS.join(", ")
        ));
    }
    let mut vals = Vec::with_capacity(FIELDS.len());
    for f in FIELDS {
        match obj.get(f) {
            None => return Err(format!("field {f} is missing")),
            Some(Value::String(s)) => vals.push(s.clone()),
            Some(other) => return Err(format!("field {f} must be a string, found {other}")),
        }
    }
    for (f, v) in FIELDS.iter().zip(&vals).take(4) {
        if v.trim().is_empty() {
            return Err(format!("field {f} is empty"));
        }
    }
    let [
        file,
        root_cause,
        explanation,
        original_snippet,
        replacement_snippet,
    ] = <[String; 5]>::try_from(vals).map_err(|_| "internal: field count".to_string())?;
    Ok(Proposal {
        file,
        root_cause,
        explanation,
        original_snippet,
        replacement_snippet,
    })
}

/// Locates the proposal in its file and computes the result in memory. `root` is canonical.
pub fn plan(root: &Path, p: Proposal) -> Result<PlannedEdit, String> {
    let rel_path = Path::new(&p.file);
    if rel_path.is_absolute() {
        return Err(format!(
            "field file is absolute ({:?}); give the path relative to the repository root",
            p.file
        ));
    }
    let root = Root::new(root).map_err(|e| format!("cannot resolve the repository root: {e}"))?;
    let (abs, rel) = confine(&root, &p.file).map_err(|why| {
        format!(
            "field file {:?} {why}; name a file of the repository",
            p.file
        )
    })?;
    let before = std::fs::read(&abs).map_err(|e| format!("cannot read {rel}: {e}"))?;
    let decoded = text::decode(&rel, &before).map_err(|e| e.to_string())?;
    let replaced =
        loki_patch::search_replace(&decoded.text, &p.original_snippet, &p.replacement_snippet)
            .map_err(|e| {
                format!(
                    "original_snippet: {}",
                    e.to_string().replace("<text>", &rel)
                )
            })?;
    let after = decoded
        .encode(&rel, &replaced.text)
        .map_err(|e| e.to_string())?;
    if after == before {
        return Err(
            "the replacement_snippet equals the original: the patch changes nothing".into(),
        );
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
        let e = parse_proposal("Sure! Here is the fix: {}").unwrap_err();
        assert!(e.starts_with("the answer is not a JSON object"), "{e}");
    }

    #[test]
    fn missing_extra_and_mistyped_fields_are_named() {
        let mut v = good();
        v.as_object_mut().unwrap().remove("original_snippet");
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err(),
            "field original_snippet is missing"
        );
        let mut v = good();
        v["confidence"] = 0.9.into();
        assert!(
            parse_proposal(&answer(&v))
                .unwrap_err()
                .contains("\"confidence\"")
        );
        let mut v = good();
        v["file"] = 3.into();
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err(),
            "field file must be a string, found 3"
        );
        let mut v = good();
        v["root_cause"] = " ".into();
        assert_eq!(
            parse_proposal(&answer(&v)).unwrap_err(),
            "field root_cause is empty"
        );
        assert!(parse_proposal("[1]").unwrap_err().contains("not an object"));
    }
}
