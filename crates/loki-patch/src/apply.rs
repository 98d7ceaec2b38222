//! Applying edits to files under a root: [`edit_file`] (one search/replace) and [`apply_patch`]
//! (a parsed `*** Begin Patch`).
//!
//! How an update's chunks are located, in order, each after the previous one (the cursor):
//! - `@@ <context>`: the first line at or after the cursor equal to the context at the first rung
//!   that has one; the cursor moves past it. Not found is [`PatchError::ContextNotFound`].
//! - Old lines: searched from the cursor on the ladder ([`crate::seek`]); with `*** End of File`
//!   only at the end of the file. At the first rung with any match, one match is taken; several
//!   matches are [`PatchError::HunkAmbiguous`] unless the chunk has an `@@` context, in which case
//!   the first after the context is meant (the context is the model's disambiguation). No match
//!   is [`PatchError::HunkNoMatch`] with the closest region.
//! - A chunk with no old lines (pure addition) is inserted right after its `@@` context line, or
//!   at the end of the file when it has none (Codex's behaviour).
//! - On the indentation and punctuation rungs the new lines are re-indented like search/replace.
//!
//! Semantics kept from Codex: `Add File` overwrites an existing file; `Move to` overwrites an
//! existing destination; `Delete File` of a missing file or a directory fails; `Update File` of a
//! missing file fails. A file whose last line is replaced ends with a newline (patch lines are
//! newline-terminated); a file whose end is untouched keeps a missing final newline. Line endings,
//! BOM and Latin-1 are preserved as in [`crate::text`].
//!
//! Deliberate difference from Codex: all-or-nothing. Codex applies operations one by one and
//! leaves earlier ones applied when a later one fails (its scenario 015); here a failure anywhere
//! leaves every file untouched and the error names the failing file and hunk.

use std::path::Path;

use crate::error::PatchError;
use crate::patch::{Chunk, FileOp, Patch};
use crate::replace::search_replace_in;
use crate::seek::{self, Rung, Window};
use crate::stage::{ApplyOptions, FileChange, HunkMatch, Stage};
use crate::text::{self, join_lines, split_lines};

/// The result of [`edit_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// The normalised relative path.
    pub path: String,
    pub rung: Rung,
    /// The 1-based line where the match starts in the old file.
    pub line: usize,
    /// What was written; `None` when the replacement equals the text it replaced.
    pub change: Option<FileChange>,
}

/// Replaces the one occurrence of `search` in the file `rel` under `root` (see
/// [`crate::search_replace`]), keeping the file's encoding, and writes it atomically.
pub fn edit_file(
    root: &Path,
    rel: &str,
    search: &str,
    replace: &str,
    opts: ApplyOptions,
) -> Result<EditOutcome, PatchError> {
    let mut stage = Stage::new(root)?;
    let key = stage.load(rel, "edit")?;
    let path = stage.rel(&key)?.to_string();
    let Some(bytes) = stage.get(&key)? else {
        return Err(PatchError::NotFound { path, op: "edit" });
    };
    let decoded = text::decode(&path, bytes)?;
    let r = search_replace_in(&path, &decoded.text, search, replace)?;
    let new = decoded.encode(&path, &r.text)?;
    let hunk = HunkMatch {
        hunk: 1,
        line: r.line,
        rung: r.rung,
    };
    stage.set(&key, Some(new), None, vec![hunk])?;
    let change = stage.commit(opts)?.into_iter().next();
    Ok(EditOutcome {
        path,
        rung: r.rung,
        line: r.line,
        change,
    })
}

/// Applies `patch` to the files under `root`, all or nothing (see the module doc).
pub fn apply_patch(
    root: &Path,
    patch: &Patch,
    opts: ApplyOptions,
) -> Result<Vec<FileChange>, PatchError> {
    let mut stage = Stage::new(root)?;
    for op in &patch.ops {
        match op {
            FileOp::Add { path, contents } => {
                let key = stage.load(path, "add")?;
                stage.set(&key, Some(contents.as_bytes().to_vec()), None, Vec::new())?;
            }
            FileOp::Delete { path } => {
                let key = stage.load(path, "delete")?;
                if stage.get(&key)?.is_none() {
                    return Err(PatchError::NotFound {
                        path: stage.rel(&key)?.to_string(),
                        op: "delete",
                    });
                }
                stage.set(&key, None, None, Vec::new())?;
            }
            FileOp::Update {
                path,
                move_to,
                chunks,
            } => {
                let key = stage.load(path, "update")?;
                let rel = stage.rel(&key)?.to_string();
                let Some(bytes) = stage.get(&key)? else {
                    return Err(PatchError::NotFound {
                        path: rel,
                        op: "update",
                    });
                };
                let decoded = text::decode(&rel, bytes)?;
                let (new_text, hunks) = apply_chunks(&rel, &decoded.text, chunks)?;
                let new = decoded.encode(&rel, &new_text)?;
                let dest = match move_to {
                    Some(to) => Some(stage.load(to, "move to")?),
                    None => None,
                };
                match dest {
                    Some(dest) if dest != key => {
                        let mode = stage.mode(&key)?;
                        stage.set(&dest, Some(new), Some(mode), hunks)?;
                        stage.set(&key, None, None, Vec::new())?;
                    }
                    Some(_) | None => stage.set(&key, Some(new), None, hunks)?,
                }
            }
        }
    }
    stage.commit(opts)
}

