//! What counts as test code, and what is counted in it: test declarations, assertions, skip
//! markers and early returns.
//!
//! Counting is per file over the lexed code (comments dropped, strings blanked). In a Rust file
//! outside `tests/`, only the items under `#[cfg(test)]` / `#[test]` attributes are test code, so
//! an assertion removed from library code is not a weakened test.

use std::collections::BTreeMap;

use crate::lex::{
    Lang, Lexed, count_token, count_word, find_token, matching, rest_trimmed, starts_with_word,
};

/// Rust attributes that open test code.
const RUST_TEST_ATTRS: &[&str] = &[
    "#[test]",
    "#[tokio::test",
    "#[async_std::test",
    "#[rstest",
    "#[test_case(",
];
const RUST_CFG_TEST: &str = "#[cfg(test)]";

/// Whether `path` names a test file by convention (content is not looked at).
pub fn is_test_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let dirs: Vec<&str> = path.split('/').rev().skip(1).collect();
    let in_dir = |d: &str| dirs.contains(&d);
    match Lang::of_source(path) {
        Some(Lang::Rust) => in_dir("tests"),
        Some(Lang::Python) => {
            name.starts_with("test_")
                || name.ends_with("_test.py")
                || name == "conftest.py"
                || in_dir("tests")
                || in_dir("test")
        }
        Some(Lang::Js) => {
            let stem = name.split('.').next().unwrap_or(name);
            name.contains(".test.")
                || name.contains(".spec.")
                || in_dir("__tests__")
                || in_dir("test")
                || in_dir("tests")
                || stem == "test"
                || stem.starts_with("test-")
                || stem.ends_with("-test")
                || stem.ends_with("_test")
        }
        Some(Lang::Go) => name.ends_with("_test.go"),
        // Maven's layout (`src/test/java`), else Surefire's default test class names.
        Some(Lang::Java) => {
            let stem = name.strip_suffix(".java").unwrap_or(name);
            in_dir("test")
                || stem.starts_with("Test")
                || stem.ends_with("Test")
                || stem.ends_with("Tests")
                || stem.ends_with("TestCase")
        }
        Some(Lang::Hash) | None => false,
    }
}

/// Whether a file is a test file: by path, or (Rust) by holding test attributes.
pub fn is_test_file(path: &str, lexed: Option<&Lexed>) -> bool {
    is_test_path(path)
        || (Lang::of_source(path) == Some(Lang::Rust)
            && lexed.is_some_and(|l| {
                count_token(&l.code, RUST_CFG_TEST) > 0
                    || RUST_TEST_ATTRS.iter().any(|a| count_token(&l.code, a) > 0)
            }))
}

/// The test code of a file: the whole file, or for Rust library files the attributed items.
pub fn test_code(path: &str, lang: Lang, code: &str) -> String {
    if lang != Lang::Rust || is_test_path(path) {
        return code.to_owned();
    }
    let mut out = String::new();
    for (start, end) in rust_test_regions(code) {
        out.push_str(&code[start..end]);
        out.push('\n');
    }
    out
}

/// Byte ranges of lexed Rust `code` under test attributes (`#[cfg(test)]`, `#[test]`, ...): the
/// attribute through the end of the item's braces, in order, not overlapping.
pub fn rust_test_regions(code: &str) -> Vec<(usize, usize)> {
    let mut regions: Vec<(usize, usize)> = RUST_TEST_ATTRS
        .iter()
        .chain(std::iter::once(&RUST_CFG_TEST))
        .flat_map(|a| find_token(code, a))
        .map(|start| {
            let end = code[start..]
                .find('{')
                .map_or(code.len(), |b| matching(code, start + b));
            (start, end)
        })
        .collect();
    regions.sort_unstable();
    let mut out = Vec::new();
    let mut covered = 0;
    for (start, end) in regions {
        let from = start.max(covered);
        if from < end {
            out.push((from, end));
            covered = end;
        }
    }
    out
}

