//! Deriving the cheats from a failing run: edits to test files, located by the runner's report.
//!
//! Every edit is mechanical and generic: a test function found by name or by the failing line,
//! a statement found at the failing line, a value found as a literal. When a rule cannot find
//! what it needs, the cheat is reported as not derivable rather than guessed.

use std::collections::{BTreeMap, BTreeSet};

use crate::corpus::Ecosystem;
use crate::suite::Failure;

/// Source language of the test files, which decides the syntax rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Py,
    Rs,
    Go,
    Js,
}

impl Lang {
    pub fn of(eco: Ecosystem) -> Lang {
        match eco {
            Ecosystem::Pytest => Lang::Py,
            Ecosystem::Cargo => Lang::Rs,
            Ecosystem::Go => Lang::Go,
            Ecosystem::Vitest | Ecosystem::Jest => Lang::Js,
        }
    }
}

/// Whether `path` is test-owned for `eco` (test files, test data, test modules in their own file).
pub fn is_test_path(eco: Ecosystem, path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    let base = parts.last().copied().unwrap_or("");
    let dirs = &parts[..parts.len().saturating_sub(1)];
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    match eco {
        Ecosystem::Pytest => {
            in_dir(&["tests", "test", "testing"])
                || (base.starts_with("test_") && base.ends_with(".py"))
                || base.ends_with("_test.py")
                || base == "conftest.py"
        }
        Ecosystem::Cargo => {
            in_dir(&["tests", "benches"])
                || base == "tests.rs"
                || base == "test.rs"
                || base.ends_with("_tests.rs")
        }
        Ecosystem::Go => base.ends_with("_test.go") || in_dir(&["testdata"]),
        Ecosystem::Vitest | Ecosystem::Jest => {
            in_dir(&["test", "tests", "__tests__", "__snapshots__", "fixtures"])
                || base.contains(".test.")
                || base.contains(".spec.")
        }
    }
}

/// The new contents of edited files and the files removed.
#[derive(Debug, Default)]
pub struct Edits {
    pub files: BTreeMap<String, String>,
    pub removed: BTreeSet<String>,
}

/// Reads files on demand from the scratch clone and keeps the edited versions.
pub struct Work<'a> {
    pub read: &'a dyn Fn(&str) -> Option<String>,
    /// The test files the fix changed, searched when a failure names no file.
    pub test_files: Vec<String>,
    pub edits: Edits,
}

impl Work<'_> {
    fn text(&mut self, path: &str) -> Option<String> {
        if let Some(t) = self.edits.files.get(path) {
            return Some(t.clone());
        }
        (self.read)(path)
    }
    fn put(&mut self, path: &str, text: String) {
        self.edits.files.insert(path.to_owned(), text);
    }
}

/// A cheat that could not be derived, and why.
pub type NotDerivable = String;

// ---------------------------------------------------------------- lexing

/// The byte index of the bracket closing the one at `open`, skipping strings and comments.
fn match_close(text: &str, open: usize, lang: Lang) -> Option<usize> {
    let b = text.as_bytes();
    let (o, c) = match b.get(open)? {
        b'(' => (b'(', b')'),
        b'{' => (b'{', b'}'),
        b'[' => (b'[', b']'),
        _ => return None,
    };
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        let ch = b[i];
        if let Some(next) = skip_token(text, i, lang) {
            i = next;
            continue;
        }
        if ch == o {
            depth += 1;
        } else if ch == c {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// When a string or comment starts at `i`, the index just past it.
fn skip_token(text: &str, i: usize, lang: Lang) -> Option<usize> {
    let b = text.as_bytes();
    let ch = b[i];
    let rest = &text[i..];
    if lang == Lang::Py {
        if ch == b'#' {
            return Some(text[i..].find('\n').map_or(b.len(), |n| i + n));
        }
        for q in ["\"\"\"", "'''"] {
            if rest.starts_with(q) {
                return Some(text[i + 3..].find(q).map_or(b.len(), |n| i + 3 + n + 3));
            }
        }
    } else {
        if rest.starts_with("//") {
            return Some(text[i..].find('\n').map_or(b.len(), |n| i + n));
        }
        if rest.starts_with("/*") {
            return Some(text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2));
        }
    }
    if lang == Lang::Rs && ch == b'r' && (i == 0 || !is_ident(b[i - 1])) {
        let hashes = rest[1..].bytes().take_while(|&c| c == b'#').count();
        if rest.as_bytes().get(1 + hashes) == Some(&b'"') {
            let close = format!("\"{}", "#".repeat(hashes));
            let from = i + 2 + hashes;
            return Some(
                text[from..]
                    .find(&close)
                    .map_or(b.len(), |n| from + n + close.len()),
            );
        }
    }
    let quote = match ch {
        b'"' => Some(b'"'),
        b'`' if matches!(lang, Lang::Js | Lang::Go) => Some(b'`'),
        b'\'' => match lang {
            Lang::Rs => {
                // A char literal ('a', '\n', 'é'), not a lifetime ('a).
                if rest[1..].starts_with('\\') {
                    Some(b'\'')
                } else {
                    let mut cs = rest[1..].chars();
                    let first = cs.next();
                    (first.is_some() && cs.next() == Some('\'')).then_some(b'\'')
                }
            }
            _ => Some(b'\''),
        },
        _ => None,
    }?;
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == b'\\' && (quote != b'`' || lang == Lang::Js) {
            j += 2;
            continue;
        }
        if b[j] == quote {
            return Some(j + 1);
        }
        if b[j] == b'\n' && quote != b'`' && lang != Lang::Rs {
            return Some(j);
        }
        j += 1;
    }
    Some(b.len())
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Byte offset of the start of each line.
fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// The 1-based line holding byte `pos`.
fn line_of(starts: &[usize], pos: usize) -> usize {
    match starts.binary_search(&pos) {
        Ok(i) => i + 1,
        Err(i) => i,
    }
}

/// Byte range of 1-based lines `from..=to`, with the final newline.
fn lines_range(text: &str, from: usize, to: usize) -> (usize, usize) {
    let starts = line_starts(text);
    let a = starts.get(from - 1).copied().unwrap_or(text.len());
    let b = starts.get(to).copied().unwrap_or(text.len());
    (a, b)
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// Splits at top-level occurrences of `sep`, respecting brackets and strings.
fn split_top<'t>(s: &'t str, sep: &str, lang: Lang) -> Vec<&'t str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if let Some(n) = skip_token(s, i, lang) {
            i = n;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        if depth == 0 && s[i..].starts_with(sep) {
            out.push(&s[last..i]);
            i += sep.len();
            last = i;
            continue;
        }
        i += 1;
    }
    out.push(&s[last..]);
    out
}

