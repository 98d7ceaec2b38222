//! Format-preserving edits of a JSON text: the positions of every object member and array item
//! ([`parse`]), and byte-range edits ([`apply`]) that leave every other byte as it was.
//!
//! `seal install` edits a user's settings file: parsing it into a `serde_json::Value` and writing
//! that back would re-sort its keys, re-indent it and re-escape its strings. Instead the text is
//! read once for positions and only loki's own entries are inserted, replaced or removed; the
//! inserted text follows the file's own indentation and key separator.
//!
//! The parser expects text `serde_json` has already accepted (strict JSON, no comments); on
//! anything else it returns an error rather than a guess.

use std::ops::Range;

use serde_json::Value;

/// Why a JSON text cannot be read for positions or edited; the byte offsets are the evidence.
#[derive(Debug, thiserror::Error)]
pub enum JsonTextError {
    #[error("unexpected text after the value at byte {at}")]
    Trailing { at: usize },
    /// `what` is the expected text, quoted (`` `:` ``, `` `,` or `}` ``).
    #[error("expected {what} at byte {at}")]
    Expected { what: String, at: usize },
    #[error("nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("unexpected end of the text")]
    End,
    #[error("unterminated string from byte {from}")]
    Unterminated { from: usize },
    /// A key or value `serde_json` does not read, or a value it cannot write.
    #[error("{0}")]
    Json(serde_json::Error),
    #[error("overlapping edits at bytes {first:?} and {second:?}")]
    Overlap {
        first: Range<usize>,
        second: Range<usize>,
    },
    #[error("an edit at bytes {range:?} is outside the text")]
    OutsideText { range: Range<usize> },
    /// An edit of an array or object was asked of another kind of node.
    #[error("not {wanted}")]
    Shape { wanted: &'static str },
    #[error("cannot remove every item of an array this way")]
    RemoveAll,
    /// The last items of an array are removed, but no item stays before them to end the list.
    #[error("no item is left before the removed ones")]
    NothingBefore,
}

/// A JSON value and where it is in the text.
#[derive(Debug, Clone)]
pub enum Node {
    Object {
        span: Range<usize>,
        members: Vec<Member>,
    },
    Array {
        span: Range<usize>,
        items: Vec<Node>,
    },
    Scalar {
        span: Range<usize>,
    },
}

/// One `"key": value` of an object.
#[derive(Debug, Clone)]
pub struct Member {
    pub key: String,
    pub key_span: Range<usize>,
    pub value: Node,
}

impl Node {
    /// The bytes the value occupies.
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Object { span, .. } | Node::Array { span, .. } | Node::Scalar { span } => {
                span.clone()
            }
        }
    }

    /// The member `key` of an object.
    #[must_use]
    pub fn member(&self, key: &str) -> Option<&Member> {
        match self {
            Node::Object { members, .. } => members.iter().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The value as `serde_json` reads it.
    pub fn value(&self, text: &str) -> Result<Value, JsonTextError> {
        serde_json::from_str(&text[self.span()]).map_err(JsonTextError::Json)
    }
}

/// One replacement of `range` by `text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

/// Applies non-overlapping `edits` to `text`.
pub fn apply(text: &str, mut edits: Vec<Edit>) -> Result<String, JsonTextError> {
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    for pair in edits.windows(2) {
        if pair[0].range.end > pair[1].range.start {
            return Err(JsonTextError::Overlap {
                first: pair[0].range.clone(),
                second: pair[1].range.clone(),
            });
        }
    }
    let mut out = text.to_string();
    for e in edits.iter().rev() {
        if e.range.end > out.len() || !out.is_char_boundary(e.range.start) {
            return Err(JsonTextError::OutsideText {
                range: e.range.clone(),
            });
        }
        out.replace_range(e.range.clone(), &e.text);
    }
    Ok(out)
}

/// The positions of the JSON value that is `text`.
pub fn parse(text: &str) -> Result<Node, JsonTextError> {
    let mut p = Parser {
        b: text.as_bytes(),
        text,
        at: 0,
    };
    p.ws();
    let node = p.value(0)?;
    p.ws();
    if p.at != p.b.len() {
        return Err(JsonTextError::Trailing { at: p.at });
    }
    Ok(node)
}

/// Deeper nesting than this is refused (no stack overflow on hostile input).
const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    b: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.at < self.b.len() && matches!(self.b[self.at], b' ' | b'\t' | b'\n' | b'\r') {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Result<(), JsonTextError> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(JsonTextError::Expected {
                what: format!("`{}`", c as char),
                at: self.at,
            })
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, JsonTextError> {
        if depth > MAX_DEPTH {
            return Err(JsonTextError::TooDeep);
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let span = self.string()?;
                Ok(Node::Scalar { span })
            }
            Some(_) => {
                let start = self.at;
                while self.at < self.b.len()
                    && !matches!(
                        self.b[self.at],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.at += 1;
                }
                Ok(Node::Scalar {
                    span: start..self.at,
                })
            }
            None => Err(JsonTextError::End),
        }
    }

    fn string(&mut self) -> Result<Range<usize>, JsonTextError> {
        let start = self.at;
        self.expect(b'"')?;
        while let Some(c) = self.peek() {
            self.at += 1;
            match c {
                b'\\' => self.at += 1,
                b'"' => return Ok(start..self.at),
                _ => {}
            }
        }
        Err(JsonTextError::Unterminated { from: start })
    }

    fn object(&mut self, depth: usize) -> Result<Node, JsonTextError> {
        let start = self.at;
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Node::Object {
                span: start..self.at,
                members,
            });
        }
        loop {
            self.ws();
            let key_span = self.string()?;
            let key: String =
                serde_json::from_str(&self.text[key_span.clone()]).map_err(JsonTextError::Json)?;
            self.ws();
            self.expect(b':')?;
            self.ws();
            let value = self.value(depth + 1)?;
            members.push(Member {
                key,
                key_span,
                value,
            });
            self.ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Node::Object {
                        span: start..self.at,
                        members,
                    });
                }
                _ => {
                    return Err(JsonTextError::Expected {
                        what: "`,` or `}`".into(),
                        at: self.at,
                    });
                }
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Node, JsonTextError> {
        let start = self.at;
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Node::Array {
                span: start..self.at,
                items,
            });
        }
        loop {
            self.ws();
            items.push(self.value(depth + 1)?);
            self.ws();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Node::Array {
                        span: start..self.at,
                        items,
                    });
                }
                _ => {
                    return Err(JsonTextError::Expected {
                        what: "`,` or `]`".into(),
                        at: self.at,
                    });
                }
            }
        }
    }
}

