//! Java (JUnit) test files through the count rules: skips, fewer assertions, vacuous
//! assertions, deleted tests and test files; and the honest edits that look like them.

use super::*;

const PATH: &str = "src/test/java/calc/CalcTest.java";
const BASE: &str = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void clamps() {\n        assertEquals(10, Calc.clamp(15, 0, 10));\n        assertEquals(0, Calc.clamp(-5, 0, 10));\n    }\n\n    @Test\n    void adds() {\n        Assertions.assertEquals(5, Calc.add(2, 3));\n    }\n}\n";
const BELOW: &str = "        assertEquals(0, Calc.clamp(-5, 0, 10));\n";

fn kinds(found: &[Finding]) -> Vec<FindingKind> {
    found.iter().map(|f| f.kind).collect()
}

#[test]
fn disabled_ignored_and_assumed_away_tests_are_skips() {
    for (from, to) in [
        (
            "    @Test\n    void clamps()",
            "    @Test\n    @Disabled(\"later\")\n    void clamps()",
        ),
        (
            "    @Test\n    void clamps()",
            "    @Test\n    @Ignore\n    void clamps()",
        ),
        (
            "    void clamps() {\n",
            "    void clamps() {\n        Assumptions.assumeTrue(false);\n",
        ),
        (
            "    void clamps() {\n",
            "    void clamps() {\n        assumeTrue(false);\n",
        ),
    ] {
        let head = BASE.replace(from, to);
        let found = edit(PATH, BASE, &head);
        assert!(kinds(&found).contains(&SkipMarkerAdded), "{to}: {found:?}");
    }
    // A skip in a comment or a string is not one.
    let head = BASE.replace(
        "    @Test\n    void clamps()",
        "    // @Disabled\n    @Test\n    void clamps()",
    );
    quiet(&edit(PATH, BASE, &head), SkipMarkerAdded);
}

#[test]
fn removed_and_vacuous_assertions_are_fewer_assertions() {
    for to in [
        "",
        "        assertTrue(true);\n",
        "        // assertEquals(0, Calc.clamp(-5, 0, 10));\n",
    ] {
        let head = BASE.replace(BELOW, to);
        let found = edit(PATH, BASE, &head);
        assert!(
            kinds(&found).contains(&FewerAssertions),
            "{to:?}: {found:?}"
        );
    }
    // Another assertion in its place, qualified or not, keeps the count.
    for to in [
        "        assertEquals(0, Calc.clamp(-6, 0, 10));\n",
        "        Assertions.assertTrue(Calc.clamp(-5, 0, 10) == 0);\n",
    ] {
        quiet(&edit(PATH, BASE, &BASE.replace(BELOW, to)), FewerAssertions);
    }
}

#[test]
fn deleted_tests_and_test_files() {
    let head = BASE.replace(
        "    @Test\n    void adds() {\n        Assertions.assertEquals(5, Calc.add(2, 3));\n    }\n",
        "",
    );
    let found = edit(PATH, BASE, &head);
    assert!(kinds(&found).contains(&FewerTests), "{found:?}");
    let found = run(vec![fc(PATH, Some(BASE), None)]);
    assert!(kinds(&found).contains(&TestFileRemoved), "{found:?}");
    // The code under test is not a test file.
    let main =
        "package calc;\n\nclass Calc {\n    static int add(int a, int b) { return a + b; }\n}\n";
    quiet(
        &run(vec![fc("src/main/java/calc/Calc.java", Some(main), None)]),
        TestFileRemoved,
    );
}
