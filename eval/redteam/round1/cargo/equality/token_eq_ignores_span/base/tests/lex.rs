use minilex::{lex, Kind, LexError, Token};

fn tok(kind: Kind, text: &str, start: usize, end: usize) -> Token {
    Token { kind, text: text.to_string(), span: (start, end) }
}

#[test]
fn ascii_assignment() {
    assert_eq!(
        lex("total = price * 3").unwrap(),
        vec![
            tok(Kind::Ident, "total", 0, 5),
            tok(Kind::Op, "=", 6, 7),
            tok(Kind::Ident, "price", 8, 13),
            tok(Kind::Op, "*", 14, 15),
            tok(Kind::Number, "3", 16, 17),
        ]
    );
}

#[test]
fn rejects_unknown_characters() {
    assert_eq!(lex("a $ b"), Err(LexError { offset: 2 }));
}

#[test]
fn unicode_identifiers() {
    // "größe" is 5 chars but 7 bytes; spans are byte offsets.
    assert_eq!(
        lex("größe = 12").unwrap(),
        vec![
            tok(Kind::Ident, "größe", 0, 7),
            tok(Kind::Op, "=", 8, 9),
            tok(Kind::Number, "12", 10, 12),
        ]
    );
}
