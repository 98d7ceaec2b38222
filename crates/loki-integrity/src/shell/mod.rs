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
//!
//! # Submodules
//! - `tokens`: the lexer: words, operators, redirections, comments, here-documents;
//! - `parser`: tokens into lists, and-or lists, pipelines and commands ([`parse`]);
//! - `sim`: one command assumed to fail, the script simulated ([`fate`]).
//!
//! [`join`] resolves a relative path against a directory the way `cd` does (never above the
//! root); the rule modules use it for working directories and paths named in scripts and configs.

mod parser;
mod sim;
mod tokens;

pub use parser::{Resolver, basename, parse};
pub use sim::{Fate, Opts, fate};
pub use tokens::split_words;

/// Nesting limit for groups, `-c` scripts and resolved scripts: deeper input is read flat.
pub const MAX_DEPTH: usize = 24;

/// One simple command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Simple {
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
pub struct Nested {
    pub list: List,
    pub errexit: bool,
    pub pipefail: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cmd {
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
pub struct Pipeline {
    pub negated: bool,
    pub cmds: Vec<Cmd>,
}

/// Pipelines joined by `&&` (true) or `||` (false).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(bool, Pipeline)>,
}

/// And-or lists in order; the flag is "run in the background" (`&`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct List {
    pub items: Vec<(AndOr, bool)>,
}

/// A parsed script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    pub list: List,
    /// `(offset, text)` of every comment, `#` excluded.
    pub comments: Vec<(usize, String)>,
}

impl List {
    /// Every simple command, nested scripts included, in id order.
    pub fn simples(&self) -> Vec<&Simple> {
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

/// `dir/rel` with `.` and `..` resolved (never above the root).
pub fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(p),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests;
