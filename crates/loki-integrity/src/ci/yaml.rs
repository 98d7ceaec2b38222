//! Helpers over YAML values: keys, strings, environments, script lines and rendering.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

use crate::ci::yamlpos::{Seg, YamlPos};

pub(super) fn key(s: &str) -> Seg {
    Seg::Key(s.to_owned())
}

pub(super) fn str_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(super) fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Sequence(s)) => s.iter().filter_map(|x| str_of(Some(x))).collect(),
        Some(v) => str_of(Some(v)).into_iter().collect(),
        None => Vec::new(),
    }
}

pub(super) fn env_of(v: Option<&Value>, into: &mut BTreeMap<String, String>) {
    let Some(m) = v.and_then(Value::as_mapping) else {
        return;
    };
    for (k, v) in m {
        let Some(k) = k.as_str() else { continue };
        // GitLab allows `VAR: {value: x, description: y}`.
        let v = v.get("value").unwrap_or(v);
        if let Some(s) = str_of(Some(v)) {
            into.insert(k.to_owned(), s);
        }
    }
}

/// The line of the script that starts at `path`, and whether its lines follow one another in the
/// file (a `|` block scalar) or all map to its key line.
pub(super) fn script_start(pos: &YamlPos, path: &[Seg]) -> (Option<u32>, bool) {
    let Some(line) = pos.line(path) else {
        return (None, false);
    };
    let raw = pos.raw(line).unwrap_or("");
    let value = raw
        .split_once(": ")
        .map_or(raw.trim_start().trim_start_matches("- "), |(_, v)| v);
    let value = value.trim();
    let block = value.starts_with('|') || value.starts_with('>');
    if block || value.is_empty() || raw.trim_end().ends_with(':') {
        (Some(line + 1), value.starts_with('|'))
    } else {
        (Some(line), false)
    }
}

pub(super) fn render(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Sequence(s) => format!("[{}]", s.iter().map(render).collect::<Vec<_>>().join(", ")),
        Value::Mapping(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", render(k), render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Tagged(t) => render(&t.value),
    }
}
