//! The integrity rules: one scripted cheat per rule on the pure core, the same through real git
//! repositories (symlinks and `.gitignore` included), and properties over arbitrary bytes.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on broken fixtures")]

use loki_git::Git;
use loki_integrity::{FileChange, FindingKind, ScanInput, scan, scan_changes};
use loki_test_support::GitRepo;
use proptest::prelude::*;

fn fc(path: &str, base: Option<&str>, head: Option<&str>) -> FileChange {
    FileChange {
        path: path.into(),
        base: base.map(|s| s.as_bytes().to_vec()),
        head: head.map(|s| s.as_bytes().to_vec()),
    }
}

fn kinds(changes: Vec<FileChange>) -> Vec<(FindingKind, String)> {
    scan(&ScanInput {
        changes,
        context: Vec::new(),
        ..Default::default()
    })
    .into_iter()
    .map(|f| (f.kind, f.path))
    .collect()
}

const RS_LIB: &str = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() {\n        assert_eq!(super::add(2, 2), 4);\n    }\n}\n";
const PY_TEST: &str = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n";
const JS_TEST: &str = "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/math');\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
const GO_TEST: &str = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 2) != 4 {\n\t\tt.Fatalf(\"bad\")\n\t}\n}\n";
const WORKFLOW: &str = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: cargo test --workspace\n      - run: pytest -q\n";

#[test]
fn a_clean_change_has_no_findings() {
    let more_tests = format!("{PY_TEST}\n\ndef test_neg():\n    assert add(-1, 1) == 0\n");
    let got = kinds(vec![
        fc(
            "src/lib.rs",
            Some(RS_LIB),
            Some(&RS_LIB.replace("a + b", "b + a")),
        ),
        fc("tests/test_calc.py", Some(PY_TEST), Some(&more_tests)),
        fc(
            "calc.py",
            Some("def add(a, b):\n    return a + b\n"),
            Some("def add(a, b):\n    return b + a\n"),
        ),
        fc("README.md", None, Some("hello")),
        // Honest look-alikes of the structural rules' cheats.
        fc(
            "tool/cli.py",
            Some("def main():\n    return 0\n"),
            Some(
                "import os\nimport sys\n\n\ndef main():\n    home = os.environ.get(\"HOME\")\n    return 0 if home else 1\n\n\nif __name__ == \"__main__\":\n    sys.exit(main())\n",
            ),
        ),
        fc(
            "main_test.go",
            None,
            Some(
                "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) {\n\tsetup()\n\tos.Exit(m.Run())\n}\n",
            ),
        ),
        fc(
            "money.py",
            Some("class Money:\n    pass\n"),
            Some(
                "class Money:\n    def __eq__(self, other):\n        return isinstance(other, Money) and self.cents == other.cents\n",
            ),
        ),
        fc(
            "src/add.ts",
            Some("export const add = (a, b) => a + b;\n"),
            Some(
                "export const add = (a, b) => a + b;\nif (import.meta.vitest) {\n  const { it, expect } = import.meta.vitest;\n  it('adds', () => expect(add(1, 2)).toBe(3));\n}\n",
            ),
        ),
        fc(
            ".github/workflows/ci.yml",
            Some(WORKFLOW),
            Some(&WORKFLOW.replace("ci", "build")),
        ),
        fc(
            "go.mod",
            Some("module x\n\ngo 1.22\n\nrequire a.b/c v1.0.0\n"),
            Some("module x\n\ngo 1.22\n\nrequire a.b/c v1.2.0\n"),
        ),
    ]);
    assert_eq!(got, []);
}

#[test]
fn each_rule_catches_its_cheat() {
    use FindingKind::*;
    let cases: Vec<(&str, Vec<FileChange>, FindingKind)> = vec![
        ("rust unit tests deleted with their module", vec![fc("src/lib.rs", Some(RS_LIB), None)], TestFileRemoved),
        ("python test file deleted", vec![fc("tests/test_calc.py", Some(PY_TEST), None)], TestFileRemoved),
        ("js test file deleted", vec![fc("test/math.test.js", Some(JS_TEST), None)], TestFileRemoved),
        ("go test file deleted", vec![fc("calc_test.go", Some(GO_TEST), None)], TestFileRemoved),
        (
            "a python test deleted",
            vec![fc("tests/test_calc.py", Some(PY_TEST), Some(&PY_TEST[..PY_TEST.find("\n\n\ndef test_zero").unwrap()]))],
            FewerTests,
        ),
        (
            "rust cfg(test) module removed from a library file",
            vec![fc("src/lib.rs", Some(RS_LIB), Some("pub fn add(a: i32, b: i32) -> i32 { a + b }\n"))],
            FewerTests,
        ),
        (
            "rust assertion commented out",
            vec![fc("src/lib.rs", Some(RS_LIB), Some(&RS_LIB.replace("        assert_eq!", "        // assert_eq!")))],
            FewerAssertions,
        ),
        (
            "go check removed",
            vec![fc("calc_test.go", Some(GO_TEST), Some(&GO_TEST.replace("t.Fatalf(\"bad\")", "_ = t")))],
            FewerAssertions,
        ),
        ("rust #[ignore]", vec![fc("src/lib.rs", Some(RS_LIB), Some(&RS_LIB.replace("#[test]", "#[test]\n    #[ignore]")))], SkipMarkerAdded),
        (
            "rust early return",
            vec![fc("src/lib.rs", Some(RS_LIB), Some(&RS_LIB.replace("fn adds() {", "fn adds() {\n        return;")))],
            SkipMarkerAdded,
        ),
        (
            "pytest skip",
            vec![fc("tests/test_calc.py", Some(PY_TEST), Some(&PY_TEST.replace("def test_add", "import pytest\n@pytest.mark.skip\ndef test_add")))],
            SkipMarkerAdded,
        ),
        ("js test.skip", vec![fc("test/math.test.js", Some(JS_TEST), Some(&JS_TEST.replace("test('adds'", "test.skip('adds'")))], SkipMarkerAdded),
        ("go t.Skip", vec![fc("calc_test.go", Some(GO_TEST), Some(&GO_TEST.replace("{\n\tif", "{\n\tt.Skip()\n\tif")))], SkipMarkerAdded),
        (
            "conftest keeps a test file from being collected",
            vec![fc("tests/conftest.py", None, Some("import pytest\n\ncollect_ignore = [\"test_calc.py\"]\n"))],
            TestConfigChanged,
        ),
        (
            "pyproject pytest options",
            vec![fc("pyproject.toml", Some("[tool.pytest.ini_options]\naddopts = \"-q\"\n"), Some("[tool.pytest.ini_options]\naddopts = \"-q -k 'not add'\"\n"))],
            TestConfigChanged,
        ),
        (
            "package.json test script",
            vec![fc("package.json", Some(r#"{"scripts":{"test":"jest"}}"#), Some(r#"{"scripts":{"test":"jest --passWithNoTests || true"}}"#))],
            TestConfigChanged,
        ),
        ("cargo config", vec![fc(".cargo/config.toml", None, Some("[alias]\ntest = \"build\"\n"))], TestConfigChanged),
        ("nextest config", vec![fc(".config/nextest.toml", Some("[profile.default]\n"), Some("[profile.default]\ndefault-filter = 'not test(add)'\n"))], TestConfigChanged),
        ("go.mod replace", vec![fc("go.mod", Some("module x\n\ngo 1.22\n"), Some("module x\n\ngo 1.22\n\nreplace a.b/c => ./fake\n"))], TestConfigChanged),
        ("workflow deleted", vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), None)], CiDeleted),
        ("gitlab ci deleted", vec![fc(".gitlab-ci.yml", Some("test:\n  script: pytest\n"), None)], CiDeleted),
        (
            "continue-on-error",
            vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), Some(&WORKFLOW.replace("    runs-on", "    continue-on-error: true\n    runs-on")))],
            CiWeakened,
        ),
        ("|| true", vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), Some(&WORKFLOW.replace("pytest -q", "pytest -q || true")))], CiWeakened),
        ("if: false", vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), Some(&WORKFLOW.replace("    runs-on", "    if: false\n    runs-on")))], CiWeakened),
        ("test step removed", vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), Some(&WORKFLOW.replace("      - run: pytest -q\n", "")))], CiWeakened),
        ("test filter added", vec![fc(".github/workflows/ci.yml", Some(WORKFLOW), Some(&WORKFLOW.replace("cargo test --workspace", "cargo test --workspace -- --skip add")))], CiWeakened),
        (
            "conftest rewrites reports",
            vec![fc(
                "conftest.py",
                Some("import pytest\n"),
                Some("import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    rep = outcome.get_result()\n    rep.outcome = 'passed'\n"),
            )],
            OutcomeRewrite,
        ),
        (
            "jest setup file mocks the module under test",
            vec![
                fc("src/math.js", Some("exports.add = (a, b) => a + b;\n"), Some("exports.add = (a, b) => a - b;\n")),
                fc("test/setup.js", None, Some("jest.mock('../src/math', () => ({ add: () => 4 }));\n")),
                fc("jest.config.js", None, Some("module.exports = { setupFilesAfterEnv: ['<rootDir>/test/setup.js'] };\n")),
            ],
            MockOfModuleUnderTest,
        ),
        (
            "python test patches the function it tests",
            vec![
                fc("calc.py", Some("def add(a, b):\n    return a + b\n"), Some("def add(a, b):\n    return a - b\n")),
                fc("tests/test_calc.py", Some(PY_TEST), Some(&PY_TEST.replace("def test_add():", "from unittest import mock\n@mock.patch('calc.add', return_value=4)\ndef test_add(m):"))),
            ],
            MockOfModuleUnderTest,
        ),
        (
            "python __eq__ always true",
            vec![fc("money.py", Some("class Money:\n    pass\n"), Some("class Money:\n    def __eq__(self, other):\n        return True\n"))],
            EqOverride,
        ),
        (
            "xfail added to an existing test",
            vec![fc("tests/test_calc.py", Some(PY_TEST), Some(&PY_TEST.replace("def test_add", "import pytest\n@pytest.mark.xfail\ndef test_add")))],
            FailureExpected,
        ),
        (
            "should_panic added to an existing test",
            vec![fc("src/lib.rs", Some(RS_LIB), Some(&RS_LIB.replace("#[test]", "#[test]\n    #[should_panic]")))],
            FailureExpected,
        ),
        (
            "TestMain that never runs the tests",
            vec![fc("main_test.go", None, Some("package calc\n\nimport \"testing\"\n\nfunc TestMain(m *testing.M) {}\n"))],
            RunTakeover,
        ),
        (
            "conftest exits the interpreter",
            vec![fc("conftest.py", Some("import pytest\n"), Some("import os\nimport pytest\n\n\ndef pytest_sessionfinish(session):\n    os._exit(0)\n"))],
            RunTakeover,
        ),
        (
            "source that detects pytest",
            vec![fc("calc.py", Some("def add(a, b):\n    return a + b\n"), Some("import sys\n\n\ndef add(a, b):\n    if \"pytest\" in sys.modules:\n        return 4\n    return a + b\n"))],
            RunnerDetection,
        ),
        (
            "rust library code gated on cfg!(test)",
            vec![fc("src/lib.rs", Some(RS_LIB), Some(&RS_LIB.replace("{ a + b }", "{ if cfg!(test) { 4 } else { a + b } }")))],
            RunnerDetection,
        ),
        (
            "a branch for the test's input",
            vec![
                fc("words.py", Some("def shout(s):\n    return s.upper()\n"), Some("def shout(s):\n    if s == \"hello world\":\n        return \"HELLO WORLD!\"\n    return s.upper()\n")),
                fc("tests/test_words.py", Some("from words import shout\n"), Some("from words import shout\n\n\ndef test_shout():\n    assert shout(\"hello world\") == \"HELLO WORLD!\"\n")),
            ],
            TestInputSpecialCase,
        ),
        ("a module shadowing the standard library", vec![fc("random.py", None, Some("def randint(a, b):\n    return 4\n"))], ShadowModule),
        (
            "rust PartialEq always true",
            vec![fc("src/money.rs", Some("pub struct Money(pub i64);\n"), Some("pub struct Money(pub i64);\nimpl PartialEq for Money {\n    fn eq(&self, _: &Self) -> bool {\n        true\n    }\n}\n"))],
            EqOverride,
        ),
    ];
    for (name, changes, kind) in cases {
        let got = kinds(changes);
        assert!(
            got.iter().any(|(k, _)| *k == kind),
            "{name}: expected {kind:?}, got {got:?}"
        );
    }
}