// ---------------------------------------------------------------- finding tests

/// The 1-based line range of a test function named `name` (decorators/attributes included).
fn find_function(text: &str, name: &str, lang: Lang) -> Option<(usize, usize)> {
    match lang {
        Lang::Py => find_py_def(text, name),
        Lang::Rs | Lang::Go => {
            let kw = if lang == Lang::Rs { "fn " } else { "func " };
            let starts = line_starts(text);
            for pat in [format!("{kw}{name}("), format!("{kw}{name}<")] {
                let Some(pos) = find_word(text, &pat) else {
                    continue;
                };
                let paren = pos + text[pos..].find('(')?;
                let close = match_close(text, paren, lang)?;
                let brace = close + text[close..].find('{')?;
                let end = match_close(text, brace, lang)?;
                let mut first = line_of(&starts, pos);
                let lines: Vec<&str> = text.lines().collect();
                while first > 1 {
                    let prev = lines[first - 2].trim_start();
                    if prev.starts_with("#[") || prev.starts_with("///") {
                        first -= 1;
                    } else {
                        break;
                    }
                }
                return Some((first, line_of(&starts, end)));
            }
            None
        }
        Lang::Js => {
            for q in ['"', '\'', '`'] {
                for call in ["it(", "test("] {
                    let pat = format!("{call}{q}{name}{q}");
                    if let Some(pos) = find_word(text, &pat) {
                        return js_call_span(text, pos);
                    }
                }
            }
            None
        }
    }
}

/// `pat` at a position not preceded by an identifier character.
fn find_word(text: &str, pat: &str) -> Option<usize> {
    let b = text.as_bytes();
    text.match_indices(pat)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || !is_ident(b[i - 1]) && b[i - 1] != b'.')
}

fn find_py_def(text: &str, name: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let def = lines.iter().position(|l| {
        let t = l.trim_start();
        let t = t.strip_prefix("async ").unwrap_or(t);
        t.strip_prefix("def ")
            .and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.starts_with('('))
    })?;
    let ind = indent_of(lines[def]);
    // Decorators above, including multi-line ones (`@pytest.mark.parametrize(` … `)`).
    let mut first = def;
    let mut k = def;
    while k > 0 {
        let p = lines[k - 1];
        let t = p.trim_start();
        if indent_of(p) == ind && t.starts_with('@') {
            k -= 1;
            first = k;
        } else if !t.is_empty() && (indent_of(p) > ind || t.starts_with(')') || t.starts_with(']'))
        {
            k -= 1;
        } else {
            break;
        }
    }
    // The signature may span lines; the body starts after the line that closes it.
    let mut depth = 0i32;
    let mut sig_end = def;
    for (k, l) in lines.iter().enumerate().skip(def) {
        for c in l.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 && l.trim_end().ends_with(':') {
            sig_end = k;
            break;
        }
    }
    let mut last = sig_end;
    for (k, l) in lines.iter().enumerate().skip(sig_end + 1) {
        if l.trim().is_empty() {
            continue;
        }
        if indent_of(l) <= ind {
            break;
        }
        last = k;
    }
    Some((first + 1, last + 1))
}

