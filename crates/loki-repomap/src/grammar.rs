//! The source grammars loki parses with tree-sitter, and a parse bounded in time: shared by the
//! repository map ([`crate::build`]'s symbols) and the judge's structural rules and test-item
//! splicing in `loki-checks`, so that every part of loki reads a file as the same language.
//!
//! # Contract
//! - [`Grammar::of_path`] decides by the file name's extension (`.rs`, `.py`, `.js` `.jsx` `.mjs`
//!   `.cjs`, `.ts` `.mts` `.cts`, `.tsx`, `.go`, `.java`); anything else has no grammar.
//! - [`parser`] is `None` when the grammar's ABI is not one this tree-sitter accepts (a build
//!   problem, not a file problem): callers then treat the file as unparsed.
//! - [`parse_within`] abandons a parse still running after its timeout and resets the parser (an
//!   abandoned parse would otherwise resume on the next text); it never panics on any input.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Language, ParseOptions, ParseState, Parser, Tree};

/// A grammar loki parses with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grammar {
    Rust,
    Python,
    /// JavaScript, JSX included (it is part of the grammar).
    JavaScript,
    TypeScript,
    /// TypeScript with JSX (`.tsx`): the TypeScript grammar reads `<T>x` as a cast, TSX as markup.
    Tsx,
    Go,
    Java,
}

impl Grammar {
    /// Every grammar, in the order of [`Grammar::index`].
    pub const ALL: [Grammar; 7] = [
        Grammar::Rust,
        Grammar::Python,
        Grammar::JavaScript,
        Grammar::TypeScript,
        Grammar::Tsx,
        Grammar::Go,
        Grammar::Java,
    ];

    /// The grammar of a path, by the extension of its file name.
    #[must_use]
    pub fn of_path(path: &str) -> Option<Grammar> {
        let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1;
        Some(match ext {
            "rs" => Grammar::Rust,
            "py" => Grammar::Python,
            "js" | "jsx" | "mjs" | "cjs" => Grammar::JavaScript,
            "ts" | "mts" | "cts" => Grammar::TypeScript,
            "tsx" => Grammar::Tsx,
            "go" => Grammar::Go,
            "java" => Grammar::Java,
            _ => return None,
        })
    }

    /// The tree-sitter language.
    #[must_use]
    pub fn language(self) -> Language {
        match self {
            Grammar::Rust => tree_sitter_rust::LANGUAGE.into(),
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::Go => tree_sitter_go::LANGUAGE.into(),
            Grammar::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }

    /// JavaScript, TypeScript or TSX.
    #[must_use]
    pub fn is_js(self) -> bool {
        matches!(
            self,
            Grammar::JavaScript | Grammar::TypeScript | Grammar::Tsx
        )
    }

    /// The grammar's position in [`Grammar::ALL`].
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// A parser set to `grammar`, or `None` when this tree-sitter does not accept its ABI.
#[must_use]
pub fn parser(grammar: Grammar) -> Option<Parser> {
    let mut parser = Parser::new();
    parser.set_language(&grammar.language()).ok()?;
    Some(parser)
}

/// `text` parsed by `parser`, or `None` when the parse ran longer than `timeout` (the parser is
/// then reset).
pub fn parse_within(parser: &mut Parser, text: &str, timeout: Duration) -> Option<Tree> {
    let deadline = Instant::now() + timeout;
    let mut progress = |_: &ParseState| {
        if Instant::now() >= deadline {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let bytes = text.as_bytes();
    let tree = parser.parse_with_options(
        &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
        None,
        Some(options),
    );
    if tree.is_none() {
        parser.reset();
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_grammars_by_extension() {
        assert_eq!(Grammar::of_path("src/lib.rs"), Some(Grammar::Rust));
        assert_eq!(Grammar::of_path("a\\b\\c.py"), Some(Grammar::Python));
        assert_eq!(Grammar::of_path("x.cjs"), Some(Grammar::JavaScript));
        assert_eq!(Grammar::of_path("x.mts"), Some(Grammar::TypeScript));
        assert_eq!(Grammar::of_path("App.tsx"), Some(Grammar::Tsx));
        assert_eq!(Grammar::of_path("main.go"), Some(Grammar::Go));
        assert_eq!(Grammar::of_path("Makefile"), None);
        assert_eq!(Grammar::of_path("dir.rs/README"), None);
        for g in Grammar::ALL {
            assert_eq!(Grammar::ALL[g.index()], g);
        }
    }

    #[test]
    fn every_grammar_parses_and_a_zero_timeout_abandons() {
        for g in Grammar::ALL {
            let mut p = parser(g).unwrap();
            assert!(parse_within(&mut p, "x", Duration::from_secs(5)).is_some());
        }
        let mut p = parser(Grammar::Python).unwrap();
        let big = "x = 1\n".repeat(200_000);
        assert!(parse_within(&mut p, &big, Duration::ZERO).is_none());
        // The parser is usable again after an abandoned parse.
        let tree = parse_within(&mut p, "y = 2\n", Duration::from_secs(5)).unwrap();
        assert!(!tree.root_node().has_error());
    }
}
