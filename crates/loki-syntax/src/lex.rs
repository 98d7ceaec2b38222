//! A lightweight lexer: drops comments and blanks string literals per language, so the rules
//! count code, not prose. A commented-out `assert_eq!` or an `it(` inside a string is not a test.
//!
//! Output ([`Lexed`]): `code` is the text with every comment removed (a line comment's newline is
//! kept) and every string literal replaced by the two characters `""`; `strings` holds each
//! literal's content with the byte offset of its placeholder in `code`, for rules that need the
//! text of a string (the module a `jest.mock("./x")` names).
//!
//! It is deliberately approximate (no regex literals in JS, no nested template strings beyond brace
//! counting) and never panics: it walks `char`s of a lossy UTF-8 view and every lookahead is
//! bounds-checked. Input is first normalised to LF line endings ([`normalize`]), so a CRLF file
//! lexes exactly like its LF twin.

/// Languages the rules know. `Hash` covers YAML, TOML, INI and shell: `#` comments, strings kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Rust,
    Python,
    Js,
    Go,
    Java,
    Hash,
}

impl Lang {
    /// The language of a source path, by extension; `None` for anything the rules do not lex.
    pub fn of_source(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
        match ext {
            "rs" => Some(Lang::Rust),
            "py" => Some(Lang::Python),
            "js" | "jsx" | "ts" | "tsx" | "mjs" | "cjs" | "mts" | "cts" => Some(Lang::Js),
            "go" => Some(Lang::Go),
            "java" => Some(Lang::Java),
            _ => None,
        }
    }
}

/// Code with comments dropped and strings blanked, plus the strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexed {
    pub code: String,
    pub strings: Vec<(usize, String)>,
}

impl Lexed {
    /// The content of the string literal whose placeholder starts at `code` offset `at`.
    pub fn string_at(&self, at: usize) -> Option<&str> {
        self.strings
            .binary_search_by_key(&at, |(p, _)| *p)
            .ok()
            .map(|i| self.strings[i].1.as_str())
    }
}

