//! A small POSIX shell reader for the commands CI steps and `package.json` scripts run: enough
//! structure to tell whether a test command's failure can still fail the script.
//!
//! # What it reads
//! [`parse`] turns a script into lists of and-or lists of pipelines of commands: simple commands
//! (words with quotes removed, leading `NAME=value` assignments apart, redirections dropped),
//! `( )` subshells, `{ }` groups, `if`/`elif`/`else`, `while`/`until`/`for` loops, and (opaquely)
//! `case` and function bodies. Newlines, `;`, `&`, `&&`, `||`, `|` and `|&` separate commands; `\`
//! continues a line; `#` starts a comment at the start of a word (comments are kept, with their
//! offsets, so a commented-out test command can be named); here-documents are skipped. `sh -c` /
//! `bash -c` scripts, and whatever a caller's resolver expands (an `npm run` script), are parsed as
//! nested scripts. GitHub's `${{ ... }}` is one word. Every simple command gets an id, in order.
//!
//! # What it decides
//! [`fate`] simulates the script once for one simple command assumed to fail, every other command
//! assumed to succeed (or to take the branch that reaches the target), and reports whether the
//! script still exits non-zero: [`Fate::Propagates`]; [`Fate::Swallowed`] with the reason (`|| true`,
//! `|| echo`, `; exit 0`, `set +e` with nothing reading `$?`, a pipe into `tee` without `pipefail`,
//! `!`, `&`, an `if` condition, a later command that sets the exit status when `-e` is off); or
//! [`Fate::NeverRuns`] (an earlier unconditional `exit`). `set -e`/`+e`/`-o pipefail` are followed.
//! Anything that reads `$?`, `PIPESTATUS` or a variable assigned from them, a loop whose condition is
//! the target, and a `case` make the answer [`Fate::Unknown`], which the rules treat as "can fail".
//!
//! Never panics: the reader walks `char`s with bounds-checked lookahead and always makes progress;
//! nesting is bounded by [`MAX_DEPTH`].

use std::collections::BTreeSet;

/// Nesting limit for groups, `-c` scripts and resolved scripts: deeper input is read flat.
pub(crate) const MAX_DEPTH: usize = 24;

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Simple {
    pub id: usize,
    /// Words after the assignments, quotes removed.
    pub words: Vec<String>,
    /// Leading `NAME=value` words.
    pub assigns: Vec<(String, String)>,
    /// Byte offset of the command's first word in the script.
    pub offset: usize,
    /// The script this command runs (`sh -c '...'`, or a resolved `npm run x`), with the shell
    /// options it starts with.
    pub nested: Option<Box<Nested>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nested {
    pub list: List,
    pub errexit: bool,
    pub pipefail: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cmd {
    Simple(Simple),
    /// `{ ...; }` runs in this shell; `( ... )` in a subshell.
    Group {
        body: List,
        subshell: bool,
    },
    /// `if` arms (condition, body) and the `else` body.
    If {
        arms: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    /// `while`/`until` (with a condition) or `for` (without).
    Loop {
        cond: Option<List>,
        body: List,
    },
    /// `case` and function bodies: commands are known, control flow is not.
    Opaque(List),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    pub negated: bool,
    pub cmds: Vec<Cmd>,
}

/// Pipelines joined by `&&` (true) or `||` (false).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(bool, Pipeline)>,
}

/// And-or lists in order; the flag is "run in the background" (`&`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct List {
    pub items: Vec<(AndOr, bool)>,
}

/// A parsed script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    pub list: List,
    /// `(offset, text)` of every comment, `#` excluded.
    pub comments: Vec<(usize, String)>,
}

impl List {
    /// Every simple command, nested scripts included, in id order.
    pub(crate) fn simples(&self) -> Vec<&Simple> {
        let mut out = Vec::new();
        walk_list(self, &mut |s| out.push(s));
        out
    }
}

fn walk_list<'a>(l: &'a List, f: &mut dyn FnMut(&'a Simple)) {
    for (ao, _) in &l.items {
        for p in std::iter::once(&ao.first).chain(ao.rest.iter().map(|(_, p)| p)) {
            for c in &p.cmds {
                walk_cmd(c, f);
            }
        }
    }
}

