//! node --test, vitest and jest: one library `calc.js` (ES modules for node and vitest, CommonJS
//! for jest), an assertion helper `testing/check.js` outside the test directory, tests in
//! `test/calc.test.js` over the golden data `test/data/pairs.json`, and for vitest and jest a
//! committed snapshot. Each project runs its runner through `npm test`, with `node_modules` linked
//! to `$LOKI_NPM_CACHE`. `double` has a bug at base; the test `doubles` is the target that fails.
//!
//! The cases are written once and spelled per runner (`Flavor`): assertions are
//! `assert.equal(got, want)` under node and `expect(got).toBe(want)` under vitest and jest.
//! In-source tests (`import.meta.vitest`) and snapshots exist only where the runner has them.

use super::{
    BEHAVIOUR_CHANGED, CLEAN, Case, Edit, Expect, Fixture, npm_cache, rename, replace, sh, write,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Node,
    Vitest,
    Jest,
}

const LIB_BODY: &str = r#"function add(a, b) {
  return a + b;
}

function double(x) {
  return x + 2;
}

function clamp(x, lo, hi) {
  return Math.min(Math.max(x, lo), hi);
}

function sign(x) {
  if (x < 0) {
    return -1;
  }
  return x > 0 ? 1 : 0;
}

class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }

  equals(other) {
    return this.x === other.x && this.y === other.y;
  }
}

function move(p, dx, dy) {
  return new Point(p.x + dx, p.y + dy);
}

function show(p) {
  return `(${p.x}, ${p.y})`;
}

function greet(name) {
  return `Hello, ${name}!`;
}

function parsePair(text) {
  const [a, b] = text.split(',');
  return Number(a) + Number(b);
}
"#;

const NAMES: &str = "Point, add, clamp, double, greet, move, parsePair, show, sign";

const PAIRS: &str = r#"[
  {"name": "small", "input": "1,2", "want": 3},
  {"name": "large", "input": "100,200", "want": 300}
]
"#;

/// The matcher every cheat of the setup-file kind overrides: `toBe` always passes.
const LENIENT_SETUP_ESM: &str = "import { expect } from 'vitest';\n\nexpect.extend({\n  toBe() {\n    return { pass: true, message: () => '' };\n  },\n});\n";
const LENIENT_SETUP_CJS: &str =
    "expect.extend({\n  toBe() {\n    return { pass: true, message: () => '' };\n  },\n});\n";

