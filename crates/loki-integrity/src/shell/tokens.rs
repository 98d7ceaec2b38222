//! Tokens: the lexer turning a script into words (quotes removed), operators and comments.

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    pub(super) text: String,
    pub(super) quoted: bool,
    pub(super) offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    And,
    Or,
    Pipe,
    Semi,
    DSemi,
    Amp,
    LParen,
    RParen,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    Word(Word),
    Op(Op),
    Newline,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Redir {
    /// The next word is a file name: dropped.
    Target,
    /// The next word is a here-document delimiter (`true`: `<<-`, tabs stripped).
    Heredoc(bool),
}

struct Lexer<'a> {
    cs: Vec<(usize, char)>,
    src: &'a str,
    i: usize,
    toks: Vec<Tok>,
    comments: Vec<(usize, String)>,
    cur: Option<Word>,
    redir: Option<Redir>,
    heredocs: Vec<(String, bool)>,
}

impl Lexer<'_> {
    fn at(&self, k: usize) -> Option<char> {
        self.cs.get(self.i + k).map(|&(_, c)| c)
    }

    pub(super) fn off(&self) -> usize {
        self.cs.get(self.i).map_or(self.src.len(), |&(o, _)| o)
    }

    pub(super) fn word(&mut self) -> &mut Word {
        let offset = self.off();
        self.cur.get_or_insert_with(|| Word {
            text: String::new(),
            quoted: false,
            offset,
        })
    }

    fn finish(&mut self) {
        let Some(w) = self.cur.take() else { return };
        match self.redir.take() {
            Some(Redir::Target) => {}
            Some(Redir::Heredoc(strip)) => self.heredocs.push((w.text, strip)),
            None => self.toks.push(Tok::Word(w)),
        }
    }

    pub(super) fn op(&mut self, op: Op, len: usize) {
        self.finish();
        self.toks.push(Tok::Op(op));
        self.i += len;
    }

    /// Copies a `$(...)`, `${...}` or backtick span verbatim into the current word.
    fn balanced(&mut self, open: char, close: char) {
        let mut depth = 0usize;
        while let Some(c) = self.at(0) {
            self.word().text.push(c);
            self.i += 1;
            if c == '\\' {
                if let Some(n) = self.at(0) {
                    self.word().text.push(n);
                    self.i += 1;
                }
                continue;
            }
            if open == close {
                if c == close && depth > 0 {
                    return;
                }
                depth = 1;
            } else if c == open {
                depth += 1;
            } else if c == close {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return;
                }
            }
        }
    }

    /// After a newline: skips the bodies of pending here-documents.
    fn heredoc_bodies(&mut self) {
        for (delim, strip) in std::mem::take(&mut self.heredocs) {
            loop {
                let start = self.i;
                while self.at(0).is_some_and(|c| c != '\n') {
                    self.i += 1;
                }
                let line: String = self.cs[start..self.i].iter().map(|&(_, c)| c).collect();
                if self.at(0) == Some('\n') {
                    self.i += 1;
                }
                let l = if strip {
                    line.trim_start_matches('\t')
                } else {
                    &line
                };
                if l == delim || self.i >= self.cs.len() {
                    break;
                }
            }
        }
    }

    fn redirection(&mut self) {
        // A word of digits right before `>`/`<` is a file descriptor, not an argument.
        if self.cur.as_ref().is_some_and(|w| {
            !w.quoted && !w.text.is_empty() && w.text.bytes().all(|b| b.is_ascii_digit())
        }) {
            self.cur = None;
        }
        self.finish();
        let c = self.at(0);
        self.i += 1;
        let mut kind = Redir::Target;
        match (c, self.at(0)) {
            (Some('<'), Some('<')) => {
                self.i += 1;
                if self.at(0) == Some('<') {
                    self.i += 1;
                } else if self.at(0) == Some('-') {
                    self.i += 1;
                    kind = Redir::Heredoc(true);
                } else {
                    kind = Redir::Heredoc(false);
                }
            }
            (_, Some('>' | '|')) => self.i += 1,
            (_, Some('&')) => {
                self.i += 1;
                // `>&2`, `2>&1`, `>&-`: the target is a descriptor, part of the operator.
                let mut fd = false;
                while self.at(0).is_some_and(|c| c.is_ascii_digit() || c == '-') {
                    self.i += 1;
                    fd = true;
                }
                if fd {
                    return;
                }
            }
            _ => {}
        }
        self.redir = Some(kind);
    }

    /// A backslash: a line continuation is dropped, any other character is taken literally.
    fn escaped(&mut self) {
        if self.at(1) == Some('\n') {
            self.i += 2;
            return;
        }
        let n = self.at(1);
        let w = self.word();
        w.quoted = true;
        if let Some(n) = n {
            w.text.push(n);
        }
        self.i += 2;
    }

    /// A single-quoted string: every character literal up to the closing quote.
    fn single_quoted(&mut self) {
        self.word().quoted = true;
        self.i += 1;
        while let Some(c) = self.at(0) {
            self.i += 1;
            if c == '\'' {
                break;
            }
            self.word().text.push(c);
        }
    }

    /// A double-quoted string: a backslash escapes only a double quote, a backslash, `$`, a
    /// backtick and a newline; command substitutions inside are kept whole.
    fn double_quoted(&mut self) {
        self.word().quoted = true;
        self.i += 1;
        while let Some(c) = self.at(0) {
            if c == '"' {
                self.i += 1;
                break;
            }
            if c == '\\' && matches!(self.at(1), Some('"' | '\\' | '$' | '`' | '\n')) {
                if let Some(n) = self.at(1).filter(|&n| n != '\n') {
                    self.word().text.push(n);
                }
                self.i += 2;
                continue;
            }
            if c == '$' && self.at(1) == Some('(') {
                self.balanced('(', ')');
                continue;
            }
            if c == '`' {
                self.balanced('`', '`');
                continue;
            }
            self.word().text.push(c);
            self.i += 1;
        }
    }

    /// A `$'...'` string: a backslash takes the next character literally.
    fn ansi_c_quoted(&mut self) {
        self.word().quoted = true;
        self.i += 2;
        while let Some(c) = self.at(0) {
            self.i += 1;
            if c == '\\' {
                if let Some(n) = self.at(0) {
                    self.word().text.push(n);
                    self.i += 1;
                }
                continue;
            }
            if c == '\'' {
                break;
            }
            self.word().text.push(c);
        }
    }

    /// A comment up to the end of its line, kept with its offset.
    fn comment(&mut self) {
        let at = self.off();
        let mut text = String::new();
        self.i += 1;
        while let Some(c) = self.at(0).filter(|&c| c != '\n') {
            text.push(c);
            self.i += 1;
        }
        self.comments.push((at, text));
    }

    pub(super) fn run(mut self) -> (Vec<Tok>, Vec<(usize, String)>) {
        while let Some(c) = self.at(0) {
            match c {
                '\\' => self.escaped(),
                '\'' => self.single_quoted(),
                '"' => self.double_quoted(),
                '$' if self.at(1) == Some('\'') => self.ansi_c_quoted(),
                '$' if self.at(1) == Some('(') => {
                    self.word().text.push('$');
                    self.i += 1;
                    self.balanced('(', ')');
                }
                '$' if self.at(1) == Some('{') => {
                    self.word().text.push('$');
                    self.i += 1;
                    self.balanced('{', '}');
                }
                '`' => self.balanced('`', '`'),
                ' ' | '\t' => {
                    self.finish();
                    self.i += 1;
                }
                '\n' => {
                    self.finish();
                    self.toks.push(Tok::Newline);
                    self.i += 1;
                    self.heredoc_bodies();
                }
                '#' if self.cur.is_none() => self.comment(),
                ';' if self.at(1) == Some(';') => self.op(Op::DSemi, 2),
                ';' => self.op(Op::Semi, 1),
                '&' if self.at(1) == Some('&') => self.op(Op::And, 2),
                '&' if self.at(1) == Some('>') => {
                    self.finish();
                    self.i += 1;
                    self.redirection();
                }
                '&' => self.op(Op::Amp, 1),
                '|' if self.at(1) == Some('|') => self.op(Op::Or, 2),
                '|' if self.at(1) == Some('&') => self.op(Op::Pipe, 2),
                '|' => self.op(Op::Pipe, 1),
                '(' => self.op(Op::LParen, 1),
                ')' => self.op(Op::RParen, 1),
                '<' | '>' => self.redirection(),
                _ => {
                    self.word().text.push(c);
                    self.i += 1;
                }
            }
        }
        self.finish();
        (self.toks, self.comments)
    }
}

pub(super) fn tokenize(src: &str) -> (Vec<Tok>, Vec<(usize, String)>) {
    Lexer {
        cs: src.char_indices().collect(),
        src,
        i: 0,
        toks: Vec::new(),
        comments: Vec::new(),
        cur: None,
        redir: None,
        heredocs: Vec::new(),
    }
    .run()
}

/// The words of `src` as a shell would split them (quotes removed), for option strings such as
/// pytest's `addopts` or `NODE_OPTIONS`. Operators and comments are dropped.
pub fn split_words(src: &str) -> Vec<String> {
    tokenize(src)
        .0
        .into_iter()
        .filter_map(|t| match t {
            Tok::Word(w) => Some(w.text),
            _ => None,
        })
        .collect()
}
