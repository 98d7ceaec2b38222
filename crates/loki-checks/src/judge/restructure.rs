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

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::declare::Sides;
use super::matrix::{Fact, FactKind};
use loki_protocol::CheckKind;
use loki_protocol::{Finding, FindingKind};
use loki_runner::TestStatus;
use loki_runner::detect::Check;
use loki_runner::exec::CheckResult;
use loki_runner::ids::home;
use loki_runner::locate::{Locator, case_source};

/// The items of the tests passing at head, by check and home: read once per judgement.
type Items = RefCell<BTreeMap<(String, String), Rc<Vec<String>>>>;

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
    // A word kept, or respelled (`kilobytes` → `kibibytes`, `colour` → `color`).
    let shared = wa
        .iter()
        .filter(|w| wb.contains(*w) || wb.iter().any(|v| respelled(w, v)))
        .count();
    let (la, lb) = (
        super::identity::leaf(kind, a).to_ascii_lowercase(),
        super::identity::leaf(kind, b).to_ascii_lowercase(),
    );
    shared * 2 >= wa.len().max(wb.len()) || la.starts_with(&lb) || lb.starts_with(&la)
}

/// Whether two words are one word respelled: the same first two letters and an edit distance
/// of at most a quarter of the shorter (at least one).
fn respelled(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() < 4 || b.len() < 4 || a[..2] != b[..2] {
        return false;
    }
    let limit = (a.len().min(b.len()) / 4).max(1);
    // Levenshtein distance, one row at a time.
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut row = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            row.push(sub.min(prev[j + 1] + 1).min(row[j] + 1));
        }
        prev = row;
    }
    prev[b.len()] <= limit
}

/// The tests at head that the base did not run, by check.
fn new_tests<'a>(base: &'a [CheckResult], head: &'a [CheckResult], check: &str) -> Vec<&'a str> {
    let at_base: BTreeSet<&str> = base
        .iter()
        .filter(|r| r.run.name == check)
        .flat_map(|r| r.tests.iter().map(|t| t.id.as_str()))
        .collect();
    head.iter()
        .filter(|r| r.run.name == check)
        .flat_map(|r| r.tests.iter())
        .filter(|t| t.status == TestStatus::Passed && !at_base.contains(t.id.as_str()))
        .map(|t| t.id.as_str())
        .collect()
}

/// The detail of a `test_deleted` finding whose test's original form fails on the new code.
const HIDES: &str = "its original form fails on the new code";

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
    let mut judge = Restructure {
        checks,
        base,
        head,
        sides,
        claimed: BTreeSet::new(),
        items: RefCell::default(),
        // One locator per side for the whole judgement: each reads a file once.
        head_loc: Locator::new(sides.head_root),
        base_loc: sides.base_locator(),
        hiding: hiding(&findings, checks),
    };
    for f in findings {
        match judge.one(f) {
            Outcome::Stands(f) => keep.push(f),
            Outcome::Moved(fact) => facts.push(fact),
            Outcome::Replaced(check, id) => replaced.push((check, id)),
        }
    }
    (keep, facts, replaced)
}

/// How many tests of each (check, home) are gone while their originals fail on the new code:
/// one gone beside one new is one test renamed and edited, whatever its names.
fn hiding(findings: &[Finding], checks: &[Check]) -> BTreeMap<(String, String), usize> {
    let mut hiding: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in findings {
        if let (Some(test), FindingKind::TestDeleted) = (&f.test, f.kind)
            && f.detail.contains(HIDES)
            && let Some(c) = checks.iter().find(|c| c.name == f.path)
        {
            *hiding
                .entry((c.name.clone(), home(c.kind, test).to_owned()))
                .or_default() += 1;
        }
    }
    hiding
}

/// What became of one finding.
enum Outcome {
    /// It stands (perhaps as another kind of finding).
    Stands(Finding),
    /// Its test was regrouped or renamed.
    Moved(Fact),
    /// Its test was renamed and edited: the new test `(check, id)` is judged by N.
    Replaced(String, String),
}

/// What judging the findings one by one shares: the runs, the trees, the new tests already
/// claimed as another's replacement, and what was read.
struct Restructure<'a> {
    checks: &'a [Check],
    base: &'a [CheckResult],
    head: &'a [CheckResult],
    sides: &'a Sides<'a>,
    claimed: BTreeSet<(String, String)>,
    items: Items,
    head_loc: Locator<'a>,
    base_loc: Locator<'a>,
    hiding: BTreeMap<(String, String), usize>,
}

