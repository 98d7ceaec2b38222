use super::*;
use crate::splice::walk::markdown_has_code;

/// `(key, kind, text)` of each test item.
fn items(path: &str, src: &str) -> Vec<(String, ItemKind, String)> {
    test_items(path, src.as_bytes())
        .unwrap_or_else(|| panic!("{path} does not parse:\n{src}"))
        .into_iter()
        .map(|i| (i.key, i.kind, src[i.range].to_string()))
        .collect()
}

fn keys(path: &str, src: &str) -> Vec<String> {
    items(path, src).into_iter().map(|(k, _, _)| k).collect()
}

fn spliced(path: &str, code: &str, tests: &str) -> String {
    let out = splice(path, code.as_bytes(), tests.as_bytes())
        .unwrap_or_else(|| panic!("no splice of\n{tests}\ninto\n{code}"));
    String::from_utf8(out).unwrap()
}

const RUST: &str = r#"//! Crate docs.
//!
//! ```
//! assert_eq!(demo::add(1, 2), 3);
//! ```

/// Adds.
///
/// ```
/// assert_eq!(demo::add(2, 2), 4);
/// ```
#[inline]
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

/// Prose only, no example.
pub fn sub(a: i32, b: i32) -> i32 {
    a - b
}

#[cfg(not(test))]
fn now() -> u64 { 1 }
#[cfg(test)]
fn now() -> u64 { 0 }

#[cfg(any(test, feature = "fake"))]
pub fn fake() {}

#[cfg(all(test, feature = "x"))]
fn only_with_x() {}

pub struct Point {
    /// ```
    /// let _ = 1;
    /// ```
    pub x: i32,
}

pub enum Mode {
    /// Fast.
    ///
    ///     assert!(true);
    Fast,
    Slow,
}

impl Point {
    /// ```
    /// demo::Point::new();
    /// ```
    pub fn new() -> Point { Point { x: 0 } }

    #[cfg(test)]
    fn probe(&self) -> i32 { self.x }
}

impl std::fmt::Display for Point {
    /// ```
    /// let _ = 2;
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "p") }
}

#[doc = include_str!("../README.md")]
pub mod readme {}

pub mod net {
    pub fn checks() -> bool { true }

    #[test]
    #[should_panic]
    fn panics() { panic!() }

    #[cfg(test)]
    mod tests {
        #[test]
        fn checks() { assert!(super::checks()); }
    }
}

#[tokio::test]
async fn top_async() {}

proptest::proptest! {
    #[test]
    fn prop(x in 0..1) { let _ = x; }
}

#[cfg(test)]
mod files;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(1, 2), 3);
    }
}
"#;

#[test]
fn rust_items_keys_and_ranges() {
    let got = items("src/lib.rs", RUST);
    let keys: Vec<(&str, ItemKind)> = got.iter().map(|(k, kind, _)| (k.as_str(), *kind)).collect();
    assert_eq!(
        keys,
        vec![
            ("inner doc", ItemKind::Doctest),
            ("doc fn add", ItemKind::Doctest),
            ("fn now", ItemKind::TestFn),
            ("fn only_with_x", ItemKind::TestFn),
            ("doc field Point::x", ItemKind::Doctest),
            ("doc variant Mode::Fast", ItemKind::Doctest),
            ("doc fn Point::new", ItemKind::Doctest),
            ("fn Point::probe", ItemKind::TestFn),
            (
                "doc fn <Point as std::fmt::Display>::fmt",
                ItemKind::Doctest
            ),
            ("doc mod readme", ItemKind::Doctest),
            ("fn net::panics", ItemKind::TestFn),
            ("mod net::tests", ItemKind::TestModule),
            ("fn top_async", ItemKind::TestFn),
            ("macro! proptest::proptest", ItemKind::TestOnly),
            ("mod files", ItemKind::TestModule),
            ("mod tests", ItemKind::TestModule),
        ]
    );
    let text = |key: &str| got.iter().find(|(k, _, _)| k == key).unwrap().2.as_str();
    // The doc is the doctest, the item it documents is not; stacked attributes belong to
    // the test function, whole lines with their indentation and line break.
    assert_eq!(
        text("doc fn add"),
        "/// Adds.\n///\n/// ```\n/// assert_eq!(demo::add(2, 2), 4);\n/// ```\n"
    );
    assert_eq!(
        text("fn net::panics"),
        "    #[test]\n    #[should_panic]\n    fn panics() { panic!() }\n"
    );
    assert_eq!(text("fn now"), "#[cfg(test)]\nfn now() -> u64 { 0 }\n");
    assert_eq!(text("mod files"), "#[cfg(test)]\nmod files;\n");
    assert!(text("mod tests").ends_with("    }\n}\n"));
    assert!(has_test_items("src/lib.rs", RUST.as_bytes()));
    assert!(!has_test_items(
        "src/lib.rs",
        b"/// Prose.\npub fn f() {}\n"
    ));
    assert_eq!(test_items("src/lib.rs", b"pub fn f() {}\n"), Some(vec![]));
}

