//! Crash parsers: a program's output in, the crash (its kind, message and stack frames) out.
//!
//! Pure functions over text, one per format, tried in a fixed order by [`parse_crash`]:
//!
//! | format | recognised by | frames |
//! |---|---|---|
//! | Rust panic | `thread '…' panicked at` | `N: path::fn` + `at file:line:col` (backtrace), else the panic location |
//! | Go panic | `panic: ` or `fatal error: ` then `goroutine N [` | `pkg.fn(…)` + `\tfile:line +0x…` |
//! | Python | `Traceback (most recent call last):` (the last one) | `File "f", line N, in fn` |
//! | Java / Kotlin | `Exception in thread`, or `pkg.Name(Exception\|Error)` then `\tat ` | `at pkg.Class.m(File.java:N)` |
//! | Node / JS | an `…Error: msg` line then `    at ` lines | `at fn (file:line:col)`, `at file:line:col` |
//! | C/C++ sanitizers | `==PID==ERROR: XSanitizer: kind`, `runtime error:` | `#N 0x… in fn file:line:col` |
//! | gdb | `Program received signal SIGx` or `#N  … at file:line` | `#N  0x… in fn (args) at file:line` |
//!
//! URLs with a line number (`https://host/app.js:10:5`, `webpack:///./src/a.js:3`) are extracted
//! separately by [`parse_urls`]: browsers and bundlers name sources that way.
//!
//! Frames are ordered innermost first (where the crash happened), whatever order the format
//! prints them in (Python prints outermost first). Paths are kept exactly as printed; making them
//! relative is the signature's job ([`crate::signature`]). Nothing here reads files or the clock.

use serde::{Deserialize, Serialize};

/// The language or tool whose output a crash was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lang {
    Rust,
    Go,
    Python,
    Java,
    Node,
    /// C/C++ under a sanitizer or a debugger.
    Native,
    /// No recognised format: a non-zero exit or a signal.
    Unknown,
}

impl Lang {
    /// The name as stored.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Go => "go",
            Lang::Python => "python",
            Lang::Java => "java",
            Lang::Node => "node",
            Lang::Native => "native",
            Lang::Unknown => "unknown",
        }
    }
}

/// One stack frame as printed. Every part is optional because formats omit different parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
}

impl Frame {
    fn at(function: Option<String>, loc: Option<(String, Option<u32>, Option<u32>)>) -> Frame {
        let (file, line, column) = match loc {
            Some((f, l, c)) => (Some(f), l, c),
            None => (None, None, None),
        };
        Frame {
            function,
            file,
            line,
            column,
        }
    }
}

/// A crash found in a program's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    pub lang: Lang,
    /// What kind of crash: `panic`, `ZeroDivisionError`, `java.lang.ArithmeticException`,
    /// `AddressSanitizer: heap-buffer-overflow`, `signal SIGSEGV`.
    pub kind: String,
    pub message: String,
    /// Text printed verbatim in the output that announces this kind of crash (`panicked at`,
    /// `ZeroDivisionError`); the reproduction script looks for it.
    pub marker: String,
    /// Innermost first.
    pub frames: Vec<Frame>,
}

/// Finds the crash in `text`, trying each format in the order of the module table.
#[must_use]
pub fn parse_crash(text: &str) -> Option<Crash> {
    let lines: Vec<&str> = text.lines().collect();
    parse_rust(&lines)
        .or_else(|| parse_go(&lines))
        .or_else(|| parse_python(&lines))
        .or_else(|| parse_java(&lines))
        .or_else(|| parse_node(&lines))
        .or_else(|| parse_sanitizer(&lines))
        .or_else(|| parse_gdb(&lines))
}

/// Splits `path:line[:col]` from the right. The path keeps any `scheme://` and drive colons.
#[must_use]
pub fn split_location(s: &str) -> Option<(String, Option<u32>, Option<u32>)> {
    let s = s.trim();
    let (rest, last) = s.rsplit_once(':')?;
    let last_n: u32 = last.trim().parse().ok()?;
    if let Some((path, mid)) = rest.rsplit_once(':')
        && let Ok(line) = mid.parse::<u32>()
        && !path.is_empty()
    {
        return Some((path.to_string(), Some(line), Some(last_n)));
    }
    if rest.is_empty() {
        return None;
    }
    Some((rest.to_string(), Some(last_n), None))
}

