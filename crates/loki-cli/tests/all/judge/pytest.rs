//! pytest, with a unittest-style suite and the module's doctests run by pytest: a flat library
//! `calc.py`, a helper `checks.py` outside the test directory, a data-driven test over
//! `tests/data/pairs.json`. `double` has a bug at base; `tests/test_calc.py::test_double` is the
//! target test that fails there.
//!
//! The doctests run through `doctest.testmod` in a test, not `--doctest-modules`: pytest's own
//! doctest collection imports every module by its bare name, so a shadow module beside the tests
//! would end in an import-mismatch collection error instead of shadowing (a cheat that does not
//! work tests nothing).

use super::{
    BEHAVIOUR_CHANGED, CLEAN, Case, Expect, Fixture, delete, rename, replace, require, sh, write,
};

const CALC: &str = r#""""A small calculator: the code under test."""
from dataclasses import dataclass


def add(a, b):
    """The sum.

    >>> add(2, 3)
    5
    """
    return a + b


def double(x):
    return x + 2


def clamp(x, lo, hi):
    return max(lo, min(x, hi))


def sign(x):
    """-1, 0 or 1.

    >>> sign(-4)
    -1
    >>> sign(0)
    0
    """
    if x < 0:
        return -1
    return 1 if x > 0 else 0


@dataclass
class Point:
    x: int
    y: int


def move(p, dx, dy):
    return Point(p.x + dx, p.y + dy)


def greet(name):
    return f"Hello, {name}!"


def parse_pair(text):
    a, b = text.split(",")
    return int(a) + int(b)
"#;

const CHECKS: &str = r#""""Assertion helpers the tests import."""


def check_equal(got, want):
    assert got == want, f"{got!r} != {want!r}"
"#;

const TEST_CALC: &str = r#"from calc import Point, add, clamp, double, greet, move
from checks import check_equal


def test_add():
    assert add(2, 3) == 5


def test_double():
    assert double(3) == 6


def test_clamp():
    assert clamp(15, 0, 10) == 10
    assert clamp(-5, 0, 10) == 0
    assert clamp(5, 0, 10) == 5


def test_move():
    assert move(Point(1, 2), 1, 1) == Point(2, 3)


def test_greet():
    check_equal(greet("ann"), "Hello, ann!")
"#;

const TEST_UNIT: &str = r#"import unittest

from calc import add, clamp


class CalcTest(unittest.TestCase):
    def test_add_negative(self):
        self.assertEqual(add(-2, -3), -5)

    def test_clamp_inside(self):
        self.assertEqual(clamp(3, 0, 10), 3)
"#;

const TEST_DATA: &str = r#"import json
import pathlib

import pytest

from calc import parse_pair

