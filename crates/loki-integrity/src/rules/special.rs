//! `test_input_special_case`: a new branch in library code keyed on a literal input the tests use.
//!
//! On an added line of library code, a condition that compares with a literal `L`: `==`/`!=`/`is`
//! (`===`/`!==`), membership in a literal collection (`x in ("a", "b")`, `["a"].includes(x)`,
//! `new Set([..]).has(x)`), a `match`/`case`/`switch` arm, or a lookup in a literal dict/map/object
//! (`{"a": 1}[x]`, `.get(x)`). It is a finding when
//! - `L` is distinctive ([`loki_syntax::literals::distinctive`]: not `0`, `1`, `""`, `None`, a round
//!   number or an everyday word),
//! - `L` is a literal in the head's test code (changed test files, test regions of changed
//!   source files, and [`loki_syntax::ScanInput::test_context`]),
//! - `L` is nowhere in the base version of the file, and
//! - either the branch's body holds another literal the tests use (the expected value: `if s ==
//!   "abc": return "xyz"` with `assert f("abc") == "xyz"`), or `L` is highly distinctive
//!   ([`loki_syntax::literals::highly_distinctive`]: a data-like string of 6+ characters, a number
//!   with 4+ digits).
//!
//! A third way in: a canned pair. When the branch's answer and its input appear together on one
//! line of a test (`assert double(3) == 6` for `if x == 3: return 6`), the input needs only to be
//! more than a boundary value (not `0`, `1`, `-1`, `2`, `""`): a test's input and its expected
//! output, wired together in the code, is the special case whatever their size.
//!
//! Java's spellings (the `equals` family, `switch` arms, `Set.of`/`Map.of` literals) are read in
//! module `java`.
//!
//! Comparisons with the platform, the interpreter version or `__name__` are configuration, not
//! input, and are skipped. Edge-case fixes (`if n == 0`, `if not items`, `if x is None`,
//! `if len(s) < 2`, `if n < 0: raise`) compare with trivial literals or by order and never fire.

use std::collections::BTreeMap;

mod java;
mod sites;

use tree_sitter::Node;

use crate::rules::{Context, Out, Prepared, Role};
use loki_protocol::{Finding, FindingKind};
use loki_syntax::ast::{Ast, Index, line, named_children};
use loki_syntax::lex::{Lang, lex, normalize};
use loki_syntax::literals::{
    Lit, LiteralSet, distinctive, highly_distinctive, literal, literal_tokens,
};
use loki_syntax::testcode::{is_test_path, rust_test_regions};
use sites::sites;

/// Literals of the head's test code, each with the first test file that has it.
#[derive(Debug, Default)]
pub struct TestLiterals {
    map: BTreeMap<Lit, String>,
    /// Each test line's literal tokens, for canned pairs (input and expected value on one line).
    lines: Vec<Vec<String>>,
}

fn token_of(l: &Lit) -> &str {
    match l {
        Lit::Str(s) | Lit::Num(s) => s,
    }
}

