//! Small readers for configuration formats, with line numbers: INI (pytest.ini, tox.ini,
//! setup.cfg, .npmrc) and TOML (through `toml`'s spanned parser). Both take text already
//! normalised to LF and never panic; a TOML file that does not parse reads as `None`.

use std::collections::BTreeMap;

use toml::de::{DeTable, DeValue};

use crate::lex::{Lang, lex};

/// One `key = value` of an INI section; continuation lines are joined with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IniEntry {
    pub key: String,
    pub value: String,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IniSection {
    pub name: String,
    pub line: u32,
    pub entries: Vec<IniEntry>,
}

impl IniSection {
    pub fn get(&self, key: &str) -> Option<&IniEntry> {
        self.entries.iter().rev().find(|e| e.key == key)
    }
}

fn line_no(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// Drops a `#` comment (at the start of a word, as the lexer reads them) or a ` ;` comment after
/// a value.
fn strip_inline_comment(v: &str) -> String {
    let code = lex(v, Lang::Hash).code;
    let end = [" ;", "\t;"]
        .iter()
        .filter_map(|p| code.find(p))
        .min()
        .unwrap_or(code.len());
    code[..end].trim_end().to_owned()
}

/// Sections of an INI text; entries before the first header are in a section named `""`.
pub fn ini(text: &str) -> Vec<IniSection> {
    let mut out = vec![IniSection {
        name: String::new(),
        line: 0,
        entries: Vec::new(),
    }];
    let mut in_value = false;
    for (i, raw) in text.lines().enumerate() {
        let t = raw.trim();
        if t.is_empty() {
            in_value = false;
            continue;
        }
        if t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        if indented && in_value {
            if let Some(e) = out.last_mut().and_then(|s| s.entries.last_mut()) {
                let v = strip_inline_comment(t);
                if !e.value.is_empty() {
                    e.value.push('\n');
                }
                e.value.push_str(&v);
            }
            continue;
        }
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            out.push(IniSection {
                name: name.trim().to_owned(),
                line: line_no(i),
                entries: Vec::new(),
            });
            in_value = false;
            continue;
        }
        let split = t.find(['=', ':']);
        let (key, value) = match split {
            Some(k) => (t[..k].trim(), strip_inline_comment(t[k + 1..].trim())),
            None => (t, String::new()),
        };
        if let Some(s) = out.last_mut() {
            s.entries.push(IniEntry {
                key: key.to_owned(),
                value,
                line: line_no(i),
            });
        }
        in_value = true;
    }
    out
}

/// A TOML value with the line of its key (or of itself, for array items).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub v: Tv,
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tv {
    Str(String),
    Bool(bool),
    /// Numbers and datetimes, as written.
    Other(String),
    Arr(Vec<Node>),
    Tab(BTreeMap<String, Node>),
}

impl Node {
    pub fn get(&self, k: &str) -> Option<&Node> {
        match &self.v {
            Tv::Tab(t) => t.get(k),
            _ => None,
        }
    }

    /// The node at a dotted path of table keys.
    pub fn at(&self, path: &[&str]) -> Option<&Node> {
        path.iter().try_fold(self, |n, k| n.get(k))
    }

    pub fn table(&self) -> Option<&BTreeMap<String, Node>> {
        match &self.v {
            Tv::Tab(t) => Some(t),
            _ => None,
        }
    }

    pub fn array(&self) -> Option<&[Node]> {
        match &self.v {
            Tv::Arr(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.v {
            Tv::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match &self.v {
            Tv::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// A string, or the strings of an array.
    pub fn strings(&self) -> Vec<String> {
        match &self.v {
            Tv::Str(s) => vec![s.clone()],
            Tv::Arr(a) => a
                .iter()
                .filter_map(|n| n.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The value in TOML-ish notation, for details.
    pub fn render(&self) -> String {
        match &self.v {
            Tv::Str(s) => format!("{s:?}"),
            Tv::Bool(b) => b.to_string(),
            Tv::Other(s) => s.clone(),
            Tv::Arr(a) => format!(
                "[{}]",
                a.iter().map(Node::render).collect::<Vec<_>>().join(", ")
            ),
            Tv::Tab(t) => format!(
                "{{ {} }}",
                t.iter()
                    .map(|(k, v)| format!("{k} = {}", v.render()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

fn line_at(text: &str, offset: usize) -> u32 {
    let before = text.get(..offset).unwrap_or(text);
    u32::try_from(before.matches('\n').count() + 1).unwrap_or(u32::MAX)
}

fn convert(text: &str, v: &DeValue<'_>, line: u32, depth: usize) -> Node {
    let v = match v {
        _ if depth > 64 => Tv::Other(String::new()),
        DeValue::String(s) => Tv::Str(s.to_string()),
        DeValue::Boolean(b) => Tv::Bool(*b),
        DeValue::Integer(i) => Tv::Other(i.as_str().to_owned()),
        DeValue::Float(f) => Tv::Other(f.as_str().to_owned()),
        DeValue::Datetime(d) => Tv::Other(d.to_string()),
        DeValue::Array(a) => Tv::Arr(
            a.iter()
                .map(|x| convert(text, x.get_ref(), line_at(text, x.span().start), depth + 1))
                .collect(),
        ),
        DeValue::Table(t) => Tv::Tab(table(text, t, depth + 1)),
    };
    Node { v, line }
}

fn table(text: &str, t: &DeTable<'_>, depth: usize) -> BTreeMap<String, Node> {
    t.iter()
        .map(|(k, v)| {
            let line = line_at(text, k.span().start);
            (
                k.get_ref().to_string(),
                convert(text, v.get_ref(), line, depth),
            )
        })
        .collect()
}

/// The document as a table node, or `None` when it does not parse.
pub fn toml(text: &str) -> Option<Node> {
    let doc = DeTable::parse(text).ok()?;
    Some(Node {
        v: Tv::Tab(table(text, doc.get_ref(), 0)),
        line: 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ini_sections_continuations_comments() {
        let s = ini(
            "top = 1\n[pytest]\naddopts = -q  # quiet\n    -k x\n; c\nmarkers:\n  slow: slow tests\n\n[tox]\nenvlist=py3\n",
        );
        assert_eq!(s.len(), 3);
        let p = &s[1];
        assert_eq!((p.name.as_str(), p.line), ("pytest", 2));
        assert_eq!(
            p.get("addopts").map(|e| (e.value.as_str(), e.line)),
            Some(("-q\n-k x", 3))
        );
        assert_eq!(
            p.get("markers").map(|e| e.value.as_str()),
            Some("slow: slow tests")
        );
        assert_eq!(s[2].get("envlist").map(|e| e.value.as_str()), Some("py3"));
    }

    #[test]
    fn toml_lines() {
        let t = toml("[package]\nname = \"a\"\n\n[[test]]\nname = \"it\"\nharness = false\n[profile.dev]\ndebug-assertions = false\n").unwrap_or(Node { v: Tv::Bool(false), line: 0 });
        assert_eq!(t.at(&["package", "name"]).map(|n| n.line), Some(2));
        let tests = t.get("test").and_then(Node::array).unwrap_or(&[]);
        assert_eq!(
            tests[0].get("harness").map(|n| (n.as_bool(), n.line)),
            Some((Some(false), 6))
        );
        assert_eq!(
            t.at(&["profile", "dev", "debug-assertions"])
                .map(|n| n.line),
            Some(8)
        );
        assert!(toml("[a\n").is_none());
    }
}