impl Restructure<'_> {
    /// Judges one finding (see the module doc).
    fn one(&mut self, f: Finding) -> Outcome {
        let (Some(test), true) = (f.test.clone(), f.kind == FindingKind::TestDeleted) else {
            return Outcome::Stands(f);
        };
        let checks = self.checks;
        let Some(c) = checks.iter().find(|c| c.name == f.path) else {
            return Outcome::Stands(f);
        };
        let fresh = new_tests(self.base, self.head, &c.name);
        let near: Vec<&str> = fresh
            .iter()
            .copied()
            .filter(|n| home(c.kind, n) == home(c.kind, &test))
            .filter(|n| !self.claimed.contains(&(c.name.clone(), (*n).to_owned())))
            .collect();
        if f.detail.contains(HIDES) {
            return match self.replacement(c, &test, &near) {
                Some(n) => Outcome::Replaced(c.name.clone(), n),
                None => Outcome::Stands(f),
            };
        }
        let moved = |detail: String| {
            Outcome::Moved(Fact {
                kind: FactKind::TestMoved,
                check: c.name.clone(),
                test: test.clone(),
                detail,
            })
        };
        let leaf = super::identity::leaf(c.kind, &test);
        if let Some(n) = near
            .iter()
            .find(|n| super::identity::leaf(c.kind, n) == leaf)
        {
            return moved(format!(
                "{test} is now {n}: the same test under another path"
            ));
        }
        // Still defined where it was, and not run: a skip, whatever spelled it (an attribute
        // the runner does not report, a filter, a build tag).
        let (hpath, hline) = self.head_loc.locate(c, &test);
        if let Some(line) = hline {
            return Outcome::Stands(Finding {
                kind: FindingKind::NewlySkipped,
                detail: format!(
                    "{test} ran at base and no longer runs, though {hpath}:{line} still defines it"
                ),
                ..f
            });
        }
        // Only a test that passed at base can have moved: one that failed there and is gone
        // now changed what it expects (its cases' values may all still be in the file, the
        // expected one among them for another case).
        let passed_at_base = self.base.iter().filter(|r| r.run.name == c.name).any(|r| {
            r.tests
                .iter()
                .any(|t| t.id == test && t.status == TestStatus::Passed)
        });
        if !passed_at_base {
            return Outcome::Stands(f);
        }
        let locs = (&mut self.head_loc, &mut self.base_loc);
        match regrouped(c, &test, &near, self.head, self.sides, &self.items, locs) {
            Some(how) => moved(how),
            None => Outcome::Stands(f),
        }
    }

    /// The new test among `near` that replaces `test`, gone while its original fails on the new
    /// code: the one new beside the one gone, or one of a similar name. Claimed once.
    fn replacement(&mut self, c: &Check, test: &str, near: &[&str]) -> Option<String> {
        let one_for_one = near.len() == 1
            && self
                .hiding
                .get(&(c.name.clone(), home(c.kind, test).to_owned()))
                == Some(&1);
        let n = near
            .iter()
            .find(|n| one_for_one || similar(c.kind, test, n))?;
        self.claimed.insert((c.name.clone(), (*n).to_owned()));
        Some((*n).to_owned())
    }
}

