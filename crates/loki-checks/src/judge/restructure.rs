//! Test identity through restructuring: a test the base ran and the head does not is not gone
//! when the head still runs the same test under another name, or its cases in another shape.
//!
//! - **Renamed and changed**: a missing test whose original fails on the new code, beside a new
//!   test in the same file with a similar name (half of its words shared, or one name the other's
//!   prefix), is that test edited: the new one is judged by running its form on the old code
//!   (weakened when it passes there, a change to declare when it fails), not as a deletion.
//! - **Renamed**: a missing test whose body (its item without its first line) is a new test's.
//! - **Regrouped**: a missing test whose cases are still run: every value its item holds (its
//!   row, or its function's literals) is in a test file of the same suite at head, whose tests all
//!   pass there (a table split into functions, functions merged into a table, subtests
//!   flattened into a loop, tests moved into submodules).
//!
//! A regrouped or renamed test is a fact (`test_moved`), never silently dropped.

use std::collections::BTreeSet;

use super::declare::Sides;
use super::matrix::{Fact, FactKind};
use crate::detect::{Check, CheckKind};
use crate::exec::CheckResult;
use crate::integrity::{Finding, FindingKind};
use crate::locate::Locator;
use crate::report::TestStatus;

/// The file (or package, or module) part of a test id: where a replacement must live.
fn home(kind: CheckKind, id: &str) -> &str {
    match kind {
        // A pytest file; a cargo test binary (tests move between a crate's modules).
        CheckKind::Pytest | CheckKind::Cargo | CheckKind::Nextest => {
            id.split("::").next().unwrap_or(id)
        }
        CheckKind::Go => id.find("/Test").map_or(id, |at| &id[..at]),
        _ => id.split(" > ").next().unwrap_or(id),
    }
}