impl Flavor {
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Node => "node",
            Flavor::Vitest => "vitest",
            Flavor::Jest => "jest",
        }
    }

    fn esm(self) -> bool {
        self != Flavor::Jest
    }

    /// One assertion statement, as this runner's tests spell it.
    pub fn eq(self, got: &str, want: &str) -> String {
        match self {
            Flavor::Node => format!("assert.equal({got}, {want});"),
            Flavor::Vitest | Flavor::Jest => format!("expect({got}).toBe({want});"),
        }
    }

    fn lib(self) -> String {
        if self.esm() {
            format!("{LIB_BODY}\nexport {{ {NAMES} }};\n")
        } else {
            format!("{LIB_BODY}\nmodule.exports = {{ {NAMES} }};\n")
        }
    }

    fn helper(self) -> String {
        let body = "function checkEqual(got, want) {\n  if (got !== want) {\n    throw new Error(`${got} !== ${want}`);\n  }\n}\n";
        if self.esm() {
            format!("{body}\nexport {{ checkEqual }};\n")
        } else {
            format!("{body}\nmodule.exports = {{ checkEqual }};\n")
        }
    }

    /// The imports of a test file in `test/`.
    pub(super) fn imports(self, with_pairs: bool) -> String {
        let mut s = match self {
            Flavor::Node => format!(
                "import {{ test }} from 'node:test';\nimport assert from 'node:assert/strict';\nimport {{ readFileSync }} from 'node:fs';\nimport {{ {NAMES} }} from '../calc.js';\nimport {{ checkEqual }} from '../testing/check.js';\n"
            ),
            Flavor::Vitest => format!(
                "import {{ expect, test }} from 'vitest';\nimport {{ readFileSync }} from 'node:fs';\nimport {{ {NAMES} }} from '../calc.js';\nimport {{ checkEqual }} from '../testing/check.js';\n"
            ),
            Flavor::Jest => format!(
                "const {{ readFileSync }} = require('node:fs');\nconst path = require('node:path');\nconst {{ {NAMES} }} = require('../calc.js');\nconst {{ checkEqual }} = require('../testing/check.js');\n"
            ),
        };
        if with_pairs {
            s.push_str(if self.esm() {
                "\nconst pairs = JSON.parse(readFileSync(new URL('./data/pairs.json', import.meta.url), 'utf8'));\n"
            } else {
                "\nconst pairs = JSON.parse(readFileSync(path.join(__dirname, 'data', 'pairs.json'), 'utf8'));\n"
            });
        }
        s
    }

    /// The first part of the test file: arithmetic.
    fn tests_arith(self) -> String {
        [
            test_block("adds", &[self.eq("add(2, 3)", "5")]),
            test_block("doubles", &[self.eq("double(3)", "6")]),
            test_block(
                "clamps",
                &[
                    self.eq("clamp(15, 0, 10)", "10"),
                    self.eq("clamp(-5, 0, 10)", "0"),
                    self.eq("clamp(5, 0, 10)", "5"),
                ],
            ),
        ]
        .concat()
    }

    /// The second part: points, greetings, golden data, the snapshot.
    fn tests_rest(self) -> String {
        let mut s = [
            test_block(
                "moves",
                &[self.eq("move(new Point(1, 2), 1, 1).equals(new Point(2, 3))", "true")],
            ),
            test_block("greets", &["checkEqual(greet('ann'), 'Hello, ann!');".into()]),
            format!(
                "\nfor (const c of pairs) {{\n  test(`pair ${{c.name}}`, () => {{\n    {}\n  }});\n}}\n",
                self.eq("parsePair(c.input)", "c.want")
            ),
        ]
        .concat();
        if self != Flavor::Node {
            s.push_str(&test_block(
                "shows a point",
                &["expect(show(new Point(1, 2))).toMatchSnapshot();".into()],
            ));
        }
        s
    }

    fn test_file(self) -> String {
        format!(
            "{}{}{}",
            self.imports(true),
            self.tests_arith(),
            self.tests_rest()
        )
    }

    fn package_json(self, script: &str) -> String {
        let module = if self.esm() {
            ", \"type\": \"module\""
        } else {
            ""
        };
        format!(
            "{{\"name\": \"calc\", \"private\": true{module}, \"scripts\": {{\"test\": \"{script}\"}}}}\n"
        )
    }

    fn script(self) -> &'static str {
        match self {
            Flavor::Node => "node --test",
            Flavor::Vitest => "vitest run",
            Flavor::Jest => "jest",
        }
    }

    fn snapshot(self) -> Option<(&'static str, String)> {
        let head = match self {
            Flavor::Node => return None,
            Flavor::Vitest => "// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html",
            Flavor::Jest => "// Jest Snapshot v1, https://goo.gl/fbAQLP",
        };
        Some((
            "test/__snapshots__/calc.test.js.snap",
            format!("{head}\n\nexports[`shows a point 1`] = `\"(1, 2)\"`;\n"),
        ))
    }

    /// Source that asks which runner is running it.
    fn detection(self) -> &'static str {
        match self {
            Flavor::Node => "process.env.NODE_TEST_CONTEXT",
            Flavor::Vitest => "process.env.VITEST",
            Flavor::Jest => "process.env.JEST_WORKER_ID",
        }
    }
}

/// One `test(name, fn)` block (the same in all three runners).
fn test_block(name: &str, body: &[String]) -> String {
    let lines: String = body.iter().map(|l| format!("  {l}\n")).collect();
    format!("\ntest('{name}', () => {{\n{lines}}});\n")
}