/// Lossy UTF-8 with CRLF and lone CR turned into LF.
pub fn normalize(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .replace("\r\n", "\n")
        .replace('\r', "\n")
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

struct Lexer {
    chars: Vec<char>,
    i: usize,
    out: Lexed,
}

impl Lexer {
    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn starts(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(k, c)| self.at(k) == Some(c))
    }

    fn prev_is_ident(&self) -> bool {
        self.i > 0 && self.chars.get(self.i - 1).is_some_and(|&c| is_ident(c))
    }

    fn push(&mut self, c: char) {
        self.out.code.push(c);
        self.i += 1;
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.at(0) {
            if c == '\n' {
                return;
            }
            self.i += 1;
        }
    }

    /// Skips a block comment opened at `i` (`/*`), nested when `nested` (Rust).
    fn skip_block(&mut self, nested: bool) {
        self.i += 2;
        let mut depth = 1usize;
        while self.i < self.chars.len() {
            if self.starts("*/") {
                self.i += 2;
                depth -= 1;
                if depth == 0 {
                    return;
                }
            } else if nested && self.starts("/*") {
                self.i += 2;
                depth += 1;
            } else {
                self.i += 1;
            }
        }
    }

    /// Consumes a literal whose opening delimiter (`open_len` chars) starts at `i` and which ends at
    /// `close`; `escapes` honours backslashes; `stop_at_newline` ends an unterminated one-line string.
    fn string(&mut self, open_len: usize, close: &str, escapes: bool, stop_at_newline: bool) {
        self.i += open_len;
        let mut content = String::new();
        while let Some(c) = self.at(0) {
            if self.starts(close) {
                self.i += close.chars().count();
                break;
            }
            if stop_at_newline && c == '\n' {
                break;
            }
            if escapes && c == '\\' {
                if let Some(n) = self.at(1) {
                    content.push(n);
                }
                self.i += 2;
                continue;
            }
            content.push(c);
            self.i += 1;
        }
        self.placeholder(content);
    }

    fn placeholder(&mut self, content: String) {
        self.out.strings.push((self.out.code.len(), content));
        self.out.code.push_str("\"\"");
    }

    /// A JS template literal: content up to the closing backtick, `${...}` skipped by brace depth.
    fn template(&mut self) {
        self.i += 1;
        let mut content = String::new();
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            if depth == 0 && c == '`' {
                self.i += 1;
                break;
            }
            if c == '\\' {
                self.i += 2;
                continue;
            }
            if depth == 0 && self.starts("${") {
                depth = 1;
                self.i += 2;
                continue;
            }
            if depth > 0 {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
            } else {
                content.push(c);
            }
            self.i += 1;
        }
        self.placeholder(content);
    }

    /// Rust raw strings: `r"..."`, `r#"..."#`, `br#"..."#`; returns false when not at one.
    fn rust_raw(&mut self) -> bool {
        let mut k = 0;
        if self.at(k) == Some('b') {
            k += 1;
        }
        if self.at(k) != Some('r') {
            return false;
        }
        k += 1;
        let mut hashes = 0;
        while self.at(k) == Some('#') {
            hashes += 1;
            k += 1;
        }
        if self.at(k) != Some('"') {
            return false;
        }
        let close = format!("\"{}", "#".repeat(hashes));
        self.string(k + 1, &close, false, false);
        true
    }

    /// A Rust `'x'` / `'\n'` char literal, as opposed to a lifetime `'a`.
    fn rust_char(&mut self) -> bool {
        let is_char = matches!(
            (self.at(1), self.at(2)),
            (Some('\\'), _) | (Some(_), Some('\''))
        );
        if is_char {
            self.string(1, "'", true, true);
        }
        is_char
    }

    fn run(mut self, lang: Lang) -> Lexed {
        while let Some(c) = self.at(0) {
            match lang {
                Lang::Rust => {
                    if self.starts("//") {
                        self.skip_line();
                    } else if self.starts("/*") {
                        self.skip_block(true);
                    } else if (c == 'r' || c == 'b') && !self.prev_is_ident() && self.rust_raw() {
                    } else if c == '"' {
                        self.string(1, "\"", true, false);
                    } else if c == '\'' && self.rust_char() {
                    } else {
                        self.push(c);
                    }
                }
                Lang::Python => {
                    if c == '#' {
                        self.skip_line();
                    } else if self.starts("\"\"\"") || self.starts("'''") {
                        let close: String = std::iter::repeat_n(c, 3).collect();
                        self.string(3, &close, true, false);
                    } else if c == '"' || c == '\'' {
                        self.string(1, &c.to_string(), true, true);
                    } else {
                        self.push(c);
                    }
                }
                Lang::Js | Lang::Go => {
                    if self.starts("//") {
                        self.skip_line();
                    } else if self.starts("/*") {
                        self.skip_block(false);
                    } else if c == '"' || c == '\'' {
                        self.string(1, &c.to_string(), true, true);
                    } else if c == '`' && lang == Lang::Js {
                        self.template();
                    } else if c == '`' {
                        self.string(1, "`", false, false);
                    } else {
                        self.push(c);
                    }
                }
                // Java: C comments, `"` strings, `'` characters and `"""` text blocks.
                Lang::Java => {
                    if self.starts("//") {
                        self.skip_line();
                    } else if self.starts("/*") {
                        self.skip_block(false);
                    } else if self.starts("\"\"\"") {
                        self.string(3, "\"\"\"", true, false);
                    } else if c == '"' || c == '\'' {
                        self.string(1, &c.to_string(), true, true);
                    } else {
                        self.push(c);
                    }
                }
                Lang::Hash => {
                    let at_word_start = self.i == 0
                        || self
                            .chars
                            .get(self.i - 1)
                            .is_some_and(|c| c.is_whitespace());
                    if c == '#' && at_word_start {
                        self.skip_line();
                    } else {
                        self.push(c);
                    }
                }
            }
        }
        self.out
    }
}

/// Lexes `text` (already [`normalize`]d) as `lang`.
pub fn lex(text: &str, lang: Lang) -> Lexed {
    Lexer {
        chars: text.chars().collect(),
        i: 0,
        out: Lexed::default(),
    }
    .run(lang)
}

/// Offsets in `code` where `pat` occurs as a token: when `pat` starts with an identifier character,
/// the character before it is neither an identifier character nor `.` (so `regex.test(` is not a
/// `test(` call and `my_assert!` is not `assert!`).
pub fn find_token(code: &str, pat: &str) -> Vec<usize> {
    let needs_boundary = pat.chars().next().is_some_and(is_ident);
    code.match_indices(pat)
        .map(|(i, _)| i)
        .filter(|&i| {
            !needs_boundary
                || !code[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| is_ident(c) || c == '.')
        })
        .collect()
}

