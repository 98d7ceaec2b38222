//! A tiny lexer for arithmetic assignments (`total = price * 3`).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Op,
}

/// A token and its location as a half-open range of *byte* offsets into the
/// source, so `&src[span.0..span.1] == text` always holds.
#[derive(Debug, Clone)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub span: (usize, usize),
}

// Two tokens are the same token if they have the same kind and spelling;
// where they came from is diagnostic metadata, like a line number.
impl PartialEq for Token {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.text == other.text
    }
}

impl Eq for Token {}

#[derive(Debug, PartialEq, Eq)]
pub struct LexError {
    pub offset: usize,
}

/// Split `src` into tokens. Identifiers start with a letter or `_` (any
/// Unicode letter) and continue with letters, digits or `_`.
pub fn lex(src: &str) -> Result<Vec<Token>, LexError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind = if c.is_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            Kind::Number
        } else if "+-*/=()".contains(c) {
            i += 1;
            Kind::Op
        } else {
            return Err(LexError { offset: i });
        };
        let text: String = chars[start..i].iter().collect();
        out.push(Token { kind, text, span: (start, i) });
    }
    Ok(out)
}