#[test]
fn unhandled_and_unparsable_files_are_none() {
    assert_eq!(SpliceLang::of_path("a/b.rs"), Some(SpliceLang::Rust));
    assert_eq!(SpliceLang::of_path("b.py"), Some(SpliceLang::Python));
    assert_eq!(SpliceLang::of_path("src/x.test.tsx"), Some(SpliceLang::Js));
    assert_eq!(SpliceLang::of_path("main.go"), None);
    assert_eq!(SpliceLang::of_path("Makefile"), None);
    assert_eq!(test_items("main.go", b"package main\n"), None);
    assert_eq!(test_items("x.rs", b"fn broken( {\n"), None);
    assert_eq!(test_items("x.rs", b"\xff\xfe"), None);
    assert_eq!(test_items("x.py", b"def f(:\n"), None);
    assert!(!has_test_items("x.rs", b"fn broken( {\n"));
    let good = b"pub fn f() {}\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(splice("x.rs", good, b"fn broken( {\n"), None);
    assert_eq!(splice("x.rs", b"fn broken( {\n", good), None);
    assert_eq!(splice("x.go", good, good), None);
    let big = vec![b' '; MAX_SPLICE_BYTES + 1];
    assert_eq!(test_items("x.rs", &big), None);
}

const BASE: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n";
const HEAD: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a * 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 3), 4);\n    }\n}\n";

#[test]
fn original_tests_on_new_code_take_only_the_test_module() {
    let hybrid = spliced("src/lib.rs", HEAD, BASE);
    assert!(hybrid.contains("a * 2"), "{hybrid}");
    assert!(hybrid.contains("add(2, 2), 4"), "{hybrid}");
    assert!(!hybrid.contains("a + b") && !hybrid.contains("add(2, 3)"));
    let other = spliced("src/lib.rs", BASE, HEAD);
    assert!(other.contains("a + b") && other.contains("add(2, 3), 4"));
    assert_eq!(spliced("src/lib.rs", HEAD, HEAD), HEAD);
}

#[test]
fn items_only_on_one_side_are_removed_or_inserted_where_they_belong() {
    let code = "pub fn f() -> u8 { 2 }\n\npub mod m {\n    pub fn g() {}\n}\n";
    let tests = "pub fn f() -> u8 { 1 }\n\n/// ```\n/// assert!(true);\n/// ```\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n\n    #[test]\n    fn gs() { super::g() }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    // `h` is missing from the code: its doctest cannot be placed.
    assert_eq!(splice("lib.rs", code.as_bytes(), tests.as_bytes()), None);
    let code = "pub fn f() -> u8 { 2 }\n\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n}\n";
    let out = spliced("lib.rs", code, tests);
    assert_eq!(
        out,
        "pub fn f() -> u8 { 2 }\n\n/// ```\n/// assert!(true);\n/// ```\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n    #[test]\n    fn gs() { super::g() }\n}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n"
    );
    // And back: the test items only in the result go, its source stays.
    let back = spliced("lib.rs", &out, code);
    assert_eq!(
        back,
        "pub fn f() -> u8 { 2 }\n\n#[must_use]\npub fn h() {}\n\npub mod m {\n    pub fn g() {}\n}\n"
    );
}