fn walk_cmd<'a>(c: &'a Cmd, f: &mut dyn FnMut(&'a Simple)) {
    match c {
        Cmd::Simple(s) => {
            f(s);
            if let Some(n) = &s.nested {
                walk_list(&n.list, f);
            }
        }
        Cmd::Group { body, .. } | Cmd::Opaque(body) => walk_list(body, f),
        Cmd::If { arms, otherwise } => {
            for (c, b) in arms {
                walk_list(c, f);
                walk_list(b, f);
            }
            if let Some(o) = otherwise {
                walk_list(o, f);
            }
        }
        Cmd::Loop { cond, body } => {
            if let Some(c) = cond {
                walk_list(c, f);
            }
            walk_list(body, f);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    quoted: bool,
    offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
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
enum Tok {
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

    fn off(&self) -> usize {
        self.cs.get(self.i).map_or(self.src.len(), |&(o, _)| o)
    }

    fn word(&mut self) -> &mut Word {
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

    fn op(&mut self, op: Op, len: usize) {
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

    fn run(mut self) -> (Vec<Tok>, Vec<(usize, String)>) {
        while let Some(c) = self.at(0) {
            match c {
                '\\' => {
                    if self.at(1) == Some('\n') {
                        self.i += 2;
                        continue;
                    }
                    let n = self.at(1);
                    let w = self.word();
                    w.quoted = true;
                    if let Some(n) = n {
                        w.text.push(n);
                    }
                    self.i += 2;
                }
                '\'' => {
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
                '"' => {
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
                '$' if self.at(1) == Some('\'') => {
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
                '#' if self.cur.is_none() => {
                    let at = self.off();
                    let mut text = String::new();
                    self.i += 1;
                    while let Some(c) = self.at(0).filter(|&c| c != '\n') {
                        text.push(c);
                        self.i += 1;
                    }
                    self.comments.push((at, text));
                }
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

fn tokenize(src: &str) -> (Vec<Tok>, Vec<(usize, String)>) {
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
pub(crate) fn split_words(src: &str) -> Vec<String> {
    tokenize(src)
        .0
        .into_iter()
        .filter_map(|t| match t {
            Tok::Word(w) => Some(w.text),
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Parser

/// Expands a command into the script it runs (an `npm run` script), for nested parsing.
pub(crate) type Resolver<'r> = &'r dyn Fn(&[String]) -> Option<String>;

struct Parser<'r> {
    toks: Vec<Tok>,
    pos: usize,
    next_id: usize,
    depth: usize,
    resolve: Option<Resolver<'r>>,
}

const KEYWORDS: &[&str] = &[
    "if", "then", "elif", "else", "fi", "while", "until", "for", "select", "do", "done", "case",
    "esac", "{", "}", "!", "function",
];

impl<'r> Parser<'r> {
    fn keyword(&self) -> Option<&str> {
        match self.toks.get(self.pos) {
            Some(Tok::Word(w)) if !w.quoted && KEYWORDS.contains(&w.text.as_str()) => {
                Some(w.text.as_str())
            }
            _ => None,
        }
    }

    fn at_op(&self, op: Op) -> bool {
        self.toks.get(self.pos) == Some(&Tok::Op(op))
    }

    fn eat_keyword(&mut self, k: &str) -> bool {
        if self.keyword() == Some(k) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.toks.get(self.pos), Some(Tok::Newline)) {
            self.pos += 1;
        }
    }

    fn at_stop(&self, stop: &[&str]) -> bool {
        match self.toks.get(self.pos) {
            None => true,
            Some(Tok::Op(Op::RParen)) => stop.contains(&")"),
            Some(Tok::Op(Op::DSemi)) => stop.contains(&";;"),
            _ => self.keyword().is_some_and(|k| stop.contains(&k)),
        }
    }

    fn list(&mut self, stop: &[&str]) -> List {
        let mut items = Vec::new();
        loop {
            while matches!(
                self.toks.get(self.pos),
                Some(Tok::Newline | Tok::Op(Op::Semi))
            ) {
                self.pos += 1;
            }
            if self.at_stop(stop) {
                break;
            }
            let before = self.pos;
            let ao = self.and_or(stop);
            let bg = self.at_op(Op::Amp);
            if bg {
                self.pos += 1;
            }
            if self.pos == before {
                // A token that starts nothing here (a stray `)`, `fi`, `;;`): skip it.
                self.pos += 1;
                continue;
            }
            items.push((ao, bg));
        }
        List { items }
    }

    fn and_or(&mut self, stop: &[&str]) -> AndOr {
        let first = self.pipeline(stop);
        let mut rest = Vec::new();
        loop {
            let and = if self.at_op(Op::And) {
                true
            } else if self.at_op(Op::Or) {
                false
            } else {
                break;
            };
            self.pos += 1;
            self.skip_newlines();
            let before = self.pos;
            let p = self.pipeline(stop);
            if self.pos == before {
                break;
            }
            rest.push((and, p));
        }
        AndOr { first, rest }
    }

    fn pipeline(&mut self, stop: &[&str]) -> Pipeline {
        let negated = self.eat_keyword("!");
        let mut cmds = Vec::new();
        if let Some(c) = self.command(stop) {
            cmds.push(c);
        }
        while self.at_op(Op::Pipe) {
            self.pos += 1;
            self.skip_newlines();
            match self.command(stop) {
                Some(c) => cmds.push(c),
                None => break,
            }
        }
        Pipeline { negated, cmds }
    }

    fn sub_list(&mut self, stop: &[&str]) -> List {
        if self.depth >= MAX_DEPTH {
            // Too deep: read the rest flat rather than recurse further.
            return List::default();
        }
        self.depth += 1;
        let l = self.list(stop);
        self.depth -= 1;
        l
    }

    fn command(&mut self, stop: &[&str]) -> Option<Cmd> {
        if self.at_stop(stop) {
            return None;
        }
        match self.keyword() {
            Some("if") => {
                self.pos += 1;
                let mut arms = Vec::new();
                let mut otherwise = None;
                loop {
                    let cond = self.sub_list(&["then"]);
                    self.eat_keyword("then");
                    let body = self.sub_list(&["elif", "else", "fi"]);
                    arms.push((cond, body));
                    if self.eat_keyword("elif") {
                        continue;
                    }
                    if self.eat_keyword("else") {
                        otherwise = Some(self.sub_list(&["fi"]));
                    }
                    self.eat_keyword("fi");
                    break;
                }
                return Some(Cmd::If { arms, otherwise });
            }
            Some("while" | "until") => {
                self.pos += 1;
                let cond = self.sub_list(&["do"]);
                self.eat_keyword("do");
                let body = self.sub_list(&["done"]);
                self.eat_keyword("done");
                return Some(Cmd::Loop {
                    cond: Some(cond),
                    body,
                });
            }
            Some("for" | "select") => {
                self.pos += 1;
                while self.pos < self.toks.len() && self.keyword() != Some("do") {
                    self.pos += 1;
                }
                self.eat_keyword("do");
                let body = self.sub_list(&["done"]);
                self.eat_keyword("done");
                return Some(Cmd::Loop { cond: None, body });
            }
            Some("case") => return Some(self.case()),
            Some("{") => {
                self.pos += 1;
                let body = self.sub_list(&["}"]);
                self.eat_keyword("}");
                return Some(Cmd::Group {
                    body,
                    subshell: false,
                });
            }
            Some("function") => {
                self.pos += 2;
                if self.at_op(Op::LParen) {
                    self.pos += 2;
                }
                self.skip_newlines();
                let body = self.body_command(stop).map(|c| List {
                    items: vec![(
                        AndOr {
                            first: Pipeline {
                                negated: false,
                                cmds: vec![c],
                            },
                            rest: Vec::new(),
                        },
                        false,
                    )],
                });
                return Some(Cmd::Opaque(body.unwrap_or_default()));
            }
            _ => {}
        }
        if self.at_op(Op::LParen) {
            self.pos += 1;
            let body = self.sub_list(&[")"]);
            if self.at_op(Op::RParen) {
                self.pos += 1;
            }
            return Some(Cmd::Group {
                body,
                subshell: true,
            });
        }
        // `name() { ...; }`: a function definition.
        if matches!(self.toks.get(self.pos), Some(Tok::Word(_)))
            && self.toks.get(self.pos + 1) == Some(&Tok::Op(Op::LParen))
            && self.toks.get(self.pos + 2) == Some(&Tok::Op(Op::RParen))
        {
            self.pos += 3;
            self.skip_newlines();
            let body = self.body_command(stop);
            return Some(Cmd::Opaque(List {
                items: body
                    .map(|c| {
                        (
                            AndOr {
                                first: Pipeline {
                                    negated: false,
                                    cmds: vec![c],
                                },
                                rest: Vec::new(),
                            },
                            false,
                        )
                    })
                    .into_iter()
                    .collect(),
            }));
        }
        self.simple()
    }

    /// A function's body, one level deeper (bounded like every other nesting).
    fn body_command(&mut self, stop: &[&str]) -> Option<Cmd> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let c = self.command(stop);
        self.depth -= 1;
        c
    }

    fn case(&mut self) -> Cmd {
        self.pos += 1;
        while self.pos < self.toks.len() && self.keyword() != Some("in") {
            // `in` is not in KEYWORDS; find it as a plain word.
            if matches!(self.toks.get(self.pos), Some(Tok::Word(w)) if !w.quoted && w.text == "in")
            {
                break;
            }
            self.pos += 1;
        }
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            if self.pos >= self.toks.len() || self.eat_keyword("esac") {
                break;
            }
            // The pattern: everything up to its `)`.
            if self.at_op(Op::LParen) {
                self.pos += 1;
            }
            while self.pos < self.toks.len() && !self.at_op(Op::RParen) {
                self.pos += 1;
            }
            self.pos += 1;
            let body = self.sub_list(&[";;", "esac"]);
            items.extend(body.items);
            if self.at_op(Op::DSemi) {
                self.pos += 1;
            }
        }
        Cmd::Opaque(List { items })
    }

    fn simple(&mut self) -> Option<Cmd> {
        let mut s = Simple {
            id: self.next_id,
            ..Simple::default()
        };
        let mut offset = None;
        while let Some(Tok::Word(w)) = self.toks.get(self.pos) {
            offset.get_or_insert(w.offset);
            if s.words.is_empty()
                && !w.quoted
                && let Some((name, value)) = assignment(&w.text)
            {
                s.assigns.push((name, value));
                self.pos += 1;
                continue;
            }
            s.words.push(w.text.clone());
            self.pos += 1;
        }
        let offset = offset?;
        s.offset = offset;
        self.next_id += 1;
        s.nested = self.nested(&s.words, offset);
        Some(Cmd::Simple(s))
    }

    /// The script a command runs: `sh -c '...'` or whatever the resolver expands.
    fn nested(&mut self, words: &[String], offset: usize) -> Option<Box<Nested>> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        let (script, errexit, pipefail) = if let Some((script, e, p)) = dash_c(words) {
            (script, e, p)
        } else {
            let r = self.resolve?;
            (r(words)?, false, false)
        };
        let (toks, _) = tokenize(&script);
        let mut p = Parser {
            toks,
            pos: 0,
            next_id: self.next_id,
            depth: self.depth + 1,
            resolve: self.resolve,
        };
        let mut list = p.list(&[]);
        self.next_id = p.next_id;
        // The nested script's text is not in the file: its commands are where the outer one is.
        set_offsets(&mut list, offset);
        Some(Box::new(Nested {
            list,
            errexit,
            pipefail,
        }))
    }
}

fn set_offsets(l: &mut List, offset: usize) {
    for (ao, _) in &mut l.items {
        for p in std::iter::once(&mut ao.first).chain(ao.rest.iter_mut().map(|(_, p)| p)) {
            for c in &mut p.cmds {
                match c {
                    Cmd::Simple(s) => {
                        s.offset = offset;
                        if let Some(n) = &mut s.nested {
                            set_offsets(&mut n.list, offset);
                        }
                    }
                    Cmd::Group { body, .. } | Cmd::Opaque(body) => set_offsets(body, offset),
                    Cmd::If { arms, otherwise } => {
                        for (c, b) in arms {
                            set_offsets(c, offset);
                            set_offsets(b, offset);
                        }
                        if let Some(o) = otherwise {
                            set_offsets(o, offset);
                        }
                    }
                    Cmd::Loop { cond, body } => {
                        if let Some(c) = cond {
                            set_offsets(c, offset);
                        }
                        set_offsets(body, offset);
                    }
                }
            }
        }
    }
}

/// `NAME=value` as an assignment.
fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let ok = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    ok.then(|| (name.to_owned(), value.to_owned()))
}

/// `sh -c SCRIPT`, `bash -ec SCRIPT`, `bash -o pipefail -c SCRIPT`: the script and its `-e` and
/// `pipefail` options.
fn dash_c(words: &[String]) -> Option<(String, bool, bool)> {
    let shell = basename(words.first()?);
    if !matches!(shell, "sh" | "bash" | "zsh" | "dash" | "ksh") {
        return None;
    }
    let (mut errexit, mut pipefail) = (false, false);
    let mut i = 1;
    while let Some(w) = words.get(i) {
        if w == "-o" || w == "+o" {
            if words.get(i + 1).map(String::as_str) == Some("pipefail") {
                pipefail = w == "-o";
            } else if words.get(i + 1).map(String::as_str) == Some("errexit") {
                errexit = w == "-o";
            }
            i += 2;
            continue;
        }
        let flags = w
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !f.starts_with('-'))?;
        if flags.contains('e') {
            errexit = true;
        }
        if flags.contains('c') {
            return words.get(i + 1).map(|s| (s.clone(), errexit, pipefail));
        }
        i += 1;
    }
    None
}

/// The last `/` component of a command word (`./node_modules/.bin/jest` is `jest`).
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// Parses `src`; `resolve` expands commands into nested scripts (see [`Resolver`]).
pub(crate) fn parse(src: &str, resolve: Option<Resolver<'_>>) -> Script {
    let (toks, comments) = tokenize(src);
    let mut p = Parser {
        toks,
        pos: 0,
        next_id: 0,
        depth: 0,
        resolve,
    };
    Script {
        list: p.list(&[]),
        comments,
    }
}

// ---------------------------------------------------------------------------------------------
// Simulation

/// Whether a test command's failure fails the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fate {
    Propagates,
    /// The script exits 0 anyway; why.
    Swallowed(String),
    /// The command is never reached; why.
    NeverRuns(String),
    /// The script reads the status in a way this reader does not follow.
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Ok,
    Fail,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Exit(St),
}

#[derive(Clone)]
struct Sim {
    target: usize,
    errexit: bool,
    /// `-e` was on and a `set +e` turned it off.
    errexit_dropped: bool,
    pipefail: bool,
    last: St,
    /// The last status is the target's failure, still travelling.
    failing: bool,
    hit: bool,
    /// Why the target's failure did not stop the script at once.
    pending: Option<String>,
    why: Option<String>,
    /// An `exit` ran before the target.
    early_exit: Option<String>,
    tainted: BTreeSet<String>,
    /// Ids of the script's other test commands, and whether one is running as a retry.
    tests: BTreeSet<usize>,
    retrying: bool,
}

fn contains_list(l: &List, id: usize) -> bool {
    let mut found = false;
    walk_list(l, &mut |s| found |= s.id == id);
    found
}

fn contains_cmd(c: &Cmd, id: usize) -> bool {
    let mut found = false;
    walk_cmd(c, &mut |s| found |= s.id == id);
    found
}

fn contains_pipeline(p: &Pipeline, id: usize) -> bool {
    p.cmds.iter().any(|c| contains_cmd(c, id))
}

fn contains_and_or(ao: &AndOr, id: usize) -> bool {
    contains_pipeline(&ao.first, id) || ao.rest.iter().any(|(_, p)| contains_pipeline(p, id))
}

/// Renders a command's words for a reason (`echo ok`).
fn show_words(words: &[String]) -> String {
    let mut s = words.join(" ");
    if s.chars().count() > 40 {
        s = s.chars().take(37).collect::<String>() + "...";
    }
    s
}

fn first_words(p: &Pipeline) -> String {
    match p.cmds.first() {
        Some(Cmd::Simple(s)) => show_words(&s.words),
        Some(Cmd::Group { .. }) => "a group of commands".into(),
        _ => "a compound command".into(),
    }
}

impl Sim {
    /// Takes what a subshell learnt: whether it reached the target, and why a failure was lost
    /// (only when it was: a stale reason must not explain a status that still fails).
    fn merge(&mut self, sub: Sim, st: St) {
        self.hit |= sub.hit;
        if st != St::Fail {
            self.why = self.why.take().or(sub.why);
        }
        self.early_exit = self.early_exit.take().or(sub.early_exit);
    }

    fn note(&mut self, why: impl Into<String>) {
        if self.failing && self.why.is_none() {
            self.why = Some(why.into());
        }
    }

    /// The target's failure was overwritten by a later status.
    fn overwrite(&mut self, st: St, by: &str) {
        if self.failing && st != St::Fail {
            let pending = self
                .pending
                .clone()
                .unwrap_or_else(|| "the script goes on after it".into());
            self.note(format!(
                "{pending}, and a later command (`{by}`) sets the exit status"
            ));
            self.failing = false;
        }
    }

    fn list(&mut self, l: &List, in_cond: bool) -> Flow {
        for (ao, bg) in &l.items {
            if *bg {
                if contains_and_or(ao, self.target) {
                    self.hit = true;
                    self.failing = true;
                    self.note("it runs in the background (`&`), so its status is never read");
                    self.failing = false;
                }
                self.last = St::Ok;
                continue;
            }
            let label = first_words(&ao.first);
            let was_failing = self.failing;
            let (st, eligible) = match self.and_or(ao, in_cond) {
                Ok(v) => v,
                Err(flow) => return flow,
            };
            // A later list sets `$?`: the failure travelling so far is overwritten (a later
            // deliberate failure, `false`, fails the script on its own account).
            let later = !contains_and_or(ao, self.target);
            if was_failing && ((self.failing && st != St::Fail) || later) {
                self.overwrite(st, &label);
            }
            self.last = st;
            if !in_cond && eligible && self.errexit {
                match st {
                    St::Fail => return Flow::Exit(St::Fail),
                    St::Unknown => return Flow::Exit(St::Unknown),
                    St::Ok => {}
                }
            }
            if st == St::Fail && self.failing && self.pending.is_none() {
                self.pending = Some(if in_cond {
                    "it is a condition".into()
                } else if !eligible {
                    "`&&` after it exempts it from `set -e`".into()
                } else if self.errexit_dropped {
                    "`set +e` before it turns off stopping on errors".into()
                } else {
                    "the shell does not stop on errors (no `set -e`)".into()
                });
            }
        }
        Flow::Go
    }

    /// The status of an and-or list and whether `-e` may act on it. `Err` carries an exit.
    fn and_or(&mut self, ao: &AndOr, in_cond: bool) -> Result<(St, bool), Flow> {
        let all: Vec<(Option<bool>, &Pipeline)> = std::iter::once((None, &ao.first))
            .chain(ao.rest.iter().map(|(a, p)| (Some(*a), p)))
            .collect();
        // Before the target, assume whatever leads to it: start at the target's pipeline.
        let start = if self.hit {
            0
        } else {
            all.iter()
                .position(|(_, p)| contains_pipeline(p, self.target))
                .unwrap_or(0)
        };
        let mut st = St::Ok;
        let mut last_ran = start;
        for (k, (op, p)) in all.iter().enumerate().skip(start) {
            if k > start {
                let run = matches!(
                    (op, st),
                    (Some(true), St::Ok) | (Some(false), St::Fail) | (_, St::Unknown)
                );
                if !run {
                    continue;
                }
            }
            let rescuing = *op == Some(false) && self.failing;
            // `pytest || pytest --lf` is a retry: the second run fails as the first did.
            let retry = rescuing && self.tests.iter().any(|&t| contains_pipeline(p, t));
            let saved = self.retrying;
            self.retrying |= retry;
            let why_before = self.why.clone();
            let r = self.pipeline(p);
            self.retrying = saved;
            last_ran = k;
            if rescuing {
                // Whatever the handler did inside, its result is what becomes of the failure.
                self.why = why_before;
                if matches!(r, Ok(St::Ok) | Err(Flow::Exit(St::Ok))) {
                    self.failing = true;
                    self.note(format!("`|| {}` after it", first_words(p)));
                    self.failing = false;
                } else {
                    self.failing = true;
                }
            }
            st = r?;
        }
        let eligible = last_ran == all.len() - 1 && !in_cond;
        Ok((st, eligible))
    }

    fn pipeline(&mut self, p: &Pipeline) -> Result<St, Flow> {
        let n = p.cmds.len();
        let mut statuses = Vec::with_capacity(n);
        let mut target_at = None;
        for (k, c) in p.cmds.iter().enumerate() {
            let has = contains_cmd(c, self.target);
            if has {
                target_at = Some(k);
            }
            let st = if n > 1 {
                // Pipeline members run in subshells: their `exit` and `set` stay there.
                let mut sub = self.clone();
                let st = match sub.cmd(c) {
                    Flow::Exit(s) => s,
                    Flow::Go => sub.last,
                };
                self.merge(sub, st);
                self.failing = self.failing || (has && st == St::Fail);
                st
            } else {
                match self.cmd(c) {
                    Flow::Exit(s) => return Err(Flow::Exit(s)),
                    Flow::Go => self.last,
                }
            };
            statuses.push(st);
        }
        let mut st = if self.pipefail {
            statuses
                .iter()
                .rev()
                .find(|s| **s != St::Ok)
                .copied()
                .unwrap_or(St::Ok)
        } else {
            statuses.last().copied().unwrap_or(St::Ok)
        };
        if let Some(k) = target_at {
            if k + 1 < n && !self.pipefail && self.failing {
                let into = match &p.cmds[n - 1] {
                    Cmd::Simple(s) => show_words(&s.words[..s.words.len().min(1)]),
                    _ => "another command".into(),
                };
                self.note(format!(
                    "its exit status is lost in the pipe into `{into}` (no `set -o pipefail`)"
                ));
                self.failing = false;
            } else if k + 1 < n && self.failing {
                self.failing = st == St::Fail;
            }
        }
        if p.negated {
            st = match st {
                St::Ok => St::Fail,
                St::Fail => St::Ok,
                St::Unknown => St::Unknown,
            };
            if self.failing {
                self.note("it is negated with `!`");
                self.failing = false;
            }
        }
        self.last = st;
        Ok(st)
    }

    fn cmd(&mut self, c: &Cmd) -> Flow {
        match c {
            Cmd::Simple(s) => self.simple(s),
            Cmd::Group { body, subshell } => {
                if *subshell {
                    let mut sub = self.clone();
                    let st = match sub.list(body, false) {
                        Flow::Exit(s) => s,
                        Flow::Go => sub.last,
                    };
                    let failing = sub.failing && st == St::Fail;
                    self.merge(sub, st);
                    self.failing = failing;
                    self.last = st;
                    Flow::Go
                } else {
                    self.list(body, false)
                }
            }
            Cmd::If { arms, otherwise } => self.if_(arms, otherwise.as_ref()),
            Cmd::Loop { cond, body } => {
                if cond.as_ref().is_some_and(|c| contains_list(c, self.target)) {
                    // `until pytest; do ...; done` retries; what it ends with is not knowable here.
                    self.hit = true;
                    self.last = St::Unknown;
                    return Flow::Exit(St::Unknown);
                }
                if let Some(c) = cond
                    && let f @ Flow::Exit(_) = self.list(c, true)
                {
                    return f;
                }
                self.list(body, false)
            }
            Cmd::Opaque(body) => {
                if contains_list(body, self.target) {
                    self.hit = true;
                    self.last = St::Unknown;
                    return Flow::Exit(St::Unknown);
                }
                self.last = St::Ok;
                Flow::Go
            }
        }
    }

    fn if_(&mut self, arms: &[(List, List)], otherwise: Option<&List>) -> Flow {
        // Before the target: take the branch that reaches it.
        if !self.hit {
            for (k, (cond, body)) in arms.iter().enumerate() {
                if contains_list(cond, self.target) {
                    let saved = self.errexit;
                    let f = self.list(cond, true);
                    self.errexit = saved;
                    if let Flow::Exit(_) = f {
                        return f;
                    }
                    if self.last == St::Ok {
                        return self.list(body, false);
                    }
                    if self.failing {
                        self.note(
                            "it is the condition of an `if`, so its failure only picks a branch",
                        );
                        self.failing = false;
                    }
                    let rest = &arms[k + 1..];
                    return self.branches(rest, otherwise);
                }
                if contains_list(body, self.target) {
                    return self.list(body, false);
                }
            }
            if let Some(o) = otherwise.filter(|o| contains_list(o, self.target)) {
                return self.list(o, false);
            }
        }
        self.branches(arms, otherwise)
    }

    /// After the target (or away from it): try every branch; when they disagree, the answer is
    /// unknown.
    fn branches(&mut self, arms: &[(List, List)], otherwise: Option<&List>) -> Flow {
        let mut outcomes = Vec::new();
        for (cond, body) in arms {
            let mut sub = self.clone();
            let reads_status = reads_status_list(cond, &self.tainted);
            let f = match sub.list(cond, true) {
                Flow::Go => sub.list(body, false),
                f @ Flow::Exit(_) => f,
            };
            if reads_status && self.failing {
                return Flow::Exit(St::Unknown);
            }
            outcomes.push((f, sub));
        }
        let mut sub = self.clone();
        let f = match otherwise {
            Some(o) => sub.list(o, false),
            None => {
                sub.last = St::Ok;
                Flow::Go
            }
        };
        outcomes.push((f, sub));
        let first = outcomes[0].0;
        let first_last = outcomes[0].1.last;
        let agree = outcomes
            .iter()
            .all(|(f, s)| *f == first && (first != Flow::Go || s.last == first_last));
        if !agree {
            self.last = St::Unknown;
            return Flow::Exit(St::Unknown);
        }
        let (_, s) = outcomes.swap_remove(0);
        *self = s;
        first
    }

    fn simple(&mut self, s: &Simple) -> Flow {
        for (name, value) in &s.assigns {
            if reads_status(value, &self.tainted) {
                self.tainted.insert(name.clone());
            }
        }
        if self.retrying && self.tests.contains(&s.id) {
            self.last = St::Fail;
            self.failing = true;
            return Flow::Go;
        }
        if s.id == self.target {
            self.hit = true;
            self.failing = true;
            self.last = St::Fail;
            return Flow::Go;
        }
        if let Some(n) = &s.nested
            && (contains_list(&n.list, self.target) || !self.hit)
        {
            let mut sub = self.clone();
            sub.errexit = n.errexit;
            sub.errexit_dropped = false;
            sub.pipefail = n.pipefail;
            sub.pending = None;
            let st = match sub.list(&n.list, false) {
                Flow::Exit(st) => st,
                Flow::Go => sub.last,
            };
            let failing = sub.failing && st == St::Fail;
            self.merge(sub, st);
            self.failing = failing;
            self.last = st;
            return Flow::Go;
        }
        let w: Vec<&str> = s.words.iter().map(String::as_str).collect();
        let Some(&cmd) = w.first() else {
            self.last = St::Ok;
            return Flow::Go;
        };
        match cmd {
            "set" => {
                self.set(&w[1..]);
                self.last = St::Ok;
            }
            "exit" | "return" => {
                let st = match w.get(1) {
                    None => self.last,
                    Some(&"0") => St::Ok,
                    Some(a) if a.parse::<i64>().is_ok() => St::Fail,
                    Some(a) if *a == "$?" || *a == "${?}" => self.last,
                    Some(_) => St::Unknown,
                };
                if self.failing && st == St::Ok {
                    self.note(format!("`{}` after it", show_words(&s.words)));
                    self.failing = false;
                }
                if !self.hit {
                    self.early_exit = Some(format!(
                        "`{}` before it ends the script",
                        show_words(&s.words)
                    ));
                }
                self.last = st;
                return Flow::Exit(st);
            }
            "false" => self.last = St::Fail,
            "[" | "[[" | "test" if w[1..].iter().any(|a| reads_status(a, &self.tainted)) => {
                self.last = St::Unknown;
            }
            _ => self.last = St::Ok,
        }
        Flow::Go
    }

    fn set(&mut self, args: &[&str]) {
        let mut k = 0;
        while let Some(a) = args.get(k) {
            if (*a == "-o" || *a == "+o") && k + 1 < args.len() {
                let on = *a == "-o";
                match args[k + 1] {
                    "errexit" => self.set_errexit(on),
                    "pipefail" => self.pipefail = on,
                    _ => {}
                }
                k += 2;
                continue;
            }
            let (on, flags) = if let Some(f) = a.strip_prefix('-') {
                (true, f)
            } else if let Some(f) = a.strip_prefix('+') {
                (false, f)
            } else {
                break;
            };
            if flags.contains('e') {
                self.set_errexit(on);
            }
            if flags.ends_with('o')
                && let Some(&"pipefail") = args.get(k + 1)
            {
                self.pipefail = on;
                k += 1;
            }
            k += 1;
        }
    }

    fn set_errexit(&mut self, on: bool) {
        if !on && self.errexit {
            self.errexit_dropped = true;
        }
        self.errexit = on;
    }
}

fn reads_status(word: &str, tainted: &BTreeSet<String>) -> bool {
    word.contains("$?")
        || word.contains("${?}")
        || word.contains("PIPESTATUS")
        || tainted
            .iter()
            .any(|t| word.contains(&format!("${t}")) || word.contains(&format!("${{{t}}}")))
}

fn reads_status_list(l: &List, tainted: &BTreeSet<String>) -> bool {
    let mut found = false;
    walk_list(l, &mut |s| {
        found |= s.words.iter().any(|w| reads_status(w, tainted));
    });
    found
}

/// How a script starts: `-e` and `-o pipefail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Opts {
    pub errexit: bool,
    pub pipefail: bool,
}

/// Whether the failure of simple command `target` in `script` fails the script. `tests` are the
/// ids of the script's test commands: one on the right of `||` after the target is a retry, which
/// fails as the target did.
pub(crate) fn fate(script: &Script, target: usize, opts: Opts, tests: &BTreeSet<usize>) -> Fate {
    let Opts { errexit, pipefail } = opts;
    let mut sim = Sim {
        tests: tests.clone(),
        retrying: false,
        target,
        errexit,
        errexit_dropped: false,
        pipefail,
        last: St::Ok,
        failing: false,
        hit: false,
        pending: None,
        why: None,
        early_exit: None,
        tainted: BTreeSet::new(),
    };
    let flow = sim.list(&script.list, false);
    if !sim.hit {
        return Fate::NeverRuns(
            sim.early_exit
                .unwrap_or_else(|| "nothing in the script reaches it".into()),
        );
    }
    let end = match flow {
        Flow::Exit(st) => st,
        Flow::Go => sim.last,
    };
    match end {
        St::Fail => Fate::Propagates,
        St::Unknown => Fate::Unknown,
        St::Ok => Fate::Swallowed(sim.why.unwrap_or_else(|| {
            sim.pending
                .unwrap_or_else(|| "its exit status is not the script's".into())
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(src: &str) -> Vec<(usize, Vec<String>)> {
        parse(src, None)
            .list
            .simples()
            .into_iter()
            .map(|s| (s.id, s.words.clone()))
            .collect()
    }

    /// The fate of the first command whose first word is `word`.
    fn fate_of(src: &str, word: &str, errexit: bool, pipefail: bool) -> Fate {
        let s = parse(src, None);
        let id = s
            .list
            .simples()
            .into_iter()
            .find(|c| c.words.first().map(String::as_str) == Some(word))
            .map(|c| c.id)
            .unwrap_or(usize::MAX);
        let tests = s
            .list
            .simples()
            .into_iter()
            .filter(|c| c.words.first().is_some_and(|w| w == word))
            .map(|c| c.id)
            .collect();
        fate(&s, id, Opts { errexit, pipefail }, &tests)
    }

    fn swallowed(src: &str, errexit: bool) -> String {
        match fate_of(src, "pytest", errexit, false) {
            Fate::Swallowed(why) => why,
            other => format!("not swallowed: {other:?}"),
        }
    }

    #[test]
    fn words_quotes_operators() {
        let got = ids(
            "A=1 cargo test -p 'a b' \"c\\\"d\" && echo ok || echo no; x | tee log &\nnext \\\n  line # cmt",
        );
        let words: Vec<Vec<String>> = got.into_iter().map(|(_, w)| w).collect();
        assert_eq!(
            words,
            [
                vec!["cargo", "test", "-p", "a b", "c\"d"],
                vec!["echo", "ok"],
                vec!["echo", "no"],
                vec!["x"],
                vec!["tee", "log"],
                vec!["next", "line"],
            ]
            .map(|v| v.into_iter().map(String::from).collect::<Vec<_>>())
        );
        let s = parse("pytest # || true\n# cargo test\n", None);
        assert_eq!(s.comments.len(), 2);
        assert_eq!(s.comments[1].1.trim(), "cargo test");
        assert_eq!(
            split_words("-k 'not slow' --tb=short"),
            ["-k", "not slow", "--tb=short"]
        );
        // Redirections and here-documents are not words.
        assert_eq!(
            ids("pytest > out.txt 2>&1\ncat <<EOF\npytest || true\nEOF\nnext")
                .into_iter()
                .map(|(_, w)| w.join(" "))
                .collect::<Vec<_>>(),
            ["pytest", "cat", "next"]
        );
        // GitHub expressions are one word.
        assert_eq!(
            ids("cargo test ${{ matrix.flags }} x")[0].1[2],
            "${{ matrix.flags }}"
        );
    }

    #[test]
    fn failures_that_propagate() {
        for (src, e, p) in [
            ("pytest", false, false),
            ("pytest\necho done", true, false),
            ("cd x && pytest", true, false),
            ("pytest && echo ok", true, false),
            ("pytest || exit 1", false, false),
            ("pytest || (echo failed; exit 1)", false, false),
            ("pytest | tee log", true, true),
            ("set -o pipefail\npytest | tee log", true, false),
            ("pytest; echo done", true, false),
            ("if pytest; then echo ok; else exit 1; fi", false, false),
            ("set +e\nset -e\npytest\necho x", true, false),
            ("for d in a b; do pytest $d; done", true, false),
            ("bash -ec 'pytest; echo x'", false, false),
            ("if [ -f x ]; then pytest; fi", true, false),
            ("[ -n \"$CI\" ] || pytest", true, false),
            ("pytest || pytest --lf", true, false),
        ] {
            assert_eq!(fate_of(src, "pytest", e, p), Fate::Propagates, "{src}");
        }
    }

    #[test]
    fn failures_that_are_swallowed() {
        assert_eq!(swallowed("pytest || true", true), "`|| true` after it");
        assert_eq!(swallowed("pytest || :", true), "`|| :` after it");
        assert_eq!(
            swallowed("pytest || echo 'tests failed'", true),
            "`|| echo tests failed` after it"
        );
        assert_eq!(swallowed("pytest || exit 0", true), "`|| exit 0` after it");
        assert_eq!(
            swallowed("pytest || (echo failed; exit 1) || true", true),
            "`|| true` after it"
        );
        assert_eq!(swallowed("pytest; exit 0", false), "`exit 0` after it");
        assert_eq!(
            swallowed("pytest\ntrue", false),
            "the shell does not stop on errors (no `set -e`), and a later command (`true`) sets the exit status"
        );
        assert!(swallowed("set +e\npytest\necho done", true).starts_with("`set +e` before it"));
        assert!(swallowed("pytest | tee log", true).contains("pipe into `tee`"));
        assert!(swallowed("pytest | cat", true).contains("pipe into `cat`"));
        assert!(swallowed("! pytest", true).contains("negated"));
        assert!(swallowed("pytest &", true).contains("background"));
        assert!(swallowed("if pytest; then echo ok; fi", true).contains("condition of an `if`"));
        assert!(swallowed("pytest && echo ok\necho done", true).contains("`&&` after it"));
        assert!(swallowed("bash -c 'pytest; true'", true).contains("later command"));
    }

    #[test]
    fn unknowns_and_never_runs() {
        assert_eq!(
            fate_of("set +e\npytest\nrc=$?\nexit $rc", "pytest", true, false),
            Fate::Unknown
        );
        assert_eq!(
            fate_of(
                "set +e\npytest\nif [ $? -ne 0 ]; then exit 1; fi",
                "pytest",
                true,
                false
            ),
            Fate::Unknown
        );
        assert_eq!(
            fate_of("until pytest; do sleep 1; done", "pytest", true, false),
            Fate::Unknown
        );
        assert_eq!(
            fate_of("case $X in a) pytest;; esac", "pytest", true, false),
            Fate::Unknown
        );
        assert!(
            matches!(fate_of("exit 0\npytest", "pytest", true, false), Fate::NeverRuns(w) if w.contains("exit 0"))
        );
    }

    #[test]
    fn nested_resolved_scripts() {
        let resolve = |w: &[String]| {
            (w.first().map(String::as_str) == Some("npm")).then(|| "jest || true".to_owned())
        };
        let s = parse("npm run unit && echo ok", Some(&resolve));
        let jest = s
            .list
            .simples()
            .into_iter()
            .find(|c| c.words[0] == "jest")
            .map(|c| c.id);
        assert!(matches!(
            fate(&s, jest.unwrap_or(0), Opts::default(), &BTreeSet::new()),
            Fate::Swallowed(_)
        ));
    }

    proptest::proptest! {
        #[test]
        fn parse_and_fate_never_panic(src in "[a-z |&;()!{}$`'\"\\\\#<>\n=-]{0,200}") {
            let s = parse(&src, None);
            let tests = s.list.simples().iter().map(|c| c.id).collect::<BTreeSet<_>>();
            for c in s.list.simples() {
                let _ = fate(&s, c.id, Opts { errexit: true, pipefail: false }, &tests);
            }
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        for src in [
            "",
            ")",
            "fi",
            "if",
            "((",
            "{ ",
            "'unterminated",
            "\"a",
            "$(",
            "`",
            "a |",
            "&& b",
            ";;",
            "case",
            "for",
            "f() ",
            "<<",
            "cat <<EOF\n",
            "x >",
            "\\",
            "$'",
            "${",
            "!",
            "a && && b",
            "if then fi",
            "while do done",
            "function",
            "(((((((((((((((((((((((((((((((((x",
        ] {
            let s = parse(src, None);
            for c in s.list.simples() {
                let opts = Opts {
                    errexit: true,
                    pipefail: false,
                };
                let _ = fate(&s, c.id, opts, &BTreeSet::new());
            }
        }
    }
}
