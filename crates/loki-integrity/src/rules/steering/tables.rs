//! Tables in new code: literal maps and lists of pairs, bound to a name, used in place, built
//! entry by entry (`m.insert(k, v)`, `m.set(k, v)`, `m[k] = v`) or from a list of pairs
//! (`HashMap::from([...])`, `new Map([...])`, `dict([...])`), and whether a function consults one
//! as a shortcut before (or instead of) computing its answer.

use std::collections::BTreeMap;

use tree_sitter::Node;

use crate::rules::values::{Val, unwrap_element, value};
use loki_syntax::ast::{Ast, Index, binding, line, named_children};
use loki_syntax::literals::Lit;

/// A table's entries: key, value, and the line of the entry.
pub(super) type Entries = Vec<(Val, Val, u32)>;

/// Tables bound to a name (`KNOWN = {...}`, `var known = map[..]..{...}`, `const known = new
/// Map([...])`, `static KNOWN: &[(&str, &str)] = &[...]`), with the entries inserted into them.
pub(super) fn named_tables<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
) -> BTreeMap<String, (Node<'t>, Entries)> {
    let mut out: BTreeMap<String, (Node<'t>, Entries)> = BTreeMap::new();
    for &n in ix.nodes() {
        let Some((name, val)) = binding(n) else {
            continue;
        };
        let name = ast
            .text_of(name)
            .trim()
            .trim_start_matches("mut ")
            .to_owned();
        let entries = entries_of(ast, val);
        if !entries.is_empty() {
            out.insert(name, (val, entries));
        }
    }
    // Entries put in one by one, into a table declared empty or not at all here.
    for &n in ix.nodes() {
        let Some((name, k, v)) = inserted(ast, n) else {
            continue;
        };
        out.entry(name)
            .or_insert_with(|| (n, Vec::new()))
            .1
            .push((k, v, line(n)));
    }
    out
}

/// Collections bound to a name (`EDGES = {90, 80}`, `const EDGES = new Set([90, 80])`,
/// `const SQUARES: [u64; 4] = [4, 9, 25, 49]`, `var allow = []string{..}`), by name.
pub(super) fn named_sets(ast: &Ast, ix: &Index<'_>) -> BTreeMap<String, Val> {
    let mut out = BTreeMap::new();
    for &n in ix.nodes() {
        let Some((name, mut val)) = binding(n) else {
            continue;
        };
        // Through `&`, `new Set(..)`, `set(..)`, `HashSet::from(..)`.
        loop {
            match val.kind() {
                "reference_expression" | "parenthesized_expression" => match val.named_child(0) {
                    Some(c) => val = c,
                    None => break,
                },
                "call_expression" | "call" | "new_expression" | "object_creation_expression" => {
                    let args = val
                        .child_by_field_name("arguments")
                        .map(named_children)
                        .unwrap_or_default();
                    match args.as_slice() {
                        [one] => val = *one,
                        _ => break,
                    }
                }
                _ => break,
            }
        }
        if let Some(v @ Val::Seq(_)) = value(ast, val) {
            out.insert(
                ast.text_of(name)
                    .trim()
                    .trim_start_matches("mut ")
                    .to_owned(),
                v,
            );
        }
    }
    out
}

/// `name.insert(k, v)`, `name.set(k, v)`, `name.put(k, v)` and `name[k] = v` with literal key
/// and value.
fn inserted(ast: &Ast, n: Node) -> Option<(String, Val, Val)> {
    match n.kind() {
        "call_expression" | "call" | "method_invocation" => {
            let c = loki_syntax::ast::call(ast, n)?;
            if !matches!(
                c.method,
                "insert" | "set" | "put" | "putIfAbsent" | "setdefault"
            ) {
                return None;
            }
            let obj = c.object?;
            let [k, v] = c.args[..] else { return None };
            Some((
                ast.text_of(obj).trim().to_owned(),
                value(ast, k).or_else(|| built_key(ast, k))?,
                value(ast, v)?,
            ))
        }
        "assignment" | "assignment_expression" => {
            let left = n.child_by_field_name("left")?;
            let right = n.child_by_field_name("right")?;
            let (obj, key) = match left.kind() {
                "subscript" => (
                    left.child_by_field_name("value")?,
                    left.child_by_field_name("subscript")?,
                ),
                "subscript_expression" => (
                    left.child_by_field_name("object")?,
                    left.child_by_field_name("index")?,
                ),
                _ => return None,
            };
            Some((
                ast.text_of(obj).trim().to_owned(),
                value(ast, key)?,
                value(ast, right)?,
            ))
        }
        _ => None,
    }
}

/// A key built by a call on literals only (`key(48.85, 2.35)`, `Key.of("a", 1)`): the composite
/// of those literals, which is what the key stands for.
fn built_key(ast: &Ast, n: Node) -> Option<Val> {
    let c = loki_syntax::ast::call(ast, n)?;
    if c.args.len() < 2 {
        return None;
    }
    c.args
        .iter()
        .map(|a| value(ast, *a))
        .collect::<Option<Vec<_>>>()
        .map(Val::Seq)
}

/// Table literals used in place (`{...}[x]`, `{...}.get(x)`, `({...})[x] ?? y`).
pub(super) fn inline_tables<'t>(ast: &'t Ast, ix: &Index<'t>) -> Vec<(Node<'t>, Entries)> {
    let mut out = Vec::new();
    for &n in ix.nodes() {
        if !matches!(n.kind(), "dictionary" | "object" | "composite_literal") {
            continue;
        }
        let used_in_place = ix.parent(n).is_some_and(|p| {
            matches!(
                p.kind(),
                "subscript"
                    | "subscript_expression"
                    | "index_expression"
                    | "attribute"
                    | "member_expression"
                    | "parenthesized_expression"
            )
        });
        if used_in_place {
            let e = entries_of(ast, n);
            if !e.is_empty() {
                out.push((n, e));
            }
        }
    }
    out
}

