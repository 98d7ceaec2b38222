//! Search/replace on text: the `edit` tool's core.
//!
//! The exact rung is a substring search (so a snippet may be part of a line); the looser rungs
//! compare whole lines (see [`crate::seek`]). The first rung with any match decides: one match is
//! replaced, several are [`PatchError::Ambiguous`] with their line numbers, none at any rung is
//! [`PatchError::NoMatch`] with the closest region. CRLF text is edited as LF and written back as
//! CRLF, so an LF snippet matches a CRLF file; `\r\n` in the snippet is read as `\n`.

use crate::error::PatchError;
use crate::seek::{self, Rung, Window};
use crate::text::{Eol, join_lines, split_lines};

/// The result of a successful [`search_replace`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The whole new text.
    pub text: String,
    /// The rung that matched.
    pub rung: Rung,
    /// The 1-based line where the match starts in the old text.
    pub line: usize,
}

/// Replaces the one occurrence of `search` in `text` with `replace`, climbing the strictness
/// ladder. Pure: errors name the text as `<text>`; [`crate::edit_file`] names the file.
pub fn search_replace(text: &str, search: &str, replace: &str) -> Result<Replaced, PatchError> {
    search_replace_in("<text>", text, search, replace)
}

/// Every byte offset where `needle` starts in `hay`, overlapping matches included (`"aa"` occurs
/// twice in `"aaa"`, which is ambiguous, not one match).
fn find_overlapping(hay: &str, needle: &str) -> Vec<usize> {
    let mut hits = Vec::new();
    let mut from = 0;
    while let Some(i) = hay[from..].find(needle) {
        let at = from + i;
        hits.push(at);
        // Step one char, not one byte, to stay on a char boundary.
        from = at + hay[at..].chars().next().map_or(1, char::len_utf8);
        if from > hay.len() {
            break;
        }
    }
    hits
}

