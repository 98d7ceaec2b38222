//! `failure_expected`: expected failures and swallowed assertions, and honest failure handling.

use super::*;

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
