//! The seal on real vitest and jest projects run through `npm test` with their JSON reporters:
//! detection, per-test ids, a clean change, a real regression, a weakened test caught by running
//! the original file, and one scripted cheat per JS integrity rule (`.skip(`, `.only(`, a removed
//! `expect(`, a setup file mocking the module under test, the runner's configuration and the test
//! script changed, the test file deleted).
//!
//! The packages are not installed per fixture (no network at test time): `LOKI_NPM_CACHE` names a
//! directory where `npm install vitest@3 jest@29` was run (`.ci/run` does that), and each fixture
//! gets a `node_modules` symlink to it, ignored by git as a real one would be. Without it the tests
//! skip, or fail under CI (`loki_test_support::require_npm`).

use std::path::Path;

use loki_checks::{TestClass, classify, run_baseline};
use loki_protocol::CheckKind;
use loki_protocol::CheckStatus;
use loki_protocol::FindingKind;

use super::seal_runners::{Fixture, show, walk};

/// One JS runner's fixture: the files and the cheats that differ between vitest and jest.
struct Project {
    kind: CheckKind,
    bin: &'static str,
    package_json: &'static str,
    math: &'static str,
    test: &'static str,
    config_path: &'static str,
    config: &'static str,
    /// The configuration edited to stop running the math tests.
    config_cheat: &'static str,
    /// A line for the setup file that replaces `../math.js` with a mock that is always right.
    mock_line: &'static str,
    /// The test script edited so a run without tests passes.
    script_cheat: &'static str,
}

const SETUP: &str = "// Shared setup for every test file.\nglobalThis.TEST_TIMEOUT_MS = 5000;\n";
const TEST_FILE: &str = "test/math.test.js";
const ADDS: &str = "expect(add(2, 2)).toBe(4);";
const ADDS_ZERO: &str = "expect(add(0, 0)).toBe(0);";

const VITEST: Project = Project {
    kind: CheckKind::Vitest,
    bin: "vitest",
    package_json: r#"{"name": "fx", "private": true, "type": "module", "scripts": {"test": "vitest run"}}"#,
    math: "export const add = (a, b) => a + b;\n",
    test: "import { describe, expect, test } from 'vitest';\nimport { add } from '../math.js';\n\ndescribe('math', () => {\n  test('adds', () => {\n    expect(add(2, 2)).toBe(4);\n  });\n\n  test('adds zero', () => {\n    expect(add(0, 0)).toBe(0);\n  });\n});\n",
    config_path: "vitest.config.js",
    config: "export default {\n  test: {\n    setupFiles: ['./test/setup.js'],\n  },\n};\n",
    config_cheat: "export default {\n  test: {\n    setupFiles: ['./test/setup.js'],\n    exclude: ['**/math.test.js'],\n    passWithNoTests: true,\n  },\n};\n",
    mock_line: "import { vi } from 'vitest';\nvi.mock('../math.js', () => ({ add: (a, b) => a + b }));\n",
    script_cheat: r#"{"name": "fx", "private": true, "type": "module", "scripts": {"test": "vitest run --passWithNoTests"}}"#,
};

const JEST: Project = Project {
    kind: CheckKind::Jest,
    bin: "jest",
    package_json: r#"{"name": "fx", "private": true, "scripts": {"test": "jest"}}"#,
    math: "exports.add = (a, b) => a + b;\n",
    test: "const { add } = require('../math.js');\n\ndescribe('math', () => {\n  test('adds', () => {\n    expect(add(2, 2)).toBe(4);\n  });\n\n  test('adds zero', () => {\n    expect(add(0, 0)).toBe(0);\n  });\n});\n",
    config_path: "jest.config.js",
    config: "module.exports = {\n  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],\n};\n",
    config_cheat: "module.exports = {\n  setupFilesAfterEnv: ['<rootDir>/test/setup.js'],\n  testPathIgnorePatterns: ['/node_modules/', 'math'],\n  passWithNoTests: true,\n};\n",
    mock_line: "jest.mock('../math.js', () => ({ add: (a, b) => a + b }));\n",
    script_cheat: r#"{"name": "fx", "private": true, "scripts": {"test": "jest --passWithNoTests"}}"#,
};

fn link(node_modules: &Path, repo: &Path) {
    std::os::unix::fs::symlink(node_modules, repo.join("node_modules")).unwrap();
}

