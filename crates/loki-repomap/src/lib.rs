//! The repository map: files, languages and top-level symbols, ranked by relevance to the task,
//! cached by tree. The engine's intake builds it; the wall stage asks it where a file stops
//! parsing. It owns the tree-sitter grammars of the workspace's repo map and nothing else.
//!
//! # Symbols
//! Each mapped file is parsed with its tree-sitter grammar (Rust, Python, JavaScript, TypeScript,
//! TSX, Go) and only the top of the tree is read. A real parser, not a line scanner, because code
//! is not line-shaped: signatures span lines behind attributes, `pub(crate)` and decorators, Go
//! groups types in `type ( ... )`, and a `fn` at column 0 inside a raw string, a doc comment or a
//! template literal is text, not an item. What is listed, in source order:
//!
//! - **Rust**: `fn`, `struct`, `enum`, `union`, `trait`, `type`, `mod`, `const`, `static`,
//!   `macro_rules!`; the functions of `extern` blocks; each `impl`'s type name (`Foo` for
//!   `impl<T> Trait for a::Foo<T>` or `&Foo`; blanket impls over a type parameter and impls for
//!   tuples, slices and the like have none) followed by its methods as `Foo::method`; a trait's
//!   methods as `Trait::method`.
//! - **Python**: `def` and `class` (async or decorated alike) at module level; a class's methods
//!   as `Class.method`, except `__dunder__` methods, which every class has.
//! - **JavaScript / TypeScript / TSX**: function, generator and class declarations; `const`,
//!   `let` and `var` names when exported, or when their value is a function, arrow function or
//!   class expression; `export default` of a named function or class or of an identifier; class
//!   methods as `Class.method` (not `constructor`); TypeScript `interface`, `type`, `enum`,
//!   `namespace`/`module Name`, `abstract class`, overload signatures and `declare` forms.
//! - **Go**: `func`; methods as `Recv.Method` (pointer and generic receivers by their type name);
//!   every type of a `type` declaration, grouped or not; `const` and `var` names except `_`.
//!
//! Not listed: anything inside a function body (nested functions, closures, local classes),
//! definitions under a top-level `if`/`try`/block, nested classes' members, fields, enum
//! variants, interface members, Python module-level assignments, CommonJS `module.exports`
//! assignments, re-exports (`export { a } from`), and unnamed defaults (`export default () => ..`).
//!
//! # Languages and grammars
//! [`lang_of`] names a file's language by extension; `.tsx` files report `typescript` (one language
//! to count and show) but parse with the TSX grammar, because the TypeScript grammar reads `<T>x`
//! as a cast. `.jsx` parses with the JavaScript grammar, which includes JSX. [`symbols`] also
//! accepts the grammar name `tsx`.
//!
//! # Caps and failure modes
//! At most [`MAX_FILES`] files are mapped; files over [`MAX_SCAN_BYTES`] are listed without
//! symbols; at most [`MAX_SYMBOLS`] distinct names are kept per file (first in source order win);
//! a parse that runs past its timeout (500 ms) is abandoned and the file has no symbols, so one
//! pathological file cannot stall intake. A syntax error does not lose the file: tree-sitter
//! recovers with ERROR nodes and every complete item is still listed, including items that an
//! ERROR node wraps at the top level (in such a region an item from a broken body may surface).
//! Non-UTF-8 bytes arrive as replacement characters (the caller decodes lossily); names are the
//! source text of identifier nodes, never error debris with spaces in it. Nothing here panics or
//! fails the map: an unreadable file, an unknown language or an unloadable grammar means no
//! symbols.
//!
//! # Speed
//! Parsing costs about a millisecond per few-KB file (see `benches/repomap.rs`), so a map of
//! thousands of files is parsed by up to `MAX_WORKERS` scoped threads (one per core, none for
//! maps under `PARALLEL_MIN_FILES` files per thread) that take files from a shared counter. Each
//! thread creates one parser per grammar on first use and reuses it for all its files. Entries go
//! back in path order, so the map never depends on scheduling. The map is cached by tree (below),
//! so this cost is paid once per base tree.
//!
//! # Ranking
//! [`RepoMap::rank`] scores each file by the task's words (lower-cased, 3+ characters, stop words
//! removed) found in its path (2 points each) and in its symbols (3 points each), with test files
//! and files the task names by path first. Ties keep path order, so the ranking is deterministic.
//!
//! # Cache
//! The map depends only on the tree, so it is stored as `<cache>/repomap/<tree>.json` (atomic
//! write) and reused for the same tree and [`CACHE_SCHEMA`]; an unreadable cache file is rebuilt.
//!
//! # Never
//! Run git or any other process (the caller lists the tree's files and blob ids), write anywhere
//! but `<cache>/repomap/`, print, or fail a build because a file cannot be read or parsed.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::{Deserialize, Serialize};