/// Removes a Rust symbol hash (`::h0123456789abcdef`).
fn strip_rust_hash(f: &str) -> &str {
    match f.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => {
            head
        }
        _ => f,
    }
}

fn parse_rust(lines: &[&str]) -> Option<Crash> {
    let (idx, head) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains("panicked at "))?;
    let after = &head[head.find("panicked at ")? + "panicked at ".len()..];
    let (message, location) = if let Some(old) = after.strip_prefix('\'') {
        // Before Rust 1.73: `panicked at 'msg', src/main.rs:5:13`.
        let (msg, loc) = old.rsplit_once("', ")?;
        (msg.to_string(), split_location(loc))
    } else {
        // Since 1.73: `panicked at src/main.rs:5:13:` and the message on the next lines.
        let loc = split_location(after.trim_end().trim_end_matches(':'));
        let msg: Vec<&str> = lines[idx + 1..]
            .iter()
            .take_while(|l| {
                !l.trim().is_empty()
                    && !l.starts_with("note: ")
                    && !l.starts_with("stack backtrace:")
            })
            .copied()
            .collect();
        (msg.join("\n"), loc)
    };
    let mut frames = Vec::new();
    if let Some(bt) = lines[idx..]
        .iter()
        .position(|l| l.trim_start().starts_with("stack backtrace:"))
    {
        let body = &lines[idx + bt + 1..];
        let mut i = 0;
        while i < body.len() {
            let t = body[i].trim_start();
            let Some((num, rest)) = t.split_once(':') else {
                break;
            };
            if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
                break;
            }
            let mut function = rest.trim();
            // Older format: `  3: 0x55d4c3b2a1f4 - demo::ratio::h0123…`
            if function.starts_with("0x")
                && let Some((_, f)) = function.split_once(" - ")
            {
                function = f.trim();
            }
            let function = strip_rust_hash(function).to_string();
            let loc = body
                .get(i + 1)
                .and_then(|n| n.trim_start().strip_prefix("at "))
                .and_then(split_location);
            if loc.is_some() {
                i += 1;
            }
            frames.push(Frame::at(Some(function), loc));
            i += 1;
        }
    }
    if frames.is_empty() {
        frames.push(Frame::at(None, location));
    }
    Some(Crash {
        lang: Lang::Rust,
        kind: "panic".into(),
        message,
        marker: "panicked at".into(),
        frames,
    })
}

fn parse_go(lines: &[&str]) -> Option<Crash> {
    let (idx, head) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.starts_with("panic: ") || l.starts_with("fatal error: "))?;
    let (kind, message) = head.split_once(": ")?;
    let gor = lines[idx..]
        .iter()
        .position(|l| l.starts_with("goroutine ") && l.trim_end().ends_with(':'))?;
    let mut frames = Vec::new();
    let body = &lines[idx + gor + 1..];
    let mut i = 0;
    while i + 1 < body.len() {
        let func = body[i];
        let loc_line = body[i + 1];
        if func.trim().is_empty() || func.starts_with('\t') || !loc_line.starts_with('\t') {
            break;
        }
        // `main.divide(...)` / `main.(*T).m(0x1, 0x2)`: the name ends at the last '(' group.
        let name = match func.rfind('(') {
            Some(p) if func.ends_with(')') => &func[..p],
            _ => func,
        };
        // `\t/home/u/p/main.go:8 +0x1d`
        let loc = loc_line
            .trim()
            .split(" +0x")
            .next()
            .and_then(split_location);
        frames.push(Frame::at(Some(name.to_string()), loc));
        i += 2;
    }
    Some(Crash {
        lang: Lang::Go,
        kind: kind.to_string(),
        message: message.trim_end_matches(" [recovered]").to_string(),
        marker: format!("{kind}: "),
        frames,
    })
}

