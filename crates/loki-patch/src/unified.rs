//! Plain unified diffs: parsing and applying, all or nothing.
//!
//! Format read (what `diff -u`, `git diff` and [`crate::render_diff`] write):
//!
//! ```text
//! file:   ("--- " old_path ["\t" stamp] LF) ("+++ " new_path ["\t" stamp] LF) hunk+
//! hunk:   "@@ -" l ["," n] " +" l ["," n] " @@" [text] LF body
//! body:   (" " line | "-" line | "+" line | "" | "\ No newline at end of file")*
//! ```
//!
//! Lines outside files (`diff --git`, `index`, mode lines, prose) are skipped. `/dev/null` as the
//! old path adds a file (refused if it exists: the diff is stale), as the new path deletes one
//! (the diff must remove every line). The `a/` and `b/` prefixes of git are stripped when both
//! sides carry them. A hunk's body must hold exactly the line counts of its header. `\r\n` in the
//! diff is read as `\n`.
//!
//! Locating a hunk: at each rung of the ladder, the position its header names is tried first,
//! then the rest of the file after the previous hunk; one match is taken, several are
//! [`PatchError::HunkAmbiguous`]. When the last hunk reaches the end of the file, its `\ No
//! newline` marker decides the final newline; otherwise the file keeps its own.

use std::path::Path;

use crate::apply::{Splice, splice};
use crate::error::PatchError;
use crate::seek::{self, Rung, Window};
use crate::stage::{ApplyOptions, FileChange, HunkMatch, Stage};
use crate::text::{self, join_lines, split_lines};

/// A parsed unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedPatch {
    pub files: Vec<UnifiedFile>,
}

/// One file of a unified diff; `None` is `/dev/null`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedFile {
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub hunks: Vec<UnifiedHunk>,
}

/// One `@@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnifiedHunk {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<DiffLine>,
    /// The new side's last line has no newline (`\ No newline at end of file` after it).
    pub new_missing_newline: bool,
}

/// One body line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    Context(String),
    Removed(String),
    Added(String),
}

impl UnifiedHunk {
    fn old_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                DiffLine::Context(s) | DiffLine::Removed(s) => Some(s.as_str()),
                DiffLine::Added(_) => None,
            })
            .collect()
    }

    fn new_lines(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter_map(|l| match l {
                DiffLine::Context(s) | DiffLine::Added(s) => Some(s.as_str()),
                DiffLine::Removed(_) => None,
            })
            .collect()
    }
}

fn err(line: usize, message: impl Into<String>) -> PatchError {
    PatchError::Parse {
        line,
        message: message.into(),
    }
}

fn header_path(raw: &str) -> Option<String> {
    let p = raw.split('\t').next().unwrap_or(raw).trim_end();
    (p != "/dev/null").then(|| p.to_string())
}

fn parse_range(s: &str, line: usize) -> Result<(usize, usize), PatchError> {
    let bad = || {
        err(
            line,
            format!("bad range '{s}' in hunk header; expected L or L,N"),
        )
    };
    let (start, len) = match s.split_once(',') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    };
    let start = start.parse().map_err(|_| bad())?;
    let len = match len {
        Some(n) => n.parse().map_err(|_| bad())?,
        None => 1,
    };
    Ok((start, len))
}

fn parse_hunk_header(h: &str, line: usize) -> Result<(usize, usize, usize, usize), PatchError> {
    let bad = || {
        err(
            line,
            format!("bad hunk header '{h}'; expected '@@ -l,n +l,n @@'"),
        )
    };
    let rest = h.strip_prefix("@@ -").ok_or_else(bad)?;
    let (ranges, _) = rest.split_once(" @@").ok_or_else(bad)?;
    let (old, new) = ranges.split_once(" +").ok_or_else(bad)?;
    let (os, ol) = parse_range(old, line)?;
    let (ns, nl) = parse_range(new, line)?;
    Ok((os, ol, ns, nl))
}