/// How a missing test is still run at head, if it is (see the module doc).
fn regrouped(
    c: &Check,
    test: &str,
    near: &[&str],
    head: &[CheckResult],
    sides: &Sides<'_>,
    items: &Items,
    (locator, base_loc): (&mut Locator<'_>, &mut Locator<'_>),
) -> Option<String> {
    // A suite with a failing test at head may have lost a case among its files' values.
    let failing = head
        .iter()
        .filter(|r| r.run.name == c.name)
        .any(|r| r.tests.iter().any(|t| t.status == TestStatus::Failed));
    let (bpath, bline) = base_loc.locate(c, test);
    let Some(bline) = bline else {
        // A name no line spells: generated from data. Its case is what the name holds beyond
        // the file's code (its identifiers, outside its strings).
        let code = without_strings(&sides.base_text(&bpath)?);
        let case = case_in_name(c.kind, test, &code);
        return (case.len() >= 2)
            .then(|| checked_together(c, test, &case, head, sides, items))
            .flatten();
    };
    let base_text = sides.base_text(&bpath)?;
    let mut item = super::declare::item_at(&bpath, &base_text, bline);
    // A parameterized test whose cases are elsewhere (JUnit's `@MethodSource` factory): its
    // item is also that function's.
    if let Some(source) = case_source(c.kind, test, &item)
        && let Some(at) = base_text
            .lines()
            .position(|l| l.contains(&format!(" {}(", source.function)) && !l.contains('@'))
    {
        let line = u32::try_from(at + 1).unwrap_or(u32::MAX);
        if line != bline {
            // The annotation names the factory; its string is not a case's value.
            item = item
                .lines()
                .filter(|l| !l.trim_start().starts_with(source.annotation))
                .collect::<Vec<_>>()
                .join("\n");
            item.push('\n');
            item.push_str(&super::declare::item_at(&bpath, &base_text, line));
        }
    }
    // Renamed: the same body under another name.
    let body = |t: &str| {
        t.lines()
            .skip(1)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n")
    };
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
    // A test generated from data (`for (const [n, want] of cases) test(`roman(${n})`, ..)`)
    // carries its case in its name: the name's values the item does not spell.
    let case = case_in_name(c.kind, test, &item);
    // Regrouped: its values all in the suite's test files at head, which all pass.
    let values = literal_tokens(&item);
    // Small numbers are in every test file; only values that identify cases identify them.
    if case.len() < 2 && !values.iter().any(|v| v.len() >= 3) {
        return None;
    }
    // One passing test checking the whole case is evidence enough, whatever else fails.
    if case.len() >= 2
        && let Some(how) = checked_together(c, test, &case, head, sides, items)
    {
        return Some(how);
    }
    if failing {
        return None;
    }
    let texts = passing_items(c, test, head, sides, items);
    let there = literal_tokens(&texts.join("\n"));
    values.iter().all(|v| there.contains(v)).then(|| {
        format!(
            "{test} is gone, and every value it checked is checked by tests that pass at head: restructured, not deleted"
        )
    })
}

/// `some` when one test passing at head, in the home of `test`, checks every value of `case`.
fn checked_together(
    c: &Check,
    test: &str,
    case: &BTreeSet<String>,
    head: &[CheckResult],
    sides: &Sides<'_>,
    items: &Items,
) -> Option<String> {
    let texts = passing_items(c, test, head, sides, items);
    let at = texts.iter().find(|t| {
        let there = literal_tokens(t);
        case.iter().all(|v| there.contains(v))
    })?;
    let first = at.lines().next().unwrap_or("").trim();
    Some(format!(
        "{test} is gone, and its case ({}) is checked by a test that passes at head (`{first}`): restructured, not deleted",
        case.iter().cloned().collect::<Vec<_>>().join(", ")
    ))
}

/// The items of the tests that ran and passed at head in the home of `test` (not merely the
/// file: a test renamed out of the runner's sight keeps its text where it was).
fn passing_items(
    c: &Check,
    test: &str,
    head: &[CheckResult],
    sides: &Sides<'_>,
    cache: &Items,
) -> Rc<Vec<String>> {
    let home_of = home(c.kind, test);
    let key = (c.name.clone(), home_of.to_owned());
    if let Some(hit) = cache.borrow().get(&key) {
        return Rc::clone(hit);
    }
    let mut locator = Locator::new(sides.head_root);
    let mut lines: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for t in head
        .iter()
        .filter(|r| r.run.name == c.name)
        .flat_map(|r| r.tests.iter())
        .filter(|t| t.status == TestStatus::Passed && home(c.kind, &t.id) == home_of)
        .take(400)
    {
        if let (p, Some(l)) = locator.locate(c, &t.id) {
            lines.entry(p).or_default().insert(l);
        }
    }
    // One parse per file, whatever the number of tests in it.
    let items: Vec<String> = lines
        .iter()
        .filter_map(|(p, ls)| {
            let ls: Vec<u32> = ls.iter().copied().collect();
            Some(super::declare::items_at(p, &sides.head_text(p)?, &ls))
        })
        .flatten()
        .collect();
    let items = Rc::new(items);
    cache.borrow_mut().insert(key, Rc::clone(&items));
    items
}