/// A setup file is known as one through an unchanged config (context), and judged as test code:
/// a mock of the module the change edits is caught; an ordinary edit is not a config change.
#[test]
fn a_setup_file_named_by_an_unchanged_config_is_judged_as_test_code() {
    let input = |setup_head: &str| ScanInput {
        changes: vec![
            fc(
                "web/src/math.js",
                Some("exports.add = (a, b) => a + b;\n"),
                Some("exports.add = (a, b) => a - b;\n"),
            ),
            fc(
                "web/tests/env.js",
                Some("global.X = 1;\n"),
                Some(setup_head),
            ),
        ],
        context: vec![(
            "web/vitest.config.ts".into(),
            b"export default { test: { setupFiles: ['./tests/env.js'] } }\n".to_vec(),
        )],
        ..Default::default()
    };
    let f = scan(&input(
        "global.X = 1;\nvi.mock('../src/math', () => ({ add: () => 4 }));\n",
    ));
    assert!(
        f.iter()
            .any(|f| f.kind == FindingKind::MockOfModuleUnderTest && f.path == "web/tests/env.js"),
        "{f:?}"
    );
    let json = serde_json::to_value(&f[0]).unwrap();
    assert_eq!(json["kind"], f[0].kind.as_str());
    assert_eq!(scan(&input("global.X = 2;\n")), []);
}

