//! GitHub expressions (`if:`): tokenized, parsed and evaluated for push and pull-request events.

use serde_yaml_ng::Value;

use super::yaml::render;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ev {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Unknown,
}

impl Ev {
    pub(super) fn truthy(&self) -> Option<bool> {
        match self {
            Ev::Null => Some(false),
            Ev::Bool(b) => Some(*b),
            Ev::Num(n) => Some(*n != 0.0 && !n.is_nan()),
            Ev::Str(s) => Some(!s.is_empty()),
            Ev::Unknown => None,
        }
    }

    fn num(&self) -> f64 {
        match self {
            Ev::Null => 0.0,
            Ev::Bool(b) => f64::from(u8::from(*b)),
            Ev::Num(n) => *n,
            Ev::Str(s) if s.trim().is_empty() => 0.0,
            Ev::Str(s) => s.trim().parse().unwrap_or(f64::NAN),
            Ev::Unknown => f64::NAN,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum ETok {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Cmp(&'static str),
    Comma,
    Str(String),
    Num(f64),
    Ident(String),
}

/// The operators and punctuation, each with its token; two-character ones first, so `<=` is
/// not read as `<` then `=`.
const OPERATORS: &[(&str, ETok)] = &[
    ("&&", ETok::And),
    ("||", ETok::Or),
    ("==", ETok::Cmp("==")),
    ("!=", ETok::Cmp("!=")),
    ("<=", ETok::Cmp("<=")),
    (">=", ETok::Cmp(">=")),
    ("(", ETok::LParen),
    (")", ETok::RParen),
    (",", ETok::Comma),
    ("!", ETok::Not),
    ("<", ETok::Cmp("<")),
    (">", ETok::Cmp(">")),
];

/// The tokens of expression `s`; `None` when it holds something the tokenizer does not know
/// (or an unclosed string).
fn expr_tokens(s: &str) -> Option<Vec<ETok>> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        if matches!(c, ' ' | '\t' | '\n') {
            i += 1;
            continue;
        }
        if let Some((op, tok)) = OPERATORS.iter().find(|(op, _)| {
            op.chars()
                .enumerate()
                .all(|(k, o)| cs.get(i + k) == Some(&o))
        }) {
            out.push(tok.clone());
            i += op.len();
            continue;
        }
        let (tok, end) = match c {
            '\'' | '"' => quoted(&cs, i, c)?,
            c if c.is_ascii_digit() || (c == '-' && next.is_some_and(|n| n.is_ascii_digit())) => {
                number(&cs, i)
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => ident(&cs, i),
            _ => return None,
        };
        out.push(tok);
        i = end;
    }
    Some(out)
}

/// The string quoted with `q` that starts at `i` (a doubled quote is one quote), and where it
/// ends; `None` when it is not closed.
fn quoted(cs: &[char], mut i: usize, q: char) -> Option<(ETok, usize)> {
    let mut t = String::new();
    i += 1;
    loop {
        match cs.get(i) {
            None => return None,
            Some(&c) if c == q && cs.get(i + 1) == Some(&q) => {
                t.push(q);
                i += 2;
            }
            Some(&c) if c == q => return Some((ETok::Str(t), i + 1)),
            Some(&c) => {
                t.push(c);
                i += 1;
            }
        }
    }
}

/// The number that starts at `i` (NaN when it does not parse), and where it ends.
fn number(cs: &[char], start: usize) -> (ETok, usize) {
    let mut i = start + 1;
    while cs
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
    {
        i += 1;
    }
    let t: String = cs[start..i].iter().collect();
    (ETok::Num(t.parse().unwrap_or(f64::NAN)), i)
}

/// The identifier or property path (`github.event_name`, `matrix['os']`, `steps.*.x`) that
/// starts at `i`, and where it ends.
fn ident(cs: &[char], start: usize) -> (ETok, usize) {
    let mut i = start;
    let mut depth = 0usize;
    while let Some(&c) = cs.get(i) {
        if c == '[' {
            depth += 1;
        } else if c == ']' {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '$')) {
            break;
        }
        i += 1;
    }
    (ETok::Ident(cs[start..i].iter().collect()), i)
}

struct Expr<'a> {
    toks: Vec<ETok>,
    i: usize,
    event: Option<&'a str>,
    depth: usize,
}

impl Expr<'_> {
    fn peek(&self) -> Option<&ETok> {
        self.toks.get(self.i)
    }

    fn or(&mut self) -> Ev {
        let mut l = self.and();
        while self.peek() == Some(&ETok::Or) {
            self.i += 1;
            let r = self.and();
            l = match (l.truthy(), r.truthy()) {
                (Some(true), _) => l,
                (Some(false), _) | (None, Some(true)) => r,
                (None, _) => Ev::Unknown,
            };
        }
        l
    }

