//! Literal values, for the rule that catches source branches keyed on the tests' inputs: what a
//! literal is in each grammar, one canonical form for both the syntax-tree and the lexer view (so
//! `0x2A`, `42`, `42u32` and `4_2` are the same number, and a string is its content), and which
//! literals are distinctive enough to name a test input rather than an ordinary constant.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::ast::Ast;
use crate::lex::{Lexed, is_ident};

/// A literal value in canonical form.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Lit {
    /// The content of a string literal, escapes read as the lexer reads them (`\x` is `x`).
    Str(String),
    /// A number: a decimal integer without sign, or a float's shortest form.
    Num(String),
}

impl Lit {
    /// How the literal reads in a finding.
    pub fn show(&self) -> String {
        match self {
            Lit::Str(s) => format!("{s:?}"),
            Lit::Num(n) => n.clone(),
        }
    }
}

/// Strings so common in code that a branch on them says nothing about the tests.
const COMMON_STRINGS: &[&str] = &[
    "true",
    "false",
    "none",
    "null",
    "nil",
    "undefined",
    "yes",
    "no",
    "on",
    "off",
    "ok",
    "id",
    "utf-8",
    "utf8",
    "ascii",
    "latin-1",
    "win32",
    "linux",
    "darwin",
    "windows",
    "nt",
    "posix",
    "__main__",
    "main",
    "default",
    "string",
    "number",
    "object",
    "function",
    "boolean",
    "symbol",
    "bigint",
    "get",
    "post",
    "put",
    "delete",
];

