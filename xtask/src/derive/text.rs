//! Scanning test source as text: matching brackets past strings and comments, line arithmetic,
//! finding a test function by name (Rust, Python, Go, JS/TS) and the JS call around a line.
//! Mechanical and conservative: `None` when the text is not what the rule expects.

use super::Lang;

/// The byte index of the bracket closing the one at `open`, skipping strings and comments.
pub(super) fn match_close(text: &str, open: usize, lang: Lang) -> Option<usize> {
    let b = text.as_bytes();
    let (o, c) = match b.get(open)? {
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        _ => return None,
    };
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        let ch = b[i];
        if let Some(next) = skip_token(text, i, lang) {
            i = next;
            continue;
        }
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// When a string or comment starts at `i`, the index just past it.
pub(super) fn skip_token(text: &str, i: usize, lang: Lang) -> Option<usize> {
    let b = text.as_bytes();
    let ch = b[i];
    let rest = &text[i..];
    if lang == Lang::Py {
        if ch == b'#' {
            return Some(text[i..].find('\n').map_or(b.len(), |n| i + n));
        }
        for q in ["\"\"\"", "'''"] {
            if rest.starts_with(q) {
                return Some(text[i + 3..].find(q).map_or(b.len(), |n| i + 3 + n + 3));
            }
        }
    } else {
        if rest.starts_with("//") {
            return Some(text[i..].find('\n').map_or(b.len(), |n| i + n));
        }
        if rest.starts_with("/*") {
            return Some(text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2));
        }
    }
    if lang == Lang::Rs && ch == b'r' && (i == 0 || !is_ident(b[i - 1])) {
        let hashes = rest[1..].bytes().take_while(|&c| c == b'#').count();
        if rest.as_bytes().get(1 + hashes) == Some(&b'"') {
            let close = format!("\"{}", "#".repeat(hashes));
            let from = i + 2 + hashes;
            return Some(
                text[from..]
                    .find(&close)
                    .map_or(b.len(), |n| from + n + close.len()),
            );
        }
    }
    let quote = match ch {
        b'"' => Some(b'"'),
        b'`' if matches!(lang, Lang::Js | Lang::Go) => Some(b'`'),
        b'\'' => match lang {
            Lang::Rs => {
                // A char literal ('a', '\n', 'é'), not a lifetime ('a).
                if rest[1..].starts_with('\\') {
                    Some(b'\'')
                } else {
                    let mut cs = rest[1..].chars();
                    let first = cs.next();
                    (first.is_some() && cs.next() == Some('\'')).then_some(b'\'')
                }
            }
            _ => Some(b'\''),
        },
        _ => None,
    }?;
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == b'\\' && (quote != b'`' || lang == Lang::Js) {
            j += 2;
            continue;
        }
        if b[j] == quote {
            return Some(j + 1);
        }
        if b[j] == b'\n' && quote != b'`' && lang != Lang::Rs {
            return Some(j);
        }
        j += 1;
    }
    Some(b.len())
}

pub(super) fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Byte offset of the start of each line.
pub(super) fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// The 1-based line holding byte `pos`.
pub(super) fn line_of(starts: &[usize], pos: usize) -> usize {
    match starts.binary_search(&pos) {
        Ok(i) => i + 1,
        Err(i) => i,
    }
}

/// Byte range of 1-based lines `from..=to`, with the final newline.
pub(super) fn lines_range(text: &str, from: usize, to: usize) -> (usize, usize) {
    let starts = line_starts(text);
    let a = starts.get(from - 1).copied().unwrap_or(text.len());
    let b = starts.get(to).copied().unwrap_or(text.len());
    (a, b)
}

pub(super) fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Splits at top-level occurrences of `sep`, respecting brackets and strings.
pub(super) fn split_top<'t>(s: &'t str, sep: &str, lang: Lang) -> Vec<&'t str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(n) = skip_token(s, i, lang) {
            i = n;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && s[i..].starts_with(sep) {
            out.push(&s[last..i]);
            i += sep.len();
            last = i;
            continue;
        }
        i += 1;
    }
    out.push(&s[last..]);
    out
}

// ---------------------------------------------------------------- finding tests

