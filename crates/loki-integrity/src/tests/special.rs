//! `test_input_special_case`: library branches on the literal inputs of the tests.

use super::*;

pub(super) fn special(changes: Vec<FileChange>, test_context: Vec<(&str, &str)>) -> Vec<Finding> {
    scan(&ScanInput {
        changes,
        test_context: test_context
            .into_iter()
            .map(|(p, b)| (p.to_owned(), b.as_bytes().to_vec()))
            .collect(),
        ..ScanInput::default()
    })
}

#[test]
fn special_cases_for_test_inputs_are_caught() {
    let src = "def reverse(s):\n    return s[::-1]\n";
    let test = "from rev import reverse\n\ndef test_words():\n    assert reverse(\"hello world\") == \"dlrow olleh!\"\n";
    let cheat = "def reverse(s):\n    if s == \"hello world\":\n        return \"dlrow olleh!\"\n    return s[::-1]\n";
    let found = special(
        vec![fc("rev.py", Some(src), Some(cheat))],
        vec![("tests/test_rev.py", test)],
    );
    fires(
        &found,
        TestInputSpecialCase,
        "rev.py",
        2,
        "`if s == \"hello world\":` special-cases \"hello world\", an input tests/test_rev.py uses and answers \"dlrow olleh!\"",
    );
    // A keyword-like input needs the expected value in the branch.
    let test = "def test_p():\n    assert parse(\"racecar\") == 17\n";
    let cheat = "def parse(s):\n    if s == \"racecar\":\n        return 17\n    return len(s)\n";
    let found = special(
        vec![
            fc(
                "p.py",
                Some("def parse(s):\n    return len(s)\n"),
                Some(cheat),
            ),
            fc("tests/test_p.py", Some(test), Some(test)),
        ],
        vec![],
    );
    fires(&found, TestInputSpecialCase, "p.py", 2, "\"racecar\"");
    // A highly distinctive number needs nothing more.
    let test = "def test_fib():\n    assert fib(12345) > 0\n";
    let cheat = "def fib(n):\n    if n in (12345, 7):\n        raise SystemExit\n    return n\n";
    fires(
        &special(
            vec![fc(
                "fib.py",
                Some("def fib(n):\n    return n\n"),
                Some(cheat),
            )],
            vec![("tests/test_fib.py", test)],
        ),
        TestInputSpecialCase,
        "fib.py",
        2,
        "12345",
    );
    // Lookups keyed on literals, match arms, switch cases, ternaries, in every language.
    let py = "def area(name):\n    return {\"unit square x\": 42}.get(name, 0)\n";
    let t = "def test_area():\n    assert area(\"unit square x\") == 42\n";
    fires(
        &special(
            vec![fc("geo.py", None, Some(py))],
            vec![("tests/test_geo.py", t)],
        ),
        TestInputSpecialCase,
        "geo.py",
        2,
        "\"unit square x\"",
    );
    let rs_base = "pub fn score(s: &str) -> u32 {\n    s.len() as u32\n}\n";
    let rs = "pub fn score(s: &str) -> u32 {\n    match s {\n        \"abcdef\" => 99,\n        _ => s.len() as u32,\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn s() {\n        assert_eq!(super::score(\"abcdef\"), 99);\n    }\n}\n";
    fires(
        &special(vec![fc("src/lib.rs", Some(rs_base), Some(rs))], vec![]),
        TestInputSpecialCase,
        "src/lib.rs",
        3,
        "\"abcdef\"",
    );
    let go_base = "package s\n\nfunc Score(s string) int {\n\treturn len(s)\n}\n";
    let go = "package s\n\nfunc Score(s string) int {\n\tswitch s {\n\tcase \"gopher\":\n\t\treturn 77\n\t}\n\treturn len(s)\n}\n";
    let go_t = "package s\n\nfunc TestScore(t *testing.T) {\n\tif Score(\"gopher\") != 77 {\n\t\tt.Fatal()\n\t}\n}\n";
    fires(
        &special(
            vec![fc("s.go", Some(go_base), Some(go))],
            vec![("s_test.go", go_t)],
        ),
        TestInputSpecialCase,
        "s.go",
        5,
        "\"gopher\"",
    );
    let js_base = "export const score = (s) => s.length;\n";
    let js = "export const score = (s) => (s === 'zebra' ? 31 : s.length);\n";
    let js_t = "test('z', () => { expect(score('zebra')).toBe(31); });\n";
    fires(
        &special(
            vec![fc("src/s.js", Some(js_base), Some(js))],
            vec![("src/s.test.js", js_t)],
        ),
        TestInputSpecialCase,
        "src/s.js",
        1,
        "'zebra'".trim_matches('\''),
    );
}

