//! Finding a sequence of lines in a file: the strictness ladder.
//!
//! Rungs, strictest first; each is tried only when every stricter rung found nothing:
//!
//! 1. [`Rung::Exact`]: lines equal byte for byte.
//! 2. [`Rung::TrailingWhitespace`]: equal after removing trailing whitespace (models often add or
//!    drop trailing spaces, and a stray `\r` is whitespace too).
//! 3. [`Rung::Indentation`]: equal after removing leading and trailing whitespace; the caller
//!    re-indents the replacement to the file's indentation ([`reindent`]).
//! 4. [`Rung::Punctuation`]: as 3, after mapping typographic punctuation to ASCII (curly quotes,
//!    dashes, non-breaking and other Unicode spaces, the ellipsis).
//!
//! Never fuzzy: every rung is an equality of whole lines under a fixed normalisation, so a match is
//! the same text up to whitespace and punctuation form, never "similar" text. Similarity is used in
//! exactly one place, [`closest`], which only builds the "did you mean" hint of an error.

use std::borrow::Cow;
use std::fmt;

use crate::error::Region;

/// Which rung of the ladder matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rung {
    Exact,
    TrailingWhitespace,
    Indentation,
    Punctuation,
}

impl Rung {
    /// The ladder, strictest first.
    pub const LADDER: [Rung; 4] = [
        Rung::Exact,
        Rung::TrailingWhitespace,
        Rung::Indentation,
        Rung::Punctuation,
    ];

    /// The name used in messages and reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Rung::Exact => "exact",
            Rung::TrailingWhitespace => "trailing-whitespace-insensitive",
            Rung::Indentation => "indentation-insensitive",
            Rung::Punctuation => "punctuation-normalised",
        }
    }

    /// The comparison key of one line at this rung: two lines match when their keys are equal.
    pub(crate) fn key(self, line: &str) -> Cow<'_, str> {
        match self {
            Rung::Exact => Cow::Borrowed(line),
            Rung::TrailingWhitespace => Cow::Borrowed(line.trim_end()),
            Rung::Indentation => Cow::Borrowed(line.trim()),
            Rung::Punctuation => normalise_punctuation(line.trim()),
        }
    }

    /// True when the rung ignores leading whitespace, so the replacement must be re-indented.
    pub(crate) fn reindents(self) -> bool {
        match self {
            Rung::Exact | Rung::TrailingWhitespace => false,
            Rung::Indentation | Rung::Punctuation => true,
        }
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Maps typographic punctuation to its ASCII form. Borrowed when there is nothing to map.
#[must_use]
pub fn normalise_punctuation(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => out.push('\''),
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{00AB}'
            | '\u{00BB}' => out.push('"'),
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' => out.push('-'),
            '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => {
                out.push(' ');
            }
            '\u{2026}' => out.push_str("..."),
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}

/// Where a pattern may start.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    /// First line index (0-based) a match may start at.
    pub from: usize,
    /// The match must end at the last line of the file.
    pub at_end: bool,
}

/// Every start index at which `pattern` matches `lines` under `rung`, in order.
pub(crate) fn find_all(lines: &[&str], pattern: &[&str], rung: Rung, window: Window) -> Vec<usize> {
    if pattern.is_empty() || pattern.len() > lines.len() {
        return Vec::new();
    }
    let last_start = lines.len() - pattern.len();
    let first_start = if window.at_end {
        last_start
    } else {
        window.from
    };
    if first_start > last_start {
        return Vec::new();
    }
    let keys: Vec<Cow<'_, str>> = pattern.iter().map(|l| rung.key(l)).collect();
    // Keys of the file are computed once per rung, not once per window.
    let file_keys: Vec<Cow<'_, str>> = lines.iter().map(|l| rung.key(l)).collect();
    (first_start..=last_start)
        .filter(|&i| keys.iter().zip(&file_keys[i..]).all(|(p, f)| p == f))
        .collect()
}