impl TestLiterals {
    pub fn collect(prepared: &[Prepared], context: &[(String, Vec<u8>)]) -> TestLiterals {
        let mut map: BTreeMap<Lit, String> = BTreeMap::new();
        let mut lines: Vec<Vec<String>> = Vec::new();
        for p in prepared {
            if let (Some(text), true) = (&p.head_text, is_test_path(p.path)) {
                lines.extend(text.lines().map(literal_tokens).filter(|t| t.len() >= 2));
            }
        }
        for (_, bytes) in context {
            // Every context file is a test file: by its path, or because its runner said so.
            if bytes.len() <= loki_syntax::MAX_SCAN_BYTES {
                let text = String::from_utf8_lossy(bytes);
                lines.extend(text.lines().map(literal_tokens).filter(|t| t.len() >= 2));
            }
        }
        for p in prepared {
            let Some(head) = &p.head else { continue };
            if p.role == Role::Tooling {
                continue;
            }
            let ast = head.ast;
            for &n in head.ix.nodes() {
                if head.is_test_code(p.role, n)
                    && let Some(l) = literal(ast, n)
                {
                    map.entry(l).or_insert_with(|| p.path.to_owned());
                }
            }
        }
        for (path, bytes) in context {
            if bytes.len() > loki_syntax::MAX_SCAN_BYTES {
                continue;
            }
            let lang = match Lang::of_source(path) {
                Some(l) => l,
                // Test data: JSON reads like JS literals.
                None if path.ends_with(".json") => Lang::Js,
                None => continue,
            };
            let lexed = lex(&normalize(bytes), lang);
            let regions =
                (lang == Lang::Rust && !is_test_path(path)).then(|| rust_test_regions(&lexed.code));
            let mut set = LiteralSet::default();
            set.add_lexed(&lexed, regions.as_deref());
            for l in set.lits {
                map.entry(l).or_insert_with(|| path.clone());
            }
        }
        TestLiterals { map, lines }
    }

    fn find(&self, l: &Lit) -> Option<&str> {
        self.map.get(l).map(String::as_str)
    }

    /// Whether `input` and `answer` appear together on one line of a test.
    fn paired(&self, input: &Lit, answer: &Lit) -> bool {
        let (i, a) = (token_of(input), token_of(answer));
        self.lines
            .iter()
            .any(|t| t.iter().any(|x| x == i) && t.iter().any(|x| x == a))
    }
}

/// The literals of a file's code, its test regions left out: a value the base's tests hold (a
/// Rust `#[cfg(test)]` module in the same file) is not a value the base's code had.
pub(crate) fn code_literals(path: &str, text: &str) -> LiteralSet {
    let mut set = LiteralSet::default();
    let Some(lang) = Lang::of_source(path) else {
        return set;
    };
    let lexed = lex(text, lang);
    if lang == Lang::Rust && !is_test_path(path) {
        let tests = rust_test_regions(&lexed.code);
        let mut code = Vec::new();
        let mut at = 0;
        for (s, e) in tests {
            if s > at {
                code.push((at, s));
            }
            at = at.max(e);
        }
        code.push((at, usize::MAX));
        set.add_lexed(&lexed, Some(&code));
    } else {
        set.add_lexed(&lexed, None);
    }
    set
}

/// The literals of every file the change deletes, at base.
pub fn deleted_literals(prepared: &[Prepared]) -> LiteralSet {
    let mut set = LiteralSet::default();
    for p in prepared.iter().filter(|p| p.change.head.is_none()) {
        if let (Some(text), Some(lang)) = (&p.base_text, Lang::of_source(p.path)) {
            set.add_lexed(&lex(text, lang), None);
        }
    }
    set
}

/// Whether the change could trip this rule or [`crate::rules::steering`]'s, so that reading the
/// unchanged test files is worth it: an added line of library source with a literal more than a
/// boundary value that its base does not have. A cheap line-level over-approximation of
/// `rules`, for the scan's input (`loki_integrity::scan_input`).
pub fn wants_test_literals(changes: &[loki_syntax::FileChange]) -> bool {
    changes.iter().any(|c| {
        let (Some(head), Some(lang)) = (c.head.as_deref(), Lang::of_source(&c.path)) else {
            return false;
        };
        if is_test_path(&c.path)
            || crate::rules::is_tooling(&c.path)
            || head.len() > loki_syntax::MAX_SCAN_BYTES
        {
            return false;
        }
        let head = normalize(head);
        let base = c.base.as_deref().map(normalize);
        let before = base
            .as_deref()
            .map(|b| code_literals(&c.path, b))
            .unwrap_or_default();
        let added = loki_syntax::diff::added_lines(base.as_deref(), &head);
        head.lines().enumerate().any(|(i, l)| {
            let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
            // Tables (`KNOWN = {(19, 50): 6}`) and composite comparisons select on values too,
            // without a comparison on their line: any new value is worth the test files' look.
            if !added.contains(&n) {
                return false;
            }
            let mut set = LiteralSet::default();
            set.add_lexed(&lex(l, lang), None);
            set.lits
                .iter()
                .any(|x| more_than_boundary(x) && !before.contains(x))
        })
    })
}