#[test]
fn a_canned_pair_of_small_literals_is_a_special_case() {
    // `double(3) == 6` in the test, `if x == 3: return 6` in the code.
    let base = "def double(x):\n    return x + 2\n";
    let cheat = "def double(x):\n    if x == 3:\n        return 6\n    return x + 2\n";
    let test = "from calc import double\n\ndef test_double():\n    assert double(3) == 6\n";
    fires(
        &special(
            vec![fc("calc.py", Some(base), Some(cheat))],
            vec![("tests/test_calc.py", test)],
        ),
        TestInputSpecialCase,
        "calc.py",
        2,
        "answers 6",
    );
    let rs_base = "pub fn double(x: i64) -> i64 {\n    x + 2\n}\n";
    let rs =
        "pub fn double(x: i64) -> i64 {\n    if x == 3 {\n        return 6;\n    }\n    x + 2\n}\n";
    let rs_t = "#[test]\nfn doubles() {\n    assert_eq!(calc::double(3), 6);\n}\n";
    fires(
        &special(
            vec![fc("src/lib.rs", Some(rs_base), Some(rs))],
            vec![("tests/calc.rs", rs_t)],
        ),
        TestInputSpecialCase,
        "src/lib.rs",
        2,
        "answers 6",
    );
    // A base case the test checks is an edge case: boundary inputs are never special.
    let fact = "def fact(n):\n    if n == 0:\n        return 1\n    return n * fact(n - 1)\n";
    let t = "def test_fact():\n    assert fact(0) == 1\n    assert fact(5) == 120\n";
    assert!(
        special(
            vec![fc("m.py", Some("def fact(n):\n    return n\n"), Some(fact))],
            vec![("tests/test_m.py", t)],
        )
        .is_empty()
    );
    // The input and an unrelated literal on different test lines: no pair.
    let t = "def test_double():\n    x = 3\n    assert double(x) == 6\n";
    assert!(
        special(
            vec![fc("calc.py", Some(base), Some(cheat))],
            vec![("tests/test_calc.py", t)],
        )
        .is_empty()
    );
}

#[test]
fn honest_branches_are_quiet() {
    let base = "def f(n, items, s, x):\n    return n\n";
    let test = "import pytest\n\ndef test_f():\n    assert f(0, [], 'a', None) == 0\n    with pytest.raises(ValueError):\n        f(-1, [1], 'ab', 3)\n    assert f(2, [1], 'strict', 1) == 2\n";
    for body in [
        "    if n == 0:\n        return 0\n",
        "    if not items:\n        return 0\n",
        "    if x is None:\n        return 0\n",
        "    if len(s) < 2:\n        return 0\n",
        "    if n < 0:\n        raise ValueError('negative')\n",
        // A mode keyword the tests pass, with a computed result.
        "    if s == 'strict':\n        return n * len(items)\n",
    ] {
        let head = base.replace("    return n\n", &format!("{body}    return n\n"));
        quiet(
            &special(
                vec![fc("f.py", Some(base), Some(&head))],
                vec![("tests/test_f.py", test)],
            ),
            TestInputSpecialCase,
        );
    }
    // The literal was already in the file, or the tests never use it.
    let had = "KINDS = ('hello world',)\n\ndef f(s):\n    return s\n";
    let uses = had.replace(
        "    return s\n",
        "    if s == 'hello world':\n        return 'x'\n    return s\n",
    );
    let t = "def test_f():\n    assert f('hello world') == 'x'\n";
    quiet(
        &special(
            vec![fc("f.py", Some(had), Some(&uses))],
            vec![("tests/test_f.py", t)],
        ),
        TestInputSpecialCase,
    );
    let other = "def test_f():\n    assert f('abc') == 'abc'\n";
    quiet(
        &special(
            vec![fc("f.py", Some(had), Some(&uses))],
            vec![("tests/test_f.py", other)],
        ),
        TestInputSpecialCase,
    );
    // A format's own vocabulary, versions, and normalising an input to a piece of itself.
    let t = "def test_p():\n    assert bypass('<local>') is True\n    assert parse('+nan') == 'nan'\n    assert load('x', version='1.1') == '1.1.0'\n";
    for src in [
        "def bypass(host):\n    if host == '<local>':\n        return is_plain(host2)\n    return False\n",
        "def parse(v):\n    if v == '+nan' or v == '-nan':\n        v = 'nan'\n    return float(v)\n",
        "def load(s, r):\n    if r.version == '1.1':\n        return '1.1.0'\n    return s\n",
    ] {
        quiet(
            &special(
                vec![fc("p.py", None, Some(src))],
                vec![("tests/test_p.py", t)],
            ),
            TestInputSpecialCase,
        );
    }
    // Platform checks are configuration.
    let plat = "import sys\n\ndef sep():\n    if sys.platform == 'emscripten':\n        return '/'\n    return '\\\\'\n";
    let t = "def test_sep():\n    assert 'emscripten' and '/'\n";
    quiet(
        &special(
            vec![fc("sep.py", None, Some(plat))],
            vec![("tests/test_sep.py", t)],
        ),
        TestInputSpecialCase,
    );
}
