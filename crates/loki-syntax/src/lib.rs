//! Source code as loki's integrity rules read it, shared by the scan (`loki-integrity`) and its
//! rule modules (`ci`, `config`, `rules`).
//!
//! - [`lex`]: comments dropped and strings blanked per language, so rules count code, not prose;
//!   input normalised to LF first ([`lex::normalize`]).
//! - [`ast`]: tree-sitter trees (grammars from `loki-repomap`), bounded in size and parse time.
//! - [`diff`]: what a change adds: added lines, and hits at head the base does not have.
//! - [`literals`]: one canonical form per literal, and which literals are distinctive.
//! - [`cfgparse`]: INI and TOML readers with line numbers.
//! - [`testcode`]: which files are test files, and the tests, assertions and skips they hold.
//!
//! # Invariants
//! Everything here is pure over bytes or text and never panics on any input: lexers walk `char`s
//! with bounds-checked lookahead, tree walks are iterative, and a file that cannot be parsed
//! yields `None` or nothing rather than an error. A CRLF file reads exactly like its LF twin.

pub mod ast;
pub mod cfgparse;
pub mod diff;
pub mod lex;
pub mod literals;
pub mod scan;
pub mod testcode;

pub use scan::{FileChange, MAX_SCAN_BYTES, ScanInput};