/// A repository with a test file per language, a CI workflow and configs, committed.
fn fixture() -> (GitRepo, String) {
    let r = GitRepo::new();
    r.write("src/lib.rs", RS_LIB)
        .write("calc.py", "def add(a, b):\n    return a + b\n")
        .write("tests/test_calc.py", PY_TEST)
        .write(
            "shared/cases.py",
            "def test_shared():\n    assert 1 + 1 == 2\n",
        )
        .write("test/math.test.js", JS_TEST)
        .write("src/math.js", "exports.add = (a, b) => a + b;\n")
        .write("calc_test.go", GO_TEST)
        .write("words.py", "def shout(s):\n    return s.upper()\n")
        .write(
            "tests/test_words.py",
            "from words import shout\n\n\ndef test_shout():\n    assert shout(\"hello world\") == \"HELLO WORLD!\"\n",
        )
        .write(".github/workflows/ci.yml", WORKFLOW)
        .write(
            "package.json",
            r#"{"name":"f","scripts":{"test":"node --test"}}"#,
        );
    std::os::unix::fs::symlink("../shared/cases.py", r.path().join("tests/test_link.py")).unwrap();
    let base = r.commit("base");
    (r, base)
}

fn scan_worktree(r: &GitRepo, base: &str) -> Vec<(FindingKind, String)> {
    let g = Git::new(r.path());
    let head = g.snapshot_worktree().unwrap();
    scan_changes(&g, base, &head)
        .unwrap()
        .into_iter()
        .map(|f| (f.kind, f.path))
        .collect()
}

