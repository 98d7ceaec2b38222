//! Reading one configuration file into `(dotted key, value text, line)` items.
//!
//! Formats: TOML (tables or dotted keys), YAML and JSON (nested maps), and `.env` (`LOKI_*=value`
//! lines, optional `export `, `#` comments, optional single or double quotes). The format comes from
//! the extension (`.toml`, `.yaml`/`.yml`, `.json`, `.env`), else from the content.
//!
//! Values are returned as text and typed by the caller against the key's kind, so that one set of
//! rules decides what is valid whatever the file format. Line numbers come from the parser for
//! syntax errors and from a scan of the text for each key (the parsers used here do not keep
//! spans for values; a scan is exact for the shapes config files take).

use std::path::Path;

use crate::CoreError;

/// A configuration file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Yaml,
    Json,
    Env,
}

/// One setting read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub key: String,
    pub value: String,
    pub line: Option<usize>,
}

/// The format of `path`, from its extension, else from `text`.
#[must_use]
pub fn detect_format(path: &Path, text: &str) -> Format {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("toml") => return Format::Toml,
        Some("yaml" | "yml") => return Format::Yaml,
        Some("json") => return Format::Json,
        Some("env") => return Format::Env,
        _ if name == ".env" || name.starts_with(".env.") => return Format::Env,
        _ => {}
    }
    let meaningful: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if meaningful.first().is_some_and(|l| l.starts_with('{')) {
        Format::Json
    } else if !meaningful.is_empty()
        && meaningful
            .iter()
            .all(|l| l.trim_start_matches("export ").starts_with("LOKI_") && l.contains('='))
    {
        Format::Env
    } else if toml::from_str::<toml::Table>(text).is_ok() {
        Format::Toml
    } else {
        Format::Yaml
    }
}

/// Parses a configuration file into items. Syntax errors name the file and the line.
pub fn parse_file(path: &Path, text: &str) -> Result<Vec<Item>, CoreError> {
    let format = detect_format(path, text);
    let name = path.display().to_string();
    let syntax = |line: Option<usize>, message: String| CoreError::Config {
        source_name: name.clone(),
        line,
        message,
    };
    let mut flat = Vec::new();
    match format {
        Format::Env => return parse_env(&name, text),
        Format::Toml => {
            let mut table: toml::Table = toml::from_str(text).map_err(|e| {
                let line = e.span().map(|s| line_of_offset(text, s.start));
                syntax(line, format!("not valid TOML: {}", e.message()))
            })?;
            // Workspaces are structured (lists of repositories), not settings: `loki workspace`
            // reads them (`super::workspaces`).
            table.remove(super::workspaces::SECTION);
            flatten_json(
                String::new(),
                &serde_json::to_value(table).map_err(|e| syntax(None, e.to_string()))?,
                &mut flat,
            );
        }
        Format::Json => {
            let v: serde_json::Value = serde_json::from_str(text)
                .map_err(|e| syntax(Some(e.line()), format!("not valid JSON: {e}")))?;
            if !v.is_object() {
                return Err(syntax(Some(1), "expected a JSON object of settings".into()));
            }
            flatten_json(String::new(), &v, &mut flat);
        }
        Format::Yaml => {
            let v: serde_json::Value = serde_yaml_ng::from_str(text).map_err(|e| {
                syntax(
                    e.location().map(|l| l.line()),
                    format!("not valid YAML: {e}"),
                )
            })?;
            if v.is_null() {
                return Ok(Vec::new());
            }
            if !v.is_object() {
                return Err(syntax(Some(1), "expected a mapping of settings".into()));
            }
            flatten_json(String::new(), &v, &mut flat);
        }
    }
    flat.into_iter()
        .map(|(key, value)| {
            let line = find_line(format, text, &key);
            match value {
                Some(value) => Ok(Item { key, value, line }),
                None => Err(CoreError::Config {
                    source_name: name.clone(),
                    line,
                    message: format!("{key}: expected a single value (text, number or boolean)"),
                }),
            }
        })
        .collect()
}