/// Climbs the ladder from `first` and returns the first rung with any match and all its matches.
pub(crate) fn climb(
    lines: &[&str],
    pattern: &[&str],
    first: Rung,
    window: Window,
) -> Option<(Rung, Vec<usize>)> {
    Rung::LADDER
        .into_iter()
        .filter(|r| *r >= first)
        .find_map(|rung| {
            let hits = find_all(lines, pattern, rung, window);
            (!hits.is_empty()).then_some((rung, hits))
        })
}

/// Most lines shown in a "did you mean" region, so a huge snippet does not flood the model.
const MAX_HINT_LINES: usize = 40;
/// Minimum character similarity (0..1) of a single line for it to be offered as a hint when no
/// line matches even after normalisation; below this the hint would mislead more than help.
const MIN_HINT_RATIO: f32 = 0.5;

/// The region of `lines` most like `pattern`, for the "did you mean" part of a no-match error.
///
/// First choice: the window with the most lines equal to the pattern's lines at the loosest rung.
/// Otherwise the line most similar (by characters) to the pattern's first non-blank line.
pub(crate) fn closest(lines: &[&str], pattern: &[&str]) -> Option<Region> {
    if lines.is_empty() || pattern.is_empty() {
        return None;
    }
    let k = pattern.len().min(lines.len());
    let loose = Rung::Punctuation;
    let pat: Vec<Cow<'_, str>> = pattern.iter().map(|l| loose.key(l)).collect();
    let file: Vec<Cow<'_, str>> = lines.iter().map(|l| loose.key(l)).collect();
    let mut best = (0usize, 0usize);
    for start in 0..=lines.len() - k {
        let score = pat
            .iter()
            .zip(&file[start..start + k])
            .filter(|(p, f)| !p.is_empty() && p == f)
            .count();
        if score > best.0 {
            best = (score, start);
        }
    }
    let start = if best.0 > 0 {
        best.1
    } else {
        let (offset, first) = pat.iter().enumerate().find(|(_, p)| !p.is_empty())?;
        let (line, ratio) = file
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.is_empty())
            .map(|(i, f)| {
                (
                    i,
                    similar::TextDiff::from_chars(first.as_ref(), f.as_ref()).ratio(),
                )
            })
            .fold(None, |acc: Option<(usize, f32)>, (i, r)| match acc {
                Some((_, best_r)) if best_r >= r => acc,
                _ => Some((i, r)),
            })?;
        if ratio < MIN_HINT_RATIO {
            return None;
        }
        line.saturating_sub(offset).min(lines.len() - k)
    };
    let end = (start + k).min(start + MAX_HINT_LINES);
    Some(Region {
        start: start + 1,
        end,
        text: lines[start..end].join("\n"),
    })
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// Re-indents `replacement` from the pattern's indentation to the file's, for rungs that ignore
/// indentation. The shift is taken from the first non-blank pattern line and the file line it
/// matched:
/// - pattern indented less than the file (its indent is a prefix of the file's): every non-blank
///   line gains the difference;
/// - pattern indented more: every line loses up to the difference in leading whitespace;
/// - different characters (tabs against spaces): the pattern's indent is swapped for the file's
///   where a line starts with it, other lines get the file's indent before their text.
pub(crate) fn reindent(replacement: &[&str], pattern: &[&str], matched: &[&str]) -> Vec<String> {
    let Some(i) = pattern.iter().position(|l| !l.trim().is_empty()) else {
        return replacement.iter().map(|l| (*l).to_string()).collect();
    };
    let from = leading_ws(pattern[i]);
    let to = leading_ws(matched[i]);
    if from == to {
        return replacement.iter().map(|l| (*l).to_string()).collect();
    }
    replacement
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                (*line).to_string()
            } else if let Some(extra) = to.strip_prefix(from) {
                format!("{extra}{line}")
            } else if let Some(excess) = from.strip_prefix(to) {
                let ws = leading_ws(line);
                let cut = ws
                    .char_indices()
                    .nth(excess.chars().count())
                    .map_or(ws.len(), |(b, _)| b);
                line[cut..].to_string()
            } else if let Some(rest) = line.strip_prefix(from) {
                format!("{to}{rest}")
            } else {
                format!("{to}{}", line.trim_start())
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANY: Window = Window {
        from: 0,
        at_end: false,
    };

    fn climb_lines(file: &[&str], pat: &[&str]) -> Option<(Rung, Vec<usize>)> {
        climb(file, pat, Rung::Exact, ANY)
    }

    #[test]
    fn exact_rung_matches_identical_lines() {
        let file = ["foo", "bar", "baz"];
        assert_eq!(
            climb_lines(&file, &["bar", "baz"]),
            Some((Rung::Exact, vec![1]))
        );
    }

    #[test]
    fn trailing_whitespace_rung_ignores_trailing_spaces_and_cr() {
        let file = ["foo   ", "bar\t", "baz\r"];
        assert_eq!(
            climb_lines(&file, &["bar", "baz  "]),
            Some((Rung::TrailingWhitespace, vec![1]))
        );
    }

    #[test]
    fn indentation_rung_ignores_leading_whitespace() {
        let file = ["    foo", "        bar", "baz"];
        assert_eq!(
            climb_lines(&file, &["foo", "    bar"]),
            Some((Rung::Indentation, vec![0]))
        );
    }

    #[test]
    fn punctuation_rung_maps_typographic_forms_to_ascii() {
        let file = [
            "import asyncio  # local import \u{2013} avoids top\u{2011}level dep",
            "print(\u{201C}hi\u{201D}\u{00A0}\u{2026})",
        ];
        let pat = [
            "import asyncio  # local import - avoids top-level dep",
            "print(\"hi\" ...)",
        ];
        assert_eq!(climb_lines(&file, &pat), Some((Rung::Punctuation, vec![0])));
    }

    #[test]
    fn stricter_rung_wins_even_when_a_looser_one_matches_elsewhere() {
        let file = ["  x", "x"];
        assert_eq!(climb_lines(&file, &["x"]), Some((Rung::Exact, vec![1])));
    }

    #[test]
    fn never_matches_text_that_differs_in_letters() {
        assert_eq!(climb_lines(&["let x = 1;"], &["let y = 1;"]), None);
    }

    #[test]
    fn at_end_only_matches_the_last_lines() {
        let file = ["a", "b", "a"];
        let w = Window {
            from: 0,
            at_end: true,
        };
        assert_eq!(
            climb(&file, &["a"], Rung::Exact, w),
            Some((Rung::Exact, vec![2]))
        );
    }

    #[test]
    fn pattern_longer_than_file_matches_nothing() {
        assert_eq!(climb_lines(&["a"], &["a", "b"]), None);
    }

    #[test]
    fn reindent_adds_removes_and_swaps_indentation() {
        assert_eq!(
            reindent(&["if x {", "    y", "}"], &["a"], &["    a"]),
            ["    if x {", "        y", "    }"]
        );
        assert_eq!(
            reindent(&["        y", "    }"], &["        a"], &["    a"]),
            ["    y", "}"]
        );
        assert_eq!(
            reindent(&["    y", "z"], &["    a"], &["\ta"]),
            ["\ty", "\tz"]
        );
    }

    #[test]
    fn closest_prefers_the_window_with_most_equal_lines() {
        let file = ["fn a() {", "    one();", "    two();", "}"];
        let r = closest(&file, &["    one();", "    three();"]).unwrap();
        assert_eq!((r.start, r.end), (2, 3));
        assert_eq!(r.text, "    one();\n    two();");
    }

    #[test]
    fn closest_falls_back_to_the_most_similar_line() {
        let file = ["alpha", "let total = compute(x);", "omega"];
        let r = closest(&file, &["let totl = compute(x);"]).unwrap();
        assert_eq!(r.start, 2);
        assert!(closest(&file, &["zzzzzzzzzzzzzzzz"]).is_none());
    }
}