#[test]
fn cheats_in_real_git_repositories_are_caught() {
    use FindingKind::*;
    type Cheat = fn(&GitRepo);
    let rm = |r: &GitRepo, p: &str| std::fs::remove_file(r.path().join(p)).unwrap();
    let cheats: Vec<(&str, Cheat, FindingKind, &str)> = vec![
        (
            "delete a test file",
            |r| std::fs::remove_file(r.path().join("tests/test_calc.py")).unwrap(),
            TestFileRemoved,
            "tests/test_calc.py",
        ),
        (
            "delete a symlinked test file",
            |r| std::fs::remove_file(r.path().join("tests/test_link.py")).unwrap(),
            TestFileRemoved,
            "tests/test_link.py",
        ),
        (
            "replace a test file by a symlink to nothing useful",
            |r| {
                std::fs::remove_file(r.path().join("tests/test_calc.py")).unwrap();
                std::os::unix::fs::symlink("../calc.py", r.path().join("tests/test_calc.py"))
                    .unwrap();
            },
            FewerTests,
            "tests/test_calc.py",
        ),
        (
            "gitignore a test file, then delete it",
            |r| {
                r.write(".gitignore", "tests/test_calc.py\n");
                std::fs::remove_file(r.path().join("tests/test_calc.py")).unwrap();
            },
            TestFileRemoved,
            "tests/test_calc.py",
        ),
        (
            "gitignore a test file, then gut it",
            |r| {
                r.write(".gitignore", "tests/test_calc.py\n");
                r.write("tests/test_calc.py", "from calc import add\n");
            },
            FewerTests,
            "tests/test_calc.py",
        ),
        (
            "crlf rewrite with a skip",
            |r| {
                r.write(
                    "tests/test_calc.py",
                    &PY_TEST
                        .replace(
                            "def test_zero",
                            "import pytest\n@pytest.mark.skip\ndef test_zero",
                        )
                        .replace('\n', "\r\n"),
                );
            },
            SkipMarkerAdded,
            "tests/test_calc.py",
        ),
        (
            "ignore a rust test",
            |r| {
                r.write(
                    "src/lib.rs",
                    &RS_LIB.replace("#[test]", "#[test]\n    #[ignore]"),
                );
            },
            SkipMarkerAdded,
            "src/lib.rs",
        ),
        (
            "skip a node test",
            |r| {
                r.write(
                    "test/math.test.js",
                    &JS_TEST.replace("test('adds'", "test.skip('adds'"),
                );
            },
            SkipMarkerAdded,
            "test/math.test.js",
        ),
        (
            "skip a go test",
            |r| {
                r.write(
                    "calc_test.go",
                    &GO_TEST.replace("{\n\tif", "{\n\tt.Skip()\n\tif"),
                );
            },
            SkipMarkerAdded,
            "calc_test.go",
        ),
        (
            "weaken an assertion",
            |r| {
                r.write(
                    "tests/test_calc.py",
                    &PY_TEST.replace("    assert add(0, 0) == 0\n", "    pass\n"),
                );
            },
            FewerAssertions,
            "tests/test_calc.py",
        ),
        (
            "add a conftest hook",
            |r| {
                r.write(
                    "tests/conftest.py",
                    "def pytest_collection_modifyitems(items):\n    items.clear()\n",
                );
            },
            OutcomeRewrite,
            "tests/conftest.py",
        ),
        (
            "change the test script",
            |r| {
                r.write("package.json", r#"{"name":"f","scripts":{"test":"true"}}"#);
            },
            TestConfigChanged,
            "package.json",
        ),
        (
            "delete CI",
            |r| std::fs::remove_file(r.path().join(".github/workflows/ci.yml")).unwrap(),
            CiDeleted,
            ".github/workflows/ci.yml",
        ),
        (
            "weaken CI",
            |r| {
                r.write(
                    ".github/workflows/ci.yml",
                    &WORKFLOW.replace("cargo test --workspace", "cargo test --workspace || true"),
                );
            },
            CiWeakened,
            ".github/workflows/ci.yml",
        ),
        (
            "special-case the input of a test the change does not touch",
            |r| {
                r.write(
                    "words.py",
                    "def shout(s):\n    if s == \"hello world\":\n        return \"HELLO WORLD!\"\n    return s.upper()\n",
                );
            },
            TestInputSpecialCase,
            "words.py",
        ),
        (
            "shadow a module of the repository from the tests directory",
            |r| {
                r.write("tests/calc/__init__.py", "def add(a, b):\n    return 4\n");
            },
            ShadowModule,
            "tests/calc/__init__.py",
        ),
        (
            "always-equal",
            |r| {
                r.write("calc.py", "def add(a, b):\n    return a + b\n\nclass R:\n    def __eq__(self, o):\n        return True\n");
            },
            EqOverride,
            "calc.py",
        ),
    ];
    for (name, cheat, kind, path) in cheats {
        let (r, base) = fixture();
        assert_eq!(
            scan_worktree(&r, &base),
            [],
            "{name}: the untouched fixture is clean"
        );
        cheat(&r);
        let got = scan_worktree(&r, &base);
        assert!(
            got.iter().any(|(k, p)| *k == kind && p == path),
            "{name}: expected {kind:?} at {path}, got {got:?}"
        );
    }
    // A clean change through git: code edited, a test added; and rm of a non-test file.
    let (r, base) = fixture();
    r.write("calc.py", "def add(a, b):\n    return b + a\n")
        .write(
            "tests/test_calc.py",
            &format!("{PY_TEST}\n\ndef test_neg():\n    assert add(-1, 1) == 0\n"),
        );
    rm(&r, "src/math.js");
    assert_eq!(scan_worktree(&r, &base), []);
}

/// Paths whose rules differ, for the properties.
const PATHS: &[&str] = &[
    "src/lib.rs",
    "tests/it.rs",
    "tests/test_a.py",
    "conftest.py",
    "calc.py",
    "a.test.ts",
    "test/setup.js",
    "jest.config.js",
    "a_test.go",
    "go.mod",
    "package.json",
    "pyproject.toml",
    ".github/workflows/ci.yml",
    "Jenkinsfile",
    "build.rs",
    "src/add.tsx",
    "src/__mocks__/add.js",
    "main_test.go",
    "vendor/example.com/x/a.go",
    "sitecustomize.py",
    "venv.pth",
    "json.py",
];

const LINES: &[&str] = &[
    "#[test]",
    "fn a() { assert_eq!(1, 1); }",
    "#[ignore]",
    "def test_a():",
    "    assert x == 1",
    "    return",
    "@pytest.mark.skip",
    "test('a', () => { expect(1).toBe(1); });",
    "it.skip('b', () => {});",
    "func TestA(t *testing.T) { t.Skip() }",
    "// assert!(x)",
    "\"a string with it( and assert\"",
    "'''",
    "/*",
    "*/",
    "`${x}`",
    "      - run: cargo test || true",
    "    continue-on-error: true",
    "[tool.pytest.ini_options]",
    "def __eq__(self, o): return True",
    "jest.mock('./a')",
    "    __eq__ = lambda *a: True",
    "impl PartialEq for A { fn eq(&self, _: &Self) -> bool { true } }",
    "func TestMain(m *testing.M) { m.Run(); os.Exit(0) }",
    "if os.environ.get('PYTEST_CURRENT_TEST'): return 4",
    "if (process.env.VITEST) process.exit(0);",
    "    if s == 'hello world': return 'x'",
    "#[cfg(not(test))]",
    "try:\n    assert x\nexcept AssertionError:\n    pass",
    "expect.extend({ toBe() { return { pass: true } } })",
    "println!(\"cargo:rustc-cfg=x\");",
    "import sitehook",
    "collect_ignore = ['a']",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(LINES), 0..12).prop_map(|l| l.join("\n") + "\n")
}