pub mod grammar;
mod symbols;

use symbols::Scanner;

/// Why the map could not be stored. Reading and parsing never fail the map (see the module docs).
#[derive(Debug, thiserror::Error)]
pub enum RepoMapError {
    #[error("create {path}: {source}")]
    CreateDir {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
}

impl loki_core::exit::Classify for RepoMapError {
    /// The map could not be stored: a failure of the machine, or whatever the core error says.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            RepoMapError::CreateDir { .. } => loki_core::exit::ExitClass::Failure,
            RepoMapError::Core(e) => e.exit_class(),
        }
    }
}

/// Writes `bytes` to `path` atomically, creating its parent directories.
fn write_file(path: &Path, bytes: &[u8]) -> Result<(), RepoMapError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| RepoMapError::CreateDir {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    loki_core::fs::write_atomic(path, bytes)?;
    Ok(())
}

/// Files mapped at most: enough for large repositories' relevant parts; the rest is listed by name.
pub const MAX_FILES: usize = 20_000;
/// Files larger than this are listed without symbols (generated code, data).
pub const MAX_SCAN_BYTES: u64 = 256 * 1024;
/// Parsing threads at most: parsing is CPU-bound, and past this the disk and memory bandwidth,
/// not the cores, set the pace.
const MAX_WORKERS: usize = 8;
/// Files per parsing thread at least: below this a thread costs more than it saves.
const PARALLEL_MIN_FILES: usize = 64;
/// Symbols kept per file: enough for the brief to say what a file is about.
pub const MAX_SYMBOLS: usize = 60;
/// Schema tag of a cache file; bump it when the map's shape or what [`symbols`] lists changes.
pub const CACHE_SCHEMA: &str = "loki.repomap/3";
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
    /// The git blob id of the content the symbols were read from (reuse key across trees).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
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
        RepoMap::from_entries(tree, map_files(root, &paths[..paths.len().min(MAX_FILES)]))
    }

    /// Like [`RepoMap::build`] for `files` as `(path, blob)`, reusing the symbols of `previous`
    /// for every file whose blob and extension it already mapped: only changed files are parsed.
    #[must_use]
    pub fn build_incremental(
        root: &Path,
        tree: &str,
        files: &[(String, String)],
        previous: Option<&RepoMap>,
    ) -> RepoMap {
        RepoMap::build_counting(root, tree, files, previous).0
    }

    /// [`RepoMap::build_incremental`] and how many files it parsed.
    fn build_counting(
        root: &Path,
        tree: &str,
        files: &[(String, String)],
        previous: Option<&RepoMap>,
    ) -> (RepoMap, usize) {
        let files = &files[..files.len().min(MAX_FILES)];
        let known: HashMap<(&str, Option<&str>), &FileEntry> = previous
            .map(|p| {
                p.files
                    .iter()
                    .filter_map(|f| Some(((f.blob.as_deref()?, extension(&f.path)), f)))
                    .collect()
            })
            .unwrap_or_default();
        let mut entries: Vec<Option<FileEntry>> = files
            .iter()
            .map(|(path, blob)| {
                known
                    .get(&(blob.as_str(), extension(path)))
                    .map(|f| FileEntry {
                        path: path.clone(),
                        blob: Some(blob.clone()),
                        ..(*f).clone()
                    })
            })
            .collect();
        let todo: Vec<String> = files
            .iter()
            .zip(&entries)
            .filter(|(_, e)| e.is_none())
            .map(|((p, _), _)| p.clone())
            .collect();
        let mut parsed = map_files(root, &todo).into_iter();
        for (slot, (_, blob)) in entries.iter_mut().zip(files) {
            if slot.is_none()
                && let Some(mut e) = parsed.next()
            {
                e.blob = Some(blob.clone());
                *slot = Some(e);
            }
        }
        let parsed_count = todo.len();
        (
            RepoMap::from_entries(tree, entries.into_iter().flatten().collect()),
            parsed_count,
        )
    }

    fn from_entries(tree: &str, files: Vec<FileEntry>) -> RepoMap {
        let mut languages = BTreeMap::new();
        for lang in files.iter().filter_map(|f| f.lang.as_ref()) {
            *languages.entry(lang.clone()).or_insert(0) += 1;
        }
        RepoMap {
            schema: CACHE_SCHEMA.to_string(),
            tree: tree.to_string(),
            files,
            languages,
        }
    }

    /// The cached map of `tree`, or a new one written to the cache, built incrementally from the
    /// most recent cached map (another tree of this or any repository: blobs are content hashes).
    /// Returns how it was obtained.
    pub fn load_or_build(
        cache_dir: &Path,
        root: &Path,
        tree: &str,
        files: &[(String, String)],
    ) -> Result<(RepoMap, MapSource), RepoMapError> {
        let dir = cache_dir.join("repomap");
        let file = dir.join(format!("{tree}.json"));
        if let Some(map) = read_map(&file).filter(|m| m.tree == tree) {
            return Ok((map, MapSource::Cached));
        }
        let previous = newest_map(&dir);
        let (map, parsed) = RepoMap::build_counting(root, tree, files, previous.as_ref());
        // A cache that cannot be written costs time next run, not correctness.
        if let Ok(bytes) = serde_json::to_vec(&map) {
            write_file(&file, &bytes)?;
        }
        prune(&dir);
        let source = match previous {
            Some(_) => MapSource::Incremental { parsed },
            None => MapSource::Built,
        };
        Ok((map, source))
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

/// How [`RepoMap::load_or_build`] got its map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapSource {
    /// This tree's map was cached.
    Cached,
    /// Built from an earlier tree's map; `parsed` files were new or changed.
    Incremental { parsed: usize },
    /// Built from scratch.
    Built,
}