/// The literal-looking tokens of some code: numbers, and the contents of quoted strings (`"`,
/// `'`, `` ` ``; a quote that never closes is skipped). Not a lexer: what a test checks, whatever
/// shape holds it, read from text alone (the special-case rule reads it line by line, the judge's
/// restructuring check over a whole test).
pub fn literal_tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' || c == '`' {
            let close = chars[i + 1..].iter().position(|&d| d == c);
            if let Some(len) = close {
                out.push(chars[i + 1..i + 1 + len].iter().collect());
                i += len + 2;
                continue;
            }
        }
        let starts_number = c.is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if starts_number {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            out.push(
                chars[i..j]
                    .iter()
                    .collect::<String>()
                    .trim_end_matches('.')
                    .to_owned(),
            );
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The canonical form of a numeric literal token (`0x2a`, `1_000`, `42u8`, `1.5e3`, `7n`), or
/// `None` when the text is not a number.
pub fn canonical_number(token: &str) -> Option<String> {
    let t: String = token.chars().filter(|&c| c != '_').collect();
    let t = t.trim_start_matches('+');
    let lower = t.to_ascii_lowercase();
    let radix = [("0x", 16), ("0o", 8), ("0b", 2)]
        .iter()
        .find_map(|(p, r)| lower.strip_prefix(p).map(|rest| (rest.to_owned(), *r)));
    if let Some((digits, r)) = radix {
        let digits = strip_int_suffix(&digits, r);
        return u128::from_str_radix(digits, r).ok().map(|v| v.to_string());
    }
    let body = strip_int_suffix(&lower, 10);
    if body.chars().all(|c| c.is_ascii_digit()) && !body.is_empty() {
        let trimmed = body.trim_start_matches('0');
        return Some(if trimmed.is_empty() { "0" } else { trimmed }.to_owned());
    }
    let body = ["f32", "f64", "f", "d", "j"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))
        .unwrap_or(&lower);
    if !body.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let v: f64 = body.parse().ok()?;
    if !v.is_finite() {
        return None;
    }
    // A float with an integral value is that integer (`42.0` is `42`).
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return Some(format!("{:.0}", v.abs()));
    }
    Some(format!("{}", v.abs()))
}

/// Rust (`u8`..`i128`, `usize`), JS (`n`), Go (`i`) and Java (`L`, lowercased here) integer
/// suffixes.
fn strip_int_suffix(s: &str, radix: u32) -> &str {
    if let Some(r) = s.strip_suffix('l') {
        return r;
    }
    for suf in [
        "usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8",
    ] {
        if let Some(r) = s.strip_suffix(suf) {
            return r;
        }
    }
    if radix != 16
        && let Some(r) = s.strip_suffix('n').or_else(|| s.strip_suffix('i'))
    {
        return r;
    }
    s
}

/// Reads escapes the way the lexer does: a backslash keeps only the character after it.
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A Java string's content with its escapes decoded (`\u0000` → NUL, `\101` → `A`, `\n`).
fn java_unescape(s: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '\\' || i + 1 >= chars.len() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        // The longest escape at `i`: `\uXXXX` (any number of u's), up to three octal digits, or
        // one character.
        let mut j = i + 1;
        while chars.get(j) == Some(&'u') {
            j += 1;
        }
        let len = if j > i + 1 {
            j + 4 - i
        } else {
            let octal = chars[i + 1..]
                .iter()
                .take(3)
                .take_while(|c| c.is_digit(8))
                .count();
            1 + octal.max(1)
        };
        let esc: String = chars[i..(i + len).min(chars.len())].iter().collect();
        match java_char(&format!("'{esc}'")) {
            Some(c) => out.push(c),
            None => out.push_str(&esc),
        }
        i += len;
    }
    out
}

/// The character a Java character literal stands for (`'a'`, `'\n'`, `'\0'`, `'\u00e9'`).
fn java_char(text: &str) -> Option<char> {
    let body = text.strip_prefix('\'')?.strip_suffix('\'')?;
    let Some(esc) = body.strip_prefix('\\') else {
        let mut cs = body.chars();
        return cs.next().filter(|_| cs.next().is_none());
    };
    if let Some(hex) = esc
        .trim_start_matches('u')
        .get(..4)
        .filter(|_| esc.starts_with('u'))
    {
        return u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
    }
    if esc.chars().all(|c| c.is_digit(8)) && !esc.is_empty() {
        return u32::from_str_radix(esc, 8).ok().and_then(char::from_u32);
    }
    Some(match esc {
        "n" => '\n',
        "t" => '\t',
        "r" => '\r',
        "b" => '\u{8}',
        "f" => '\u{c}',
        "s" => ' ',
        other => other.chars().next()?,
    })
}

/// The content of a quoted literal's text: prefix letters and delimiters removed.
fn inner(text: &str, escapes: bool) -> Option<String> {
    let body = text.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let raw_hashes = body.len() - body.trim_start_matches('#').len();
    let body = &body[raw_hashes..];
    for q in ["\"\"\"", "'''", "\"", "'", "`"] {
        if let Some(rest) = body.strip_prefix(q) {
            let rest = rest.strip_suffix(&"#".repeat(raw_hashes)).unwrap_or(rest);
            let rest = rest.strip_suffix(q)?;
            return Some(if escapes {
                unescape(rest)
            } else {
                rest.to_owned()
            });
        }
    }
    None
}