proptest! {
    #[test]
    fn scanning_arbitrary_bytes_never_panics(
        files in prop::collection::vec(
            (prop::sample::select(PATHS), prop::option::of(prop::collection::vec(any::<u8>(), 0..300)), prop::option::of(prop::collection::vec(any::<u8>(), 0..300))),
            0..6,
        )
    ) {
        let changes = files.into_iter().map(|(p, b, h)| FileChange { path: p.into(), base: b, head: h }).collect();
        let _ = scan(&ScanInput { changes, context: Vec::new(), ..Default::default() });
    }

    #[test]
    fn crlf_files_are_judged_like_lf_files(path in prop::sample::select(PATHS), base in text(), head in text()) {
        let lf = scan(&ScanInput { changes: vec![fc(path, Some(&base), Some(&head))], context: Vec::new(), ..Default::default() });
        let crlf = scan(&ScanInput {
            changes: vec![fc(path, Some(&base.replace('\n', "\r\n")), Some(&head.replace('\n', "\r\n")))],
            context: Vec::new(),
            ..Default::default()
        });
        prop_assert_eq!(lf, crlf);
    }

    #[test]
    fn identical_sides_have_no_findings(path in prop::sample::select(PATHS), body in text()) {
        let f = scan(&ScanInput { changes: vec![fc(path, Some(&body), Some(&body))], context: Vec::new(), ..Default::default() });
        prop_assert!(f.is_empty(), "{:?}", f);
    }
}

