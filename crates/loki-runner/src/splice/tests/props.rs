//! Properties: generated versions of a file, spliced both ways, keep the module's invariants.

use std::collections::HashSet;

use proptest::prelude::*;

use super::*;
use crate::splice::lines::Eol;

/// One version of a generated Rust file: a variant per item, `None` for an absent test item.
#[derive(Debug, Clone)]
struct RustVersion {
    inner_doc: u8,
    add_body: u8,
    add_doc: u8,
    top_test: Option<u8>,
    m_test: Option<u8>,
    probe: Option<u8>,
    feature_test: Option<u8>,
    tests_mod: Option<u8>,
    crlf: bool,
}

fn rust_version() -> impl Strategy<Value = RustVersion> {
    (
        0u8..3,
        0u8..3,
        0u8..3,
        proptest::option::of(0u8..3),
        proptest::option::of(0u8..3),
        proptest::option::of(0u8..3),
        proptest::option::of(0u8..3),
        proptest::option::of(0u8..3),
        any::<bool>(),
    )
        .prop_map(
            |(
                inner_doc,
                add_body,
                add_doc,
                top_test,
                m_test,
                probe,
                feature_test,
                tests_mod,
                crlf,
            )| {
                RustVersion {
                    inner_doc,
                    add_body,
                    add_doc,
                    top_test,
                    m_test,
                    probe,
                    feature_test,
                    tests_mod,
                    crlf,
                }
            },
        )
}

/// `0`: none, `1`: prose, `2`: an example.
fn rust_doc(kind: u8, indent: &str, marker: &str, v: u8) -> String {
    match kind {
        0 => String::new(),
        1 => format!("{indent}{marker} Prose {v}.\n"),
        _ => format!(
            "{indent}{marker} ```\n{indent}{marker} assert_eq!(1, {v});\n{indent}{marker} ```\n"
        ),
    }
}

fn render_rust(v: &RustVersion) -> String {
    let mut s = rust_doc(v.inner_doc, "", "//!", v.add_body);
    s.push_str(&rust_doc(v.add_doc, "", "///", v.add_body));
    s.push_str(&format!(
        "#[inline]\npub fn add(a: i32, b: i32) -> i32 {{\n    a + b + {}\n}}\n\n",
        v.add_body
    ));
    if let Some(t) = v.top_test {
        s.push_str(&format!(
            "#[test]\n#[should_panic]\nfn top() {{\n    assert_eq!(add(1, 1), {t});\n}}\n\n"
        ));
    }
    s.push_str("pub struct S;\n\nimpl S {\n    pub fn new() -> S {\n        S\n    }\n");
    if let Some(p) = v.probe {
        s.push_str(&format!(
            "\n    #[cfg(test)]\n    fn probe(&self) -> u8 {{\n        {p}\n    }}\n"
        ));
    }
    s.push_str("}\n\npub mod m {\n    pub fn g() -> i32 {\n        7\n    }\n");
    if let Some(t) = v.m_test {
        s.push_str(&format!(
            "\n    #[test]\n    fn gs() {{\n        assert_eq!(super::m::g(), {t});\n    }}\n"
        ));
    }
    s.push_str("}\n\n");
    if let Some(t) = v.feature_test {
        s.push_str(&format!(
            "#[cfg(all(test, feature = \"x\"))]\nfn with_x() -> u8 {{\n    {t}\n}}\n\n"
        ));
    }
    if let Some(t) = v.tests_mod {
        s.push_str(&format!("#[cfg(test)]\nmod tests {{\n    use super::*;\n\n    /// Checks.\n    #[test]\n    fn adds() {{\n        assert_eq!(add(1, 1), {t});\n    }}\n}}\n"));
    }
    if v.crlf { s.replace('\n', "\r\n") } else { s }
}

/// The result's bytes outside the spliced slots, whitespace-only lines dropped (the only glue
/// a splice adds is a line break and indentation before an inserted item).
fn skeleton(path: &str, src: &[u8], relevant: &HashSet<String>) -> Vec<String> {
    let analysis = analyze(grammar_of(path).unwrap(), src).unwrap();
    let mut rest = Vec::new();
    let mut cursor = 0;
    for slot in analysis.slots.iter().filter(|s| relevant.contains(&s.key)) {
        rest.extend_from_slice(&src[cursor..slot.range.start]);
        cursor = slot.range.end;
    }
    rest.extend_from_slice(&src[cursor..]);
    String::from_utf8(rest)
        .unwrap()
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_string())
        .filter(|l| !l.trim().is_empty())
        .collect()
}

fn test_keys(path: &str, src: &[u8]) -> HashSet<String> {
    test_items(path, src)
        .unwrap()
        .into_iter()
        .map(|i| i.key)
        .collect()
}

/// `(key, kind, bytes with LF line endings)`, sorted by key.
fn normalized_items(path: &str, src: &[u8]) -> Vec<(String, ItemKind, Vec<u8>)> {
    let mut v: Vec<_> = test_items(path, src)
        .unwrap()
        .into_iter()
        .map(|i| (i.key, i.kind, Eol::Lf.convert(&src[i.range])))
        .collect();
    v.sort();
    v
}

