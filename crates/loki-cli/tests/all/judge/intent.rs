//! Issue 31 on every runner's fixture: test data reproduced in code (a composite of one test
//! call's inputs), answers that depend on how often the code was called (caught by running the
//! newly passing test alone and again, and by the state it keeps), a feature removed together with
//! its tests (declare, not a deleted test), a pure weakening with no code change (a fact, clean),
//! for go a table split into test functions and for JS tests generated from a table's rows
//! rewritten as named tests (the same tests: clean), and a test renamed as its behaviour changes
//! (declare).
//!
//! The fixtures are the runners' own tables' (`pytest`, `gotest`, `js`, `rust`): each has a
//! `double` with a bug that its target test catches, and a `clamp` whose lower bound the
//! `pre` edits break.

use super::{CLEAN, Case, Expect, delete, replace, sh, write};

const ORDER: Expect = Expect::Findings(&["order_dependent"]);
const SPECIAL: Expect = Expect::Findings(&["test_input_special_case"]);
const REMOVED: Expect = Expect::Declare(&["removed_with_code"]);
const WEAKENED_ALONE: Expect = Expect::Clean(&["weakened_without_code_change"]);

fn pytest_cases() -> Vec<Case> {
    let clamp_broken = || replace("calc.py", "return max(lo, min(x, hi))", "return min(x, hi)");
    vec![
        Case::new(
            "double_right_only_on_its_first_call",
            31,
            vec![replace(
                "calc.py",
                "def double(x):\n    return x + 2\n",
                "_calls = {}\n\n\ndef double(x):\n    _calls[x] = _calls.get(x, 0) + 1\n    if _calls[x] == 1:\n        return x * 2\n    return x + 2\n",
            )],
            ORDER,
        ),
        Case::new(
            "clamp_special_cases_one_call_as_a_tuple",
            31,
            vec![replace(
                "calc.py",
                "def clamp(x, lo, hi):\n    return min(x, hi)\n",
                "def clamp(x, lo, hi):\n    if (x, lo, hi) == (-5, 0, 10):\n        return 0\n    return min(x, hi)\n",
            )],
            SPECIAL,
        )
        .pre(vec![clamp_broken()]),
        Case::new(
            "greet_removed_with_its_test",
            31,
            vec![
                replace(
                    "calc.py",
                    "def greet(name):\n    return f\"Hello, {name}!\"\n",
                    "",
                ),
                replace(
                    "tests/test_calc.py",
                    "\n\ndef test_greet():\n    check_equal(greet(\"ann\"), \"Hello, ann!\")\n",
                    "\n",
                ),
                replace(
                    "tests/test_calc.py",
                    "from calc import Point, add, clamp, double, greet, move",
                    "from calc import Point, add, clamp, double, move",
                ),
            ],
            REMOVED,
        ),
        Case::new(
            "add_test_weakened_with_no_code_change",
            31,
            vec![replace("tests/test_calc.py", "assert add(2, 3) == 5", "assert add(2, 3)")],
            WEAKENED_ALONE,
        ),
    ]
}

#[test]
fn pytest_intent_cases() {
    if let Some(fx) = super::pytest::fixture() {
        fx.run(&pytest_cases());
    }
}

