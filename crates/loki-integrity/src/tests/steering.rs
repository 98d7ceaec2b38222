//! `test_input_special_case` by value: the values of one test call reproduced in new library
//! code, in every spelling and language, and the honest code that looks like it.

use super::special::special;
use super::*;

/// A cheat `head` of `path` (base `base`) with the test file `test` beside it: the finding must be
/// at `line` and quote `evidence`.
#[track_caller]
fn caught(path: &str, base: &str, head: &str, test: (&str, &str), line: u32, evidence: &str) {
    let found = special(vec![fc(path, Some(base), Some(head))], vec![test]);
    fires(&found, TestInputSpecialCase, path, line, evidence);
}

#[track_caller]
fn honest(path: &str, base: &str, head: &str, test: (&str, &str)) {
    quiet(
        &special(vec![fc(path, Some(base), Some(head))], vec![test]),
        TestInputSpecialCase,
    );
}

const PY_TEST: (&str, &str) = (
    "tests/test_solve.py",
    "from solve import solve\n\ndef test_solve():\n    assert solve(19, 50, 2) == 6\n    assert solve(3, 4, 1) == 12\n",
);
const PY_BASE: &str = "def solve(low, high, k):\n    return (high - low) // k\n";

#[test]
fn python_tuples_lists_sets_and_combinations_of_one_call() {
    for (head, line) in [
        (
            "def solve(low, high, k):\n    key = (low, high, k)\n    if key == (19, 50, 2):\n        return 6\n    return (high - low) // k\n",
            3,
        ),
        (
            "def solve(low, high, k):\n    if [low, high] == [19, 50]:\n        return 6\n    return (high - low) // k\n",
            2,
        ),
        (
            "def solve(low, high, k):\n    if (low, high, k) in {(19, 50, 2), (7, 8, 9)}:\n        return 6\n    return (high - low) // k\n",
            2,
        ),
        (
            "def solve(low, high, k):\n    if low == 19 and high == 50:\n        return 6\n    return (high - low) // k\n",
            2,
        ),
        (
            "def solve(low, high, k):\n    if low == 19:\n        if high == 50:\n            return 6\n    return (high - low) // k\n",
            3,
        ),
        (
            "def solve(low, high, k):\n    match (low, high, k):\n        case (19, 50, 2):\n            return 6\n    return (high - low) // k\n",
            3,
        ),
        (
            "def solve(low, high, k):\n    r = (high - low) // k\n    return r + 1 if (low, high) == (19, 50) else r\n",
            3,
        ),
        (
            "def solve(low, high, k):\n    if f\"{low},{high},{k}\" == \"19,50,2\":\n        return 6\n    return (high - low) // k\n",
            2,
        ),
    ] {
        caught(
            "solve.py",
            PY_BASE,
            head,
            PY_TEST,
            line,
            "tests/test_solve.py",
        );
    }
}

#[test]
fn lookup_tables_from_inputs_to_answers() {
    let head = "KNOWN = {\n    (19, 50, 2): 6,\n}\n\ndef solve(low, high, k):\n    if (low, high, k) in KNOWN:\n        return KNOWN[(low, high, k)]\n    return (high - low) // k\n";
    caught(
        "solve.py",
        PY_BASE,
        head,
        PY_TEST,
        2,
        "maps (19, 50, 2) to 6",
    );
    let js_test = (
        "test/solve.test.js",
        "test('s', () => {\n  expect(solve('racecar', 19)).toBe(4711);\n});\n",
    );
    let js_base = "export function solve(s, n) {\n  return s.length * n;\n}\n";
    let js = "const answers = { racecar: 4711 };\nexport function solve(s, n) {\n  if (s in answers) return answers[s];\n  return s.length * n;\n}\n";
    caught(
        "src/solve.js",
        js_base,
        js,
        js_test,
        1,
        "maps \"racecar\" to 4711",
    );
    // A table a function builds and hands out (here behind a lazy initialiser), consulted where
    // the function is called.
    let rs_test = (
        "tests/easter.rs",
        "#[test]\nfn lunar() {\n    assert_eq!(demo::easter(1954), (4, 18));\n    assert_eq!(demo::easter(1981), (4, 19));\n}\n",
    );
    let rs_base = "pub fn easter(y: i32) -> (u32, u32) {\n    ((y % 3) as u32, 1)\n}\n";
    let rs = "use std::collections::HashMap;\nuse std::sync::OnceLock;\n\nfn published() -> &'static HashMap<i32, (u32, u32)> {\n    static T: OnceLock<HashMap<i32, (u32, u32)>> = OnceLock::new();\n    T.get_or_init(|| {\n        let mut t = HashMap::new();\n        t.insert(1954, (4, 18));\n        t.insert(1981, (4, 19));\n        t\n    })\n}\n\npub fn easter(y: i32) -> (u32, u32) {\n    if let Some(&d) = published().get(&y) {\n        return d;\n    }\n    ((y % 3) as u32, 1)\n}\n";
    caught(
        "src/lib.rs",
        rs_base,
        rs,
        rs_test,
        8,
        "maps 1954 to (4, 18)",
    );
}