fn parse_python(lines: &[&str]) -> Option<Crash> {
    // A SyntaxError is printed without the header: `  File "f", line N` then the error line.
    let body_from = match lines.iter().rposition(|l| {
        l.trim_start()
            .starts_with("Traceback (most recent call last):")
    }) {
        Some(s) => s + 1,
        None => lines
            .iter()
            .position(|l| l.starts_with("  File \"") && l.contains("\", line "))?,
    };
    let mut frames = Vec::new();
    let mut exc = None;
    for l in &lines[body_from..] {
        let t = l.trim_start();
        if let Some(rest) = t.strip_prefix("File \"") {
            let Some((file, tail)) = rest.split_once('"') else {
                continue;
            };
            let tail = tail.trim_start_matches(',').trim();
            let (line, func) = match tail.strip_prefix("line ") {
                Some(r) => match r.split_once(", in ") {
                    Some((n, f)) => (n.parse().ok(), Some(f.trim().to_string())),
                    None => (r.trim().parse().ok(), None),
                },
                None => (None, None),
            };
            frames.push(Frame {
                function: func,
                file: Some(file.to_string()),
                line,
                column: None,
            });
        } else if !l.starts_with(' ') && !l.starts_with('\t') && !t.is_empty() {
            exc = Some(t);
            break;
        }
    }
    let exc = exc?;
    let (kind, message) = match exc.split_once(':') {
        Some((k, m)) if !k.contains(' ') => (k.to_string(), m.trim().to_string()),
        _ => (exc.to_string(), String::new()),
    };
    frames.reverse();
    let marker = kind.rsplit('.').next().unwrap_or(&kind).to_string();
    Some(Crash {
        lang: Lang::Python,
        kind,
        message,
        marker,
        frames,
    })
}

/// A Java frame body (`pkg.Class.method(File.java:12)`) — no space before the parenthesis,
/// which tells it apart from a Node frame (`fn (file:1:2)`).
fn java_frame(body: &str) -> Option<Frame> {
    let open = body.find('(')?;
    if !body.ends_with(')') || body[..open].contains(' ') || open == 0 {
        return None;
    }
    let function = &body[..open];
    let inside = &body[open + 1..body.len() - 1];
    // Module prefix of Java 9+: `java.base/java.lang.Thread.run(Thread.java:829)`.
    let function = function.rsplit('/').next().unwrap_or(function);
    let loc = match inside.split_once(':') {
        Some((file, line)) if file.contains('.') => {
            // The source file's directory is the class's package: `com.ex.Calc.divide` → com/ex/.
            let class = function.rsplit_once('.').map_or("", |(c, _)| c);
            let pkg: Vec<&str> = class.split('.').collect();
            let dir = if pkg.len() > 1 {
                format!("{}/", pkg[..pkg.len() - 1].join("/"))
            } else {
                String::new()
            };
            Some((format!("{dir}{file}"), line.parse().ok(), None))
        }
        _ => None,
    };
    Some(Frame::at(Some(function.to_string()), loc))
}

fn looks_like_exception_class(s: &str) -> bool {
    let name = s.split(':').next().unwrap_or("").trim();
    !name.is_empty()
        && !name.contains(' ')
        && (name.ends_with("Exception") || name.ends_with("Error") || name.ends_with("Throwable"))
}

fn parse_java(lines: &[&str]) -> Option<Crash> {
    let idx = lines.iter().enumerate().position(|(i, l)| {
        let first_frame = lines
            .get(i + 1)
            .and_then(|n| n.trim_start().strip_prefix("at "))
            .and_then(java_frame)
            .is_some();
        (l.starts_with("Exception in thread ") || looks_like_exception_class(l)) && first_frame
    })?;
    let head = lines[idx];
    let exc = match head.strip_prefix("Exception in thread ") {
        // `Exception in thread "main" java.lang.X: msg` — skip the quoted thread name.
        Some(rest) => rest.splitn(3, '"').nth(2).unwrap_or(rest).trim(),
        None => head.trim(),
    };
    let (kind, message) = match exc.split_once(": ") {
        Some((k, m)) => (k.to_string(), m.to_string()),
        None => (exc.to_string(), String::new()),
    };
    let frames = lines[idx + 1..]
        .iter()
        .map_while(|l| l.trim_start().strip_prefix("at ").and_then(java_frame))
        .collect();
    let marker = kind.clone();
    Some(Crash {
        lang: Lang::Java,
        kind,
        message,
        marker,
        frames,
    })
}

