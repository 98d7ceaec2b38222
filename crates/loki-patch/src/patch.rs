//! The `*** Begin Patch` format used by Codex-style models, and its parser.
//!
//! Grammar (Lark notation, as in Codex's `apply-patch/src/parser.rs`):
//!
//! ```text
//! start:          begin_patch hunk+ end_patch
//! begin_patch:    "*** Begin Patch" LF
//! end_patch:      "*** End Patch" LF?
//! hunk:           add_hunk | delete_hunk | update_hunk
//! add_hunk:       "*** Add File: " filename LF add_line*
//! delete_hunk:    "*** Delete File: " filename LF
//! update_hunk:    "*** Update File: " filename LF change_move? change
//! filename:       /(.+)/
//! add_line:       "+" /(.*)/ LF
//! change_move:    "*** Move to: " filename LF
//! change:         chunk+
//! chunk:          (change_context)? change_line+ eof_line?      // context optional on the first
//! change_context: ("@@" | "@@ " /(.+)/) LF
//! change_line:    ("+" | "-" | " ") /(.*)/ LF | LF               // an empty line is empty context
//! eof_line:       "*** End of File" LF
//! ```
//!
//! Leniency (what models really send): the text is trimmed; every `***` marker line and `@@` line
//! may carry leading or trailing whitespace; blank lines between chunks are skipped; the patch may
//! be wrapped in a `<<EOF` … `EOF` heredoc. A patch with no file operation is refused.
//!
//! Meaning of a chunk: its old lines are the context (` `) and removed (`-`) lines in order, its new
//! lines the context and added (`+`) lines. How chunks are located is documented in
//! [`crate::apply`].

use crate::error::PatchError;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// A parsed patch: file operations in the order they appear.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub ops: Vec<FileOp>,
}

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create (or overwrite) `path` with `contents` (every `+` line followed by `\n`).
    Add { path: String, contents: String },
    /// Remove the file `path`.
    Delete { path: String },
    /// Change `path` chunk by chunk, then optionally move it to `move_to`.
    Update {
        path: String,
        move_to: Option<String>,
        chunks: Vec<Chunk>,
    },
}

impl FileOp {
    /// The path the operation names first.
    #[must_use]
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// One `@@` chunk of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The text after `@@ `: a line (usually a function or class header) that must occur before
    /// the old lines.
    pub context: Option<String>,
    pub old_lines: Vec<String>,
    pub new_lines: Vec<String>,
    /// `*** End of File` followed: the old lines must be the last lines of the file.
    pub end_of_file: bool,
    /// The context lines, as (index in `old_lines`, index in `new_lines`): the patch only names
    /// them, so applying keeps the file's own bytes there (trailing whitespace a fuzzy match
    /// looked past, indentation), as Codex's applier does.
    pub kept: Vec<(usize, usize)>,
}

fn err(line: usize, message: impl Into<String>) -> PatchError {
    PatchError::Parse {
        line,
        message: message.into(),
    }
}

/// Strips `marker` from a marker line, tolerating whitespace around the line and the path.
fn marker<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.trim().strip_prefix(marker).map(str::trim)
}

fn is_file_header(line: &str) -> bool {
    [ADD, DELETE, UPDATE]
        .iter()
        .any(|m| line.trim_start().starts_with(m.trim_end()))
}

