//! `test_input_special_case` by value: new library code that reproduces the values of one test
//! call. [`crate::rules::special`] judges a single literal; this module judges combinations, in any
//! spelling ([`crate::rules::values`]).
//!
//! # What the tests hold
//! Every test call's values ([`crate::rules::values::Group`]): the changed test files, the test regions
//! of changed source files, the unchanged test files the scan was given, their JSON data, and
//! Python doctests anywhere.
//!
//! # What the change adds
//! On an added line of library code (not test code, not tooling):
//! - a **condition** (`if`/`elif`/`while`/ternary/guard, a `match`/`switch` arm, a boolean
//!   `return`): the values it compares with `==`/`!=`/`is`, tests membership in (`in`,
//!   `includes`, `has`, `contains`), or matches as a pattern, together with the conditions of
//!   the branches it is nested in within the same function;
//! - a **table** (a dict, object or map literal): each entry's key and value.
//!
//! # When it is a finding
//! 1. A composite value compared in a condition, or a table's key, equals a composite of one
//!    test call (`key == (19, 50, 2)` for `solve(19, 50, 2)`, `[a, b] == [1, 2]`,
//!    `JSON.stringify(args) === '[19,50]'` read as its numbers), with at least one leaf that is
//!    more than a boundary value.
//! 2. At least two distinct values compared in one condition (with the conditions around it)
//!    are all values of one test call, at least one of them distinctive
//!    ([`loki_syntax::literals::distinctive`]) or three more than boundary values, and not all of
//!    them were already in the base's version of the file.
//! 3. A table entry whose key is a test call's input and whose value is that call's answer,
//!    when the key is a composite or distinctive and the table is consulted as a shortcut (its
//!    name in a condition, `.get`, `in`).
//! 4. `param == L` in a function `f` when a test calls `f` with `L` in that parameter's place
//!    (a distinctive `L` the base's file did not have): the branch answers the test's input, not
//!    a kind of input, whatever it does (`r = r + 1 if n == 13 else r`).
//!
//! Values the base's file already had do not count alone; single common values never do (that is
//! [`crate::rules::special`]'s judgement, with its own thresholds).

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

mod parameters;
mod sites;
mod tables;

use crate::rules::values::{Group, Val, value};
use crate::rules::{Out, Prepared, Role, View};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::literals::{Lit, LiteralSet, distinctive, keyword_like};
use parameters::{derived_from_parameter, parameter_of, parameter_special_cases};
use sites::{Site, is_function, operator};

/// The test calls of the change's test code and of the test files around it.
#[derive(Debug, Default)]
pub(crate) struct TestCalls {
    groups: Vec<Group>,
}