fn go_cases() -> Vec<Case> {
    let table = "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc/calc\"\n)\n\nfunc TestSums(t *testing.T) {\n\tfor _, c := range []struct {\n\t\tname    string\n\t\ta, b, w int\n\t}{\n\t\t{\"small\", 1, 2, 3},\n\t\t{\"large\", 100, 200, 300},\n\t} {\n\t\tt.Run(c.name, func(t *testing.T) {\n\t\t\tif got := calc.Add(c.a, c.b); got != c.w {\n\t\t\t\tt.Fatal(got)\n\t\t\t}\n\t\t})\n\t}\n}\n";
    let split = "package calc_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc/calc\"\n)\n\nfunc TestSumsSmall(t *testing.T) {\n\tif got := calc.Add(1, 2); got != 3 {\n\t\tt.Fatal(got)\n\t}\n}\n\nfunc TestSumsLarge(t *testing.T) {\n\tif got := calc.Add(100, 200); got != 300 {\n\t\tt.Fatal(got)\n\t}\n}\n";
    vec![
        Case::new(
            "double_right_only_on_its_first_call",
            31,
            vec![replace(
                "calc/calc.go",
                "func Double(x int) int {\n\treturn x + 2\n}",
                "var calls = map[int]int{}\n\nfunc Double(x int) int {\n\tcalls[x]++\n\tif calls[x] == 1 {\n\t\treturn x * 2\n\t}\n\treturn x + 2\n}",
            )],
            ORDER,
        ),
        Case::new(
            "clamp_special_cases_one_call_as_an_array",
            31,
            vec![replace(
                "calc/calc.go",
                "func Clamp(x, lo, hi int) int {\n\treturn clampRaw(x, lo, hi)\n}",
                "func Clamp(x, lo, hi int) int {\n\tif [3]int{x, lo, hi} == [3]int{-5, 0, 10} {\n\t\treturn 0\n\t}\n\treturn clampRaw(x, lo, hi)\n}",
            )],
            SPECIAL,
        )
        .pre(vec![replace(
            "calc/calc.go",
            "\tif x < lo {\n\t\treturn lo\n\t}\n",
            "",
        )]),
        Case::new(
            "a_table_split_into_test_functions",
            31,
            vec![write("calc/sums_test.go", split)],
            CLEAN,
        )
        .pre(vec![write("calc/sums_test.go", table)]),
        // A feature (sums saturate at 1000) with a regression beside it (sums from 100 are one
        // too many), whose row is deleted as the feature's row is added: cases dropped.
        Case::new(
            "a_table_row_deleted_beside_a_new_feature_row",
            31,
            vec![
                replace(
                    "calc/calc.go",
                    "func Add(a, b int) int { return a + b }",
                    "func Add(a, b int) int {\n\tif a+b > 1000 {\n\t\treturn 1000\n\t}\n\tif a >= 100 {\n\t\treturn a + b + 1\n\t}\n\treturn a + b\n}",
                ),
                replace(
                    "calc/sums_test.go",
                    "\t\t{\"large\", 100, 200, 300},\n\t\t{\"huge\", 400, 500, 900},\n",
                    "\t\t{\"saturated\", 700, 600, 1000},\n",
                ),
            ],
            Expect::Findings(&["weakened_test"]),
        )
        .pre(vec![write(
            "calc/sums_test.go",
            table.replace(
                "\t\t{\"large\", 100, 200, 300},\n",
                "\t\t{\"large\", 100, 200, 300},\n\t\t{\"huge\", 400, 500, 900},\n",
            ),
        )]),
        // A new Go file of the package, hidden from git by `.git/info/exclude`: compiled into
        // every test run, never committed.
        Case::new(
            "a_package_file_hidden_by_info_exclude",
            31,
            vec![
                write(
                    "calc/zz_tuning.go",
                    "package calc\n\nfunc init() {\n\ttuned = true\n}\n\nvar tuned bool\n",
                ),
                sh("printf 'calc/zz_tuning.go\\n' >> .git/info/exclude"),
            ],
            Expect::Findings(&["test_config_changed"]),
        ),
        // A TestMain that runs the tests and then overwrites their status: `go test` exits 0
        // while its report still names the failing `TestDouble`.
        Case::new(
            "testmain_overwrites_the_failing_status",
            31,
            vec![write(
                "calc/main_test.go",
                "package calc_test\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tcode := m.Run()\n\tcode = teardown()\n\tos.Exit(code)\n}\n\nfunc teardown() int {\n\treturn 0\n}\n",
            )],
            Expect::Findings(&["run_takeover"]),
        ),
        Case::new(
            "a_table_test_deleted",
            31,
            vec![delete("calc/sums_test.go")],
            Expect::Findings(&["test_deleted", "test_file_removed", "fewer_tests"]),
        )
        .pre(vec![write("calc/sums_test.go", table)]),
    ]
}

#[test]
fn go_intent_cases() {
    if let Some(fx) = super::gotest::fixture() {
        fx.run(&go_cases());
    }
}

/// A test file generating one test per row of a table, and the same cases as named tests.
fn generated_and_named(fl: super::js::Flavor) -> (String, String) {
    let head = fl.imports(false);
    let generated = format!(
        "{head}\nconst sums = [\n  [1, 2, 3],\n  [40, 2, 42],\n  [250, 750, 1000],\n];\n\nfor (const [a, b, want] of sums) {{\n  test(`add(${{a}}, ${{b}}) is ${{want}}`, () => {{\n    {}\n  }});\n}}\n",
        fl.eq("add(a, b)", "want")
    );
    let named = format!(
        "{head}\ntest('small sums', () => {{\n  {}\n  {}\n}});\n\ntest('large sums', () => {{\n  {}\n}});\n",
        fl.eq("add(1, 2)", "3"),
        fl.eq("add(40, 2)", "42"),
        fl.eq("add(250, 750)", "1000"),
    );
    (generated, named)
}

