//! The user guide's Markdown as the guide tests read it (`docs/guide/src/`).
//!
//! Format (the contract a chapter's author writes to):
//! - A fenced block whose info string starts with `console` is a shell session that the tests run:
//!   each line `$ CMD` is a command (a line ending in ` \` continues on the next), and the lines
//!   after it, up to the next `$ ` line or the end of the block, are what it prints (stdout and
//!   stderr as one terminal shows them). A command exits 0 unless its line ends with a comment
//!   `# exit N` (`# exit 1: FINDINGS` reads as a note to the reader and is checked). A command
//!   ending in `&` starts in the background and lives until the chapter ends.
//! - In expected output, a line `...` stands for any number of lines, and `[..]` for any text
//!   within a line. Run ids, hashes, commit ids, timestamps, durations and loopback ports may be
//!   written as real-looking values: both sides are redacted before they are compared, and a value
//!   the guide shows is bound to the one the command really printed, so a later command that
//!   names it (`loki verify run_…`) gets the real one.
//! - `<!-- guide: FIXTURE -->` on the lines before a console block starts a new session in that
//!   fixture (a fresh home, see `session::Fixture`); blocks without one continue the chapter's
//!   session (the first one starts in the `home` fixture).
//! - A ```` ```sh ```` block is shown, not run (a real model, the internet): every `loki` command
//!   in it is still parsed by the real binary (`loki ARGS… --help`), so it names no flag that does
//!   not exist. A `$ loki` or `loki` line in a block of any other language is refused: every
//!   command the guide shows is either run or parsed.

use std::path::{Path, PathBuf};

/// The guide's source directory.
pub fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/src")
}

/// One fenced block.
#[derive(Debug, Clone)]
pub struct Block {
    /// 1-based line of the opening fence.
    pub line: usize,
    /// The first word of the info string.
    pub lang: String,
    /// The fixture a `<!-- guide: NAME -->` directive before it names.
    pub fixture: Option<String>,
    /// The lines between the fences (the fence's indentation removed).
    pub body: Vec<String>,
}

/// One command of a console block and what it must print.
#[derive(Debug, Clone)]
pub struct Step {
    /// `file:line` of its `$` line.
    pub at: String,
    /// 0-based line in the file of its first expected line (for `LOKI_GUIDE_BLESS`).
    pub output_line: usize,
    /// The command as shown, comment included (bash ignores it).
    pub command: String,
    /// The exit status it must end with.
    pub exit: i32,
    /// Started in the background (`&`).
    pub background: bool,
    pub expected: Vec<String>,
}

/// The fenced blocks of a Markdown file.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut directive: Option<String> = None;
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(name) = trimmed
            .strip_prefix("<!-- guide:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            directive = Some(name.trim().to_string());
            continue;
        }
        let fence: String = trimmed
            .chars()
            .take_while(|c| *c == '`' || *c == '~')
            .collect();
        if fence.len() < 3
            || fence
                .chars()
                .any(|c| c != fence.chars().next().unwrap_or('`'))
        {
            if !trimmed.is_empty() {
                directive = None;
            }
            continue;
        }
        let lang = trimmed[fence.len()..]
            .split(|c: char| c.is_whitespace() || c == ',')
            .next()
            .unwrap_or("")
            .to_string();
        let mut body = Vec::new();
        for (_, l) in lines.by_ref() {
            let t = l.trim_start();
            if t.starts_with(fence.as_str())
                && t.trim_end()
                    .chars()
                    .all(|c| c == fence.as_bytes()[0] as char)
            {
                break;
            }
            let cut = l.len() - t.len();
            body.push(l[cut.min(indent)..].to_string());
        }
        out.push(Block {
            line: i + 1,
            lang,
            fixture: directive.take(),
            body,
        });
    }
    out
}

/// The commands of a console block.
pub fn steps(file: &str, block: &Block) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut i = 0;
    while i < block.body.len() {
        let line = &block.body[i];
        if let Some(cmd) = line.strip_prefix("$ ") {
            let at = format!("{file}:{}", block.line + 1 + i);
            let mut command = cmd.to_string();
            while command.ends_with('\\') && i + 1 < block.body.len() {
                command.pop();
                i += 1;
                command.push('\n');
                command.push_str(&block.body[i]);
            }
            let (exit, background) = status_of(&command);
            steps.push(Step {
                at,
                output_line: block.line + 1 + i,
                command,
                exit,
                background,
                expected: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.expected.push(line.clone());
        } else {
            panic!(
                "{file}:{}: a console block starts with output, not a `$ ` command",
                block.line + 1 + i
            );
        }
        i += 1;
    }
    for s in &mut steps {
        while s.expected.last().is_some_and(|l| l.trim().is_empty()) {
            s.expected.pop();
        }
    }
    steps
}

/// The exit status a command's `# exit N` comment names (0 without one), and whether it ends in
/// `&`.
fn status_of(command: &str) -> (i32, bool) {
    let (code, comment) = match command.rfind(" # ") {
        Some(at) if !in_quotes(&command[..at]) => (&command[..at], &command[at + 3..]),
        _ => (command, ""),
    };
    let exit = comment
        .trim()
        .strip_prefix("exit ")
        .map(|r| {
            r.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("`# exit N` needs a number: {command}"))
        })
        .unwrap_or(0);
    (exit, code.trim_end().ends_with('&'))
}

