//! Linter output to findings: pure functions over text that never panic.
//!
//! Formats read (paths as the tool printed them; the caller makes them repository-relative):
//! - **location lines** `path:line:col: rest` or `path:line: rest` (ruff `--output-format=concise`,
//!   pyflakes, loki's syntax check, gofmt's syntax errors, `go vet`, clippy `--message-format=short`);
//!   the path ends at the first `:<digits>:`. Lines that are not location lines (source echoes,
//!   carets, summaries, `# package` headers) are skipped.
//! - **ruff**: `rest` is `CODE [*] message` (`F401`) or `kebab-code: message` (`invalid-syntax`).
//! - **clippy/rustc**: `rest` is `warning: …`, `error: …` or `error[E0425]: …`; other lines are
//!   progress or summaries.
//! - **gofmt -l**: a bare path (one the run was given) is a file gofmt would reformat.
//! - **ESLint `--format json`**: `[{filePath, messages: [{ruleId, severity, message, line,
//!   endLine}]}]`; severity 2 is an error, 1 a warning. "File ignored …" warnings without a rule are
//!   not findings: they name files ESLint did not lint.
//! - **tsc**: `path(line,col): error TS2322: message`.
//! - **rustfmt --check**: `Diff in <path>:<line>:` (rustfmt ≥ 1.7) or `Diff in <path> at line
//!   <line>:`, then diff lines; the finding spans the original lines the hunk removes or inserts at.
//! - **node --check**: one file per run; the first line is `<path>:<line>`, the message is the
//!   first `…Error: …` line.

use serde::{Deserialize, Serialize};

/// One problem a linter reported.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct LintFinding {
    /// Repository-relative after normalisation (absolute when outside the repository).
    pub path: String,
    /// 1-based; `None` for findings about the whole file (gofmt).
    pub line: Option<u32>,
    /// Last line of a multi-line finding (a rustfmt hunk); `None` means `line` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    /// The rule (`F401`, `no-unused-vars`, `TS2322`, `E0425`), when the tool names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
}

fn finding(path: &str, line: Option<u32>, code: Option<String>, message: &str) -> LintFinding {
    LintFinding {
        path: path.to_owned(),
        line,
        end_line: None,
        code,
        message: message.trim().to_owned(),
    }
}

/// A `path:line[:col]: rest` line split up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location<'a> {
    pub path: &'a str,
    pub line: u32,
    pub rest: &'a str,
}

fn digits_then_colon(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit())?;
    if end == 0 || !s[end..].starts_with(':') {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end + 1..]))
}

/// Splits a location line; `None` when the line has no `:<digits>:` after a non-empty path.
#[must_use]
pub fn location(line: &str) -> Option<Location<'_>> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    for (i, _) in line.match_indices(':').filter(|(i, _)| *i > 0) {
        if let Some((n, after)) = digits_then_colon(&line[i + 1..]) {
            let rest = digits_then_colon(after).map_or(after, |(_, r)| r);
            return Some(Location {
                path: &line[..i],
                line: n,
                rest: rest.trim(),
            });
        }
    }
    None
}

/// ruff `--output-format=concise`.
#[must_use]
pub fn ruff(text: &str) -> Vec<LintFinding> {
    text.lines()
        .filter_map(location)
        .map(|l| {
            let (first, after) = l.rest.split_once(' ').unwrap_or((l.rest, ""));
            let is_code = first.len() > 1
                && first.starts_with(|c: char| c.is_ascii_uppercase())
                && first
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                && first.ends_with(|c: char| c.is_ascii_digit());
            let (code, msg) = if is_code {
                (Some(first.to_owned()), after)
            } else if let Some(kebab) = first.strip_suffix(':')
                && !kebab.is_empty()
                && kebab.chars().all(|c| c.is_ascii_lowercase() || c == '-')
            {
                (Some(kebab.to_owned()), after)
            } else {
                (None, l.rest)
            };
            let msg = msg.trim_start();
            let msg = msg.strip_prefix("[*] ").unwrap_or(msg);
            finding(l.path, Some(l.line), code, msg)
        })
        .collect()
}

/// pyflakes, and loki's syntax check (`path:line:col: SyntaxError: message`).
#[must_use]
pub fn plain(text: &str) -> Vec<LintFinding> {
    text.lines()
        .filter_map(location)
        .map(|l| finding(l.path, Some(l.line), None, l.rest))
        .collect()
}

/// `gofmt -l`: bare paths among `given` are unformatted files; location lines are syntax errors.
#[must_use]
pub fn gofmt(text: &str, given: &[String]) -> Vec<LintFinding> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if given.iter().any(|g| g == line) {
            out.push(finding(
                line,
                None,
                None,
                "not gofmt-formatted (run gofmt -w on it)",
            ));
        } else if let Some(l) = location(line) {
            out.push(finding(l.path, Some(l.line), None, l.rest));
        }
    }
    out
}