/// Parses the text of a `*** Begin Patch` patch.
pub fn parse_patch(text: &str) -> Result<Patch, PatchError> {
    let mut lines: Vec<&str> = text.trim().lines().collect();
    let mut first_line = 1;
    // A heredoc wrapper (`<<'EOF'` … `EOF`) is the shell's, not the patch's.
    if lines.len() >= 4
        && matches!(lines[0].trim(), "<<EOF" | "<<'EOF'" | "<<\"EOF\"")
        && lines.last().is_some_and(|l| l.trim().ends_with("EOF"))
    {
        lines = lines[1..lines.len() - 1].to_vec();
        first_line = 2;
    }
    match lines.first() {
        Some(l) if l.trim() == BEGIN => {}
        _ => return Err(err(first_line, format!("the first line must be '{BEGIN}'"))),
    }
    match lines.last() {
        Some(l) if lines.len() >= 2 && l.trim() == END => {}
        _ => {
            return Err(err(
                first_line + lines.len().saturating_sub(1),
                format!("the last line must be '{END}'"),
            ));
        }
    }
    let body = &lines[1..lines.len() - 1];
    let mut ops = Vec::new();
    let mut i = 0;
    // 1-based patch line of body[i].
    let at = |i: usize| first_line + 1 + i;
    while i < body.len() {
        let line = body[i];
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if let Some(path) = marker(line, ADD) {
            let path = nonempty_path(path, at(i))?;
            i += 1;
            let mut contents = String::new();
            while let Some(rest) = body.get(i).and_then(|l| l.strip_prefix('+')) {
                contents.push_str(rest);
                contents.push('\n');
                i += 1;
            }
            ops.push(FileOp::Add { path, contents });
        } else if let Some(path) = marker(line, DELETE) {
            ops.push(FileOp::Delete {
                path: nonempty_path(path, at(i))?,
            });
            i += 1;
        } else if let Some(path) = marker(line, UPDATE) {
            ops.push(parse_update(path, body, &mut i, first_line + 1)?);
        } else {
            return Err(err(
                at(i),
                format!(
                    "'{}' is not a valid file header; expected '{ADD}<path>', '{DELETE}<path>' or '{UPDATE}<path>'",
                    line.trim()
                ),
            ));
        }
    }
    if ops.is_empty() {
        return Err(err(
            first_line,
            "the patch contains no file operation (Add File, Delete File or Update File)",
        ));
    }
    Ok(Patch { ops })
}

/// The update of `path` whose header is `body[*i]`: its optional move, then its `@@` chunks up
/// to the next file header. Moves `i` past it; `first` is the patch line of `body[0]`.
fn parse_update(
    path: &str,
    body: &[&str],
    i: &mut usize,
    first: usize,
) -> Result<FileOp, PatchError> {
    let header = first + *i;
    let path = nonempty_path(path, header)?;
    *i += 1;
    let mut move_to = None;
    if let Some(dest) = body.get(*i).and_then(|l| marker(l, MOVE_TO)) {
        move_to = Some(nonempty_path(dest, first + *i)?);
        *i += 1;
    }
    let mut chunks = Vec::new();
    while *i < body.len() {
        if body[*i].trim().is_empty() {
            *i += 1;
            continue;
        }
        if is_file_header(body[*i]) {
            break;
        }
        let (chunk, used) = parse_chunk(&body[*i..], first + *i, chunks.is_empty())?;
        chunks.push(chunk);
        *i += used;
    }
    if chunks.is_empty() {
        return Err(err(
            header,
            format!("the update of '{path}' has no @@ chunk; add one or remove the update"),
        ));
    }
    Ok(FileOp::Update {
        path,
        move_to,
        chunks,
    })
}

fn nonempty_path(path: &str, line: usize) -> Result<String, PatchError> {
    if path.is_empty() {
        Err(err(line, "the file header has no path"))
    } else {
        Ok(path.to_string())
    }
}