/// Parses a unified diff of one or more files.
pub fn parse_unified(text: &str) -> Result<UnifiedPatch, PatchError> {
    let text = text.replace("\r\n", "\n");
    let (lines, _) = split_lines(&text);
    let mut files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (Some(old), Some(new)) = (
            lines[i].strip_prefix("--- "),
            lines.get(i + 1).and_then(|l| l.strip_prefix("+++ ")),
        ) else {
            i += 1;
            continue;
        };
        let header_line = i + 1;
        let (mut old_path, mut new_path) = (header_path(old), header_path(new));
        let git_style = old_path.as_deref().is_none_or(|p| p.starts_with("a/"))
            && new_path.as_deref().is_none_or(|p| p.starts_with("b/"));
        if git_style {
            old_path = old_path.map(|p| p[2..].to_string());
            new_path = new_path.map(|p| p[2..].to_string());
        }
        if old_path.is_none() && new_path.is_none() {
            return Err(err(header_line, "both sides of the file are /dev/null"));
        }
        i += 2;
        let mut hunks = Vec::new();
        while i < lines.len() && lines[i].starts_with("@@") {
            hunks.push(parse_hunk(&lines, &mut i)?);
        }
        if hunks.is_empty() {
            return Err(err(
                header_line,
                "the file header is not followed by an @@ hunk",
            ));
        }
        files.push(UnifiedFile {
            old_path,
            new_path,
            hunks,
        });
    }
    if files.is_empty() {
        return Err(err(
            1,
            "no file in the diff: expected '--- a/<path>' then '+++ b/<path>' then '@@' hunks",
        ));
    }
    Ok(UnifiedPatch { files })
}

/// The hunk whose `@@` header is line `i`: exactly the old and new lines its header promises,
/// with the `\ No newline at end of file` notes after them. Moves `i` past it.
fn parse_hunk(lines: &[&str], i: &mut usize) -> Result<UnifiedHunk, PatchError> {
    let (old_start, old_len, new_start, new_len) = parse_hunk_header(lines[*i], *i + 1)?;
    let header_at = *i + 1;
    *i += 1;
    let mut hunk = UnifiedHunk {
        old_start,
        old_len,
        new_start,
        new_len,
        lines: Vec::new(),
        new_missing_newline: false,
    };
    let (mut olds, mut news) = (0, 0);
    while olds < old_len || news < new_len {
        let Some(&l) = lines.get(*i) else {
            return Err(err(
                header_at,
                format!(
                    "the hunk ends early: its header promises {old_len} old and {new_len} new lines, the body has {olds} and {news}"
                ),
            ));
        };
        let (kind, body) = match l.chars().next() {
            None => (' ', ""),
            Some(c @ (' ' | '-' | '+')) => (c, &l[1..]),
            Some('\\') => {
                note_missing_newline(&mut hunk);
                *i += 1;
                continue;
            }
            Some(_) => {
                return Err(err(
                    *i + 1,
                    format!(
                        "unexpected line '{l}' in a hunk (the header promised {old_len} old and {new_len} new lines)"
                    ),
                ));
            }
        };
        match kind {
            '-' => {
                olds += 1;
                hunk.lines.push(DiffLine::Removed(body.to_string()));
            }
            '+' => {
                news += 1;
                hunk.lines.push(DiffLine::Added(body.to_string()));
            }
            _ => {
                olds += 1;
                news += 1;
                hunk.lines.push(DiffLine::Context(body.to_string()));
            }
        }
        if olds > old_len || news > new_len {
            return Err(err(
                *i + 1,
                format!(
                    "the hunk has more lines than its header promises ({old_len} old, {new_len} new)"
                ),
            ));
        }
        *i += 1;
    }
    while lines.get(*i).is_some_and(|l| l.starts_with('\\')) {
        note_missing_newline(&mut hunk);
        *i += 1;
    }
    Ok(hunk)
}

fn note_missing_newline(hunk: &mut UnifiedHunk) {
    if matches!(
        hunk.lines.last(),
        Some(DiffLine::Added(_) | DiffLine::Context(_))
    ) {
        hunk.new_missing_newline = true;
    }
}