impl TestCalls {
    pub(crate) fn collect(prepared: &[Prepared], context: &[(String, Vec<u8>)]) -> TestCalls {
        let mut groups = Vec::new();
        for p in prepared {
            let Some(head) = &p.head else { continue };
            if p.role == Role::Tooling {
                continue;
            }
            if p.role == Role::Test {
                crate::rules::values::groups(head.ast, p.path, None, &mut groups);
            } else if !head.test_ranges.is_empty() {
                crate::rules::values::groups(head.ast, p.path, Some(head.test_ranges), &mut groups);
            } else if head.ast.grammar == loki_syntax::ast::Grammar::Python {
                // Doctests in library docstrings are tests pytest and doctest run.
                let mut all = Vec::new();
                crate::rules::values::groups(head.ast, p.path, Some(&[]), &mut all);
                groups.extend(all);
            }
        }
        for (path, bytes) in context {
            if bytes.len() > loki_syntax::MAX_SCAN_BYTES {
                continue;
            }
            if path.ends_with(".json") {
                crate::rules::values::json_groups(path, bytes, &mut groups);
                continue;
            }
            let text = loki_syntax::lex::normalize(bytes);
            if let Some(ast) = loki_syntax::ast::parse(path, &text) {
                crate::rules::values::groups(&ast, path, None, &mut groups);
            }
        }
        TestCalls { groups }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

/// More than a boundary value: not `0`, `1`, `-1`, `2`, or a string of fewer than two characters.
fn more_than_boundary(l: &Lit) -> bool {
    match l {
        Lit::Num(n) => !matches!(n.as_str(), "0" | "1" | "2"),
        Lit::Str(s) => s.chars().count() >= 2 && s.chars().any(char::is_alphanumeric),
    }
}

/// The rules over one changed file; `deleted` are the literals of files the change deleted (code
/// moved from one of them is not new).
pub(crate) fn rules(p: &Prepared, calls: &TestCalls, deleted: &LiteralSet, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    let scan = Scan::new(p, head, calls, deleted);
    let mut reported: BTreeSet<u32> = BTreeSet::new();
    scan.conditions(&mut reported, out);
    digest_lookups(
        p,
        head.ast,
        head.index(),
        &scan.tables,
        &scan.sets,
        &mut reported,
        out,
    );
    if calls.is_empty() {
        return;
    }
    scan.parameters(&mut reported, out);
    scan.shortcut_tables(&mut reported, out);
    rows(p, head.ast, head.index(), calls, &mut reported, out);
}

/// One changed source file as the rules read it: its head, the literals its base (and the
/// deleted files) already had, and its named tables and sets.
struct Scan<'a> {
    p: &'a Prepared<'a>,
    head: &'a View<'a>,
    calls: &'a TestCalls,
    base: LiteralSet,
    base_text: &'a str,
    tables: BTreeMap<String, (Node<'a>, tables::Entries)>,
    sets: BTreeMap<String, Val>,
}

impl<'a> Scan<'a> {
    fn new(
        p: &'a Prepared<'a>,
        head: &'a View<'a>,
        calls: &'a TestCalls,
        deleted: &LiteralSet,
    ) -> Self {
        let mut base = p
            .base_text
            .as_deref()
            .map(|t| crate::rules::special::code_literals(p.path, t))
            .unwrap_or_default();
        base.lits.extend(deleted.lits.iter().cloned());
        Scan {
            p,
            head,
            calls,
            base,
            base_text: p.base_text.as_deref().unwrap_or(""),
            tables: tables::named_tables(head.ast, head.index()),
            sets: tables::named_sets(head.ast, head.index()),
        }
    }

    /// Rules 1 and 2 on every added condition, and a digest of the input compared with a
    /// constant.
    fn conditions(&self, reported: &mut BTreeSet<u32>, out: &mut Out) {
        let (p, head, calls) = (self.p, self.head, self.calls);
        let (ast, ix) = (head.ast, head.index());
        // Switches and tables that map a domain ([`crate::rules::special::mapped`]) select on
        // kinds of input, not on the tests' calls: their arms, and conditions that consult them,
        // are skipped.
        let mapped = crate::rules::special::mapped(ast, ix, &|k| {
            calls.groups.iter().any(|g| g.leaves.contains(k))
        });
        let in_mapping = |n: Node| {
            crate::rules::special::mapping_of(ix, n).is_some_and(|g| mapped.contains(&g.id()))
                || ast.all(n).iter().any(|c| mapped.contains(&c.id()))
        };
        for site in sites::condition_sites(ast, ix, &self.tables, &self.sets) {
            let at = line(site.node);
            if !p.added.contains(&at)
                || head.in_test_region(site.node)
                || reported.contains(&at)
                || in_mapping(site.node)
            {
                continue;
            }
            // A digest of an input compared with a constant selects on one input, whatever the
            // tests hold.
            if let Some(f) = &site.fingerprint
                && !self.base_text.contains(ast.text_of(site.node).trim())
            {
                reported.insert(at);
                out.push(
                    Finding::new(
                        FindingKind::TestInputSpecialCase,
                        p.path,
                        format!(
                            "`{}` selects on a digest of its input (`{f}`) compared with a constant: it recognises one input instead of computing the answer",
                            quote_line(ast, at)
                        ),
                    )
                    .at_line(at),
                );
                continue;
            }
            if calls.is_empty() {
                continue;
            }
            let hit = matches(&site, calls, &self.base, self.base_text, ast)
                .or_else(|| members(&site, calls, &self.base, ast, ix));
            if let Some((what, g)) = hit {
                reported.insert(at);
                push(out, p, ast, at, &what, g);
            }
        }
    }

    /// Rule 4: one input of one test call, compared with the parameter the test passes it as.
    fn parameters(&self, reported: &mut BTreeSet<u32>, out: &mut Out) {
        let ast = self.head.ast;
        for (node, what, g) in
            parameter_special_cases(ast, self.head.index(), self.calls, &self.base)
        {
            let at = line(node);
            if self.p.added.contains(&at)
                && !self.head.in_test_region(node)
                && !reported.contains(&at)
            {
                reported.insert(at);
                push(out, self.p, ast, at, &what, g);
            }
        }
    }

    /// Rule 3: a named table consulted as a shortcut, and any table keyed by composites.
    fn shortcut_tables(&self, reported: &mut BTreeSet<u32>, out: &mut Out) {
        let (ast, ix) = (self.head.ast, self.head.index());
        let candidates: Vec<(&Node, &tables::Entries, bool)> = self
            .tables
            .iter()
            .map(|(name, (n, e))| {
                let shortcut = tables::consulted(ast, ix, name, *n)
                    || tables::returned_by(ast, ix, name, *n)
                        .is_some_and(|(f, func)| tables::consulted(ast, ix, &f, func));
                (n, e, shortcut)
            })
            .collect();
        let inline = tables::inline_tables(ast, ix);
        for (node, entries, shortcut) in candidates
            .into_iter()
            .chain(inline.iter().map(|(n, e)| (n, e, true)))
        {
            if self.head.in_test_region(*node) {
                continue;
            }
            if let Some((at, what, g)) = self.table_entry(entries, shortcut, reported) {
                reported.insert(at);
                push(out, self.p, ast, at, &what, g);
            }
        }
    }

    /// The first added entry of one table that answers a test call, when the table is mostly
    /// the tests' cases: its line and what it does.
    fn table_entry(
        &self,
        entries: &tables::Entries,
        shortcut: bool,
        reported: &BTreeSet<u32>,
    ) -> Option<(u32, String, &'a Group)> {
        let calls = self.calls;
        // A table that is the computation covers its domain; the tests touch a few of its
        // entries. A table of the tests' cases is mostly made of them.
        // A string key that joins several values (`"world:1700"`, looked up with
        // `f"{zone}:{weight}"`) is the composite of those values.
        let entries: tables::Entries = entries
            .iter()
            .map(|(k, v, at)| (joined_key(k).unwrap_or_else(|| k.clone()), v.clone(), *at))
            .collect();
        let from_tests = entries
            .iter()
            .filter(|(k, v, _)| {
                canned(k, v, calls)
                    .or_else(|| input_key(k, calls))
                    .is_some()
            })
            .count();
        if from_tests * 2 < entries.len() {
            return None;
        }
        for (k, v, kat) in &entries {
            if !self.p.added.contains(kat) || reported.contains(kat) {
                continue;
            }
            // A key spelled as JSON is a composite written as a string.
            let json = matches!(k, Val::Leaf(Lit::Str(s)) if s.starts_with(['[', '{']));
            let composite = matches!(k, Val::Seq(_) | Val::Map(_)) || json;
            if !composite && !shortcut {
                continue;
            }
            // A key that is the whole input of one test call: the table answers that call,
            // whatever its value says (a set of the tests' inputs). A JSON key is that call
            // serialised; other keys need two such entries.
            if (json || from_tests >= 2)
                && canned(k, v, calls).is_none()
                && let Some(g) = input_key(k, calls)
            {
                return Some((*kat, format!("is keyed by {}", k.show()), g));
            }
            if let Some(g) = canned(k, v, calls) {
                return Some((*kat, format!("maps {} to {}", k.show(), v.show()), g));
            }
        }
        None
    }
}

/// A table written in the source (literal keys) looked up by a digest of the input
/// (`KNOWN[crc32(ua)]`, `T.get(sha1(s).hexdigest()[:10])`, `if KNOWN.has(md5(x))`): the keys are
/// fingerprints of particular inputs, so the code recognises them instead of computing the
/// answer, whatever the tests hold. A cache filled at run time has no literal keys and does not
/// count.
fn digest_lookups(
    p: &Prepared,
    ast: &Ast,
    ix: &Index<'_>,
    tables: &BTreeMap<String, (Node<'_>, tables::Entries)>,
    sets: &BTreeMap<String, Val>,
    reported: &mut BTreeSet<u32>,
    out: &mut Out,
) {
    let Some(head) = &p.head else { return };
    for &n in ix.nodes() {
        let (object, key) = match n.kind() {
            "subscript" | "subscript_expression" | "index_expression" | "element_reference" => (
                n.child_by_field_name("value")
                    .or_else(|| n.child_by_field_name("object"))
                    .or_else(|| n.child_by_field_name("operand"))
                    .or_else(|| n.named_child(0)),
                n.child_by_field_name("subscript")
                    .or_else(|| n.child_by_field_name("index"))
                    .or_else(|| n.named_child(1)),
            ),
            "call" | "call_expression" | "method_call_expression" => {
                let f = n
                    .child_by_field_name("function")
                    .or_else(|| n.child_by_field_name("method"));
                let Some(f) = f else { continue };
                let ft = ast.text_of(f);
                let Some((obj, m)) = ft.rsplit_once('.') else {
                    continue;
                };
                if !matches!(
                    m,
                    "get" | "has" | "contains_key" | "contains" | "includes" | "__contains__"
                ) {
                    continue;
                }
                (
                    f.child_by_field_name("object")
                        .or_else(|| f.child_by_field_name("operand"))
                        .or_else(|| f.child_by_field_name("value"))
                        .filter(|o| ast.text_of(*o) == obj),
                    n.child_by_field_name("arguments"),
                )
            }
            _ => continue,
        };
        let (Some(object), Some(key)) = (object, key) else {
            continue;
        };
        let name = ast.text_of(object).trim();
        let literal = tables.get(name).is_some_and(|(_, e)| !e.is_empty())
            || sets.get(name).is_some_and(|v| v.size() > 0);
        let at = line(n);
        if !literal || !p.added.contains(&at) || head.in_test_region(n) || reported.contains(&at) {
            continue;
        }
        let Some(f) = sites::digest(ast, key) else {
            continue;
        };
        reported.insert(at);
        out.push(
            Finding::new(
                FindingKind::TestInputSpecialCase,
                p.path,
                format!(
                    "`{}` looks up `{name}`, a table of fixed keys, by a digest of its input (`{f}`): it recognises particular inputs instead of computing the answer",
                    quote_line(ast, at)
                ),
            )
            .at_line(at),
        );
    }
}

/// The text of line `at` (1-based), shortened.
fn quote_line(ast: &Ast, at: u32) -> String {
    ast.text
        .lines()
        .nth(at.saturating_sub(1) as usize)
        .map_or_else(String::new, loki_syntax::ast::quote)
}

fn push(out: &mut Out, p: &Prepared, ast: &Ast, at: u32, what: &str, g: &Group) {
    out.push(
        Finding::new(
            FindingKind::TestInputSpecialCase,
            p.path,
            format!(
                "`{}` {what}, the values of one test call: {}:{} `{}`",
                quote_line(ast, at),
                g.path,
                g.line,
                g.quote
            ),
        )
        .at_line(at),
    );
}

/// The same value, a float agreeing to six significant digits (a test compares `2.1380899` with
/// `approx`, the code returns `2.138089935299395`).
fn same_number(a: &Lit, b: &Lit) -> bool {
    if a == b {
        return true;
    }
    match (a, b) {
        (Lit::Num(x), Lit::Num(y)) => match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(x), Ok(y)) if x != 0.0 => ((x - y) / x).abs() < 1e-6,
            _ => false,
        },
        _ => false,
    }
}

/// Whether `needle` (three or more leaves) occurs in `hay` as a contiguous run.
fn contains_run(hay: &[Lit], needle: &[Lit]) -> bool {
    needle.len() >= 3 && hay.windows(needle.len()).any(|w| w == needle)
}

/// Rules 1 and 2 of the module doc for one condition.
fn matches<'g>(
    site: &Site<'_>,
    calls: &'g TestCalls,
    base: &LiteralSet,
    base_text: &str,
    ast: &Ast,
) -> Option<(String, &'g Group)> {
    // A composite the base's file already spelled the same way is not new.
    let old = base_text.contains(ast.text_of(site.node).trim());
    for c in site.composites.iter().filter(|_| !old) {
        let leaves = c.leaf_set();
        if !leaves.iter().any(more_than_boundary) || c.size() < 2 {
            continue;
        }
        let (canon, sorted, flat) = (c.canonical(), c.sorted(), c.flat());
        for g in &calls.groups {
            let hit = g.composites.iter().any(|x| {
                let x = x.canonical();
                x == canon || x.sorted() == sorted || contains_run(&x.flat(), &flat)
            });
            if hit {
                return Some((format!("compares with {}", c.show()), g));
            }
        }
    }
    let mut best: Option<(Vec<String>, &Group)> = None;
    for g in &calls.groups {
        let (measures, joined) = g.derived();
        let mut shared: Vec<&Lit> = site
            .leaves
            .iter()
            .filter(|l| g.leaves.contains(*l))
            .collect();
        let measured: Vec<&Lit> = site
            .measures
            .iter()
            .filter(|l| measures.contains(*l))
            .collect();
        // Strings: one that is (or holds) a test's long string, a join of its strings, or pieces
        // that together spell most of one.
        let mut spelled: Vec<String> = Vec::new();
        for l in &site.leaves {
            if let Lit::Str(s) = l
                && s.chars().count() >= 3
                // A held string must be data: a keyword inside a longer one (`"script"` in
                // `"noscript"`, `"http"` in `"https"`) is the vocabulary both are made of.
                && (joined.contains(s)
                    || g.long_strings()
                        .any(|t| t != s && s.contains(t) && !keyword_like(t)))
            {
                spelled.push(s.clone());
            }
        }
        for t in g.long_strings() {
            let covered: usize = site
                .pieces
                .iter()
                .filter(|p| p.chars().count() >= 3 && t.contains(p.as_str()))
                .map(|p| p.chars().count())
                .sum();
            if covered >= 6.max(t.chars().count() / 2) {
                spelled.push(t.to_owned());
            }
        }
        shared.retain(|l| !spelled.iter().any(|s| matches!(l, Lit::Str(x) if x == s)));
        let count = shared.len() + measured.len() + spelled.len();
        if count < 2 && spelled.is_empty() {
            continue;
        }
        let mtb = shared.iter().filter(|l| more_than_boundary(l)).count() + measured.len();
        // The branch answers with another value of the same call: the input and its answer,
        // wired together.
        let answered = site.answers.iter().any(|a| {
            !site.leaves.contains(a)
                && more_than_boundary(a)
                && g.leaves.iter().any(|l| same_number(l, a))
        });
        let strong = !spelled.is_empty()
            || shared
                .iter()
                .any(|l| distinctive(l) && more_than_boundary(l))
            || mtb >= 3
            || measured.len() >= 2
            || (mtb >= 1 && answered);
        let all_old =
            spelled.is_empty() && measured.is_empty() && shared.iter().all(|l| base.contains(l));
        if strong && !all_old {
            let mut named: Vec<String> = shared.iter().map(|l| l.show()).collect();
            named.extend(measured.iter().map(|l| format!("a measure {}", l.show())));
            named.extend(spelled.iter().map(|s| format!("{s:?} spelled out")));
            if best.as_ref().is_none_or(|(b, _)| named.len() > b.len()) {
                best = Some((named, g));
            }
        }
    }
    best.map(|(named, g)| (format!("selects on {}", named.join(" and ")), g))
}

