//! The repository map: files, languages and top-level symbols, ranked by relevance to the task.
//!
//! # Symbols
//! A line scanner, not a parser: a line that starts at column 0 (Rust items may carry `pub`,
//! `pub(crate)`, `async`, `unsafe`, `const`) with a declaring keyword yields the identifier after it
//! (`fn`, `struct`, `enum`, `trait`, `type`, `mod`, `impl` for Rust; `def`, `class` for Python;
//! `function`, `class`, `const`/`let` after `export` for JS/TS; `func`, `type` for Go). Nested items
//! are not listed. It was chosen over tree-sitter grammars to keep the build small on two cores;
//! top-level names are what the ranking and the brief use, and this finds them for ordinary code.
//!
//! # Ranking
//! [`RepoMap::rank`] scores each file by the task's words (lower-cased, 3+ characters, stop words
//! removed) found in its path (2 points each) and in its symbols (3 points each), with test files
//! and files the task names by path first. Ties keep path order, so the ranking is deterministic.
//!
//! # Cache
//! The map depends only on the tree, so it is stored as `<cache>/repomap/<tree>.json` (atomic
//! write) and reused for the same tree; an unreadable cache file is rebuilt.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::EngineError;

/// Files mapped at most: enough for large repositories' relevant parts; the rest is listed by name.
const MAX_FILES: usize = 20_000;
/// Files larger than this are listed without symbols (generated code, data).
const MAX_SCAN_BYTES: u64 = 256 * 1024;
/// Symbols kept per file.
const MAX_SYMBOLS: usize = 60;
/// Schema tag of a cache file; bump it when the map's shape or the scanner changes.
const CACHE_SCHEMA: &str = "loki.repomap/1";
/// Words too common in tasks to say anything about relevance.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "from", "into", "should", "when", "not", "are",
    "add", "fix", "make", "use", "all", "any", "its", "but", "has", "have", "does", "test",
    "tests",
];

/// One file of the map.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    pub symbols: Vec<String>,
    pub bytes: u64,
}

/// The map of one tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepoMap {
    pub schema: String,
    pub tree: String,
    pub files: Vec<FileEntry>,
    /// File count per language.
    pub languages: BTreeMap<String, u64>,
}

impl RepoMap {
    /// Maps the files `paths` of the checkout at `root` whose tree is `tree`.
    #[must_use]
    pub fn build(root: &Path, tree: &str, paths: &[String]) -> RepoMap {
        let mut files = Vec::new();
        let mut languages = BTreeMap::new();
        for path in paths.iter().take(MAX_FILES) {
            let lang = lang_of(path);
            let full = root.join(path);
            let bytes = std::fs::symlink_metadata(&full).map_or(0, |m| m.len());
            let symbols = match lang {
                Some(l) if bytes <= MAX_SCAN_BYTES => std::fs::read(&full)
                    .map(|b| symbols(l, &String::from_utf8_lossy(&b)))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            if let Some(l) = lang {
                *languages.entry(l.to_string()).or_insert(0) += 1;
            }
            files.push(FileEntry {
                path: path.clone(),
                lang: lang.map(str::to_string),
                symbols,
                bytes,
            });
        }
        RepoMap {
            schema: CACHE_SCHEMA.to_string(),
            tree: tree.to_string(),
            files,
            languages,
        }
    }

    /// The cached map of `tree`, or a new one written to the cache.
    pub fn load_or_build(
        cache_dir: &Path,
        root: &Path,
        tree: &str,
        paths: &[String],
    ) -> Result<(RepoMap, bool), EngineError> {
        let file = cache_dir.join("repomap").join(format!("{tree}.json"));
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Ok(map) = serde_json::from_str::<RepoMap>(&text)
            && map.schema == CACHE_SCHEMA
            && map.tree == tree
        {
            return Ok((map, true));
        }
        let map = RepoMap::build(root, tree, paths);
        // A cache that cannot be written costs time next run, not correctness.
        if let Ok(bytes) = serde_json::to_vec(&map) {
            crate::write_file(&file, &bytes)?;
        }
        Ok((map, false))
    }

    /// Files by relevance to `task`, best first, at most `limit`.
    #[must_use]
    pub fn rank(&self, task: &str, limit: usize) -> Vec<&FileEntry> {
        let words = task_words(task);
        let lower_task = task.to_lowercase();
        let mut scored: Vec<(u64, usize, &FileEntry)> = self
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| (score(f, &words, &lower_task), i, f))
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        scored.into_iter().take(limit).map(|(_, _, f)| f).collect()
    }

    /// Every path, one per line (what the wall author sees).
    #[must_use]
    pub fn file_list(&self) -> String {
        let mut s = String::new();
        for f in &self.files {
            s.push_str(&f.path);
            s.push('\n');
        }
        s
    }
}

