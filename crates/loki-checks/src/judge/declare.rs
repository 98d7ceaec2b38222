//! Changes whose intent must be declared: intent cannot be read from a tree, so the judge names
//! them with their evidence and the agent (or the person) says whether they were asked for.
//!
//! - [`DeclareKind::ExpectationChanged`]: an existing test expects something else now. Its
//!   original form fails on the new code and its new form fails on the old code (the matrix's O and
//!   N runs), in whatever spelling the expectation takes: an assert's value, a table row, a
//!   doctest's output, a snapshot or golden file, an inline snapshot, a test inside a source file.
//! - [`DeclareKind::RemovedWithCode`]: a test was removed, its original form fails on the new code,
//!   and the code it calls was removed by the same change (a definition the base's code had, the
//!   head's code does not, and the test's body names). A removal whose code still exists stays a
//!   `test_deleted` finding: the deletion hides a failure.
//!
//! [`describe`] fills in each one's place and its old and new expectation as values: the lines of
//! the test (or of the test data it reads) that the change removed and added, so a person reads
//! `assert add(2, 2) == 4` → `assert add(2, 2) == 5`, not only a test's name.
//!
//! # Invariants
//! Reading is bounded ([`SHOWN_LINES`] lines a side, [`LINE_CHARS`] characters a line) and never
//! fails the judgement: a test that cannot be located keeps its check as its path and says so.

use std::collections::BTreeSet;

use loki_git::Git;
use serde::{Deserialize, Serialize};

use loki_protocol::{Finding, FindingKind};
use loki_runner::detect::Check;
use loki_runner::locate::{Locator, Source};

/// Lines of each side shown per change.
pub const SHOWN_LINES: usize = 8;
/// Characters of one shown line.
pub const LINE_CHARS: usize = 200;

/// Why a change must be declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeclareKind {
    /// What an existing test expects changed.
    ExpectationChanged,
    /// A test was removed together with the code it tests.
    RemovedWithCode,
}

impl DeclareKind {
    /// The serialised name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            DeclareKind::ExpectationChanged => "expectation_changed",
            DeclareKind::RemovedWithCode => "removed_with_code",
        }
    }
}

/// One change to declare.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Declarable {
    pub kind: DeclareKind,
    pub check: String,
    /// The test's id as its runner reports it (the base's id for a removed test).
    pub test: String,
    /// Where the test is (the base's file for a removed test); the check's directory when it
    /// could not be located.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The test's (or its data's) lines the change removed: what it expected.
    pub was: Vec<String>,
    /// The lines the change added: what it expects now (empty for a removal).
    pub now: Vec<String>,
    pub detail: String,
}

impl Declarable {
    #[must_use]
    pub fn new(kind: DeclareKind, check: &str, test: &str, detail: String) -> Declarable {
        Declarable {
            kind,
            check: check.to_owned(),
            test: test.to_owned(),
            path: check.to_owned(),
            line: None,
            was: Vec::new(),
            now: Vec::new(),
            detail,
        }
    }

    /// Whether a declaration naming `name` names this test: its id, or the id's last part
    /// (`test_total` for `tests/test_a.py::test_total`, `TestAdd/two` for a Go subtest).
    #[must_use]
    pub fn named_by(&self, name: &str) -> bool {
        names_test(&self.test, name)
    }
}

/// Whether `name`, as a person or agent typed it, names test `id`.
#[must_use]
pub fn names_test(id: &str, name: &str) -> bool {
    let name = name.trim();
    if name.is_empty() {
        return false;
    }
    if id == name {
        return true;
    }
    ["::", "/", ".", " > ", " "]
        .iter()
        .any(|sep| id.ends_with(&format!("{sep}{name}")))
}

/// The test-owned files the change touched, both sides' text (for expectations that live in
/// data: snapshots, golden files, tables in JSON).
#[derive(Debug, Clone)]
pub struct DataChange {
    pub path: String,
    pub base: Option<String>,
    pub head: Option<String>,
}

/// What [`describe`] and [`removed_with_code`] read.
#[allow(
    missing_debug_implementations,
    reason = "it holds a git handle and borrowed views, none of which a log needs"
)]
pub struct Sides<'a> {
    pub git: &'a Git,
    pub base_tree: &'a str,
    pub head_root: &'a std::path::Path,
    pub checks: &'a [Check],
    /// Changed test data (not code) with both sides.
    pub data: &'a [DataChange],
}