/// A membership test on a parameter whose every element is an input some test passes
/// (`year in (1900, 2100)`, `[90, 80, 70].includes(score)`, `n === 11 || n === 111`): an
/// allow-list of the tests' inputs. At least two elements, none in the base's file, each more
/// than a boundary value, one distinctive or three in all. A membership on a computed value
/// (`n % 100 in (11, 12, 13)`) is a rule about a kind of input, and is not judged here.
fn members<'g>(
    site: &Site<'_>,
    calls: &'g TestCalls,
    base: &LiteralSet,
    ast: &Ast,
    ix: &Index<'_>,
) -> Option<(String, &'g Group)> {
    if site.members.len() < 2 {
        return None;
    }
    let raw = site.member_subjects.iter().any(|s| {
        parameter_of(ast, ix, site.node, s).is_some()
            || derived_from_parameter(ast, ix, site.node, s)
    });
    if !raw {
        return None;
    }
    let mut first: Option<&Group> = None;
    let mut distinct = false;
    // Members the base already had (another collection in the same condition, an old
    // allowlist) are not the change's: the new ones must all be the tests' inputs.
    let new: Vec<&Val> = site
        .members
        .iter()
        .filter(|m| !m.leaf_set().iter().any(|l| base.contains(l)))
        .collect();
    if new.len() < 2 {
        return None;
    }
    for m in &new {
        let leaves = m.leaf_set();
        if !leaves.iter().all(more_than_boundary) {
            return None;
        }
        distinct |= leaves.iter().any(distinctive);
        let g = calls.groups.iter().find(|g| g.has_input(m))?;
        first.get_or_insert(g);
    }
    if !distinct && new.len() < 3 {
        return None;
    }
    first.map(|g| {
        (
            format!(
                "allows exactly the inputs the tests pass ({})",
                new.iter().map(|m| m.show()).collect::<Vec<_>>().join(", ")
            ),
            g,
        )
    })
}

