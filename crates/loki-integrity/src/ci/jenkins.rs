//! `Jenkinsfile`: `sh`/`bat` strings, with `returnStatus`, `catchError` and `warnError` gates.

use std::collections::BTreeMap;

use crate::shell::Opts;
use crate::testcmd::Cat;
use crate::testcmd::runs::{self, Ctx, Gate, Side, Src};

/// The `sh`/`bat` call being read.
struct ShCall {
    depth: usize,
    parens: bool,
    args: String,
    script: Option<(String, u32)>,
}

/// `sh`/`bat` strings of a Jenkinsfile with their stage, gates and line.
pub(super) fn jenkins(text: &str) -> Side {
    let mut s = Scanner {
        cs: text.chars().collect(),
        i: 0,
        line: 1,
        side: Side::default(),
        blocks: Vec::new(),
        calls: Vec::new(),
        closed: None,
        last_ident: String::new(),
        stage: String::new(),
        pending_stage: None,
        sh: None,
    };
    while let Some(&c) = s.cs.get(s.i) {
        let next = s.cs.get(s.i + 1).copied();
        match c {
            '\n' => s.end_line(),
            '/' if next == Some('/') => s.line_comment(),
            '/' if next == Some('*') => s.block_comment(),
            '\'' | '"' => s.string(c),
            c if c.is_alphanumeric() || c == '_' => s.ident(),
            c => {
                s.punct(c);
                s.i += 1;
            }
        }
    }
    if let Some(call) = s.sh.take() {
        s.finish(call);
    }
    s.side
}

/// The state of reading a Jenkinsfile, one character at a time.
struct Scanner {
    cs: Vec<char>,
    i: usize,
    line: u32,
    side: Side,
    /// Blocks we are in (`catchError(...) {`, `stage('x') {`), with their call arguments.
    blocks: Vec<(String, String)>,
    /// Open calls (name, arguments so far) and the last one closed, for `name(args) {`.
    calls: Vec<(String, String)>,
    closed: Option<(String, String)>,
    last_ident: String,
    stage: String,
    pending_stage: Option<String>,
    sh: Option<ShCall>,
}

impl Scanner {
    /// The runs of a finished `sh`/`bat` call, in the stage and blocks we are in.
    fn finish(&mut self, call: ShCall) {
        if let Some((script, at)) = call.script {
            push_jenkins(
                &mut self.side,
                &script,
                at,
                &self.stage,
                &self.blocks,
                &call.args,
            );
        }
    }

    /// A newline: a call without parentheses (`sh script: 'x', returnStatus: true`) ends with
    /// its line.
    fn end_line(&mut self) {
        if self
            .sh
            .as_ref()
            .is_some_and(|s| !s.parens && s.script.is_some())
            && let Some(call) = self.sh.take()
        {
            self.finish(call);
        }
        self.line += 1;
        self.i += 1;
    }

    /// Skips a `//` comment up to its newline.
    fn line_comment(&mut self) {
        while self.cs.get(self.i).is_some_and(|c| *c != '\n') {
            self.i += 1;
        }
    }

    /// Skips a `/* */` comment, counting its lines.
    fn block_comment(&mut self) {
        let cs = &self.cs;
        self.i += 2;
        while self.i < cs.len() && !(cs[self.i] == '*' && cs.get(self.i + 1) == Some(&'/')) {
            if cs[self.i] == '\n' {
                self.line += 1;
            }
            self.i += 1;
        }
        self.i += 2;
    }

    /// A string quoted with `q` (single, or triple `'''`/`"""`): its text, unescaped, is a
    /// stage's name, an argument of the open call, or the script of the `sh` call being read.
    fn string(&mut self, q: char) {
        let start_line = self.line;
        let s = self.string_text(q);
        if self.last_ident == "stage" {
            self.pending_stage = Some(s.clone());
        }
        self.closed = None;
        if let Some((_, args)) = self.calls.last_mut() {
            args.push_str(&format!("'{s}'"));
        }
        if let Some(call) = self.sh.as_mut() {
            let key = call
                .args
                .rsplit([',', '('])
                .next()
                .unwrap_or("")
                .trim()
                .to_owned();
            let named = key.strip_suffix(':').map(str::trim);
            if call.script.is_none() && matches!(named, None | Some("script")) {
                call.script = Some((s.clone(), start_line));
            }
            call.args.push_str(&format!("'{s}'"));
            if !call.parens
                && named.is_none()
                && call.args.trim_start().starts_with('\'')
                && let Some(call) = self.sh.take()
            {
                self.finish(call);
            }
        }
    }

