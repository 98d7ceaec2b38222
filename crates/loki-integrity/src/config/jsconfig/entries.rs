//! Entries: every object literal of a JS/TS config (by the lexer), or a parsed JSON config,
//! as dotted `key: value` paths.

use super::Entry;
use loki_syntax::lex::{Lang, Lexed, lex, matching};

struct Walker<'a> {
    s: &'a str,
    c: &'a [u8],
    lx: &'a Lexed,
    out: Vec<Entry>,
    steps: usize,
}

const MAX_DEPTH: usize = 48;

impl Walker<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while self.c.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    }

    /// Where the value starting at `i` ends: a `,`, `;`, `}`, `]` or `)` outside brackets.
    fn value_end(&self, mut i: usize) -> usize {
        let mut depth = 0usize;
        while let Some(&b) = self.c.get(i) {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' | b',' | b';' if depth == 0 => return i,
                b')' | b']' | b'}' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        i
    }

    pub(super) fn code(&self, from: usize, to: usize) -> &str {
        std::str::from_utf8(self.c.get(from..to).unwrap_or(&[])).unwrap_or("")
    }

    pub(super) fn line(&self, at: usize) -> u32 {
        let n = self
            .c
            .get(..at)
            .map_or(0, |s| s.iter().filter(|&&b| b == b'\n').count());
        u32::try_from(n + 1).unwrap_or(u32::MAX)
    }

    fn strings_in(&self, from: usize, to: usize) -> Vec<String> {
        self.lx
            .strings
            .iter()
            .filter(|(at, _)| *at >= from && *at < to)
            .map(|(_, s)| s.clone())
            .collect()
    }

    /// The value's text with its strings put back.
    fn shown(&self, from: usize, to: usize) -> String {
        let mut s = String::new();
        let mut i = from;
        while i < to {
            if let Some(v) = self.lx.string_at(i) {
                s.push('\'');
                s.push_str(v);
                s.push('\'');
                i += 2;
                continue;
            }
            match self.c.get(i) {
                Some(b) if b.is_ascii_whitespace() => {
                    if !s.ends_with(' ') {
                        s.push(' ');
                    }
                }
                Some(_) => {
                    // Multi-byte characters: copy the whole character.
                    let rest = self.code(i, to);
                    if let Some(ch) = rest.chars().next() {
                        s.push(ch);
                        i += ch.len_utf8();
                        continue;
                    }
                    i += 1;
                    continue;
                }
                None => break,
            }
            i += 1;
        }
        s.trim().to_owned()
    }

    /// Finds object and array literals in `[from, to)` and reads them under `path`.
    fn scan(&mut self, from: usize, to: usize, path: &[String], depth: usize) {
        let mut i = from;
        while i < to && i < self.c.len() {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return;
            }
            match self.c[i] {
                b'{' => i = self.object(i, path, depth + 1),
                b'[' => i = self.array(i, path, depth + 1),
                _ => i += 1,
            }
        }
    }

    fn array(&mut self, at: usize, path: &[String], depth: usize) -> usize {
        let end = matching(self.s, at);
        if depth > MAX_DEPTH {
            return end;
        }
        let mut p = path.to_vec();
        p.push("[]".into());
        self.scan(at + 1, end.saturating_sub(1), &p, depth);
        end
    }

    fn object(&mut self, at: usize, path: &[String], depth: usize) -> usize {
        let end = matching(self.s, at);
        if depth > MAX_DEPTH {
            return end;
        }
        let close = end.saturating_sub(1);
        let mut j = at + 1;
        while j < close {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return end;
            }
            j = self.ws(j);
            if j >= close {
                break;
            }
            let b = self.c[j];
            if b == b',' || b == b';' {
                j += 1;
                continue;
            }
            // The key: an identifier, a string, a number or `[computed]`.
            let key_at = j;
            let key = if self.lx.string_at(j).is_some() {
                let k = self.lx.string_at(j).unwrap_or("").to_owned();
                j += 2;
                Some(k)
            } else if b == b'[' {
                j = matching(self.s, j);
                Some("[computed]".to_owned())
            } else if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
                let s = j;
                while self
                    .c
                    .get(j)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
                {
                    j += 1;
                }
                Some(self.code(s, j).to_owned())
            } else {
                None
            };
            let Some(key) = key else {
                // A spread or anything else: read it as an expression.
                let e = self.value_end(j + 1);
                self.scan(j, e, path, depth);
                j = e.max(j + 1);
                continue;
            };
            let k = self.ws(j);
            match self.c.get(k) {
                Some(b':') => {
                    let v = self.ws(k + 1);
                    let e = self.value_end(v);
                    let mut p = path.to_vec();
                    p.push(key);
                    self.out.push(Entry {
                        path: p.clone(),
                        text: self.shown(v, e),
                        strings: self.strings_in(v, e),
                        line: self.line(key_at),
                    });
                    self.scan(v, e, &p, depth);
                    j = e.max(v + 1);
                }
                Some(b',' | b'}') => {
                    let mut p = path.to_vec();
                    p.push(key.clone());
                    self.out.push(Entry {
                        path: p,
                        text: key,
                        strings: Vec::new(),
                        line: self.line(key_at),
                    });
                    j = k;
                }
                _ => {
                    // A method, or a statement in a function body read as an object.
                    let e = self.value_end(k);
                    self.scan(k, e, path, depth);
                    j = e.max(k + 1);
                }
            }
        }
        end
    }
}

/// The entries of a JS/TS config.
pub fn js_entries(text: &str, root_array: Option<&str>) -> Vec<Entry> {
    let lx = lex(text, Lang::Js);
    let code = lx.code.clone();
    let mut w = Walker {
        s: &code,
        c: code.as_bytes(),
        lx: &lx,
        out: Vec::new(),
        steps: 0,
    };
    if let Some(name) = root_array {
        // `export default ['packages/*', { test: {...} }]`: the top-level array lists projects.
        if let Some(at) = code
            .find("export default")
            .map(|p| p + 14)
            .or_else(|| code.find("module.exports").map(|p| p + 14))
        {
            let v = w.ws(code[at..].find(['[', '(']).map_or(at, |k| at + k));
            if let Some(open) = code[v..].find('[').map(|k| v + k) {
                let end = matching(&code, open);
                w.out.push(Entry {
                    path: vec![name.to_owned()],
                    text: w.shown(open, end),
                    strings: w.strings_in(open, end),
                    line: w.line(open),
                });
            }
        }
    }
    w.scan(0, code.len(), &[], 0);
    w.out
}

/// The entries of a JSON config value (a `jest.config.json`, or `package.json`'s `jest`).
pub fn json_entries(v: &serde_json::Value, text: &str) -> Vec<Entry> {
    pub(super) fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            serde_json::Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    fn walk(
        v: &serde_json::Value,
        path: &mut Vec<String>,
        text: &str,
        out: &mut Vec<Entry>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    path.push(k.clone());
                    let mut s = Vec::new();
                    strings(x, &mut s);
                    let needle = format!("\"{k}\"");
                    let line = text
                        .lines()
                        .position(|l| l.contains(&needle))
                        .and_then(|i| u32::try_from(i + 1).ok())
                        .unwrap_or(1);
                    out.push(Entry {
                        path: path.clone(),
                        text: x.to_string(),
                        strings: s,
                        line,
                    });
                    walk(x, path, text, out, depth + 1);
                    path.pop();
                }
            }
            serde_json::Value::Array(a) => {
                path.push("[]".into());
                for x in a {
                    walk(x, path, text, out, depth + 1);
                }
                path.pop();
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), text, &mut out, 0);
    out
}