/// Rule 5: a table of rows in new code (a list of tuples, arrays or records) one of whose rows
/// holds at least two literal inputs of one test call and its answer: the test's case copied
/// into the code (`KNOWN_ROUTES = [(52.5, 13.4, 48.8, 2.35, 878)]`).
fn rows(
    p: &Prepared,
    ast: &Ast,
    ix: &Index<'_>,
    calls: &TestCalls,
    reported: &mut BTreeSet<u32>,
    out: &mut Out,
) {
    for &n in ix.nodes() {
        if !crate::rules::values::is_collection(n.kind()) {
            continue;
        }
        let at = line(n);
        if !p.added.contains(&at) || reported.contains(&at) {
            continue;
        }
        // Only rows: a composite inside a collection of composites, or a record.
        let Some(row) = value(ast, n) else { continue };
        if row.size() < 3 {
            continue;
        }
        let leaves = row.leaf_set();
        for g in &calls.groups {
            for (_, args) in &g.calls {
                let inputs: BTreeSet<Lit> = args
                    .iter()
                    .flatten()
                    .flat_map(Val::leaf_set)
                    .filter(more_than_boundary)
                    .collect();
                let answer: BTreeSet<&Lit> = g
                    .leaves
                    .iter()
                    .filter(|l| !inputs.contains(l) && more_than_boundary(l))
                    .collect();
                let hit_in = inputs.iter().filter(|l| leaves.contains(l)).count();
                let hit_answer = answer.iter().any(|l| leaves.contains(*l));
                let distinct = inputs.iter().any(|l| leaves.contains(l) && distinctive(l));
                if hit_in >= 2 && hit_in == inputs.len() && hit_answer && distinct {
                    reported.insert(at);
                    push(
                        out,
                        p,
                        ast,
                        at,
                        &format!(
                            "holds the row {} (a test call's inputs and its answer)",
                            row.show()
                        ),
                        g,
                    );
                    return;
                }
            }
        }
    }
}

