//! The expected and observed values of a failed assertion, read from the runner's failure text
//! (pytest, libtest, `go test`, vitest/jest), and the literal spellings a value can take in a
//! test file, so the "expected values swapped" cheat edits the literal the test compares with.

use super::Lang;
use super::text::{is_ident, split_top};

/// The expected and observed values a failure text shows, as the runner printed them.
pub(super) fn values(text: &str, lang: Lang) -> Option<(String, String)> {
    match lang {
        Lang::Py => {
            for l in text.lines() {
                let Some(e) = l.strip_prefix("E ") else {
                    continue;
                };
                let e = e.trim();
                let e = e.strip_prefix("AssertionError: ").unwrap_or(e);
                if let Some(expr) = e.strip_prefix("assert ") {
                    let parts = split_top(expr, " == ", Lang::Py);
                    if parts.len() == 2 {
                        return Some((parts[1].trim().to_owned(), parts[0].trim().to_owned()));
                    }
                    return None;
                }
                let parts = split_top(e, " != ", Lang::Py);
                if parts.len() == 2 {
                    return Some((parts[1].trim().to_owned(), parts[0].trim().to_owned()));
                }
            }
            None
        }
        Lang::Rs => {
            let mut left = None;
            let mut right = None;
            for l in text.lines() {
                let t = l.trim_start();
                if let Some(v) = t.strip_prefix("left: ") {
                    left = Some(v.to_owned());
                } else if let Some(v) = t.strip_prefix("right: ") {
                    right = Some(v.to_owned());
                }
            }
            Some((right?, left?))
        }
        Lang::Js => {
            let mut exp = None;
            let mut rec = None;
            for l in text.lines() {
                let t = l.trim();
                if let Some(v) = t.strip_prefix("Expected: ") {
                    exp.get_or_insert(v.to_owned());
                } else if let Some(v) = t.strip_prefix("Received: ") {
                    rec.get_or_insert(v.to_owned());
                } else if let Some(i) = t.find("expected ") {
                    let rest = &t[i + "expected ".len()..];
                    for m in [
                        " to deeply equal ",
                        " to strictly equal ",
                        " to equal ",
                        " to be ",
                    ] {
                        if let Some((a, b)) = rest.split_once(m) {
                            let b = b.split(" // ").next().unwrap_or(b);
                            return Some((b.trim().to_owned(), a.trim().to_owned()));
                        }
                    }
                }
            }
            Some((exp?, rec?))
        }
        Lang::Go => {
            for l in text.lines() {
                let t = l.trim();
                let Some((_, msg)) = t.split_once(".go:").and_then(|(_, r)| r.split_once(": "))
                else {
                    continue;
                };
                if let Some(v) = go_values(msg) {
                    return Some(v);
                }
            }
            None
        }
    }
}

/// `got X, want Y` and its common spellings → (expected, observed).
pub(super) fn go_values(msg: &str) -> Option<(String, String)> {
    let lower = msg.to_lowercase();
    for (got_kw, want_kw) in [
        ("got", "want"),
        ("have", "want"),
        ("got", "expected"),
        ("actual", "expected"),
    ] {
        let Some(g) = find_kw(&lower, got_kw) else {
            continue;
        };
        let Some(w) = find_kw(&lower, want_kw) else {
            continue;
        };
        let cut = |from: usize, until: Option<usize>| -> String {
            let s = &msg[from..until.unwrap_or(msg.len())];
            let s = s.trim_start_matches([':', '=', ' ']);
            let s = s.trim_end_matches([',', ';', ' ']);
            let s = s.strip_suffix(" but").unwrap_or(s);
            s.trim().to_owned()
        };
        let (got, want) = if g.0 < w.0 {
            (cut(g.1, Some(w.0)), cut(w.1, None))
        } else {
            (cut(g.1, None), cut(w.1, Some(g.0)))
        };
        if !got.is_empty() && !want.is_empty() {
            return Some((want, got));
        }
    }
    None
}

/// (start, end) of `kw` as a whole word in `s`.
pub(super) fn find_kw(s: &str, kw: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    s.match_indices(kw).map(|(i, _)| i).find_map(|i| {
        let before = i == 0 || !is_ident(b[i - 1]);
        let j = i + kw.len();
        let after = j >= b.len() || !is_ident(b[j]);
        (before && after).then_some((i, j))
    })
}

/// The spellings a printed value may have as a literal in the source.
pub(super) fn literal_forms(v: &str) -> Vec<String> {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            let inner = &v[1..v.len() - 1];
            return vec![
                format!("\"{inner}\""),
                format!("'{inner}'"),
                format!("`{inner}`"),
            ];
        }
    }
    if v.parse::<f64>().is_ok()
        || matches!(
            v,
            "true" | "false" | "True" | "False" | "None" | "null" | "nil"
        )
        || v.starts_with(['[', '{', '('])
    {
        return vec![v.to_owned()];
    }
    vec![format!("\"{v}\""), format!("`{v}`"), v.to_owned()]
}

/// `observed` written as a literal in the style of `form` (the matched source spelling).
pub(super) fn render_like(observed: &str, form: &str) -> String {
    let o = observed.trim();
    let inner = ['"', '\''].iter().find_map(|&q| {
        (o.len() >= 2 && o.starts_with(q) && o.ends_with(q)).then(|| &o[1..o.len() - 1])
    });
    let q = form
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'));
    match (q, inner) {
        (Some(q), Some(inner)) => format!("{q}{inner}{q}"),
        (Some(q), None)
            if !(o.parse::<f64>().is_ok() || matches!(o, "true" | "false" | "nil" | "null")) =>
        {
            format!("{q}{o}{q}")
        }
        _ => o.to_owned(),
    }
}

/// Occurrences of `form` in `text[a..b]` on token boundaries.
pub(super) fn occurrences(text: &str, form: &str, a: usize, b: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let quoted = form.starts_with(['"', '\'', '`']);
    text[a..b]
        .match_indices(form)
        .map(|(i, _)| a + i)
        .filter(|&i| {
            quoted || {
                let before = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b'.');
                let j = i + form.len();
                let after = j >= bytes.len() || !(is_ident(bytes[j]) || bytes[j] == b'.');
                before && after
            }
        })
        .collect()
}
