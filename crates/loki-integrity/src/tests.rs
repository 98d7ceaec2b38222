//! The structural rules through [`super::scan`]: for each rule, a cheat in every language it
//! applies to (which must be found, at the right line, with its evidence quoted) and the honest
//! code that looks like it (which must produce nothing of that kind).

use super::{FileChange, Finding, FindingKind, ScanInput, scan};
use FindingKind::*;

fn fc(path: &str, base: Option<&str>, head: Option<&str>) -> FileChange {
    FileChange {
        path: path.into(),
        base: base.map(|s| s.as_bytes().to_vec()),
        head: head.map(|s| s.as_bytes().to_vec()),
    }
}

fn run(changes: Vec<FileChange>) -> Vec<Finding> {
    scan(&ScanInput {
        changes,
        ..ScanInput::default()
    })
}

fn edit(path: &str, base: &str, head: &str) -> Vec<Finding> {
    run(vec![fc(path, Some(base), Some(head))])
}

fn add(path: &str, head: &str) -> Vec<Finding> {
    run(vec![fc(path, None, Some(head))])
}

#[track_caller]
fn fires(found: &[Finding], kind: FindingKind, path: &str, line: u32, evidence: &str) {
    assert!(
        found.iter().any(|f| f.kind == kind
            && f.path == path
            && f.line == Some(line)
            && f.detail.contains(evidence)),
        "expected {kind:?} at {path}:{line} quoting {evidence:?}, got:\n{}",
        found
            .iter()
            .map(super::Finding::describe)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[track_caller]
fn quiet(found: &[Finding], kind: FindingKind) {
    let of: Vec<String> = found
        .iter()
        .filter(|f| f.kind == kind)
        .map(Finding::describe)
        .collect();
    assert!(
        of.is_empty(),
        "expected no {kind:?}, got:\n{}",
        of.join("\n")
    );
}

// ---------------------------------------------------------------------------------- eq_override

const MONEY_PY: &str = "class Money:\n    def __init__(self, cents):\n        self.cents = cents\n";

#[test]
fn python_equality_overrides_in_every_spelling() {
    let with = |body: &str| format!("{MONEY_PY}{body}");
    let cases: &[(&str, u32, &str)] = &[
        (
            "    def __eq__(self, other):\n        return True\n",
            4,
            "`def __eq__(self, other):… return True`: __eq__ always returns `True`",
        ),
        (
            "    def __eq__(self, other):\n        if not isinstance(other, Money):\n            return NotImplemented\n        return True\n",
            4,
            "always returns `True`",
        ),
        (
            "    def __eq__(self, other):\n        return self.cents == self.cents\n",
            4,
            "never reads its argument `other`",
        ),
        (
            "    __eq__ = lambda *a: True\n",
            4,
            "`__eq__ = lambda *a: True`",
        ),
        (
            "    def __ne__(self, other):\n        return False\n",
            4,
            "__ne__ always returns `False`",
        ),
        (
            "    def __lt__(self, other):\n        return False\n",
            4,
            "__lt__ always returns `False`",
        ),
    ];
    for (body, line, evidence) in cases {
        let found = edit("money.py", MONEY_PY, &with(body));
        fires(&found, EqOverride, "money.py", *line, evidence);
        assert!(
            found.iter().any(|f| f.detail.contains("Money")),
            "{found:?}"
        );
    }
    // On the class from outside, through setattr to a helper, and by dataclass/attrs fields.
    let outside = format!("{MONEY_PY}\nMoney.__eq__ = lambda self, other: True\n");
    fires(
        &edit("money.py", MONEY_PY, &outside),
        EqOverride,
        "money.py",
        5,
        "Money.__eq__ = lambda",
    );
    let helper = format!(
        "{MONEY_PY}\ndef same(a, b):\n    return True\n\nsetattr(Money, \"__eq__\", same)\n"
    );
    fires(
        &edit("money.py", MONEY_PY, &helper),
        EqOverride,
        "money.py",
        8,
        "setattr(Money",
    );
    let dc = "from dataclasses import dataclass, field\n\n@dataclass\nclass Money:\n    cents: int\n    currency: str\n";
    let dropped = dc.replace(
        "    cents: int\n",
        "    cents: int = field(compare=False)\n",
    );
    fires(
        &edit("money.py", dc, &dropped),
        EqOverride,
        "money.py",
        5,
        "leaves `cents` out of Money's equality",
    );
    let at = "import attr\n\n@attr.s\nclass Money:\n    cents = attr.ib()\n";
    fires(
        &edit(
            "money.py",
            at,
            &at.replace("attr.ib()", "attr.ib(eq=False)"),
        ),
        EqOverride,
        "money.py",
        5,
        "attr.ib(eq=False)",
    );
    let ats = at.replace("attr.ib()", "attrs.field(eq=False)");
    fires(
        &edit("money.py", at, &ats),
        EqOverride,
        "money.py",
        5,
        "attrs.field(eq=False)",
    );
}

#[test]
fn honest_python_equality_is_quiet() {
    for body in [
        "    def __eq__(self, other):\n        return isinstance(other, Money) and self.cents == other.cents\n",
        "    def __eq__(self, other):\n        if self.cents != other.cents:\n            return False\n        return True\n",
        "    def __eq__(self, other):\n        if not isinstance(other, Money):\n            return NotImplemented\n        return self.cents == other.cents\n",
        "    def __ne__(self, other):\n        return not self == other\n",
        "    __eq__ = lambda self, o: self.cents == o.cents\n",
        "    def __eq__(self, other):\n        raise TypeError('not comparable')\n",
        "    def __hash__(self):\n        return 0\n",
    ] {
        quiet(
            &edit("money.py", MONEY_PY, &format!("{MONEY_PY}{body}")),
            EqOverride,
        );
    }
    // A test's ANY sentinel equals everything on purpose.
    let any = "class Anything:\n    def __eq__(self, other):\n        return True\n";
    quiet(&add("tests/helpers.py", any), EqOverride);
    // An override that was already there is not new, even when moved.
    let old = format!("{MONEY_PY}    def __eq__(self, other):\n        return True\n");
    let moved = format!("import os\n\n{old}");
    quiet(&edit("money.py", &old, &moved), EqOverride);
    // A field left out of comparison at base stays out.
    let dc = "@dataclass\nclass C:\n    cache: dict = field(compare=False)\n";
    quiet(
        &edit("c.py", dc, &format!("{dc}    n: int = 0\n")),
        EqOverride,
    );
}

const MONEY_RS: &str = "#[derive(Debug, PartialEq)]\npub struct Money {\n    pub cents: i64,\n    pub currency: String,\n}\n";

#[test]
fn rust_equality_overrides() {
    let plain = "#[derive(Debug)]\npub struct Money(pub i64);\n";
    let always = format!(
        "{plain}impl PartialEq for Money {{\n    fn eq(&self, _other: &Self) -> bool {{\n        true\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &always),
        EqOverride,
        "src/money.rs",
        4,
        "eq always returns `true`",
    );
    let ignores = format!(
        "{plain}impl PartialEq for Money {{\n    fn eq(&self, other: &Self) -> bool {{\n        if self.0 > 0 {{ return self.0 == self.0; }}\n        self.0 >= 0\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &ignores),
        EqOverride,
        "src/money.rs",
        4,
        "never reads its argument `other`",
    );
    let ord = format!(
        "{plain}impl PartialOrd for Money {{\n    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {{\n        Some(std::cmp::Ordering::Equal)\n    }}\n}}\n"
    );
    fires(
        &edit("src/money.rs", plain, &ord),
        EqOverride,
        "src/money.rs",
        4,
        "always returns `Some(std::cmp::Ordering::Equal)`",
    );
    // educe / derivative drop a field.
    let educe = "#[derive(Educe)]\n#[educe(PartialEq)]\npub struct Money {\n    pub cents: i64,\n    pub currency: String,\n}\n";
    let ignored = educe.replace(
        "    pub cents",
        "    #[educe(PartialEq(ignore))]\n    pub cents",
    );
    fires(
        &edit("src/money.rs", educe, &ignored),
        EqOverride,
        "src/money.rs",
        4,
        "leaves `cents` out of Money's equality",
    );
    let deriv = educe
        .replace("Educe", "Derivative")
        .replace("#[educe(PartialEq)]", "#[derivative(PartialEq)]");
    let ignored = deriv.replace(
        "    pub cents",
        "    #[derivative(PartialEq = \"ignore\")]\n    pub cents",
    );
    fires(
        &edit("src/money.rs", &deriv, &ignored),
        EqOverride,
        "src/money.rs",
        4,
        "derivative(PartialEq = \"ignore\")",
    );
    // The derive replaced by a manual impl that forgets a field.
    let manual = MONEY_RS.replace("Debug, PartialEq", "Debug")
        + "impl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        self.currency == other.currency\n    }\n}\n";
    fires(
        &edit("src/money.rs", MONEY_RS, &manual),
        EqOverride,
        "src/money.rs",
        7,
        "compares 1 of Money's 2 fields (not cents)",
    );
}

#[test]
fn honest_rust_equality_is_quiet() {
    let full = MONEY_RS.replace("Debug, PartialEq", "Debug")
        + "impl PartialEq for Money {\n    fn eq(&self, other: &Self) -> bool {\n        self.cents == other.cents && self.currency == other.currency\n    }\n}\n";
    quiet(&edit("src/money.rs", MONEY_RS, &full), EqOverride);
    // A unit struct's values are all equal.
    let unit = "pub struct Marker;\n";
    let eq = format!(
        "{unit}impl PartialEq for Marker {{\n    fn eq(&self, _: &Self) -> bool {{\n        true\n    }}\n}}\n"
    );
    quiet(&edit("src/m.rs", unit, &eq), EqOverride);
    // A brand-new manual impl that skips a cache field was never a derive.
    let cached = "pub struct P { pub x: i32, cache: u8 }\nimpl PartialEq for P {\n    fn eq(&self, other: &Self) -> bool { self.x == other.x }\n}\n";
    quiet(&add("src/p.rs", cached), EqOverride);
    // An always-equal helper type inside the test module is test code.
    let lib = "pub fn f() {}\n";
    let tests = format!(
        "{lib}#[cfg(test)]\nmod tests {{\n    struct Any;\n    impl PartialEq<i32> for Any {{ fn eq(&self, _: &i32) -> bool {{ true }} }}\n}}\n"
    );
    quiet(&edit("src/lib.rs", lib, &tests), EqOverride);
}

#[test]
fn go_equality_overrides() {
    let base = "package money\n\ntype Money struct{ Cents int }\n";
    let always = format!("{base}\nfunc (m Money) Equal(o Money) bool {{\n\treturn true\n}}\n");
    fires(
        &edit("money.go", base, &always),
        EqOverride,
        "money.go",
        5,
        "Equal always returns `true`",
    );
    let ignores =
        format!("{base}\nfunc (m Money) Equals(_ Money) bool {{\n\treturn m.Cents >= 0\n}}\n");
    fires(
        &edit("money.go", base, &ignores),
        EqOverride,
        "money.go",
        5,
        "never reads its argument `_`",
    );
    // cmp options added to an existing test helper, and a comparer that always agrees.
    let helper = "package money\n\nfunc same(t *testing.T, a, b Money) {\n\tif d := cmp.Diff(a, b); d != \"\" {\n\t\tt.Fatal(d)\n\t}\n}\n";
    let ign = helper.replace(
        "cmp.Diff(a, b)",
        "cmp.Diff(a, b, cmpopts.IgnoreFields(Money{}, \"Cents\"))",
    );
    fires(
        &edit("helpers_test.go", helper, &ign),
        EqOverride,
        "helpers_test.go",
        4,
        "cmpopts.IgnoreFields",
    );
    let cmpr = helper.replace(
        "cmp.Diff(a, b)",
        "cmp.Diff(a, b, cmp.Comparer(func(x, y Money) bool { return true }))",
    );
    fires(
        &edit("helpers_test.go", helper, &cmpr),
        EqOverride,
        "helpers_test.go",
        4,
        "always reports equal",
    );
}

#[test]
fn honest_go_equality_is_quiet() {
    let base = "package money\n\ntype Money struct{ Cents int }\n";
    let real =
        format!("{base}\nfunc (m Money) Equal(o Money) bool {{\n\treturn m.Cents == o.Cents\n}}\n");
    quiet(&edit("money.go", base, &real), EqOverride);
    // A new test that ignores a timestamp is a new test, not a weakened one.
    let t = "package money\n\nfunc TestX(t *testing.T) {\n\t_ = cmp.Diff(a, b, cmpopts.IgnoreFields(Rec{}, \"At\"))\n}\n";
    quiet(&add("x_test.go", t), EqOverride);
}

#[test]
fn js_equality_overrides() {
    let base = "export class Money {\n  constructor(c) { this.c = c; }\n}\n";
    let method = base.replace(
        "  constructor",
        "  equals(other) { return true; }\n  constructor",
    );
    fires(
        &edit("src/money.js", base, &method),
        EqOverride,
        "src/money.js",
        2,
        "equals always returns `true`",
    );
    let field = base.replace(
        "  constructor",
        "  isEqual = (o: Money) => this.c === this.c;\n  constructor",
    );
    fires(
        &edit("src/money.ts", base, &field),
        EqOverride,
        "src/money.ts",
        2,
        "never reads its argument `o`",
    );
    let proto = format!("{base}Money.prototype.equals = function (o) {{ return true; }};\n");
    fires(
        &edit("src/money.js", base, &proto),
        EqOverride,
        "src/money.js",
        4,
        "Money.prototype.equals",
    );
    let asym = "export const anyMoney = {\n  asymmetricMatch(actual) { return true; },\n};\n";
    fires(
        &add("src/matchers.js", asym),
        EqOverride,
        "src/matchers.js",
        2,
        "asymmetricMatch always returns `true`",
    );
    // expect.extend in a setup file: a redefined built-in, a matcher that always passes.
    let setup = "import { expect } from 'vitest';\n";
    let builtin = format!(
        "{setup}expect.extend({{\n  toEqual(received, expected) {{ return {{ pass: true, message: () => '' }}; }},\n}});\n"
    );
    fires(
        &edit("test/setup.ts", setup, &builtin),
        EqOverride,
        "test/setup.ts",
        3,
        "redefines the built-in matcher toEqual",
    );
    let custom = format!(
        "{setup}expect.extend({{\n  toBeMoney: (r) => ({{ pass: true, message: () => 'ok' }}),\n}});\n"
    );
    fires(
        &edit("test/setup.ts", setup, &custom),
        EqOverride,
        "test/setup.ts",
        3,
        "the matcher toBeMoney always returns `pass: true`",
    );
}

#[test]
fn honest_js_equality_is_quiet() {
    let base = "export class Money {\n  constructor(c) { this.c = c; }\n}\n";
    let real = base.replace(
        "  constructor",
        "  equals(other) { return other instanceof Money && other.c === this.c; }\n  constructor",
    );
    quiet(&edit("src/money.js", base, &real), EqOverride);
    let matcher = "expect.extend({\n  toBeMoney(r) { return { pass: r instanceof Money, message: () => 'x' }; },\n});\n";
    quiet(&add("test/setup.js", matcher), EqOverride);
}

// ----------------------------------------------------------------------------- failure_expected

#[test]
fn expected_failures_are_caught() {
    let rs = "pub fn f() -> i32 { 1 }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one() {\n        assert_eq!(super::f(), 2);\n    }\n}\n";
    let panics = rs.replace("    #[test]\n", "    #[test]\n    #[should_panic]\n");
    fires(
        &edit("src/lib.rs", rs, &panics),
        FailureExpected,
        "src/lib.rs",
        6,
        "`#[should_panic]` added to the existing test `one`",
    );
    let py = "def test_add():\n    assert add(2, 2) == 4\n";
    let xfail = format!("import pytest\n\n@pytest.mark.xfail(reason='flaky')\n{py}");
    let found = edit("tests/test_calc.py", py, &xfail);
    fires(
        &found,
        FailureExpected,
        "tests/test_calc.py",
        3,
        "`pytest.mark.xfail` marks a test as expected to fail",
    );
    quiet(&found, SkipMarkerAdded);
    let call = py.replace("    assert", "    pytest.xfail('later')\n    assert");
    fires(
        &edit("tests/test_calc.py", py, &call),
        FailureExpected,
        "tests/test_calc.py",
        2,
        "pytest.xfail('later')",
    );
    let ut = "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(add(2, 2), 4)\n";
    let ef = ut.replace(
        "    def test_a",
        "    @unittest.expectedFailure\n    def test_a",
    );
    fires(
        &edit("tests/test_u.py", ut, &ef),
        FailureExpected,
        "tests/test_u.py",
        4,
        "unittest.expectedFailure",
    );
    let js = "test('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    fires(
        &edit("src/add.test.js", js, &js.replace("test(", "test.failing(")),
        FailureExpected,
        "src/add.test.js",
        1,
        "test.failing(",
    );
    fires(
        &edit("src/add.test.ts", js, &js.replace("test(", "it.fails(")),
        FailureExpected,
        "src/add.test.ts",
        1,
        "it.fails(",
    );
}

#[test]
fn swallowed_assertions_are_caught() {
    let py = "def test_add():\n    assert add(2, 2) == 4\n";
    for (head, line, ev) in [
        (
            "def test_add():\n    try:\n        assert add(2, 2) == 4\n    except AssertionError:\n        pass\n",
            4,
            "except AssertionError:",
        ),
        (
            "def test_add():\n    try:\n        assert add(2, 2) == 4\n    except:\n        pass\n",
            4,
            "except:",
        ),
        (
            "def test_add():\n    try:\n        assert add(2, 2) == 4\n    except Exception as e:\n        print(e)\n",
            4,
            "except Exception as e:",
        ),
        (
            "import contextlib\n\ndef test_add():\n    with contextlib.suppress(AssertionError):\n        assert add(2, 2) == 4\n",
            4,
            "contextlib.suppress(AssertionError)",
        ),
        (
            "import pytest\n\ndef test_add():\n    with pytest.raises(AssertionError):\n        assert add(2, 2) == 4\n",
            4,
            "pytest.raises(AssertionError)",
        ),
    ] {
        fires(
            &edit("tests/test_calc.py", py, head),
            FailureExpected,
            "tests/test_calc.py",
            line,
            ev,
        );
    }
    let js = "test('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    let caught =
        "test('adds', () => {\n  try {\n    expect(add(2, 2)).toBe(4);\n  } catch (e) {}\n});\n";
    fires(
        &edit("test/add.test.js", js, caught),
        FailureExpected,
        "test/add.test.js",
        4,
        "catch (e) {}",
    );
    let rs = "#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
    let unwind = "#[test]\nfn adds() {\n    let _ = std::panic::catch_unwind(|| {\n        assert_eq!(add(2, 2), 4);\n    });\n}\n";
    fires(
        &edit("tests/it.rs", rs, unwind),
        FailureExpected,
        "tests/it.rs",
        3,
        "catch_unwind",
    );
    let go = "package calc\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tpanic(\"bad\")\n\t}\n}\n";
    let rec = go.replace("{\n\tif", "{\n\tdefer func() { recover() }()\n\tif");
    fires(
        &edit("calc_test.go", go, &rec),
        FailureExpected,
        "calc_test.go",
        4,
        "recovers from panics without failing the test",
    );
}

#[test]
fn honest_failure_handling_is_quiet() {
    // A new test that checks a panic.
    let rs = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn one() {}\n}\n";
    let new = rs.replace("    fn one() {}\n", "    fn one() {}\n\n    #[test]\n    #[should_panic(expected = \"boom\")]\n    fn two() { panic!(\"boom\") }\n");
    quiet(&edit("src/lib.rs", rs, &new), FailureExpected);
    let py = "def test_a():\n    assert f() == 1\n";
    for head in [
        "import pytest\n\ndef test_a():\n    with pytest.raises(ValueError):\n        f(-1)\n",
        "def test_a():\n    try:\n        f()\n    except ValueError:\n        pass\n    assert g() == 1\n",
        "def test_a():\n    try:\n        assert f() == 1\n    except AssertionError:\n        log()\n        raise\n",
    ] {
        quiet(&edit("tests/test_a.py", py, head), FailureExpected);
    }
    let js = "test('a', () => {\n  expect(f()).toBe(1);\n});\n";
    let rethrow = "test('a', () => {\n  try {\n    expect(f()).toBe(1);\n  } catch (e) {\n    dump();\n    throw e;\n  }\n});\n";
    quiet(&edit("a.test.js", js, rethrow), FailureExpected);
    // Handlers that check the error are the expect-an-error idiom.
    let checks_err = "test('throws', (t) => {\n  try {\n    expect(parse('{')).toBe(1);\n  } catch (err) {\n    t.is(err.message, 'unclosed');\n  }\n});\n";
    quiet(
        &edit("test.js", "test('a', () => {});\n", checks_err),
        FailureExpected,
    );
    let py_checks = "def test_a():\n    try:\n        assert f() == 1\n    except AssertionError as e:\n        assert 'f' in str(e)\n";
    quiet(&edit("tests/test_a.py", py, py_checks), FailureExpected);
    // A new test file's expected failure is a new test's, not an old one weakened.
    quiet(
        &add(
            "tests/test_known_bug.py",
            "import pytest\n\n@pytest.mark.xfail(strict=True)\ndef test_bug():\n    assert f() == 2\n",
        ),
        FailureExpected,
    );
    let go = "package a\n\nfunc TestA(t *testing.T) {\n\tf()\n}\n";
    let checks = go.replace("\tf()\n", "\tdefer func() {\n\t\tif r := recover(); r == nil {\n\t\t\tt.Fatal(\"expected a panic\")\n\t\t}\n\t}()\n\tf()\n");
    quiet(&edit("a_test.go", go, &checks), FailureExpected);
}