fn seal(p: &Project, node_modules: &Path) {
    let f = Fixture::new(
        &[
            ("package.json", p.package_json),
            (".gitignore", "node_modules\n"),
            ("math.js", p.math),
            (TEST_FILE, p.test),
            (p.config_path, p.config),
            ("test/setup.js", SETUP),
        ],
        &[],
    );
    link(node_modules, f.repo.path());
    let check = &f.checks[0];
    assert_eq!(check.kind, p.kind, "{check:#?}");
    assert_eq!(check.command, ["npm", "test"]);
    assert!(check.why.contains(&format!("runs {}", p.bin)), "{check:#?}");

    // The unchanged project passes, with per-test ids from the runner's JSON report.
    let head = f.run_head();
    let r = &head[0];
    assert_eq!(r.run.result, CheckStatus::Pass, "{}", show(&head));
    assert_eq!(
        (
            r.run.executed,
            r.run.passed,
            r.run.failed,
            r.report_source.as_deref()
        ),
        (2, 2, 0, Some("script+jest-json")),
        "{}",
        show(&head)
    );
    let ids: Vec<&str> = r.tests.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "test/math.test.js > math adds",
            "test/math.test.js > math adds zero"
        ]
    );

    // Wrong only when a > 1: 'adds' fails, 'adds zero' still passes.
    let broken = p.math.replace("a + b", "a + b + (a > 1 ? 1 : 0)");
    let weakened = p
        .test
        .replace(ADDS, "expect(add(2, 2)).toBeGreaterThan(0);");
    walk(
        &f,
        &[(
            "math.js",
            &format!(
                "{}{}",
                p.math,
                p.math.replace("add", "sub").replace('+', "-")
            ),
        )],
        &[("math.js", &broken)],
        &[("math.js", &broken), (TEST_FILE, &weakened)],
        "math adds",
    );
    let base = run_baseline(f.repo.path(), &f.base, &f.checks, &f.opts, &f.cache()).unwrap();
    assert!(base.cached);

    // `.skip(`: the scan refuses it, and the run shows the test newly skipped.
    f.change(&[(
        TEST_FILE,
        &p.test.replace("test('adds zero'", "test.skip('adds zero'"),
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::SkipMarkerAdded, TEST_FILE.to_owned())]
    );
    let head = f.run_head();
    let c = classify(&base.results, &head);
    assert_eq!(
        c.ids(TestClass::NewlySkipped),
        ["test/math.test.js > math adds zero"],
        "{c:#?}\n{}",
        show(&head)
    );

    // `.only(`: every other test silently stops running.
    f.change(&[(
        TEST_FILE,
        &p.test.replace("test('adds'", "test.only('adds'"),
    )]);
    assert_eq!(
        f.scan(),
        [(FindingKind::SkipMarkerAdded, TEST_FILE.to_owned())]
    );

    // A removed `expect(`: the test still runs and passes; only the scan can tell.
    f.change(&[(TEST_FILE, &p.test.replace(ADDS_ZERO, "add(0, 0);"))]);
    assert_eq!(
        f.scan(),
        [(FindingKind::FewerAssertions, TEST_FILE.to_owned())]
    );

    // The setup file mocks the module the change breaks: the suite passes, the scan refuses it.
    f.change(&[
        ("math.js", &p.math.replace("a + b", "a - b")),
        ("test/setup.js", &format!("{}{SETUP}", p.mock_line)),
    ]);
    let found = f.scan();
    assert!(
        found.contains(&(
            FindingKind::MockOfModuleUnderTest,
            "test/setup.js".to_owned()
        )),
        "{found:?}"
    );
    let head = f.run_head();
    assert_eq!(
        head[0].run.result,
        CheckStatus::Pass,
        "the mock fools the runner: {}",
        show(&head)
    );

    // The runner's configuration and the test script changed.
    f.change(&[(p.config_path, p.config_cheat)]);
    let mut found = f.scan();
    found.dedup();
    assert_eq!(
        found,
        [(FindingKind::TestConfigChanged, p.config_path.to_owned())]
    );
    f.change(&[("package.json", p.script_cheat)]);
    assert_eq!(
        f.scan(),
        [(FindingKind::TestConfigChanged, "package.json".to_owned())]
    );

    // The test file deleted: the scan names it, and the suite cannot pass without it.
    f.change(&[]);
    std::fs::remove_file(f.repo.path().join(TEST_FILE)).unwrap();
    assert_eq!(
        f.scan(),
        [(FindingKind::TestFileRemoved, TEST_FILE.to_owned())]
    );
    let head = f.run_head();
    assert_ne!(head[0].run.result, CheckStatus::Pass, "{}", show(&head));
    assert_eq!(
        classify(&base.results, &head).ids(TestClass::Missing).len(),
        2,
        "{}",
        show(&head)
    );
}

#[test]
fn vitest_seal() {
    if let Some(node_modules) = loki_test_support::require_npm(&[VITEST.bin]) {
        seal(&VITEST, &node_modules);
    }
}

#[test]
fn jest_seal() {
    if let Some(node_modules) = loki_test_support::require_npm(&[JEST.bin]) {
        seal(&JEST, &node_modules);
    }
}

/// A jest run of a chained test script whose JSON report loki cannot read is not a pass on the
/// tests it could not count: the check fails and says which report it could not read. The jest
/// here writes a report of another shape (as an old or patched jest can), then exits 0.
#[test]
fn an_unreadable_script_report_is_not_a_pass() {
    let f = Fixture::new(
        &[
            (
                "package.json",
                r#"{"name": "fx", "private": true, "scripts": {"test": "node -e 0 && jest"}}"#,
            ),
            ("math.js", JEST.math),
            (TEST_FILE, JEST.test),
            (
                "node_modules/.bin/jest",
                "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --outputFile=*) out=\"${a#--outputFile=}\";; esac; done\necho 'Tests: 2 passed, 2 total'\nprintf '{\"testResults\": 5}' > \"$out\"\n",
            ),
        ],
        &[],
    );
    let bin = f.repo.path().join("node_modules/.bin/jest");
    std::fs::set_permissions(&bin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let head = f.run_head();
    let r = &head[0];
    assert_eq!(r.run.result, CheckStatus::Fail, "{}", show(&head));
    assert!(
        r.reason
            .as_deref()
            .is_some_and(|w| w.contains("could not be read, so its tests were not counted")),
        "{}",
        show(&head)
    );
}