/// The 1-based line range of a test function named `name` (decorators/attributes included).
pub(super) fn find_function(text: &str, name: &str, lang: Lang) -> Option<(usize, usize)> {
    match lang {
        Lang::Py => find_py_def(text, name),
        Lang::Rs | Lang::Go => {
            let kw = if lang == Lang::Rs { "fn " } else { "func " };
            let starts = line_starts(text);
            for pat in [format!("{kw}{name}("), format!("{kw}{name}<")] {
                let Some(pos) = find_word(text, &pat) else {
                    continue;
                };
                let paren = pos + text[pos..].find('(')?;
                let close = match_close(text, paren, lang)?;
                let brace = close + text[close..].find('{')?;
                let end = match_close(text, brace, lang)?;
                let mut first = line_of(&starts, pos);
                let lines: Vec<&str> = text.lines().collect();
                while first > 1 {
                    let prev = lines[first - 2].trim_start();
                    if prev.starts_with("#[") || prev.starts_with("///") {
                        first -= 1;
                    } else {
                        break;
                    }
                }
                return Some((first, line_of(&starts, end)));
            }
            None
        }
        Lang::Js => {
            for q in ['"', '\'', '`'] {
                for call in ["it(", "test("] {
                    let pat = format!("{call}{q}{name}{q}");
                    if let Some(pos) = find_word(text, &pat) {
                        return js_call_span(text, pos);
                    }
                }
            }
            None
        }
    }
}

/// `pat` at a position not preceded by an identifier character.
pub(super) fn find_word(text: &str, pat: &str) -> Option<usize> {
    let b = text.as_bytes();
    text.match_indices(pat)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || !is_ident(b[i - 1]) && b[i - 1] != b'.')
}

pub(super) fn find_py_def(text: &str, name: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let def = lines.iter().position(|l| {
        let t = l.trim_start();
        let t = t.strip_prefix("async ").unwrap_or(t);
        t.strip_prefix("def ")
            .and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.starts_with('('))
    })?;
    let ind = indent_of(lines[def]);
    // Decorators above, including multi-line ones (`@pytest.mark.parametrize(` … `)`).
    let mut first = def;
    let mut k = def;
    while k > 0 {
        let p = lines[k - 1];
        let t = p.trim_start();
        if indent_of(p) == ind && t.starts_with('@') {
            k -= 1;
            first = k;
        } else if !t.is_empty() && (indent_of(p) > ind || t.starts_with(')') || t.starts_with(']'))
        {
            k -= 1;
        } else {
            break;
        }
    }
    // The signature may span lines; the body starts after the line that closes it.
    let mut depth = 0i32;
    let mut sig_end = def;
    for (k, l) in lines.iter().enumerate().skip(def) {
        for c in l.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 && l.trim_end().ends_with(':') {
            sig_end = k;
            break;
        }
    }
    let mut last = sig_end;
    for (k, l) in lines.iter().enumerate().skip(sig_end + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent_of(l) <= ind {
            break;
        }
        last = k;
    }
    Some((first + 1, last + 1))
}

/// The line span of the `it(`/`test(` call starting at byte `pos`.
pub(super) fn js_call_span(text: &str, pos: usize) -> Option<(usize, usize)> {
    let paren = pos + text[pos..].find('(')?;
    let close = match_close(text, paren, Lang::Js)?;
    let starts = line_starts(text);
    Some((line_of(&starts, pos), line_of(&starts, close)))
}

/// The byte offset of the innermost `it(`/`test(` call whose span holds 1-based `line`.
pub(super) fn js_enclosing_call(text: &str, line: usize) -> Option<usize> {
    let starts = line_starts(text);
    let mut best: Option<usize> = None;
    for call in ["it(", "test(", "it.only(", "test.only("] {
        for (pos, _) in text.match_indices(call) {
            let b = text.as_bytes();
            if pos > 0 && (is_ident(b[pos - 1]) || b[pos - 1] == b'.') {
                continue;
            }
            let Some((a, z)) = js_call_span(text, pos) else {
                continue;
            };
            if a <= line && line <= z && best.is_none_or(|p| p < pos) {
                best = Some(pos);
            }
        }
    }
    let _ = starts;
    best
}