#[test]
fn a_doctest_swaps_the_doc_and_keeps_the_item() {
    let base = "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 }\n";
    let head = "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 5);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 + 1 }\n";
    let hybrid = spliced("src/lib.rs", head, base);
    assert_eq!(
        hybrid,
        "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 2 + 1 }\n"
    );
    // A prose doc on one side and a doctest on the other: the doc is swapped whole.
    let prose = "/// Doubles.\npub fn double(x: i32) -> i32 { x * 3 }\n";
    assert_eq!(
        spliced("src/lib.rs", prose, base),
        "/// Doubles.\n///\n/// ```\n/// assert_eq!(demo::double(2), 4);\n/// ```\npub fn double(x: i32) -> i32 { x * 3 }\n"
    );
    assert_eq!(
        spliced("src/lib.rs", base, prose),
        "/// Doubles.\npub fn double(x: i32) -> i32 { x * 2 }\n"
    );
    // Prose on both sides is source: code_from's stays.
    let prose2 = "/// Triples.\npub fn double(x: i32) -> i32 { x * 3 }\n";
    assert_eq!(spliced("src/lib.rs", prose, prose2), prose);
    // Inner docs and `#[doc = ..]` attributes are docs too.
    let inner = "//! ```\n//! assert!(demo::ok());\n//! ```\n\npub fn ok() -> bool { true }\n";
    let plain = "pub fn ok() -> bool { false }\n";
    assert_eq!(
        spliced("src/lib.rs", plain, inner),
        "//! ```\n//! assert!(demo::ok());\n//! ```\npub fn ok() -> bool { false }\n"
    );
    assert_eq!(
        spliced("src/lib.rs", inner, plain),
        "\npub fn ok() -> bool { true }\n"
    );
    let attr = "#[doc = \"```\\nassert!(true);\\n```\"]\npub fn ok() -> bool { false }\n";
    assert_eq!(keys("src/lib.rs", attr), vec!["doc fn ok"]);
    assert_eq!(spliced("src/lib.rs", plain, attr), attr);
}

#[test]
fn docs_interleaved_with_attributes_are_not_swapped() {
    let tangled = "/// ```\n/// assert!(true);\n/// ```\n#[inline]\n/// More.\npub fn f() {}\n";
    let other = "/// ```\n/// assert!(false);\n/// ```\npub fn f() {}\n";
    assert_eq!(keys("lib.rs", tangled), vec!["doc fn f"]);
    assert_eq!(splice("lib.rs", tangled.as_bytes(), other.as_bytes()), None);
    assert_eq!(splice("lib.rs", other.as_bytes(), tangled.as_bytes()), None);
    assert_eq!(spliced("lib.rs", tangled, tangled), tangled);
}

#[test]
fn collisions_and_missing_containers_are_refused() {
    // A source `mod tests` holding `#[test]`s on one side, `#[cfg(test)] mod tests` on the
    // other: two modules of one name would not compile.
    let source_mod = "pub fn f() {}\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    let cfg_mod = "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(keys("lib.rs", source_mod), vec!["fn tests::t"]);
    assert_eq!(
        splice("lib.rs", source_mod.as_bytes(), cfg_mod.as_bytes()),
        None
    );
    assert_eq!(
        splice("lib.rs", cfg_mod.as_bytes(), source_mod.as_bytes()),
        None
    );
    // A cfg'd source item of the same name is the usual test seam, not a collision.
    let real = "#[cfg(not(test))]\nfn now() -> u64 { 1 }\n";
    let fake = "#[cfg(not(test))]\nfn now() -> u64 { 1 }\n#[cfg(test)]\nfn now() -> u64 { 0 }\n";
    assert_eq!(spliced("lib.rs", real, fake), fake);
    assert_eq!(spliced("lib.rs", fake, real), real);
}

#[test]
fn crlf_files_stay_crlf() {
    let code = HEAD.replace('\n', "\r\n");
    let out = spliced("src/lib.rs", &code, BASE);
    assert_eq!(out, spliced("src/lib.rs", HEAD, BASE).replace('\n', "\r\n"));
    let lf = spliced("src/lib.rs", HEAD, &BASE.replace('\n', "\r\n"));
    assert!(!lf.contains('\r'));
    // Appended at the end of a CRLF file without a final line break.
    let code = "pub fn f() {}".to_string();
    let tests = "pub fn f() {}\r\n#[cfg(test)]\r\nmod tests {}\r\n";
    assert_eq!(
        spliced("lib.rs", &code, tests),
        "pub fn f() {}\n#[cfg(test)]\nmod tests {}\n"
    );
    let code = "pub fn g() {}\r\npub fn f() {}";
    assert_eq!(
        spliced("lib.rs", code, tests),
        "pub fn g() {}\r\npub fn f() {}\r\n#[cfg(test)]\r\nmod tests {}\r\n"
    );
}

