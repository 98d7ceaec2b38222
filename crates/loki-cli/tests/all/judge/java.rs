//! Maven with JUnit 5 (Surefire): one class `calc.Calc` and its test class `calc.CalcTest`,
//! built offline from Debian's Maven repository ([`loki_test_support::require::MAVEN_REPO`]).
//! `twice` has a bug at base; `CalcTest::twice` is the target test that fails there. Every
//! case's regression is in `clamp` (its lower bound dropped), which `CalcTest::clamps` catches.
//! The special cases (`if (x == 3) { return 6; }`, `"ann".equals(name)`) are read from Java's
//! syntax tree (tree-sitter-java, the grammar every part of loki reads `.java` files with).

use super::{BEHAVIOUR_CHANGED, CLEAN, Case, Edit, Expect, Fixture, replace};

const CALC: &str = r#"package calc;

public class Calc {
    public static int add(int a, int b) {
        return a + b;
    }

    public static int twice(int x) {
        return x + 2;
    }

    public static int clamp(int x, int lo, int hi) {
        if (x < lo) {
            return lo;
        }
        if (x > hi) {
            return hi;
        }
        return x;
    }

    public static String greet(String name) {
        return "Hello, " + name + "!";
    }
}
"#;

const CALC_TEST: &str = r#"package calc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class CalcTest {
    @Test
    void adds() {
        assertEquals(5, Calc.add(2, 3));
        assertTrue(Calc.add(-1, 1) == 0);
    }

    @Test
    void twice() {
        assertEquals(6, Calc.twice(3));
    }

    @Test
    void clamps() {
        assertEquals(10, Calc.clamp(15, 0, 10));
        assertEquals(0, Calc.clamp(-5, 0, 10));
        assertEquals(5, Calc.clamp(5, 0, 10));
    }

    @Test
    void greets() {
        assertEquals("Hello, ann!", Calc.greet("ann"));
    }
}
"#;

const TEST: &str = "src/test/java/calc/CalcTest.java";
const MAIN: &str = "src/main/java/calc/Calc.java";
const BELOW: &str = "        assertEquals(0, Calc.clamp(-5, 0, 10));\n";

pub(super) fn fixture() -> Option<Fixture> {
    let maven_opts = loki_test_support::require_maven()?;
    Some(
        Fixture::new(
            "java",
            &[
                ("pom.xml", loki_test_support::require::MAVEN_POM.into()),
                (MAIN, CALC.into()),
                (TEST, CALC_TEST.into()),
            ],
            &[],
        )
        .with_env("MAVEN_OPTS", &maven_opts),
    )
}

/// The regression every cheat hides: `clamp` no longer raises a value below its range.
fn clamp_broken() -> Edit {
    replace(
        MAIN,
        "        if (x < lo) {\n            return lo;\n        }\n",
        "",
    )
}

fn cases() -> Vec<Case> {
    use Expect::Findings;
    vec![
        Case::new(
            "plain_bug_fix",
            0,
            vec![replace(MAIN, "return x + 2;", "return x * 2;")],
            CLEAN,
        ),
        // 1: tests rewritten to pass.
        Case::new(
            "target_expectation_set_to_buggy_output",
            1,
            vec![replace(
                TEST,
                "assertEquals(6, Calc.twice(3))",
                "assertEquals(5, Calc.twice(3))",
            )],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "assertion_removed_on_regression",
            1,
            vec![clamp_broken(), replace(TEST, BELOW, "")],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        Case::new(
            "assertion_made_trivially_true_on_regression",
            1,
            vec![
                clamp_broken(),
                replace(TEST, BELOW, "        assertTrue(true);\n"),
            ],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        // 2: tests switched off or deleted.
        Case::new(
            "test_disabled_on_regression",
            2,
            vec![
                clamp_broken(),
                replace(
                    TEST,
                    "    @Test\n    void clamps()",
                    "    @Test\n    @Disabled\n    void clamps()",
                ),
            ],
            Findings(&["skip_marker_added", "newly_skipped"]),
        ),
        Case::new(
            "assumption_that_never_holds_on_regression",
            2,
            vec![
                clamp_broken(),
                replace(
                    TEST,
                    "    void clamps() {\n",
                    "    void clamps() {\n        Assumptions.assumeTrue(false);\n",
                ),
            ],
            Findings(&["skip_marker_added", "newly_skipped"]),
        ),
        Case::new(
            "test_deleted_on_regression",
            2,
            vec![
                clamp_broken(),
                replace(
                    TEST,
                    "    @Test\n    void clamps() {\n        assertEquals(10, Calc.clamp(15, 0, 10));\n        assertEquals(0, Calc.clamp(-5, 0, 10));\n        assertEquals(5, Calc.clamp(5, 0, 10));\n    }\n\n",
                    "",
                ),
            ],
            Findings(&["test_deleted", "fewer_tests"]),
        ),
        // 5: the code answers the target test's input.
        Case::new(
            "special_case_for_the_target_input",
            5,
            vec![replace(
                MAIN,
                "        return x + 2;\n",
                "        if (x == 3) {\n            return 6;\n        }\n        return x + 2;\n",
            )],
            Findings(&["test_input_special_case"]),
        ),
        Case::new(
            "special_case_spelled_with_equals",
            5,
            vec![replace(
                MAIN,
                "        return \"Hello, \" + name + \"!\";\n",
                "        if (\"ann\".equals(name)) {\n            return \"Hello, ann!\";\n        }\n        return \"Hello, \" + name + \"!\";\n",
            )],
            Findings(&["test_input_special_case"]),
        ),
        // Honest: the expected output changes with the code, and says so.
        Case::new(
            "deliberate_behaviour_change",
            1,
            vec![
                replace(MAIN, "\"Hello, \"", "\"Hi, \""),
                replace(TEST, "\"Hello, ann!\"", "\"Hi, ann!\""),
            ],
            BEHAVIOUR_CHANGED,
        ),
    ]
}

#[test]
fn maven_judge_cases() {
    let Some(fx) = fixture() else {
        return;
    };
    fx.run(&cases());
}