/// `go vet`: `# pkg` headers skipped, `vet: ` prefixes removed.
#[must_use]
pub fn go_vet(text: &str) -> Vec<LintFinding> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.strip_prefix("vet: ").unwrap_or(l))
        .filter_map(location)
        .map(|l| finding(l.path, Some(l.line), None, l.rest))
        .collect()
}

/// clippy / rustc `--message-format=short`.
#[must_use]
pub fn clippy(text: &str) -> Vec<LintFinding> {
    text.lines()
        .filter_map(location)
        .filter_map(|l| {
            let (level, msg) = l.rest.split_once(": ")?;
            let (word, code) = match level.split_once('[') {
                Some((w, c)) => (w, c.strip_suffix(']').map(str::to_owned)),
                None => (level, None),
            };
            matches!(word, "warning" | "error")
                .then(|| finding(l.path, Some(l.line), code, &format!("{word}: {msg}")))
        })
        .collect()
}

/// `tsc --pretty false`.
#[must_use]
pub fn tsc(text: &str) -> Vec<LintFinding> {
    text.lines()
        .filter_map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let (head, rest) = line.split_once("): ")?;
            let open = head.rfind('(')?;
            let (path, pos) = (&head[..open], &head[open + 1..]);
            let (ln, col) = pos.split_once(',')?;
            if path.is_empty() || col.parse::<u32>().is_err() {
                return None;
            }
            let ln: u32 = ln.parse().ok()?;
            let (level, msg) = rest.split_once(": ")?;
            let (word, code) = level.split_once(' ').unwrap_or((level, ""));
            let code = (!code.is_empty()).then(|| code.to_owned());
            Some(finding(path, Some(ln), code, &format!("{word}: {msg}")))
        })
        .collect()
}

/// What ESLint's JSON said: findings, and the files it did not lint (with its words).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EslintOutput {
    pub findings: Vec<LintFinding>,
    pub ignored: Vec<(String, String)>,
    /// The JSON could be read at all.
    pub parsed: bool,
}

#[derive(Deserialize)]
struct EslintFile {
    #[serde(rename = "filePath")]
    file_path: String,
    #[serde(default)]
    messages: Vec<EslintMessage>,
}

#[derive(Deserialize)]
struct EslintMessage {
    #[serde(rename = "ruleId")]
    rule_id: Option<String>,
    #[serde(default)]
    severity: u8,
    #[serde(default)]
    message: String,
    line: Option<u32>,
    #[serde(rename = "endLine")]
    end_line: Option<u32>,
}

/// ESLint `--format json` (on stdout).
#[must_use]
pub fn eslint(stdout: &str) -> EslintOutput {
    let Ok(files) = serde_json::from_str::<Vec<EslintFile>>(stdout.trim()) else {
        return EslintOutput::default();
    };
    let mut out = EslintOutput {
        parsed: true,
        ..EslintOutput::default()
    };
    for f in files {
        for m in f.messages {
            if m.rule_id.is_none() && m.severity == 1 && m.message.starts_with("File ignored") {
                out.ignored.push((f.file_path.clone(), m.message));
                continue;
            }
            let level = if m.severity >= 2 { "error" } else { "warning" };
            let mut x = finding(
                &f.file_path,
                m.line,
                m.rule_id,
                &format!("{level}: {}", m.message),
            );
            // ESLint's endLine of a one-line problem can be the next line (the newline it spans).
            x.end_line = m.end_line.filter(|e| m.line.is_some_and(|l| *e > l + 1));
            out.findings.push(x);
        }
    }
    out
}