#[test]
fn module_declarations_nested_modules_and_test_only_files() {
    let declared = "pub fn f() {}\n\n#[cfg(test)]\nmod tests;\n";
    let inline = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(items("lib.rs", declared)[0].2, "#[cfg(test)]\nmod tests;\n");
    assert_eq!(spliced("lib.rs", declared, inline), inline);
    assert_eq!(spliced("lib.rs", inline, declared), declared);
    // A test module nested in a source module goes back into that module.
    let code = "pub mod net {\n    pub fn up() -> bool { false }\n}\n";
    let tests = "pub mod net {\n    pub fn up() -> bool { true }\n\n    #[cfg(test)]\n    mod tests {\n        #[test]\n        fn up() { assert!(super::up()); }\n    }\n}\n";
    assert_eq!(keys("lib.rs", tests), vec!["mod net::tests"]);
    assert_eq!(
        spliced("lib.rs", code, tests),
        "pub mod net {\n    pub fn up() -> bool { false }\n    #[cfg(test)]\n    mod tests {\n        #[test]\n        fn up() { assert!(super::up()); }\n    }\n}\n"
    );
    // Its container missing from code_from: cannot be placed.
    assert_eq!(
        splice("lib.rs", b"pub fn up() {}\n", tests.as_bytes()),
        None
    );
    // `#![cfg(test)]` inside a module makes it a test module; on a file, the file is one.
    let inner = "pub fn f() {}\nmod checks {\n    #![cfg(test)]\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(items("lib.rs", inner)[0].1, ItemKind::TestModule);
    assert_eq!(keys("lib.rs", inner), vec!["mod checks"]);
    let whole_a = "#![cfg(test)]\nuse super::*;\n#[test]\nfn a() {}\n";
    let whole_b = "#![cfg(test)]\n#[test]\nfn b() {}\n";
    assert_eq!(keys("tests.rs", whole_a), vec!["file"]);
    assert_eq!(spliced("tests.rs", whole_a, whole_b), whole_b);
    assert_eq!(
        splice("tests.rs", whole_a.as_bytes(), inline.as_bytes()),
        None
    );
    assert_eq!(
        splice("tests.rs", inline.as_bytes(), whole_a.as_bytes()),
        None
    );
}

#[test]
fn byte_order_mark() {
    let bom = "\u{feff}//! ```\n//! x();\n//! ```\npub fn f() {}\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(keys("lib.rs", bom), vec!["inner doc", "mod tests"]);
    // Inner docs go after the mark, which stays first.
    assert_eq!(spliced("lib.rs", "\u{feff}pub fn f() {}\n", bom), bom);
    let doc = "\u{feff}\"\"\">>> 1\n1\n\"\"\"\nimport os\n";
    assert_eq!(keys("m.py", doc), vec!["doc module"]);
    assert_eq!(spliced("m.py", "\u{feff}import os\n", doc), doc);
    assert_eq!(
        spliced("m.py", doc, "\u{feff}import os\n"),
        "\u{feff}\nimport os\n"
    );
}

#[test]
fn cfg_predicates() {
    let only = |args: &str| {
        let p = cfg::parse(args).unwrap();
        p.eval(false) == cfg::Tri::False && p.eval(true) != cfg::Tri::False
    };
    assert!(only("(test)"));
    assert!(only("(all(test, feature = \"x\"))"));
    assert!(only("(all(unix, any(test, any())))"));
    assert!(!only("(all(unix, any(test, all())))"));
    assert!(only("(not(not(test)))"));
    assert!(!only("(any(test, feature = \"x\"))"));
    assert!(!only("(not(test))"));
    assert!(!only("(unix)"));
    assert!(!only("(any())"));
    assert!(!only("(all(test, not(test)))"));
    assert_eq!(cfg::parse("(test"), None);
    assert_eq!(cfg::parse("(foo(test))"), None);
    assert_eq!(cfg::parse("(feature = )"), None);
}

#[test]
fn code_blocks_in_docs() {
    assert!(markdown_has_code(" a\n\n ```\n x\n ```\n"));
    assert!(markdown_has_code(" a\n ~~~rust\n x\n ~~~\n"));
    assert!(markdown_has_code(" a\n\n     let x = 1;\n"));
    assert!(!markdown_has_code(" a\n b `code`\n"));
    assert!(!markdown_has_code(" a\n     continued\n"));
}

const PY: &str = r#"#!/usr/bin/env python3
"""Module doc.

>>> add(1, 2)
3
"""

def add(a, b):
    """Add.

    >>> add(2, 2)
    4
    """
    return a + b

def sub(a, b):
    """Prose only."""
    return a - b

class Calc:
    r""">>> Calc().mul(2, 3)
    6
    """

    def mul(self, a, b):
        """
        >>> Calc().mul(1, 1)
        1
        """
        return a * b

    class Inner:
        """>>> 1
        1
        """

    if True:
        def cond(self):
            """>>> 2
            2
            """
            return 2

def outer():
    def nested():
        """>>> 3"""
    return nested