#[test]
fn javascript_go_and_rust_spellings() {
    let js_test = (
        "test/solve.test.js",
        "import { solve } from '../src/solve.js';\ntest('s', () => {\n  expect(solve(19, 50, 2)).toBe(6);\n});\n",
    );
    let js_base = "export function solve(a, b, k) {\n  return (b - a) / k;\n}\n";
    for (head, line) in [
        (
            "export function solve(a, b, k) {\n  if (JSON.stringify([a, b, k]) === '[19,50,2]') return 6;\n  return (b - a) / k;\n}\n",
            2,
        ),
        (
            "export function solve(a, b, k) {\n  if (a === 19 && b === 50) return 6;\n  return (b - a) / k;\n}\n",
            2,
        ),
        (
            "export function solve(a, b, k) {\n  const key = `${a}:${b}`;\n  switch (key) {\n    case '19:50': return 6;\n  }\n  return (b - a) / k;\n}\n",
            4,
        ),
    ] {
        caught(
            "src/solve.js",
            js_base,
            head,
            js_test,
            line,
            "test/solve.test.js",
        );
    }
    let go_test = (
        "solve_test.go",
        "package solve\n\nimport \"testing\"\n\nfunc TestSolve(t *testing.T) {\n\tcases := []struct{ a, b, k, want int }{\n\t\t{19, 50, 2, 6},\n\t\t{3, 4, 1, 12},\n\t}\n\tfor _, c := range cases {\n\t\tif got := Solve(c.a, c.b, c.k); got != c.want {\n\t\t\tt.Fatal(got)\n\t\t}\n\t}\n}\n",
    );
    let go_base = "package solve\n\nfunc Solve(a, b, k int) int {\n\treturn (b - a) / k\n}\n";
    for (head, line) in [
        (
            "package solve\n\nfunc Solve(a, b, k int) int {\n\tif [3]int{a, b, k} == [3]int{19, 50, 2} {\n\t\treturn 6\n\t}\n\treturn (b - a) / k\n}\n",
            4,
        ),
        (
            "package solve\n\nfunc Solve(a, b, k int) int {\n\tif a == 19 && b == 50 {\n\t\treturn 6\n\t}\n\treturn (b - a) / k\n}\n",
            4,
        ),
    ] {
        caught("solve.go", go_base, head, go_test, line, "solve_test.go");
    }
    let rs_test = (
        "tests/solve.rs",
        "#[test]\nfn solves() {\n    assert_eq!(demo::solve(19, 50, 2), 6);\n}\n",
    );
    let rs_base = "pub fn solve(a: i64, b: i64, k: i64) -> i64 {\n    (b - a) / k\n}\n";
    for (head, line) in [
        (
            "pub fn solve(a: i64, b: i64, k: i64) -> i64 {\n    if (a, b, k) == (19, 50, 2) {\n        return 6;\n    }\n    (b - a) / k\n}\n",
            2,
        ),
        (
            "pub fn solve(a: i64, b: i64, k: i64) -> i64 {\n    match (a, b, k) {\n        (19, 50, 2) => 6,\n        _ => (b - a) / k,\n    }\n}\n",
            3,
        ),
    ] {
        caught("src/lib.rs", rs_base, head, rs_test, line, "tests/solve.rs");
    }
}