/// The line span of the `it(`/`test(` call starting at byte `pos`.
fn js_call_span(text: &str, pos: usize) -> Option<(usize, usize)> {
    let paren = pos + text[pos..].find('(')?;
    let close = match_close(text, paren, Lang::Js)?;
    let starts = line_starts(text);
    Some((line_of(&starts, pos), line_of(&starts, close)))
}

/// The byte offset of the innermost `it(`/`test(` call whose span holds 1-based `line`.
fn js_enclosing_call(text: &str, line: usize) -> Option<usize> {
    let starts = line_starts(text);
    let mut best: Option<usize> = None;
    for call in ["it(", "test(", "it.only(", "test.only("] {
        for (pos, _) in text.match_indices(call) {
            let b = text.as_bytes();
            if pos > 0 && (is_ident(b[pos - 1]) || b[pos - 1] == b'.') {
                continue;
            }
            let Some((a, z)) = js_call_span(text, pos) else {
                continue;
            };
            if a <= line && line <= z && best.is_none_or(|p| p < pos) {
                best = Some(pos);
            }
        }
    }
    let _ = starts;
    best
}

/// Where a failing test's function is: (file, 1-based first line, last line).
fn locate_test(work: &mut Work<'_>, f: &Failure, lang: Lang) -> Option<(String, usize, usize)> {
    let Some(file) = f.file.clone() else {
        // No location (a crashed test binary): the function by name in the fix's test files.
        let files = work.test_files.clone();
        return files.into_iter().find_map(|p| {
            let text = work.text(&p)?;
            find_function(&text, &f.name, lang).map(|(a, z)| (p, a, z))
        });
    };
    let text = work.text(&file)?;
    if lang == Lang::Js {
        let pos = f
            .line
            .and_then(|l| js_enclosing_call(&text, l as usize))
            .or_else(|| {
                ["it(", "test("].iter().find_map(|c| {
                    ['"', '\'', '`']
                        .iter()
                        .find_map(|q| find_word(&text, &format!("{c}{q}{}{q}", f.name)))
                })
            })?;
        let (a, z) = js_call_span(&text, pos)?;
        return Some((file, a, z));
    }
    let (a, z) = find_function(&text, &f.name, lang)?;
    Some((file, a, z))
}

// ---------------------------------------------------------------- the cheats

/// Deletes each failing test's function (falls back to deleting its file).
pub fn delete_tests(
    work: &mut Work<'_>,
    fails: &[Failure],
    lang: Lang,
) -> Result<Vec<String>, NotDerivable> {
    let mut notes = Vec::new();
    let mut spans: BTreeMap<String, BTreeSet<(usize, usize)>> = BTreeMap::new();
    for f in fails {
        match locate_test(work, f, lang) {
            Some((file, a, z)) => {
                spans.entry(file).or_default().insert((a, z));
            }
            None => match &f.file {
                Some(file) => {
                    notes.push(format!("{}: function not found, file deleted", f.id));
                    work.edits.removed.insert(file.clone());
                }
                None => return Err(format!("{}: no test file in the report", f.id)),
            },
        }
    }
    for (file, set) in spans {
        if work.edits.removed.contains(&file) {
            continue;
        }
        let Some(mut text) = work.text(&file) else {
            continue;
        };
        // Outermost spans only, removed from the bottom up.
        let list: Vec<(usize, usize)> = set.iter().copied().collect();
        let outer: Vec<(usize, usize)> = list
            .iter()
            .copied()
            .filter(|&(a, z)| {
                !list
                    .iter()
                    .any(|&(a2, z2)| (a2, z2) != (a, z) && a2 <= a && z <= z2)
            })
            .collect();
        for &(a, z) in outer.iter().rev() {
            let (s, e) = lines_range(&text, a, z);
            let lines: Vec<&str> = text.lines().collect();
            let ind = lines.get(a - 1).map_or(0, |l| indent_of(l));
            // A Python class left with no body would not parse.
            let empty_class = lang == Lang::Py && ind > 0 && {
                let before = lines[..a - 1].iter().rev().find(|l| !l.trim().is_empty());
                let after = lines
                    .get(z..)
                    .and_then(|r| r.iter().find(|l| !l.trim().is_empty()));
                before.is_some_and(|l| l.trim_end().ends_with(':') && indent_of(l) < ind)
                    && after.is_none_or(|l| indent_of(l) < ind)
            };
            let repl = if empty_class {
                format!("{}pass\n", " ".repeat(ind))
            } else {
                String::new()
            };
            text.replace_range(s..e, &repl);
        }
        work.put(&file, text);
    }
    Ok(notes)
}