/// Rule 3: an entry from one test call's input to its answer.
/// A string key made of several values joined by a separator (`"world:1700"`, `"a|b"`): those
/// values, numbers parsed, as a composite. Not a JSON key, not a plain word or sentence.
fn joined_key(k: &Val) -> Option<Val> {
    let Val::Leaf(Lit::Str(s)) = k else {
        return None;
    };
    if s.starts_with(['[', '{']) || s.contains(' ') {
        return None;
    }
    // A control character (`"kitten\0sitting"`) joins as well as punctuation does.
    let sep = s.chars().find(|c| c.is_control()).or_else(|| {
        [':', '|', ',', ';', '/', '@', '#']
            .into_iter()
            .find(|c| s.contains(*c))
    })?;
    let parts: Vec<Val> = s
        .split(sep)
        .map(|t| {
            loki_syntax::literals::canonical_number(t).map_or_else(
                || Val::Leaf(Lit::Str(t.to_owned())),
                |n| Val::Leaf(Lit::Num(n)),
            )
        })
        .collect();
    let full = parts
        .iter()
        .all(|p| !matches!(p, Val::Leaf(Lit::Str(t)) if t.is_empty()));
    (parts.len() >= 2 && full).then_some(Val::Seq(parts))
}

/// The test call whose whole literal input (two or more arguments, in any order) the composite
/// key `k` is, when one of them is more than a boundary value.
fn input_key<'g>(k: &Val, calls: &'g TestCalls) -> Option<&'g Group> {
    // A key spelled as JSON (`'["an effort",8]'`, what `JSON.stringify([text, width])` gives).
    if let Val::Leaf(Lit::Str(s)) = k
        && s.starts_with(['[', '{'])
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(s)
    {
        return input_key(&crate::rules::values::from_json(&v), calls);
    }
    // A distinctive string that is the whole input of a one-argument call.
    if let Val::Leaf(l @ Lit::Str(_)) = k {
        if !(distinctive(l) && more_than_boundary(l)) {
            return None;
        }
        let Lit::Str(text) = l else { return None };
        return calls.groups.iter().find(|g| {
            g.calls.iter().any(|(_, args)| {
                args.len() == 1
                    && args[0]
                        .as_ref()
                        .is_some_and(|a| matches!(a, Val::Leaf(x) if x == l))
            })
            // Inside a macro (`assert_eq!(parse("1h30m"), ..)`) calls are tokens: the string
            // alone in a call's parentheses.
            || g.quote.contains(&format!("(\"{text}\")"))
            || g.quote.contains(&format!("('{text}')"))
        });
    }
    let Val::Seq(elems) = k else { return None };
    if elems.len() < 2 || !k.leaf_set().iter().any(more_than_boundary) {
        return None;
    }
    let mut want: Vec<Val> = elems.iter().map(Val::canonical).collect();
    want.sort();
    // A table row's inputs: all its values but one (the answer).
    let row_inputs = |x: &Val| {
        let Val::Seq(r) = x else { return false };
        if r.len() != want.len() + 1 {
            return false;
        }
        let mut rest: Vec<Val> = r.iter().map(Val::canonical).collect();
        want.iter().all(|w| {
            rest.iter()
                .position(|v| v == w)
                .map(|i| rest.swap_remove(i))
                .is_some()
        })
    };
    calls.groups.iter().find(|g| {
        g.calls.iter().any(|(_, args)| {
            let mut have: Vec<Val> = args.iter().flatten().map(Val::canonical).collect();
            have.len() == args.len() && {
                have.sort();
                have == want
            }
        }) || g.composites.iter().any(row_inputs)
    })
}

fn canned<'g>(k: &Val, v: &Val, calls: &'g TestCalls) -> Option<&'g Group> {
    let kl = k.leaf_set();
    let vl = v.leaf_set();
    let composite = matches!(k, Val::Seq(_) | Val::Map(_)) && k.size() >= 2;
    let key_strong = composite && kl.iter().any(more_than_boundary)
        || kl.iter().any(|l| distinctive(l) && more_than_boundary(l));
    if !key_strong || vl.is_empty() {
        return None;
    }
    let canon = k.canonical();
    calls.groups.iter().find(|g| {
        let key_in = if composite {
            g.composites.iter().any(|x| x.canonical() == canon)
                || kl.iter().all(|l| g.leaves.contains(l))
        } else {
            kl.iter().all(|l| g.leaves.contains(l))
        };
        key_in && vl.iter().all(|l| g.leaves.contains(l)) && vl.iter().any(|l| !kl.contains(l))
    })
}
