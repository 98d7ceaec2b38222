//! `Jenkinsfile`: `sh`/`bat` strings, with `returnStatus`, `catchError` and `warnError` gates.

use std::collections::BTreeMap;

use loki_shell::Opts;
use loki_testcmd::Cat;
use loki_testcmd::runs::{self, Ctx, Gate, Side, Src};

/// The `sh`/`bat` call being read.
struct ShCall {
    depth: usize,
    parens: bool,
    args: String,
    script: Option<(String, u32)>,
}

/// `sh`/`bat` strings of a Jenkinsfile with their stage, gates and line.
pub(super) fn jenkins(text: &str) -> Side {
    let cs: Vec<char> = text.chars().collect();
    let mut side = Side::default();
    let mut line = 1u32;
    let mut i = 0;
    // Blocks we are in (`catchError(...) {`, `stage('x') {`), with their call arguments.
    let mut blocks: Vec<(String, String)> = Vec::new();
    // Open calls (name, arguments so far) and the last one closed, for `name(args) {`.
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut closed: Option<(String, String)> = None;
    let mut last_ident = String::new();
    let mut stage = String::new();
    let mut pending_stage: Option<String> = None;
    let mut sh: Option<ShCall> = None;
    let finish = |side: &mut Side, call: ShCall, stage: &str, blocks: &[(String, String)]| {
        if let Some((script, at)) = call.script {
            push_jenkins(side, &script, at, stage, blocks, &call.args);
        }
    };
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        if c == '\n' {
            // A call without parentheses (`sh script: 'x', returnStatus: true`) ends with its line.
            if sh.as_ref().is_some_and(|s| !s.parens && s.script.is_some())
                && let Some(call) = sh.take()
            {
                finish(&mut side, call, &stage, &blocks);
            }
            line += 1;
            i += 1;
            continue;
        }
        if c == '/' && next == Some('/') {
            while cs.get(i).is_some_and(|c| *c != '\n') {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i < cs.len() && !(cs[i] == '*' && cs.get(i + 1) == Some(&'/')) {
                if cs[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '\'' || c == '"' {
            let triple = cs.get(i + 1) == Some(&c) && cs.get(i + 2) == Some(&c);
            let start_line = line;
            let mut s = String::new();
            i += if triple { 3 } else { 1 };
            while let Some(&d) = cs.get(i) {
                if d == '\\' {
                    if let Some(&n) = cs.get(i + 1) {
                        s.push(n);
                    }
                    i += 2;
                    continue;
                }
                if triple && d == c && cs.get(i + 1) == Some(&c) && cs.get(i + 2) == Some(&c) {
                    i += 3;
                    break;
                }
                if !triple && (d == c || d == '\n') {
                    i += usize::from(d == c);
                    break;
                }
                if d == '\n' {
                    line += 1;
                }
                s.push(d);
                i += 1;
            }
            if last_ident == "stage" {
                pending_stage = Some(s.clone());
            }
            closed = None;
            if let Some((_, args)) = calls.last_mut() {
                args.push_str(&format!("'{s}'"));
            }
            if let Some(call) = sh.as_mut() {
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
                    && let Some(call) = sh.take()
                {
                    finish(&mut side, call, &stage, &blocks);
                }
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while cs.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                i += 1;
            }
            last_ident = cs[start..i].iter().collect();
            closed = None;
            if let Some((_, args)) = calls.last_mut() {
                args.push(' ');
                args.push_str(&last_ident);
            }
            if let Some(call) = sh.as_mut() {
                call.args.push(' ');
                call.args.push_str(&last_ident);
            } else if matches!(last_ident.as_str(), "sh" | "bat" | "powershell" | "pwsh") {
                sh = Some(ShCall {
                    depth: calls.len(),
                    parens: false,
                    args: String::new(),
                    script: None,
                });
            }
            continue;
        }
        match c {
            '(' => {
                if let Some(call) = sh
                    .as_mut()
                    .filter(|s| !s.parens && s.args.trim().is_empty() && s.depth == calls.len())
                {
                    call.parens = true;
                } else if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
                calls.push((last_ident.clone(), String::new()));
            }
            ')' => {
                closed = calls.pop();
                if let Some((_, args)) = calls.last_mut() {
                    args.push(c);
                }
                if sh
                    .as_ref()
                    .is_some_and(|s| s.parens && s.depth == calls.len())
                {
                    if let Some(call) = sh.take() {
                        finish(&mut side, call, &stage, &blocks);
                    }
                } else if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
            }
            '{' => {
                let (name, args) = closed
                    .take()
                    .unwrap_or_else(|| (last_ident.clone(), String::new()));
                if let Some(s) = pending_stage.take() {
                    stage = s;
                }
                blocks.push((name, args));
                sh = None;
            }
            '}' => {
                blocks.pop();
                sh = None;
            }
            _ => {
                if let Some((_, args)) = calls.last_mut() {
                    args.push(c);
                }
                if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
            }
        }
        i += 1;
    }
    if let Some(call) = sh.take() {
        finish(&mut side, call, &stage, &blocks);
    }
    side
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