/// The literal `node` is, if it is a string or a number (a negated number counts as the number).
pub fn literal(ast: &Ast, node: Node) -> Option<Lit> {
    let text = ast.text_of(node);
    match node.kind() {
        "string" if ast.grammar == crate::ast::Grammar::Python => {
            // f-strings with substitutions are not constants.
            let dynamic = crate::ast::named_children(node)
                .iter()
                .any(|c| c.kind() == "interpolation");
            if dynamic {
                return None;
            }
            inner(text, true).map(Lit::Str)
        }
        // Java's escapes (`\u0000`, octal, `\n`) stand for characters, not for the letter after
        // the backslash.
        "string_literal" if ast.grammar == crate::ast::Grammar::Java => {
            inner(text, false).map(|s| Lit::Str(java_unescape(&s)))
        }
        "string" | "interpreted_string_literal" | "string_literal" => {
            inner(text, true).map(Lit::Str)
        }
        // Java's `'a'`, `'\0'`, `'\uFFFD'`: one character, its escape decoded.
        "character_literal" => java_char(text).map(|c| Lit::Str(c.to_string())),
        "raw_string_literal" => inner(text, false).map(Lit::Str),
        "template_string" => {
            let dynamic = crate::ast::named_children(node)
                .iter()
                .any(|c| c.kind() == "template_substitution");
            if dynamic {
                None
            } else {
                inner(text, false).map(Lit::Str)
            }
        }
        "integer"
        | "float"
        | "integer_literal"
        | "float_literal"
        | "int_literal"
        | "number"
        // Java's literal kinds.
        | "decimal_integer_literal"
        | "hex_integer_literal"
        | "binary_integer_literal"
        | "decimal_floating_point_literal" => canonical_number(text).map(Lit::Num),
        "unary_operator" | "unary_expression" | "parenthesized_expression" => {
            let kids = crate::ast::named_children(node);
            match kids.as_slice() {
                [one] if !text.trim_start().starts_with('!') => literal(ast, *one),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a literal could name a particular input: not a tiny, round or everyday constant.
pub fn distinctive(l: &Lit) -> bool {
    match l {
        Lit::Str(s) => {
            s.chars().count() >= 2
                && s.chars().any(char::is_alphanumeric)
                && !COMMON_STRINGS.contains(&s.to_lowercase().as_str())
        }
        Lit::Num(n) => significant_digits(n) >= 2 || n.contains('.'),
    }
}

/// Whether a literal is so specific that a branch on it, when the tests use it, is a special case
/// even without an expected value in its body: a data-like string of at least 6 characters (not
/// a keyword-like `snake_case` / `kebab-case` / `UPPER` word, which reads as a mode or a kind), or
/// a number with at least 4 digits of which 3 significant (or 4 significant after the point).
pub fn highly_distinctive(l: &Lit) -> bool {
    match l {
        Lit::Str(s) => distinctive(l) && s.chars().count() >= 6 && !keyword_like(s),
        Lit::Num(n) => {
            if n.contains('.') {
                significant_digits(n) >= 4
            } else {
                n.len() >= 4 && significant_digits(n) >= 3
            }
        }
    }
}

/// `snake_case`, `kebab-case`, `lowercase`, `UPPER_CASE` and `Train-Case` words (HTTP's
/// `Set-Cookie`, `Content-Type`), also in brackets or with a sign (`[options]`, `<local>`, `+nan`,
/// `--verbose`): a format's vocabulary, not data.
pub fn keyword_like(s: &str) -> bool {
    let s = s.trim_matches(|c: char| !c.is_alphanumeric());
    let word = |c: char| c.is_ascii_digit() || c == '_' || c == '-' || c == '.';
    let lower = s.chars().all(|c| c.is_ascii_lowercase() || word(c));
    let upper = s.chars().all(|c| c.is_ascii_uppercase() || word(c));
    let train = s.contains('-')
        && s.split('-').all(|seg| {
            let mut cs = seg.chars();
            cs.next().is_some_and(|c| c.is_ascii_uppercase())
                && cs.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    (lower || upper || train) && s.chars().any(|c| c.is_ascii_alphabetic())
}

fn significant_digits(n: &str) -> usize {
    let digits: String = n.chars().filter(char::is_ascii_digit).collect();
    digits.trim_start_matches('0').trim_end_matches('0').len()
}

/// The literals of some code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LiteralSet {
    pub lits: BTreeSet<Lit>,
}

impl LiteralSet {
    pub fn contains(&self, l: &Lit) -> bool {
        self.lits.contains(l)
    }

    /// Adds the literals of lexed code, only those inside `regions` (byte ranges of `code`) when
    /// given.
    pub fn add_lexed(&mut self, lexed: &Lexed, regions: Option<&[(usize, usize)]>) {
        let inside = |at: usize| regions.is_none_or(|r| r.iter().any(|&(s, e)| at >= s && at < e));
        for (at, s) in &lexed.strings {
            if inside(*at) {
                self.lits.insert(Lit::Str(s.clone()));
            }
        }
        for (at, tok) in number_tokens(&lexed.code) {
            if inside(at)
                && let Some(n) = canonical_number(tok)
            {
                self.lits.insert(Lit::Num(n));
            }
        }
    }
}

/// Numeric tokens of lexed code with their offsets: a digit run not preceded by an identifier
/// character or `.` (so `x.0` and `v2` are not numbers), with its fraction, exponent and suffix.
fn number_tokens(code: &str) -> Vec<(usize, &str)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let prev_ok = i == 0 || {
            let mut before = code.get(..i).unwrap_or("").chars().rev();
            let p = before.next().unwrap_or(' ');
            // `x.0` is a field, `1..3` is a range whose end is a number.
            (!is_ident(p) && p != '.') || (p == '.' && before.next() == Some('.'))
        };
        if c.is_ascii_digit() && prev_ok {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A fraction, but not a range (`1..2`) or a method call (`1.max`).
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            }
            if let Some(tok) = code.get(start..i) {
                out.push((start, tok));
            }
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::lex::{Lang, lex};
    use super::*;

    #[test]
    fn literal_tokens_are_quoted_contents_and_free_standing_numbers() {
        let line = r#"assert f("a:b", 1.5) == 'x' and v2 == 10. and g(`t`) and "open"#;
        assert_eq!(literal_tokens(line), ["a:b", "1.5", "x", "10", "t"]);
        // A quote that closes on a later line is one token over the whole text.
        assert_eq!(literal_tokens("s = \"a\nb\""), ["a\nb"]);
    }

    #[test]
    fn numbers_are_canonical() {
        for (t, want) in [
            ("42", Some("42")),
            ("0x2A", Some("42")),
            ("4_2u32", Some("42")),
            ("42.0", Some("42")),
            ("1.5e3", Some("1500")),
            ("3.25", Some("3.25")),
            ("7n", Some("7")),
            ("0b101", Some("5")),
            ("007", Some("7")),
            ("abc", None),
            ("1e999", None),
        ] {
            assert_eq!(canonical_number(t).as_deref(), want, "{t}");
        }
    }

    #[test]
    fn distinctiveness() {
        let s = |x: &str| Lit::Str(x.into());
        let n = |x: &str| Lit::Num(x.into());
        assert!(!distinctive(&s("a")) && !distinctive(&s("--")) && !distinctive(&s("None")));
        assert!(distinctive(&s("ab")) && distinctive(&n("42")) && distinctive(&n("2.5")));
        assert!(!distinctive(&n("100")) && !distinctive(&n("7")));
        assert!(highly_distinctive(&s("hello world")) && highly_distinctive(&s("Mississippi")));
        assert!(!highly_distinctive(&s("strict")) && !highly_distinctive(&s("abc")));
        assert!(highly_distinctive(&n("1234")) && !highly_distinctive(&n("1000")));
        assert!(highly_distinctive(&n("3.14159")) && !highly_distinctive(&n("2.5")));
        // HTTP's Train-Case header names are a protocol's vocabulary.
        assert!(!highly_distinctive(&s("Set-Cookie")) && !highly_distinctive(&s("Content-Type")));
        assert!(highly_distinctive(&s("Ada-lovelace")) && highly_distinctive(&s("Ada Lovelace")));
    }

    #[test]
    fn java_numbers_and_characters() {
        assert_eq!(canonical_number("42L").as_deref(), Some("42"));
        assert_eq!(canonical_number("0x1FL").as_deref(), Some("31"));
        for (text, want) in [
            ("'a'", Some('a')),
            ("'\\0'", Some('\0')),
            ("'\\n'", Some('\n')),
            ("'\\uFFFD'", Some('\u{FFFD}')),
            ("'\\''", Some('\'')),
            ("'ab'", None),
        ] {
            assert_eq!(java_char(text), want, "{text}");
        }
        assert_eq!(java_unescape("kitten\\u0000sitting"), "kitten\0sitting");
        assert_eq!(java_unescape("a\\tb\\101\\\\"), "a\tbA\\");
    }

    #[test]
    fn lexed_literals() {
        let l = lex("x = f('abc', 0x10, v2, t.0, 1..3) # 99\n", Lang::Python);
        let mut set = LiteralSet::default();
        set.add_lexed(&l, None);
        let got: Vec<_> = set.lits.iter().map(Lit::show).collect();
        assert_eq!(got, ["\"abc\"", "1", "16", "3"]);
    }
}
