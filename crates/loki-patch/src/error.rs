//! The error type of `loki-patch`.
//!
//! Every message is written to be read by a coding model (errors become tool results): it names the
//! file, says what was expected, shows the evidence (candidate lines, the closest region) and says
//! what to do next.

use std::fmt;
use std::path::PathBuf;

use crate::seek::Rung;

/// A region of a file shown to the model as "did you mean": 1-based inclusive line numbers and the
/// text of those lines as they are in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == self.end {
            write!(f, "line {}:", self.start)?;
        } else {
            write!(f, "lines {}-{}:", self.start, self.end)?;
        }
        for (i, line) in self.text.split('\n').enumerate() {
            write!(f, "\n{:>6}| {line}", self.start + i)?;
        }
        Ok(())
    }
}

fn did_you_mean(closest: Option<&Region>) -> String {
    match closest {
        Some(r) => {
            format!("\nThe closest region is {r}\nRetry with the text copied exactly from there.")
        }
        None => "\nThe file has no similar lines: read the file again before retrying.".to_string(),
    }
}

fn line_list(lines: &[usize]) -> String {
    lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Errors of the edit engine. Nothing is written to disk when any of them is returned (except
/// [`PatchError::Write`], after which the files already written were rolled back).
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("the search text for {path} is empty; give the exact lines to replace")]
    EmptySearch { path: String },

    #[error("no match for the search text in {path}.{hint}", hint = did_you_mean(closest.as_ref()))]
    NoMatch {
        path: String,
        closest: Option<Region>,
    },

    #[error(
        "the search text matches {n} places in {path} (lines {list}, {rung} match); include more surrounding lines so that it matches exactly one",
        n = lines.len(),
        list = line_list(lines)
    )]
    Ambiguous {
        path: String,
        rung: Rung,
        lines: Vec<usize>,
    },

    #[error("invalid patch at line {line}: {message}")]
    Parse { line: usize, message: String },

    #[error(
        "hunk {hunk} of {path} failed: the @@ context line {context:?} was not found {place}; use a line that exists in the file, or a bare @@",
        place = if *after == 0 { "in the file".to_string() } else { format!("after line {after}") }
    )]
    ContextNotFound {
        path: String,
        hunk: usize,
        context: String,
        after: usize,
    },

    #[error("hunk {hunk} of {path} failed: these old lines were not found:\n{expected}{hint}", hint = did_you_mean(closest.as_ref()))]
    HunkNoMatch {
        path: String,
        hunk: usize,
        expected: String,
        closest: Option<Region>,
    },

    #[error(
        "hunk {hunk} of {path} failed: its old lines match {n} places (lines {list}, {rung} match); add context lines or an @@ header so that it matches exactly one",
        n = lines.len(),
        list = line_list(lines)
    )]
    HunkAmbiguous {
        path: String,
        hunk: usize,
        rung: Rung,
        lines: Vec<usize>,
    },

    /// The path and why it was refused ([`loki_core::paths`]).
    #[error(transparent)]
    UnsafePath(#[from] loki_core::paths::PathError),

    #[error("cannot {op} {path}: no such file")]
    NotFound { path: String, op: &'static str },

    #[error("cannot {op} {path}: it is a directory, not a file")]
    NotAFile { path: String, op: &'static str },

    #[error("cannot add {path}: it already exists; edit it with an update instead")]
    AlreadyExists { path: String },

    #[error(
        "refusing to edit {path}: it looks binary (a NUL byte in its first 8 KiB); binary files are never edited"
    )]
    Binary { path: String },

    #[error(
        "cannot write {path}: it is not UTF-8 and is kept as Latin-1, but line {line} of the new text has {ch:?}, which Latin-1 cannot encode; use only characters U+0000..U+00FF in this file"
    )]
    Unencodable { path: String, line: usize, ch: char },

    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("writing the patch failed and every file written so far was restored: {source}")]
    Write {
        #[source]
        source: loki_core::CoreError,
    },

    #[error(
        "a backup {} already exists: a previous edit was not verified; restore or clean it up first",
        backup.display()
    )]
    BackupExists { backup: PathBuf },

    #[error("no backup {} to restore from", backup.display())]
    NoBackup { backup: PathBuf },

    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
}

impl loki_core::exit::Classify for PatchError {
    /// A backup left by an earlier, unverified edit is the user's to restore or clean up: usage.
    /// Everything else is a failure: an edit comes from a model or a patch file, and a bad one is
    /// that input's failure to apply, not a mistake in how loki was invoked.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            PatchError::BackupExists { .. } => ExitClass::Usage,
            PatchError::EmptySearch { .. }
            | PatchError::NoMatch { .. }
            | PatchError::Ambiguous { .. }
            | PatchError::Parse { .. }
            | PatchError::ContextNotFound { .. }
            | PatchError::HunkNoMatch { .. }
            | PatchError::HunkAmbiguous { .. }
            | PatchError::UnsafePath(_)
            | PatchError::NotFound { .. }
            | PatchError::NotAFile { .. }
            | PatchError::AlreadyExists { .. }
            | PatchError::Binary { .. }
            | PatchError::Unencodable { .. }
            | PatchError::Io { .. }
            | PatchError::Write { .. }
            | PatchError::NoBackup { .. }
            | PatchError::Core(_) => ExitClass::Failure,
        }
    }
}

impl PatchError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        PatchError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// True when a model can fix the problem by retrying with a different edit (the error is about
    /// its input, not about the machine). The agent loop uses this to decide whether to hand the
    /// error back as a tool result or to stop.
    #[must_use]
    pub fn is_retryable_by_model(&self) -> bool {
        match self {
            PatchError::EmptySearch { .. }
            | PatchError::NoMatch { .. }
            | PatchError::Ambiguous { .. }
            | PatchError::Parse { .. }
            | PatchError::ContextNotFound { .. }
            | PatchError::HunkNoMatch { .. }
            | PatchError::HunkAmbiguous { .. }
            | PatchError::UnsafePath { .. }
            | PatchError::NotFound { .. }
            | PatchError::NotAFile { .. }
            | PatchError::AlreadyExists { .. }
            | PatchError::Binary { .. }
            | PatchError::Unencodable { .. } => true,
            PatchError::Io { .. }
            | PatchError::Write { .. }
            | PatchError::BackupExists { .. }
            | PatchError::NoBackup { .. }
            | PatchError::Core(_) => false,
        }
    }
}
