//! The parser: tokens into lists of and-or lists of pipelines of commands, with `sh -c` and
//! resolved scripts parsed as nested scripts.

use super::tokens::{Op, Tok, tokenize};
use super::{AndOr, Cmd, List, MAX_DEPTH, Nested, Pipeline, Script, Simple};

/// Expands a command into the script it runs (an `npm run` script), for nested parsing.
pub type Resolver<'r> = &'r dyn Fn(&[String]) -> Option<String>;

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

    pub(super) fn and_or(&mut self, stop: &[&str]) -> AndOr {
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

    pub(super) fn pipeline(&mut self, stop: &[&str]) -> Pipeline {
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
            Some("if") => return Some(self.if_clause()),
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
                return Some(Cmd::Opaque(one_command(self.body_command(stop))));
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
            return Some(Cmd::Opaque(one_command(self.body_command(stop))));
        }
        self.simple()
    }

    /// `if cond; then body; [elif cond; then body;]... [else body;] fi`, from its `if`.
    fn if_clause(&mut self) -> Cmd {
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
        Cmd::If { arms, otherwise }
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

    pub(super) fn simple(&mut self) -> Option<Cmd> {
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
    pub(super) fn nested(&mut self, words: &[String], offset: usize) -> Option<Box<Nested>> {
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

/// A function's body as a list: its one command, or nothing.
fn one_command(c: Option<Cmd>) -> List {
    List {
        items: c
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
pub fn basename(word: &str) -> &str {
    word.rsplit(['/', '\\']).next().unwrap_or(word)
}

/// Parses `src`; `resolve` expands commands into nested scripts (see [`Resolver`]).
pub fn parse(src: &str, resolve: Option<Resolver<'_>>) -> Script {
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