/// Counts in one file's test code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub tests: usize,
    pub asserts: usize,
    /// Skip-like markers by their display form.
    pub skips: BTreeMap<&'static str, usize>,
    /// Tests whose body starts with `return`.
    pub early_returns: usize,
}

struct Patterns {
    tests: &'static [&'static str],
    /// Test declarations counted as whole words (`@Test` but not `@TestInstance`).
    test_words: &'static [&'static str],
    asserts: &'static [&'static str],
    /// Counted as whole words (`assert` but not `assertion`).
    assert_words: &'static [&'static str],
    skips: &'static [&'static str],
    /// Assertions that hold whatever the code does (`assertTrue(true)`): counted as none.
    vacuous: &'static [&'static str],
}

/// JUnit's (4 and 5), AssertJ's and Mockito's assertions, called bare (a static import) or
/// through their class.
const JAVA_ASSERTS: &[&str] = &[
    "assertEquals(",
    "assertNotEquals(",
    "assertTrue(",
    "assertFalse(",
    "assertNull(",
    "assertNotNull(",
    "assertSame(",
    "assertNotSame(",
    "assertArrayEquals(",
    "assertIterableEquals(",
    "assertLinesMatch(",
    "assertThrows(",
    "assertThrowsExactly(",
    "assertDoesNotThrow(",
    "assertAll(",
    "assertTimeout(",
    "assertTimeoutPreemptively(",
    "assertInstanceOf(",
    "assertThat(",
    "fail(",
    "verify(",
    "Assertions.assert",
    "Assertions.fail(",
    "Assert.assert",
    "Assert.fail(",
];

/// Rust's test attributes, assertion macros and `#[ignore]`.
const RUST: Patterns = Patterns {
    tests: RUST_TEST_ATTRS,
    asserts: &[
        "assert!(",
        "assert_eq!(",
        "assert_ne!(",
        "assert_matches!(",
        "prop_assert!(",
        "prop_assert_eq!(",
        "prop_assert_ne!(",
        "#[should_panic",
    ],
    assert_words: &[],
    skips: &["#[ignore"],
    test_words: &[],
    vacuous: &[],
};

/// pytest's and unittest's tests, assertions and skips.
const PYTHON: Patterns = Patterns {
    tests: &["def test_"],
    asserts: &["self.assert", "pytest.raises(", "pytest.warns("],
    assert_words: &["assert"],
    skips: &[
        // xfail is an expected failure, not a skip: see `failing`.
        "pytest.mark.skip",
        "pytest.skip(",
        "unittest.skip",
        "@skip",
        "skipTest(",
    ],
    test_words: &[],
    vacuous: &[],
};

/// JS/TS tests (jest, vitest, mocha and the like), assertions, and skip or focus markers.
const JS: Patterns = Patterns {
    tests: &[
        "it(",
        "test(",
        "it.each",
        "test.each",
        "it.only(",
        "test.only(",
        "it.concurrent(",
        "test.concurrent(",
        // Skipped forms still declare the test: skipping it is a skip marker, not a deletion.
        "it.skip(",
        "test.skip(",
        "it.todo(",
        "test.todo(",
        "xit(",
        "xtest(",
    ],
    asserts: &["expect(", "expect.", "assert(", "assert."],
    assert_words: &[],
    skips: &[
        ".skip(",
        ".only(",
        ".todo(",
        "xit(",
        "xtest(",
        "xdescribe(",
        "skip: true",
        "todo: true",
    ],
    test_words: &[],
    vacuous: &[],
};

/// `go test`'s tests, failures and skips.
const GO: Patterns = Patterns {
    tests: &["func Test", "t.Run("],
    asserts: &["t.Error", "t.Fatal", "t.Fail", "require.", "assert."],
    assert_words: &[],
    skips: &[".Skip"],
    test_words: &[],
    vacuous: &[],
};