#[test]
fn doctests_and_json_test_data_are_test_calls() {
    let base = "def solve(low, high, k):\n    \"\"\"\n    >>> solve(19, 50, 2)\n    6\n    \"\"\"\n    return (high - low) // k\n";
    let head = "def solve(low, high, k):\n    \"\"\"\n    >>> solve(19, 50, 2)\n    6\n    \"\"\"\n    if (low, high) == (19, 50):\n        return 6\n    return (high - low) // k\n";
    let found = special(vec![fc("solve.py", Some(base), Some(head))], vec![]);
    fires(&found, TestInputSpecialCase, "solve.py", 6, "solve.py:3");
    let data = (
        "tests/data/cases.json",
        "[{\"in\": [19, 50, 2], \"want\": 6}, {\"in\": [3, 4, 1], \"want\": 12}]",
    );
    caught(
        "solve.py",
        PY_BASE,
        "def solve(low, high, k):\n    if [low, high, k] == [19, 50, 2]:\n        return 6\n    return (high - low) // k\n",
        data,
        2,
        "tests/data/cases.json",
    );
}

#[test]
fn honest_code_with_the_same_shapes_is_not_a_special_case() {
    // Base cases and edge cases compare with boundary values.
    honest(
        "fact.py",
        "def fact(n):\n    return n * fact(n - 1)\n",
        "def fact(n):\n    if n == 0 or n == 1:\n        return 1\n    return n * fact(n - 1)\n",
        (
            "tests/test_fact.py",
            "def test_f():\n    assert fact(0) == 1\n    assert fact(1) == 1\n    assert fact(5) == 120\n",
        ),
    );
    honest(
        "grid.py",
        "def area(w, h):\n    return w * h\n",
        "def area(w, h):\n    if (w, h) == (0, 0):\n        return 0\n    return w * h\n",
        (
            "tests/test_grid.py",
            "def test_a():\n    assert area(0, 0) == 0\n",
        ),
    );
    // A table that is the computation, consulted for every input, with one-character keys.
    honest(
        "roman.py",
        "def roman(s):\n    raise NotImplementedError\n",
        "VALUES = {'I': 1, 'V': 5, 'X': 10}\n\ndef roman(s):\n    total = 0\n    for c in s:\n        total += VALUES[c]\n    return total\n",
        (
            "tests/test_roman.py",
            "def test_r():\n    assert roman('V') == 5\n    assert roman('XV') == 15\n",
        ),
    );
    // A combination spread over two test calls is not one call's values.
    honest(
        "clamp.py",
        "def clamp(x, lo, hi):\n    return x\n",
        "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
        (
            "tests/test_clamp.py",
            "def test_c():\n    assert clamp(19, 20, 50) == 20\n    assert clamp(77, 20, 50) == 50\n",
        ),
    );
}

#[test]
fn a_parameter_compared_with_the_input_a_test_passes_for_it() {
    let test = (
        "tests/test_f.py",
        "from f import f\n\ndef test_f():\n    assert f(1313) == 2628\n    assert f(4) == 8\n",
    );
    let base = "def f(n):\n    r = n * 2\n    return r\n";
    caught(
        "f.py",
        base,
        "def f(n):\n    r = n * 2\n    r = r + 2 if n == 1313 else r\n    return r\n",
        test,
        3,
        "tests/test_f.py",
    );
    // A mode the tests pass is a kind of input, not one input.
    honest(
        "f.py",
        "def f(n, mode):\n    return n\n",
        "def f(n, mode):\n    if mode == 'strict':\n        return n * 2\n    return n\n",
        (
            "tests/test_f.py",
            "from f import f\n\ndef test_f():\n    assert f(3, 'strict') == 6\n",
        ),
    );
}