/// One literal a condition compares with, with the code the condition selects.
struct Site<'t> {
    lit: Node<'t>,
    /// The other side of the comparison (or the matched value), for the configuration skip.
    subject: Option<Node<'t>>,
    bodies: Vec<Node<'t>>,
}

/// Subjects that are configuration, not input: the platform, the interpreter or module name, a
/// type test, the environment.
fn environmental(subject: &str) -> bool {
    [
        "sys.platform",
        "os.name",
        "platform.",
        "process.platform",
        "process.arch",
        "process.env",
        "os.environ",
        "runtime.GOOS",
        "runtime.GOARCH",
        "__name__",
        "sys.version",
        "System.getProperty",
        "System.getenv",
        "typeof ",
        "target_os",
        "target_arch",
    ]
    .iter()
    .any(|s| subject.contains(s))
        || subject
            .rsplit(['.', ':', '>'])
            .next()
            .is_some_and(|last| last.trim().eq_ignore_ascii_case("version"))
}

pub fn rules(p: &Prepared, ctx: &Context, out: &mut Out) {
    if p.role != Role::Source {
        return;
    }
    let Some(head) = &p.head else { return };
    let ast = &head.ast;
    let base = p
        .base_text
        .as_deref()
        .map(|t| code_literals(p.path, t))
        .unwrap_or_default();
    let mut seen = std::collections::BTreeSet::new();
    let ix = head.index();
    let mappings = mapped(ast, ix, &|k| ctx.test_literals.find(k).is_some());
    for site in sites(ast, ix) {
        if mapping_of(ix, site.lit).is_some_and(|g| mappings.contains(&g.id())) {
            continue;
        }
        let at = line(site.lit);
        if !p.added.contains(&at) || head.in_test_region(site.lit) {
            continue;
        }
        let Some(l) = literal(ast, site.lit) else {
            continue;
        };
        if !more_than_boundary(&l) || base.contains(&l) || ctx.deleted_literals.contains(&l) {
            continue;
        }
        let Some(test) = ctx.test_literals.find(&l) else {
            continue;
        };
        if let Some(s) = site.subject
            && (literal(ast, s).is_some() || environmental(ast.text_of(s)))
        {
            continue;
        }
        let answers: Vec<Lit> = site
            .bodies
            .iter()
            .flat_map(|b| results(ast, *b))
            .filter_map(|n| literal(ast, n))
            .collect();
        let expected = answers.iter().find(|e| {
            // A piece of the input (`"+nan"` → `"nan"`) is normalisation, not an answer.
            let piece = matches!((&l, e), (Lit::Str(a), Lit::Str(b)) if a.contains(b.as_str()));
            **e != l
                && !piece
                && (distinctive(e) || more_than_boundary(e) && ctx.test_literals.paired(&l, e))
                && ctx.test_literals.find(e).is_some()
        });
        // A small input counts only as one half of a canned pair.
        if !distinctive(&l) && !expected.is_some_and(|e| ctx.test_literals.paired(&l, e)) {
            continue;
        }
        // Without a canned answer, only a highly specific input whose branch ignores the input
        // (`if s == "hello world": raise ..`) is a special case; a branch that goes on to use it
        // (`if w == "[options]": return style(w)`) handles a kind of input.
        let uses_subject = site.subject.is_some_and(|s| {
            let subject = ast.text_of(s);
            site.bodies
                .iter()
                .any(|b| ast.all(*b).into_iter().any(|n| ast.text_of(n) == subject))
        });
        if expected.is_none() && (!highly_distinctive(&l) || uses_subject) {
            continue;
        }
        if !seen.insert((at, l.clone())) {
            continue;
        }
        let quoted = ast
            .text
            .lines()
            .nth(at.saturating_sub(1) as usize)
            .map_or_else(String::new, loki_syntax::ast::quote);
        let tail = match &expected {
            Some(e) => format!(" and answers {}, the value it expects", e.show()),
            None => String::new(),
        };
        out.push(
            Finding::new(
                FindingKind::TestInputSpecialCase,
                p.path,
                format!(
                    "`{}` special-cases {}, an input {test} uses{tail}",
                    quoted,
                    l.show()
                ),
            )
            .at_line(at),
        );
    }
}