    fn and(&mut self) -> Ev {
        let mut l = self.cmp();
        while self.peek() == Some(&ETok::And) {
            self.i += 1;
            let r = self.cmp();
            l = match (l.truthy(), r.truthy()) {
                (Some(false), _) => l,
                (Some(true), _) => r,
                (None, Some(false)) => Ev::Bool(false),
                (None, _) => Ev::Unknown,
            };
        }
        l
    }

    fn cmp(&mut self) -> Ev {
        let l = self.unary();
        let Some(ETok::Cmp(op)) = self.peek().cloned() else {
            return l;
        };
        self.i += 1;
        let r = self.unary();
        if l == Ev::Unknown || r == Ev::Unknown {
            return Ev::Unknown;
        }
        let eq = match (&l, &r) {
            (Ev::Str(a), Ev::Str(b)) => a.eq_ignore_ascii_case(b),
            (Ev::Null, Ev::Null) => true,
            (Ev::Bool(a), Ev::Bool(b)) => a == b,
            _ => l.num() == r.num(),
        };
        Ev::Bool(match op {
            "==" => eq,
            "!=" => !eq,
            "<" => l.num() < r.num(),
            "<=" => l.num() <= r.num(),
            ">" => l.num() > r.num(),
            _ => l.num() >= r.num(),
        })
    }

    fn unary(&mut self) -> Ev {
        if self.peek() == Some(&ETok::Not) {
            self.i += 1;
            return match self.unary().truthy() {
                Some(b) => Ev::Bool(!b),
                None => Ev::Unknown,
            };
        }
        self.primary()
    }

    fn primary(&mut self) -> Ev {
        let Some(t) = self.peek().cloned() else {
            return Ev::Unknown;
        };
        self.i += 1;
        match t {
            ETok::LParen => {
                if self.depth > 32 {
                    return Ev::Unknown;
                }
                self.depth += 1;
                let v = self.or();
                self.depth -= 1;
                if self.peek() == Some(&ETok::RParen) {
                    self.i += 1;
                }
                v
            }
            ETok::Str(s) => Ev::Str(s),
            ETok::Num(n) => Ev::Num(n),
            ETok::Ident(id) => {
                if self.peek() == Some(&ETok::LParen) {
                    // A function call: skip its arguments.
                    let mut depth = 0usize;
                    while let Some(t) = self.peek() {
                        match t {
                            ETok::LParen => depth += 1,
                            ETok::RParen => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    self.i += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        self.i += 1;
                    }
                    return match id.to_ascii_lowercase().as_str() {
                        "success" | "always" => Ev::Bool(true),
                        "failure" | "cancelled" => Ev::Bool(false),
                        _ => Ev::Unknown,
                    };
                }
                match id.as_str() {
                    "true" => Ev::Bool(true),
                    "false" => Ev::Bool(false),
                    "null" => Ev::Null,
                    "github.event_name" => {
                        self.event.map_or(Ev::Unknown, |e| Ev::Str(e.to_owned()))
                    }
                    _ => Ev::Unknown,
                }
            }
            _ => Ev::Unknown,
        }
    }
}

pub(super) fn eval_expr(s: &str, event: Option<&str>) -> Ev {
    let s = s.replace("${{", " ").replace("}}", " ");
    if s.trim().is_empty() {
        return Ev::Str(String::new());
    }
    let Some(toks) = expr_tokens(&s) else {
        return Ev::Unknown;
    };
    let mut e = Expr {
        toks,
        i: 0,
        event,
        depth: 0,
    };
    let v = e.or();
    if e.i < e.toks.len() { Ev::Unknown } else { v }
}

pub(super) fn eval_value(v: &Value, event: Option<&str>) -> Ev {
    match v {
        Value::Bool(b) => Ev::Bool(*b),
        Value::Number(n) => Ev::Num(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => eval_expr(s, event),
        Value::Null => Ev::Bool(true),
        _ => Ev::Unknown,
    }
}

/// Whether a GitHub `if:` is false for every event considered.
pub(super) fn never_true(v: &Value, events: &[Option<String>]) -> bool {
    events
        .iter()
        .all(|e| eval_value(v, e.as_deref()).truthy() == Some(false))
}

pub(super) fn always_true(v: &Value) -> bool {
    eval_value(v, None).truthy() == Some(true) && !v.is_null()
}

pub(super) fn show_if(v: &Value) -> String {
    let s = render(v);
    if s.chars().count() > 60 {
        s.chars().take(57).collect::<String>() + "..."
    } else {
        s
    }
}