/// How the file lays itself out, so that inserted text looks like the rest.
#[derive(Debug, Clone)]
pub struct Style {
    /// One level of indentation (the first indented line's; two spaces when none is).
    pub unit: String,
}

impl Style {
    /// The style of `text`.
    #[must_use]
    pub fn of(text: &str) -> Style {
        let unit = text
            .lines()
            .skip(1)
            .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
            .find(|ws| !ws.is_empty())
            .unwrap_or("  ");
        Style {
            unit: unit.to_string(),
        }
    }

    /// `value` as text starting at a line indented by `indent`: pretty with the file's unit.
    pub fn render(&self, value: &Value, indent: &str) -> Result<String, JsonTextError> {
        let mut buf = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        serde::Serialize::serialize(value, &mut ser).map_err(JsonTextError::Json)?;
        // serde_json writes UTF-8 only.
        let text = String::from_utf8_lossy(&buf);
        Ok(text.replace('\n', &format!("\n{indent}")))
    }
}

/// The whitespace that starts the line `at` is on.
#[must_use]
pub fn indent_at(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Whether the text between `from` and `to` holds a newline (the item at `to` starts a line).
fn starts_line(text: &str, from: usize, to: usize) -> bool {
    text[from..to].contains('\n')
}

/// The edit that appends `value` to `array` (an [`Node::Array`]).
pub fn append_item(
    text: &str,
    array: &Node,
    value: &Value,
    style: &Style,
) -> Result<Edit, JsonTextError> {
    let Node::Array { span, items } = array else {
        return Err(JsonTextError::Shape { wanted: "an array" });
    };
    match items.last() {
        Some(last) => {
            let before = if items.len() > 1 {
                items[items.len() - 2].span().end
            } else {
                span.start + 1
            };
            let end = last.span().end;
            let text_new = if starts_line(text, before, last.span().start) {
                let indent = indent_at(text, last.span().start);
                format!(",\n{indent}{}", style.render(value, indent)?)
            } else {
                format!(", {value}")
            };
            Ok(Edit {
                range: end..end,
                text: text_new,
            })
        }
        None => {
            let outer = indent_at(text, span.start);
            let inner = format!("{outer}{}", style.unit);
            Ok(Edit {
                range: span.start + 1..span.end - 1,
                text: format!("\n{inner}{}\n{outer}", style.render(value, &inner)?),
            })
        }
    }
}

/// The edit that adds `members` (key, value) at the end of `object` (an [`Node::Object`]).
pub fn append_members(
    text: &str,
    object: &Node,
    members: &[(&str, Value)],
    style: &Style,
) -> Result<Edit, JsonTextError> {
    let Node::Object { span, members: old } = object else {
        return Err(JsonTextError::Shape {
            wanted: "an object",
        });
    };
    let key = |k: &str| Value::String(k.to_string()).to_string();
    match old.last() {
        Some(last) => {
            let before = if old.len() > 1 {
                old[old.len() - 2].value.span().end
            } else {
                span.start + 1
            };
            let sep = &text[last.key_span.end..last.value.span().start];
            let on_lines = starts_line(text, before, last.key_span.start);
            let indent = indent_at(text, last.key_span.start);
            let mut out = String::new();
            for (k, v) in members {
                if on_lines {
                    out.push_str(&format!(
                        ",\n{indent}{}{sep}{}",
                        key(k),
                        style.render(v, indent)?
                    ));
                } else {
                    out.push_str(&format!(", {}{sep}{v}", key(k)));
                }
            }
            let end = last.value.span().end;
            Ok(Edit {
                range: end..end,
                text: out,
            })
        }
        None => {
            let outer = indent_at(text, span.start);
            let inner = format!("{outer}{}", style.unit);
            let body = members
                .iter()
                .map(|(k, v)| Ok(format!("{inner}{}: {}", key(k), style.render(v, &inner)?)))
                .collect::<Result<Vec<_>, JsonTextError>>()?
                .join(",\n");
            Ok(Edit {
                range: span.start + 1..span.end - 1,
                text: format!("\n{body}\n{outer}"),
            })
        }
    }
}

/// The edits that remove the items of `array` whose indexes are in `remove` (sorted, and never
/// all of them): each run of removed items goes with the separator after it, or, for a run at
/// the end, the separator before it, so the edits never overlap.
pub fn remove_items(array: &Node, remove: &[usize]) -> Result<Vec<Edit>, JsonTextError> {
    let Node::Array { items, .. } = array else {
        return Err(JsonTextError::Shape { wanted: "an array" });
    };
    if remove.len() >= items.len() {
        return Err(JsonTextError::RemoveAll);
    }
    let mut edits = Vec::new();
    let mut i = 0;
    while i < remove.len() {
        let first = remove[i];
        let mut last = first;
        while i + 1 < remove.len() && remove[i + 1] == last + 1 {
            i += 1;
            last += 1;
        }
        let range = match items.get(last + 1) {
            Some(next) => items[first].span().start..next.span().start,
            None => {
                let prev = first
                    .checked_sub(1)
                    .and_then(|p| items.get(p))
                    .ok_or(JsonTextError::NothingBefore)?;
                prev.span().end..items[last].span().end
            }
        };
        edits.push(Edit {
            range,
            text: String::new(),
        });
        i += 1;
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spans_cover_members_and_items() {
        let text = "{ \"b\" : [1, {\"x\":\"\\\"}\"}], \"a\":null }";
        let root = parse(text).unwrap();
        let b = root.member("b").unwrap();
        assert_eq!(&text[b.value.span()], "[1, {\"x\":\"\\\"}\"}]");
        assert_eq!(&text[root.member("a").unwrap().value.span()], "null");
        assert!(parse("{\"a\":1} x").is_err());
        assert!(parse("{\"a\" 1}").is_err());
    }

    #[test]
    fn appends_follow_the_files_layout() {
        let text = "{\n\t\"list\": [\n\t\t1\n\t],\n\t\"empty\": [],\n\t\"flat\": [1, 2]\n}\n";
        let root = parse(text).unwrap();
        let style = Style::of(text);
        let edits = vec![
            append_item(
                text,
                &root.member("list").unwrap().value,
                &json!({"k": 2}),
                &style,
            )
            .unwrap(),
            append_item(
                text,
                &root.member("empty").unwrap().value,
                &json!(3),
                &style,
            )
            .unwrap(),
            append_item(text, &root.member("flat").unwrap().value, &json!(3), &style).unwrap(),
            append_members(text, &root, &[("new", json!([true]))], &style).unwrap(),
        ];
        assert_eq!(
            apply(text, edits).unwrap(),
            "{\n\t\"list\": [\n\t\t1,\n\t\t{\n\t\t\t\"k\": 2\n\t\t}\n\t],\n\t\"empty\": [\n\t\t3\n\t],\n\t\"flat\": [1, 2, 3],\n\t\"new\": [\n\t\ttrue\n\t]\n}\n"
        );
    }

    #[test]
    fn removed_items_take_their_separators_with_them() {
        let text = "[ 0,  1,\n 2 ,3, 4 ]";
        let root = parse(text).unwrap();
        let out = apply(text, remove_items(&root, &[1, 2, 4]).unwrap()).unwrap();
        assert_eq!(out, "[ 0,  3 ]");
        let out = apply(text, remove_items(&root, &[0]).unwrap()).unwrap();
        assert_eq!(out, "[ 1,\n 2 ,3, 4 ]");
        assert!(remove_items(&root, &[0, 1, 2, 3, 4]).is_err());
    }
}