fn check_invariants(path: &str, code: &[u8], tests: &[u8]) -> Result<(), TestCaseError> {
    prop_assert_eq!(splice(path, code, code), Some(code.to_vec()));
    prop_assert_eq!(splice(path, tests, tests), Some(tests.to_vec()));
    let out = splice(path, code, tests);
    prop_assert!(
        out.is_some(),
        "no splice of\n{}\ninto\n{}",
        String::from_utf8_lossy(tests),
        String::from_utf8_lossy(code)
    );
    let out = out.unwrap_or_default();
    // The result's test items are tests_from's, by key, kind and bytes.
    prop_assert_eq!(normalized_items(path, &out), normalized_items(path, tests));
    // Everything else is code_from's.
    let relevant: HashSet<String> = test_keys(path, code)
        .union(&test_keys(path, tests))
        .cloned()
        .collect();
    prop_assert_eq!(
        skeleton(path, &out, &relevant),
        skeleton(path, code, &relevant)
    );
    // Idempotent.
    prop_assert_eq!(splice(path, &out, tests), Some(out.clone()));
    // code_from's line endings.
    if Eol::of(code) == Eol::Crlf {
        prop_assert_eq!(Eol::of(&out), Eol::Crlf);
    } else if Eol::of(code) == Eol::Lf {
        prop_assert!(!out.contains(&b'\r'));
    }
    Ok(())
}

#[derive(Debug, Clone)]
struct PyVersion {
    module_doc: u8,
    add_doc: u8,
    add_body: u8,
    class_doc: u8,
    method_doc: u8,
    crlf: bool,
}

fn py_version() -> impl Strategy<Value = PyVersion> {
    (0u8..3, 0u8..3, 0u8..3, 0u8..3, 0u8..3, any::<bool>()).prop_map(
        |(module_doc, add_doc, add_body, class_doc, method_doc, crlf)| PyVersion {
            module_doc,
            add_doc,
            add_body,
            class_doc,
            method_doc,
            crlf,
        },
    )
}

fn py_doc(kind: u8, indent: &str, v: u8) -> String {
    match kind {
        0 => String::new(),
        1 => format!("{indent}\"\"\"Prose {v}.\"\"\"\n"),
        _ => format!(
            "{indent}\"\"\"\n{indent}>>> 1 + {v}\n{indent}{}\n{indent}\"\"\"\n",
            1 + v
        ),
    }
}

fn render_py(v: &PyVersion) -> String {
    let mut s = String::from("# header\n");
    s.push_str(&py_doc(v.module_doc, "", v.add_body));
    s.push_str("import os\n\n\n@staticmethod\ndef add(a, b):\n");
    s.push_str(&py_doc(v.add_doc, "    ", v.add_body));
    s.push_str(&format!(
        "    return a + b + {}\n\n\nclass K:\n",
        v.add_body
    ));
    s.push_str(&py_doc(v.class_doc, "    ", v.add_body));
    s.push_str("    x = 1\n\n    def m(self):\n");
    s.push_str(&py_doc(v.method_doc, "        ", v.add_body));
    s.push_str(&format!("        return {}\n", v.add_body));
    if v.crlf { s.replace('\n', "\r\n") } else { s }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn rust_splice_invariants(code in rust_version(), tests in rust_version()) {
        check_invariants("src/lib.rs", render_rust(&code).as_bytes(), render_rust(&tests).as_bytes())?;
    }

    #[test]
    fn python_splice_invariants(code in py_version(), tests in py_version()) {
        check_invariants("pkg/m.py", render_py(&code).as_bytes(), render_py(&tests).as_bytes())?;
    }

    #[test]
    fn vitest_splice_invariants(a in proptest::option::of(0u8..3), b in proptest::option::of(0u8..3), body in 0u8..3) {
        let render = |t: Option<u8>, body: u8| {
            let mut s = format!("export function f() {{\n  return {body};\n}}\n");
            if let Some(t) = t {
                s.push_str(&format!("\nif (import.meta.vitest) {{\n  const {{ it, expect }} = import.meta.vitest;\n  it('f', () => expect(f()).toBe({t}));\n}}\n"));
            }
            s
        };
        check_invariants("src/f.ts", render(a, body).as_bytes(), render(b, 2 - body).as_bytes())?;
    }

    #[test]
    fn never_panics_on_arbitrary_bytes(a in proptest::collection::vec(any::<u8>(), 0..300), b in proptest::collection::vec(any::<u8>(), 0..300)) {
        for path in ["x.rs", "x.py", "x.ts", "x.tsx", "x.js"] {
            let _ = test_items(path, &a);
            let _ = splice(path, &a, &b);
        }
    }

    #[test]
    fn never_panics_on_damaged_files(v in rust_version(), p in py_version(), cut in 0usize..2000, len in 0usize..40, byte in any::<u8>()) {
        for (path, src) in [("x.rs", render_rust(&v)), ("x.py", render_py(&p))] {
            let mut damaged = src.clone().into_bytes();
            let at = cut % (damaged.len() + 1);
            let end = (at + len).min(damaged.len());
            damaged.splice(at..end, [byte]);
            let _ = test_items(path, &damaged);
            if let Some(out) = splice(path, &damaged, src.as_bytes()) {
                // Whatever parses splices into something that parses.
                prop_assert!(test_items(path, &out).is_some());
            }
            let _ = splice(path, src.as_bytes(), &damaged);
        }
    }
}