/// Parses one chunk at the start of `lines` (line number `line` of the patch); returns it and the
/// number of lines used.
fn parse_chunk(lines: &[&str], line: usize, first: bool) -> Result<(Chunk, usize), PatchError> {
    let head = lines[0].trim();
    let (context, mut used) = if head == "@@" {
        (None, 1)
    } else if let Some(ctx) = head.strip_prefix("@@ ") {
        (Some(ctx.trim().to_string()), 1)
    } else if first {
        (None, 0)
    } else {
        return Err(err(
            line,
            format!(
                "expected an @@ line to start the next chunk, got '{}'",
                lines[0]
            ),
        ));
    };
    let mut chunk = Chunk {
        context,
        old_lines: Vec::new(),
        new_lines: Vec::new(),
        end_of_file: false,
        kept: Vec::new(),
    };
    let mut changes = 0;
    while let Some(&l) = lines.get(used) {
        if l.trim() == END_OF_FILE {
            if changes == 0 {
                break;
            }
            chunk.end_of_file = true;
            used += 1;
            break;
        }
        if is_file_header(l) || l.trim() == "@@" || l.trim_start().starts_with("@@ ") {
            break;
        }
        match l.chars().next() {
            None | Some(' ') => {
                let text = l.get(1..).unwrap_or_default().to_string();
                chunk
                    .kept
                    .push((chunk.old_lines.len(), chunk.new_lines.len()));
                chunk.old_lines.push(text.clone());
                chunk.new_lines.push(text);
            }
            Some('-') => chunk.old_lines.push(l[1..].to_string()),
            Some('+') => chunk.new_lines.push(l[1..].to_string()),
            Some(_) if changes == 0 => {
                return Err(err(
                    line + used,
                    format!(
                        "unexpected line '{l}' in a chunk: every line starts with ' ' (context), '+' (added) or '-' (removed)"
                    ),
                ));
            }
            Some(_) => break,
        }
        changes += 1;
        used += 1;
    }
    // Blank lines that only separated this chunk from the next header are not context.
    let mut raw_end = used;
    while !chunk.end_of_file
        && lines[..raw_end].last().is_some_and(|l| l.is_empty())
        && chunk.old_lines.last().is_some_and(String::is_empty)
        && chunk.new_lines.last().is_some_and(String::is_empty)
    {
        chunk.old_lines.pop();
        chunk.new_lines.pop();
        raw_end -= 1;
    }
    if chunk.old_lines.is_empty() && chunk.new_lines.is_empty() {
        return Err(err(line, "the chunk has no lines"));
    }
    Ok((chunk, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_operation() {
        let p = parse_patch(
            "*** Begin Patch\n*** Add File: a/add.py\n+abc\n+\n*** Delete File: del.py\n\
             *** Update File: up.py\n*** Move to: up2.py\n@@ def f():\n-    pass\n+    return 1\n\
             @@\n ctx\n+more\n*** End of File\n*** End Patch\n",
        )
        .unwrap();
        assert_eq!(
            p.ops,
            vec![
                FileOp::Add {
                    path: "a/add.py".into(),
                    contents: "abc\n\n".into()
                },
                FileOp::Delete {
                    path: "del.py".into()
                },
                FileOp::Update {
                    path: "up.py".into(),
                    move_to: Some("up2.py".into()),
                    chunks: vec![
                        Chunk {
                            context: Some("def f():".into()),
                            old_lines: vec!["    pass".into()],
                            new_lines: vec!["    return 1".into()],
                            end_of_file: false,
                            kept: vec![],
                        },
                        Chunk {
                            context: None,
                            old_lines: vec!["ctx".into()],
                            new_lines: vec!["ctx".into(), "more".into()],
                            end_of_file: true,
                            kept: vec![(0, 0)],
                        },
                    ],
                },
            ]
        );
    }

    #[test]
    fn first_chunk_may_omit_the_at_at_line() {
        let p = parse_patch("*** Begin Patch\n*** Update File: f\n import x\n+y\n*** End Patch")
            .unwrap();
        let FileOp::Update { chunks, .. } = &p.ops[0] else {
            panic!("not an update")
        };
        assert_eq!(chunks[0].old_lines, ["import x"]);
    }

    #[test]
    fn heredoc_wrapper_and_padded_markers_are_accepted() {
        let p = parse_patch(
            "<<'EOF'\n *** Begin Patch \n  *** Delete File: x \n*** End Patch  \nEOF\n",
        )
        .unwrap();
        assert_eq!(p.ops, vec![FileOp::Delete { path: "x".into() }]);
    }

    #[test]
    fn refusals_name_the_line() {
        let cases = [
            ("nope", 1, "first line"),
            ("*** Begin Patch\n*** Delete File: x", 2, "last line"),
            ("*** Begin Patch\n*** End Patch", 1, "no file operation"),
            (
                "*** Begin Patch\n*** Frob File: x\n*** End Patch",
                2,
                "not a valid file header",
            ),
            (
                "*** Begin Patch\n*** Update File: x\n*** End Patch",
                2,
                "no @@ chunk",
            ),
            (
                "*** Begin Patch\n*** Update File: x\n@@\n-a\n!b\n*** End Patch",
                5,
                "expected an @@",
            ),
            (
                "*** Begin Patch\n*** Update File: x\n@@\n!b\n*** End Patch",
                4,
                "unexpected line",
            ),
        ];
        for (text, line, needle) in cases {
            match parse_patch(text) {
                Err(PatchError::Parse { line: l, message }) => {
                    assert_eq!(l, line, "{text:?}: {message}");
                    assert!(message.contains(needle), "{text:?}: {message}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }
}