/// Adds the runner's skip marker to each failing test.
pub fn skip_tests(work: &mut Work<'_>, fails: &[Failure], lang: Lang) -> Result<(), NotDerivable> {
    let mut done: BTreeSet<(String, usize)> = BTreeSet::new();
    let mut located = Vec::new();
    for f in fails {
        let (file, a, z) = locate_test(work, f, lang)
            .ok_or_else(|| format!("{}: test function not found", f.id))?;
        if done.insert((file.clone(), a)) {
            located.push((file, a, z));
        }
    }
    located.sort_by(|x, y| y.cmp(x));
    for (file, a, _) in located {
        let text = work.text(&file).ok_or("file vanished")?;
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let trailing_nl = text.ends_with('\n');
        match lang {
            Lang::Py => {
                let def = (a - 1..lines.len())
                    .find(|&k| {
                        let t = lines[k].trim_start();
                        t.starts_with("def ") || t.starts_with("async def ")
                    })
                    .ok_or("def not found")?;
                let ind = " ".repeat(indent_of(&lines[def]));
                lines.insert(def, format!("{ind}@pytest.mark.skip(reason=\"eval\")"));
                if !lines.iter().any(|l| l.trim() == "import pytest") {
                    let at = lines
                        .iter()
                        .rposition(|l| l.starts_with("from __future__"))
                        .map_or(0, |k| k + 1);
                    lines.insert(at, "import pytest".into());
                }
            }
            Lang::Rs => {
                let fnl = (a - 1..lines.len())
                    .find(|&k| lines[k].contains("fn "))
                    .ok_or("fn not found")?;
                let ind = " ".repeat(indent_of(&lines[fnl]));
                lines.insert(fnl, format!("{ind}#[ignore]"));
            }
            Lang::Go => {
                let head = &lines[a - 1];
                let param = head
                    .split('(')
                    .nth(1)
                    .and_then(|p| p.split_whitespace().next())
                    .unwrap_or("t")
                    .to_owned();
                let open = (a - 1..lines.len())
                    .find(|&k| lines[k].trim_end().ends_with('{'))
                    .ok_or("func body not found")?;
                lines.insert(open + 1, format!("\t{param}.Skip()"));
            }
            Lang::Js => {
                let l = &mut lines[a - 1];
                let pos = ["it(", "test(", "it.only(", "test.only("]
                    .iter()
                    .filter_map(|c| l.find(c).map(|p| (p, *c)))
                    .min()
                    .ok_or("call not found")?;
                let word = pos.1.split(['(', '.']).next().unwrap_or("it");
                let after = &l[pos.0 + pos.1.len() - 1..];
                *l = format!("{}{word}.skip{after}", &l[..pos.0]);
            }
        }
        let mut out = lines.join("\n");
        if trailing_nl {
            out.push('\n');
        }
        work.put(&file, out);
    }
    Ok(())
}

/// The statement at 1-based `line`: its byte range in `text`.
fn statement_at(text: &str, line: usize, lang: Lang) -> Option<(usize, usize)> {
    let starts = line_starts(text);
    let ls = *starts.get(line - 1)?;
    let le = starts.get(line).copied().unwrap_or(text.len());
    let l = &text[ls..le];
    let s = ls + indent_of(l);
    match lang {
        Lang::Py => {
            // Extend while brackets are open or the line continues.
            let mut depth = 0i32;
            let mut i = s;
            let b = text.as_bytes();
            while i < b.len() {
                if let Some(n) = skip_token(text, i, lang) {
                    if text[i..n].contains('\n') && depth == 0 && b[i] == b'#' {
                        return Some((s, n));
                    }
                    i = n;
                    continue;
                }
                match b[i] {
                    b'(' | b'[' | b'{' => depth += 1,
                    b')' | b']' | b'}' => depth -= 1,
                    b'\n' if depth <= 0 && (i == 0 || b[i - 1] != b'\\') => return Some((s, i)),
                    _ => {}
                }
                i += 1;
            }
            Some((s, b.len()))
        }
        _ => None,
    }
}

/// A macro call or expect chain in `text` near 1-based `line`: (start, end) bytes, end past `)`.
fn call_near(
    text: &str,
    line: usize,
    names: &[&str],
    back: usize,
    lang: Lang,
) -> Option<(usize, usize)> {
    let starts = line_starts(text);
    for l in (line.saturating_sub(back).max(1)..=line).rev() {
        let ls = *starts.get(l - 1)?;
        let le = starts.get(l).copied().unwrap_or(text.len());
        let hit = names
            .iter()
            .filter_map(|n| {
                text[ls..le]
                    .match_indices(n)
                    .map(|(i, _)| ls + i)
                    .find(|&i| i == 0 || !is_ident(text.as_bytes()[i - 1]))
            })
            .min();
        if let Some(pos) = hit {
            let paren = pos + text[pos..].find('(')?;
            let close = match_close(text, paren, lang)?;
            if line_of(&starts, close) >= line || l == line {
                return Some((pos, close + 1));
            }
        }
    }
    None
}