/// rustfmt `--check` (colour off).
#[must_use]
pub fn rustfmt(text: &str) -> Vec<LintFinding> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(head) = line.strip_prefix("Diff in ") else {
            continue;
        };
        let head = head.strip_suffix(':').unwrap_or(head);
        let parsed = match head.rsplit_once(" at line ") {
            Some((p, n)) => n.parse::<u32>().ok().map(|n| (p, n)),
            None => head
                .rsplit_once(':')
                .and_then(|(p, n)| n.parse::<u32>().ok().map(|n| (p, n))),
        };
        let Some((path, start)) = parsed else {
            continue;
        };
        // Walk the hunk in original-file numbering (context and removed lines advance it); each
        // run of `-`/`+` lines between context lines is one finding. A `+` run with no `-` inserts
        // before line `orig`.
        let mut orig = start;
        let mut block: Option<(u32, u32)> = None;
        let flush = |block: &mut Option<(u32, u32)>, out: &mut Vec<LintFinding>| {
            if let Some((first, last)) = block.take() {
                let mut x = finding(
                    path,
                    Some(first),
                    None,
                    "not rustfmt-formatted (rustfmt would change these lines)",
                );
                x.end_line = (last > first).then_some(last);
                out.push(x);
            }
        };
        while let Some(l) = lines.peek() {
            if l.starts_with("Diff in ") {
                break;
            }
            match l.as_bytes().first() {
                Some(b' ') => {
                    flush(&mut block, &mut out);
                    orig += 1;
                }
                Some(b'-') => {
                    block = Some((block.map_or(orig, |(f, _)| f), orig));
                    orig += 1;
                }
                Some(b'+') => {
                    block.get_or_insert((orig, orig));
                }
                _ => {}
            }
            lines.next();
        }
        flush(&mut block, &mut out);
    }
    out
}