/// A table literal's entries with their lines (keys that are values only): a dict, object or
/// keyed composite literal, or a list of pairs, directly or as the one argument of a
/// constructor (`HashMap::from`, `new Map`, `dict`), behind a `&` or not.
pub(super) fn entries_of(ast: &Ast, n: Node) -> Entries {
    let mut out = Vec::new();
    // Java's `Map.of(k, v, ..)` / `Map.ofEntries(..)`, read by the value reader.
    if matches!(n.kind(), "method_invocation" | "object_creation_expression")
        && let Some(Val::Map(pairs)) = value(ast, n)
    {
        return pairs.into_iter().map(|(k, v)| (k, v, line(n))).collect();
    }
    let mut n = n;
    loop {
        match n.kind() {
            "reference_expression" | "parenthesized_expression" => match n.named_child(0) {
                Some(c) => n = c,
                None => return out,
            },
            "call_expression" | "call" | "new_expression" => {
                let args = n
                    .child_by_field_name("arguments")
                    .map(named_children)
                    .unwrap_or_default();
                // `[..].into_iter().collect()`: the receiver of a method chain.
                let receiver = n
                    .child_by_field_name("function")
                    .filter(|f| {
                        matches!(
                            f.kind(),
                            "field_expression" | "member_expression" | "attribute"
                        )
                    })
                    .and_then(|f| {
                        f.child_by_field_name("value")
                            .or_else(|| f.child_by_field_name("object"))
                    });
                match (args.as_slice(), receiver) {
                    ([one], _) => n = *one,
                    ([], Some(r)) => n = r,
                    _ => return out,
                }
            }
            _ => break,
        }
    }
    let body = if n.kind() == "composite_literal" {
        n.child_by_field_name("body")
    } else {
        Some(n)
    };
    let Some(body) = body else { return out };
    for p in named_children(body) {
        let p = unwrap_element(p);
        let (k, v) = match p.kind() {
            "pair" => (p.child_by_field_name("key"), p.child_by_field_name("value")),
            "keyed_element" => {
                let kids = named_children(p);
                (kids.first().copied(), kids.get(1).copied())
            }
            // `[((19, 50), 7), ..]`, `[["racecar", 4711]]`: pairs as tuples or arrays.
            "tuple" | "tuple_expression" | "array" | "list" | "literal_value" => {
                let kids = named_children(p);
                if kids.len() == 2 {
                    (kids.first().copied(), kids.get(1).copied())
                } else {
                    (None, None)
                }
            }
            _ => (None, None),
        };
        if let (Some(k), Some(v)) = (k, v) {
            let kv = match k.kind() {
                "property_identifier" | "identifier" | "field_identifier" => {
                    Some(Val::Leaf(Lit::Str(ast.text_of(k).to_owned())))
                }
                _ => value(ast, unwrap_element(k)),
            };
            if let (Some(kv), Some(vv)) = (kv, value(ast, unwrap_element(v))) {
                out.push((kv, vv, line(p)));
            }
        }
    }
    out
}