/// A Node/V8 frame body: `fn (loc)`, `async fn (loc)`, `new Foo (loc)` or a bare `loc`.
fn node_frame(body: &str) -> Option<Frame> {
    let body = body.trim();
    if let Some(open) = body.rfind(" (")
        && body.ends_with(')')
    {
        let func = body[..open].trim();
        let func = func.strip_prefix("async ").unwrap_or(func);
        let loc = &body[open + 2..body.len() - 1];
        return Some(Frame::at(Some(func.to_string()), split_location(loc)));
    }
    let body = body.strip_prefix("async ").unwrap_or(body);
    split_location(body).map(|l| Frame::at(None, Some(l)))
}

fn parse_node(lines: &[&str]) -> Option<Crash> {
    let first_at = lines
        .iter()
        .position(|l| l.starts_with("    at ") && node_frame(&l["    at ".len()..]).is_some())?;
    let head_idx = lines[..first_at]
        .iter()
        .rposition(|l| !l.trim().is_empty())?;
    let head = lines[head_idx].trim();
    let head = head.strip_prefix("Uncaught ").unwrap_or(head);
    let (kind, message) = match head.split_once(": ") {
        Some((k, m)) if !k.contains(' ') => (k.to_string(), m.to_string()),
        _ if !head.contains(' ') => (head.to_string(), String::new()),
        _ => return None,
    };
    let frames = lines[first_at..]
        .iter()
        .map_while(|l| l.trim_start().strip_prefix("at ").and_then(node_frame))
        .collect();
    let marker = kind.clone();
    Some(Crash {
        lang: Lang::Node,
        kind,
        message,
        marker,
        frames,
    })
}

/// `#N 0xADDR in fn file:line:col` (sanitizers) or `#N  0xADDR in fn (args) at file:line` and
/// `#N  fn (args) at file:line` (gdb).
fn hash_frame(line: &str) -> Option<Frame> {
    let t = line.trim_start().strip_prefix('#')?;
    let (num, rest) = t.split_once(' ')?;
    if num.is_empty() || !num.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut rest = rest.trim();
    if rest.starts_with("0x") {
        let (_, after) = rest.split_once(" in ").unwrap_or(("", rest));
        rest = after.trim();
        if rest.starts_with("0x") {
            return Some(Frame::at(None, None));
        }
    }
    if let Some((before, loc)) = rest.rsplit_once(" at ") {
        let func = before.split(" (").next().unwrap_or(before).trim();
        return Some(Frame::at(Some(func.to_string()), split_location(loc)));
    }
    let (func, loc) = match rest.split_once(' ') {
        Some((f, l)) => (f, l.trim()),
        None => (rest, ""),
    };
    // `(/lib/libc.so.6+0x29d90)` names a module, not a source file.
    let loc = if loc.starts_with('(') || loc.starts_with("from ") {
        None
    } else {
        split_location(loc)
    };
    Some(Frame::at(Some(func.to_string()), loc))
}

fn parse_sanitizer(lines: &[&str]) -> Option<Crash> {
    let found = lines.iter().enumerate().find_map(|(i, l)| {
        let (_, after) = l.split_once("ERROR: ")?;
        let (tool, what) = after.split_once(": ")?;
        tool.ends_with("Sanitizer").then(|| {
            let kind_word = what.split_whitespace().next().unwrap_or(what);
            (
                i,
                format!("{tool}: {kind_word}"),
                what.split(" on address").next().unwrap_or(what).to_string(),
            )
        })
    });
    let Some((idx, kind, message)) = found else {
        return parse_ubsan(lines);
    };
    let frames = lines[idx + 1..]
        .iter()
        .skip_while(|l| hash_frame(l).is_none())
        .map_while(|l| hash_frame(l))
        .collect();
    let marker = kind.clone();
    Some(Crash {
        lang: Lang::Native,
        kind,
        message,
        marker,
        frames,
    })
}

/// UBSan: `main.c:6:12: runtime error: signed integer overflow: …`
fn parse_ubsan(lines: &[&str]) -> Option<Crash> {
    let (i, l) = lines
        .iter()
        .enumerate()
        .find(|(_, l)| l.contains(": runtime error: "))?;
    let (loc, msg) = l.split_once(": runtime error: ")?;
    let mut frames: Vec<Frame> = lines[i + 1..]
        .iter()
        .filter_map(|l| hash_frame(l))
        .collect();
    if frames.is_empty() {
        frames.push(Frame::at(None, split_location(loc)));
    }
    Some(Crash {
        lang: Lang::Native,
        kind: "UndefinedBehaviorSanitizer: runtime error".into(),
        message: msg.to_string(),
        marker: "runtime error:".into(),
        frames,
    })
}