pub fn count_token(code: &str, pat: &str) -> usize {
    find_token(code, pat).len()
}

/// Like [`count_token`], also requiring that no identifier character follows (`assert` but not
/// `assertion`).
pub fn count_word(code: &str, word: &str) -> usize {
    find_token(code, word)
        .into_iter()
        .filter(|&i| !code[i + word.len()..].chars().next().is_some_and(is_ident))
        .count()
}

/// The offset just past the bracket matching the one at `open` (`(`/`{`/`[`), or the end of `code`.
pub fn matching(code: &str, open: usize) -> usize {
    let Some(tail) = code.get(open..) else {
        return code.len();
    };
    let Some(o) = tail.chars().next() else {
        return code.len();
    };
    let c = match o {
        '(' => ')',
        '[' => ']',
        _ => '}',
    };
    let mut depth = 0usize;
    for (k, ch) in tail.char_indices() {
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return open + k + ch.len_utf8();
            }
        }
    }
    code.len()
}

/// The code after `at`, without leading whitespace.
pub fn rest_trimmed(code: &str, at: usize) -> &str {
    code.get(at..).unwrap_or("").trim_start()
}

/// True when `s` starts with `word` followed by a non-identifier character (or the end).
pub fn starts_with_word(s: &str, word: &str) -> bool {
    s.strip_prefix(word)
        .is_some_and(|r| !r.chars().next().is_some_and(is_ident))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_comments_strings_and_text_blocks() {
        let src = "// @Disabled\nclass T { /* assertEquals( */ @Test void a() { assertEquals(\"assertEquals(\", s); char c = '\"'; String b = \"\"\"\n  @Test \"quoted\"\n  \"\"\"; } }\n";
        let l = lex(src, Lang::Java);
        assert_eq!(count_token(&l.code, "assertEquals("), 1, "{}", l.code);
        assert_eq!(count_token(&l.code, "@Test"), 1, "{}", l.code);
        assert_eq!(count_token(&l.code, "@Disabled"), 0);
        assert_eq!(l.strings[0].1, "assertEquals(");
        assert!(
            l.strings[2].1.contains("@Test \"quoted\""),
            "{:?}",
            l.strings
        );
        assert_eq!(
            Lang::of_source("src/test/java/a/ATest.java"),
            Some(Lang::Java)
        );
    }

    #[test]
    fn rust_comments_strings_chars_and_lifetimes() {
        let src = "// assert!(x)\nfn f<'a>(s: &'a str) { /* assert!( /* nested */ ) */ assert!(s == \"assert!(\\\"\"); let c = '{'; let r = r#\"#[test]\"#; }\n";
        let l = lex(src, Lang::Rust);
        assert_eq!(count_token(&l.code, "assert!("), 1, "{}", l.code);
        assert_eq!(count_token(&l.code, "#[test]"), 0);
        assert!(l.code.contains("<'a>"), "{}", l.code);
        assert_eq!(l.strings[0].1, "assert!(\"");
        assert_eq!(
            matching(&l.code, l.code.find('{').unwrap()),
            l.code.len() - 1
        );
    }

    #[test]
    fn python_js_go_hash() {
        let l = lex(
            "# assert x\nx = '''\nassert y\n'''\nassert z  # assert w\n",
            Lang::Python,
        );
        assert_eq!(count_word(&l.code, "assert"), 1, "{}", l.code);
        let l = lex(
            "// it('a')\nconst s = `it(${x + '}'})`; it('b', () => {});\nre.test(s);",
            Lang::Js,
        );
        assert_eq!(count_token(&l.code, "it("), 1, "{}", l.code);
        assert_eq!(count_token(&l.code, "test("), 0);
        let i = l.code.find("it(").unwrap();
        assert_eq!(l.string_at(i + 3), Some("b"));
        let l = lex("/* t.Skip() */ s := `t.Skip()`; t.Skip()", Lang::Go);
        assert_eq!(count_token(&l.code, "t.Skip"), 1);
        let l = lex("run: cargo test # || true\nx: a#b\n", Lang::Hash);
        assert!(!l.code.contains("|| true") && l.code.contains("a#b"));
    }

    #[test]
    fn crlf_is_normalised() {
        assert_eq!(normalize(b"a\r\nb\rc\n"), "a\nb\nc\n");
        assert_eq!(normalize(b"\xff\r\n"), "\u{fffd}\n");
    }
}