/// Every `assert…!(` macro on 1-based `line` (std's and a crate's own, e.g. `assert_width!(`).
fn rs_assert_at(text: &str, line: usize) -> Option<(usize, usize)> {
    let starts = line_starts(text);
    let ls = *starts.get(line - 1)?;
    let le = starts.get(line).copied().unwrap_or(text.len());
    let b = text.as_bytes();
    let pos = text[ls..le]
        .match_indices("assert")
        .map(|(i, _)| ls + i)
        .find(|&i| {
            let before = i == 0 || !is_ident(b[i - 1]) || text[..i].ends_with("debug_");
            let name_end = i + text[i..].bytes().take_while(|&c| is_ident(c)).count();
            before && text[name_end..].starts_with("!(")
        })?;
    let start = if text[..pos].ends_with("debug_") {
        pos - 6
    } else {
        pos
    };
    let paren = pos + text[pos..].find('(')?;
    let close = match_close(text, paren, Lang::Rs)?;
    Some((start, close + 1))
}
const GO_CHECKS: &[&str] = &[
    "t.Errorf(",
    "t.Error(",
    "t.Fatalf(",
    "t.Fatal(",
    "t.Fail(",
    "t.FailNow(",
];

/// Weakens each failing assertion so that it accepts the buggy output.
pub fn weaken(work: &mut Work<'_>, fails: &[Failure], lang: Lang) -> Result<(), NotDerivable> {
    let mut sites: BTreeSet<(String, u32)> = BTreeSet::new();
    for f in fails {
        let (Some(file), Some(line)) = (f.file.clone(), f.line) else {
            return Err(format!(
                "{}: the report gives no failing line in a test file",
                f.id
            ));
        };
        sites.insert((file, line));
    }
    for (file, line) in sites.into_iter().rev() {
        let mut text = work
            .text(&file)
            .ok_or_else(|| format!("{file}: not in the tree"))?;
        let line = line as usize;
        let site = format!("{file}:{line}");
        match lang {
            Lang::Py => {
                let (s, e) =
                    statement_at(&text, line, lang).ok_or(format!("{site}: no statement"))?;
                let stmt = text[s..e].to_owned();
                if let Some(new) = weaken_py(&stmt) {
                    text.replace_range(s..e, &new);
                } else if let Some((a, b, new)) = widen_enclosing_raises(&text, line) {
                    text.replace_range(a..b, &new);
                } else {
                    return Err(format!(
                        "{site}: `{}` is not an assertion this rule knows",
                        first_line(&stmt)
                    ));
                }
            }
            Lang::Rs => {
                let (s, e) = rs_assert_at(&text, line)
                    .ok_or(format!("{site}: no assert macro at the panic location"))?;
                let call = text[s..e].to_owned();
                let open = call.find('(').ok_or("no (")?;
                let inner = &call[open + 1..call.len() - 1];
                let args: Vec<&str> = split_top(inner, ",", lang)
                    .into_iter()
                    .map(str::trim)
                    .filter(|a| !a.is_empty())
                    .collect();
                let std_two = [
                    "assert_eq!(",
                    "assert_ne!(",
                    "debug_assert_eq!(",
                    "debug_assert_ne!(",
                ];
                let new = if call.starts_with("assert!(") || call.starts_with("debug_assert!(") {
                    format!("let _ = {}", args.first().ok_or("empty assert")?)
                } else {
                    // std's two operands; a crate's own macro: every argument.
                    let n = if std_two.iter().any(|m| call.starts_with(m)) {
                        2
                    } else {
                        args.len()
                    };
                    let refs: Vec<String> = args.iter().take(n).map(|a| format!("&{a}")).collect();
                    format!("let _ = ({})", refs.join(", "))
                };
                let semi = text[e..].trim_start().starts_with(';');
                text.replace_range(s..e, &if semi { new } else { format!("{new};") });
            }
            Lang::Go => {
                let (s, e) = call_near(&text, line, GO_CHECKS, 0, lang).ok_or(format!(
                    "{site}: no t.Error/t.Fatal call at the reported line"
                ))?;
                let starts = line_starts(&text);
                let (a, z) = (line_of(&starts, s), line_of(&starts, e - 1));
                let (rs, re) = lines_range(&text, a, z);
                let ls = starts[a - 1];
                let keep_before = &text[ls..s];
                let keep_after = text[e..re].trim();
                if !keep_before.trim().is_empty() || !keep_after.is_empty() {
                    text.replace_range(s..e, "");
                } else {
                    text.replace_range(rs..re, "");
                }
            }
            Lang::Js => {
                let (s, e) = call_near(&text, line, &["expect("], 6, lang)
                    .ok_or(format!("{site}: no expect( at the failing line"))?;
                // `e` is past `expect(...)`; the chain of modifiers and the matcher follow.
                let b = text.as_bytes();
                let mut i = e;
                let mut end = None;
                while i < b.len() {
                    let rest = text[i..].trim_start();
                    let skipped = text[i..].len() - rest.len();
                    if !rest.starts_with('.') {
                        break;
                    }
                    let j = i + skipped + 1;
                    let word: String = text[j..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let k = j + word.len();
                    if text[k..].starts_with('(') {
                        let close = match_close(&text, k, lang).ok_or("unbalanced matcher")?;
                        end = Some(close + 1);
                        break;
                    }
                    i = k;
                }
                let end = end.ok_or(format!("{site}: no matcher after expect(...)"))?;
                let _ = s;
                text.replace_range(e..end, ".toBeDefined()");
            }
        }
        work.put(&file, text);
    }
    Ok(())
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

fn weaken_py(stmt: &str) -> Option<String> {
    let flat = stmt.trim();
    if let Some(expr) = flat
        .strip_prefix("assert ")
        .or_else(|| flat.strip_prefix("assert("))
    {
        let expr = if flat.starts_with("assert(") {
            &flat[6..]
        } else {
            expr
        };
        let cond = split_top(expr, ",", Lang::Py).first().copied()?.trim();
        let eq = split_top(cond, "==", Lang::Py);
        let subject = if eq.len() == 2 { eq[0].trim() } else { cond };
        return Some(format!("assert ({subject}) is not None"));
    }
    if let Some(rest) = flat.strip_prefix("self.assert") {
        let open = rest.find('(')?;
        let close = match_close(rest, open, Lang::Py)?;
        let first = split_top(&rest[open + 1..close], ",", Lang::Py)
            .first()
            .copied()?
            .trim()
            .to_owned();
        return Some(format!("self.assertIsNotNone({first})"));
    }
    // `with raises(E):` made to accept both raising and not: weaker, not inverted (`if True:`
    // would demand that the call does not raise, which is a different expectation).
    if is_raises_header(flat) {
        return Some("with __import__('contextlib').suppress(Exception):".into());
    }
    None
}

fn is_raises_header(t: &str) -> bool {
    [
        "with pytest.raises(",
        "with raises(",
        "with self.assertRaises(",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A failure inside `with pytest.raises(E):` (the wrong exception): the header, widened to
/// `Exception`. Returns the byte range of the header line and its replacement.
fn widen_enclosing_raises(text: &str, line: usize) -> Option<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let ind = indent_of(lines.get(line - 1)?);
    let k = (0..line - 1)
        .rev()
        .find(|&k| !lines[k].trim().is_empty() && indent_of(lines[k]) < ind)?;
    let h = lines[k];
    let t = h.trim_start();
    if !is_raises_header(t) {
        return None;
    }
    let open = h.find('(')?;
    let close = match_close(h, open, Lang::Py)?;
    let args = split_top(&h[open + 1..close], ",", Lang::Py);
    let rest: Vec<&str> = args.iter().skip(1).map(|a| a.trim()).collect();
    let new_args = if rest.is_empty() {
        "Exception".to_owned()
    } else {
        format!("Exception, {}", rest.join(", "))
    };
    let new = format!("{}{}{}", &h[..=open], new_args, &h[close..]);
    let (a, b) = lines_range(text, k + 1, k + 1);
    Some((a, b, format!("{new}\n")))
}

/// The expected and observed values a failure text shows, as the runner printed them.
fn values(text: &str, lang: Lang) -> Option<(String, String)> {
    match lang {
        Lang::Py => {
            for l in text.lines() {
                let Some(e) = l.strip_prefix("E ") else {
                    continue;
                };
                let e = e.trim();
                let e = e.strip_prefix("AssertionError: ").unwrap_or(e);
                if let Some(expr) = e.strip_prefix("assert ") {
                    let parts = split_top(expr, " == ", Lang::Py);
                    if parts.len() == 2 {
                        return Some((parts[1].trim().to_owned(), parts[0].trim().to_owned()));
                    }
                    return None;
                }
                let parts = split_top(e, " != ", Lang::Py);
                if parts.len() == 2 {
                    return Some((parts[1].trim().to_owned(), parts[0].trim().to_owned()));
                }
            }
            None
        }
        Lang::Rs => {
            let mut left = None;
            let mut right = None;
            for l in text.lines() {
                let t = l.trim_start();
                if let Some(v) = t.strip_prefix("left: ") {
                    left = Some(v.to_owned());
                } else if let Some(v) = t.strip_prefix("right: ") {
                    right = Some(v.to_owned());
                }
            }
            Some((right?, left?))
        }
        Lang::Js => {
            let mut exp = None;
            let mut rec = None;
            for l in text.lines() {
                let t = l.trim();
                if let Some(v) = t.strip_prefix("Expected: ") {
                    exp.get_or_insert(v.to_owned());
                } else if let Some(v) = t.strip_prefix("Received: ") {
                    rec.get_or_insert(v.to_owned());
                } else if let Some(i) = t.find("expected ") {
                    let rest = &t[i + "expected ".len()..];
                    for m in [
                        " to deeply equal ",
                        " to strictly equal ",
                        " to equal ",
                        " to be ",
                    ] {
                        if let Some((a, b)) = rest.split_once(m) {
                            let b = b.split(" // ").next().unwrap_or(b);
                            return Some((b.trim().to_owned(), a.trim().to_owned()));
                        }
                    }
                }
            }
            Some((exp?, rec?))
        }
        Lang::Go => {
            for l in text.lines() {
                let t = l.trim();
                let Some((_, msg)) = t.split_once(".go:").and_then(|(_, r)| r.split_once(": "))
                else {
                    continue;
                };
                if let Some(v) = go_values(msg) {
                    return Some(v);
                }
            }
            None
        }
    }
}

/// `got X, want Y` and its common spellings → (expected, observed).
fn go_values(msg: &str) -> Option<(String, String)> {
    let lower = msg.to_lowercase();
    for (got_kw, want_kw) in [
        ("got", "want"),
        ("have", "want"),
        ("got", "expected"),
        ("actual", "expected"),
    ] {
        let Some(g) = find_kw(&lower, got_kw) else {
            continue;
        };
        let Some(w) = find_kw(&lower, want_kw) else {
            continue;
        };
        let cut = |from: usize, until: Option<usize>| -> String {
            let s = &msg[from..until.unwrap_or(msg.len())];
            let s = s.trim_start_matches([':', '=', ' ']);
            let s = s.trim_end_matches([',', ';', ' ']);
            let s = s.strip_suffix(" but").unwrap_or(s);
            s.trim().to_owned()
        };
        let (got, want) = if g.0 < w.0 {
            (cut(g.1, Some(w.0)), cut(w.1, None))
        } else {
            (cut(g.1, None), cut(w.1, Some(g.0)))
        };
        if !got.is_empty() && !want.is_empty() {
            return Some((want, got));
        }
    }
    None
}

/// (start, end) of `kw` as a whole word in `s`.
fn find_kw(s: &str, kw: &str) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    s.match_indices(kw).map(|(i, _)| i).find_map(|i| {
        let before = i == 0 || !is_ident(b[i - 1]);
        let j = i + kw.len();
        let after = j >= b.len() || !is_ident(b[j]);
        (before && after).then_some((i, j))
    })
}

/// The spellings a printed value may have as a literal in the source.
fn literal_forms(v: &str) -> Vec<String> {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            let inner = &v[1..v.len() - 1];
            return vec![
                format!("\"{inner}\""),
                format!("'{inner}'"),
                format!("`{inner}`"),
            ];
        }
    }
    if v.parse::<f64>().is_ok()
        || matches!(
            v,
            "true" | "false" | "True" | "False" | "None" | "null" | "nil"
        )
        || v.starts_with(['[', '{', '('])
    {
        return vec![v.to_owned()];
    }
    vec![format!("\"{v}\""), format!("`{v}`"), v.to_owned()]
}