b"""not a doc >>> 1"""
"#;

#[test]
fn python_docstrings_by_qualified_owner() {
    assert_eq!(
        keys("m.py", PY),
        vec![
            "doc module",
            "doc def add",
            "doc class Calc",
            "doc def Calc.mul",
            "doc class Calc.Inner",
            "doc def Calc.cond"
        ]
    );
    let got = items("m.py", PY);
    assert_eq!(
        got[1].2,
        "\"\"\"Add.\n\n    >>> add(2, 2)\n    4\n    \"\"\""
    );
    let f = "def f():\n    '''>>> f()'''\n    return f\n";
    assert_eq!(keys("m.py", f), vec!["doc def f"]);
    assert_eq!(
        keys("m.py", "def f():\n    f'''>>> {x}'''\n    return 1\n"),
        Vec::<String>::new()
    );
}

#[test]
fn python_splices_docstrings_only() {
    let base =
        "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    4\n    \"\"\"\n    return a + b\n";
    let head =
        "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    5\n    \"\"\"\n    return a + b + 1\n";
    assert_eq!(
        spliced("m.py", head, base),
        "def add(a, b):\n    \"\"\"\n    >>> add(2, 2)\n    4\n    \"\"\"\n    return a + b + 1\n"
    );
    // Inserted as the body's first statement, with the body's indentation.
    let bare = "class K:\n    def add(self, a, b):\n        # why\n        return a - b\n";
    let doc = "class K:\n    def add(self, a, b):\n        \"\"\">>> K().add(1, 1)\n        2\n        \"\"\"\n        return a + b\n";
    let out = spliced("m.py", bare, doc);
    assert_eq!(
        out,
        "class K:\n    def add(self, a, b):\n        # why\n        \"\"\">>> K().add(1, 1)\n        2\n        \"\"\"\n        return a - b\n"
    );
    // Removed, leaving the line blank.
    assert_eq!(
        spliced("m.py", doc, bare),
        "class K:\n    def add(self, a, b):\n        \n        return a + b\n"
    );
    // A module docstring goes before the first statement, after comments and a shebang.
    let plain = "#!/usr/bin/env python3\nimport os\n";
    let with = "#!/usr/bin/env python3\n\"\"\">>> 1\n1\n\"\"\"\nimport os\n";
    assert_eq!(spliced("m.py", plain, with), with);
    assert_eq!(spliced("m.py", "", with), "\"\"\">>> 1\n1\n\"\"\"");
    // Cannot place: a body on the `def` line; a docstring that is its body's only statement.
    let inline = "def f(): return 1\n";
    let doc_f = "def f():\n    \">>> f()\"\n    return 1\n";
    assert_eq!(splice("m.py", inline.as_bytes(), doc_f.as_bytes()), None);
    let only = "def f():\n    \">>> f()\"\n";
    assert_eq!(splice("m.py", only.as_bytes(), inline.as_bytes()), None);
    assert_eq!(spliced("m.py", only, doc_f), only);
    // The docstring takes the body's indentation, whatever tests_from's was.
    let tabs = "def f():\n\treturn 1\n";
    let out = splice("m.py", tabs.as_bytes(), doc_f.as_bytes()).map(String::from_utf8);
    assert_eq!(
        out,
        Some(Ok("def f():\n\t\">>> f()\"\n\treturn 1\n".to_string()))
    );
}

#[test]
fn vitest_in_source_blocks() {
    let base = "export const add = (a: number, b: number) => a + b;\n\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('adds', () => expect(add(2, 2)).toBe(4));\n}\n";
    let head = "export const add = (a: number, b: number) => a * b;\n";
    assert_eq!(keys("src/add.ts", base), vec!["vitest"]);
    assert_eq!(items("src/add.ts", base)[0].1, ItemKind::InSource);
    assert_eq!(keys("src/add.ts", head), Vec::<String>::new());
    assert_eq!(
        spliced("src/add.ts", head, base),
        "export const add = (a: number, b: number) => a * b;\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('adds', () => expect(add(2, 2)).toBe(4));\n}\n"
    );
    assert_eq!(
        spliced("src/add.ts", base, head),
        "export const add = (a: number, b: number) => a + b;\n\n"
    );
    let jsx = "export const A = () => <div/>;\nif (import.meta.vitest != null) { import.meta.vitest.it('x', () => {}) }\n";
    assert_eq!(keys("a.jsx", jsx), vec!["vitest"]);
    assert_eq!(keys("a.tsx", jsx), vec!["vitest"]);
}

mod props;