/// The words of a test's own name (`test_formats_negative`, `TestFormatsNegative`, `formats
/// negative amounts`).
fn words(kind: CheckKind, id: &str) -> BTreeSet<String> {
    let leaf = super::identity::leaf(kind, id);
    let mut out = BTreeSet::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in leaf.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.insert(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.insert(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.insert(cur);
    }
    out.retain(|w| w != "test" && w != "tests");
    out
}

/// Whether two names are one test's, renamed.
fn similar(kind: CheckKind, a: &str, b: &str) -> bool {
    let (wa, wb) = (words(kind, a), words(kind, b));
    if wa.is_empty() || wb.is_empty() {
        return false;
    }
    let shared = wa.intersection(&wb).count();
    let (la, lb) = (
        super::identity::leaf(kind, a).to_ascii_lowercase(),
        super::identity::leaf(kind, b).to_ascii_lowercase(),
    );
    shared * 2 >= wa.len().max(wb.len()) || la.starts_with(&lb) || lb.starts_with(&la)
}

/// The tests at head that the base did not run, by check.
fn new_tests<'a>(base: &'a [CheckResult], head: &'a [CheckResult], check: &str) -> Vec<&'a str> {
    let at_base: BTreeSet<&str> = base
        .iter()
        .filter(|r| r.name == check)
        .flat_map(|r| r.tests.iter().map(|t| t.id.as_str()))
        .collect();
    head.iter()
        .filter(|r| r.name == check)
        .flat_map(|r| r.tests.iter())
        .filter(|t| t.status == TestStatus::Passed && !at_base.contains(t.id.as_str()))
        .map(|t| t.id.as_str())
        .collect()
}

/// Splits `findings` into those that stand, the facts of tests regrouped or renamed, and the new
/// tests that replace a missing one whose original fails on the new code (`(check, new id)`:
/// to be judged by N).
pub(super) fn restructured(
    findings: Vec<Finding>,
    checks: &[Check],
    base: &[CheckResult],
    head: &[CheckResult],
    sides: &Sides<'_>,
) -> (Vec<Finding>, Vec<Fact>, Vec<(String, String)>) {
    let (mut keep, mut facts, mut replaced) = (Vec::new(), Vec::new(), Vec::new());
    let mut claimed: BTreeSet<(String, String)> = BTreeSet::new();
    for f in findings {
        let (Some(test), true) = (f.test.clone(), f.kind == FindingKind::TestDeleted) else {
            keep.push(f);
            continue;
        };
        let Some(c) = checks.iter().find(|c| c.name == f.path) else {
            keep.push(f);
            continue;
        };
        let fresh = new_tests(base, head, &c.name);
        let hides = f.detail.contains("its original form fails on the new code");
        let near: Vec<&str> = fresh
            .iter()
            .copied()
            .filter(|n| home(c.kind, n) == home(c.kind, &test))
            .filter(|n| !claimed.contains(&(c.name.clone(), (*n).to_owned())))
            .collect();
        if hides {
            if let Some(n) = near.iter().find(|n| similar(c.kind, &test, n)) {
                claimed.insert((c.name.clone(), (*n).to_owned()));
                replaced.push((c.name.clone(), (*n).to_owned()));
                continue;
            }
            keep.push(f);
            continue;
        }
        let leaf = super::identity::leaf(c.kind, &test);
        if let Some(n) = near
            .iter()
            .find(|n| super::identity::leaf(c.kind, n) == leaf)
        {
            facts.push(Fact {
                kind: FactKind::TestMoved,
                check: c.name.clone(),
                test: test.clone(),
                detail: format!("{test} is now {n}: the same test under another path"),
            });
            continue;
        }
        // Still defined where it was, and not run: a skip, whatever spelled it (an attribute
        // the runner does not report, a filter, a build tag).
        let (hpath, hline) = Locator::new(sides.head_root).locate(c, &test);
        if let Some(line) = hline {
            keep.push(Finding {
                kind: FindingKind::NewlySkipped,
                detail: format!(
                    "{test} ran at base and no longer runs, though {hpath}:{line} still defines it"
                ),
                ..f
            });
            continue;
        }
        match regrouped(c, &test, &near, head, sides) {
            Some(how) => facts.push(Fact {
                kind: FactKind::TestMoved,
                check: c.name.clone(),
                test: test.clone(),
                detail: how,
            }),
            None => keep.push(f),
        }
    }
    (keep, facts, replaced)
}

/// How a missing test is still run at head, if it is (see the module doc).
fn regrouped(
    c: &Check,
    test: &str,
    near: &[&str],
    head: &[CheckResult],
    sides: &Sides<'_>,
) -> Option<String> {
    let (bpath, bline) = sides.base_locator().locate(c, test);
    let bline = bline?;
    let item = super::declare::item_at(&bpath, &sides.base_text(&bpath)?, bline);
    // Renamed: the same body under another name.
    let body = |t: &str| {
        t.lines()
            .skip(1)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut locator = Locator::new(sides.head_root);
    for n in near {
        let (hpath, hline) = locator.locate(c, n);
        if let Some(l) = hline
            && let Some(t) = sides.head_text(&hpath)
            && body(&super::declare::item_at(&hpath, &t, l)) == body(&item)
            && !body(&item).trim().is_empty()
        {
            return Some(format!("{test} is now {n}: the same test renamed"));
        }
    }
    // Regrouped: its values all in the suite's test files at head, which all pass.
    let values = literal_tokens(&item);
    // Small numbers are in every test file; only values that identify cases identify them.
    if !values.iter().any(|v| v.len() >= 3) {
        return None;
    }
    let failing = head
        .iter()
        .filter(|r| r.name == c.name)
        .any(|r| r.tests.iter().any(|t| t.status == TestStatus::Failed));
    if failing {
        return None;
    }
    // Its values must be in tests that ran and passed at head, not merely in the file: a test
    // renamed out of the runner's sight keeps its text where it was.
    let home_of = home(c.kind, test);
    let mut items: BTreeSet<(String, u32)> = BTreeSet::new();
    for t in head
        .iter()
        .filter(|r| r.name == c.name)
        .flat_map(|r| r.tests.iter())
        .filter(|t| t.status == TestStatus::Passed && home(c.kind, &t.id) == home_of)
        .take(400)
    {
        if let (p, Some(l)) = locator.locate(c, &t.id) {
            items.insert((p, l));
        }
    }
    let text: String = items
        .iter()
        .filter_map(|(p, l)| Some(super::declare::item_at(p, &sides.head_text(p)?, *l)))
        .collect::<Vec<_>>()
        .join("\n");
    let there = literal_tokens(&text);
    values.iter().all(|v| there.contains(v)).then(|| {
        format!(
            "{test} is gone, and every value it checked is checked by tests that pass at head: restructured, not deleted"
        )
    })
}

/// The literal tokens of some test code: quoted strings' contents and numbers (the values a
/// test checks, whatever shape holds them).
fn literal_tokens(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c == '"' || c == '\'' || c == '`')
            && let Some(len) = chars[i + 1..].iter().position(|&d| d == c)
        {
            let s: String = chars[i + 1..i + 1 + len].iter().collect();
            if !s.trim().is_empty() {
                out.insert(s);
            }
            i += len + 2;
            continue;
        }
        let starts = c.is_ascii_digit()
            && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_'));
        if starts {
            let mut j = i;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                j += 1;
            }
            out.insert(
                chars[i..j]
                    .iter()
                    .collect::<String>()
                    .trim_end_matches('.')
                    .to_owned(),
            );
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_tests_are_similar_and_others_are_not() {
        assert!(similar(
            CheckKind::Node,
            "test/money.test.js > formats negative amounts",
            "test/money.test.js > formats negative amounts in accounting style"
        ));
        assert!(similar(
            CheckKind::Pytest,
            "t.py::test_parse_date",
            "t.py::test_parse_dates"
        ));
        assert!(!similar(
            CheckKind::Pytest,
            "t.py::test_parse_date",
            "t.py::test_render"
        ));
        assert_eq!(
            home(CheckKind::Go, "example.com/m/pkg/TestX/row"),
            "example.com/m/pkg"
        );
    }

    #[test]
    fn literal_tokens_are_the_values_whatever_the_shape() {
        let table = literal_tokens("{\"small\", 1, 2, 3},\n{\"large\", 100, 200, 300},");
        let split = literal_tokens(
            "if got := Add(1, 2); got != 3 {}\nif got := Add(100, 200); got != 300 {}",
        );
        assert!(
            ["1", "2", "3", "100", "200", "300"]
                .iter()
                .all(|v| split.contains(*v) && table.contains(*v))
        );
    }
}