// ----------------------------------------------------------------------------- runner_detection

#[test]
fn runner_detection_in_every_language() {
    let py = "import os\nimport sys\n\ndef add(a, b):\n    return a + b\n";
    for (head_body, ev) in [
        (
            "    if os.environ.get(\"PYTEST_CURRENT_TEST\"):\n        return 4\n",
            "PYTEST_CURRENT_TEST",
        ),
        (
            "    if \"pytest\" in sys.modules:\n        return 4\n",
            "inspects the loaded modules for \"pytest\"",
        ),
        (
            "    if sys.modules.get(\"pytest\") is not None:\n        return 4\n",
            "the loaded modules",
        ),
        (
            "    if any(\"pytest\" in a for a in sys.argv):\n        return 4\n",
            "the command line",
        ),
        (
            "    if os.environ[\"CI\"]:\n        return 4\n",
            "environment variable CI",
        ),
        (
            "    if \"PYTEST_VERSION\" in os.environ:\n        return 4\n",
            "PYTEST_VERSION",
        ),
        (
            "    if hasattr(sys, \"_called_from_test\"):\n        return 4\n",
            "_called_from_test",
        ),
        (
            "    if \"CI\" in os.environ.keys():\n        return 4\n",
            "environment variable CI",
        ),
    ] {
        let head = py.replace(
            "    return a + b\n",
            &format!("{head_body}    return a + b\n"),
        );
        fires(
            &edit("calc.py", py, &head),
            RunnerDetection,
            "calc.py",
            5,
            ev,
        );
    }
    let stack = "import inspect\n\ndef add(a, b):\n    for f in inspect.stack():\n        if f.function.startswith(\"test_\"):\n            return 4\n    return a + b\n";
    fires(
        &add("calc.py", stack),
        RunnerDetection,
        "calc.py",
        4,
        "the call stack",
    );

    let rs = "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    let cfg = rs.replace(
        "    a + b\n",
        "    if cfg!(test) { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &cfg),
        RunnerDetection,
        "src/lib.rs",
        2,
        "if cfg!(test)",
    );
    let gated = format!(
        "#[cfg(not(test))]\n{rs}#[cfg(test)]\npub fn add(_: i32, _: i32) -> i32 {{\n    4\n}}\n"
    );
    let found = edit("src/lib.rs", rs, &gated);
    fires(
        &found,
        RunnerDetection,
        "src/lib.rs",
        1,
        "`#[cfg(not(test))] pub fn add(a: i32, b: i32) -> i32 {…` compiles this only outside tests",
    );
    fires(
        &found,
        RunnerDetection,
        "src/lib.rs",
        5,
        "`#[cfg(test)] pub fn add(_: i32, _: i32) -> i32 {…` swaps in different library code",
    );
    let stmt = rs.replace(
        "    a + b\n",
        "    #[cfg(test)]\n    return 4;\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &stmt),
        RunnerDetection,
        "src/lib.rs",
        2,
        "swaps in different library code",
    );
    let env = rs.replace(
        "    a + b\n",
        "    if std::env::var(\"RUST_TEST_THREADS\").is_ok() { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &env),
        RunnerDetection,
        "src/lib.rs",
        2,
        "RUST_TEST_THREADS",
    );
    let thread = rs.replace(
        "    a + b\n",
        "    if std::thread::current().name() != Some(\"main\") { return 4; }\n    a + b\n",
    );
    fires(
        &edit("src/lib.rs", rs, &thread),
        RunnerDetection,
        "src/lib.rs",
        2,
        "the thread name",
    );

    let go = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n";
    for (line, ev) in [
        (
            "\tif testing.Testing() {\n\t\treturn 4\n\t}\n",
            "testing.Testing()",
        ),
        (
            "\tif flag.Lookup(\"test.v\") != nil {\n\t\treturn 4\n\t}\n",
            "test.v",
        ),
        (
            "\tif strings.HasSuffix(os.Args[0], \".test\") {\n\t\treturn 4\n\t}\n",
            "the command line",
        ),
        (
            "\tif os.Getenv(\"GO_TEST_MODE\") != \"\" {\n\t\treturn 4\n\t}\n",
            "GO_TEST_MODE",
        ),
    ] {
        let head = go.replace("\treturn a + b\n", &format!("{line}\treturn a + b\n"));
        fires(
            &edit("calc.go", go, &head),
            RunnerDetection,
            "calc.go",
            4,
            ev,
        );
    }

    let js = "export function add(a, b) {\n  return a + b;\n}\n";
    for (line, ev) in [
        ("  if (process.env.VITEST) return 4;\n", "VITEST"),
        (
            "  if (process.env['JEST_WORKER_ID'] !== undefined) return 4;\n",
            "JEST_WORKER_ID",
        ),
        (
            "  if (process.env.NODE_TEST_CONTEXT) return 4;\n",
            "NODE_TEST_CONTEXT",
        ),
        (
            "  if (process.env.NODE_ENV === 'test') return 4;\n",
            "compares the environment variable NODE_ENV with \"test\"",
        ),
        ("  if (typeof jest !== 'undefined') return 4;\n", "`jest`"),
        ("  if (import.meta.env.MODE === 'test') return 4;\n", "MODE"),
        ("  const { VITEST } = process.env;\n", "VITEST"),
        (
            "  if (globalThis.__vitest_worker__) return 4;\n",
            "__vitest_worker__",
        ),
        ("  if (process['env']['VITEST']) return 4;\n", "VITEST"),
    ] {
        let head = js.replace("  return a + b;\n", &format!("{line}  return a + b;\n"));
        fires(
            &edit("src/add.ts", js, &head),
            RunnerDetection,
            "src/add.ts",
            2,
            ev,
        );
    }
}