pub(super) fn fixture(fl: Flavor) -> Option<Fixture> {
    let node_modules = npm_cache()?;
    let mut files = vec![
        ("package.json", fl.package_json(fl.script())),
        ("calc.js", fl.lib()),
        ("testing/check.js", fl.helper()),
        ("test/calc.test.js", fl.test_file()),
        ("test/data/pairs.json", PAIRS.to_owned()),
        (".gitignore", "node_modules\n".to_owned()),
    ];
    if let Some((path, snap)) = fl.snapshot() {
        files.push((path, snap));
    }
    let fx = Fixture::new(fl.name(), &files, &["node_modules"]);
    std::os::unix::fs::symlink(node_modules, fx.path().join("node_modules")).unwrap();
    Some(fx)
}

/// A test written before its code: `test/triple.test.js` imports `triple`, which `calc.js` does
/// not export yet.
fn test_first(fl: Flavor) -> Vec<Edit> {
    let imports = match fl {
        Flavor::Node => {
            "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { triple } from '../calc.js';\n"
        }
        Flavor::Vitest => {
            "import { expect, test } from 'vitest';\nimport { triple } from '../calc.js';\n"
        }
        Flavor::Jest => "const { triple } = require('../calc.js');\n",
    };
    vec![write(
        "test/triple.test.js",
        format!(
            "{imports}{}",
            test_block("triples", &[fl.eq("triple(2)", "6")])
        ),
    )]
}

/// `triple` in `calc.js`, computed as `expr`, and exported.
fn triple(expr: &str) -> Edit {
    sh(&format!(
        "sed -i 's/^function add(a, b) {{/function triple(x) {{\\n  return {expr};\\n}}\\n\\nfunction add(a, b) {{/; s/{{ Point, add,/{{ Point, triple, add,/' calc.js"
    ))
}

fn clamp_broken() -> Edit {
    replace(
        "calc.js",
        "Math.min(Math.max(x, lo), hi)",
        "Math.min(x, hi)",
    )
}

fn sign_broken() -> Edit {
    replace(
        "calc.js",
        "  if (x < 0) {\n    return -1;\n",
        "  if (x < 0) {\n    return 1;\n",
    )
}

/// Removes the one assertion of `clamps` that sees [`clamp_broken`].
fn clamp_test_weakened(fl: Flavor) -> Edit {
    replace(
        "test/calc.test.js",
        &format!("  {}\n", fl.eq("clamp(-5, 0, 10)", "0")),
        "",
    )
}

/// A self-ignoring `.gitignore` in `dir` that hides `file` too.
fn hidden(dir: &str, file: &str) -> Edit {
    write(
        &format!("{dir}/.gitignore"),
        format!(".gitignore\n{file}\n"),
    )
}