fn line_of(text: &str, offset: usize) -> usize {
    // `filter().count()` over bytes is vectorised; this runs once per edit over the prefix.
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

pub(crate) fn search_replace_in(
    path: &str,
    text: &str,
    search: &str,
    replace: &str,
) -> Result<Replaced, PatchError> {
    if search.is_empty() {
        return Err(PatchError::EmptySearch {
            path: path.to_string(),
        });
    }
    let eol = Eol::detect(text);
    let body = eol.normalise_eol(text);
    let search = search.replace("\r\n", "\n");
    let replace = replace.replace("\r\n", "\n");

    let hits = find_overlapping(&body, &search);
    if let [at] = hits[..] {
        let mut out = String::with_capacity(body.len() + replace.len());
        out.push_str(&body[..at]);
        out.push_str(&replace);
        out.push_str(&body[at + search.len()..]);
        return Ok(Replaced {
            text: eol.restore_eol(out),
            rung: Rung::Exact,
            line: line_of(&body, at),
        });
    }
    if !hits.is_empty() {
        let mut lines: Vec<usize> = hits.iter().map(|&at| line_of(&body, at)).collect();
        lines.dedup();
        return Err(PatchError::Ambiguous {
            path: path.to_string(),
            rung: Rung::Exact,
            lines,
        });
    }

    let (lines, final_newline) = split_lines(&body);
    let (pattern, _) = split_lines(&search);
    let window = Window {
        from: 0,
        at_end: false,
    };
    // Exact line equality implies a substring hit, so the line rungs start one looser.
    let Some((rung, starts)) = seek::climb(&lines, &pattern, Rung::TrailingWhitespace, window)
    else {
        return Err(PatchError::NoMatch {
            path: path.to_string(),
            closest: seek::closest(&lines, &pattern),
        });
    };
    let [start] = starts[..] else {
        return Err(PatchError::Ambiguous {
            path: path.to_string(),
            rung,
            lines: starts.iter().map(|s| s + 1).collect(),
        });
    };
    let (repl_lines, _) = split_lines(&replace);
    let end = start + pattern.len();
    let new_lines: Vec<String> = if rung.reindents() {
        seek::reindent(&repl_lines, &pattern, &lines[start..end])
    } else {
        repl_lines.iter().map(|l| (*l).to_string()).collect()
    };
    let mut out: Vec<&str> = Vec::with_capacity(lines.len() + new_lines.len());
    out.extend_from_slice(&lines[..start]);
    out.extend(new_lines.iter().map(String::as_str));
    out.extend_from_slice(&lines[end..]);
    Ok(Replaced {
        text: eol.restore_eol(join_lines(&out, final_newline)),
        rung,
        line: start + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_rung_replaces_a_substring_inside_a_line() {
        let r = search_replace("let x = 1;\nlet y = 2;\n", "y = 2", "y = 3").unwrap();
        assert_eq!(r.text, "let x = 1;\nlet y = 3;\n");
        assert_eq!((r.rung, r.line), (Rung::Exact, 2));
    }

    #[test]
    fn trailing_whitespace_rung_replaces_whole_lines() {
        let r = search_replace("a  \nb\t\nc\n", "a\nb\n", "A\nB\n").unwrap();
        assert_eq!(r.text, "A\nB\nc\n");
        assert_eq!((r.rung, r.line), (Rung::TrailingWhitespace, 1));
    }

    #[test]
    fn indentation_rung_reindents_the_replacement() {
        let text = "fn f() {\n    if x {\n        y();\n    }\n}\n";
        let r = search_replace(text, "if x {\n    y();\n}", "if x {\n    z();\n}").unwrap();
        assert_eq!(r.text, "fn f() {\n    if x {\n        z();\n    }\n}\n");
        assert_eq!((r.rung, r.line), (Rung::Indentation, 2));
    }

    #[test]
    fn punctuation_rung_matches_curly_quotes() {
        let r = search_replace(
            "say(\u{201C}hi\u{201D});\n",
            "say(\"hi\");",
            "say(\"bye\");",
        )
        .unwrap();
        assert_eq!(r.text, "say(\"bye\");\n");
        assert_eq!(r.rung, Rung::Punctuation);
    }

    #[test]
    fn ambiguous_exact_match_names_every_candidate_line() {
        let err = search_replace("x\ny\nx\n", "x", "z").unwrap_err();
        assert!(matches!(&err, PatchError::Ambiguous { lines, .. } if lines == &[1, 3]));
        assert!(err.to_string().contains("lines 1, 3"), "{err}");
    }

    #[test]
    fn overlapping_occurrences_are_ambiguous() {
        assert!(matches!(
            search_replace("aaa", "aa", "b"),
            Err(PatchError::Ambiguous { .. })
        ));
    }

    #[test]
    fn ambiguity_is_judged_at_the_first_rung_that_matches() {
        // One exact match and one indentation-only match: the exact one wins, no ambiguity.
        let r = search_replace("x()\n    x()\n", "    x()\n", "y()\n").unwrap();
        assert_eq!(r.text, "x()\ny()\n");
    }

    #[test]
    fn crlf_text_matches_an_lf_snippet_and_stays_crlf() {
        let r = search_replace("a\r\n  b\r\nc\r\n", "a\n  b\n", "a\n  B\n  B2\n").unwrap();
        assert_eq!(r.text, "a\r\n  B\r\n  B2\r\nc\r\n");
    }

    #[test]
    fn missing_final_newline_is_preserved_on_a_line_rung() {
        let r = search_replace("a\n  b", "b\n", "c\nd\n").unwrap();
        assert_eq!(r.text, "a\n  c\n  d");
    }

    #[test]
    fn empty_replacement_deletes_the_matched_lines() {
        let r = search_replace("a\nb \nc\n", "b\n", "").unwrap();
        assert_eq!(r.text, "a\nc\n");
    }

    #[test]
    fn no_match_carries_the_closest_region() {
        let err = search_replace(
            "fn a() {\n    one();\n    two();\n}\n",
            "one();\nthree();",
            "x",
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("lines 2-3"), "{msg}");
        assert!(msg.contains("     2|     one();"), "{msg}");
    }

    #[test]
    fn empty_search_is_refused() {
        assert!(matches!(
            search_replace("a", "", "b"),
            Err(PatchError::EmptySearch { .. })
        ));
    }
}