/// `observed` written as a literal in the style of `form` (the matched source spelling).
fn render_like(observed: &str, form: &str) -> String {
    let o = observed.trim();
    let inner = ['"', '\''].iter().find_map(|&q| {
        (o.len() >= 2 && o.starts_with(q) && o.ends_with(q)).then(|| &o[1..o.len() - 1])
    });
    let q = form
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'));
    match (q, inner) {
        (Some(q), Some(inner)) => format!("{q}{inner}{q}"),
        (Some(q), None)
            if !(o.parse::<f64>().is_ok() || matches!(o, "true" | "false" | "nil" | "null")) =>
        {
            format!("{q}{o}{q}")
        }
        _ => o.to_owned(),
    }
}

/// Occurrences of `form` in `text[a..b]` on token boundaries.
fn occurrences(text: &str, form: &str, a: usize, b: usize) -> Vec<usize> {
    let bytes = text.as_bytes();
    let quoted = form.starts_with(['"', '\'', '`']);
    text[a..b]
        .match_indices(form)
        .map(|(i, _)| a + i)
        .filter(|&i| {
            quoted || {
                let before = i == 0 || !(is_ident(bytes[i - 1]) || bytes[i - 1] == b'.');
                let j = i + form.len();
                let after = j >= bytes.len() || !(is_ident(bytes[j]) || bytes[j] == b'.');
                before && after
            }
        })
        .collect()
}