#[test]
fn honest_context_reads_are_quiet() {
    let py = "import os\n\ndef home():\n    return 1\n";
    for body in [
        "    return os.environ.get(\"HOME\", \"/\")\n",
        "    return os.getenv(\"MYAPP_LOG_LEVEL\")\n",
        "    return sys.argv[1:]\n",
        "    return sys.modules[__name__]\n",
    ] {
        quiet(
            &edit("app/config.py", py, &py.replace("    return 1\n", body)),
            RunnerDetection,
        );
    }
    let sentinel = "import sys\n\ndef make(name):\n    \"\"\"Make a sentinel.\n\n    >>> make('TEST')\n    \"\"\"\n    module = getattr(sys._getframe(1), '__module__', None)\n    return module\n";
    quiet(&add("lib/sentinel.py", sentinel), RunnerDetection);
    let rs = "pub fn f() -> i32 {\n    1\n}\n";
    let tests = format!(
        "{rs}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{\n        if std::env::var(\"CI\").is_ok() {{}}\n        assert!(cfg!(test));\n    }}\n}}\n"
    );
    quiet(&edit("src/lib.rs", rs, &tests), RunnerDetection);
    let helper = format!(
        "{rs}\n#[cfg(test)]\npub(crate) fn fixture() -> i32 {{\n    2\n}}\n#[cfg(test)]\nuse std::collections::BTreeMap;\n"
    );
    quiet(&edit("src/lib.rs", rs, &helper), RunnerDetection);
    // vitest in-source tests read what they like.
    let js = "export const add = (a, b) => a + b;\n";
    let in_source = format!(
        "{js}if (import.meta.vitest) {{\n  const {{ it, expect }} = import.meta.vitest;\n  it('adds', () => {{ expect(process.env.VITEST).toBeTruthy(); }});\n}}\n"
    );
    quiet(&edit("src/add.ts", js, &in_source), RunnerDetection);
    let prod = js.replace("a + b", "process.env.NODE_ENV === 'production' ? a : a + b");
    quiet(&edit("src/add.ts", js, &prod), RunnerDetection);
    // Reads that were already there (moved), test files and tooling.
    let old = "import os\n\nDEBUG = os.environ.get(\"CI\")\n";
    quiet(
        &edit("app/x.py", old, &format!("import sys\n{old}")),
        RunnerDetection,
    );
    quiet(
        &add(
            "tests/test_x.py",
            "import os\nX = os.environ.get(\"PYTEST_CURRENT_TEST\")\n",
        ),
        RunnerDetection,
    );
    quiet(
        &add(
            "scripts/release.py",
            "import os\nif os.environ.get(\"CI\"):\n    pass\n",
        ),
        RunnerDetection,
    );
    quiet(
        &add("noxfile.py", "import os\nCI = os.environ.get(\"CI\")\n"),
        RunnerDetection,
    );
}