impl Sides<'_> {
    pub(super) fn base_locator(&self) -> Locator<'_> {
        Locator::over(Source::Tree {
            paths: self.git.ls_tree(self.base_tree).unwrap_or_default(),
            read: Box::new(|p| self.git.show_file(self.base_tree, p).ok().flatten()),
        })
    }

    pub(super) fn base_text(&self, path: &str) -> Option<String> {
        self.git
            .show_file(self.base_tree, path)
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    pub(super) fn head_text(&self, path: &str) -> Option<String> {
        std::fs::read(self.head_root.join(path))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}

impl Sides<'_> {
    /// Whether the base's tree defines test `id` of `check` (it can be located there).
    #[must_use]
    pub fn defined_at_base(&self, check: &str, id: &str) -> bool {
        self.checks
            .iter()
            .find(|c| c.name == check)
            .is_some_and(|c| self.base_locator().locate(c, id).1.is_some())
    }

    /// Whether test `id` of `check` reads differently at head than at base (its item's text, or
    /// its absence on one side). A test that cannot be located is taken as changed: only a test
    /// known to be unchanged is spared claims about its edit.
    #[must_use]
    pub fn form_changed(&self, check: &str, id: &str) -> bool {
        let Some(c) = self.checks.iter().find(|c| c.name == check) else {
            return true;
        };
        let (hpath, hline) = Locator::new(self.head_root).locate(c, id);
        let (bpath, bline) = self.base_locator().locate(c, id);
        let (Some(hl), Some(bl)) = (hline, bline) else {
            return true;
        };
        if hpath != bpath {
            return true;
        }
        let head = self.head_text(&hpath).map(|t| item_at(&hpath, &t, hl));
        let base = self.base_text(&bpath).map(|t| item_at(&bpath, &t, bl));
        head.is_none() || head != base
    }
}

/// Fills in each change's place and its old and new lines.
pub fn describe(items: &mut [Declarable], sides: &Sides<'_>) {
    let mut head = Locator::new(sides.head_root);
    let mut base = sides.base_locator();
    for d in items.iter_mut() {
        let Some(check) = sides.checks.iter().find(|c| c.name == d.check) else {
            continue;
        };
        let (hpath, hline) = if d.kind == DeclareKind::RemovedWithCode {
            (String::new(), None)
        } else {
            head.locate(check, &d.test)
        };
        let (bpath, bline) = base.locate(check, &d.test);
        let old = bline.and_then(|l| sides.base_text(&bpath).map(|t| item_at(&bpath, &t, l)));
        let new = hline.and_then(|l| sides.head_text(&hpath).map(|t| item_at(&hpath, &t, l)));
        let (mut was, mut now) =
            changed_lines(old.as_deref().unwrap_or(""), new.as_deref().unwrap_or(""));
        if d.kind == DeclareKind::ExpectationChanged && was.is_empty() && now.is_empty() {
            // The test reads as before: its expectation lives in data it reads.
            for c in sides.data {
                let (w, n) = changed_lines(
                    c.base.as_deref().unwrap_or(""),
                    c.head.as_deref().unwrap_or(""),
                );
                if !w.is_empty() || !n.is_empty() {
                    was.extend(w.into_iter().map(|l| format!("{}: {l}", c.path)));
                    now.extend(n.into_iter().map(|l| format!("{}: {l}", c.path)));
                }
            }
        }
        was.truncate(SHOWN_LINES);
        now.truncate(SHOWN_LINES);
        d.was = was;
        d.now = now;
        if let Some(l) = hline {
            d.path = hpath;
            d.line = Some(l);
        } else if let Some(l) = bline {
            d.path = bpath;
            d.line = Some(l);
        } else {
            d.path.clone_from(&check.dir);
        }
    }
}

/// The lines of `new` that `old` lacks and the reverse, trimmed and shortened.
fn changed_lines(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
    use similar::{ChangeTag, TextDiff};
    let (mut was, mut now) = (Vec::new(), Vec::new());
    if old == new {
        return (was, now);
    }
    for c in TextDiff::from_lines(old, new).iter_all_changes() {
        let line = c.value().trim();
        if line.is_empty() {
            continue;
        }
        let line: String = line.chars().take(LINE_CHARS).collect();
        match c.tag() {
            ChangeTag::Delete => was.push(line),
            ChangeTag::Insert => now.push(line),
            ChangeTag::Equal => {}
        }
    }
    (was, now)
}