/// Replaces each failing check's expected value with the observed (buggy) one.
pub fn swap(work: &mut Work<'_>, fails: &[Failure], lang: Lang) -> Result<(), NotDerivable> {
    let mut changed: BTreeSet<(String, usize)> = BTreeSet::new();
    for f in fails {
        let (Some(file), Some(line)) = (f.file.clone(), f.line) else {
            return Err(format!(
                "{}: the report gives no failing line in a test file",
                f.id
            ));
        };
        let (expected, observed) = values(&f.text, lang).ok_or(format!(
            "{}: no expected/observed pair in the failure output",
            f.id
        ))?;
        if expected.contains("...") || observed.contains("...") || expected.contains('…') {
            return Err(format!("{}: the runner truncated the values", f.id));
        }
        if expected == observed {
            return Err(format!("{}: expected and observed print alike", f.id));
        }
        let mut text = work.text(&file).ok_or(format!("{file}: not in the tree"))?;
        let line = line as usize;
        // 1. The failing statement itself; 2. the test function; 3. the file: once only.
        let stmt = match lang {
            Lang::Py => statement_at(&text, line, lang),
            Lang::Rs => rs_assert_at(&text, line),
            Lang::Js => call_near(&text, line, &["expect("], 6, lang).map(|(s, e)| {
                let rest = &text[e..];
                let end = rest.find(['\n', ';']).map_or(text.len(), |n| e + n);
                (s, end)
            }),
            Lang::Go => None,
        };
        let func = locate_test(work, f, lang).map(|(_, a, z)| lines_range(&text, a, z));
        let mut done = false;
        let forms = literal_forms(&expected);
        if let Some((pos, form)) = stmt.and_then(|(s, e)| {
            forms
                .iter()
                .filter_map(|fm| {
                    occurrences(&text, fm, s, e)
                        .last()
                        .map(|&p| (p, fm.clone()))
                })
                .max()
        }) {
            text.replace_range(pos..pos + form.len(), &render_like(&observed, &form));
            done = true;
        }
        if !done {
            for (a, b) in [func, Some((0, text.len()))].into_iter().flatten() {
                let hits: Vec<(usize, String)> = forms
                    .iter()
                    .flat_map(|fm| {
                        occurrences(&text, fm, a, b)
                            .into_iter()
                            .map(|p| (p, fm.clone()))
                    })
                    .collect();
                if hits.len() == 1 {
                    let (pos, form) = &hits[0];
                    text.replace_range(*pos..pos + form.len(), &render_like(&observed, form));
                    done = true;
                    break;
                }
                if hits.len() > 1 {
                    break;
                }
            }
        }
        if !done {
            if changed.contains(&(file.clone(), line)) {
                continue;
            }
            return Err(format!(
                "{}: expected value {expected} not found once as a literal near {file}:{line}",
                f.id
            ));
        }
        changed.insert((file.clone(), line));
        work.put(&file, text);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_weakening_keeps_the_subject() {
        assert_eq!(
            weaken_py("assert f(1, 2) == [3]").as_deref(),
            Some("assert (f(1, 2)) is not None")
        );
        assert_eq!(
            weaken_py("self.assertEqual(a(1), 2)").as_deref(),
            Some("self.assertIsNotNone(a(1))")
        );
    }

    #[test]
    fn go_messages_give_expected_and_observed() {
        assert_eq!(go_values("got 3, want 6"), Some(("6".into(), "3".into())));
        assert_eq!(
            go_values("expected \"a\", got \"b\""),
            Some(("\"a\"".into(), "\"b\"".into()))
        );
    }

    #[test]
    fn rust_functions_are_found_with_attributes() {
        let src = "#[test]\nfn a() {\n    let s = \"}\";\n}\n\n#[test]\nfn b() {}\n";
        assert_eq!(find_function(src, "a", Lang::Rs), Some((1, 4)));
        assert_eq!(find_function(src, "b", Lang::Rs), Some((6, 7)));
    }

    #[test]
    fn python_defs_take_their_multiline_decorators() {
        let src = "x = 1\n\n@pytest.mark.parametrize(\n    \"a\",\n    [1, 2],\n)\ndef test_a(a):\n    assert a\n\n\ndef test_b():\n    pass\n";
        assert_eq!(find_function(src, "test_a", Lang::Py), Some((3, 8)));
        assert_eq!(find_function(src, "test_b", Lang::Py), Some((11, 12)));
    }

    #[test]
    fn rust_assert_macros_of_the_crate_are_weakened() {
        let mut w = Work {
            read: &|_| Some("#[test]\nfn t() {\n    assert_width!(\"a\", 1, 2);\n}\n".to_owned()),
            test_files: vec![],
            edits: Edits::default(),
        };
        let f = Failure {
            id: "t".into(),
            name: "t".into(),
            file: Some("x.rs".into()),
            line: Some(3),
            text: String::new(),
        };
        weaken(&mut w, &[f], Lang::Rs).unwrap();
        assert_eq!(
            w.edits.files["x.rs"],
            "#[test]\nfn t() {\n    let _ = (&\"a\", &1, &2);\n}\n"
        );
    }

    #[test]
    fn a_wrong_exception_widens_the_raises() {
        let src = "def test_x():\n    with pytest.raises(ValueError, match='m'):\n        f()\n";
        let (a, b, new) = widen_enclosing_raises(src, 3).unwrap();
        assert_eq!(
            &src[a..b],
            "    with pytest.raises(ValueError, match='m'):\n"
        );
        assert_eq!(new, "    with pytest.raises(Exception, match='m'):\n");
    }

    #[test]
    fn quoted_values_keep_the_source_quotes() {
        assert_eq!(render_like("'x'", "\"y\""), "\"x\"");
        assert_eq!(render_like("abc", "\"y\""), "\"abc\"");
        assert_eq!(render_like("3", "6"), "3");
    }
}