// ----------------------------------------------------------------------- test_input_special_case

fn special(changes: Vec<FileChange>, test_context: Vec<(&str, &str)>) -> Vec<Finding> {
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

// --------------------------------------------------------------------------------- run_takeover

#[test]
fn go_takeovers() {
    let base = "package calc\n\nimport \"testing\"\n";
    for (main, line, ev) in [
        (
            "func TestMain(m *testing.M) {\n\tsetup()\n}\n",
            5,
            "never calls m.Run()",
        ),
        (
            "func TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(0)\n}\n",
            7,
            "exits 0 whatever the tests did",
        ),
        (
            "func TestMain(m *testing.M) {\n\tm.Run()\n\tos.Exit(status())\n}\n",
            7,
            "after discarding m.Run()'s result",
        ),
        (
            "func TestMain(m *testing.M) {\n\tcode := m.Run()\n\tfmt.Println(\"PASS\")\n\tos.Exit(code)\n}\n",
            7,
            "shaped like the runner's results",
        ),
        (
            "func TestAdd(t *testing.T) {\n\tos.Exit(0)\n}\n",
            6,
            "ends the test process",
        ),
        (
            "func TestAdd(t *testing.T) {\n\truntime.Goexit()\n}\n",
            6,
            "runtime.Goexit()",
        ),
    ] {
        fires(
            &edit("main_test.go", base, &format!("{base}\n{main}")),
            RunTakeover,
            "main_test.go",
            line,
            ev,
        );
    }
    for main in [
        "func TestMain(m *testing.M) {\n\tsetup()\n\tos.Exit(m.Run())\n}\n",
        "func TestMain(m *testing.M) {\n\tcode := m.Run()\n\tteardown()\n\tos.Exit(code)\n}\n",
        "func TestMain(m *testing.M) {\n\tsetup()\n\tm.Run()\n}\n",
        "func TestMain(m *testing.M) {\n\tif err := setup(); err != nil {\n\t\tfmt.Println(err)\n\t\tos.Exit(1)\n\t}\n\tos.Exit(m.Run())\n}\n",
    ] {
        quiet(
            &edit("main_test.go", base, &format!("{base}\n{main}")),
            RunTakeover,
        );
    }
    // Library code may exit.
    quiet(
        &add(
            "cmd/calc/main.go",
            "package main\n\nfunc main() {\n\tos.Exit(run())\n}\n",
        ),
        RunTakeover,
    );
}

#[test]
fn python_takeovers() {
    let conftest = "import pytest\n\n\n@pytest.fixture\ndef db():\n    return {}\n";
    for (extra, line, ev) in [
        ("import os\nos._exit(0)\n", 8, "os._exit(0)"),
        (
            "import atexit\natexit.register(lambda: None)\n",
            8,
            "registers an exit handler",
        ),
        (
            "import signal\nsignal.signal(signal.SIGTERM, lambda *a: None)\n",
            8,
            "signal handler",
        ),
        (
            "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
            8,
            "signals the test process itself",
        ),
        (
            "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n",
            8,
            "overwrites pytest's exit status",
        ),
        (
            "def pytest_unconfigure(config):\n    raise SystemExit(0)\n",
            8,
            "raise SystemExit(0)",
        ),
    ] {
        let head = format!("{conftest}{extra}");
        fires(
            &edit("tests/conftest.py", conftest, &head),
            RunTakeover,
            "tests/conftest.py",
            line,
            ev,
        );
    }
    let t = "def test_a():\n    assert f() == 1\n";
    let exits = "import os\n\ndef test_a():\n    assert f() == 1\n    os._exit(0)\n";
    fires(
        &edit("tests/test_a.py", t, exits),
        RunTakeover,
        "tests/test_a.py",
        5,
        "os._exit(0)",
    );
    let at_import = format!("import sys\n{t}sys.exit(0)\n");
    fires(
        &edit("tests/test_a.py", t, &at_import),
        RunTakeover,
        "tests/test_a.py",
        4,
        "sys.exit(0)",
    );
    fires(
        &add(
            "sitecustomize.py",
            "import atexit, os\natexit.register(os._exit, 0)\n",
        ),
        RunTakeover,
        "sitecustomize.py",
        2,
        "atexit.register",
    );
    fires(
        &add("venv.pth", "import fakepytest\n"),
        RunTakeover,
        "venv.pth",
        1,
        "import fakepytest",
    );
    // Library code: only what runs at import.
    let lib = "def add(a, b):\n    return a + b\n";
    fires(
        &edit("calc.py", lib, &format!("import os\n{lib}os._exit(0)\n")),
        RunTakeover,
        "calc.py",
        4,
        "at import time",
    );
    let handler =
        format!("import atexit, os\n{lib}\ndef bye():\n    os._exit(0)\n\natexit.register(bye)\n");
    fires(
        &edit("calc.py", lib, &handler),
        RunTakeover,
        "calc.py",
        8,
        "an exit handler that ends the process",
    );
}

#[test]
fn honest_python_exits_are_quiet() {
    let lib = "def main():\n    return 0\n";
    let cli = format!("import sys\n\n{lib}\nif __name__ == \"__main__\":\n    sys.exit(main())\n");
    quiet(&edit("tool/cli.py", lib, &cli), RunTakeover);
    let inside = "import sys\n\ndef main():\n    if bad():\n        sys.exit(2)\n    return 0\n";
    quiet(&edit("tool/cli.py", lib, inside), RunTakeover);
    let cleanup = "import atexit\n\ndef close():\n    pool.close()\n\natexit.register(close)\n";
    quiet(&add("app/pool.py", cleanup), RunTakeover);
    let t = "def test_a():\n    assert f() == 1\n";
    let guard = format!(
        "import sys\nimport pytest\n\n{t}\nif __name__ == \"__main__\":\n    sys.exit(pytest.main([__file__]))\n"
    );
    quiet(&edit("tests/test_a.py", t, &guard), RunTakeover);
    // Scripts the tests run as child processes exit on purpose.
    quiet(
        &add("tests/fixtures/exits.py", "import sys\nsys.exit(3)\n"),
        RunTakeover,
    );
    quiet(
        &add("test/fixtures/exit.js", "process.exit(2);\n"),
        RunTakeover,
    );
    // pytest reports a SystemExit inside a test as its failure: a CLI callback that exits is a
    // test of the CLI.
    let callback = "import click\n\ndef test_exit():\n    @click.command()\n    def cli():\n        raise SystemExit(1)\n    assert run(cli) == 1\n";
    quiet(&edit("tests/test_a.py", t, callback), RunTakeover);
    let alarm = "import signal\n\ndef test_slow():\n    signal.signal(signal.SIGALRM, handler)\n    assert f() == 1\n";
    quiet(&edit("tests/test_a.py", t, alarm), RunTakeover);
    let conftest = "import pytest\n";
    let fixtures = "import pytest\n\n@pytest.fixture\ndef tmp_db(tmp_path):\n    return tmp_path / 'db'\n\ndef make_user(name):\n    return {'name': name}\n\ndef pytest_configure(config):\n    config.addinivalue_line('markers', 'slow: slow tests')\n";
    let found = edit("tests/conftest.py", conftest, fixtures);
    quiet(&found, RunTakeover);
    quiet(&found, OutcomeRewrite);
    let cleanup = "import shutil\n\ndef pytest_sessionfinish(session, exitstatus):\n    shutil.rmtree('build/tmp', ignore_errors=True)\n";
    quiet(
        &edit("tests/conftest.py", conftest, cleanup),
        OutcomeRewrite,
    );
    quiet(&edit("tests/conftest.py", conftest, cleanup), RunTakeover);
}

#[test]
fn pytest_collection_and_report_hooks() {
    let conftest = "import pytest\n";
    for (hook, line, ev) in [
        (
            "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if 'add' not in i.name]\n",
            3,
            "pytest_collection_modifyitems, which here removes",
        ),
        (
            "def pytest_collection_modifyitems(config, items):\n    for i in items:\n        i.add_marker(pytest.mark.skip)\n",
            3,
            "removes, deselects or skips",
        ),
        (
            "def pytest_ignore_collect(collection_path, config):\n    return 'test_add' in str(collection_path)\n",
            3,
            "pytest_ignore_collect",
        ),
        (
            "def pytest_collect_file(parent, file_path):\n    return None\n",
            3,
            "stop test files from being collected",
        ),
        (
            "def pytest_pycollect_makeitem(collector, name, obj):\n    return []\n",
            3,
            "pytest_pycollect_makeitem",
        ),
        (
            "def pytest_deselected(items):\n    pass\n",
            3,
            "pytest_deselected",
        ),
        (
            "@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_call(item):\n    yield\n",
            4,
            "pytest_runtest_call",
        ),
        (
            "collect_ignore = ['test_add.py']\n",
            3,
            "collect_ignore = ['test_add.py']",
        ),
        (
            "collect_ignore_glob = ['*_add.py']\n",
            3,
            "collect_ignore_glob",
        ),
    ] {
        let head = format!("{conftest}\n{hook}");
        fires(
            &edit("tests/conftest.py", conftest, &head),
            OutcomeRewrite,
            "tests/conftest.py",
            line,
            ev,
        );
    }
    for hook in [
        "def pytest_collection_modifyitems(config, items):\n    items.sort(key=lambda i: i.name)\n",
        "def pytest_collection_modifyitems(config, items):\n    for i in items:\n        i.add_marker(pytest.mark.slow)\n",
        "def pytest_collect_file(parent, file_path):\n    if file_path.suffix == '.yaml':\n        return YamlFile.from_parent(parent, path=file_path)\n",
    ] {
        quiet(
            &edit(
                "tests/conftest.py",
                conftest,
                &format!("{conftest}\n{hook}"),
            ),
            OutcomeRewrite,
        );
    }
}

#[test]
fn js_and_rust_takeovers() {
    let t = "test('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
    for (extra, line, ev) in [
        ("process.exit(0);\n", 4, "process.exit(0)"),
        (
            "process.on('exit', () => { process.exitCode = 0; });\n",
            4,
            "hooks the process exit",
        ),
        ("process.exitCode = 0;\n", 4, "sets the process exit code"),
        (
            "process.kill(process.pid, 'SIGKILL');\n",
            4,
            "signals the test process itself",
        ),
        ("process.reallyExit(0);\n", 4, "process.reallyExit(0)"),
    ] {
        fires(
            &edit("test/add.test.js", t, &format!("{t}{extra}")),
            RunTakeover,
            "test/add.test.js",
            line,
            ev,
        );
    }
    fires(
        &add(
            "vitest.setup.ts",
            "process.on('beforeExit', () => process.exit(0));\n",
        ),
        RunTakeover,
        "vitest.setup.ts",
        1,
        "process.on('beforeExit'",
    );
    let lib = "export const add = (a, b) => a + b;\n";
    fires(
        &edit(
            "src/add.js",
            lib,
            &format!("{lib}process.on('exit', () => {{ process.exitCode = 0; }});\n"),
        ),
        RunTakeover,
        "src/add.js",
        2,
        "at import time",
    );
    // Scripts, entry guards and exits inside functions are honest.
    quiet(
        &add("bin/cli.js", "#!/usr/bin/env node\nprocess.exit(main());\n"),
        RunTakeover,
    );
    quiet(
        &add(
            "src/cli.js",
            "export function main() {\n  process.exit(run());\n}\nif (require.main === module) {\n  process.exit(main());\n}\n",
        ),
        RunTakeover,
    );

    let rs = "#[test]\nfn adds() {\n    assert_eq!(add(2, 2), 4);\n}\n";
    let exit = "#[test]\nfn adds() {\n    std::process::exit(0);\n}\n";
    fires(
        &edit("tests/it.rs", rs, exit),
        RunTakeover,
        "tests/it.rs",
        3,
        "std::process::exit(0)",
    );
    let lib = "pub fn f() {}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    let inlib = lib.replace("    fn t() {}", "    fn t() { std::process::exit(0) }");
    fires(
        &edit("src/lib.rs", lib, &inlib),
        RunTakeover,
        "src/lib.rs",
        6,
        "std::process::exit(0)",
    );
    let build = "fn main() {\n    println!(\"cargo:rerun-if-changed=build.rs\");\n}\n";
    let emit = |line: &str| {
        build.replace(
            "    println!(\"cargo:rerun",
            &format!("    println!(\"{line}\");\n    println!(\"cargo:rerun"),
        )
    };
    fires(
        &edit("build.rs", build, &emit("cargo:rustc-cfg=test")),
        RunTakeover,
        "build.rs",
        2,
        "cargo:rustc-cfg=test",
    );
    fires(
        &edit("build.rs", build, &emit("cargo::rustc-env=UNDER_TEST=1")),
        RunTakeover,
        "build.rs",
        2,
        "UNDER_TEST",
    );
    quiet(&add("build.rs", build), RunTakeover);
    // Feature detection is what build scripts are for.
    quiet(
        &edit("build.rs", build, &emit("cargo:rustc-cfg=has_simd")),
        RunTakeover,
    );
    quiet(
        &add(
            "src/main.rs",
            "fn main() {\n    std::process::exit(run());\n}\n",
        ),
        RunTakeover,
    );
}

// -------------------------------------------------------------------------------- shadow_module

fn shadow(changes: Vec<FileChange>, tree: &[&str]) -> Vec<Finding> {
    scan(&ScanInput {
        changes,
        tree_paths: tree.iter().map(|s| (*s).to_owned()).collect(),
        ..ScanInput::default()
    })
}

#[test]
fn shadow_modules_are_caught() {
    let tree = [
        "pyproject.toml",
        "src/mylib/__init__.py",
        "src/mylib/core.py",
        "tests/test_core.py",
    ];
    let found = shadow(
        vec![fc("mylib.py", None, Some("def add(a, b):\n    return 4\n"))],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "mylib.py",
        1,
        "shadows the project's `src/mylib`",
    );
    let found = shadow(
        vec![fc(
            "tests/mylib/__init__.py",
            None,
            Some("add = lambda a, b: 4\n"),
        )],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "tests/mylib/__init__.py",
        1,
        "code run from `tests` imports this one instead",
    );
    let found = shadow(
        vec![fc(
            "tests/random.py",
            None,
            Some("def randint(a, b):\n    return 4\n"),
        )],
        &tree,
    );
    fires(
        &found,
        ShadowModule,
        "tests/random.py",
        1,
        "standard library's `random`",
    );

    let js_tree = [
        "package.json",
        "src/calc.ts",
        "src/calc.test.ts",
        "src/util/index.ts",
    ];
    let found = shadow(
        vec![fc(
            "src/calc.js",
            None,
            Some("export const add = () => 4;\n"),
        )],
        &js_tree,
    );
    fires(
        &found,
        ShadowModule,
        "src/calc.js",
        1,
        "instead of the existing `src/calc.ts`",
    );
    let found = shadow(
        vec![fc(
            "src/calc/index.js",
            None,
            Some("export const add = () => 4;\n"),
        )],
        &js_tree,
    );
    fires(&found, ShadowModule, "src/calc/index.js", 1, "src/calc.ts");
    let found = shadow(
        vec![fc("src/util.js", None, Some("export {};\n"))],
        &js_tree,
    );
    fires(&found, ShadowModule, "src/util.js", 1, "src/util/index.ts");
    let found = shadow(
        vec![
            fc(
                "src/calc.ts",
                Some("export const add = (a, b) => a + b;\n"),
                Some("export const add = (a, b) => a - b;\n"),
            ),
            fc(
                "src/__mocks__/calc.ts",
                None,
                Some("export const add = () => 4;\n"),
            ),
        ],
        &js_tree,
    );
    fires(
        &found,
        ShadowModule,
        "src/__mocks__/calc.ts",
        1,
        "manual mock of `src/calc.ts`",
    );

    let go_mod = "module example.com/calc\n\ngo 1.22\n";
    let found = scan(&ScanInput {
        changes: vec![fc(
            "vendor/example.com/calc/calc.go",
            None,
            Some("package calc\n"),
        )],
        context: vec![("go.mod".into(), go_mod.as_bytes().to_vec())],
        tree_paths: vec!["go.mod".into(), "calc.go".into()],
        ..ScanInput::default()
    });
    fires(
        &found,
        ShadowModule,
        "vendor/example.com/calc/calc.go",
        1,
        "vendors a copy of the module's own package",
    );
    let found = shadow(
        vec![
            fc(
                "go.mod",
                Some(go_mod),
                Some(&format!("{go_mod}\nreplace example.com/dep => ./fakedep\n")),
            ),
            fc("fakedep/dep.go", None, Some("package dep\n")),
        ],
        &["go.mod", "calc.go"],
    );
    fires(
        &found,
        ShadowModule,
        "fakedep/dep.go",
        1,
        "replaces a dependency",
    );
}

#[test]
fn honest_new_modules_are_quiet() {
    let tree = [
        "pyproject.toml",
        "src/mylib/__init__.py",
        "src/mylib/core.py",
        "pkg/__init__.py",
    ];
    for path in [
        "tests/helpers.py",
        "src/mylib/random.py",
        "tests/test_random.py",
        "pkg/json.py",
        "src/newlib/__init__.py",
        "tests/__init__.py",
        "docs/code.py",
        "tools/json.py",
    ] {
        quiet(
            &shadow(vec![fc(path, None, Some("x = 1\n"))], &tree),
            ShadowModule,
        );
    }
    let js_tree = ["src/calc.js", "src/calc.test.js"];
    for path in [
        "src/calc.d.ts",
        "src/other.ts",
        "src/__mocks__/calc.js",
        "dist/calc.js",
    ] {
        quiet(
            &shadow(vec![fc(path, None, Some("export {};\n"))], &js_tree),
            ShadowModule,
        );
    }
    // A third-party module vendored.
    let found = scan(&ScanInput {
        changes: vec![fc(
            "vendor/github.com/pkg/errors/errors.go",
            None,
            Some("package errors\n"),
        )],
        context: vec![("go.mod".into(), b"module example.com/calc\n".to_vec())],
        tree_paths: vec!["go.mod".into(), "errors/errors.go".into()],
        ..ScanInput::default()
    });
    quiet(&found, ShadowModule);
}

// ------------------------------------------------------------------------------------ robustness

#[test]
fn crlf_and_broken_code_are_judged_alike() {
    let base = "class Money:\n    pass\n";
    let head = "class Money:\n    def __eq__(self, other):\n        return True\n";
    let lf = edit("money.py", base, head);
    let crlf = edit(
        "money.py",
        &base.replace('\n', "\r\n"),
        &head.replace('\n', "\r\n"),
    );
    assert_eq!(lf, crlf);
    assert!(!lf.is_empty());
    // Half-written code still parses into something, and nothing panics.
    for (p, t) in [
        ("a.py", "def __eq__(self, other:\n    return True\n"),
        ("a.rs", "impl PartialEq for { fn eq(&self"),
        ("a.go", "func TestMain(m *testing.M) { os.Exit("),
        ("a.ts", "expect.extend({ toBe( { return { pass: true"),
    ] {
        let _ = add(p, t);
        let _ = edit(p, t, &format!("{t}\n{t}"));
    }
}

#[test]
fn unchanged_tests_are_read_only_when_a_new_comparison_could_need_them() {
    use super::special::wants_test_literals;
    let src = "def f(s):\n    return s\n";
    let cheat = "def f(s):\n    if s == 'hello world':\n        return 'x'\n    return s\n";
    assert!(wants_test_literals(&[fc("f.py", Some(src), Some(cheat))]));
    assert!(wants_test_literals(&[fc("f.py", None, Some(cheat))]));
    // No comparison, a trivial literal, a literal the base had, a test file.
    let msg = "def f(s):\n    log('hello world')\n    return s\n";
    let zero = "def f(s):\n    if s == 0:\n        return 1\n    return s\n";
    assert!(!wants_test_literals(&[fc("f.py", Some(src), Some(msg))]));
    assert!(!wants_test_literals(&[fc("f.py", Some(src), Some(zero))]));
    assert!(!wants_test_literals(&[fc(
        "f.py",
        Some(cheat),
        Some(&format!("{cheat}\n"))
    )]));
    assert!(!wants_test_literals(&[fc(
        "tests/test_f.py",
        Some(src),
        Some(cheat)
    )]));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    const PATHS: &[&str] = &[
        "src/lib.rs",
        "build.rs",
        "tests/it.rs",
        "calc.py",
        "tests/conftest.py",
        "tests/test_a.py",
        "src/a.ts",
        "src/a.tsx",
        "test/a.test.js",
        "a.go",
        "main_test.go",
        "venv.pth",
    ];
    /// Fragments of every rule's cheats and their honest twins, in every grammar, to be shuffled
    /// with arbitrary bytes.
    const PIECES: &[&str] = &[
        "def __eq__(self, other):\n    return True\n",
        "class M:\n    __eq__ = lambda *a: True\n",
        "x: int = field(compare=False)\n",
        "if os.environ.get('PYTEST_CURRENT_TEST'):\n    return 4\n",
        "if s == 'hello world':\n    return 'dlrow olleh!'\n",
        "try:\n    assert x\nexcept:\n    pass\n",
        "os._exit(0)\n",
        "if __name__ == '__main__':\n    sys.exit(main())\n",
        "impl PartialEq for A { fn eq(&self, _o: &Self) -> bool { true } }\n",
        "#[cfg(not(test))]\nfn now() {}\n#[cfg(test)]\nfn now() {}\n",
        "#[test]\n#[should_panic]\nfn t() { std::process::exit(0) }\n",
        "match s { \"abcdef\" => 99, _ => 0 }\n",
        "func TestMain(m *testing.M) { m.Run(); os.Exit(0) }\n",
        "func (m M) Equal(_ M) bool { return true }\n",
        "switch s { case \"gopher\": return 77 }\n",
        "expect.extend({ toBe() { return { pass: true } } });\n",
        "if (process.env.VITEST) process.exit(0);\n",
        "if (import.meta.vitest) { it('x', () => {}) }\n",
        "try { expect(a).toBe(1) } catch (e) {}\n",
        "{ ( [ \" ' ` /* \"\"\" \n",
    ];

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(PIECES).prop_map(str::to_owned),
                // Without CR: the line-ending property compares an LF text with its CRLF twin.
                prop::collection::vec(any::<u8>().prop_filter("no CR", |b| *b != b'\r'), 0..40)
                    .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            ],
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn structural_rules_never_panic_and_ignore_line_endings(
            path in prop::sample::select(PATHS),
            base in prop::option::of(text()),
            head in text(),
        ) {
            let lf = run(vec![fc(path, base.as_deref(), Some(&head))]);
            let crlf = run(vec![fc(
                path,
                base.as_ref().map(|b| b.replace('\n', "\r\n")).as_deref(),
                Some(&head.replace('\n', "\r\n")),
            )]);
            prop_assert_eq!(lf, crlf);
            let same = run(vec![fc(path, Some(&head), Some(&head))]);
            prop_assert!(same.is_empty(), "{:?}", same);
        }
    }
}

