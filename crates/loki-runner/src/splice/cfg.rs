//! `#[cfg(...)]` predicates: parsed, and evaluated with `test` on and off.

/// A `cfg` predicate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Pred {
    /// `test`, `unix`, `feature = "x"`, ...
    Atom(String),
    All(Vec<Pred>),
    Any(Vec<Pred>),
    Not(Box<Pred>),
}

/// Three-valued truth: atoms other than `test` are unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tri {
    True,
    False,
    Unknown,
}

impl Pred {
    pub(super) fn eval(&self, test: bool) -> Tri {
        match self {
            Pred::Atom(name) if name == "test" => {
                if test {
                    Tri::True
                } else {
                    Tri::False
                }
            }
            Pred::Atom(_) => Tri::Unknown,
            Pred::All(ps) => {
                let vals: Vec<Tri> = ps.iter().map(|p| p.eval(test)).collect();
                if vals.contains(&Tri::False) {
                    Tri::False
                } else if vals.iter().all(|v| *v == Tri::True) {
                    Tri::True
                } else {
                    Tri::Unknown
                }
            }
            Pred::Any(ps) => {
                let vals: Vec<Tri> = ps.iter().map(|p| p.eval(test)).collect();
                if vals.contains(&Tri::True) {
                    Tri::True
                } else if vals.iter().all(|v| *v == Tri::False) {
                    Tri::False
                } else {
                    Tri::Unknown
                }
            }
            Pred::Not(p) => match p.eval(test) {
                Tri::True => Tri::False,
                Tri::False => Tri::True,
                Tri::Unknown => Tri::Unknown,
            },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Str,
    Open,
    Close,
    Comma,
    Eq,
}

fn lex(text: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' => {
                chars.next();
                out.push(Tok::Open);
            }
            ')' => {
                chars.next();
                out.push(Tok::Close);
            }
            ',' => {
                chars.next();
                out.push(Tok::Comma);
            }
            '=' => {
                chars.next();
                out.push(Tok::Eq);
            }
            '"' => {
                chars.next();
                let mut escaped = false;
                loop {
                    let c = chars.next()?;
                    if escaped {
                        escaped = false;
                    } else if c == '\\' {
                        escaped = true;
                    } else if c == '"' {
                        break;
                    }
                }
                out.push(Tok::Str);
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut ident = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_alphanumeric() || c == '_' || c == '#' {
                        ident.push(c);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Tok::Ident(ident.trim_start_matches("r#").to_string()));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The predicate of `cfg`'s arguments, `(all(test, feature = "x"))`; `None` when it is not one.
pub(super) fn parse(args: &str) -> Option<Pred> {
    let toks = lex(args)?;
    let mut pos = 0;
    if toks.first() != Some(&Tok::Open) {
        return None;
    }
    pos += 1;
    let pred = parse_pred(&toks, &mut pos, 0)?;
    if toks.get(pos) == Some(&Tok::Comma) {
        pos += 1;
    }
    (toks.get(pos) == Some(&Tok::Close) && pos + 1 == toks.len()).then_some(pred)
}

fn parse_pred(toks: &[Tok], pos: &mut usize, depth: usize) -> Option<Pred> {
    if depth > 32 {
        return None;
    }
    let Some(Tok::Ident(name)) = toks.get(*pos) else {
        return None;
    };
    *pos += 1;
    match toks.get(*pos) {
        Some(Tok::Eq) => {
            *pos += 1;
            if toks.get(*pos) != Some(&Tok::Str) {
                return None;
            }
            *pos += 1;
            Some(Pred::Atom(format!("{name}=")))
        }
        Some(Tok::Open) => {
            *pos += 1;
            let mut args = Vec::new();
            while toks.get(*pos) != Some(&Tok::Close) {
                args.push(parse_pred(toks, pos, depth + 1)?);
                match toks.get(*pos) {
                    Some(Tok::Comma) => *pos += 1,
                    Some(Tok::Close) => {}
                    _ => return None,
                }
            }
            *pos += 1;
            match name.as_str() {
                "all" => Some(Pred::All(args)),
                "any" => Some(Pred::Any(args)),
                "not" if args.len() == 1 => args.pop().map(|p| Pred::Not(Box::new(p))),
                _ => None,
            }
        }
        _ => Some(Pred::Atom(name.clone())),
    }
}