fn parse_gdb(lines: &[&str]) -> Option<Crash> {
    let signal = lines.iter().find_map(|l| {
        let rest = l.trim().strip_prefix("Program received signal ")?;
        Some(rest.split([',', '.']).next()?.trim().to_string())
    });
    let first = lines
        .iter()
        .position(|l| l.trim_start().starts_with("#0 ") && hash_frame(l).is_some())?;
    let frames: Vec<Frame> = lines[first..].iter().map_while(|l| hash_frame(l)).collect();
    if signal.is_none() && !frames.iter().any(|f| f.file.is_some()) {
        return None;
    }
    let (kind, marker) = match &signal {
        Some(s) => (
            format!("signal {s}"),
            format!("Program received signal {s}"),
        ),
        None => ("backtrace".to_string(), "#0 ".to_string()),
    };
    Some(Crash {
        lang: Lang::Native,
        kind,
        message: String::new(),
        marker,
        frames,
    })
}

/// URL schemes whose locations name source files.
const URL_SCHEMES: &[&str] = &["https://", "http://", "webpack://", "file://"];

/// Every URL in `text` that carries a line number, as frames (the URL as the file).
#[must_use]
pub fn parse_urls(text: &str) -> Vec<Frame> {
    let mut out: Vec<Frame> = Vec::new();
    for scheme in URL_SCHEMES {
        let mut from = 0;
        while let Some(i) = text[from..].find(scheme) {
            let start = from + i;
            let end = text[start..]
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, ')' | '"' | '\'' | '<' | '>' | ',')
                })
                .map_or(text.len(), |e| start + e);
            from = end.max(start + scheme.len());
            let token = text[start..end].trim_end_matches(['.', ';']);
            // `file://` inside `webpack:///` is found by both; keep one.
            if *scheme == "file://" && start >= 3 && text[..start].ends_with("///") {
                continue;
            }
            if let Some((file, Some(line), col)) = split_location(token)
                && !file.ends_with("//")
            {
                let f = Frame::at(None, Some((file, Some(line), col)));
                if !out.contains(&f) {
                    out.push(f);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_location_reads_from_the_right() {
        assert_eq!(
            split_location("src/main.rs:5:13"),
            Some(("src/main.rs".into(), Some(5), Some(13)))
        );
        assert_eq!(
            split_location("file:///x/a.js:3:16"),
            Some(("file:///x/a.js".into(), Some(3), Some(16)))
        );
        assert_eq!(
            split_location("main.go:8"),
            Some(("main.go".into(), Some(8), None))
        );
        assert_eq!(split_location("nothing here"), None);
        assert_eq!(split_location(":3"), None);
    }

    #[test]
    fn rust_hash_is_stripped_only_when_it_is_one() {
        assert_eq!(strip_rust_hash("demo::f::h0123456789abcdef"), "demo::f");
        assert_eq!(strip_rust_hash("demo::helper"), "demo::helper");
    }

    #[test]
    fn java_frames_are_told_from_node_frames() {
        assert!(java_frame("com.ex.Calc.divide(Calc.java:5)").is_some());
        assert!(java_frame("divide (/x/app.js:3:16)").is_none());
        let f = java_frame("com.ex.Calc.divide(Calc.java:5)").unwrap();
        assert_eq!(f.file.as_deref(), Some("com/ex/Calc.java"));
    }

    #[test]
    fn urls_keep_their_line_and_column() {
        let f = parse_urls("at render (https://app.example.com/static/js/main.js:120:17)");
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].file.as_deref(),
            Some("https://app.example.com/static/js/main.js")
        );
        assert_eq!((f[0].line, f[0].column), (Some(120), Some(17)));
        assert!(parse_urls("see https://example.com/docs for help").is_empty());
    }

    #[test]
    fn plain_text_is_no_crash() {
        assert_eq!(parse_crash("hello\nworld\n"), None);
        assert_eq!(parse_crash(""), None);
    }
}