/// Whether `s` leaves a quote open (so a `#` after it is inside the quote).
fn in_quotes(s: &str) -> bool {
    let (mut single, mut double) = (false, false);
    for c in s.chars() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ => {}
        }
    }
    single || double
}

/// The command without its trailing comment and `&`: what the shell runs.
pub fn runnable(command: &str) -> String {
    let code = match command.rfind(" # ") {
        Some(at) if !in_quotes(&command[..at]) => &command[..at],
        _ => command,
    };
    code.trim_end().trim_end_matches('&').trim_end().to_string()
}

/// The `loki` invocations of a shown-only line: each `loki …` segment of a pipeline or list,
/// up to a comment, a pipe, `&&`, `;` or a redirection, split into arguments as the shell would.
pub fn loki_invocations(line: &str) -> Vec<Vec<String>> {
    let line = line
        .trim_start()
        .strip_prefix("$ ")
        .unwrap_or(line.trim_start());
    let words = shell_words(line);
    let mut out = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut at_start = true;
    for w in words {
        let op = matches!(
            w.as_str(),
            "|" | "||" | "&&" | ";" | "&" | ">" | ">>" | "<" | ">&"
        ) || w.starts_with('#');
        if op {
            out.extend(current.take());
            at_start = !w.starts_with('>') && !w.starts_with('<') && !w.starts_with('#');
            if w.starts_with('#') {
                break;
            }
            continue;
        }
        if let Some(c) = current.as_mut() {
            c.push(w);
        } else if at_start && w == "loki" {
            current = Some(Vec::new());
        } else {
            // `FOO=bar loki …` and `sudo`-like prefixes keep the command's start open.
            at_start = at_start && w.contains('=') && !w.starts_with('-');
        }
    }
    out.extend(current);
    out
}

/// Words of a shell line: quotes removed, operators as their own words.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut w = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    let flush = |w: &mut String, quoted: &mut bool, words: &mut Vec<String>| {
        if !w.is_empty() || *quoted {
            words.push(std::mem::take(w));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    w.push(d);
                }
            }
            '"' => {
                quoted = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => w.extend(chars.next()),
                        _ => w.push(d),
                    }
                }
            }
            '\\' => w.extend(chars.next()),
            ' ' | '\t' => flush(&mut w, &mut quoted, &mut words),
            '|' | ';' | '&' | '>' | '<' => {
                flush(&mut w, &mut quoted, &mut words);
                let mut op = c.to_string();
                while let Some(&d) = chars.peek() {
                    if matches!(d, '|' | '&' | '>') {
                        op.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                words.push(op);
            }
            '#' if w.is_empty() && !quoted => {
                words.push(std::iter::once(c).chain(chars.by_ref()).collect());
            }
            _ => w.push(c),
        }
    }
    flush(&mut w, &mut quoted, &mut words);
    words
}

/// The chapters SUMMARY.md links, in order (relative paths under `src/`).
pub fn summary_chapters() -> Vec<String> {
    let summary = std::fs::read_to_string(src_dir().join("SUMMARY.md")).unwrap();
    summary
        .lines()
        .filter_map(|l| {
            let start = l.find("](")? + 2;
            let end = l[start..].find(')')? + start;
            Some(l[start..end].to_string())
        })
        .filter(|p| !p.is_empty())
        .collect()
}

#[test]
fn the_guide_format_is_read_as_documented() {
    let text = "intro\n<!-- guide: shop -->\n\n```console\n$ loki seal check --base main   # exit 1: FINDINGS\nFINDING x\n...\n\n$ loki serve &\nlistening on http://127.0.0.1:47821\n$ echo \"a # b\"\na # b\n```\n\n```sh\nFOO=1 loki verify run_x --pubkey k.pub | jq . # shown\ncurl -fsSL https://example.invalid/install.sh | sh\n```\n";
    let b = blocks(text);
    assert_eq!(b.len(), 2);
    assert_eq!(
        (b[0].lang.as_str(), b[0].fixture.as_deref()),
        ("console", Some("shop"))
    );
    assert_eq!(b[1].fixture, None);
    let s = steps("x.md", &b[0]);
    assert_eq!(s.len(), 3);
    assert_eq!((s[0].exit, s[0].background), (1, false));
    assert_eq!(s[0].expected, ["FINDING x", "..."]);
    assert_eq!(runnable(&s[0].command), "loki seal check --base main");
    assert_eq!((s[1].exit, s[1].background), (0, true));
    assert_eq!(runnable(&s[1].command), "loki serve");
    assert_eq!(s[2].exit, 0, "a # inside quotes is no comment");
    assert_eq!(
        loki_invocations(&b[1].body[0]),
        [vec!["verify", "run_x", "--pubkey", "k.pub"]]
    );
    assert!(loki_invocations(&b[1].body[1]).is_empty());
    assert_eq!(
        loki_invocations("loki seal declare t --reason \"the user's words\" && loki seal status"),
        [
            vec!["seal", "declare", "t", "--reason", "the user's words"],
            vec!["seal", "status"]
        ]
    );
}