/// The function that builds the table `name` (bound or filled at `def`) and hands it out
/// (`return t`, or `t` as its last expression, also through a lazy initialiser such as
/// `OnceLock::get_or_init(|| { ..; t })`): its name, which stands for the table where it is
/// called, and its node.
pub(super) fn returned_by<'t>(
    ast: &'t Ast,
    ix: &Index<'t>,
    name: &str,
    def: Node<'t>,
) -> Option<(String, Node<'t>)> {
    let named = |f: &Node<'t>| {
        matches!(
            f.kind(),
            "function_definition" | "function_declaration" | "method_declaration" | "function_item"
        )
    };
    let func = ix.ancestors(def).into_iter().find(named)?;
    let fname = ast.text_of(func.child_by_field_name("name")?).to_owned();
    let body = ast.text_of(func.child_by_field_name("body")?);
    let hands_out = body.lines().any(|l| {
        let t = l.trim().trim_end_matches(';').trim();
        t == name || t.strip_prefix("return ").is_some_and(|r| r.trim() == name)
    });
    (hands_out && fname != name).then_some((fname, func))
}

/// Whether the file consults the table `name` as a shortcut: in a condition or an `if`'s
/// header (`if key in KNOWN`, `if s, ok := known[n]; ok`, `if let Some(v) = KNOWN.get(..)`),
/// with a fallback (`KNOWN[x] ?? compute(x)`, `KNOWN.get(x, x)`, `.unwrap_or`, `getOrDefault`),
/// or searched (`.find`, `.some`, `.includes`, `.contains_key`, `.has`).
pub(super) fn consulted(ast: &Ast, ix: &Index<'_>, name: &str, def: Node) -> bool {
    const SHORTCUT: &[&str] = &[
        "??",
        "||",
        " or ",
        "get(",
        "unwrap_or",
        "getOrDefault",
        "computeIfAbsent(",
        "contains_key",
        "has(",
        ".find(",
        ".some(",
        "includes(",
        ".contains(",
        " in ",
        "ok {",
        "; ok",
        "if let",
    ];
    for &n in ix.nodes() {
        if n.kind() != "identifier" && n.kind() != "field_identifier" {
            continue;
        }
        if ast.text_of(n) != name
            || (def.start_byte() <= n.start_byte() && n.end_byte() <= def.end_byte())
        {
            continue;
        }
        let row = line(n).saturating_sub(1) as usize;
        // The line, and the method chain continuing it (`KNOWN\n    .iter()\n    .find(..)`).
        let mut text = ast.text.lines().nth(row).unwrap_or("").to_owned();
        for next in ast.text.lines().skip(row + 1).take(4) {
            if !next.trim_start().starts_with('.') {
                break;
            }
            text.push_str(next);
        }
        if SHORTCUT.iter().any(|s| text.contains(s))
            || ix.ancestors(n).iter().any(|a| {
                a.child_by_field_name("condition").is_some_and(|c| {
                    c.start_byte() <= n.start_byte() && n.end_byte() <= c.end_byte()
                })
            })
        {
            return true;
        }
    }
    false
}