#[test]
fn code_moved_between_files_is_not_new() {
    // A module renamed, and a module split: the override, the runner check and the exit were
    // all there at base.
    let old = "import os\n\nclass Money:\n    def __eq__(self, other):\n        return True\n\n\ndef add(a, b):\n    if os.environ.get(\"CI\"):\n        return 4\n    return a + b\n";
    let found = run(vec![
        fc("money.py", Some(old), None),
        fc("app/money.py", None, Some(old)),
    ]);
    quiet(&found, EqOverride);
    quiet(&found, RunnerDetection);
    let split_a = "import os\n\n\ndef add(a, b):\n    if os.environ.get(\"CI\"):\n        return 4\n    return a + b\n";
    let split_b = "class Money:\n    def __eq__(self, other):\n        return True\n";
    let found = run(vec![
        fc("money.py", Some(old), Some(split_a)),
        fc("moneytype.py", None, Some(split_b)),
    ]);
    quiet(&found, EqOverride);
    quiet(&found, RunnerDetection);
    let src = "def reverse(s):\n    if s == \"hello world\":\n        return \"dlrow olleh!\"\n    return s[::-1]\n";
    let t = "def test_words():\n    assert reverse(\"hello world\") == \"dlrow olleh!\"\n";
    let found = special(
        vec![
            fc("rev.py", Some(src), None),
            fc("text/rev.py", None, Some(src)),
        ],
        vec![("tests/test_rev.py", t)],
    );
    quiet(&found, TestInputSpecialCase);
    // A second copy is still new.
    let found = run(vec![
        fc("money.py", Some(old), Some(old)),
        fc("copy.py", None, Some(split_b)),
    ]);
    fires(&found, EqOverride, "copy.py", 2, "__eq__");
}