/// Applies a unified diff to the files under `root`, all or nothing.
pub fn apply_unified(
    root: &Path,
    patch: &UnifiedPatch,
    opts: ApplyOptions,
) -> Result<Vec<FileChange>, PatchError> {
    let mut stage = Stage::new(root)?;
    for f in &patch.files {
        match (&f.old_path, &f.new_path) {
            (None, Some(new)) => {
                let key = stage.load(new, "add")?;
                if stage.get(&key)?.is_some() {
                    return Err(PatchError::AlreadyExists {
                        path: stage.rel(&key)?.to_string(),
                    });
                }
                let lines: Vec<&str> = f.hunks.iter().flat_map(UnifiedHunk::new_lines).collect();
                let missing = f.hunks.last().is_some_and(|h| h.new_missing_newline);
                let content = join_lines(&lines, !missing);
                stage.set(&key, Some(content.into_bytes()), None, Vec::new())?;
            }
            (Some(old), new) => {
                let key = stage.load(old, if new.is_some() { "update" } else { "delete" })?;
                let rel = stage.rel(&key)?.to_string();
                let op = if new.is_some() { "update" } else { "delete" };
                let Some(bytes) = stage.get(&key)? else {
                    return Err(PatchError::NotFound { path: rel, op });
                };
                let decoded = text::decode(&rel, bytes)?;
                let (new_text, hunks) = apply_hunks(&rel, &decoded.text, &f.hunks)?;
                match new {
                    None if new_text.is_empty() => stage.set(&key, None, None, Vec::new())?,
                    None => {
                        let (left, _) = split_lines(&new_text);
                        return Err(PatchError::HunkNoMatch {
                            path: rel,
                            hunk: f.hunks.len(),
                            expected: f
                                .hunks
                                .iter()
                                .flat_map(UnifiedHunk::old_lines)
                                .collect::<Vec<_>>()
                                .join("\n"),
                            closest: Some(crate::error::Region {
                                start: 1,
                                end: left.len(),
                                text: left.join("\n"),
                            }),
                        });
                    }
                    Some(new_path) => {
                        let bytes = decoded.encode(&rel, &new_text)?;
                        let dest = stage.load(new_path, "move to")?;
                        if dest == key {
                            stage.set(&key, Some(bytes), None, hunks)?;
                        } else {
                            let mode = stage.mode(&key)?;
                            stage.set(&dest, Some(bytes), Some(mode), hunks)?;
                            stage.set(&key, None, None, Vec::new())?;
                        }
                    }
                }
            }
            (None, None) => {
                return Err(err(1, "both sides of a file are /dev/null"));
            }
        }
    }
    stage.commit(opts)
}

/// Applies the hunks of one file to `text` (edited `\n` form). Pure.
fn apply_hunks(
    path: &str,
    text: &str,
    hunks: &[UnifiedHunk],
) -> Result<(String, Vec<HunkMatch>), PatchError> {
    let (lines, final_newline) = split_lines(text);
    let mut cursor = 0;
    let mut splices = Vec::new();
    let mut matches = Vec::new();
    let mut end_newline = final_newline;
    for (i, h) in hunks.iter().enumerate() {
        let hunk = i + 1;
        let old = h.old_lines();
        let new: Vec<&str> = h.new_lines();
        let (start, rung, new_lines) = if old.is_empty() {
            // `-L,0` names the line after which the new lines go.
            let at = h.old_start.clamp(cursor, lines.len());
            (
                at,
                Rung::Exact,
                new.iter().map(|s| (*s).to_string()).collect(),
            )
        } else {
            let (rung, start) = locate(path, hunk, &lines, &old, h.old_start, cursor)?;
            let matched = &lines[start..start + old.len()];
            let new_lines = if rung.reindents() {
                seek::reindent(&new, &old, matched)
            } else {
                new.iter().map(|s| (*s).to_string()).collect()
            };
            (start, rung, new_lines)
        };
        if start + old.len() >= lines.len() {
            end_newline = !h.new_missing_newline;
        }
        splices.push(Splice::new(start, old.len(), new_lines));
        matches.push(HunkMatch {
            hunk,
            line: start + 1,
            rung,
        });
        cursor = start + old.len();
    }
    let touched_end = splices.iter().any(|s| s.reaches(lines.len()));
    let final_nl = if touched_end {
        end_newline
    } else {
        final_newline
    };
    Ok((splice(&lines, splices, final_nl, final_nl), matches))
}

fn locate(
    path: &str,
    hunk: usize,
    lines: &[&str],
    old: &[&str],
    old_start: usize,
    cursor: usize,
) -> Result<(Rung, usize), PatchError> {
    let hint = old_start.saturating_sub(1);
    for rung in Rung::LADDER {
        let fits = hint >= cursor
            && hint + old.len() <= lines.len()
            && old
                .iter()
                .zip(&lines[hint..])
                .all(|(p, f)| rung.key(p) == rung.key(f));
        if fits {
            return Ok((rung, hint));
        }
        let window = Window {
            from: cursor,
            at_end: false,
        };
        match seek::find_all(lines, old, rung, window)[..] {
            [] => {}
            [one] => return Ok((rung, one)),
            ref many => {
                return Err(PatchError::HunkAmbiguous {
                    path: path.to_string(),
                    hunk,
                    rung,
                    lines: many.iter().map(|h| h + 1).collect(),
                });
            }
        }
    }
    Err(PatchError::HunkNoMatch {
        path: path.to_string(),
        hunk,
        expected: old.join("\n"),
        closest: seek::closest(lines, old),
    })
}