/// JUnit's (4 and 5) tests, assertions and skips or failed assumptions.
const JAVA: Patterns = Patterns {
    tests: &[],
    test_words: &[
        "@Test",
        "@ParameterizedTest",
        "@RepeatedTest",
        "@TestFactory",
        "@TestTemplate",
    ],
    asserts: JAVA_ASSERTS,
    // Java's own `assert` statement.
    assert_words: &["assert"],
    // An assumption that fails aborts the test as skipped: a skip with a condition.
    skips: &[
        "@Disabled",
        "@Ignore",
        "assumeTrue(",
        "assumeFalse(",
        "assumingThat(",
        "Assumptions.assume",
        "Assumptions.abort(",
        "Assume.assume",
    ],
    vacuous: &[
        "assertTrue(true)",
        "assertFalse(false)",
        "Assertions.assertTrue(true)",
        "Assertions.assertFalse(false)",
        "Assert.assertTrue(true)",
        "Assert.assertFalse(false)",
    ],
};

/// Files of no test language: nothing is counted.
const NONE: Patterns = Patterns {
    tests: &[],
    test_words: &[],
    asserts: &[],
    assert_words: &[],
    skips: &[],
    vacuous: &[],
};

/// The patterns of `lang`.
fn patterns(lang: Lang) -> &'static Patterns {
    match lang {
        Lang::Rust => &RUST,
        Lang::Python => &PYTHON,
        Lang::Js => &JS,
        Lang::Go => &GO,
        Lang::Java => &JAVA,
        Lang::Hash => &NONE,
    }
}

/// Counts declarations, assertions, skip markers and early returns in `code` (test code only).
pub fn counts(lang: Lang, code: &str) -> Counts {
    let p = patterns(lang);
    let sum = |pats: &[&str]| pats.iter().map(|t| count_token(code, t)).sum::<usize>();
    let mut skips = BTreeMap::new();
    for &s in p.skips {
        let n = count_token(code, s);
        if n > 0 {
            skips.insert(s, n);
        }
    }
    let words = |ws: &[&str]| ws.iter().map(|w| count_word(code, w)).sum::<usize>();
    Counts {
        tests: sum(p.tests) + words(p.test_words),
        asserts: (sum(p.asserts) + words(p.assert_words)).saturating_sub(sum(p.vacuous)),
        skips,
        early_returns: early_returns(lang, code),
    }
}