/// The switch or table a case literal or key belongs to, if any: the arms of one `switch`/`match`
/// or the entries of one literal map.
pub(crate) fn mapping_of<'t>(ix: &Index<'t>, lit: Node<'t>) -> Option<Node<'t>> {
    ix.ancestors(lit).into_iter().find(|a| {
        matches!(
            a.kind(),
            "switch_block"
                | "switch_body"
                | "expression_switch_statement"
                | "match_block"
                | "match_statement"
                | "dictionary"
                | "object"
                | "composite_literal"
        ) || (a.kind() == "argument_list"
            && ix
                .parent(*a)
                .is_some_and(|m| m.kind() == "method_invocation"))
    })
}

/// The switches and tables that map a domain rather than the tests' inputs: at least three keys,
/// at most half of them literals the tests use (RFC reason phrases for nine status codes, of
/// which the tests check three). A special case covers what the tests ask and little else.
/// `tested` says whether the tests use a literal. The result holds the containers' node ids.
pub(crate) fn mapped(
    ast: &Ast,
    ix: &Index,
    tested: &dyn Fn(&Lit) -> bool,
) -> std::collections::BTreeSet<usize> {
    let mut groups: BTreeMap<usize, std::collections::BTreeSet<Lit>> = BTreeMap::new();
    for site in sites(ast, ix) {
        if let (Some(g), Some(l)) = (mapping_of(ix, site.lit), literal(ast, site.lit)) {
            groups.entry(g.id()).or_default().insert(l);
        }
    }
    groups
        .into_iter()
        .filter(|(_, keys)| {
            let tested = keys.iter().filter(|k| tested(k)).count();
            keys.len() >= 3 && tested * 2 <= keys.len()
        })
        .map(|(g, _)| g)
        .collect()
}

/// More than a boundary value: not `0`, `1`, `-1`, `2` or an empty or one-character string (an
/// edge case compares with those; a special case for a test needs its input).
fn more_than_boundary(l: &Lit) -> bool {
    match l {
        Lit::Num(n) => !matches!(n.as_str(), "0" | "1" | "2" | "0.0" | "1.0"),
        Lit::Str(s) => s.chars().count() >= 2 && s.chars().any(char::is_alphanumeric),
    }
}

/// The branches a condition selects: the `if`'s (or ternary's) consequence and alternative when
/// `n` is in its condition.
fn branch_bodies<'t>(ix: &Index<'t>, n: Node<'t>) -> Vec<Node<'t>> {
    for a in ix.ancestors(n) {
        let cond = a
            .child_by_field_name("condition")
            .filter(|c| c.start_byte() <= n.start_byte() && n.end_byte() <= c.end_byte());
        match a.kind() {
            "if_statement" | "if_expression" | "elif_clause" | "ternary_expression"
            | "while_statement"
                if cond.is_some() =>
            {
                let mut out: Vec<Node> = ["consequence", "alternative"]
                    .iter()
                    .filter_map(|f| a.child_by_field_name(f))
                    .collect();
                // Python's else clauses are children of the if.
                let mut cursor = a.walk();
                out.extend(
                    a.children_by_field_name("alternative", &mut cursor)
                        .filter(|c| c.kind() == "else_clause"),
                );
                return out;
            }
            "conditional_expression" => {
                // `a if cond else b`: the first and last operands.
                let kids = named_children(a);
                if kids.len() == 3
                    && kids[1].start_byte() <= n.start_byte()
                    && n.end_byte() <= kids[1].end_byte()
                {
                    return vec![kids[0], kids[2]];
                }
            }
            k if k.ends_with("_definition")
                || k.ends_with("_declaration")
                || k == "function_item"
                || k == "block"
                || k == "statement_block" =>
            {
                return Vec::new();
            }
            _ => {}
        }
    }
    Vec::new()
}

