//! The edit engine of loki: how a model's edit becomes bytes in a file, or a precise refusal.
//!
//! # What it owns
//! - **Search/replace** ([`search_replace`], [`edit_file`]): one occurrence of a snippet replaced,
//!   found on a strictness ladder ([`seek`]): exact → trailing-whitespace-insensitive →
//!   indentation-insensitive (the replacement is re-indented to the file) → typographic
//!   punctuation normalised. Each rung is tried only when every stricter one found nothing; the
//!   result reports the [`Rung`] that matched. Several matches at that rung are an error naming
//!   the candidate lines; no match is an error carrying the closest region of the file.
//! - **The `*** Begin Patch` format** of Codex-style models ([`parse_patch`], [`apply_patch`]);
//!   the grammar is in [`patch`], the locating rules in [`apply`].
//! - **Unified diffs**: rendering ([`render_diff`], optionally coloured) and parsing/applying plain
//!   diffs ([`parse_unified`], [`apply_unified`]).
//! - **Encodings** ([`text`]): CRLF stays CRLF (an LF snippet still matches), a missing final
//!   newline stays missing, a UTF-8 BOM stays; non-UTF-8 text is edited as Latin-1 so every byte
//!   round-trips (new characters it cannot encode are refused); binary files (a NUL in the first
//!   8 KiB) are refused.
//! - **Backups** ([`backup`]): `<file>.loki.bak`, byte-exact, never overwritten, restore, cleanup.
//!
//! # Invariants
//! - **Never fuzzy.** A rung matches only text equal up to whitespace or punctuation form; an
//!   edit is never applied to text that merely resembles the snippet. Similarity is used only to
//!   build the "did you mean" hint of an error.
//! - **Never ambiguous.** An edit that could land in more than one place is refused, with every
//!   candidate line, unless the format carries an anchor (an `@@` context, a hunk's line number).
//! - **All or nothing.** Every applying function computes every resulting file in memory first;
//!   any failure leaves every file untouched. Then each file is written with
//!   [`loki_core::fs::write_atomic_mode`], keeping its permission bits, and a failure half-way
//!   puts back what was written.
//! - **Confined.** Paths go through [`loki_core::paths::Root::confine`]: relative to the root
//!   given, no `..` out of it, not resolving through a symlink to outside it, not in `.git` or
//!   `.loki` ([`PatchError::UnsafePath`]).
//!
//! # What it must never do
//! Spawn processes, talk to the network, print, or write anything but the files an edit names
//! and their backups. It is pure except for [`stage`]-level file helpers; the agent's tools and
//! `loki fix` decide when to call it.
//!
//! Errors ([`PatchError`]) are written for a model to read: they become tool results, and
//! [`PatchError::is_retryable_by_model`] says whether the model can fix the problem by retrying.

pub mod apply;
pub mod backup;
pub mod error;
pub mod patch;
pub mod render;
pub mod replace;
pub mod seek;
pub mod stage;
pub mod text;
pub mod unified;

pub use apply::{EditOutcome, apply_patch, edit_file};
pub use error::{PatchError, Region};
pub use patch::{Chunk, FileOp, Patch, parse_patch};
pub use render::render_diff;
pub use replace::{Replaced, search_replace};
pub use seek::Rung;
pub use stage::{ApplyOptions, ChangeKind, FileChange, HunkMatch};
pub use unified::{DiffLine, UnifiedFile, UnifiedHunk, UnifiedPatch, apply_unified, parse_unified};