/// `node --check <file>` for one file that exited non-zero: the syntax error's line and message;
/// a line-less finding when the output cannot be read (the file was still rejected).
#[must_use]
pub fn node_check(text: &str, file: &str) -> LintFinding {
    let line = text.lines().next().and_then(|first| {
        let (_, n) = first.trim_end().rsplit_once(':')?;
        n.parse::<u32>().ok()
    });
    let message = text
        .lines()
        .map(str::trim)
        .find(|l| {
            l.split_once(": ")
                .is_some_and(|(kind, _)| kind.ends_with("Error") && !kind.contains(' '))
        })
        .unwrap_or("node --check rejected the file");
    finding(file, line, None, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let l = location("sub dir/b c.py:3:5: F821 Undefined name `z`\r").unwrap();
        assert_eq!(
            (l.path, l.line, l.rest),
            ("sub dir/b c.py", 3, "F821 Undefined name `z`")
        );
        let l = location("a.py:12: undefined name 'x'").unwrap();
        assert_eq!((l.path, l.line, l.rest), ("a.py", 12, "undefined name 'x'"));
        assert!(location("    x = d[\"a\"]").is_none());
        assert!(location("3: nothing").is_none());
        assert!(location("Found 6 errors.").is_none());
    }

    /// Captured from ruff 0.17 (`ruff check --output-format=concise --no-cache`).
    const RUFF: &str = "a.py:1:8: F401 [*] `os` imported but unused\n\
a.py:6:12: F821 Undefined name `undefined_name`\n\
sub dir/b c.py:3:5: F821 Undefined name `z`\n\
bad.py:1:7: invalid-syntax: Expected a parameter or the end of the parameter list\n\
old.py:2:1: SyntaxError: Unexpected token\n\
Found 6 errors.\n[*] 4 fixable with `--fix`.\n";

    #[test]
    fn ruff_concise() {
        let f = ruff(RUFF);
        let got: Vec<(&str, Option<u32>, Option<&str>, &str)> = f
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.line,
                    f.code.as_deref(),
                    f.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a.py", Some(1), Some("F401"), "`os` imported but unused"),
                (
                    "a.py",
                    Some(6),
                    Some("F821"),
                    "Undefined name `undefined_name`"
                ),
                (
                    "sub dir/b c.py",
                    Some(3),
                    Some("F821"),
                    "Undefined name `z`"
                ),
                (
                    "bad.py",
                    Some(1),
                    Some("invalid-syntax"),
                    "Expected a parameter or the end of the parameter list"
                ),
                ("old.py", Some(2), None, "SyntaxError: Unexpected token"),
            ]
        );
    }

    /// Captured from pyflakes 3 (`python -m pyflakes`), including a syntax error's source echo.
    #[test]
    fn pyflakes_output() {
        let text = "a.py:1:1: 'os' imported but unused\nsub dir/b c.py:3:5: undefined name 'z'\nbad.py:1:7: invalid syntax\ndef f(:\n      ^\n";
        let f = plain(text);
        assert_eq!(f.len(), 3);
        assert_eq!((f[1].path.as_str(), f[1].line), ("sub dir/b c.py", Some(3)));
        assert_eq!(f[2].message, "invalid syntax");
    }

    /// Captured from go 1.19: `gofmt -l` and `go vet` (run in the package dir: `./` paths).
    #[test]
    fn go_tools() {
        let given = vec!["pkg/a.go".to_owned(), "pkg/bad.go".to_owned()];
        let f = gofmt(
            "pkg/a.go\npkg/bad.go:2:9: expected ')', found '{'\n",
            &given,
        );
        assert_eq!(f[0].line, None);
        assert_eq!((f[1].path.as_str(), f[1].line), ("pkg/bad.go", Some(2)));
        let f = go_vet(
            "# example.com/m/pkg\n./a.go:6:2: fmt.Printf format %d has arg \"x\" of wrong type string\nvet: pkg/bad.go:2:9: expected ')', found '{'\n",
        );
        assert_eq!(f.len(), 2);
        assert_eq!((f[0].path.as_str(), f[0].line), ("./a.go", Some(6)));
        assert_eq!(f[1].path, "pkg/bad.go");
    }

    /// Captured from clippy 0.1.95 `--message-format=short --quiet`.
    #[test]
    fn clippy_short() {
        let text = "crates/a/src/lib.rs:1:13: warning: writing `&Vec` instead of `&[_]` involves a new object where a slice will do\n\
crates/a/src/lib.rs:7:5: error: equal expressions as operands to `==`\n\
src/main.rs:2:5: error[E0425]: cannot find value `x` in this scope\n\
error: could not compile `a` (lib) due to 1 previous error; 1 warning emitted\n\
warning: `a` (lib) generated 1 warning\n";
        let f = clippy(text);
        assert_eq!(f.len(), 3);
        assert_eq!(f[1].message, "error: equal expressions as operands to `==`");
        assert_eq!(f[2].code.as_deref(), Some("E0425"));
    }

    /// Captured from tsc 5 `--noEmit --pretty false`.
    #[test]
    fn tsc_output() {
        let f = tsc(
            "src/t (1).ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.\nerror TS5083: Cannot read file 'x'.\n",
        );
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].path.as_str(), f[0].line, f[0].code.as_deref()),
            ("src/t (1).ts", Some(1), Some("TS2322"))
        );
        assert_eq!(
            f[0].message,
            "error: Type 'string' is not assignable to type 'number'."
        );
    }

    /// Shape captured from ESLint 9.39 `--format json` (trimmed).
    #[test]
    fn eslint_json() {
        let json = r#"[{"filePath":"/r/src/a b.js","messages":[
{"ruleId":"no-unused-vars","severity":2,"message":"'a' is assigned a value but never used.","line":1,"column":7,"endLine":1,"endColumn":8},
{"ruleId":"no-undef","severity":1,"message":"'c' is not defined.","line":2,"column":9,"endLine":2},
{"ruleId":"semi","severity":2,"message":"Missing semicolon.","line":2,"column":10,"endLine":3,"endColumn":1}],"errorCount":2},
{"filePath":"/r/src/bad.js","messages":[{"ruleId":null,"fatal":true,"severity":2,"message":"Parsing error: Unexpected token ;","line":1,"column":9}]},
{"filePath":"/r/src/t.ts","messages":[{"ruleId":null,"severity":1,"message":"File ignored because no matching configuration was supplied."}]}]"#;
        let out = eslint(json);
        assert!(out.parsed);
        assert_eq!(out.findings.len(), 4);
        assert_eq!(out.findings[1].message, "warning: 'c' is not defined.");
        assert_eq!(out.findings[2].end_line, None);
        assert_eq!(out.findings[3].code, None);
        assert_eq!(out.ignored.len(), 1);
        assert!(!eslint("Oops! Something went wrong!").parsed);
    }

    /// Captured from rustfmt 1.9 `--check --color never`, plus the older header form.
    #[test]
    fn rustfmt_hunks() {
        let text = "Diff in /r/src/lib.rs:7:\n     x == x\n }\n \n-pub fn h()   { }\n+pub fn h() {}\n \nDiff in src/m.rs at line 1:\n-fn a(){\n-}\n+fn a() {}\n \n-fn b()  {}\n+fn b() {}\n";
        let f = rustfmt(text);
        assert_eq!(f.len(), 3);
        assert_eq!((f[2].line, f[2].end_line), (Some(4), None));
        assert_eq!(
            (f[0].path.as_str(), f[0].line, f[0].end_line),
            ("/r/src/lib.rs", Some(10), None)
        );
        assert_eq!(
            (f[1].path.as_str(), f[1].line, f[1].end_line),
            ("src/m.rs", Some(1), Some(2))
        );
    }

    /// Captured from node 20 `node --check`.
    #[test]
    fn node_check_output() {
        let text = "/tmp/x/bad.js:3\nlet x = ;\n        ^\n\nSyntaxError: Unexpected token ';'\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n\nNode.js v20.20.2\n";
        let f = node_check(text, "bad.js");
        assert_eq!(
            (f.line, f.message.as_str()),
            (Some(3), "SyntaxError: Unexpected token ';'")
        );
        let f = node_check("node: bad option\n", "x.js");
        assert_eq!(f.line, None);
    }
}