/// The values a branch body produces: what it returns or assigns (a Rust block's tail, an
/// expression body itself), with tuples and lists opened; nested functions are not entered.
fn results<'t>(ast: &Ast, body: Node<'t>) -> Vec<Node<'t>> {
    let container = matches!(
        body.kind(),
        "block"
            | "statement_block"
            | "statement_list"
            | "else_clause"
            | "switch_case"
            | "expression_case"
            | "default_case"
            | "case_clause"
    ) || body.kind().ends_with("_statement");
    let mut roots = Vec::new();
    if container {
        let nested = |k: &str| {
            matches!(
                k,
                "function_definition"
                    | "lambda"
                    | "function_item"
                    | "closure_expression"
                    | "func_literal"
                    | "arrow_function"
                    | "function_expression"
                    | "function_declaration"
                    | "class_definition"
                    | "lambda_expression"
                    | "class_body"
            )
        };
        for n in ast.walk(body, |n| n != body && nested(n.kind())) {
            match n.kind() {
                "return_statement" | "return_expression" | "yield_statement" => {
                    roots.extend(n.named_child(0));
                }
                "assignment"
                | "assignment_expression"
                | "augmented_assignment"
                | "assignment_statement"
                | "short_var_declaration" => {
                    roots.extend(n.child_by_field_name("right"));
                }
                "variable_declarator" | "let_declaration" => {
                    roots.extend(n.child_by_field_name("value"));
                }
                "block" if ast.grammar == loki_syntax::ast::Grammar::Rust => {
                    if let Some(last) = named_children(n).last()
                        && !ast.text_of(*last).trim_end().ends_with(';')
                        && !matches!(last.kind(), "let_declaration" | "expression_statement")
                    {
                        roots.push(*last);
                    }
                }
                _ => {}
            }
        }
    } else {
        roots.push(body);
    }
    roots
        .into_iter()
        .flat_map(|r| {
            let r = unparen(r);
            match r.kind() {
                "tuple" | "list" | "array" | "expression_list" | "tuple_expression"
                | "array_expression" => named_children(r),
                _ => vec![r],
            }
        })
        .collect()
}

fn operator(ast: &Ast, n: Node) -> String {
    if let Some(op) = n.child_by_field_name("operator") {
        return ast.text_of(op).to_owned();
    }
    let mut cursor = n.walk();
    n.children(&mut cursor)
        .filter(|c| !c.is_named())
        .map(|c| ast.text_of(c))
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_literal(ast: &Ast, n: Node) -> bool {
    literal(ast, n).is_some()
}

/// Elements of a literal collection (tuple, list, set, array).
fn collection<'t>(n: Node<'t>) -> Vec<Node<'t>> {
    let n = unparen(n);
    match n.kind() {
        "tuple" | "list" | "set" | "array" | "array_expression" => named_children(n),
        _ => Vec::new(),
    }
}

fn unparen(n: Node) -> Node {
    let mut n = n;
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

fn literals_under<'t>(ast: &Ast, ix: &Index<'t>, n: Node<'t>) -> Vec<Node<'t>> {
    ast.all(n)
        .into_iter()
        .filter(|c| {
            is_literal(ast, *c)
                && !ix.parent(*c).is_some_and(|p| {
                    matches!(p.kind(), "unary_operator" | "unary_expression") && is_literal(ast, p)
                })
        })
        .collect()
}