    /// Reads the string quoted with `q` at the cursor, past its closing quote (a single-quoted
    /// one also ends at its line's end).
    fn string_text(&mut self, q: char) -> String {
        let cs = &self.cs;
        let triple = cs.get(self.i + 1) == Some(&q) && cs.get(self.i + 2) == Some(&q);
        let mut s = String::new();
        self.i += if triple { 3 } else { 1 };
        while let Some(&d) = cs.get(self.i) {
            if d == '\\' {
                if let Some(&n) = cs.get(self.i + 1) {
                    s.push(n);
                }
                self.i += 2;
                continue;
            }
            if triple && d == q && cs.get(self.i + 1) == Some(&q) && cs.get(self.i + 2) == Some(&q)
            {
                self.i += 3;
                break;
            }
            if !triple && (d == q || d == '\n') {
                self.i += usize::from(d == q);
                break;
            }
            if d == '\n' {
                self.line += 1;
            }
            s.push(d);
            self.i += 1;
        }
        s
    }

    /// An identifier: an argument of the open calls, or the start of an `sh`/`bat` call.
    fn ident(&mut self) {
        let start = self.i;
        while self
            .cs
            .get(self.i)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            self.i += 1;
        }
        self.last_ident = self.cs[start..self.i].iter().collect();
        self.closed = None;
        if let Some((_, args)) = self.calls.last_mut() {
            args.push(' ');
            args.push_str(&self.last_ident);
        }
        if let Some(call) = self.sh.as_mut() {
            call.args.push(' ');
            call.args.push_str(&self.last_ident);
        } else if matches!(
            self.last_ident.as_str(),
            "sh" | "bat" | "powershell" | "pwsh"
        ) {
            self.sh = Some(ShCall {
                depth: self.calls.len(),
                parens: false,
                args: String::new(),
                script: None,
            });
        }
    }

    /// Any other character: parentheses open and close calls, braces open and close blocks
    /// (a `stage('x') {` sets the stage), the rest goes to the arguments being read.
    fn punct(&mut self, c: char) {
        match c {
            '(' => {
                let depth = self.calls.len();
                if let Some(call) = self
                    .sh
                    .as_mut()
                    .filter(|s| !s.parens && s.args.trim().is_empty() && s.depth == depth)
                {
                    call.parens = true;
                } else if let Some(call) = self.sh.as_mut() {
                    call.args.push(c);
                }
                self.calls.push((self.last_ident.clone(), String::new()));
            }
            ')' => {
                self.closed = self.calls.pop();
                if let Some((_, args)) = self.calls.last_mut() {
                    args.push(c);
                }
                let depth = self.calls.len();
                if self
                    .sh
                    .as_ref()
                    .is_some_and(|s| s.parens && s.depth == depth)
                {
                    if let Some(call) = self.sh.take() {
                        self.finish(call);
                    }
                } else if let Some(call) = self.sh.as_mut() {
                    call.args.push(c);
                }
            }
            '{' => {
                let (name, args) = self
                    .closed
                    .take()
                    .unwrap_or_else(|| (self.last_ident.clone(), String::new()));
                if let Some(s) = self.pending_stage.take() {
                    self.stage = s;
                }
                self.blocks.push((name, args));
                self.sh = None;
            }
            '}' => {
                self.blocks.pop();
                self.sh = None;
            }
            _ => {
                if let Some((_, args)) = self.calls.last_mut() {
                    args.push(c);
                }
                if let Some(call) = self.sh.as_mut() {
                    call.args.push(c);
                }
            }
        }
    }
}

fn push_jenkins(
    side: &mut Side,
    script: &str,
    line: u32,
    stage: &str,
    blocks: &[(String, String)],
    args: &str,
) {
    let job = if stage.is_empty() {
        "pipeline".to_owned()
    } else {
        stage.to_owned()
    };
    let label = format!("stage `{job}`");
    let mut gates = Vec::new();
    let compact: String = args.split_whitespace().collect();
    if compact.contains("returnStatus:true") {
        gates.push(Gate {
            cat: Cat::CannotFail,
            why: "`returnStatus: true` (the exit status is returned, not checked)".into(),
            label: label.clone(),
            line: Some(line),
        });
    }
    for (name, args) in blocks {
        let a: String = args.split_whitespace().collect();
        if name == "warnError" || (name == "catchError" && a.contains("buildResult:'SUCCESS'")) {
            gates.push(Gate {
                cat: Cat::CannotFail,
                why: format!("it runs inside `{name}`, which keeps the build green"),
                label: label.clone(),
                line: Some(line),
            });
        }
    }
    side.jobs.insert(job.clone(), (label.clone(), Some(line)));
    let ctx = Ctx {
        job,
        place: label,
        gates,
        env: BTreeMap::new(),
        cwd: String::new(),
        opts: Opts {
            errexit: true,
            pipefail: false,
        },
        cannot_fail: None,
    };
    let mut src = Src::default();
    src.push(script, Some(line), true);
    runs::script_runs(&src, &ctx, None, side);
}