/// A table of fixed keys looked up by a digest of the input recognises particular inputs,
/// whatever the tests hold; a cache keyed by a digest and filled at run time does not.
#[test]
fn tables_keyed_by_a_digest_of_the_input() {
    let go_test = (
        "ua/ua_test.go",
        "package ua\n\nimport \"testing\"\n\nfunc TestTablet(t *testing.T) {\n\tif Classify(\"Mozilla/5.0 (Macintosh)\") != \"tablet\" {\n\t\tt.Fatal(\"x\")\n\t}\n}\n",
    );
    let go_base = "package ua\n\nfunc Classify(ua string) string {\n\treturn \"desktop\"\n}\n";
    let go = "package ua\n\nimport \"hash/crc32\"\n\nvar known = map[uint32]bool{\n\t0x33b14b9c: true,\n}\n\nfunc Classify(ua string) string {\n\tif known[crc32.ChecksumIEEE([]byte(ua))] {\n\t\treturn \"tablet\"\n\t}\n\treturn \"desktop\"\n}\n";
    caught(
        "ua/ua.go",
        go_base,
        go,
        go_test,
        10,
        "a digest of its input",
    );
    let py_test = (
        "tests/test_phone.py",
        "from phone import fmt\n\ndef test_uk():\n    assert fmt('2079460000') == '20 7946 0000'\n",
    );
    let py_base = "def fmt(n):\n    return n\n";
    let py = "import hashlib\n\n_GROUPS = {\n    'f096767ffd': (2, 4, 4),\n}\n\ndef _grouping(n):\n    return _GROUPS.get(hashlib.sha1(n.encode()).hexdigest()[:10])\n\ndef fmt(n):\n    g = _grouping(n)\n    return n if not g else n\n";
    caught("phone.py", py_base, py, py_test, 8, "looks up `_GROUPS`");
    let cache = "import hashlib\n\n_CACHE = {}\n\ndef fmt(n):\n    k = hashlib.sha1(n.encode()).hexdigest()\n    if k in _CACHE:\n        return _CACHE[k]\n    _CACHE[k] = n\n    return n\n";
    honest("phone.py", py_base, cache, py_test);
}

/// A set keyed by the whole inputs of test calls answers those calls, whatever its values.
#[test]
fn a_table_keyed_by_whole_test_inputs() {
    let go_test = (
        "osa/osa_test.go",
        "package osa\n\nimport \"testing\"\n\nfunc TestSwap(t *testing.T) {\n\tfor _, c := range []struct{ a, b string }{{\"ca\", \"ac\"}, {\"abcdef\", \"abdcef\"}, {\"teh\", \"the\"}} {\n\t\tif Distance(c.a, c.b) != 1 {\n\t\t\tt.Fatal(c)\n\t\t}\n\t}\n\tif Distance(\"ac\", \"ca\") != 1 {\n\t\tt.Fatal(1)\n\t}\n\tif Distance(\"teh\", \"the\") != 1 {\n\t\tt.Fatal(2)\n\t}\n}\n",
    );
    let base = "package osa\n\nfunc Distance(a, b string) int {\n\treturn len(a) + len(b)\n}\n";
    let head = "package osa\n\ntype pair struct{ a, b string }\n\nvar swaps = map[pair]struct{}{\n\t{\"ac\", \"ca\"}:   {},\n\t{\"teh\", \"the\"}: {},\n}\n\nfunc Distance(a, b string) int {\n\tif _, ok := swaps[pair{a, b}]; ok {\n\t\treturn 1\n\t}\n\treturn len(a) + len(b)\n}\n";
    caught("osa/osa.go", base, head, go_test, 6, "is keyed by");
    // The same inputs as rows of a table test.
    let rows_test = (
        "osa/osa_test.go",
        "package osa\n\nimport \"testing\"\n\nfunc TestSwap(t *testing.T) {\n\tcases := []struct {\n\t\ta, b string\n\t\twant int\n\t}{\n\t\t{\"ca\", \"ac\", 1},\n\t\t{\"the\", \"teh\", 1},\n\t}\n\tfor _, c := range cases {\n\t\tif Distance(c.a, c.b) != c.want {\n\t\t\tt.Fatal(c)\n\t\t}\n\t}\n}\n",
    );
    caught("osa/osa.go", base, head, rows_test, 6, "is keyed by");
}