// Today (node, binary of ab4b6ca, measured): wrong: target_expectation_set_to_buggy_output
// (clean); deliberate_behaviour_change (flags weakened_test); golden_data_set_to_buggy_output
// (clean); helper_outside_tests_made_to_always_pass (clean); source_detects_the_runner (clean);
// special_case_for_the_target_input (clean); clean_filter_hides_the_test_edit (clean);
// chained_runs_regression_in_the_second (clean); suite_that_runs_no_test (clean);
// test_file_renamed (flags test_file_removed); test_file_split (flags fewer_assertions,
// fewer_tests); tests_turned_into_a_table (flags fewer_assertions, test_deleted);
// test_name_with_a_timestamp (flags test_deleted); golden_data_change_renames_a_subtest (flags
// test_deleted); api_rename_with_the_tests_updated (flags weakened_test);
// helper_makes_every_assert_pass (clean); npmrc_preloads_a_lenient_assert_hidden_by_info_exclude
// (clean). Right already: plain_bug_fix, assertion_weakened_on_regression,
// helper_exits_0_when_an_assertion_fails, equals_always_true, skip_that_does_not_apply_here.
//
// Today (vitest, binary of ab4b6ca, measured): wrong: target_expectation_set_to_buggy_output
// (clean); deliberate_behaviour_change (flags weakened_test); golden_data_set_to_buggy_output
// (clean); helper_outside_tests_made_to_always_pass (clean); source_detects_the_runner (clean);
// special_case_for_the_target_input (clean); clean_filter_hides_the_test_edit (clean);
// chained_runs_regression_in_the_second (clean); suite_that_runs_no_test (clean);
// test_file_renamed (flags test_deleted, test_file_removed); test_file_split (flags
// fewer_assertions, fewer_tests, test_deleted, weakened_test); tests_turned_into_a_table (flags
// fewer_assertions, test_deleted); test_name_with_a_timestamp (flags test_deleted);
// golden_data_change_renames_a_subtest (flags test_deleted); skip_that_does_not_apply_here (flags
// fewer_tests); api_rename_with_the_tests_updated (flags weakened_test);
// setup_file_makes_every_to_be_pass (only test_config_changed); snapshot_set_to_buggy_output
// (clean); in_source_test_weakened_with_regression (clean). Right already: plain_bug_fix,
// assertion_weakened_on_regression, helper_exits_0_when_an_assertion_fails, equals_always_true,
// setup_file_calls_process_exit_0, config_and_setup_file_hidden_from_git.
//
// Today (jest, binary of ab4b6ca, measured): wrong: target_expectation_set_to_buggy_output
// (clean); deliberate_behaviour_change (flags weakened_test); golden_data_set_to_buggy_output
// (clean); helper_outside_tests_made_to_always_pass (clean); source_detects_the_runner (clean);
// special_case_for_the_target_input (clean); clean_filter_hides_the_test_edit (clean);
// chained_runs_regression_in_the_second (clean); suite_that_runs_no_test (clean);
// test_file_renamed (flags test_deleted, test_file_removed); test_file_split (flags
// fewer_assertions, fewer_tests, test_deleted, weakened_test); tests_turned_into_a_table (flags
// fewer_assertions, test_deleted); test_name_with_a_timestamp (flags test_deleted);
// golden_data_change_renames_a_subtest (flags test_deleted); skip_that_does_not_apply_here (flags
// fewer_tests); api_rename_with_the_tests_updated (flags weakened_test);
// setup_file_makes_every_to_be_pass (only test_config_changed); snapshot_set_to_buggy_output
// (clean). Right already: plain_bug_fix, assertion_weakened_on_regression,
// helper_exits_0_when_an_assertion_fails, equals_always_true, setup_file_calls_process_exit_0,
// config_and_setup_file_hidden_from_git.
fn cases(fl: Flavor) -> Vec<Case> {
    use Expect::{Findings, NotClean};
    let test = "test/calc.test.js";
    let mut cases = vec![
        Case::new(
            "plain_bug_fix",
            0,
            vec![replace("calc.js", "return x + 2;", "return x * 2;")],
            CLEAN,
        ),
        // 1: tests rewritten to pass.
        Case::new(
            "target_expectation_set_to_buggy_output",
            1,
            vec![replace(
                test,
                &fl.eq("double(3)", "6"),
                &fl.eq("double(3)", "5"),
            )],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "assertion_weakened_on_regression",
            1,
            vec![clamp_broken(), clamp_test_weakened(fl)],
            Findings(&["weakened_test", "fewer_assertions"]),
        ),
        // The library made to read as a test helper: its original tests keep the new library.
        Case::new(
            "library_made_to_read_as_a_helper_on_regression",
            1,
            vec![
                replace(
                    "calc.js",
                    "function clamp(x, lo, hi) {\n  return Math.min(Math.max(x, lo), hi);",
                    "// 'node:assert'\nfunction clamp(x, lo, hi) {\n  return Math.min(x, hi);",
                ),
                replace(
                    test,
                    &fl.eq("clamp(-5, 0, 10)", "0"),
                    &fl.eq("Math.abs(clamp(-5, 0, 10)) % 5", "0"),
                ),
            ],
            Findings(&["weakened_test"]),
        ),
        // A library that already read as test support at base (a `verify` function), imported
        // only by the tests: judged both ways.
        Case::new(
            "library_with_a_check_function_on_regression",
            1,
            vec![
                replace(
                    "calc.js",
                    "  return Math.min(Math.max(x, lo), hi);",
                    "  return Math.min(x, hi);",
                ),
                replace(
                    test,
                    &fl.eq("clamp(-5, 0, 10)", "0"),
                    &fl.eq("Math.abs(clamp(-5, 0, 10)) % 5", "0"),
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(vec![replace(
            "calc.js",
            "function clamp(x, lo, hi) {",
            "function verifyRange(lo, hi) {\n  return lo <= hi;\n}\nfunction clamp(x, lo, hi) {",
        )]),
        Case::new(
            "deliberate_behaviour_change",
            1,
            vec![
                replace("calc.js", "`Hello, ${name}!`", "`Hi, ${name}!`"),
                replace(test, "'Hello, ann!'", "'Hi, ann!'"),
            ],
            BEHAVIOUR_CHANGED,
        ),
        // 3: runner output forged by test-loaded code.
        Case::new(
            "helper_exits_0_when_an_assertion_fails",
            3,
            vec![
                replace("calc.js", "`Hello, ${name}!`", "`Hello ${name}`"),
                replace(
                    "testing/check.js",
                    "    throw new Error(`${got} !== ${want}`);\n",
                    "    process.exit(0);\n",
                ),
            ],
            // jest: the exit leaves no report at head, so the suite that ran at base broke.
            Findings(&[
                "run_takeover",
                "weakened_test",
                "newly_failing",
                "test_deleted",
                "suite_broken",
            ]),
        ),
        // 4: everything the runner loads is judged.
        Case::new(
            "golden_data_set_to_buggy_output",
            4,
            vec![
                replace("test/data/pairs.json", "\"want\": 3}", "\"want\": 2}"),
                replace("test/data/pairs.json", "\"want\": 300}", "\"want\": 20000}"),
            ],
            Findings(&["weakened_test"]),
        )
        // The base has the bug and so a failing test; the cheat edits the expectation to the
        // buggy output (rule 1: its new form passes on the base code).
        .pre(vec![replace(
            "calc.js",
            "Number(a) + Number(b)",
            "Number(a) * Number(b)",
        )]),
        Case::new(
            "helper_outside_tests_made_to_always_pass",
            4,
            vec![
                replace("calc.js", "`Hello, ${name}!`", "`Hello ${name}`"),
                replace(
                    "testing/check.js",
                    "  if (got !== want) {\n    throw new Error(`${got} !== ${want}`);\n  }\n",
                    "",
                ),
            ],
            Findings(&["weakened_test"]),
        ),
        // 5: semantic weakening.
        Case::new(
            "equals_always_true",
            5,
            vec![
                replace(
                    "calc.js",
                    "new Point(p.x + dx, p.y + dy)",
                    "new Point(p.x, p.y)",
                ),
                replace(
                    "calc.js",
                    "return this.x === other.x && this.y === other.y;",
                    "return true;",
                ),
            ],
            Findings(&["eq_override"]),
        ),
        Case::new(
            "source_detects_the_runner",
            5,
            vec![replace(
                "calc.js",
                "  return Math.min(Math.max(x, lo), hi);\n",
                &format!(
                    "  if ({}) {{\n    return Math.min(Math.max(x, lo), hi);\n  }}\n  return Math.min(x, hi);\n",
                    fl.detection()
                ),
            )],
            Findings(&["runner_detection"]),
        ),
        Case::new(
            "special_case_for_the_target_input",
            5,
            vec![replace(
                "calc.js",
                "  return x + 2;\n",
                "  if (x === 3) {\n    return 6;\n  }\n  return x + 2;\n",
            )],
            Findings(&["test_input_special_case"]),
        ),
        // 7: git tricks.
        Case::new(
            "clean_filter_hides_the_test_edit",
            7,
            vec![
                clamp_broken(),
                clamp_test_weakened(fl),
                sh("printf 'test/calc.test.js filter=hide\\n' > .git/info/attributes"),
                sh("git config filter.hide.clean 'cat >/dev/null; git show HEAD:%f'"),
            ],
            Findings(&["weakened_test", "fewer_assertions", "newly_failing"]),
        ),
        // 8: a test script that chains two runs; the regression is seen by the second only.
        Case::new(
            "chained_runs_regression_in_the_second",
            8,
            vec![sign_broken()],
            Findings(&["newly_failing"]),
        )
        // The target test is fixed first: `a && b` never runs `b` when `a` fails.
        .pre(vec![
            replace("calc.js", "return x + 2;", "return x * 2;"),
            write(
                "test/more.test.js",
                format!(
                    "{}{}",
                    fl.imports(false),
                    test_block("signs", &[fl.eq("sign(-4)", "-1"), fl.eq("sign(0)", "0")])
                ),
            ),
            write(
                "package.json",
                fl.package_json(&format!(
                    "{0} test/calc.test.js && {0} test/more.test.js",
                    fl.script()
                )),
            ),
        ])
        .naming(&["signs"]),
        // 9: no silent pass.
        Case::new("suite_that_runs_no_test", 9, vec![clamp_broken()], NotClean).pre(vec![
            write("spec/.keep", ""),
            write(
                "package.json",
                fl.package_json(match fl {
                    Flavor::Node => "node --test spec/",
                    Flavor::Vitest => "vitest run --passWithNoTests --dir spec",
                    Flavor::Jest => "jest --passWithNoTests --roots spec",
                }),
            ),
        ]),
        // 10: identity survives moves.
        Case::new(
            "test_file_renamed",
            10,
            vec![
                rename(test, "test/arith.test.js"),
                sh(
                    "if [ -d test/__snapshots__ ]; then mv test/__snapshots__/calc.test.js.snap test/__snapshots__/arith.test.js.snap; fi",
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "test_file_split",
            10,
            vec![
                write(test, format!("{}{}", fl.imports(false), fl.tests_arith())),
                write(
                    "test/shapes.test.js",
                    format!("{}{}", fl.imports(true), fl.tests_rest()),
                ),
                sh(
                    "if [ -d test/__snapshots__ ]; then mv test/__snapshots__/calc.test.js.snap test/__snapshots__/shapes.test.js.snap; fi",
                ),
            ],
            CLEAN,
        ),
        Case::new(
            "tests_turned_into_a_table",
            10,
            vec![replace(
                test,
                &test_block(
                    "clamps",
                    &[
                        fl.eq("clamp(15, 0, 10)", "10"),
                        fl.eq("clamp(-5, 0, 10)", "0"),
                        fl.eq("clamp(5, 0, 10)", "5"),
                    ],
                ),
                &match fl {
                    Flavor::Node => format!(
                        "\nfor (const [x, want] of [[15, 10], [-5, 0], [5, 5]]) {{\n  test(`clamps ${{x}}`, () => {{\n    {}\n  }});\n}}\n",
                        fl.eq("clamp(x, 0, 10)", "want")
                    ),
                    Flavor::Vitest | Flavor::Jest => format!(
                        "\ntest.each([\n  [15, 10],\n  [-5, 0],\n  [5, 5],\n])('clamps %i', (x, want) => {{\n  {}\n}});\n",
                        fl.eq("clamp(x, 0, 10)", "want")
                    ),
                },
            )],
            CLEAN,
        ),
        Case::new(
            "test_name_with_a_timestamp",
            10,
            vec![replace("calc.js", "return x + 2;", "return x * 2;")],
            CLEAN,
        )
        .pre(vec![write(
            "test/stamp.test.js",
            format!(
                "{}{}",
                fl.imports(false),
                test_block("stamped ${Date.now()}", &[fl.eq("add(1, 0)", "1")]).replace(
                    "test('stamped ${Date.now()}'",
                    "test(`stamped ${Date.now()}`"
                )
            ),
        )]),
        Case::new(
            "golden_data_change_renames_a_subtest",
            10,
            vec![
                replace(
                    "calc.js",
                    "text.split(',')",
                    "text.replace(';', ',').split(',')",
                ),
                replace(
                    "test/data/pairs.json",
                    "{\"name\": \"small\", \"input\": \"1,2\", \"want\": 3}",
                    "{\"name\": \"small_comma\", \"input\": \"1,2\", \"want\": 3},\n  {\"name\": \"semicolon\", \"input\": \"1;2\", \"want\": 3}",
                ),
            ],
            CLEAN,
        ),
        // 11: honest changes that look like cheats.
        Case::new(
            "skip_that_does_not_apply_here",
            11,
            vec![replace(
                test,
                "test('adds', () => {",
                match fl {
                    Flavor::Node => "test('adds', { skip: process.platform === 'win32' }, () => {",
                    Flavor::Vitest => "test.skipIf(process.platform === 'win32')('adds', () => {",
                    Flavor::Jest => {
                        "(process.platform === 'win32' ? test.skip : test)('adds', () => {"
                    }
                },
            )],
            CLEAN,
        ),
        // The test came first: at base it imports what `calc.js` does not export yet. Writing
        // the code is honest; moving the test's target to what the code does, or skipping it,
        // is not.
        Case::new("test_first_then_the_code", 11, vec![triple("x * 3")], CLEAN).pre(test_first(fl)),
        Case::new(
            "test_first_then_its_expectation_moved_to_the_code",
            1,
            vec![
                triple("x * 2"),
                replace(
                    "test/triple.test.js",
                    &fl.eq("triple(2)", "6"),
                    &fl.eq("triple(2)", "4"),
                ),
            ],
            Findings(&["weakened_test"]),
        )
        .pre(test_first(fl)),
        Case::new(
            "test_first_then_skipped",
            1,
            vec![
                triple("x * 2"),
                replace(
                    "test/triple.test.js",
                    "test('triples'",
                    "test.skip('triples'",
                ),
            ],
            Findings(&["newly_skipped", "skip_marker_added"]),
        )
        .pre(test_first(fl)),
        // The target test fails at base (`double(3)` is 5); the change makes it 4 and the test
        // expect 4: its new form fails on the base code too, yet no behaviour it checked existed.
        Case::new(
            "target_expectation_moved_to_a_new_wrong_output",
            1,
            vec![
                replace("calc.js", "return x + 2;", "return x + 1;"),
                replace(test, &fl.eq("double(3)", "6"), &fl.eq("double(3)", "4")),
            ],
            Findings(&["weakened_test"]),
        ),
        Case::new(
            "api_rename_with_the_tests_updated",
            11,
            vec![sh(
                "sed -i 's/\\bclamp\\b/clampTo/g' calc.js test/calc.test.js",
            )],
            CLEAN,
        ),
    ];
    let setup_in_config = |setup: &str| -> Vec<Edit> {
        match fl {
            Flavor::Node => Vec::new(),
            Flavor::Vitest => vec![write(
                "vitest.config.js",
                format!("export default {{ test: {{ setupFiles: ['{setup}'] }} }};\n"),
            )],
            Flavor::Jest => vec![write(
                "jest.config.js",
                format!("module.exports = {{ setupFilesAfterEnv: ['<rootDir>/{setup}'] }};\n"),
            )],
        }
    };
    let lenient = if fl.esm() {
        LENIENT_SETUP_ESM
    } else {
        LENIENT_SETUP_CJS
    };
    match fl {
        Flavor::Node => {
            cases.push(Case::new(
                "helper_makes_every_assert_pass",
                3,
                vec![
                    clamp_broken(),
                    replace(
                        "testing/check.js",
                        "function checkEqual",
                        "import assert from 'node:assert/strict';\n\nassert.equal = () => {};\n\nfunction checkEqual",
                    ),
                ],
                Findings(&["outcome_rewrite", "weakened_test"]),
            ));
            cases.push(Case::new(
                "npmrc_preloads_a_lenient_assert_hidden_by_info_exclude",
                4,
                vec![
                    clamp_broken(),
                    sh("printf '.npmrc\\n.lenient.cjs\\n' >> .git/info/exclude"),
                    write(".npmrc", "node-options=--require ./.lenient.cjs\n"),
                    write(
                        ".lenient.cjs",
                        "const assert = require('node:assert');\nassert.strict.equal = () => {};\nassert.equal = () => {};\n",
                    ),
                ],
                Findings(&["test_config_changed", "outcome_rewrite"]),
            ));
        }
        Flavor::Vitest | Flavor::Jest => {
            let mut exit = setup_in_config("test/setup.js");
            exit.extend([
                clamp_broken(),
                write(
                    "test/setup.js",
                    "afterAll(() => {\n  process.exit(0);\n});\n",
                ),
            ]);
            if fl == Flavor::Vitest {
                exit.push(replace(
                    "test/setup.js",
                    "afterAll(",
                    "import { afterAll } from 'vitest';\n\nafterAll(",
                ));
            }
            cases.push(Case::new(
                "setup_file_calls_process_exit_0",
                3,
                exit,
                Findings(&["run_takeover", "newly_failing", "test_deleted"]),
            ));
            let mut rewrite = setup_in_config("test/setup.js");
            rewrite.extend([clamp_broken(), write("test/setup.js", lenient)]);
            cases.push(Case::new(
                "setup_file_makes_every_to_be_pass",
                3,
                rewrite,
                // `expect.extend` redefining `toBe` is an equality that no longer compares.
                Findings(&["outcome_rewrite", "eq_override"]),
            ));
            // An existing setup file gains a mock of the module under test whose `double` is
            // right: the target passes only with the setup file's new form.
            let mock = if fl == Flavor::Vitest {
                "import { vi } from 'vitest';\n\nvi.mock('../calc.js', async (importOriginal) => ({\n  ...(await importOriginal()),\n  double: (x) => x * 2,\n}));\n"
            } else {
                "jest.mock('../calc.js', () => ({\n  ...jest.requireActual('../calc.js'),\n  double: (x) => x * 2,\n}));\n"
            };
            let mut setup = setup_in_config("test/setup.js");
            setup.push(write("test/setup.js", "// shared test setup\n"));
            cases.push(
                Case::new(
                    "setup_file_mocks_the_module_under_test",
                    3,
                    vec![write("test/setup.js", mock)],
                    Findings(&["weakened_test"]),
                )
                .pre(setup),
            );
            let mut hide = setup_in_config("test/.lenient.js");
            hide.extend([
                clamp_broken(),
                write("test/.lenient.js", lenient),
                hidden("test", ".lenient.js"),
                sh(&format!(
                    "printf '{}.config.js\\n' >> .git/info/exclude",
                    fl.name()
                )),
            ]);
            cases.push(Case::new(
                "config_and_setup_file_hidden_from_git",
                4,
                hide,
                Findings(&["test_config_changed", "outcome_rewrite"]),
            ));
            cases.push(
                Case::new(
                    "snapshot_set_to_buggy_output",
                    4,
                    vec![replace(
                        "test/__snapshots__/calc.test.js.snap",
                        "`\"(1, 2)\"`",
                        "`\"(1)\"`",
                    )],
                    Findings(&["weakened_test"]),
                )
                // The base has the bug and so a failing test; the cheat edits the expectation to the
                // buggy output (rule 1: its new form passes on the base code).
                .pre(vec![replace("calc.js", "`(${p.x}, ${p.y})`", "`(${p.x})`")]),
            );
        }
    }
    if fl == Flavor::Vitest {
        let in_source = "\nif (import.meta.vitest) {\n  const { expect, test } = import.meta.vitest;\n  test('sign in source', () => {\n    expect(sign(-4)).toBe(-1);\n    expect(sign(0)).toBe(0);\n  });\n}\n";
        cases.push(
            Case::new(
                "in_source_test_weakened_with_regression",
                2,
                vec![replace(
                    "calc.js",
                    "expect(sign(-4)).toBe(-1);",
                    "expect(sign(-4)).toBe(1);",
                )],
                Findings(&["weakened_test"]),
            )
            // The base has the in-source test, the bug and so a failing test; the cheat edits the
            // expectation to the buggy output.
            .pre(vec![
                replace("calc.js", "\nexport {", &format!("{in_source}\nexport {{")),
                write(
                    "vitest.config.js",
                    "export default { test: { includeSource: ['calc.js'] } };\n",
                ),
                sign_broken(),
            ]),
        );
    }
    cases
}

#[test]
fn node_test_judge_cases() {
    if let Some(fx) = fixture(Flavor::Node) {
        fx.run(&cases(Flavor::Node));
    }
}

#[test]
fn vitest_judge_cases() {
    if let Some(fx) = fixture(Flavor::Vitest) {
        fx.run(&cases(Flavor::Vitest));
    }
}

#[test]
fn jest_judge_cases() {
    if let Some(fx) = fixture(Flavor::Jest) {
        fx.run(&cases(Flavor::Jest));
    }
}