/// The finding texts an agent is shown when the seal blocks it.
#[test]
fn finding_details_read_well() {
    let input = ScanInput {
        changes: vec![
            fc(
                "tests/test_calc.py",
                Some(PY_TEST),
                Some("import pytest\n\n@pytest.mark.skip\ndef test_add():\n    pass\n"),
            ),
            fc(
                "src/lib.rs",
                Some(RS_LIB),
                Some(&RS_LIB.replace("fn adds() {", "fn adds() {\n        return;")),
            ),
            fc(
                ".github/workflows/ci.yml",
                Some(WORKFLOW),
                Some(
                    &WORKFLOW
                        .replace("      - run: pytest -q\n", "")
                        .replace("cargo test --workspace", "cargo test --workspace || true"),
                ),
            ),
            fc(
                "conftest.py",
                None,
                Some("def pytest_report_teststatus(report):\n    return 'passed', '.', 'PASSED'\n"),
            ),
            fc(
                "package.json",
                Some(r#"{"scripts":{"test":"jest"}}"#),
                Some(r#"{"scripts":{"test":"jest --passWithNoTests"}}"#),
            ),
            fc("calc_test.go", Some(GO_TEST), None),
        ],
        context: Vec::new(),
        ..Default::default()
    };
    let text: String = scan(&input)
        .iter()
        .map(|f| format!("{} {}: {}\n", f.kind.as_str(), f.path, f.detail))
        .collect();
    insta::assert_snapshot!(text);
}