fn score(f: &FileEntry, words: &[String], lower_task: &str) -> u64 {
    let path = f.path.to_lowercase();
    let mut s = 0;
    if lower_task.contains(&path) {
        s += 20;
    }
    for w in words {
        if path.contains(w.as_str()) {
            s += 2;
        }
        s += 3 * f
            .symbols
            .iter()
            .filter(|sym| sym.to_lowercase().contains(w.as_str()))
            .count() as u64;
    }
    s
}

/// The task's words that can say something about relevance.
#[must_use]
pub fn task_words(task: &str) -> Vec<String> {
    let mut words: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The language of a path, by extension.
#[must_use]
pub fn lang_of(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext {
        "rs" => "rust",
        "py" => "python",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "go" => "go",
        _ => return None,
    })
}

/// Top-level symbols of `text` in language `lang` (see the module doc).
#[must_use]
pub fn symbols(lang: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with(char::is_whitespace) {
            continue;
        }
        if let Some(name) = symbol_of(lang, line)
            && !out.contains(&name)
        {
            out.push(name);
            if out.len() == MAX_SYMBOLS {
                break;
            }
        }
    }
    out
}

fn symbol_of(lang: &str, line: &str) -> Option<String> {
    let mut rest = line;
    let (modifiers, keywords): (&[&str], &[&str]) = match lang {
        "rust" => (
            &[
                "pub(crate) ",
                "pub(super) ",
                "pub ",
                "async ",
                "unsafe ",
                "const ",
                "extern \"C\" ",
            ],
            &[
                "fn ", "struct ", "enum ", "trait ", "type ", "mod ", "impl ", "union ",
            ],
        ),
        "python" => (&["async "], &["def ", "class "]),
        "javascript" | "typescript" => (
            &["export ", "default ", "async ", "declare ", "abstract "],
            &[
                "function ",
                "function* ",
                "class ",
                "interface ",
                "type ",
                "const ",
                "let ",
                "enum ",
            ],
        ),
        "go" => (&[], &["func ", "type "]),
        _ => return None,
    };
    while let Some(m) = modifiers.iter().find(|m| rest.starts_with(**m)) {
        rest = &rest[m.len()..];
    }
    let kw: &str = if lang == "rust" && rest.starts_with("impl<") {
        "impl"
    } else {
        keywords.iter().find(|k| rest.starts_with(**k))?
    };
    let mut after = rest[kw.len()..].trim_start();
    if lang == "go" && kw.starts_with("func") && after.starts_with('(') {
        // A method: skip the receiver.
        after = after.split_once(')').map_or("", |(_, r)| r).trim_start();
    }
    if lang == "rust" && kw.starts_with("impl") {
        after = after
            .strip_prefix('<')
            .map_or(after, |r| r.split_once('>').map_or("", |(_, x)| x))
            .trim_start();
    }
    let name: String = after
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_symbols_per_language() {
        let rust = "pub fn is_leap(y: i32) -> bool {\n    fn inner() {}\n}\npub(crate) struct Year;\nimpl<T> Display for Year {}\nasync fn go() {}\n";
        assert_eq!(symbols("rust", rust), ["is_leap", "Year", "Display", "go"]);
        let py = "import os\ndef add(a, b):\n    def inner(): pass\nclass Calc:\n    pass\nasync def fetch(): pass\n";
        assert_eq!(symbols("python", py), ["add", "Calc", "fetch"]);
        let js =
            "export function parse(s) {}\nexport default class Lexer {}\nexport const MAX = 3;\n";
        assert_eq!(symbols("javascript", js), ["parse", "Lexer", "MAX"]);
        let go = "func (s *Server) Serve() {}\nfunc main() {}\ntype Config struct {}\n";
        assert_eq!(symbols("go", go), ["Serve", "main", "Config"]);
    }

    #[test]
    fn ranking_prefers_files_the_task_is_about() {
        let entry = |path: &str, symbols: &[&str]| FileEntry {
            path: path.into(),
            lang: lang_of(path).map(str::to_string),
            symbols: symbols.iter().map(|s| (*s).to_string()).collect(),
            bytes: 1,
        };
        let map = RepoMap {
            schema: CACHE_SCHEMA.into(),
            tree: "t".into(),
            files: vec![
                entry("README.md", &[]),
                entry("src/util.rs", &["helper"]),
                entry("src/leap.rs", &["is_leap_year"]),
            ],
            languages: BTreeMap::new(),
        };
        let ranked: Vec<&str> = map
            .rank("Fix is_leap_year for century years", 2)
            .iter()
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(ranked, ["src/leap.rs", "README.md"]);
    }
}
