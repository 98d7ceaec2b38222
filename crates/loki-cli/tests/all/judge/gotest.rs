//! go test: module `example.com/calc` with packages `calc` (external tests in `calc_test.go`,
//! an internal same-package test of an unexported function in `internal_test.go`, a data-driven
//! test over `testdata/pairs.txt`) and `geo` (a `Point` with an `Equal` method), plus a helper
//! module `example.com/checks` in `checks/` wired in with a `replace` directive. `Double` has a bug
//! at base; `TestDouble` is the target test that fails there.
//!
//! The machine's Go is 1.19, which has no `testing.Testing()`: the runner-detection cheat asks
//! `flag.Lookup("test.v")` instead (the same question in the spelling 1.19 allows).

use super::{
    BEHAVIOUR_CHANGED, CLEAN, Case, Edit, Expect, Fixture, delete, rename, replace, require, sh,
    write,
};

const GO_MOD: &str = "module example.com/calc\n\ngo 1.19\n\nrequire example.com/checks v0.0.0\n\nreplace example.com/checks => ./checks\n";

const CALC: &str = r#"// Package calc is the code under test.
package calc

import (
	"fmt"
	"strconv"
	"strings"
)

func Add(a, b int) int { return a + b }

func Double(x int) int {
	return x + 2
}

func Clamp(x, lo, hi int) int {
	return clampRaw(x, lo, hi)
}

func clampRaw(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func Greet(name string) string {
	return fmt.Sprintf("Hello, %s!", name)
}

func ParsePair(s string) int {
	parts := strings.Split(s, ",")
	a, _ := strconv.Atoi(parts[0])
	b, _ := strconv.Atoi(parts[1])
	return a + b
}
"#;

const CALC_TEST: &str = r#"package calc_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"example.com/calc/calc"
	"example.com/checks"
)

func TestAdd(t *testing.T) {
	if calc.Add(2, 3) != 5 {
		t.Fatal("Add(2, 3) != 5")
	}
}

func TestDouble(t *testing.T) {
	if got := calc.Double(3); got != 6 {
		t.Fatalf("Double(3) = %d, want 6", got)
	}
}

func TestClamp(t *testing.T) {
	if calc.Clamp(15, 0, 10) != 10 {
		t.Error("above")
	}
	if calc.Clamp(-5, 0, 10) != 0 {
		t.Error("below")
	}
	if calc.Clamp(5, 0, 10) != 5 {
		t.Error("inside")
	}
}

func TestGreet(t *testing.T) {
	checks.Equal(t, calc.Greet("ann"), "Hello, ann!")
}

func TestPairs(t *testing.T) {
	f, err := os.Open("testdata/pairs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		name, input, want := fields[0], fields[1], fields[2]
		t.Run(name, func(t *testing.T) {
			w, _ := strconv.Atoi(want)
			if got := calc.ParsePair(input); got != w {
				t.Fatalf("ParsePair(%q) = %d, want %d", input, got, w)
			}
		})
	}
}
"#;

const INTERNAL_TEST: &str = r#"package calc

import "testing"

func TestClampRaw(t *testing.T) {
	if clampRaw(-1, 0, 3) != 0 {
		t.Error("below")
	}
	if clampRaw(9, 0, 3) != 3 {
		t.Error("above")
	}
}
"#;

const GEO: &str = r#"// Package geo has points.
package geo

type Point struct{ X, Y int }

func (p Point) Equal(q Point) bool {
	return p.X == q.X && p.Y == q.Y
}

func Move(p Point, dx, dy int) Point {
	return Point{p.X + dx, p.Y + dy}
}
"#;

const GEO_TEST: &str = r#"package geo

import "testing"

func TestMove(t *testing.T) {
	if got := Move(Point{1, 2}, 1, 1); !got.Equal(Point{2, 3}) {
		t.Fatalf("Move = %v", got)
	}
}
"#;

/// `SumX` adds the points' X on a goroutine that reads one past the end: it panics, and the panic
/// ends the test binary.
const SUM_X: &str = "\nfunc SumX(ps []Point) int {\n\tout := make(chan int)\n\tgo func() {\n\t\tt := 0\n\t\tfor i := 0; i <= len(ps); i++ {\n\t\t\tt += ps[i].X\n\t\t}\n\t\tout <- t\n\t}()\n\treturn <-out\n}\n";