/// One planned replacement: old lines `start..start + len` become `lines`.
pub(crate) struct Splice {
    start: usize,
    len: usize,
    lines: Vec<String>,
}

/// Applies the chunks of one update to `text` (edited `\n` form). Pure.
///
/// A file that ends with a newline is matched as Codex's applier reads it: its lines and then
/// one empty line after the final newline, which a chunk may name as context or remove (an empty
/// context line at the end of a chunk is that line). A chunk of additions only goes before it.
/// The result ends with a newline unless the file had none and no chunk reached its end.
pub(crate) fn apply_chunks(
    path: &str,
    text: &str,
    chunks: &[Chunk],
) -> Result<(String, Vec<HunkMatch>), PatchError> {
    let (mut lines, final_newline) = split_lines(text);
    if final_newline {
        lines.push("");
    }
    let body_end = lines.len() - usize::from(final_newline);
    let mut cursor = 0;
    let mut splices: Vec<Splice> = Vec::new();
    let mut matches = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let hunk = i + 1;
        let anchored = anchor(path, &lines, hunk, chunk, &mut cursor)?;
        if chunk.old_lines.is_empty() {
            let at = if anchored { cursor } else { body_end };
            splices.push(Splice {
                start: at,
                len: 0,
                lines: chunk.new_lines.clone(),
            });
            matches.push(HunkMatch {
                hunk,
                line: at + 1,
                rung: Rung::Exact,
            });
            continue;
        }
        let (s, m) = replace_chunk(path, &lines, body_end, (hunk, chunk, anchored), &mut cursor)?;
        splices.push(s);
        matches.push(m);
    }
    // Patch lines are newline-terminated, so a file whose end was rewritten ends with one.
    if !final_newline {
        return Ok((splice(&lines, splices, false, true), matches));
    }
    let mut out = spliced(&lines, &mut splices);
    // The empty line after the final newline, when it is still last, is that newline again.
    if out.last() == Some(&"") {
        out.pop();
    }
    Ok((join_lines(&out, true), matches))
}

/// Moves `cursor` past the chunk's `@@` context line, found exactly from `cursor` on; whether
/// the chunk has one (then it is anchored there).
fn anchor(
    path: &str,
    lines: &[&str],
    hunk: usize,
    chunk: &Chunk,
    cursor: &mut usize,
) -> Result<bool, PatchError> {
    let Some(ctx) = &chunk.context else {
        return Ok(false);
    };
    let window = Window {
        from: *cursor,
        at_end: false,
    };
    match seek::climb(lines, &[ctx.as_str()], Rung::Exact, window) {
        Some((_, hits)) => {
            *cursor = hits[0] + 1;
            Ok(true)
        }
        None => Err(PatchError::ContextNotFound {
            path: path.to_string(),
            hunk,
            context: ctx.clone(),
            after: *cursor,
        }),
    }
}

/// The splice of a chunk that replaces old lines: where they match from `cursor` on (one
/// place, unless anchored; the file's last lines for `*** End of File`), its new lines
/// reindented as the match needed and its context lines as the file has them. Moves `cursor`
/// past the match.
fn replace_chunk(
    path: &str,
    lines: &[&str],
    body_end: usize,
    (hunk, chunk, anchored): (usize, &Chunk, bool),
    cursor: &mut usize,
) -> Result<(Splice, HunkMatch), PatchError> {
    let pattern: Vec<&str> = chunk.old_lines.iter().map(String::as_str).collect();
    let window = Window {
        from: *cursor,
        at_end: chunk.end_of_file,
    };
    // `*** End of File` names the file's last lines, not the empty line after its newline.
    let hay = if chunk.end_of_file {
        &lines[..body_end]
    } else {
        lines
    };
    let Some((rung, hits)) = seek::climb(hay, &pattern, Rung::Exact, window) else {
        return Err(PatchError::HunkNoMatch {
            path: path.to_string(),
            hunk,
            expected: chunk.old_lines.join("\n"),
            closest: seek::closest(hay, &pattern),
        });
    };
    if hits.len() > 1 && !anchored {
        return Err(PatchError::HunkAmbiguous {
            path: path.to_string(),
            hunk,
            rung,
            lines: hits.iter().map(|h| h + 1).collect(),
        });
    }
    let start = hits[0];
    let end = start + pattern.len();
    let new_lines: Vec<&str> = chunk.new_lines.iter().map(String::as_str).collect();
    let mut new_lines = if rung.reindents() {
        seek::reindent(&new_lines, &pattern, &lines[start..end])
    } else {
        chunk.new_lines.clone()
    };
    // Context lines stay as the file has them: the match may have looked past whitespace.
    for &(old, new) in &chunk.kept {
        if let (Some(file), Some(slot)) = (lines.get(start + old), new_lines.get_mut(new)) {
            *slot = (*file).to_string();
        }
    }
    // The leading lines the chunk keeps are not part of the edit: without them, two edits at
    // one place (a chunk of additions only, which goes at the end, and a later chunk ending
    // there) land in the patch's order, as in Codex's applier.
    let same = new_lines
        .iter()
        .zip(&lines[start..end])
        .take_while(|(new, old)| new.as_str() == **old)
        .count();
    *cursor = end;
    Ok((
        Splice {
            start: start + same,
            len: pattern.len() - same,
            lines: new_lines.split_off(same),
        },
        HunkMatch {
            hunk,
            line: start + 1,
            rung,
        },
    ))
}