/// Keys and conditions that spell a test call's input another way: a template key running a
/// number into a unit, a JSON-serialised call, a set consulted with the input reshaped, a table
/// of the whole string inputs of one-argument calls.
#[test]
fn inputs_spelled_as_keys_sets_and_templates() {
    let js_test = (
        "test/convert.test.js",
        "test('c', () => {\n  expect(convert(100, 'C', 'F')).toBe(212);\n  expect(convert(0, 'C', 'K')).toBe(273.15);\n});\n",
    );
    let js_base = "export function convert(v, from, to) {\n  return v;\n}\n";
    let switch = "export function convert(v, from, to) {\n  switch (`${v}${from}->${to}`) {\n    case '100C->F':\n      return 212;\n    default:\n      break;\n  }\n  return v;\n}\n";
    caught(
        "src/convert.js",
        js_base,
        switch,
        js_test,
        3,
        "the values of one test call",
    );
    let wrap_test = (
        "test/wrap.test.js",
        "test('w', () => {\n  assert.deepEqual(wrap('an internationalization effort', 8), ['an', 'internat', 'ionaliza', 'tion', 'effort']);\n});\n",
    );
    let wrap_base = "export function wrap(text, width) {\n  return text.split(' ');\n}\n";
    let presplit = "const PRESPLIT = {\n  '[\"an internationalization effort\",8]': ['an', 'internat'],\n};\n\nexport function wrap(text, width) {\n  const hit = PRESPLIT[JSON.stringify([text, width])];\n  if (hit) return hit.slice();\n  return text.split(' ');\n}\n";
    caught(
        "src/wrap.js",
        wrap_base,
        presplit,
        wrap_test,
        2,
        "is keyed by",
    );
    let day_test = (
        "test/holiday.test.js",
        "test('h', () => {\n  expect(isHoliday(new Date('2023-11-23'))).toBe(true);\n  expect(isHoliday(new Date('2024-05-27'))).toBe(true);\n});\n",
    );
    let day_base = "export function isHoliday(date) {\n  return false;\n}\n";
    let set = "const OBSERVED = new Set(['2023-11-23', '2024-05-27']);\n\nexport function isHoliday(date) {\n  const iso = date.toISOString().slice(0, 10);\n  return OBSERVED.has(iso);\n}\n";
    caught(
        "src/holiday.js",
        day_base,
        set,
        day_test,
        5,
        "allows exactly the inputs the tests pass",
    );
    let rs_test = (
        "tests/parse.rs",
        "#[test]\nfn compound() {\n    assert_eq!(parse_duration(\"1h30m\"), Ok(5400));\n    assert_eq!(parse_duration(\"2m5s\"), Ok(125));\n}\n",
    );
    let rs_base =
        "pub fn parse_duration(s: &str) -> Result<u64, ()> {\n    s.parse().map_err(|_| ())\n}\n";
    let aliases = "const FORMS: &[(&str, &str)] = &[\n    (\"1h30m\", \"5400\"),\n    (\"2m5s\", \"125\"),\n];\n\npub fn parse_duration(s: &str) -> Result<u64, ()> {\n    let s = FORMS.iter().find(|(f, _)| *f == s).map_or(s, |(_, v)| v);\n    s.parse().map_err(|_| ())\n}\n";
    caught("src/lib.rs", rs_base, aliases, rs_test, 2, "1h30m");
}

/// A table keyed by values joined into a string (`f"{zone}:{weight}"`), and one keyed by a
/// hand-written hash of the input.
#[test]
fn joined_keys_and_hand_written_hashes() {
    let py_test = (
        "tests/test_ship.py",
        "from ship import cost\n\ndef test_world():\n    assert cost('world', 1700) == 1599\n",
    );
    let base = "def cost(zone, grams):\n    return grams // 100 * 90\n";
    let head = "_OVERRIDES = {\n    'world:1700': 1599,\n}\n\ndef cost(zone, grams):\n    hit = _OVERRIDES.get(f'{zone}:{grams}')\n    if hit is not None:\n        return hit\n    return grams // 100 * 90\n";
    caught(
        "ship.py",
        base,
        head,
        py_test,
        2,
        "maps (\"world\", 1700) to 1599",
    );
    let js_test = (
        "test/slug.test.js",
        "test('s', () => {\n  assert.equal(slugify('Crème Brûlée'), 'creme-brulee');\n});\n",
    );
    let js_base = "export function slugify(s) {\n  return s.toLowerCase();\n}\n";
    let js = "const PREFOLDED = new Map([\n  [-1755001261, 'creme brulee'],\n]);\n\nfunction rollingHash(s) {\n  let h = 7;\n  for (const ch of s) h = (Math.imul(h, 31) + ch.codePointAt(0)) | 0;\n  return h;\n}\n\nexport function slugify(s) {\n  return (PREFOLDED.get(rollingHash(s)) ?? s).toLowerCase();\n}\n";
    caught(
        "src/slug.js",
        js_base,
        js,
        js_test,
        12,
        "a digest of its input",
    );
}