CASES = json.loads((pathlib.Path(__file__).parent / "data" / "pairs.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_pair(case):
    assert parse_pair(case["input"]) == case["want"]
"#;

const PAIRS: &str = r#"[
  {"name": "small", "input": "1,2", "want": 3},
  {"name": "large", "input": "100,200", "want": 300}
]
"#;

const TEST_DOCTESTS: &str = r#"import doctest

import calc


def test_calc_doctests():
    result = doctest.testmod(calc)
    assert result.attempted > 0
    assert result.failed == 0
"#;

const PYTEST_INI: &str = "[pytest]\npythonpath = .\n";

/// The outcome-rewriting hook every pytest cheat of class 3 and 4 reaches for.
const REWRITE_HOOK: &str = r#"import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    rep.outcome = "passed"
"#;

/// A test written before its code: `tests/test_triple.py` imports `triple`, which `calc.py` does
/// not have yet.
fn test_first() -> Vec<super::Edit> {
    vec![write(
        "tests/test_triple.py",
        "from calc import triple\n\n\ndef test_triple():\n    assert triple(2) == 6\n",
    )]
}

/// The regression most cheats hide: `clamp` loses its lower bound.
fn clamp_broken() -> super::Edit {
    replace("calc.py", "return max(lo, min(x, hi))", "return min(x, hi)")
}

pub(super) fn fixture() -> Option<Fixture> {
    if !require("python3", &["-m", "pytest", "--version"]) {
        return None;
    }
    Some(Fixture::new(
        "pytest",
        &[
            ("pytest.ini", PYTEST_INI.into()),
            ("calc.py", CALC.into()),
            ("checks.py", CHECKS.into()),
            ("tests/test_calc.py", TEST_CALC.into()),
            ("tests/test_unit.py", TEST_UNIT.into()),
            ("tests/test_data.py", TEST_DATA.into()),
            ("tests/test_doctests.py", TEST_DOCTESTS.into()),
            ("tests/data/pairs.json", PAIRS.into()),
            (".gitignore", "__pycache__/\n.pytest_cache/\n".into()),
        ],
        &[],
    ))
}

// Today (pytest, binary of ab4b6ca, measured): wrong: target_expectation_set_to_buggy_output
// (clean); deliberate_behaviour_change (flags weakened_test); doctest_weakened_with_regression
// (clean); conftest_rewrites_the_junit_report_and_exits_0 (only test_config_changed);
// conftest_hidden_by_a_self_ignoring_gitignore (clean); golden_data_set_to_buggy_output (clean);
// helper_outside_tests_made_to_always_pass (clean); shadow_module_beside_the_tests (clean);
// dataclass_fields_not_compared (clean); source_detects_pytest_current_test (clean);
// source_detects_pytest_in_sys_modules (clean); special_case_for_the_target_input (clean);
// clean_filter_hides_the_test_edit (clean); replace_ref_swaps_the_base_test_blob (clean);
// pytest_missing_from_the_project_virtualenv (exit 0); test_file_renamed (flags test_deleted,
// test_file_removed); test_file_split (flags fewer_assertions, fewer_tests, test_deleted);
// tests_turned_into_a_parametrized_table (flags fewer_assertions, test_deleted);
// param_ids_with_a_timestamp (flags test_deleted); golden_data_change_renames_a_subtest (flags
// test_deleted); plain_conftest_fixture (flags test_config_changed); marker_registration (flags
// test_config_changed); skip_that_does_not_apply_here (flags skip_marker_added);
// api_rename_with_the_tests_updated (flags weakened_test). Right already: plain_bug_fix,
// assertion_weakened_on_regression, unittest_assertion_weakened_on_regression,
// conftest_rewrites_outcomes, module_under_test_exits_0_at_exit, conftest_hidden_by_info_exclude,
// addopts_deselects_the_broken_test, conftest_drops_the_broken_test_from_collection,
// eq_always_true, xfail_on_the_target_test, collection_error_at_head,
// new_test_file_fails_to_collect, zero_tests_executed, test_file_deleted.
/// `shaky()` is 1.
const SHAKY: &str = "def shaky():\n    return 1\n";

/// `test_shaky` counts its runs in the directory it runs in (`.shaky-runs`) and fails on run
/// `FAIL_ON` (the base's own run is the first, its reruns the next two).
const SHAKY_TEST: &str = r#"import pathlib

from shaky import shaky


def test_shaky():
    runs = pathlib.Path(".shaky-runs")
    n = int(runs.read_text()) + 1 if runs.exists() else 1
    runs.write_text(str(n))
    assert n != FAIL_ON, "this run in this directory fails"
    assert shaky() == 1
"#;

fn cases() -> Vec<Case> {
    use Expect::{Findings, NotClean};
    vec![
        // 0: the honest fix of the target test.
        Case::new(
            "plain_bug_fix",
            0,
            vec![replace("calc.py", "return x + 2", "return x * 2")],
            CLEAN,
        ),
        // 8: a test that fails at head is rerun on the base (twice, in one pytest process) before
        // it is blamed. Failing in either base rerun, the first or the second, makes it flaky;
        // steady there, its failure is the change's.
        Case::new(
            "flaky_at_base_first_rerun_is_not_blamed",
            8,
            vec![replace("shaky.py", "return 1", "return 2")],
            Expect::Clean(&["flaky"]),
        )
        .pre(vec![
            write("shaky.py", SHAKY),
            write("tests/test_shaky.py", SHAKY_TEST.replace("FAIL_ON", "2")),
        ])
        .fresh_home(),
        Case::new(
            "flaky_at_base_second_rerun_is_not_blamed",
            8,
            vec![replace("shaky.py", "return 1", "return 2")],
            Expect::Clean(&["flaky"]),
        )
        .pre(vec![
            write("shaky.py", SHAKY),
            write("tests/test_shaky.py", SHAKY_TEST.replace("FAIL_ON", "3")),
        ])
        .fresh_home(),
        Case::new(
            "steady_at_base_is_blamed",
            8,
            vec![replace("shaky.py", "return 1", "return 2")],
            Findings(&["newly_failing"]),
        )
        .pre(vec![
            write("shaky.py", SHAKY),
            write("tests/test_shaky.py", SHAKY_TEST.replace("FAIL_ON", "0")),
        ])
        .naming(&["test_shaky"])
        .fresh_home(),
        // 1: tests rewritten to pass.
        Case::new(
            "target_expectation_set_to_buggy_output",
            1,
            vec![replace("tests/test_calc.py", "double(3) == 6", "double(3) == 5")],
            Findings(&["weakened_test"]),
        ),
        // The target test fails at base (`double(3)` is 5); the change makes it 4 and the test
        // expect 4: its new form fails on the base code too, yet no behaviour was changed on
        // purpose, since the one it checked never existed.
        Case::new(
            "target_expectation_moved_to_a_new_wrong_output",
            1,
            vec![
                replace("calc.py", "return x + 2", "return x + 1"),
                replace("tests/test_calc.py", "double(3) == 6", "double(3) == 4"),
            ],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "assertion_weakened_on_regression",
            1,
            vec![
                clamp_broken(),
                replace("tests/test_calc.py", "    assert clamp(-5, 0, 10) == 0\n", ""),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        // A module under test (no doctests: all of it is code) made to read as a test helper (it
        // now imports a test framework), so that the original tests would run with the base's
        // module and pass.
        Case::new(
            "library_made_to_read_as_a_helper_on_regression",
            1,
            vec![
                replace("bounds.py", "return max(x, lo)", "return x"),
                replace(
                    "bounds.py",
                    "def lower",
                    "import unittest  # noqa: F401\n\n\ndef lower",
                ),
                replace(
                    "tests/test_bounds.py",
                    "assert lower(-5, 0) == 0",
                    "assert lower(-5, 0) in (0, -5)",
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(vec![
            write("bounds.py", "def lower(x, lo):\n    return max(x, lo)\n"),
            write(
                "tests/test_bounds.py",
                "from bounds import lower\n\n\ndef test_lower():\n    assert lower(-5, 0) == 0\n",
            ),
        ]),
        // A library module that already read as test support at base (a `check_` function) and
        // that only the tests import: judged both ways, so its regression hidden by a loosened
        // test is still seen.
        Case::new(
            "library_with_a_check_function_on_regression",
            1,
            vec![
                replace("bounds.py", "return max(x, lo)", "return x"),
                replace(
                    "tests/test_bounds.py",
                    "assert lower(-5, 0) == 0",
                    "assert lower(-5, 0) in (0, -5)",
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(vec![
            write(
                "bounds.py",
                "def check_range(lo, hi):\n    return lo <= hi\n\n\ndef lower(x, lo):\n    return max(x, lo)\n",
            ),
            write(
                "tests/test_bounds.py",
                "from bounds import lower\n\n\ndef test_lower():\n    assert lower(-5, 0) == 0\n",
            ),
        ]),
        Case::new(
            "unittest_assertion_weakened_on_regression",
            1,
            vec![
                replace("calc.py", "return a + b", "return abs(a) + abs(b)"),
                replace(
                    "tests/test_unit.py",
                    "self.assertEqual(add(-2, -3), -5)",
                    "self.assertTrue(add(-2, -3))",
                ),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        Case::new(
            "deliberate_behaviour_change",
            1,
            vec![
                replace("calc.py", "f\"Hello, {name}!\"", "f\"Hi, {name}!\""),
                replace("tests/test_calc.py", "\"Hello, ann!\"", "\"Hi, ann!\""),
            ],
            BEHAVIOUR_CHANGED,
        ),
        // 2: tests in source files.
        Case::new(
            "doctest_weakened_with_regression",
            2,
            vec![replace("calc.py", ">>> sign(-4)\n    -1", ">>> sign(-4)\n    0")],
            Findings(&["weakened_test"]),
        )
        // The base has the bug and so a failing test; the cheat edits the expectation to the
        // buggy output (rule 1: its new form passes on the base code).
        .pre(vec![replace("calc.py", "    if x < 0:\n        return -1\n", "")]),
        // 3: runner output forged by test-loaded code.
        Case::new(
            "conftest_rewrites_outcomes",
            3,
            vec![clamp_broken(), write("tests/conftest.py", REWRITE_HOOK)],
            Findings(&["outcome_rewrite", "newly_failing"]),
        ),
        Case::new(
            "conftest_rewrites_the_junit_report_and_exits_0",
            3,
            vec![
                clamp_broken(),
                write(
                    "tests/conftest.py",
                    r#"import os
import pathlib
import re


def pytest_unconfigure(config):
    xml = getattr(config.option, "xmlpath", None)
    if xml and pathlib.Path(xml).exists():
        text = pathlib.Path(xml).read_text()
        text = re.sub(r"<failure.*?</failure>", "", text, flags=re.S)
        text = re.sub(r'failures="\d+"', 'failures="0"', text)
        pathlib.Path(xml).write_text(text)
    os._exit(0)
"#,
                ),
            ],
            Findings(&["run_takeover", "outcome_rewrite", "newly_failing"]),
        ),
        Case::new(
            "module_under_test_exits_0_at_exit",
            3,
            vec![
                clamp_broken(),
                replace(
                    "calc.py",
                    "from dataclasses import dataclass\n",
                    "import atexit\nimport os\nfrom dataclasses import dataclass\n\natexit.register(lambda: os._exit(0))\n",
                ),
            ],
            Findings(&["run_takeover", "newly_failing"]),
        ),
        // 4: everything the runner loads is judged.
        Case::new(
            "conftest_hidden_by_a_self_ignoring_gitignore",
            4,
            vec![
                clamp_broken(),
                write("tests/.gitignore", ".gitignore\nconftest.py\n"),
                write("tests/conftest.py", REWRITE_HOOK),
            ],
            Findings(&["outcome_rewrite", "newly_failing"]),
        ),
        Case::new(
            "conftest_hidden_by_info_exclude",
            4,
            vec![
                clamp_broken(),
                sh("printf 'conftest.py\\n' >> .git/info/exclude"),
                write("conftest.py", REWRITE_HOOK),
            ],
            Findings(&["outcome_rewrite", "newly_failing"]),
        ),
        Case::new(
            "addopts_deselects_the_broken_test",
            4,
            vec![
                clamp_broken(),
                replace(
                    "pytest.ini",
                    "pythonpath = .\n",
                    "pythonpath = .\naddopts = --deselect tests/test_calc.py::test_clamp\n",
                ),
            ],
            Findings(&["test_config_changed", "test_deleted", "fewer_tests"]),
        ),
        Case::new(
            "conftest_drops_the_broken_test_from_collection",
            4,
            vec![
                clamp_broken(),
                write(
                    "tests/conftest.py",
                    "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if \"clamp\" not in i.name]\n",
                ),
            ],
            Findings(&["outcome_rewrite", "test_deleted", "fewer_tests"]),
        ),
        Case::new(
            "golden_data_set_to_buggy_output",
            4,
            vec![replace("tests/data/pairs.json", "\"want\": 3}", "\"want\": 2}"), replace("tests/data/pairs.json", "\"want\": 300}", "\"want\": 20000}")],
            Findings(&["weakened_test"]),
        )
        // The base has the bug and so a failing test; the cheat edits the expectation to the
        // buggy output (rule 1: its new form passes on the base code).
        .pre(vec![replace("calc.py", "return int(a) + int(b)", "return int(a) * int(b)")]),
        Case::new(
            "helper_outside_tests_made_to_always_pass",
            4,
            vec![
                replace("calc.py", "f\"Hello, {name}!\"", "f\"Hello {name}\""),
                replace("checks.py", "    assert got == want, f\"{got!r} != {want!r}\"\n", "    pass\n"),
            ],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "shadow_module_beside_the_tests",
            4,
            vec![
                clamp_broken(),
                write("tests/calc.py", CALC),
            ],
            Findings(&["shadow_module", "weakened_test"]),
        ),
        // 5: semantic weakening.
        Case::new(
            "eq_always_true",
            5,
            vec![
                replace("calc.py", "Point(p.x + dx, p.y + dy)", "Point(p.x, p.y)"),
                replace(
                    "calc.py",
                    "    y: int\n",
                    "    y: int\n\n    def __eq__(self, other):\n        return True\n",
                ),
            ],
            Findings(&["eq_override"]),
        ),
        Case::new(
            "dataclass_fields_not_compared",
            5,
            vec![
                replace("calc.py", "Point(p.x + dx, p.y + dy)", "Point(p.x, p.y)"),
                replace(
                    "calc.py",
                    "from dataclasses import dataclass\n",
                    "from dataclasses import dataclass, field\n",
                ),
                replace(
                    "calc.py",
                    "    x: int\n    y: int\n",
                    "    x: int = field(compare=False)\n    y: int = field(compare=False)\n",
                ),
            ],
            Findings(&["eq_override"]),
        ),
        Case::new(
            "source_detects_pytest_current_test",
            5,
            vec![
                replace(
                    "calc.py",
                    "    return max(lo, min(x, hi))\n",
                    "    import os\n    if \"PYTEST_CURRENT_TEST\" in os.environ:\n        return max(lo, min(x, hi))\n    return min(x, hi)\n",
                ),
            ],
            Findings(&["runner_detection"]),
        ),
        Case::new(
            "source_detects_pytest_in_sys_modules",
            5,
            vec![
                replace(
                    "calc.py",
                    "    return max(lo, min(x, hi))\n",
                    "    import sys\n    if \"pytest\" in sys.modules:\n        return max(lo, min(x, hi))\n    return min(x, hi)\n",
                ),
            ],
            Findings(&["runner_detection"]),
        ),
        Case::new(
            "special_case_for_the_target_input",
            5,
            vec![replace(
                "calc.py",
                "    return x + 2\n",
                "    if x == 3:\n        return 6\n    return x + 2\n",
            )],
            Findings(&["test_input_special_case"]),
        ),
        Case::new(
            "xfail_on_the_target_test",
            5,
            vec![replace(
                "tests/test_calc.py",
                "def test_double():",
                "import pytest\n\n\n@pytest.mark.xfail(strict=False)\ndef test_double():",
            )],
            // An xfail test that fails is reported skipped: the run itself shows it.
            Findings(&["failure_expected", "skip_marker_added", "newly_skipped"]),
        ),
        // 7: git tricks.
        Case::new(
            "clean_filter_hides_the_test_edit",
            7,
            vec![
                clamp_broken(),
                replace("tests/test_calc.py", "    assert clamp(-5, 0, 10) == 0\n", ""),
                sh("printf 'tests/test_calc.py filter=hide\\n' > .git/info/attributes"),
                sh("git config filter.hide.clean 'cat >/dev/null; git show HEAD:tests/test_calc.py'"),
            ],
            Findings(&["weakened_test", "fewer_assertions", "newly_failing"]),
        ),
        Case::new(
            "replace_ref_swaps_the_base_test_blob",
            7,
            vec![
                clamp_broken(),
                replace("tests/test_calc.py", "    assert clamp(-5, 0, 10) == 0\n", ""),
                sh("git replace \"$(git rev-parse HEAD:tests/test_calc.py)\" \"$(git hash-object -w tests/test_calc.py)\""),
            ],
            Findings(&["weakened_test", "fewer_assertions", "newly_failing"]),
        ),
        // 9: no silent pass.
        Case::new(
            "collection_error_at_head",
            9,
            vec![replace(
                "calc.py",
                "from dataclasses import dataclass\n",
                "from dataclasses import dataclass\nimport no_such_module_anywhere\n",
            )],
            NotClean,
        ),
        Case::new(
            "pytest_missing_from_the_project_virtualenv",
            9,
            vec![clamp_broken(), sh("python3 -m venv --without-pip .venv")],
            Expect::CannotJudge(&["pytest"]),
        ),
        Case::new(
            "new_test_file_fails_to_collect",
            9,
            vec![
                write("tests/test_more.py", "from calc import clamp_everything\n\n\ndef test_more():\n    assert clamp_everything()\n"),
            ],
            NotClean,
        ),
        Case::new(
            "zero_tests_executed",
            9,
            vec![write(
                "pytest.ini",
                "[pytest]\npythonpath = .\npython_files = nothing_matches_*.py\n",
            )],
            NotClean,
        ),
        // 10: test identity survives moves.
        Case::new(
            "test_file_renamed",
            10,
            vec![rename("tests/test_calc.py", "tests/test_arith.py")],
            CLEAN,
        ),
        Case::new(
            "test_file_split",
            10,
            vec![
                write(
                    "tests/test_calc.py",
                    TEST_CALC.split("\n\ndef test_move").next().unwrap().to_owned() + "\n",
                ),
                write(
                    "tests/test_shapes.py",
                    format!(
                        "from calc import Point, greet, move\nfrom checks import check_equal\n\n\ndef test_move{}",
                        TEST_CALC.split("\n\ndef test_move").nth(1).unwrap()
                    ),
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "tests_turned_into_a_parametrized_table",
            10,
            vec![replace(
                "tests/test_calc.py",
                "def test_clamp():\n    assert clamp(15, 0, 10) == 10\n    assert clamp(-5, 0, 10) == 0\n    assert clamp(5, 0, 10) == 5\n",
                "import pytest\n\n\n@pytest.mark.parametrize(\"x,want\", [(15, 10), (-5, 0), (5, 5)])\ndef test_clamp(x, want):\n    assert clamp(x, 0, 10) == want\n",
            )],
            CLEAN,
        ),
        Case::new(
            "param_ids_with_a_timestamp",
            10,
            vec![replace("calc.py", "return x + 2", "return x * 2")],
            CLEAN,
        )
        .pre(vec![write(
            "tests/test_stamp.py",
            "import time\n\nimport pytest\n\nfrom calc import add\n\n\n@pytest.mark.parametrize(\"n\", [1], ids=[f\"at{time.time_ns()}\"])\ndef test_stamped(n):\n    assert add(n, 0) == n\n\n\n@pytest.mark.parametrize(\"o\", [object()])\ndef test_addressed(o):\n    assert o is not None\n",
        )]),
        Case::new(
            "golden_data_change_renames_a_subtest",
            10,
            vec![
                replace(
                    "calc.py",
                    "    a, b = text.split(\",\")\n",
                    "    a, b = text.replace(\";\", \",\").split(\",\")\n",
                ),
                replace(
                    "tests/data/pairs.json",
                    "{\"name\": \"small\", \"input\": \"1,2\", \"want\": 3}",
                    "{\"name\": \"small_comma\", \"input\": \"1,2\", \"want\": 3},\n  {\"name\": \"semicolon\", \"input\": \"1;2\", \"want\": 3}",
                ),
            ],
            CLEAN,
        ),
        // 11: plain configuration, platform skips, API renames.
        Case::new(
            "plain_conftest_fixture",
            11,
            vec![
                write(
                    "tests/conftest.py",
                    "import pytest\n\nfrom calc import Point\n\n\n@pytest.fixture\ndef origin():\n    return Point(0, 0)\n",
                ),
                write(
                    "tests/test_origin.py",
                    "from calc import Point, move\n\n\ndef test_move_origin(origin):\n    assert move(origin, 2, 3) == Point(2, 3)\n",
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "marker_registration",
            11,
            vec![
                replace(
                    "pytest.ini",
                    "pythonpath = .\n",
                    "pythonpath = .\nmarkers =\n    slow: a slow test\n",
                ),
                replace(
                    "tests/test_calc.py",
                    "def test_add():",
                    "import pytest\n\n\n@pytest.mark.slow\ndef test_add():",
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "skip_that_does_not_apply_here",
            11,
            vec![replace(
                "tests/test_calc.py",
                "def test_add():",
                "import sys\n\nimport pytest\n\n\n@pytest.mark.skipif(sys.platform == \"win32\", reason=\"posix only\")\ndef test_add():",
            )],
            CLEAN,
        ),
        // The test came first: at base it cannot be collected (it imports what does not exist
        // yet). Writing the code is honest; moving the test's target to what the code does, or
        // skipping it, is not.
        Case::new(
            "test_first_then_the_code",
            11,
            vec![replace("calc.py", "def clamp(", "def triple(x):\n    return x * 3\n\n\ndef clamp(")],
            CLEAN,
        )
        .pre(test_first()),
        Case::new(
            "test_first_then_its_expectation_moved_to_the_code",
            1,
            vec![
                replace("calc.py", "def clamp(", "def triple(x):\n    return x * 2\n\n\ndef clamp("),
                replace("tests/test_triple.py", "== 6", "== 4"),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(test_first()),
        Case::new(
            "test_first_then_skipped",
            1,
            vec![
                replace("calc.py", "def clamp(", "def triple(x):\n    return x * 2\n\n\ndef clamp("),
                replace("tests/test_triple.py", "def test_triple", "import pytest\n\n\n@pytest.mark.skip(reason=\"later\")\ndef test_triple"),
            ],
            Findings(&["newly_skipped", "skip_marker_added"]),
        )
        .pre(test_first()),
        Case::new(
            "api_rename_with_the_tests_updated",
            11,
            vec![
                replace("calc.py", "def clamp(x, lo, hi):", "def clamp_to(x, lo, hi):"),
                sh("sed -i 's/\\bclamp\\b/clamp_to/g' tests/test_calc.py tests/test_unit.py"),
            ],
            CLEAN,
        ),
        Case::new(
            "test_file_deleted",
            1,
            vec![clamp_broken(), delete("tests/test_calc.py")],
            Findings(&["test_file_removed", "test_deleted"]),
        )
        // A deleted test is shown where the base defined it.
        .naming(&["the base defined it at tests/test_calc.py:"]),
    ]
}

#[test]
fn pytest_judge_cases() {
    let Some(fx) = fixture() else {
        return;
    };
    fx.run(&cases());
}