/// The `test_deleted` findings whose test was removed with the code it calls, as removals to
/// declare; the other findings are returned as they were. `removed` are the definitions the base's
/// code had and the head's code does not.
pub fn removed_with_code(
    findings: Vec<Finding>,
    removed: &BTreeSet<String>,
    sides: &Sides<'_>,
) -> (Vec<Finding>, Vec<Declarable>) {
    if removed.is_empty() {
        return (findings, Vec::new());
    }
    let mut base = sides.base_locator();
    let (mut keep, mut out) = (Vec::new(), Vec::new());
    for f in findings {
        let hides_failure = f.kind == FindingKind::TestDeleted
            && f.detail.contains("its original form fails on the new code");
        let (Some(test), true) = (f.test.clone(), hides_failure) else {
            keep.push(f);
            continue;
        };
        let Some(check) = sides.checks.iter().find(|c| c.name == f.path) else {
            keep.push(f);
            continue;
        };
        let (path, line) = base.locate(check, &test);
        let body = line.and_then(|l| sides.base_text(&path).map(|t| item_at(&path, &t, l)));
        let gone: Vec<&String> = body
            .as_deref()
            .map(|b| {
                let words = identifiers(b);
                removed
                    .iter()
                    .filter(|r| words.contains(r.as_str()))
                    .collect()
            })
            .unwrap_or_default();
        if gone.is_empty() {
            keep.push(f);
            continue;
        }
        let names: Vec<&str> = gone.iter().map(|s| s.as_str()).take(5).collect();
        out.push(Declarable::new(
            DeclareKind::RemovedWithCode,
            &check.name,
            &test,
            format!(
                "{test} was removed together with the code it tests ({} no longer defined)",
                names.join(", ")
            ),
        ));
    }
    (keep, out)
}

/// The text of the test item that starts at `line` (1-based) of `text`: the outermost syntax
/// node starting on that line (a function with its decorators' line, a `test(...)` call, a table
/// row), or the line alone when the file cannot be parsed.
pub(super) fn item_at(path: &str, text: &str, line: u32) -> String {
    items_at(path, text, &[line]).pop().unwrap_or_default()
}

/// [`item_at`] for several lines of one file, parsing it once.
pub(super) fn items_at(path: &str, text: &str, lines: &[u32]) -> Vec<String> {
    let text = loki_syntax::lex::normalize(text.as_bytes());
    let alone = |row: usize| text.lines().nth(row).unwrap_or("").to_owned();
    let rows: Vec<usize> = lines.iter().map(|l| l.saturating_sub(1) as usize).collect();
    let Some(ast) = loki_syntax::ast::parse(path, &text) else {
        return rows.into_iter().map(alone).collect();
    };
    // The widest node starting on each wanted row.
    let mut best: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
    for n in ast.all(ast.root()) {
        let row = n.start_position().row;
        if n.kind() == "comment" || !rows.contains(&row) {
            continue;
        }
        let span = (n.start_byte(), n.end_byte());
        let b = best.entry(row).or_insert(span);
        if span.1 - span.0 > b.1 - b.0 {
            *b = span;
        }
    }
    // A Java method's name line is not where it starts: its annotations (`@Test`,
    // `@CsvSource({..})`, `@MethodSource`) come first and belong to it.
    if ast.grammar == loki_syntax::ast::Grammar::Java {
        for n in ast.all(ast.root()) {
            let (start, end) = (n.start_position().row, n.end_position().row);
            if n.kind() != "method_declaration" {
                continue;
            }
            for row in rows.iter().filter(|r| (start..=end).contains(*r)) {
                let name_row = n
                    .child_by_field_name("name")
                    .map(|x| x.start_position().row);
                if name_row == Some(*row) {
                    best.insert(*row, (n.start_byte(), n.end_byte()));
                }
            }
        }
    }
    rows.into_iter()
        .map(|row| {
            best.get(&row)
                .and_then(|(s, e)| text.get(*s..*e).map(str::to_owned))
                .unwrap_or_else(|| alone(row))
        })
        .collect()
}

/// The identifiers of some code (words that start with a letter or `_`).
fn identifiers(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_alphabetic() || c == '_'))
        .collect()
}

