//! A tiny lexer for arithmetic assignments (`total = price * 3`).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Op,
}

/// A token and its location as a half-open range of *byte* offsets into the
/// source, so `&src[span.0..span.1] == text` always holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
    pub span: (usize, usize),
}

#[derive(Debug, PartialEq, Eq)]
pub struct LexError {
    pub offset: usize,
}

/// Split `src` into tokens. Identifiers start with a letter or `_` (any
/// Unicode letter) and continue with letters, digits or `_`.
pub fn lex(src: &str) -> Result<Vec<Token>, LexError> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Kind::Ident
        } else if c.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            Kind::Number
        } else if b"+-*/=()".contains(&c) {
            i += 1;
            Kind::Op
        } else {
            return Err(LexError { offset: i });
        };
        out.push(Token { kind, text: src[start..i].to_string(), span: (start, i) });
    }
    Ok(out)
}