/// Applies non-overlapping splices (any order). The text ends with a newline per `end_newline`
/// when a splice reaches the end of the file, else per `final_newline` (the file's own).
pub(crate) fn splice(
    lines: &[&str],
    mut splices: Vec<Splice>,
    final_newline: bool,
    end_newline: bool,
) -> String {
    let touches_end = splices.iter().any(|s| s.reaches(lines.len()));
    let out = spliced(lines, &mut splices);
    join_lines(
        &out,
        if touches_end {
            end_newline
        } else {
            final_newline
        },
    )
}

/// The lines after the splices (non-overlapping; edits at one place in the order given).
fn spliced<'a>(lines: &[&'a str], splices: &'a mut [Splice]) -> Vec<&'a str> {
    splices.sort_by_key(|s| s.start);
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut at = 0;
    for s in splices.iter() {
        out.extend_from_slice(&lines[at..s.start.max(at)]);
        out.extend(s.lines.iter().map(String::as_str));
        at = at.max(s.start + s.len);
    }
    out.extend_from_slice(&lines[at.min(lines.len())..]);
    out
}

impl Splice {
    pub(crate) fn new(start: usize, len: usize, lines: Vec<String>) -> Self {
        Splice { start, len, lines }
    }

    /// True when the splice reaches the end of a file of `n` lines.
    pub(crate) fn reaches(&self, n: usize) -> bool {
        self.start + self.len >= n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::parse_patch;

    fn chunks_of(patch: &str) -> Vec<Chunk> {
        match parse_patch(patch).unwrap().ops.remove(0) {
            FileOp::Update { chunks, .. } => chunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn context_header_disambiguates_repeated_lines() {
        let text = "fn a() {\n    x();\n}\nfn b() {\n    x();\n}\n";
        let chunks = chunks_of(
            "*** Begin Patch\n*** Update File: f\n@@ fn b() {\n-    x();\n+    y();\n*** End Patch",
        );
        let (out, m) = apply_chunks("f", text, &chunks).unwrap();
        assert_eq!(out, "fn a() {\n    x();\n}\nfn b() {\n    y();\n}\n");
        assert_eq!(m[0].line, 5);
    }

    #[test]
    fn repeated_lines_without_context_are_ambiguous() {
        let text = "x\ny\nx\n";
        let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@\n-x\n+z\n*** End Patch");
        let err = apply_chunks("f", text, &chunks).unwrap_err();
        assert!(
            matches!(err, PatchError::HunkAmbiguous { ref lines, .. } if lines == &[1, 3]),
            "{err}"
        );
    }

    #[test]
    fn untouched_end_keeps_a_missing_final_newline() {
        let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End Patch");
        let (out, _) = apply_chunks("f", "a\nb", &chunks).unwrap();
        assert_eq!(out, "A\nb");
    }

    #[test]
    fn pure_addition_after_context_goes_after_the_context_line() {
        let chunks = chunks_of("*** Begin Patch\n*** Update File: f\n@@ a\n+new\n*** End Patch");
        let (out, _) = apply_chunks("f", "a\nb\n", &chunks).unwrap();
        assert_eq!(out, "a\nnew\nb\n");
    }

    #[test]
    fn indentation_drift_in_a_hunk_is_reindented() {
        let chunks = chunks_of(
            "*** Begin Patch\n*** Update File: f\n@@\n-x = 1\n+x = 2\n+y = 3\n*** End Patch",
        );
        let (out, m) = apply_chunks("f", "def f():\n    x = 1\n", &chunks).unwrap();
        assert_eq!(out, "def f():\n    x = 2\n    y = 3\n");
        assert_eq!(m[0].rung, Rung::Indentation);
    }
}