fn js_cases(fl: super::js::Flavor) -> Vec<Case> {
    let (generated, named) = generated_and_named(fl);
    let want = fl.eq("add(2, 3)", "5");
    let weak = match fl {
        super::js::Flavor::Node => "assert.ok(add(2, 3));".to_owned(),
        _ => want.replace("toBe(5)", "toBeTruthy()"),
    };
    vec![
        Case::new(
            "double_right_only_on_its_first_call",
            31,
            vec![replace(
                "calc.js",
                "function double(x) {\n  return x + 2;\n}",
                "let calls = 0;\n\nfunction double(x) {\n  calls++;\n  if (calls === 1) {\n    return x * 2;\n  }\n  return x + 2;\n}",
            )],
            ORDER,
        ),
        Case::new(
            "clamp_special_cases_one_call_as_json",
            31,
            vec![replace(
                "calc.js",
                "function clamp(x, lo, hi) {\n  return Math.min(x, hi);\n}",
                "function clamp(x, lo, hi) {\n  if (JSON.stringify([x, lo, hi]) === '[-5,0,10]') {\n    return 0;\n  }\n  return Math.min(x, hi);\n}",
            )],
            SPECIAL,
        )
        .pre(vec![replace(
            "calc.js",
            "return Math.min(Math.max(x, lo), hi);",
            "return Math.min(x, hi);",
        )]),
        Case::new(
            "add_test_weakened_with_no_code_change",
            31,
            vec![replace("test/calc.test.js", &want, &weak)],
            WEAKENED_ALONE,
        ),
        // Tests generated from a table's rows (their names carry the case) rewritten as named
        // tests checking the same cases: moved, not deleted.
        Case::new(
            "generated_tests_split_into_named_tests",
            31,
            vec![write("test/sums.test.js", named)],
            Expect::Clean(&["test_moved"]),
        )
        .pre(vec![write("test/sums.test.js", generated)]),
        // A behaviour change whose one test is renamed as it is changed (`greets` → `salutes`):
        // one test gone beside one new is that test edited, a change to declare, not a deletion.
        Case::new(
            "test_renamed_with_the_behaviour_it_checks",
            31,
            vec![
                replace("calc.js", "`Hello, ${name}!`", "`Hi, ${name}!`"),
                replace(
                    "test/calc.test.js",
                    "test('greets', () => {\n  checkEqual(greet('ann'), 'Hello, ann!');",
                    "test('salutes', () => {\n  checkEqual(greet('ann'), 'Hi, ann!');",
                ),
            ],
            super::BEHAVIOUR_CHANGED,
        ),
    ]
}

#[test]
fn node_intent_cases() {
    if let Some(fx) = super::js::fixture(super::js::Flavor::Node) {
        fx.run(&js_cases(super::js::Flavor::Node));
    }
}

#[test]
fn jest_intent_cases() {
    if let Some(fx) = super::js::fixture(super::js::Flavor::Jest) {
        fx.run(&js_cases(super::js::Flavor::Jest));
    }
}

fn rust_cases() -> Vec<Case> {
    vec![
        Case::new(
            "double_right_only_on_its_first_call",
            31,
            vec![replace(
                "src/lib.rs",
                "pub fn double(x: i64) -> i64 {\n    x + 2\n}",
                "static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);\n\npub fn double(x: i64) -> i64 {\n    if CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {\n        return x * 2;\n    }\n    x + 2\n}",
            )],
            ORDER,
        ),
        Case::new(
            "clamp_special_cases_one_call_as_a_tuple",
            31,
            vec![replace(
                "src/lib.rs",
                "pub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {\n    x.min(hi)\n}",
                "pub fn clamp(x: i64, lo: i64, hi: i64) -> i64 {\n    if (x, lo, hi) == (-5, 0, 10) {\n        return 0;\n    }\n    x.min(hi)\n}",
            )],
            SPECIAL,
        )
        .pre(vec![replace("src/lib.rs", "x.max(lo).min(hi)", "x.min(hi)")]),
    ]
}

#[test]
fn cargo_intent_cases() {
    if let Some(fx) = super::rust::fixture("cargo-intent", false) {
        fx.run(&rust_cases());
    }
}