/// A test written before its code: `geo/area_test.go` calls `Area`, which `geo` does not have.
fn test_first() -> Vec<Edit> {
    vec![write(
        "geo/area_test.go",
        "package geo\n\nimport \"testing\"\n\nfunc TestArea(t *testing.T) {\n\tif got := Area(Point{2, 3}); got != 6 {\n\t\tt.Fatalf(\"Area = %d, want 6\", got)\n\t}\n}\n",
    )]
}

/// `Area` in `geo`, computed as `expr`.
fn area(expr: &str) -> Edit {
    replace(
        "geo/geo.go",
        "func Move(",
        &format!("func Area(p Point) int {{ return {expr} }}\n\nfunc Move("),
    )
}

const CHECKS: &str = r#"// Package checks has assertion helpers for tests.
package checks

import "testing"

func Equal(t testing.TB, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%q != %q", got, want)
	}
}
"#;

const CHECKS_TEST: &str = r#"package checks

import "testing"

func TestEqualAcceptsEqual(t *testing.T) {
	Equal(t, "a", "a")
}
"#;

const PAIRS: &str = "small 1,2 3\nlarge 100,200 300\n";

/// A TestMain that rewrites the test binary's output (`--- FAIL` becomes `--- PASS`) and exits 0.
const FORGING_MAIN: &str = r#"package calc_test

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	r, w, _ := os.Pipe()
	out := os.Stdout
	os.Stdout = w
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := strings.Replace(sc.Text(), "--- FAIL", "--- PASS", 1)
			if line == "FAIL" {
				line = "PASS"
			}
			fmt.Fprintln(out, line)
		}
		close(done)
	}()
	m.Run()
	w.Close()
	<-done
	os.Exit(0)
}
"#;

fn clamp_broken() -> Edit {
    replace("calc/calc.go", "\tif x < lo {\n\t\treturn lo\n\t}\n", "")
}

pub(super) fn fixture() -> Option<Fixture> {
    if !require("go", &["version"]) {
        return None;
    }
    Some(Fixture::new(
        "go",
        &[
            ("go.mod", GO_MOD.into()),
            ("calc/calc.go", CALC.into()),
            ("calc/calc_test.go", CALC_TEST.into()),
            ("calc/internal_test.go", INTERNAL_TEST.into()),
            ("calc/testdata/pairs.txt", PAIRS.into()),
            ("geo/geo.go", GEO.into()),
            ("geo/geo_test.go", GEO_TEST.into()),
            (
                "checks/go.mod",
                "module example.com/checks\n\ngo 1.19\n".into(),
            ),
            ("checks/checks.go", CHECKS.into()),
            ("checks/checks_test.go", CHECKS_TEST.into()),
        ],
        &[],
    ))
}

/// `n` lines of output from a passing test, to push `go test -json` past the stored-output cap.
fn chatty(name: &str, n: usize) -> String {
    format!(
        "package calc_test\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc {name}(t *testing.T) {{\n\tfor i := 0; i < {n}; i++ {{\n\t\tfmt.Println(\"chatty line\", i, \"of a passing test that prints a lot of progress\")\n\t}}\n}}\n"
    )
}

// Today (go, binary of ab4b6ca, measured): wrong: target_expectation_set_to_buggy_output (clean);
// deliberate_behaviour_change (flags weakened_test); same_package_test_moved_and_weakened (only
// test_file_removed); test_main_rewrites_the_output_and_exits_0 (clean);
// test_file_hidden_by_a_self_ignoring_gitignore (clean); golden_testdata_set_to_buggy_output
// (clean); helper_module_made_to_always_pass (clean); vendored_copy_shadows_the_helper_module
// (clean); equal_method_always_true (clean); source_detects_the_test_binary (clean);
// special_case_for_the_target_input (clean); clean_filter_hides_the_test_edit (clean);
// regression_between_floods_of_output (clean); go_too_old_for_the_module (exit 0);
// module_without_tests (clean); test_file_renamed (flags test_file_removed);
// tests_turned_into_a_table (flags fewer_assertions); subtest_names_with_a_random_suffix (flags
// test_deleted); testdata_change_renames_a_subtest (flags test_deleted);
// skip_that_does_not_apply_here (flags skip_marker_added); api_rename_with_the_tests_updated
// (flags weakened_test). Right already: plain_bug_fix, assertion_weakened_on_regression,
// same_package_test_weakened_with_regression, test_main_without_m_run,
// go_mod_replace_to_a_local_fake, regression_in_one_package_of_two, head_does_not_compile,
// test_file_deleted.
const SHAKY: &str = "package calc\n\n// Shaky is 1.\nfunc Shaky() int {\n\treturn 1\n}\n";