/// The names a source file defines (functions, methods, types, constants), from its syntax
/// tree; nothing when it cannot be parsed.
#[must_use]
pub fn definitions(path: &str, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(ast) = loki_syntax::ast::parse(path, &loki_syntax::lex::normalize(text.as_bytes()))
    else {
        return out;
    };
    for n in ast.all(ast.root()) {
        let k = n.kind();
        let defines = k.ends_with("_definition")
            || k.ends_with("_declaration")
            || k.ends_with("_item")
            || k == "type_spec"
            || k == "method_definition";
        if !defines {
            continue;
        }
        if let Some(name) = n.child_by_field_name("name") {
            let t = ast.text_of(name);
            // Short names (`f`, `x`) say nothing about which code a test calls.
            if t.len() >= 3 {
                out.insert(t.to_owned());
            }
        }
    }
    out
}

/// How much a line of test code pins down: its comparisons and the literal values it checks.
fn specificity(line: &str) -> usize {
    const CHECKS: &[&str] = &[
        "==",
        "!=",
        "<=",
        ">=",
        "assert_eq",
        "assert_ne",
        "assertEqual",
        "assertEquals",
        "toBe(",
        "toEqual(",
        "toStrictEqual(",
        "toMatch",
        "toThrow(",
        "strictEqual",
        "deepEqual",
        "deepStrictEqual",
        "Equal(",
        "DeepEqual",
        "assertIn",
        "assertRaises",
        "pytest.raises",
        "approx(",
    ];
    let checks: usize = CHECKS.iter().map(|c| line.matches(c).count()).sum();
    let literals = line
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '"' || c == '\''))
        .filter(|t| {
            t.starts_with(|c: char| c.is_ascii_digit()) || t.starts_with('"') || t.starts_with('\'')
        })
        .count();
    checks * 2 + literals
}

/// Tests made weaker while no code changed: each test file whose removed lines pinned down more
/// than its added lines do. `files` are the modified test files, both sides' text; called only
/// when the change touched no code.
#[must_use]
pub fn weakened_without_code(files: &[(String, String, String)]) -> Vec<super::Fact> {
    let mut out = Vec::new();
    for (path, base, head) in files {
        let (was, now) = changed_lines(base, head);
        let before: usize = was.iter().map(|l| specificity(l)).sum();
        let after: usize = now.iter().map(|l| specificity(l)).sum();
        if before > after {
            let show = |v: &[String]| {
                v.iter()
                    .take(3)
                    .map(|l| format!("`{l}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out.push(super::Fact {
                kind: super::FactKind::WeakenedWithoutCodeChange,
                check: String::new(),
                test: path.clone(),
                detail: format!(
                    "{path} checks less than it did ({} → {}) while no code changed: nothing fails because of it now, but it will catch less from now on",
                    show(&was),
                    if now.is_empty() { "nothing".to_owned() } else { show(&now) }
                ),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declaration_names_a_test_by_its_id_or_its_last_part() {
        let d = Declarable::new(
            DeclareKind::ExpectationChanged,
            "pytest",
            "tests/test_a.py::test_total",
            String::new(),
        );
        assert!(d.named_by("tests/test_a.py::test_total"));
        assert!(d.named_by("test_total"));
        assert!(!d.named_by("total"));
        assert!(!d.named_by(""));
        assert!(names_test("example.com/m/calc/TestAdd/two", "TestAdd/two"));
        assert!(names_test("tests::adds_up", "adds_up"));
        assert!(names_test("test/a.test.js > sums > adds", "adds"));
    }

    #[test]
    fn changed_lines_are_the_values_not_the_names() {
        let (was, now) = changed_lines(
            "def test_add():\n    assert add(2, 2) == 4\n",
            "def test_add():\n    assert add(2, 2) == 5\n",
        );
        assert_eq!(was, ["assert add(2, 2) == 4"]);
        assert_eq!(now, ["assert add(2, 2) == 5"]);
    }

    #[test]
    fn definitions_are_read_from_the_syntax_tree() {
        let d = definitions(
            "m.py",
            "def parse_pair(t):\n    pass\n\nclass Point:\n    def move(self):\n        pass\n",
        );
        assert!(d.contains("parse_pair") && d.contains("Point") && d.contains("move"));
        let g = definitions("m.go", "package m\n\nfunc Total(x int) int { return x }\n");
        assert!(g.contains("Total"));
    }
}