/// Flattens nested objects to dotted keys. Leaves that are not scalars map to `None`.
fn flatten_json(prefix: String, v: &serde_json::Value, out: &mut Vec<(String, Option<String>)>) {
    use serde_json::Value as J;
    match v {
        J::Object(map) => {
            for (k, child) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten_json(key, child, out);
            }
        }
        J::String(s) => out.push((prefix, Some(s.clone()))),
        J::Number(n) => out.push((prefix, Some(n.to_string()))),
        J::Bool(b) => out.push((prefix, Some(b.to_string()))),
        J::Null | J::Array(_) => out.push((prefix, None)),
    }
}

fn parse_env(name: &str, text: &str) -> Result<Vec<Item>, CoreError> {
    let mut items = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line_no = idx + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let l = l.strip_prefix("export ").unwrap_or(l);
        let err = |message: String| CoreError::Config {
            source_name: name.to_string(),
            line: Some(line_no),
            message,
        };
        let Some((var, value)) = l.split_once('=') else {
            return Err(err(format!("expected LOKI_NAME=value, got {l:?}")));
        };
        let var = var.trim();
        let def = super::key_for_env(var).ok_or_else(|| {
            err(format!("unknown variable {var:?}: a config .env file holds LOKI_<KEY>=value lines for the keys `loki config show` lists"))
        })?;
        let value = value.trim();
        let value =
            strip_quotes(value).ok_or_else(|| err(format!("unterminated quote in {value:?}")))?;
        items.push(Item {
            key: def.key.to_string(),
            value,
            line: Some(line_no),
        });
    }
    Ok(items)
}

fn strip_quotes(v: &str) -> Option<String> {
    for q in ['"', '\''] {
        if let Some(rest) = v.strip_prefix(q) {
            return rest.strip_suffix(q).map(str::to_string);
        }
    }
    // An unquoted value may carry a trailing comment.
    Some(v.split(" #").next().unwrap_or(v).trim().to_string())
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(1, |t| t.matches('\n').count() + 1)
}

/// Finds the line where a dotted key is set, by scanning the text with a stack of open sections.
fn find_line(format: Format, text: &str, dotted: &str) -> Option<usize> {
    match format {
        Format::Toml => {
            let mut section = String::new();
            for (i, raw) in text.lines().enumerate() {
                let l = raw.trim();
                if l.starts_with('[') && !l.starts_with("[[") {
                    section = l
                        .trim_matches(|c| c == '[' || c == ']')
                        .trim()
                        .replace(['"', ' '], "");
                    continue;
                }
                if let Some((k, _)) = l.split_once('=') {
                    let k = k.trim().replace(['"', ' '], "");
                    let full = if section.is_empty() {
                        k
                    } else {
                        format!("{section}.{k}")
                    };
                    if full == dotted {
                        return Some(i + 1);
                    }
                }
            }
            None
        }
        Format::Yaml | Format::Json => {
            // Walk the path: each part must be found after the previous one, at deeper indentation.
            let parts: Vec<&str> = dotted.split('.').collect();
            let mut start = 0usize;
            let mut min_indent = 0usize;
            let lines: Vec<&str> = text.lines().collect();
            for (n, part) in parts.iter().enumerate() {
                let found = lines.iter().enumerate().skip(start).find(|(_, l)| {
                    let indent = l.len() - l.trim_start().len();
                    let t = l.trim_start().trim_start_matches(['{', ',', ' ']);
                    let t = t.trim_start_matches('"').trim_start_matches('\'');
                    (indent >= min_indent || format == Format::Json)
                        && t.starts_with(part)
                        && t[part.len()..]
                            .trim_start_matches(['"', '\''])
                            .trim_start()
                            .starts_with(':')
                })?;
                start = found.0 + if n + 1 == parts.len() { 0 } else { 1 };
                min_indent = found.1.len() - found.1.trim_start().len() + 1;
            }
            Some(start + 1)
        }
        Format::Env => None,
    }
}