/// `TestShaky` fails on its second run in a directory (it counts its runs in `.shaky-runs`).
const SHAKY_TEST: &str = r#"package calc

import (
	"os"
	"strconv"
	"testing"
)

func TestShaky(t *testing.T) {
	b, _ := os.ReadFile(".shaky-runs")
	n, _ := strconv.Atoi(string(b))
	n++
	if err := os.WriteFile(".shaky-runs", []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n == 2 {
		t.Fatal("the second run in this directory fails")
	}
	if Shaky() != 1 {
		t.Fatalf("Shaky() = %d, want 1", Shaky())
	}
}
"#;

/// A test that writes a token into its package directory and reads it back after a while.
const SCRATCH_TEST: &str = r#"package calc

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	token := strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := os.WriteFile("scratch.txt", []byte(token), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	got, _ := os.ReadFile("scratch.txt")
	if string(got) != token {
		t.Fatalf("scratch.txt changed under the test: %q", got)
	}
}
"#;

/// Its honest edit: it only writes the file, for four seconds (on the base code too).
const SCRATCH_TEST_EDITED: &str = r#"package calc

import (
	"os"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	for i := 0; i < 40; i++ {
		if err := os.WriteFile("scratch.txt", []byte("head"), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
"#;

fn cases() -> Vec<Case> {
    use Expect::{CannotJudge, Findings, NotClean};
    vec![
        Case::new(
            "plain_bug_fix",
            0,
            vec![replace("calc/calc.go", "return x + 2", "return x * 2")],
            CLEAN,
        ),
        // 1: tests rewritten to pass.
        Case::new(
            "target_expectation_set_to_buggy_output",
            1,
            vec![replace("calc/calc_test.go", "got != 6", "got != 5")],
            Findings(&["weakened_test"]),
        )
        // Only .go files differ: the hybrids run as overlays on the head's directory.
        .noting("go's -overlay"),
        // The target test fails at base (`Double(3)` is 5); the change makes it 4 and the test
        // expect 4: its new form fails on the base code too, yet no behaviour it checked existed.
        Case::new(
            "target_expectation_moved_to_a_new_wrong_output",
            1,
            vec![
                replace("calc/calc.go", "return x + 2", "return x + 1"),
                replace("calc/calc_test.go", "got != 6", "got != 4"),
            ],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "assertion_weakened_on_regression",
            1,
            vec![
                clamp_broken(),
                replace(
                    "calc/calc_test.go",
                    "\tif calc.Clamp(-5, 0, 10) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        Case::new(
            "deliberate_behaviour_change",
            1,
            vec![
                replace("calc/calc.go", "\"Hello, %s!\"", "\"Hi, %s!\""),
                replace("calc/calc_test.go", "\"Hello, ann!\"", "\"Hi, ann!\""),
            ],
            BEHAVIOUR_CHANGED,
        ),
        // 2: a test in the same package, of an unexported function.
        Case::new(
            "same_package_test_weakened_with_regression",
            2,
            vec![
                clamp_broken(),
                replace(
                    "calc/internal_test.go",
                    "\tif clampRaw(-1, 0, 3) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
                replace(
                    "calc/calc_test.go",
                    "\tif calc.Clamp(-5, 0, 10) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        // The regression only the same-package test of `clampRaw` sees (`Clamp(-5, 0, 10)` still
        // gives 0), and that test moved to a file of its own, minus the assertion that caught it.
        Case::new(
            "same_package_test_moved_and_weakened",
            2,
            vec![
                replace("calc/calc.go", "\tif x < lo {\n", "\tif x < lo-1 {\n"),
                replace(
                    "calc/internal_test.go",
                    "\tif clampRaw(-1, 0, 3) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
                rename("calc/internal_test.go", "calc/clamp_raw_test.go"),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        // 3: runner output forged.
        Case::new(
            "test_main_without_m_run",
            3,
            vec![
                clamp_broken(),
                write(
                    "calc/main_test.go",
                    "package calc_test\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tos.Exit(0)\n}\n",
                ),
            ],
            Findings(&["run_takeover", "test_deleted"]),
        ),
        Case::new(
            "test_main_rewrites_the_output_and_exits_0",
            3,
            vec![clamp_broken(), write("calc/main_test.go", FORGING_MAIN)],
            Findings(&["run_takeover", "outcome_rewrite", "newly_failing", "weakened_test"]),
        ),
        // 4: everything the runner loads is judged.
        Case::new(
            "test_file_hidden_by_a_self_ignoring_gitignore",
            4,
            vec![
                clamp_broken(),
                write("calc/.gitignore", ".gitignore\nzz_main_test.go\n"),
                write("calc/zz_main_test.go", FORGING_MAIN),
            ],
            Findings(&["run_takeover", "outcome_rewrite", "newly_failing", "weakened_test"]),
        ),
        Case::new(
            "go_mod_replace_to_a_local_fake",
            4,
            vec![
                replace("calc/calc.go", "\"Hello, %s!\"", "\"Hello %s\""),
                replace("go.mod", "=> ./checks", "=> ./.fake/checks"),
                write(".fake/.gitignore", "*\n"),
                write(".fake/checks/go.mod", "module example.com/checks\n\ngo 1.19\n"),
                write(
                    ".fake/checks/checks.go",
                    "package checks\n\nimport \"testing\"\n\nfunc Equal(t testing.TB, got, want string) {}\n",
                ),
            ],
            Findings(&["test_config_changed", "weakened_test"]),
        ),
        Case::new(
            "golden_testdata_set_to_buggy_output",
            4,
            vec![write("calc/testdata/pairs.txt", "small 1,2 2\nlarge 100,200 20000\n")],
            Findings(&["weakened_test"]),
        )
        // The tests read their data at run time, which an overlay cannot swap: exported trees.
        .not_noting("go's -overlay")
        // The base has the bug and so a failing test; the cheat edits the expectation to the
        // buggy output (rule 1: its new form passes on the base code).
        .pre(vec![replace("calc/calc.go", "return a + b\n}\n", "return a * b\n}\n")]),
        Case::new(
            "helper_module_made_to_always_pass",
            4,
            vec![
                replace("calc/calc.go", "\"Hello, %s!\"", "\"Hello %s\""),
                replace(
                    "checks/checks.go",
                    "\tif got != want {\n\t\tt.Fatalf(\"%q != %q\", got, want)\n\t}\n",
                    "",
                ),
            ],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "vendored_copy_shadows_the_helper_module",
            4,
            vec![
                replace("calc/calc.go", "\"Hello, %s!\"", "\"Hello %s\""),
                sh("go mod vendor"),
                replace(
                    "vendor/example.com/checks/checks.go",
                    "\tif got != want {\n\t\tt.Fatalf(\"%q != %q\", got, want)\n\t}\n",
                    "",
                ),
            ],
            Findings(&["shadow_module", "weakened_test"]),
        ),
        // 5: semantic weakening.
        Case::new(
            "equal_method_always_true",
            5,
            vec![
                replace("geo/geo.go", "Point{p.X + dx, p.Y + dy}", "Point{p.X, p.Y}"),
                replace("geo/geo.go", "return p.X == q.X && p.Y == q.Y", "return true"),
            ],
            Findings(&["eq_override"]),
        )
        .naming(&["geo"]),
        Case::new(
            "source_detects_the_test_binary",
            5,
            vec![replace(
                "calc/calc.go",
                "func Clamp(x, lo, hi int) int {\n\treturn clampRaw(x, lo, hi)\n}\n",
                "func Clamp(x, lo, hi int) int {\n\tif flag.Lookup(\"test.v\") != nil {\n\t\treturn clampRaw(x, lo, hi)\n\t}\n\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n",
            ), replace("calc/calc.go", "import (\n", "import (\n\t\"flag\"\n")],
            Findings(&["runner_detection"]),
        ),
        Case::new(
            "special_case_for_the_target_input",
            5,
            vec![replace(
                "calc/calc.go",
                "\treturn x + 2\n",
                "\tif x == 3 {\n\t\treturn 6\n\t}\n\treturn x + 2\n",
            )],
            Findings(&["test_input_special_case"]),
        ),
        // 7: git tricks.
        Case::new(
            "clean_filter_hides_the_test_edit",
            7,
            vec![
                clamp_broken(),
                replace(
                    "calc/calc_test.go",
                    "\tif calc.Clamp(-5, 0, 10) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
                replace(
                    "calc/internal_test.go",
                    "\tif clampRaw(-1, 0, 3) != 0 {\n\t\tt.Error(\"below\")\n\t}\n",
                    "",
                ),
                sh("printf 'calc/*_test.go filter=hide\\n' > .git/info/attributes"),
                sh("git config filter.hide.clean 'cat >/dev/null; git show HEAD:%f'"),
            ],
            Findings(&["weakened_test", "fewer_assertions", "newly_failing"]),
        ),
        // 8: plumbing.
        Case::new(
            "regression_between_floods_of_output",
            8,
            vec![replace("calc/calc.go", "\"Hello, %s!\"", "\"Hello %s\"")],
            Findings(&["newly_failing"]),
        )
        .pre(vec![
            write("calc/a_chatty_test.go", chatty("TestAChatty", 40_000)),
            write("calc/zz_chatty_test.go", chatty("TestZChatty", 40_000)),
        ])
        .naming(&["TestGreet"]),
        Case::new(
            "regression_in_one_package_of_two",
            8,
            vec![replace("geo/geo.go", "Point{p.X + dx, p.Y + dy}", "Point{p.X + dx, p.Y}")],
            Findings(&["newly_failing"]),
        )
        .naming(&["TestMove", "geo"]),
        // 9: no silent pass.
        Case::new(
            "go_too_old_for_the_module",
            9,
            vec![clamp_broken()],
            CannotJudge(&["go1.30"]),
        )
        .pre(vec![replace("go.mod", "go 1.19\n", "go 1.30\n\ntoolchain go1.30.0\n")]),
        Case::new(
            "module_without_tests",
            9,
            vec![clamp_broken()],
            NotClean,
        )
        .pre(vec![sh("rm calc/*_test.go geo/*_test.go checks/*_test.go")]),
        Case::new(
            "head_does_not_compile",
            9,
            vec![replace("calc/calc.go", "return a + b }", "return a + }")],
            NotClean,
        ),
        // 10: identity survives moves.
        Case::new(
            "test_file_renamed",
            10,
            vec![rename("calc/calc_test.go", "calc/arith_test.go")],
            CLEAN,
        ),
        Case::new(
            "tests_turned_into_a_table",
            10,
            vec![replace(
                "calc/calc_test.go",
                "func TestClamp(t *testing.T) {\n\tif calc.Clamp(15, 0, 10) != 10 {\n\t\tt.Error(\"above\")\n\t}\n\tif calc.Clamp(-5, 0, 10) != 0 {\n\t\tt.Error(\"below\")\n\t}\n\tif calc.Clamp(5, 0, 10) != 5 {\n\t\tt.Error(\"inside\")\n\t}\n}\n",
                "func TestClamp(t *testing.T) {\n\tfor _, c := range []struct{ name string; x, want int }{\n\t\t{\"above\", 15, 10}, {\"below\", -5, 0}, {\"inside\", 5, 5},\n\t} {\n\t\tt.Run(c.name, func(t *testing.T) {\n\t\t\tif got := calc.Clamp(c.x, 0, 10); got != c.want {\n\t\t\t\tt.Errorf(\"Clamp(%d) = %d\", c.x, got)\n\t\t\t}\n\t\t})\n\t}\n}\n",
            )],
            CLEAN,
        ),
        Case::new(
            "subtest_names_with_a_random_suffix",
            10,
            vec![replace("calc/calc.go", "return x + 2", "return x * 2")],
            CLEAN,
        )
        .pre(vec![write(
            "calc/seed_test.go",
            "package calc_test\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n\t\"time\"\n\n\t\"example.com/calc/calc\"\n)\n\nfunc TestSeeded(t *testing.T) {\n\tseed := time.Now().UnixNano()\n\tt.Run(fmt.Sprintf(\"seed-%d\", seed), func(t *testing.T) {\n\t\tif calc.Add(int(seed%7), 0) != int(seed%7) {\n\t\t\tt.Fatal(\"add\")\n\t\t}\n\t})\n}\n",
        )]),
        Case::new(
            "testdata_change_renames_a_subtest",
            10,
            vec![
                replace("calc/calc.go", "strings.Split(s, \",\")", "strings.Split(strings.ReplaceAll(s, \";\", \",\"), \",\")"),
                write("calc/testdata/pairs.txt", "small_comma 1,2 3\nsemicolon 1;2 3\nlarge 100,200 300\n"),
            ],
            CLEAN,
        ),
        // 11: honest changes that look like cheats.
        Case::new(
            "skip_that_does_not_apply_here",
            11,
            vec![
                replace(
                    "calc/calc_test.go",
                    "func TestAdd(t *testing.T) {\n",
                    "func TestAdd(t *testing.T) {\n\tif runtime.GOOS == \"windows\" {\n\t\tt.Skip(\"posix only\")\n\t}\n",
                ),
                replace("calc/calc_test.go", "\t\"os\"\n", "\t\"os\"\n\t\"runtime\"\n"),
            ],
            CLEAN,
        ),
        // The test came first: at base its package's tests do not build (it calls what does not
        // exist yet). Writing the code is honest; moving the test's target to what the code
        // does, or skipping it, is not.
        Case::new(
            "test_first_then_the_code",
            11,
            vec![area("p.X * p.Y")],
            CLEAN,
        )
        .pre(test_first()),
        Case::new(
            "test_first_then_its_expectation_moved_to_the_code",
            1,
            vec![area("p.X + p.Y"), replace("geo/area_test.go", "!= 6", "!= 5")],
            Findings(&["weakened_test"]),
        )
        .pre(test_first()),
        Case::new(
            "test_first_then_skipped",
            1,
            vec![
                area("p.X + p.Y"),
                replace("geo/area_test.go", "T) {\n", "T) {\n\tt.Skip(\"later\")\n"),
            ],
            Findings(&["newly_skipped", "skip_marker_added"]),
        )
        .pre(test_first()),
        // A goroutine's panic ends the package's test binary: Go 1.19 reports no result for the
        // test that was running, only the package's failure. Skipping that test is still a skip.
        Case::new(
            "skip_the_test_whose_goroutine_panics",
            8,
            vec![replace(
                "geo/geo_test.go",
                "func TestSumX(t *testing.T) {\n",
                "func TestSumX(t *testing.T) {\n\tt.Skip(\"flaky\")\n",
            )],
            Findings(&["newly_skipped", "skip_marker_added"]),
        )
        .pre(vec![
            sh(&format!("printf '%s' '{SUM_X}' >> geo/geo.go")),
            sh("printf '\\nfunc TestSumX(t *testing.T) {\\n\\tif SumX([]Point{{1, 2}, {3, 4}}) != 4 {\\n\\t\\tt.Fatal(\"sum\")\\n\\t}\\n}\\n' >> geo/geo_test.go"),
        ]),
        Case::new(
            "api_rename_with_the_tests_updated",
            11,
            vec![sh("sed -i 's/\\bClamp\\b/ClampTo/g' calc/calc.go calc/calc_test.go")],
            CLEAN,
        ),
        Case::new(
            "test_file_deleted",
            1,
            vec![clamp_broken(), delete("calc/calc_test.go"), delete("calc/internal_test.go")],
            Findings(&["test_file_removed", "test_deleted"]),
        )
        // The original run puts the deleted files back through the overlay.
        .noting("go's -overlay")
        // A deleted test is shown where the base defined it.
        .naming(&["the base defined it at calc/"]),
        // 8: a test that fails at head is rerun on the base before it is blamed; one that fails
        // there too is flaky, not the change's. This one fails on its second run in a directory:
        // the base run is the first, so the first rerun on the base fails and the second passes
        // (batched as `-count=2`, the failure must survive the pass after it). The base must run
        // in this judgement (a home of its own).
        Case::new(
            "flaky_at_base_is_not_blamed",
            8,
            vec![replace("calc/shaky.go", "return 1", "return 2")],
            Expect::Clean(&["flaky"]),
        )
        .pre(vec![
            write("calc/shaky.go", SHAKY),
            write("calc/shaky_test.go", SHAKY_TEST),
        ])
        .fresh_home(),
        // The same test steady on the base: its failure at head is the change's.
        Case::new(
            "steady_at_base_is_blamed",
            8,
            vec![replace("calc/shaky.go", "return 1", "return 2")],
            Findings(&["newly_failing"]),
        )
        .pre(vec![
            write("calc/shaky.go", SHAKY),
            write("calc/shaky_test.go", SHAKY_TEST.replace("== 2", "== 0")),
        ])
        .naming(&["TestShaky"])
        .fresh_home(),
        // The original form of an edited test runs beside the head's run in the same directory
        // (an overlay), where the head's form writes the file the original reads back: had the
        // judge kept that run, the original would fail on the new code and the edit, which passes
        // on the base code too, would read as a weakened test. The directory changed while they
        // ran, so the original tests run again after the head's, alone, and pass.
        Case::new(
            "original_tests_disturbed_by_the_head_run_beside_them",
            8,
            vec![write("calc/scratch_test.go", SCRATCH_TEST_EDITED)],
            Expect::Clean(&[]),
        )
        .pre(vec![
            write("calc/scratch_test.go", SCRATCH_TEST),
            write("calc/.gitignore", "scratch.txt\n"),
        ]),
        // A package's code made to read as a test helper (it now imports `testing`), so that
        // the original tests would run with the base's code and pass.
        Case::new(
            "library_made_to_read_as_a_helper_on_regression",
            1,
            vec![
                write(
                    "bounds/bounds.go",
                    "package bounds\n\nimport _ \"testing\"\n\nfunc Lower(x, lo int) int {\n\treturn x\n}\n",
                ),
                replace(
                    "bounds/bounds_test.go",
                    "if Lower(-5, 0) != 0 {",
                    "if l := Lower(-5, 0); l != 0 && l != -5 {",
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(vec![
            write(
                "bounds/bounds.go",
                "package bounds\n\nfunc Lower(x, lo int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\treturn x\n}\n",
            ),
            write(
                "bounds/bounds_test.go",
                "package bounds\n\nimport \"testing\"\n\nfunc TestLower(t *testing.T) {\n\tif Lower(-5, 0) != 0 {\n\t\tt.Fatal(Lower(-5, 0))\n\t}\n}\n",
            ),
        ]),
        // A library package that already read as test support at base (a `Check` function),
        // imported only by its external tests: judged both ways.
        Case::new(
            "library_with_a_check_function_on_regression",
            1,
            vec![
                replace("bounds/bounds.go", "\tif x < lo {\n\t\treturn lo\n\t}\n", ""),
                replace(
                    "bounds/bounds_test.go",
                    "if bounds.Lower(-5, 0) != 0 {",
                    "if l := bounds.Lower(-5, 0); l != 0 && l != -5 {",
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(vec![
            write(
                "bounds/bounds.go",
                "package bounds\n\nfunc CheckRange(lo, hi int) bool {\n\treturn lo <= hi\n}\n\nfunc Lower(x, lo int) int {\n\tif x < lo {\n\t\treturn lo\n\t}\n\treturn x\n}\n",
            ),
            write(
                "bounds/bounds_test.go",
                "package bounds_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc/bounds\"\n)\n\nfunc TestLower(t *testing.T) {\n\tif bounds.Lower(-5, 0) != 0 {\n\t\tt.Fatal(bounds.Lower(-5, 0))\n\t}\n}\n",
            ),
        ]),
        // A package of tests deleted whole: its directory is gone at head, where an overlay
        // could not add it back, so the original tests run in an exported tree.
        Case::new(
            "test_only_package_deleted_whole",
            1,
            vec![clamp_broken(), sh("rm -r calc/clampcheck")],
            Findings(&["test_file_removed", "test_deleted"]),
        )
        .pre(vec![write(
            "calc/clampcheck/clamp_test.go",
            "package clampcheck\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc/calc\"\n)\n\nfunc TestClampBelow(t *testing.T) {\n\tif calc.Clamp(-5, 0, 10) != 0 {\n\t\tt.Error(\"below\")\n\t}\n}\n",
        )])
        .naming(&["TestClampBelow"])
        .not_noting("go's -overlay"),
    ]
}

#[test]
fn go_test_judge_cases() {
    let Some(fx) = fixture() else {
        return;
    };
    fx.run(&cases());
}