/// Cached maps kept at most: each run's base tree adds one.
const MAX_CACHED_MAPS: usize = 16;

fn extension(path: &str) -> Option<&str> {
    path.rsplit_once('.').map(|(_, e)| e)
}

fn read_map(file: &Path) -> Option<RepoMap> {
    let text = std::fs::read_to_string(file).ok()?;
    serde_json::from_str::<RepoMap>(&text)
        .ok()
        .filter(|m| m.schema == CACHE_SCHEMA)
}

/// Cached map files, newest first.
fn cached_maps(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut maps: Vec<(std::time::SystemTime, std::path::PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    maps.sort_by_key(|m| std::cmp::Reverse(m.0));
    maps.into_iter().map(|(_, p)| p).collect()
}

fn newest_map(dir: &Path) -> Option<RepoMap> {
    cached_maps(dir).iter().find_map(|p| read_map(p))
}

/// Removes all but the newest [`MAX_CACHED_MAPS`] maps (a failure only leaves a file behind).
fn prune(dir: &Path) {
    for old in cached_maps(dir).into_iter().skip(MAX_CACHED_MAPS) {
        let _ = std::fs::remove_file(old);
    }
}

/// The entries of `paths`, in their order. Large maps are parsed by up to [`MAX_WORKERS`] threads
/// that take the next file from a shared counter, each with its own [`Scanner`]; the entries are
/// put back in path order, so the result does not depend on the scheduling.
fn map_files(root: &Path, paths: &[String]) -> Vec<FileEntry> {
    let workers = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let workers = workers
        .min(MAX_WORKERS)
        .min(paths.len() / PARALLEL_MIN_FILES);
    if workers <= 1 {
        let mut scanner = Scanner::new();
        return paths
            .iter()
            .map(|p| file_entry(root, p, Some(&mut scanner)))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut scanner = Scanner::new();
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = paths.get(i) else {
                return done;
            };
            done.push((i, file_entry(root, path, Some(&mut scanner))));
        }
    };
    let mut slots: Vec<Option<FileEntry>> =
        std::iter::repeat_with(|| None).take(paths.len()).collect();
    std::thread::scope(|scope| {
        // A thread that cannot be spawned leaves its share to the others.
        let helpers: Vec<_> = (1..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .name("loki-repomap".into())
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        let mut done = work();
        for helper in helpers {
            // Nothing in a worker panics; should one die anyway, its files are listed below
            // without symbols rather than lost.
            if let Ok(part) = helper.join() {
                done.extend(part);
            }
        }
        for (i, entry) in done {
            if let Some(slot) = slots.get_mut(i) {
                *slot = Some(entry);
            }
        }
    });
    slots
        .into_iter()
        .zip(paths)
        .map(|(slot, p)| slot.unwrap_or_else(|| file_entry(root, p, None)))
        .collect()
}

/// One file's entry; symbols only with a scanner, for a mapped language, under the size cap.
fn file_entry(root: &Path, path: &str, scanner: Option<&mut Scanner>) -> FileEntry {
    let lang = lang_of(path);
    let full = root.join(path);
    let bytes = std::fs::symlink_metadata(&full).map_or(0, |m| m.len());
    let symbols = match (scanner, lang.and_then(|l| symbols::of_file(path, l))) {
        (Some(scanner), Some(grammar)) if bytes <= MAX_SCAN_BYTES => std::fs::read(&full)
            .map(|b| scanner.symbols(grammar, &String::from_utf8_lossy(&b)))
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    FileEntry {
        path: path.to_string(),
        lang: lang.map(str::to_string),
        symbols,
        bytes,
        blob: None,
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
        "java" => "java",
        _ => return None,
    })
}

/// Top-level symbols of `text` in language `lang` (a [`lang_of`] name, or `tsx`; see the module
/// doc). An unknown language yields none. Parses with a parser made for this call: to scan many
/// files, [`RepoMap::build`] reuses one per grammar instead.
#[must_use]
pub fn symbols(lang: &str, text: &str) -> Vec<String> {
    symbols::of_lang(lang).map_or_else(Vec::new, |g| Scanner::new().symbols(g, text))
}

/// Where `path` (by its extension) stops parsing: `Some(line)` of the first syntax error, `None`
/// when it parses or is not in a language with a grammar here.
#[must_use]
pub fn syntax_error_line(path: &str, text: &str) -> Option<usize> {
    let lang = lang_of(path)?;
    let grammar = symbols::of_file(path, lang)?;
    Scanner::new().first_error_line(grammar, text)
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn a_new_tree_parses_only_its_new_or_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let write = |p: &str, body: &str| {
            let f = dir.path().join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, body).unwrap();
        };
        write("a.rs", "pub fn alpha() {}\n");
        write("b.py", "def beta():\n    pass\n");
        write("c.go", "package c\n\nfunc Gamma() {}\n");
        let tree1 = [
            ("a.rs".to_string(), "blob-a".to_string()),
            ("b.py".to_string(), "blob-b".to_string()),
            ("c.go".to_string(), "blob-c".to_string()),
        ];
        let (first, source) =
            RepoMap::load_or_build(cache.path(), dir.path(), "t1", &tree1).unwrap();
        assert_eq!(source, MapSource::Built);
        // The next tree changes b.py and renames c.go: only b.py is read again. The bytes on disk
        // for a.rs are now different, which proves its symbols were not re-read.
        write("a.rs", "pub fn not_read_again() {}\n");
        write("b.py", "def beta_two():\n    pass\n");
        let tree2 = [
            ("a.rs".to_string(), "blob-a".to_string()),
            ("b.py".to_string(), "blob-b2".to_string()),
            ("moved/c.go".to_string(), "blob-c".to_string()),
        ];
        let (second, source) =
            RepoMap::load_or_build(cache.path(), dir.path(), "t2", &tree2).unwrap();
        assert_eq!(source, MapSource::Incremental { parsed: 1 });
        let syms: Vec<(&str, Vec<String>)> = second
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.symbols.clone()))
            .collect();
        assert_eq!(
            syms,
            [
                ("a.rs", vec!["alpha".to_string()]),
                ("b.py", vec!["beta_two".to_string()]),
                ("moved/c.go", vec!["Gamma".to_string()]),
            ]
        );
        assert_eq!(second.files[2].blob.as_deref(), Some("blob-c"));
        assert_eq!(first.files[0].symbols, ["alpha"]);
        let (again, source) =
            RepoMap::load_or_build(cache.path(), dir.path(), "t2", &tree2).unwrap();
        assert_eq!((again, source), (second, MapSource::Cached));
    }

    #[test]
    fn syntax_errors_are_found_with_their_line() {
        assert_eq!(syntax_error_line("a.py", "def ok():\n    return 1\n"), None);
        assert_eq!(
            syntax_error_line("a.py", "def ok():\n    return 1\ndef bad(:\n"),
            Some(3)
        );
        assert_eq!(
            syntax_error_line("t/x.rs", "#[test]\nfn t() { assert!(f(1) }\n"),
            Some(2)
        );
        assert_eq!(
            syntax_error_line("x_test.go", "package x\n\nfunc Test(t *testing.T) {\n"),
            Some(3)
        );
        assert_eq!(
            syntax_error_line("a.test.js", "test('x', () => {\n"),
            Some(1)
        );
        // A name the code does not have yet is not a syntax error.
        assert_eq!(
            syntax_error_line("t.rs", "fn t() { assert!(not_written_yet(2)); }\n"),
            None
        );
        assert_eq!(syntax_error_line("notes.md", "def bad(:"), None);
    }

    #[test]
    fn top_level_symbols_per_language() {
        let rust = "pub fn is_leap(y: i32) -> bool {\n    fn inner() {}\n}\npub(crate) struct Year;\nimpl<T> Display for Year {}\nasync fn go() {}\n";
        assert_eq!(symbols("rust", rust), ["is_leap", "Year", "go"]);
        let py = "import os\ndef add(a, b):\n    def inner(): pass\nclass Calc:\n    pass\nasync def fetch(): pass\n";
        assert_eq!(symbols("python", py), ["add", "Calc", "fetch"]);
        let js =
            "export function parse(s) {}\nexport default class Lexer {}\nexport const MAX = 3;\n";
        assert_eq!(symbols("javascript", js), ["parse", "Lexer", "MAX"]);
        assert_eq!(symbols("typescript", js), ["parse", "Lexer", "MAX"]);
        assert_eq!(symbols("tsx", js), ["parse", "Lexer", "MAX"]);
        let go =
            "package main\nfunc (s *Server) Serve() {}\nfunc main() {}\ntype Config struct {}\n";
        assert_eq!(symbols("go", go), ["Server.Serve", "main", "Config"]);
        assert!(symbols("cobol", "fn main() {}").is_empty());
    }

    #[test]
    fn tsx_files_report_typescript_and_parse_as_tsx() {
        assert_eq!(lang_of("src/App.tsx"), Some("typescript"));
        assert_eq!(lang_of("src/app.jsx"), Some("javascript"));
        assert_eq!(lang_of("Makefile"), None);
        let dir = tempfile::tempdir().unwrap();
        let app = "export function App() {\n  return <div className=\"app\"><Header /></div>;\n}\nexport const Header = () => <h1>hi</h1>;\n";
        std::fs::write(dir.path().join("App.tsx"), app).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "fn not_code() {}\n").unwrap();
        let big = "fn f() {}\n".repeat(usize::try_from(MAX_SCAN_BYTES).unwrap() / 10 + 1);
        std::fs::write(dir.path().join("big.rs"), big).unwrap();
        let paths = ["App.tsx", "big.rs", "missing.py", "notes.txt"].map(String::from);
        let map = RepoMap::build(dir.path(), "t", &paths);
        assert_eq!(map.schema, "loki.repomap/3");
        let syms: Vec<(&str, &[String])> = map
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.symbols.as_slice()))
            .collect();
        assert_eq!(
            syms,
            [
                ("App.tsx", &["App".to_string(), "Header".to_string()][..]),
                ("big.rs", &[][..]),
                ("missing.py", &[][..]),
                ("notes.txt", &[][..]),
            ]
        );
        let langs: Vec<(&str, u64)> = map
            .languages
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(langs, [("python", 1), ("rust", 1), ("typescript", 1)]);
    }

    #[test]
    fn parallel_build_keeps_path_order_and_matches_single_file_symbols() {
        let dir = tempfile::tempdir().unwrap();
        let sources = [
            (
                "rs",
                "pub fn f{i}() {}\nstruct S{i};\nimpl S{i} { fn m(&self) {} }\n",
            ),
            ("py", "class C{i}:\n    def m(self):\n        pass\n"),
            ("js", "export function f{i}() {}\n"),
            ("ts", "export interface I{i} {}\n"),
            ("go", "package p\nfunc (s *S{i}) M() {}\n"),
            ("md", "# f{i}\n"),
        ];
        let mut paths = Vec::new();
        for i in 0..5 * PARALLEL_MIN_FILES {
            let (ext, src) = sources[i % sources.len()];
            let path = format!("d{}/f{i}.{ext}", i % 7);
            std::fs::create_dir_all(dir.path().join(format!("d{}", i % 7))).unwrap();
            std::fs::write(dir.path().join(&path), src.replace("{i}", &i.to_string())).unwrap();
            paths.push(path);
        }
        let map = RepoMap::build(dir.path(), "t", &paths);
        let got: Vec<&str> = map.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(got, paths);
        for f in &map.files {
            let text = std::fs::read_to_string(dir.path().join(&f.path)).unwrap();
            let want = f
                .lang
                .as_deref()
                .map_or_else(Vec::new, |l| symbols(l, &text));
            assert_eq!(f.symbols, want, "{}", f.path);
            assert_eq!(f.symbols.is_empty(), f.lang.is_none(), "{}", f.path);
        }
        assert_eq!(map, RepoMap::build(dir.path(), "t", &paths));
    }

    #[test]
    fn ranking_prefers_files_the_task_is_about() {
        let entry = |path: &str, symbols: &[&str]| FileEntry {
            path: path.into(),
            lang: lang_of(path).map(str::to_string),
            symbols: symbols.iter().map(|s| (*s).to_string()).collect(),
            bytes: 1,
            blob: None,
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