/// Code without its quoted strings (their contents are data, not code), except the text of the
/// ones that name generated tests: a template's own text (`` `add(${a}) is ${want}` `` keeps
/// `add(` and `) is `) and a format (`'ordinal(%i) is %s'` of `test.each`, `'$a + $b'`).
fn without_strings(text: &str) -> String {
    let kept = keep_formats(text);
    let text = kept.as_str();
    let mut out = String::with_capacity(text.len());
    let mut quote: Option<char> = None;
    let mut in_expr = false;
    let mut prev = ' ';
    for ch in text.chars() {
        match quote {
            Some('`') if in_expr => in_expr = ch != '}',
            Some('`') if ch == '{' && prev == '$' => in_expr = true,
            Some(q) if ch == q => quote = None,
            Some('`') if ch != '$' => out.push(ch),
            Some(_) => {}
            None if matches!(ch, '"' | '\'' | '`') => quote = Some(ch),
            None => out.push(ch),
        }
        prev = ch;
    }
    out
}

/// The values a generated test's name holds that its code does not spell: the tokens of its
/// own name (numbers, words) absent from the item that generated it.
fn case_in_name(kind: CheckKind, test: &str, item: &str) -> BTreeSet<String> {
    // The raw name past its file or package: normalising would drop the numbers.
    let leaf = test.strip_prefix(home(kind, test)).unwrap_or(test);
    let spelled: BTreeSet<&str> = item
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        // Its words; its numbers are data (a table's rows) like the name's.
        .filter(|t| t.starts_with(|c: char| c.is_alphabetic() || c == '_'))
        .collect();
    leaf.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-' || c == '_'))
        .map(|t| t.trim_matches(|c| c == '.' || c == '-'))
        .filter(|t| !t.is_empty() && !spelled.contains(t))
        .map(str::to_owned)
        .collect()
}

/// `text` with the quotes around format strings (`'%s is %i'`, `"$a plus $b"`) removed, so
/// that [`without_strings`] keeps their words.
fn keep_formats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['\'', '"']) {
        let q = rest[at..].chars().next().unwrap_or('"');
        let Some(len) = rest[at + 1..].find(q) else {
            break;
        };
        let inner = &rest[at + 1..at + 1 + len];
        out.push_str(&rest[..at]);
        let format = !inner.contains('\n')
            && inner.as_bytes().windows(2).any(|w| {
                (w[0] == b'%' && b"sidpfjo#".contains(&w[1]))
                    || (w[0] == b'$' && w[1].is_ascii_alphabetic())
            });
        if format {
            out.push(' ');
            out.push_str(inner);
            out.push(' ');
        } else {
            out.push_str(&rest[at..at + 2 + len]);
        }
        rest = &rest[at + 2 + len..];
    }
    out.push_str(rest);
    out
}

/// The literal tokens of some test code: quoted strings' contents and numbers (the values a
/// test checks, whatever shape holds them); blank strings say nothing.
fn literal_tokens(text: &str) -> BTreeSet<String> {
    loki_syntax::literals::literal_tokens(text)
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect()
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
        assert!(similar(
            CheckKind::Node,
            "test/b.test.js > kilobytes",
            "test/b.test.js > kibibytes"
        ));
        assert!(!similar(
            CheckKind::Node,
            "test/b.test.js > kilobytes",
            "test/b.test.js > kilometres"
        ));
    }

    #[test]
    fn a_generated_name_holds_its_case() {
        let code = without_strings(
            "const sums = [[1, 2, 3], [40, 2, 42]];\nfor (const [a, b, want] of sums) {\n  test(`add(${a}, ${b}) is ${want}`, () => {});\n}\nconst names = ['I', 'IV'];\n",
        );
        let case = case_in_name(CheckKind::Node, "test/a.test.js > add(40, 2) is 42", &code);
        assert_eq!(case, ["2", "40", "42"].map(String::from).into());
        // `test.each` names its tests with a format.
        let each = without_strings(
            "test.each([\n  [1, '1st'],\n  [2, '2nd'],\n])('ordinal(%i) is %s', (n, want) => {});\n",
        );
        let case = case_in_name(CheckKind::Jest, "src/o.test.js > ordinal(2) is 2nd", &each);
        assert_eq!(case, ["2", "2nd"].map(String::from).into());
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