/// Tests whose first statement is `return`: the body is never checked.
fn early_returns(lang: Lang, code: &str) -> usize {
    let body_after = |from: usize| -> Option<&str> {
        let brace = code.get(from..)?.find('{')? + from;
        Some(rest_trimmed(code, brace + 1))
    };
    match lang {
        Lang::Rust => RUST_TEST_ATTRS
            .iter()
            .flat_map(|a| find_token(code, a))
            .filter_map(|p| {
                let f = code.get(p..)?.find("fn ")? + p;
                body_after(f)
            })
            .filter(|b| starts_with_word(b, "return"))
            .count(),
        Lang::Go => find_token(code, "func Test")
            .into_iter()
            .filter_map(body_after)
            .filter(|b| starts_with_word(b, "return"))
            .count(),
        Lang::Python => find_token(code, "def test_")
            .into_iter()
            .filter_map(|p| {
                let open = code.get(p..)?.find('(')? + p;
                let close = matching(code, open);
                let colon = code.get(close..)?.find(':')? + close;
                Some(rest_trimmed(code, colon + 1))
            })
            .filter(|b| starts_with_word(b, "return"))
            .count(),
        Lang::Js => ["it(", "test("]
            .iter()
            .flat_map(|t| find_token(code, t))
            .filter_map(|p| {
                let open = p + code.get(p..)?.find('(')?;
                let call = code.get(open..matching(code, open))?;
                let body = rest_trimmed(call, call.find('{')? + 1);
                Some(body.strip_prefix("return")?.trim_start().to_owned())
            })
            .filter(|after| after.starts_with(';') || after.starts_with('}'))
            .count(),
        // A JUnit test method: its body is the first block after `void`.
        Lang::Java => ["@Test", "@ParameterizedTest", "@RepeatedTest"]
            .iter()
            .flat_map(|t| find_token(code, t))
            .filter_map(|p| {
                let v = code.get(p..)?.find("void ")? + p;
                body_after(v)
            })
            .filter(|b| starts_with_word(b, "return"))
            .count(),
        Lang::Hash => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::lex::lex;
    use super::*;

    fn code(lang: Lang, src: &str) -> String {
        lex(src, lang).code
    }

    #[test]
    fn test_paths() {
        for p in [
            "tests/it.rs",
            "crates/a/tests/x/mod.rs",
            "test_a.py",
            "pkg/a_test.py",
            "pkg/tests/helpers.py",
            "conftest.py",
            "src/a.test.ts",
            "a.spec.js",
            "src/__tests__/x.js",
            "test/math.js",
            "a_test.go",
        ] {
            assert!(is_test_path(p), "{p}");
        }
        for p in [
            "src/lib.rs",
            "calc.py",
            "src/a.ts",
            "a.go",
            "tests.txt",
            "contest.py",
        ] {
            assert!(!is_test_path(p), "{p}");
        }
        let l = lex("fn a() {}\n#[cfg(test)]\nmod t {}\n", Lang::Rust);
        assert!(is_test_file("src/lib.rs", Some(&l)));
    }

    #[test]
    fn rust_library_code_is_not_test_code() {
        let src = "pub fn f(x: u8) { assert!(x > 0); }\n#[cfg(test)]\nmod tests {\n  #[test]\n  fn a() { assert_eq!(super::f(1), ()); }\n  #[test]\n  #[ignore]\n  fn b() { return; assert!(false); }\n}\n";
        let c = code(Lang::Rust, src);
        let t = test_code("src/lib.rs", Lang::Rust, &c);
        let n = counts(Lang::Rust, &t);
        assert_eq!((n.tests, n.asserts, n.early_returns), (2, 2, 1));
        assert_eq!(
            n.skips.get("#[ignore]").or(n.skips.get("#[ignore")),
            Some(&1)
        );
    }

    #[test]
    fn java_counts() {
        let java = "class CalcTest {\n    @Test\n    void adds() { assertEquals(3, Calc.add(1, 2)); Assertions.assertTrue(x); assert y; }\n    @Test @Disabled(\"later\")\n    void later() { return; }\n    @ParameterizedTest @ValueSource(ints = {1, 2})\n    void many(int n) { Assumptions.assumeTrue(n > 1); assertTrue(true); }\n}\n";
        let n = counts(Lang::Java, &code(Lang::Java, java));
        assert_eq!((n.tests, n.asserts, n.early_returns), (3, 3, 1));
        assert_eq!(
            n.skips.keys().copied().collect::<Vec<_>>(),
            ["@Disabled", "Assumptions.assume"]
        );
        assert!(is_test_path("src/test/java/calc/Helpers.java"));
        assert!(is_test_path("CalcTests.java"));
        assert!(!is_test_path("src/main/java/calc/Calc.java"));
    }

    #[test]
    fn python_js_go_counts() {
        let py = "import pytest\n@pytest.mark.skip(reason='x')\ndef test_a():\n    assert f() == 1\n    self.assertEqual(1, 1)\n\ndef test_b(x):\n    return\n    assert x\n";
        let n = counts(Lang::Python, &code(Lang::Python, py));
        assert_eq!((n.tests, n.asserts, n.early_returns), (2, 3, 1));
        assert_eq!(n.skips.len(), 1);
        let js = "test('a', () => { expect(add(1,1)).toBe(2); });\nit.skip('b', () => { return; });\nxit('c', () => {});\n";
        let n = counts(Lang::Js, &code(Lang::Js, js));
        assert_eq!((n.tests, n.asserts), (3, 1));
        assert_eq!(n.skips.values().sum::<usize>(), 2);
        let go = "func TestA(t *testing.T) {\n\treturn\n\tif Add(1, 1) != 2 { t.Errorf(\"x\") }\n}\nfunc TestB(t *testing.T) { t.Skip(\"later\"); require.Equal(t, 1, 1) }\n";
        let n = counts(Lang::Go, &code(Lang::Go, go));
        assert_eq!((n.tests, n.asserts, n.early_returns), (2, 2, 1));
    }
}
